//===- AotRegistry.h - functions registered by ssd-compile's objects ------===//
//
// The objects ssd-compile writes register each compiled function from a
// global constructor through
// `ssd_aot_register_variant(key, function, operands, target)`: scan variants
// under their signature key, functions of a --module under `module:<name>`,
// with the target they were compiled for ("cuda" or "gpu-emu"). This is the
// table they fill, shared by the mains of ahead-of-time executables
// (ssd-aot-run, the mixer's main). Plain C++.
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
  /// The runtime its kernels are for: "cuda" (PTX or cubin) or "gpu-emu"
  /// (host shared objects for the GPU emulator).
  std::string target;
};

/// Every registered function by key.
std::map<std::string, Variant> &variants();

/// The function registered under `key`, or null.
const Variant *lookup(const std::string &key);

} // namespace aot
} // namespace ssd

extern "C" void ssd_aot_register_variant(const char *key, void *function,
                                         int operands, const char *target);

#endif // SSD_AOTRUN_AOTREGISTRY_H
