//===- AotRegistry.h - functions registered by ssd-compile's objects ------===//
//
// The objects ssd-compile writes register each compiled function from a
// global constructor through `ssd_aot_register(key, function, operands)`:
// scan variants under their signature key, functions of a --module under
// `module:<name>`. This is the table they fill, shared by the mains of
// ahead-of-time executables (ssd-aot-run, the mixer's GPU check). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_AOTRUN_AOTREGISTRY_H
#define SSD_AOTRUN_AOTREGISTRY_H

#include <map>
#include <string>

namespace ssd {
namespace aot {

struct Variant {
  /// The C interface `_mlir_ciface_<name>`: one descriptor pointer per
  /// operand (results first).
  void *function;
  int operands;
};

/// Every registered function by key.
std::map<std::string, Variant> &variants();

/// The function registered under `key`, or null.
const Variant *lookup(const std::string &key);

} // namespace aot
} // namespace ssd

extern "C" void ssd_aot_register(const char *key, void *function,
                                 int operands);

#endif // SSD_AOTRUN_AOTREGISTRY_H
