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

namespace mlir {
class DialectRegistry;
namespace ssd {

/// Attaches the gpu::TargetAttrInterface model to #ssd.gpu_emulator_target.
/// gpu-module-to-binary also needs the LLVM, NVVM and GPU dialect
/// translations registered (registerSSDPipelineDependencies does all).
void registerGPUEmulatorTargetInterfaceExternalModels(
    DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_TARGET_GPUEMULATOR_TARGET_H
