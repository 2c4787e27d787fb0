//===- PlanGPUKernels.cpp - ssd-plan-gpu-kernels pass ---------------------===//
//
// Completes each scan op's plan with the GPU kernels' choices: the chip, the
// serial kernel's tiling and the chunked kernels' fusion, tiles, heads per
// block, instructions and shared memory (chooseChunkedKernels). This is the
// only place those choices are made; ssd-lower-to-gpu reads them off the
// op's #ssd.scan_config, so a config written by hand or by a tuner is
// lowered as it stands.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

#include "ChunkedPlan.h"
#include "GPUBuilders.h"
#include "ScanEmitter/LoweringDriver.h"
#include "ScanEmitter/PoolCodec.h"

#include "ssd/IR/SSDOps.h"
#include "ssd/Support/OptionRange.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDPLANGPUKERNELS
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

constexpr llvm::StringLiteral kPassName = "ssd-plan-gpu-kernels";

/// What the options ask of the chunked kernels of `op`. The fused modes hold
/// a chunk's state in the block that publishes it, which can store a
/// checkpoint that ends the chunk but has no walk to one inside it: an op
/// with checkpoints elsewhere (Checkpoints::atChunkEndsOnly) takes the
/// three launches, where state passing writes them (StatePassing.cpp). So
/// does an 8-bit pool with checkpoints: the fused chunk kernel stores a
/// checkpoint from its mma fragments, a row spread over several warps,
/// where no row's scale is at hand. An 8-bit pool's final states go
/// through the output kernel, which holds a row in one warp
/// (fusedStoresFinals), so without checkpoints it fuses.
ChunkedKernelRequest requestOf(ChunkScanVarlenOp op,
                               const SSDPlanGPUKernelsOptions &options,
                               int64_t chunkSize) {
  ChunkedKernelRequest request;
  const bool fusable =
      !op.getCheckpointSlots() ||
      (Checkpoints::atChunkEndsOnly(op, chunkSize) && !PoolCodec(op).scaled());
  request.fusedStatePassing = options.fusedStatePassing && fusable;
  request.fusedOutput = options.fusedOutput && fusable;
  request.headsPerBlock = options.headsPerBlock;
  request.wgmma =
      options.matmul == MatmulChoice::Wgmma ||
      (options.matmul == MatmulChoice::Auto && options.chip == GPUChip::SM90a);
  request.fragmentLoads = options.fragmentLoads;
  request.staging = options.staging;
  request.pipelineStages = options.pipelineStages;
  request.cbInBlock = options.cbInBlock;
  request.sharedMemoryLimit = std::min<int64_t>(
      options.sharedMemoryLimit, sharedMemoryLimitForChip(options.chip));
  return request;
}

/// Why the chunked kernels of `plan` cannot run within `limit` bytes of
/// shared memory per block, or nothing.
std::optional<std::string> whyTooLarge(const ChunkedPlan &plan, int64_t limit) {
  for (KernelSharedMemory kernel : plan.sharedMemory())
    if (kernel.bytes > limit)
      return llvm::formatv(
                 "{0}: kernel '{1}' of the chunked form needs {2} bytes of "
                 "shared memory per block, more than the {3} bytes it may "
                 "use (shared-memory-limit and the chip), at head_dim (P) "
                 "{4}, dstate (N) {5}, chunk_size {6}; form = serial serves "
                 "these shapes (form = auto builds both forms when T or the "
                 "batch is dynamic)",
                 kPassName, kernel.kernel, kernel.bytes, limit, plan.x.headDim,
                 plan.x.dstate, plan.chunkSize)
          .str();
  return std::nullopt;
}

/// What planGPUKernels did to an op, for the pass's statistics.
struct PlanNotes {
  bool chunked = false, fusedOutputOff = false, mixingOff = false;
};

FailureOr<ScanConfigAttr> plan(ChunkScanVarlenOp op,
                               const SSDPlanGPUKernelsOptions &options,
                               std::string &whyNot, PlanNotes &notes) {
  ScanConfigAttr config = configOf(op);
  if (config.getGPUChoices())
    return config;
  // Dynamic extents: no kernels to plan; ssd-lower-to-gpu says why.
  FailureOr<StaticExtents> extents = getStaticExtents(op);
  if (failed(extents))
    return config;
  GPUKernelChoices gpu;
  gpu.chip = enumName(kGPUChipNames, options.chip);
  gpu.serialRowsPerWarp = options.serialRowsPerWarp;
  gpu.serialWarpsPerBlock = options.serialWarpsPerBlock;
  const bool chunkedRuns =
      config.getForm() == Form::chunked || config.getMixedMinTokens();
  // An invariant op runs the invariant serial kernel whatever its form
  // (ssd-lower-to-gpu): only the serial tiling is planned.
  if (extents->emptyState() || !chunkedRuns || op.getInvariant())
    return config.withGPUChoices(gpu);
  const int64_t chunkSize = config.getChunkSize();
  Type modelType = cast<ShapedType>(op.getX().getType()).getElementType();
  ChunkedKernelRequest request = requestOf(op, options, chunkSize);
  ChunkedKernelChoices choices = chooseChunkedKernels(
      *extents, modelType, chunkSize, request, notes.fusedOutputOff);
  std::optional<std::string> reason;
  if (!kGPUChunkSizeRange.contains(chunkSize))
    reason = llvm::formatv("{0}: chunk_size {1}", kPassName,
                           kGPUChunkSizeRange.describe(chunkSize))
                 .str();
  else
    reason = whyTooLarge(ChunkedPlan(*extents, modelType, chunkSize, choices),
                         request.sharedMemoryLimit);
  if (!reason) {
    gpu.chunked = choices;
    notes.chunked = true;
    return config.withGPUChoices(gpu);
  }
  // A mixed launch whose chunked part the kernels cannot take runs every
  // sequence serially, which is what its form says.
  if (config.getForm() == Form::serial) {
    notes.mixingOff = true;
    notes.fusedOutputOff = false;
    return config.withoutMixing().withGPUChoices(gpu);
  }
  whyNot = *reason;
  return failure();
}

struct SSDPlanGPUKernelsPass
    : public mlir::ssd::impl::SSDPlanGPUKernelsBase<SSDPlanGPUKernelsPass> {
  using SSDPlanGPUKernelsBase::SSDPlanGPUKernelsBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (failed(checkOptionRanges(
            context, kPassName,
            {{"shared-memory-limit", sharedMemoryLimit,
              kSharedMemoryLimitRange},
             {"heads-per-block", headsPerBlock, kHeadsPerBlockRange},
             {"pipeline-stages", pipelineStages, kPipelineStagesRange},
             {"serial-rows-per-warp", serialRowsPerWarp,
              kSerialRowsPerWarpRange},
             {"serial-warps-per-block", serialWarpsPerBlock,
              kSerialWarpsPerBlockRange}})))
      return failure();
    if (matmul == MatmulChoice::Wgmma && chip != GPUChip::SM90a)
      return emitError(UnknownLoc::get(context))
             << kPassName << ": matmul=wgmma needs chip=sm_90a (wgmma is in "
             << "sm_90a's architecture-specific PTX only), got chip="
             << enumName(kGPUChipNames, chip);
    return success();
  }

  /// The options as planGPUKernels takes them.
  SSDPlanGPUKernelsOptions options() const {
    SSDPlanGPUKernelsOptions o;
    o.chip = chip;
    o.sharedMemoryLimit = sharedMemoryLimit;
    o.fusedStatePassing = fusedStatePassing;
    o.fusedOutput = fusedOutput;
    o.headsPerBlock = headsPerBlock;
    o.matmul = matmul;
    o.fragmentLoads = fragmentLoads;
    o.staging = staging;
    o.pipelineStages = pipelineStages;
    o.cbInBlock = cbInBlock;
    o.serialRowsPerWarp = serialRowsPerWarp;
    o.serialWarpsPerBlock = serialWarpsPerBlock;
    return o;
  }

  void runOnOperation() override {
    const SSDPlanGPUKernelsOptions planOptions = options();
    bool failedAny = false;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      // Ops without a plan or in the tensor form are left for the lowering
      // to report.
      if (whyNotReadyToLower(op, kPassName))
        return;
      std::string whyNot;
      PlanNotes notes;
      FailureOr<ScanConfigAttr> config = plan(op, planOptions, whyNot, notes);
      if (failed(config)) {
        op.emitError(whyNot);
        failedAny = true;
        return;
      }
      if (*config == op.getConfigAttr())
        return;
      // A hand-pinned op's form and chunk size are its config's now.
      op.setConfigAttr(*config);
      ++numPlanned;
      numChunkedPlanned += notes.chunked;
      numFusedOutputOff += notes.fusedOutputOff;
      numMixingOff += notes.mixingOff;
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace

FailureOr<ScanConfigAttr>
mlir::ssd::planGPUKernels(ChunkScanVarlenOp op,
                          const SSDPlanGPUKernelsOptions &options,
                          std::string &whyNot) {
  PlanNotes notes;
  return plan(op, options, whyNot, notes);
}
