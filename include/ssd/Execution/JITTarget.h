//===- JITTarget.h - the CPU a JIT compiles for -----------------*- C++ -*-===//
//
// ssd-run, ssd-bench and mixer-run JIT-compile for the host by default. With
// an LLVM CPU name (`x86-64`, `x86-64-v3`, `skylake-avx512`, `neoverse-n1`,
// ...) they compile for that CPU instead, with only the features that CPU
// has, so one machine can run the code users of older CPUs get. The host
// must have every feature of the named CPU (the code runs here).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_EXECUTION_JITTARGET_H
#define SSD_EXECUTION_JITTARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace ssd {

/// The machine to JIT-compile for: the host when `cpu` is empty, else the
/// LLVM CPU `cpu` of the host's architecture. Null with a one-line `error`
/// when the name is unknown or names a feature this host lacks.
std::unique_ptr<llvm::TargetMachine> createJITTargetMachine(llvm::StringRef cpu,
                                                            std::string &error);

/// The f32 lanes of `machine`'s widest vector registers: 16 with AVX-512, 8
/// with AVX, 4 with SSE2 or NEON, else 1. The serial form's vector width.
int64_t f32VectorWidth(const llvm::TargetMachine &machine);

} // namespace ssd

#endif // SSD_EXECUTION_JITTARGET_H
