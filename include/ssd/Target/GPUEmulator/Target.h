//===- Target.h - the GPU emulator's gpu.module target ----------*- C++ -*-===//
//
// `#ssd.gpu_emulator_target` implements gpu::TargetAttrInterface: its
// serialization turns a gpu.module's NVVM kernels into a host shared object
// that the emulator runtime (ssd/GPURuntime/EmulatorReports.h) loads and
// runs. See the attribute's description in SSDAttrs.td and docs/gpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_TARGET_GPUEMULATOR_TARGET_H
#define SSD_TARGET_GPUEMULATOR_TARGET_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
namespace ssd {

/// How the invariant mode's kernels are named (ssd-lower-to-gpu gives each
/// this name; outlining may number their modules). The serialization
/// refuses a kernel whose name starts with it if NVPTX would fuse a
/// multiply-add in it: the invariant arithmetic (CanonicalMath.h) rounds
/// every product and sum as it is written.
constexpr llvm::StringLiteral kInvariantKernelPrefix = "ssd_scan_invariant";

/// Attaches the gpu::TargetAttrInterface model to #ssd.gpu_emulator_target.
/// gpu-module-to-binary also needs the LLVM, NVVM and GPU dialect
/// translations registered (registerSSDPipelineDependencies does all).
void registerGPUEmulatorTargetInterfaceExternalModels(
    DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_TARGET_GPUEMULATOR_TARGET_H
