//===- LowerToGPU.cpp - ssd-lower-to-gpu pass and its pattern -------------===//
//
// Replaces memref-form scan ops with the GPU kernels of the plan recorded on
// them (#ssd.scan_config), every GPU check made once in planGPUScan; the pass
// and the public pattern entry point share one pattern. ssd-plan-gpu-kernels
// writes the same function's choices into the config before the lowering.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

#include "ChunkedPlan.h"
#include "GPUBuilders.h"
#include "ScanEmitter/LoweringDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Transforms/FormSelection.h"
#include "llvm/Support/FormatVariadic.h"

#include <variant>

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDLOWERTOGPU
#define GEN_PASS_DEF_SSDPLANGPUKERNELS
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

/// Shared memory per block of the largest launch of `plan`.
int64_t maxSharedMemory(const mlir::ssd::detail::ChunkedPlan &plan) {
  int64_t bytes = 0;
  for (mlir::ssd::detail::KernelSharedMemory kernel : plan.sharedMemory())
    bytes = std::max(bytes, kernel.bytes);
  return bytes;
}

/// Why the chunked kernels of `plan` cannot run: the chunk-size cap and
/// each launch's shared memory against the limit, or nothing.
std::optional<std::string>
whyNotChunked(const mlir::ssd::detail::ChunkedPlan &plan,
              const LowerToGPUOptions &options) {
  if (plan.chunkSize > kGPUChunkSizeMax)
    return llvm::formatv("ssd-lower-to-gpu: chunk_size {0} is larger than the "
                         "GPU chunked form supports ({1})",
                         plan.chunkSize, kGPUChunkSizeMax)
        .str();
  for (mlir::ssd::detail::KernelSharedMemory kernel : plan.sharedMemory())
    if (kernel.bytes > options.sharedMemoryLimit)
      return llvm::formatv(
                 "ssd-lower-to-gpu: kernel '{0}' of the chunked form needs "
                 "{1} bytes of shared memory per block, more than "
                 "shared-memory-limit ({2} bytes), at head_dim (P) {3}, "
                 "dstate (N) {4}, chunk_size {5}",
                 kernel.kernel, kernel.bytes, options.sharedMemoryLimit,
                 plan.x.headDim, plan.x.dstate, plan.chunkSize)
          .str();
  return std::nullopt;
}

/// What the GPU lowering of one op runs: the op's plan (configOf) with
/// every GPU check made once, in planGPUScan, before any kernel is built.
struct GPUScanPlan {
  mlir::ssd::detail::StaticExtents extents;
  Form form;
  /// A serial op's mixed launch that the chunked kernels can take.
  std::optional<int64_t> mixedMinTokens;
  /// The options the kernels are built with.
  LowerToGPUOptions kernel;
  /// The chunked kernels' plan, where they run (chunked form or mixed).
  std::optional<mlir::ssd::detail::ChunkedPlan> chunked;
  /// What was turned off on the way, for the planning pass's statistics.
  bool fusedOutputDoesNotFit = false, mixingOff = false;
};

/// The plan of `op` under `options`, or why the GPU kernels cannot take it.
///
/// An op with state checkpoints takes the chunked form's three launches
/// unless every boundary ends a chunk (Checkpoints::atChunkEndsOnly: no
/// offsets, an interval that is a multiple of the chunk size). Its
/// checkpoints are states inside a sequence, and launch 2 (state passing),
/// where each thread walks one sequence's chunks with its state elements in
/// registers, is where they can be written at chunk ends and, by a short
/// serial walk from S_prev, inside chunks (StatePassing.cpp). The fused
/// modes hold a chunk's state in the block that publishes it, which can
/// store a chunk-end checkpoint, but have no such walk, so they are off
/// otherwise. A config that records the kernels' choices fixes the fusion
/// and must match what the kernels derive. A mixed launch whose chunked
/// part the kernels cannot take runs every sequence serially, which is
/// what the op's form says.
std::variant<GPUScanPlan, std::string>
planGPUScan(ChunkScanVarlenOp op, const LowerToGPUOptions &options) {
  FailureOr<mlir::ssd::detail::StaticExtents> extents =
      mlir::ssd::detail::getStaticExtents(op);
  if (failed(extents))
    return std::string("ssd-lower-to-gpu: the GPU kernels need static nheads, "
                       "head_dim, ngroups and dstate (they fix the tiling)");
  ScanConfigAttr config = mlir::ssd::detail::configOf(op);
  GPUScanPlan plan{*extents, config.getForm(), config.getMixedMinTokens(),
                   options, /*chunked=*/std::nullopt};
  if (std::optional<Fusion> fusion = config.getFusion()) {
    plan.kernel.fusedStatePassing = *fusion != Fusion::none;
    plan.kernel.fusedOutput = *fusion == Fusion::state_and_output;
  }
  if (op.getCheckpointSlots() &&
      !mlir::ssd::detail::Checkpoints::atChunkEndsOnly(op,
                                                       config.getChunkSize())) {
    plan.kernel.fusedStatePassing = false;
    plan.kernel.fusedOutput = false;
  }
  // With no state elements (P or N = 0) the chunked tiles have nothing to
  // tile: such ops take the serial kernels.
  if (extents->emptyState()) {
    plan.form = Form::serial;
    plan.mixedMinTokens.reset();
    return plan;
  }
  if (plan.form == Form::serial && !plan.mixedMinTokens)
    return plan;
  Type modelType = cast<ShapedType>(op.getX().getType()).getElementType();
  mlir::ssd::detail::ChunkedPlan chunked(*extents, modelType,
                                         config.getChunkSize(), plan.kernel);
  if (std::optional<std::string> reason = whyNotChunked(chunked, plan.kernel)) {
    if (plan.form == Form::chunked)
      return *reason;
    plan.mixedMinTokens.reset();
    plan.mixingOff = true;
    return plan;
  }
  if (chunked.fusedOutputDoesNotFit) {
    plan.kernel.fusedOutput = false;
    plan.fusedOutputDoesNotFit = true;
  }
  if (config.hasKernelChoices() &&
      (*config.getOutputRows() != chunked.outputRows ||
       *config.getStateParts() != chunked.stateParts ||
       *config.getHeadsPerBlock() != chunked.headsPerBlock ||
       *config.getSharedMemory() != maxSharedMemory(chunked)))
    return llvm::formatv("ssd-lower-to-gpu: the config's kernel choices "
                         "(output_rows {0}, state_parts {1}, heads_per_block "
                         "{2}, shared_memory {3}) are not those the chunked "
                         "kernels derive (output_rows {4}, state_parts {5}, "
                         "heads_per_block {6}, shared_memory {7}); rerun "
                         "ssd-plan-gpu-kernels",
                         *config.getOutputRows(), *config.getStateParts(),
                         *config.getHeadsPerBlock(), *config.getSharedMemory(),
                         chunked.outputRows, chunked.stateParts,
                         chunked.headsPerBlock, maxSharedMemory(chunked))
        .str();
  plan.chunked = chunked;
  return plan;
}

/// Replaces `op` with the kernels of `plan` at the rewriter's insertion
/// point.
void buildKernels(RewriterBase &rewriter, ChunkScanVarlenOp op,
                  const GPUScanPlan &plan) {
  if (plan.mixedMinTokens)
    mlir::ssd::detail::buildMixedScanGPU(rewriter, op, *plan.chunked,
                                         *plan.mixedMinTokens, plan.kernel);
  else if (plan.form == Form::serial)
    mlir::ssd::detail::buildSerialScanGPU(rewriter, op, plan.extents,
                                          plan.kernel);
  else
    mlir::ssd::detail::buildChunkedScanGPU(rewriter, op, *plan.chunked,
                                           plan.kernel);
}

/// Why the GPU kernels cannot take `op` under `options`, as the one-line
/// diagnostic the pass reports, or nothing when they can (then `needs`, if
/// given, receives what the kernels need of the operands' layouts). The
/// pattern and the pass share it, so that what the pattern skips is what
/// the pass reports.
std::optional<std::string> whyNotLowerable(
    ChunkScanVarlenOp op, const LowerToGPUOptions &options,
    SmallVector<mlir::ssd::detail::OperandLayoutNeed> *needs = nullptr) {
  if (std::optional<std::string> reason =
          mlir::ssd::detail::whyNotReadyToLower(op, "ssd-lower-to-gpu"))
    return reason;
  std::variant<GPUScanPlan, std::string> plan = planGPUScan(op, options);
  if (auto *reason = std::get_if<std::string>(&plan))
    return *reason;
  SmallVector<mlir::ssd::detail::OperandLayoutNeed> layoutNeeds =
      mlir::ssd::detail::kernelLayoutNeeds(
          op, [&](RewriterBase &rewriter, ChunkScanVarlenOp copy) {
            buildKernels(rewriter, copy, std::get<GPUScanPlan>(plan));
          });
  if (std::optional<std::string> reason =
          mlir::ssd::detail::whyMisaligned(layoutNeeds))
    return reason;
  if (needs)
    *needs = std::move(layoutNeeds);
  return std::nullopt;
}

struct LowerChunkScanVarlenToGPU : public OpRewritePattern<ChunkScanVarlenOp> {
  LowerChunkScanVarlenToGPU(MLIRContext *ctx, const LowerToGPUOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(ChunkScanVarlenOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<mlir::ssd::detail::OperandLayoutNeed> needs;
    if (std::optional<std::string> reason =
            whyNotLowerable(op, options, &needs))
      return rewriter.notifyMatchFailure(op, *reason);
    GPUScanPlan plan = std::get<GPUScanPlan>(planGPUScan(op, options));
    rewriter.setInsertionPoint(op);
    mlir::ssd::detail::emitLayoutChecked(
        rewriter, op, needs, [&] { buildKernels(rewriter, op, plan); });
    return success();
  }

  LowerToGPUOptions options;
};

struct SSDLowerToGPUPass
    : public mlir::ssd::impl::SSDLowerToGPUBase<SSDLowerToGPUPass> {
  using SSDLowerToGPUBase::SSDLowerToGPUBase;

  /// The options, once per pipeline rather than per op.
  LogicalResult initialize(MLIRContext *context) override {
    return checkOptionRanges(
        context, "ssd-lower-to-gpu",
        {{"serial-rows-per-warp", serialRowsPerWarp, 1, kSerialRowsPerWarpMax},
         {"serial-warps-per-block", serialWarpsPerBlock, 1,
          kSerialWarpsPerBlockMax},
         {"shared-memory-limit", sharedMemoryLimit, 1, kSharedMemoryLimitMax}});
  }

  void runOnOperation() override {
    SSDLowerToGPUOptions options;
    options.serialRowsPerWarp = serialRowsPerWarp;
    options.serialWarpsPerBlock = serialWarpsPerBlock;
    options.sharedMemoryLimit = sharedMemoryLimit;
    options.ldmatrix = ldmatrix;
    options.asyncCopies = asyncCopies;
    options.fusedStatePassing = fusedStatePassing;
    options.fusedOutput = fusedOutput;
    options.wgmma = wgmma;
    options.pairHeads = pairHeads;
    RewritePatternSet patterns(&getContext());
    populateSSDToGPUPatterns(patterns, options);
    if (failed(mlir::ssd::detail::lowerScanOps(
            getOperation(), std::move(patterns), "ssd-lower-to-gpu",
            [&](ChunkScanVarlenOp op) { return whyNotLowerable(op, options); },
            numSerialKernels, numChunkedKernels)))
      signalPassFailure();
  }
};

struct SSDPlanGPUKernelsPass
    : public mlir::ssd::impl::SSDPlanGPUKernelsBase<SSDPlanGPUKernelsPass> {
  using SSDPlanGPUKernelsBase::SSDPlanGPUKernelsBase;

  LogicalResult initialize(MLIRContext *context) override {
    return checkOptionRanges(
        context, "ssd-plan-gpu-kernels",
        {{"shared-memory-limit", sharedMemoryLimit, 1, kSharedMemoryLimitMax}});
  }

  void runOnOperation() override {
    LowerToGPUOptions options;
    options.sharedMemoryLimit = sharedMemoryLimit;
    options.fusedStatePassing = fusedStatePassing;
    options.fusedOutput = fusedOutput;
    options.wgmma = wgmma;
    options.pairHeads = pairHeads;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      ScanConfigAttr config = op.getConfigAttr();
      if (!config || op.hasTensorSemantics())
        return;
      std::variant<GPUScanPlan, std::string> result = planGPUScan(op, options);
      auto *plan = std::get_if<GPUScanPlan>(&result);
      if (!plan)
        return;
      numFusedOutputOff += plan->fusedOutputDoesNotFit;
      numMixingOff += plan->mixingOff;
      std::optional<Fusion> fusion;
      std::optional<int64_t> outputRows, stateParts, headsPerBlock,
          sharedMemory;
      if (const std::optional<mlir::ssd::detail::ChunkedPlan> &chunked =
              plan->chunked) {
        fusion = chunked->fusedOutput ? Fusion::state_and_output
                 : chunked->fused     ? Fusion::state
                                      : Fusion::none;
        outputRows = chunked->outputRows;
        stateParts = chunked->stateParts;
        headsPerBlock = chunked->headsPerBlock;
        sharedMemory = maxSharedMemory(*chunked);
        ++numPlanned;
      }
      op.setConfigAttr(ScanConfigAttr::get(
          op.getContext(), config.getForm(), config.getChunkSize(),
          plan->mixedMinTokens, fusion, outputRows, stateParts, headsPerBlock,
          sharedMemory));
    });
  }
};

} // namespace

void mlir::ssd::populateSSDToGPUPatterns(RewritePatternSet &patterns,
                                         const SSDLowerToGPUOptions &options) {
  patterns.add<LowerChunkScanVarlenToGPU>(patterns.getContext(), options);
}
