//===- SelectForm.cpp - choose the algorithm of each scan op --------------===//
//
// Records on each ssd.chunk_scan_varlen op whether the serial or the chunked
// algorithm computes it. The choice depends on the launch shape (total
// tokens T and the number of sequences) and, on the CPU, on how dense the
// op's state checkpoints are. Static shapes decide here; dynamic
// ones get both forms behind an scf.if on the runtime values.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Transforms/ScanPlan.h"

#include <limits>

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDSELECTFORM
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

/// The selection rule as IR on runtime values of T and batch; mirrors
/// FormThresholds::choosesChunked.
Value emitChoosesChunked(OpBuilder &b, Location loc,
                         const FormThresholds &thresholds, Value tokens,
                         Value batch) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value batchAtLeastOne = arith::MaxSIOp::create(b, loc, batch, constant(1));
  Value longLaunch =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, tokens,
                            constant(thresholds.minChunkedTokens));
  Value perSeqBound = arith::MulIOp::create(
      b, loc, batchAtLeastOne, constant(thresholds.minChunkedTokensPerSeq));
  Value longSequences = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              tokens, perSeqBound);
  return arith::AndIOp::create(b, loc, longLaunch, longSequences);
}

Value emitDim(OpBuilder &b, Location loc, Value shaped, int64_t dim) {
  if (isa<RankedTensorType>(shaped.getType()))
    return tensor::DimOp::create(b, loc, shaped, dim);
  return memref::DimOp::create(b, loc, shaped, dim);
}

struct SSDSelectFormPass
    : public mlir::ssd::impl::SSDSelectFormBase<SSDSelectFormPass> {
  using SSDSelectFormBase::SSDSelectFormBase;

  /// The option parser admits only the forms; the numbers are checked here,
  /// once per pipeline rather than per op.
  LogicalResult initialize(MLIRContext *context) override {
    return checkOptionRanges(
        context, "ssd-select-form",
        {{"chunk-size", chunkSize, kChunkSizeRange},
         {"min-chunked-tokens", minChunkedTokens, kMinChunkedTokensRange},
         {"min-chunked-tokens-per-seq", minChunkedTokensPerSeq,
          kMinChunkedTokensRange}});
  }

  void runOnOperation() override {
    SmallVector<ChunkScanVarlenOp> ops;
    bool failedAny = false;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      if (!op.getFormAttr())
        ops.push_back(op);
      else if (invariant && failed(markPinned(op)))
        failedAny = true;
    });
    for (ChunkScanVarlenOp op : ops) {
      if (failed(select(op)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }

  /// Makes an op whose form was pinned (and is left alone otherwise)
  /// invariant, with its config if it has one: a mixed launch's threshold
  /// goes (an invariant op never mixes); chunked GPU kernels' choices
  /// cannot be dropped without replanning, so they are an error.
  LogicalResult markPinned(ChunkScanVarlenOp op) {
    if (op.getInvariant())
      return success();
    if (op.getTokenParents())
      return op.emitError()
             << "ssd-select-form: invariant=true cannot mark an op with "
                "'token_parents' (a draft tree): the invariant kernels "
                "follow a chain of tokens";
    if (ScanConfigAttr config = op.getConfigAttr()) {
      std::optional<GPUKernelChoices> gpu = config.getGPUChoices();
      if (gpu && gpu->chunked)
        return op.emitError()
               << "ssd-select-form: invariant=true cannot mark an op whose "
                  "config carries the chunked GPU kernels' choices (an "
                  "invariant op runs the serial kernel only); drop them and "
                  "plan again";
      op.setConfigAttr(config.withoutMixing().withInvariant(true));
    }
    op.setInvariant(true);
    ++numMarkedInvariant;
    return success();
  }

  /// The request of the options and of `op`: its shape, checkpoints and,
  /// where it pins one, chunk size.
  ScanRequest requestOf(ChunkScanVarlenOp op) const {
    ScanRequest request;
    request.form = form;
    request.chunkSize = op.getChunkSizeAttr() ? op.getChunkSizeAttr().getInt()
                                              : int64_t(chunkSize);
    request.thresholds = {minChunkedTokens, minChunkedTokensPerSeq,
                          serialForDenseCheckpoints, serialForUnchunkedPools};
    // An op marked by hand stays invariant whatever the option says.
    request.invariant = invariant || op.getInvariant();
    request.tree = static_cast<bool>(op.getTokenParents());
    if (std::optional<uint64_t> value = op.getCheckpointInterval())
      request.checkpointInterval = static_cast<int64_t>(
          std::min<uint64_t>(*value, std::numeric_limits<int64_t>::max()));
    // The verifier holds scales exactly for the 8-bit pools.
    int64_t dstate = cast<ShapedType>(op.getSsmPool().getType()).getDimSize(3);
    if (op.getSsmPoolScales() && !ShapedType::isDynamic(dstate))
      request.scaledPoolDstate = dstate;
    int64_t tokens = cast<ShapedType>(op.getX().getType()).getDimSize(0);
    int64_t offsets =
        cast<ShapedType>(op.getQueryStartLoc().getType()).getDimSize(0);
    if (!ShapedType::isDynamic(tokens) && !ShapedType::isDynamic(offsets)) {
      request.tokens = tokens;
      request.batch = offsets - 1;
    }
    return request;
  }

  /// Writes `plan` (its form decided) on `op`: the form and chunk size the
  /// op's syntax names, and the whole plan as its config. `count`: add it
  /// to the statistics (the branches of a runtime choice count apart).
  void pin(ChunkScanVarlenOp op, const ScanPlan &plan, bool count = true) {
    MLIRContext *ctx = op.getContext();
    Form chosen = *plan.form;
    op.setFormAttr(FormAttr::get(ctx, chosen));
    if (chosen == Form::chunked && !op.getChunkSizeAttr())
      op.setChunkSizeAttr(
          IntegerAttr::get(IntegerType::get(ctx, 64), plan.chunkSize));
    op.setConfigAttr(ScanConfigAttr::get(ctx, chosen, plan.chunkSize,
                                         plan.mixedMinTokens, std::nullopt,
                                         plan.invariant));
    if (plan.invariant && !op.getInvariant()) {
      op.setInvariant(true);
      if (count)
        ++numMarkedInvariant;
    }
    if (count)
      ++(chosen == Form::chunked ? numChunked : numSerial);
  }

  LogicalResult select(ChunkScanVarlenOp op) {
    ScanRequest request = requestOf(op);
    // Only the serial kernels follow a token's parent; say so here rather
    // than leave a verifier error on the pinned op.
    if (request.tree && request.form == FormChoice::Chunked)
      return op.emitError()
             << "ssd-select-form: form=chunked cannot serve an op with "
                "'token_parents' (a draft tree): only the serial form "
                "follows a token's parent";
    if (request.tree && request.invariant)
      return op.emitError()
             << "ssd-select-form: invariant=true cannot mark an op with "
                "'token_parents' (a draft tree): the invariant kernels "
                "follow a chain of tokens";
    ScanPlan plan = planScan(request);
    if (plan.form) {
      pin(op, plan);
      return success();
    }

    // Shape known only at run time: emit both forms and branch on the
    // runtime values of the rule.
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value tokensValue = emitDim(b, loc, op.getX(), 0);
    Value offsetsValue = emitDim(b, loc, op.getQueryStartLoc(), 0);
    Value batchValue = arith::SubIOp::create(
        b, loc, offsetsValue, arith::ConstantIndexOp::create(b, loc, 1));
    Value chunked =
        emitChoosesChunked(b, loc, request.thresholds, tokensValue, batchValue);

    auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), chunked,
                                  /*withElseRegion=*/true);
    for (auto [block, chosen] : {std::pair{ifOp.thenBlock(), Form::chunked},
                                 std::pair{ifOp.elseBlock(), Form::serial}}) {
      OpBuilder branch = OpBuilder::atBlockBegin(block);
      auto clone = cast<ChunkScanVarlenOp>(branch.clone(*op));
      pin(clone, plan.forForm(chosen), /*count=*/false);
      // The yields are created by scf.if only when there are no results.
      if (op->getNumResults() == 0)
        continue;
      branch.setInsertionPointToEnd(block);
      scf::YieldOp::create(branch, loc, clone->getResults());
    }
    ++numRuntimeSelected;
    if (request.invariant && !op.getInvariant())
      ++numMarkedInvariant;
    op->replaceAllUsesWith(ifOp);
    op->erase();
    return success();
  }
};

} // namespace
