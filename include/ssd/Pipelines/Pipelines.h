//===- Pipelines.h - ssd pass pipelines -------------------------*- C++ -*-===//
//
// Each pipeline is an options struct plus a build function, registered with
// `ssd-opt` under the same name; a graph compiler calls the same builders.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_PIPELINES_PIPELINES_H
#define SSD_PIPELINES_PIPELINES_H

#include "ssd/Conversion/Passes.h"
#include "ssd/Support/EnumOption.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"
#include "ssd/Transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace ssd {

/// What `gpu-module-to-binary` makes of the kernels in `--ssd-to-nvvm`.
enum class BinaryFormat { Isa, Bin, Fatbin };

inline constexpr EnumName<BinaryFormat> kBinaryFormatNames[] = {
    {BinaryFormat::Isa, "isa",
     "PTX text, JIT-compiled by the driver; needs no CUDA toolkit"},
    {BinaryFormat::Bin, "bin", "cubin; needs ptxas"},
    {BinaryFormat::Fatbin, "fatbin", "fat binary; needs ptxas and fatbinary"},
};

/// What `gpu-module-to-binary` makes of the kernels in
/// `--ssd-to-gpu-emulator`.
enum class EmulatorFormat { Bin, Llvm };

inline constexpr EnumName<EmulatorFormat> kEmulatorFormatNames[] = {
    {EmulatorFormat::Bin, "bin",
     "a host shared object, which the emulator runtime loads"},
    {EmulatorFormat::Llvm, "llvm",
     "the kernels' host LLVM IR as text, memory accesses already rewritten "
     "into emulator calls: to inspect what the emulator runs and counts, "
     "not loadable"},
};

} // namespace ssd
} // namespace mlir

SSD_ENUM_PASS_OPTION(::mlir::ssd::BinaryFormat);
SSD_ENUM_PASS_OPTION(::mlir::ssd::EmulatorFormat);

namespace mlir {
namespace ssd {

/// The options every pipeline from ssd ops takes to ssd-select-form, with the
/// thresholds of `auto` for the pipeline's target; their other defaults are
/// the pass's.
template <typename Derived, const FormThresholds &Thresholds>
struct SSDFormPipelineOptionsBase : public PassPipelineOptions<Derived> {
  template <typename T>
  using Option = typename ::mlir::detail::PassOptions::template Option<T>;

  Option<FormChoice> form{*this, "form",
                          llvm::cl::desc("which form each op gets"),
                          llvm::cl::init(SSDSelectFormOptions{}.form),
                          EnumValues{kFormChoiceNames}};
  Option<int64_t> chunkSize{
      *this, "chunk-size",
      llvm::cl::desc("tokens per chunk of the chunked form, 1 to 65536"),
      llvm::cl::init(SSDSelectFormOptions{}.chunkSize)};
  Option<int64_t> minChunkedTokens{
      *this, "min-chunked-tokens",
      llvm::cl::desc("fewest total tokens for which auto picks chunked, 0 "
                     "to 2^31 - 1"),
      llvm::cl::init(Thresholds.minChunkedTokens)};
  Option<int64_t> minChunkedTokensPerSeq{
      *this, "min-chunked-tokens-per-seq",
      llvm::cl::desc("fewest tokens per sequence (T / batch) for which auto "
                     "picks chunked, 0 to 2^31 - 1"),
      llvm::cl::init(Thresholds.minChunkedTokensPerSeq)};
  Option<bool> serialForDenseCheckpoints{
      *this, "serial-for-dense-checkpoints",
      llvm::cl::desc("auto keeps an op serial when its checkpoint_interval is "
                     "below the chunk size"),
      llvm::cl::init(Thresholds.serialForDenseCheckpoints)};
  Option<bool> serialForUnchunkedPools{
      *this, "serial-for-unchunked-pools",
      llvm::cl::desc("auto keeps an op serial when its pool holds 8-bit rows "
                     "the GPU chunked kernels cannot encode"),
      llvm::cl::init(Thresholds.serialForUnchunkedPools)};
  Option<bool> invariant{
      *this, "invariant",
      llvm::cl::desc("mark every op invariant: bit-identical results however "
                     "it is batched, split, formed or targeted"),
      llvm::cl::init(SSDSelectFormOptions{}.invariant)};

  /// Those options as ssd-select-form takes them.
  SSDSelectFormOptions selectFormOptions() const {
    return {form,
            chunkSize,
            minChunkedTokens,
            minChunkedTokensPerSeq,
            serialForDenseCheckpoints,
            serialForUnchunkedPools,
            invariant};
  }
};

/// Options of `--ssd-to-cpu`.
struct SSDToCPUPipelineOptions
    : public SSDFormPipelineOptionsBase<SSDToCPUPipelineOptions,
                                        kCPUFormThresholds> {
  Option<int64_t> serialPTile{
      *this, "serial-p-tile",
      llvm::cl::desc("head_dim rows per parallel task of the serial form, 1 "
                     "to 1024"),
      llvm::cl::init(SSDLowerToLoopsOptions{}.serialPTile)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of the serial form's vectors, a power of two "
                     "up to 64 (0: the host's widest)"),
      llvm::cl::init(SSDLowerToLoopsOptions{}.vectorWidth)};
  Option<bool> expandFloatConversions{
      *this, "expand-float-conversions",
      llvm::cl::desc("do f16/bf16 arithmetic in f32 and write f32 <-> "
                     "f16/bf16 conversions as integer arithmetic, so the "
                     "code runs on any CPU without compiler-rt (false: leave "
                     "them to LLVM, one instruction where the CPU has it, a "
                     "compiler-rt call elsewhere)"),
      llvm::cl::init(true)};
  Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("run the outer parallel loops on all cores through "
                     "OpenMP (the executable then needs libomp)"),
      llvm::cl::init(true)};
};

/// Options shared by the GPU pipelines (`--ssd-to-nvvm`,
/// `--ssd-to-gpu-emulator`): the form selection, the target chip and the GPU
/// kernels' tiling.
template <typename Derived>
struct SSDGPUPipelineOptionsBase
    : public SSDFormPipelineOptionsBase<Derived, kGPUFormThresholds> {
  template <typename T>
  using Option = typename ::mlir::detail::PassOptions::template Option<T>;

  Option<GPUChip> chip{
      *this, "chip",
      llvm::cl::desc("target GPU (the PTX ISA version follows the chip)"),
      llvm::cl::init(kDefaultGPUChip), EnumValues{kGPUChipNames}};
  Option<int64_t> serialRowsPerWarp{
      *this, "serial-rows-per-warp",
      llvm::cl::desc("head_dim rows of the state per warp (serial kernel), 1 "
                     "to 32"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.serialRowsPerWarp)};
  Option<int64_t> serialWarpsPerBlock{
      *this, "serial-warps-per-block",
      llvm::cl::desc("warps per thread block (serial kernel), 1 to 32"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.serialWarpsPerBlock)};
  Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("optimization level of the kernel code (the NVVM "
                     "target's LLVM pipeline, which the emulator runs on "
                     "its kernels too), 0 to 3"),
      llvm::cl::init(kGPUOptLevelDefault)};
  Option<bool> fusedStatePassing{
      *this, "fused-state-passing",
      llvm::cl::desc("pass chunk states inside the chunk kernel (chunked "
                     "form, f16/bf16 models; see ssd-plan-gpu-kernels)"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.fusedStatePassing)};
  Option<bool> fusedOutput{
      *this, "fused-output",
      llvm::cl::desc("compute y in the chunk kernel (chunked form, f16/bf16 "
                     "models; see ssd-plan-gpu-kernels)"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.fusedOutput)};
  Option<int64_t> headsPerBlock{
      *this, "heads-per-block",
      llvm::cl::desc("most heads of one group a chunk-kernel block serves, 1 "
                     "to 2 (see ssd-plan-gpu-kernels)"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.headsPerBlock)};
  Option<int64_t> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("most shared-memory stages of the chunked kernels' "
                     "pipelined reductions, 2 to 4 (see "
                     "ssd-plan-gpu-kernels)"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.pipelineStages)};
  Option<bool> cbInBlock{
      *this, "cb-in-block",
      llvm::cl::desc("compute C·Bᵀ in the chunk kernel's state blocks (see "
                     "ssd-plan-gpu-kernels)"),
      llvm::cl::init(SSDPlanGPUKernelsOptions{}.cbInBlock)};

  /// Those options, and the chip's, as ssd-plan-gpu-kernels takes them.
  SSDPlanGPUKernelsOptions planGPUKernelsOptions() const {
    SSDPlanGPUKernelsOptions plan;
    plan.chip = chip;
    plan.serialRowsPerWarp = serialRowsPerWarp;
    plan.serialWarpsPerBlock = serialWarpsPerBlock;
    plan.fusedStatePassing = fusedStatePassing;
    plan.fusedOutput = fusedOutput;
    plan.headsPerBlock = headsPerBlock;
    plan.pipelineStages = pipelineStages;
    plan.cbInBlock = cbInBlock;
    return plan;
  }
};

/// Options of `--ssd-to-nvvm`.
struct SSDToNVVMPipelineOptions
    : public SSDGPUPipelineOptionsBase<SSDToNVVMPipelineOptions> {
  PassOptions::Option<BinaryFormat> format{
      *this, "format", llvm::cl::desc("what the kernels are compiled into"),
      llvm::cl::init(BinaryFormat::Isa), EnumValues{kBinaryFormatNames}};
};

/// Options of `--ssd-to-gpu-emulator`: those of `--ssd-to-nvvm`, with the
/// emulator's formats (the kernels become a host shared object).
struct SSDToGPUEmulatorPipelineOptions
    : public SSDGPUPipelineOptionsBase<SSDToGPUEmulatorPipelineOptions> {
  PassOptions::Option<EmulatorFormat> format{
      *this, "format", llvm::cl::desc("what the kernels are compiled into"),
      llvm::cl::init(EmulatorFormat::Bin), EnumValues{kEmulatorFormatNames}};
};

/// Options of `--ssd-gpu-lower-to-emulator`: GPU-dialect code (gpu.launch or
/// outlined gpu.module kernels, with NVVM ops inside) to a host program whose
/// kernels the emulator runs; the emulator's counterpart of upstream's
/// `gpu-lower-to-nvvm-pipeline`.
struct SSDGPULowerToEmulatorPipelineOptions
    : public PassPipelineOptions<SSDGPULowerToEmulatorPipelineOptions> {
  PassOptions::Option<GPUChip> chip{
      *this, "chip", llvm::cl::desc("GPU the kernels are written for"),
      llvm::cl::init(kDefaultGPUChip), EnumValues{kGPUChipNames}};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("optimization level of the emulated kernels (the "
                     "NVVM target's LLVM pipeline, run before the "
                     "emulator's rewriting), 0 to 3"),
      llvm::cl::init(kGPUOptLevelDefault)};
};

/// The PTX ISA feature string (e.g. "+ptx80") for a chip.
llvm::StringRef ptxFeaturesForChip(GPUChip chip);

/// ssd ops (tensor or memref form) to a module holding one gpu.binary per
/// kernel plus host code in the LLVM dialect that launches them through the
/// mgpu* runtime functions. format=bin/fatbin without ptxas fails in
/// gpu-module-to-binary with a message naming ptxas.
void buildSSDToNVVMPipeline(OpPassManager &pm,
                            const SSDToNVVMPipelineOptions &options);

/// Everything `--ssd-to-nvvm` does, up to the same NVVM/LLVM-dialect kernels,
/// then `ssd-attach-gpu-emulator-target`: `gpu-module-to-binary` compiles the
/// kernels into a host shared object that the GPU emulator runtime
/// (ssd/GPURuntime/EmulatorReports.h) loads through the same mgpu* calls.
void buildSSDToGPUEmulatorPipeline(
    OpPassManager &pm, const SSDToGPUEmulatorPipelineOptions &options);

/// GPU-dialect code to a host program with emulated kernels: outlining,
/// asynchronous launches, the NVVM lowering of `--ssd-to-nvvm`, the emulator
/// target and host code in the LLVM dialect (run it with mlir-runner and the
/// emulator runtime library).
void buildSSDGPULowerToEmulatorPipeline(
    OpPassManager &pm, const SSDGPULowerToEmulatorPipelineOptions &options);

/// ssd ops (tensor or memref form) to the LLVM dialect for the host CPU:
/// select the form, bufferize, lower to loops, and lower to LLVM, with the
/// outer parallel loops as OpenMP worksharing loops when `openmp` is set.
void buildSSDToCPUPipeline(OpPassManager &pm,
                           const SSDToCPUPipelineOptions &options);

/// Registers `ssd-to-cpu`, `ssd-to-nvvm`, `ssd-to-gpu-emulator` and
/// `ssd-gpu-lower-to-emulator` with the global pipeline registry.
void registerSSDPipelines();

/// Registers the ssd dialect and everything the ssd pipelines need from
/// upstream in a context: the dialects they produce, the bufferization
/// models of the dialects they bufferize, and the LLVM IR translations.
void registerSSDPipelineDependencies(DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_PIPELINES_PIPELINES_H
