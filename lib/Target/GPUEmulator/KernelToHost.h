//===- KernelToHost.h - NVVM kernels rewritten for the host CPU -*- C++ -*-===//

#ifndef SSD_LIB_TARGET_GPUEMULATOR_KERNELTOHOST_H
#define SSD_LIB_TARGET_GPUEMULATOR_KERNELTOHOST_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
namespace ssd {
namespace emulator {

/// Multiply-adds that contractLikeNVPTX fused in one function.
struct FunctionFusions {
  std::string function;
  unsigned count;
};

/// Fuses the multiply-adds the NVPTX backend would fuse into exact llvm.fma
/// calls, and drops `contract` everywhere (Contraction.cpp). Returns how
/// many it fused per function (functions with none left out).
std::vector<FunctionFusions> contractLikeNVPTX(llvm::Module &module);

/// Why `fusions` breaks the invariant kernels' promise, or nothing: the
/// kernels whose name starts with kInvariantKernelPrefix (Target.h) compute
/// ScanEmitter/CanonicalMath.h's roundings, which a fused multiply-add
/// would change.
std::optional<std::string>
whyInvariantKernelsFuse(const std::vector<FunctionFusions> &fusions);

/// Rewrites the LLVM IR of a gpu.module's kernels (as translated from the
/// NVVM and LLVM dialects, the IR the NVPTX backend would compile) into host
/// code that runs under the GPU emulator runtime: special registers,
/// barriers, warp collectives, mma.sync, approximate math and every access
/// to global or shared memory become calls into the runtime (see
/// ssd/GPURuntime/EmulatorABI.h), shared-memory variables become offsets in
/// the running block's shared memory, and each kernel gets an entry point
/// taking cuLaunchKernel-style parameters. `chip` (e.g. "sm_90a") is recorded
/// for the runtime's shared-memory limits.
///
/// The module's data layout must already be the host's. Returns false with
/// a one-line message naming the first construct the emulator cannot
/// execute (an NVVM intrinsic it does not implement, inline PTX, a call to
/// an unknown external function, ...), never emulating it silently.
bool rewriteKernelsForHost(llvm::Module &module, llvm::StringRef chip,
                           std::string &error);

} // namespace emulator
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_TARGET_GPUEMULATOR_KERNELTOHOST_H
