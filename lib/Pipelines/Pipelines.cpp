//===- Pipelines.cpp - ssd pass pipelines ---------------------------------===//

#include "ssd/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "ssd/Conversion/Passes.h"
#include "ssd/IR/SSDDialect.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Target/GPUEmulator/Target.h"
#include "ssd/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::ssd;

/// Form selection with the pipeline's options, then bufferization:
/// tensor-form ops (and the functions holding them) become memref form; the
/// pool is a memref already and passes through.
template <typename PipelineOptions>
static void addSelectFormAndBufferization(OpPassManager &pm,
                                          const PipelineOptions &options) {
  pm.addPass(createSSDSelectForm(options.selectFormOptions()));

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
}

void mlir::ssd::buildSSDToCPUPipeline(OpPassManager &pm,
                                      const SSDToCPUPipelineOptions &options) {
  addSelectFormAndBufferization(pm, options);
  // Elementwise linalg around the scan (a mixer's skip and gating) becomes
  // parallel loops, which scf-to-openmp then spreads over the cores like the
  // scan's own loops.
  pm.addPass(createConvertLinalgToParallelLoopsPass());

  SSDLowerToLoopsOptions lower;
  lower.serialPTile = options.serialPTile;
  lower.vectorWidth = options.vectorWidth;
  pm.addPass(createSSDLowerToLoops(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCSEPass());
  if (options.expandFloatConversions) {
    // 16-bit floats in f32 arithmetic and conversions as integer operations:
    // the same results on every CPU, no compiler-rt builtins needed.
    pm.addPass(math::createMathExtendToSupportedTypes());
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16", "f16"};
    emulate.targetTypeStr = "f32";
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
    pm.addPass(createSSDExpandFloatConversions());
  }

  if (options.openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
  } else {
    // scf-to-cf's sequential loops would keep every iteration's allocas.
    pm.addPass(createSSDScopeParallelAllocas());
  }
  pm.addPass(createLowerAffinePass());
  // scf-to-openmp wraps each loop body in a single-block memref.alloca_scope;
  // lower the memref ops (and with them the scope) before scf-to-cf turns the
  // loops inside that scope into blocks. The serial form's vector loads and
  // stores convert with them; its y reductions may reassociate (a tree of
  // adds, not a chain).
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // Subviews (the serial form's pool rows) expand into affine index math.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  if (options.openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSSDCheckLLVMOnly());
}

StringRef mlir::ssd::ptxFeaturesForChip(GPUChip chip) {
  // The oldest PTX ISA that knows each chip; ptxas from CUDA 12 and 13 accept
  // all of them.
  switch (chip) {
  case GPUChip::SM80:
    return "+ptx70";
  case GPUChip::SM86:
    return "+ptx71";
  case GPUChip::SM89:
    return "+ptx78";
  case GPUChip::SM90:
  case GPUChip::SM90a:
    return "+ptx80";
  }
  llvm_unreachable("unknown GPUChip");
}

namespace {
/// Where the kernels of the GPU pipelines go after NVVM codegen.
enum class KernelTarget { NVVM, Emulator };

struct KernelCodegenOptions {
  GPUChip chip = kDefaultGPUChip;
  int optLevel = kGPUOptLevelDefault;
  KernelTarget target = KernelTarget::NVVM;
  BinaryFormat format = BinaryFormat::Isa;             ///< for NVVM
  EmulatorFormat emulatorFormat = EmulatorFormat::Bin; ///< for the emulator
};

/// From gpu.launch ops on the host to outlined NVVM kernels, host code in the
/// LLVM dialect and a gpu.binary: launches, allocations and copies become
/// asynchronous on one stream with a single wait at the end, then the passes
/// of upstream's gpu-lower-to-nvvm-pipeline (MLIR 22), written out so that
/// the emulator's target can replace the NVVM one right before
/// gpu-module-to-binary; everything before it is the same for both targets.
/// Kept in step with mlir/lib/Dialect/GPU/Pipelines/GPUToNVVMPipeline.cpp
/// (buildCommonPassPipeline, buildGpuPassPipeline, buildHostPostPipeline):
/// the differences are the async region pass and outlining up front (the
/// launches share one stream) and the 64-bit index width, which the kernels'
/// base offsets need.
void addKernelCodegen(OpPassManager &pm, const KernelCodegenOptions &options) {
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());

  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  // What ssd-lower-to-gpu asked of each kernel's occupancy, now that the
  // kernels are functions that can carry it (with 32-bit index arithmetic
  // where it is proven to fit, to meet it). Before scf-to-cf: the range
  // analysis bounds scf.for induction variables, not a cf loop's block
  // arguments.
  pm.addNestedPass<gpu::GPUModuleOp>(createSSDApplyKernelOccupancy());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = enumName(kGPUChipNames, options.chip);
  target.features = ptxFeaturesForChip(options.chip).str();
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  pm.addPass(createConvertIndexToLLVMPass(index));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(toNVVM));
  // PTX's spelling of launch-sized shared memory (not a 1-byte variable).
  pm.addNestedPass<gpu::GPUModuleOp>(createSSDExternDynamicSharedMemory());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  if (options.target == KernelTarget::Emulator) {
    pm.addPass(ssd::createSSDAttachGPUEmulatorTarget());
    // gpu-module-to-binary's "llvm" (offload) is the emulator target's
    // rewritten host IR as text.
    binary.compilationTarget =
        enumName(kEmulatorFormatNames, options.emulatorFormat);
  } else {
    binary.compilationTarget = enumName(kBinaryFormatNames, options.format);
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// ssd ops to kernels for `target`: the part of the GPU pipelines before
/// codegen, then addKernelCodegen.
template <typename Options>
void buildGPUPipeline(OpPassManager &pm, const Options &options,
                      KernelCodegenOptions codegen) {
  addSelectFormAndBufferization(pm, options);
  // Elementwise linalg around the scan (a mixer's skip and gating) becomes
  // GPU kernels too, and every buffer bufferization created moves to the
  // device: the whole function runs on the GPU.
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createSSDDeviceAllocs());

  // The kernels' choices join the plan in the IR; the lowering reads them.
  pm.addPass(createSSDPlanGPUKernels(options.planGPUKernelsOptions()));
  // No canonicalize/CSE on the launch bodies before outlining: CSE merges
  // the index arithmetic of the unrolled mma steps into values live across
  // the whole reduction loop, which makes the matmul kernels spill.
  pm.addPass(createSSDLowerToGPU());

  codegen.chip = options.chip;
  codegen.optLevel = options.optLevel;
  addKernelCodegen(pm, codegen);
}
} // namespace

void mlir::ssd::buildSSDToNVVMPipeline(
    OpPassManager &pm, const SSDToNVVMPipelineOptions &options) {
  KernelCodegenOptions codegen;
  codegen.target = KernelTarget::NVVM;
  codegen.format = options.format;
  buildGPUPipeline(pm, options, codegen);
}

void mlir::ssd::buildSSDToGPUEmulatorPipeline(
    OpPassManager &pm, const SSDToGPUEmulatorPipelineOptions &options) {
  KernelCodegenOptions codegen;
  codegen.target = KernelTarget::Emulator;
  codegen.emulatorFormat = options.format;
  buildGPUPipeline(pm, options, codegen);
}

void mlir::ssd::buildSSDGPULowerToEmulatorPipeline(
    OpPassManager &pm, const SSDGPULowerToEmulatorPipelineOptions &options) {
  KernelCodegenOptions codegen;
  codegen.chip = options.chip;
  codegen.optLevel = options.optLevel;
  codegen.target = KernelTarget::Emulator;
  addKernelCodegen(pm, codegen);
}

namespace {
template <typename Options, typename = void>
struct HasOptLevel : std::false_type {};
template <typename Options>
struct HasOptLevel<Options, std::void_t<decltype(Options::optLevel)>>
    : std::true_type {};
template <typename Options, typename = void>
struct HasChunkSize : std::false_type {};
template <typename Options>
struct HasChunkSize<Options, std::void_t<decltype(Options::chunkSize)>>
    : std::true_type {};

/// PassPipelineRegistration that also checks the integer options no pass of
/// the pipeline checks, when the options are parsed: the GPU pipelines'
/// opt-level, which upstream's nvvm-attach-target takes as any int (the
/// gpu.module's target then fails to verify, naming no option), and their
/// chunk-size against the GPU kernels' cap. Every other integer option is
/// checked by the pass it is passed to.
template <typename Options>
void registerPipeline(StringRef arg, StringRef description,
                      void (*build)(OpPassManager &, const Options &)) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [build, name](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        if constexpr (HasOptLevel<Options>::value) {
          if (std::optional<std::string> why = whyOutOfRange(
                  name, {{"opt-level", options.optLevel, kGPUOptLevelRange}}))
            return errorHandler(*why);
        }
        // The GPU pipelines' chunked kernels take shorter chunks than
        // ssd-select-form, which checks the op's own limit.
        if constexpr (HasOptLevel<Options>::value &&
                      HasChunkSize<Options>::value) {
          if (std::optional<std::string> why = whyOutOfRange(
                  name,
                  {{"chunk-size", options.chunkSize, kGPUChunkSizeRange}}))
            return errorHandler(*why);
        }
        build(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(Options());
      });
}
} // namespace

void mlir::ssd::registerSSDPipelines() {
  registerPipeline<SSDToCPUPipelineOptions>(
      "ssd-to-cpu",
      "Lower ssd ops (tensor or memref form) to the LLVM dialect for the host "
      "CPU: select the form, bufferize, lower to loops (OpenMP for the outer "
      "parallel loops), then to LLVM",
      buildSSDToCPUPipeline);
  registerPipeline<SSDToNVVMPipelineOptions>(
      "ssd-to-nvvm",
      "Compile ssd ops (tensor or memref form) for NVIDIA GPUs: select the "
      "form, bufferize, lower to GPU kernels (tensor cores for the chunked "
      "form), NVVM codegen to a gpu.binary (format=isa|bin|fatbin) and host "
      "code in the LLVM dialect",
      buildSSDToNVVMPipeline);
  registerPipeline<SSDToGPUEmulatorPipelineOptions>(
      "ssd-to-gpu-emulator",
      "Compile ssd ops like --ssd-to-nvvm, with the kernels compiled for the "
      "GPU emulator (a host shared object that the emulator runtime loads, "
      "or with format=llvm its rewritten host IR) instead of PTX: the same "
      "kernels, run on the CPU",
      buildSSDToGPUEmulatorPipeline);
  registerPipeline<SSDGPULowerToEmulatorPipelineOptions>(
      "ssd-gpu-lower-to-emulator",
      "Lower GPU-dialect code (gpu.launch, NVVM ops in kernels) to a host "
      "program whose kernels run on the GPU emulator; the emulator's "
      "gpu-lower-to-nvvm-pipeline",
      buildSSDGPULowerToEmulatorPipeline);
}

void mlir::ssd::registerSSDPipelineDependencies(DialectRegistry &registry) {
  registry.insert<SSDDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, omp::OpenMPDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
  ssd::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // The pipelines' conversions to LLVM find patterns through each dialect's
  // ConvertToLLVM interface; gpu-module-to-binary needs the NVVM target and
  // the GPU/NVVM translations; ExecutionEngine the LLVM/OpenMP ones.
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                  vector::VectorDialect, index::IndexDialect>();
  registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerGPUEmulatorTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}
