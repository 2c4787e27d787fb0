//===- SSDDialect.cpp - ssd dialect ---------------------------------------===//

#include "ssd/IR/SSDDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Support/SettingRanges.h"
#include "ssd/Transforms/GPUChip.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ssd;

#include "ssd/IR/SSDEnums.cpp.inc"
#include "ssd/IR/SSDOpsDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ssd/IR/SSDAttrs.cpp.inc"

void SSDDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ssd/IR/SSDOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ssd/IR/SSDAttrs.cpp.inc"
      >();
}

namespace {
/// The spelling of `value` of an optional enum parameter, for messages.
template <typename Enum> StringRef spelled(std::optional<Enum> value) {
  return value ? stringifyEnum(*value) : StringRef("(none)");
}
} // namespace

ScanConfigAttr ScanConfigAttr::get(MLIRContext *context, Form form,
                                   int64_t chunkSize,
                                   std::optional<int64_t> mixedMinTokens,
                                   const std::optional<GPUKernelChoices> &gpu,
                                   bool invariant) {
  StringAttr chip;
  std::optional<int64_t> rows, warps;
  if (gpu) {
    chip = StringAttr::get(context, gpu->chip);
    rows = gpu->serialRowsPerWarp;
    warps = gpu->serialWarpsPerBlock;
  }
  std::optional<ChunkedKernelChoices> chunked =
      gpu ? gpu->chunked : std::nullopt;
  auto field = [&](auto member) {
    using T = std::decay_t<decltype((*chunked).*member)>;
    return chunked ? std::optional<T>((*chunked).*member) : std::nullopt;
  };
  return get(
      context, form, chunkSize, mixedMinTokens, invariant, chip, rows, warps,
      field(&ChunkedKernelChoices::fusion),
      field(&ChunkedKernelChoices::outputRows),
      field(&ChunkedKernelChoices::stateParts),
      field(&ChunkedKernelChoices::headsPerBlock),
      field(&ChunkedKernelChoices::matmul),
      field(&ChunkedKernelChoices::fragmentLoads),
      field(&ChunkedKernelChoices::staging),
      chunked ? chunked->pipelineStages : ChunkedKernelChoices{}.pipelineStages,
      chunked && chunked->cbInBlock, field(&ChunkedKernelChoices::blocksPerSM),
      field(&ChunkedKernelChoices::sharedMemory));
}

std::optional<GPUKernelChoices> ScanConfigAttr::getGPUChoices() const {
  if (!getChip())
    return std::nullopt;
  GPUKernelChoices gpu;
  gpu.chip = getChip().str();
  gpu.serialRowsPerWarp = *getSerialRowsPerWarp();
  gpu.serialWarpsPerBlock = *getSerialWarpsPerBlock();
  if (getFusion())
    gpu.chunked = ChunkedKernelChoices{
        *getFusion(),        *getOutputRows(),    *getStateParts(),
        *getHeadsPerBlock(), *getMatmul(),        *getFragmentLoads(),
        *getStaging(),       getPipelineStages(), getCbInBlock(),
        *getBlocksPerSm(),   *getSharedMemory()};
  return gpu;
}

ScanConfigAttr ScanConfigAttr::withGPUChoices(
    const std::optional<GPUKernelChoices> &gpu) const {
  return get(getContext(), getForm(), getChunkSize(), getMixedMinTokens(), gpu,
             getInvariant());
}

ScanConfigAttr ScanConfigAttr::withoutMixing() const {
  std::optional<GPUKernelChoices> gpu = getGPUChoices();
  if (gpu && getForm() == Form::serial)
    gpu->chunked.reset();
  return get(getContext(), getForm(), getChunkSize(), std::nullopt, gpu,
             getInvariant());
}

ScanConfigAttr ScanConfigAttr::withInvariant(bool invariant) const {
  return get(getContext(), getForm(), getChunkSize(), getMixedMinTokens(),
             getGPUChoices(), invariant);
}

LogicalResult ScanConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Form form, int64_t chunkSize,
    std::optional<int64_t> mixedMinTokens, bool invariant, StringAttr chip,
    std::optional<int64_t> serialRowsPerWarp,
    std::optional<int64_t> serialWarpsPerBlock, std::optional<Fusion> fusion,
    std::optional<int64_t> outputRows, std::optional<int64_t> stateParts,
    std::optional<int64_t> headsPerBlock, std::optional<Matmul> matmul,
    std::optional<FragmentLoads> fragmentLoads, std::optional<Staging> staging,
    int64_t pipelineStages, bool cbInBlock, std::optional<int64_t> blocksPerSM,
    std::optional<int64_t> sharedMemory) {
  const bool gpu = static_cast<bool>(chip);
  const int chunkedFields = fusion.has_value() + outputRows.has_value() +
                            stateParts.has_value() + headsPerBlock.has_value() +
                            matmul.has_value() + fragmentLoads.has_value() +
                            staging.has_value() + blocksPerSM.has_value() +
                            sharedMemory.has_value();
  // The chunked GPU kernels take shorter chunks than the op.
  const SettingRange chunkRange = chunkSizeRange(chunkedFields > 0);
  if (!chunkRange.contains(chunkSize))
    return emitError() << "chunk_size " << chunkRange.describe(chunkSize)
                       << (chunkedFields > 0 ? " (the GPU chunked kernels' cap)"
                                             : "");
  if (mixedMinTokens && form != Form::serial)
    return emitError() << "mixed_min_tokens is only valid with form = serial "
                          "(a chunked op runs every sequence chunked)";
  if (mixedMinTokens && *mixedMinTokens < 1)
    return emitError() << "mixed_min_tokens (" << *mixedMinTokens
                       << ") must be positive";
  // An invariant op's arithmetic is the serial kernel's in every form: on
  // the GPU it runs nothing else, so what only the chunked kernels read is
  // a plan it cannot follow.
  if (invariant && mixedMinTokens)
    return emitError() << "invariant = true runs every sequence in the serial "
                          "GPU kernel: mixed_min_tokens (a mixed launch's "
                          "chunked kernels) does not apply";

  // The GPU kernels' plan: chip and the serial kernel's tiling.
  int gpuFields =
      gpu + serialRowsPerWarp.has_value() + serialWarpsPerBlock.has_value();
  if (gpuFields != 0 && gpuFields != 3)
    return emitError() << "chip, serial_rows_per_warp and "
                          "serial_warps_per_block are the GPU kernels' "
                          "plan: all three or none";
  std::optional<GPUChip> gpuChip;
  if (gpu) {
    gpuChip = parseEnumName(kGPUChipNames, chip.getValue().str());
    if (!gpuChip)
      return emitError() << "chip \"" << chip.getValue() << "\" is not one of "
                         << listEnumNames(kGPUChipNames);
    for (auto [name, value, range] :
         {std::tuple{"serial_rows_per_warp", *serialRowsPerWarp,
                     kSerialRowsPerWarpRange},
          std::tuple{"serial_warps_per_block", *serialWarpsPerBlock,
                     kSerialWarpsPerBlockRange}})
      if (!range.contains(value))
        return emitError() << name << " " << range.describe(value);
  }

  // The chunked kernels' choices.
  if (!kPipelineStagesRange.contains(pipelineStages))
    return emitError() << "pipeline_stages "
                       << kPipelineStagesRange.describe(pipelineStages);
  if (chunkedFields == 0 &&
      pipelineStages != ChunkedKernelChoices{}.pipelineStages)
    return emitError() << "pipeline_stages = " << pipelineStages
                       << " stages the chunked kernels, whose choices (fusion "
                          "... shared_memory) this config does not have";
  if (chunkedFields == 0 && cbInBlock)
    return emitError() << "cb_in_block = true computes C·Bᵀ in the chunked "
                          "kernels, whose choices (fusion ... shared_memory) "
                          "this config does not have";
  if (chunkedFields == 0)
    return success();
  if (invariant)
    return emitError() << "invariant = true runs every sequence in the serial "
                          "GPU kernel: the chunked kernels' choices (fusion, "
                          "output_rows, state_parts, heads_per_block, matmul, "
                          "fragment_loads, staging, blocks_per_sm, "
                          "shared_memory) do not apply";
  if (chunkedFields != 9)
    return emitError() << "fusion, output_rows, state_parts, heads_per_block, "
                          "matmul, fragment_loads, staging, blocks_per_sm and "
                          "shared_memory are the chunked kernels' choices: "
                          "all nine or none";
  if (!gpu)
    return emitError() << "the chunked kernels' choices need the GPU plan "
                          "(chip, serial_rows_per_warp, "
                          "serial_warps_per_block)";
  if (form != Form::chunked && !mixedMinTokens)
    return emitError() << "the chunked kernels' choices need form = chunked "
                          "or a mixed launch (mixed_min_tokens)";
  if (*outputRows != 64 && *outputRows != 128)
    return emitError() << "output_rows (" << *outputRows
                       << ") must be 64 or 128";
  if (*stateParts < 1)
    return emitError() << "state_parts (" << *stateParts
                       << ") must be positive";
  if (!kHeadsPerBlockRange.contains(*headsPerBlock))
    return emitError() << "heads_per_block "
                       << kHeadsPerBlockRange.describe(*headsPerBlock);
  if (!kBlocksPerSMRange.contains(*blocksPerSM))
    return emitError() << "blocks_per_sm "
                       << kBlocksPerSMRange.describe(*blocksPerSM);
  const int64_t chipShared = sharedMemoryLimitForChip(*gpuChip);
  if (*sharedMemory < 1 || *sharedMemory > chipShared)
    return emitError() << "shared_memory (" << *sharedMemory
                       << " bytes) must be in [1, " << chipShared << "], what "
                       << chip.getValue() << " allows a block";
  if (*matmul == Matmul::wgmma && *gpuChip != GPUChip::SM90a)
    return emitError() << "matmul = wgmma needs chip \"sm_90a\" (wgmma is "
                          "in sm_90a's architecture-specific PTX only), got \""
                       << chip.getValue() << "\"";
  if (*fusion == Fusion::state_and_output && *stateParts != 1)
    return emitError() << "fusion = state_and_output needs state_parts = 1 "
                          "(the block that computes y holds the chunk's whole "
                          "state), got "
                       << *stateParts;
  if (*headsPerBlock > 1 &&
      (*fusion != Fusion::state_and_output || *matmul != Matmul::wgmma))
    return emitError() << "heads_per_block = " << *headsPerBlock
                       << " needs fusion = state_and_output and matmul = "
                          "wgmma (a block of several heads computes their y "
                          "on wgmma), got fusion = "
                       << spelled(fusion) << ", matmul = " << spelled(matmul);
  if (cbInBlock && (*fusion != Fusion::state_and_output ||
                    *matmul != Matmul::wgmma || *headsPerBlock != 1))
    return emitError() << "cb_in_block = true needs fusion = state_and_output, "
                          "matmul = wgmma and heads_per_block = 1 (a block "
                          "computes C·Bᵀ for the rows of its fused output, on "
                          "wgmma), got fusion = "
                       << spelled(fusion) << ", matmul = " << spelled(matmul)
                       << ", heads_per_block = " << *headsPerBlock;
  return success();
}
