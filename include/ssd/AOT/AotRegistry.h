//===- AotRegistry.h - functions registered by ssd-compile's objects ------===//
//
// The objects ssd-compile writes register each compiled function from a
// global constructor through
// `ssd_aot_register_chip_variant(key, function, operands, target, chip,
// format)`: scan variants under their signature key, functions of a
// --module under `module:<name>`, with the target they were compiled for
// ("cuda" or "gpu-emu"), the chip and the kernels' format. `ssd-compile
// --chip sm_80,sm_90a` registers one function per chip under each key (the
// host code differs per chip: kernel plans follow its shared-memory limit);
// select() picks the one for the device. This is the table they fill,
// shared by the mains of ahead-of-time executables (ssd-aot-run, the
// mixer's main). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_AOT_AOTREGISTRY_H
#define SSD_AOT_AOTREGISTRY_H

#include <map>
#include <string>
#include <vector>

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
  /// The chip it was compiled for ("sm_80", "sm_90a").
  std::string chip;
  /// How its kernels are embedded: "isa" (PTX), "bin" (cubin) or "fatbin"
  /// (cubin and PTX); "bin" for gpu-emu, whose shared objects, like cubins,
  /// run only on the chip they were compiled for (no PTX to fall back on).
  std::string format;
};

/// Every registered function by key, one per chip, in registration order.
std::map<std::string, std::vector<Variant>> &variants();

/// The functions registered under `key`, or null.
const std::vector<Variant> *lookup(const std::string &key);

/// The variant of `key` (registered: lookup(key) is not null) to run on the
/// linked runtime's device (AotDevice.h), by its compute capability: a
/// variant whose cubin runs there (sm_XY: compute capability X.Z with
/// Z >= Y; an architecture-specific sm_XYa: exactly X.Y), the newest such
/// chip; else one carrying PTX (isa, fatbin) for a lower compute capability,
/// which the driver JIT-compiles, the newest such; else null with a one-line
/// `error` naming the device's capability and the chips compiled. Also null
/// when the variants are for the other runtime (matchesDevice). With the
/// capability unknown (0) the newest chip is chosen, and running it reports
/// why the device is missing.
const Variant *select(const std::string &key, std::string &error);

/// Whether a cubin for `chip` runs on a device of compute capability `cc`
/// (major * 10 + minor), and whether PTX for it can be JIT-compiled there.
bool cubinRunsOn(const std::string &chip, int cc);
bool ptxRunsOn(const std::string &chip, int cc);

} // namespace aot
} // namespace ssd

extern "C" void ssd_aot_register_chip_variant(const char *key, void *function,
                                              int operands, const char *target,
                                              const char *chip,
                                              const char *format);

#endif // SSD_AOT_AOTREGISTRY_H
