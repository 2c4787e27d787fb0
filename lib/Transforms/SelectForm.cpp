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
#include "ssd/Transforms/FormSelection.h"

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

static_assert(kMinChunkedTokensMax == ::ssd::limits::kMaxTokens,
              "min-chunked-tokens reaches up to the most tokens of a launch");

struct SSDSelectFormPass
    : public mlir::ssd::impl::SSDSelectFormBase<SSDSelectFormPass> {
  using SSDSelectFormBase::SSDSelectFormBase;

  /// The option parser admits only the forms; the numbers are checked here,
  /// once per pipeline rather than per op.
  LogicalResult initialize(MLIRContext *context) override {
    return checkOptionRanges(
        context, "ssd-select-form",
        {{"chunk-size", chunkSize, 1, ::ssd::limits::kMaxChunkSize},
         {"min-chunked-tokens", minChunkedTokens, 0, kMinChunkedTokensMax},
         {"min-chunked-tokens-per-seq", minChunkedTokensPerSeq, 0,
          kMinChunkedTokensMax}});
  }

  void runOnOperation() override {
    std::optional<Form> forced;
    if (form == FormChoice::Chunked)
      forced = Form::chunked;
    else if (form == FormChoice::Serial)
      forced = Form::serial;
    FormThresholds rule{minChunkedTokens, minChunkedTokensPerSeq,
                        serialForDenseCheckpoints};

    SmallVector<ChunkScanVarlenOp> ops;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      if (!op.getFormAttr())
        ops.push_back(op);
    });
    for (ChunkScanVarlenOp op : ops)
      select(op, forced, rule);
  }

  void pin(ChunkScanVarlenOp op, Form chosen) {
    MLIRContext *ctx = op.getContext();
    op.setFormAttr(FormAttr::get(ctx, chosen));
    if (chosen == Form::chunked && !op.getChunkSizeAttr())
      op.setChunkSizeAttr(
          IntegerAttr::get(IntegerType::get(ctx, 64), chunkSize));
  }

  /// A serial op that `auto` chose for a launch that may still hold a
  /// sequence long enough for the chunked form: record the per-sequence
  /// threshold and the chunk size, so that a lowering that can mix the
  /// forms in one call (the GPU's) runs those sequences chunked. Lowerings
  /// that ignore the attributes run the op serially, as its form says.
  void allowMixing(ChunkScanVarlenOp op, const FormThresholds &rule) {
    auto i64 = IntegerType::get(op.getContext(), 64);
    int64_t chunk = op.getChunkSizeAttr() ? op.getChunkSizeAttr().getInt()
                                          : int64_t(chunkSize);
    op->setAttr(kMixedMinChunkedTokensAttr,
                IntegerAttr::get(i64, rule.minChunkedSequence()));
    op->setAttr(kMixedChunkSizeAttr, IntegerAttr::get(i64, chunk));
  }

  void select(ChunkScanVarlenOp op, std::optional<Form> forced,
              const FormThresholds &rule) {
    auto pinAndCount = [&](Form chosen) {
      pin(op, chosen);
      ++(chosen == Form::chunked ? numChunked : numSerial);
    };
    if (forced)
      return pinAndCount(*forced);

    std::optional<int64_t> interval;
    if (std::optional<uint64_t> value = op.getCheckpointInterval())
      interval = static_cast<int64_t>(
          std::min<uint64_t>(*value, std::numeric_limits<int64_t>::max()));
    int64_t chunk = op.getChunkSizeAttr() ? op.getChunkSizeAttr().getInt()
                                          : int64_t(chunkSize);
    if (rule.checkpointsKeepSerial(interval, chunk))
      return pinAndCount(Form::serial);

    int64_t tokens = cast<ShapedType>(op.getX().getType()).getDimSize(0);
    int64_t offsets =
        cast<ShapedType>(op.getQueryStartLoc().getType()).getDimSize(0);
    if (!ShapedType::isDynamic(tokens) && !ShapedType::isDynamic(offsets)) {
      int64_t batch = offsets - 1;
      pinAndCount(rule.choosesChunked(tokens, batch) ? Form::chunked
                                                     : Form::serial);
      if (rule.mayMix(tokens, batch))
        allowMixing(op, rule);
      return;
    }

    // Shape known only at run time: emit both forms and branch on the
    // runtime values of the rule.
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value tokensValue = emitDim(b, loc, op.getX(), 0);
    Value offsetsValue = emitDim(b, loc, op.getQueryStartLoc(), 0);
    Value batchValue = arith::SubIOp::create(
        b, loc, offsetsValue, arith::ConstantIndexOp::create(b, loc, 1));
    Value chunked = emitChoosesChunked(b, loc, rule, tokensValue, batchValue);

    auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), chunked,
                                  /*withElseRegion=*/true);
    for (auto [block, chosen] : {std::pair{ifOp.thenBlock(), Form::chunked},
                                 std::pair{ifOp.elseBlock(), Form::serial}}) {
      OpBuilder branch = OpBuilder::atBlockBegin(block);
      auto clone = cast<ChunkScanVarlenOp>(branch.clone(*op));
      pin(clone, chosen);
      if (chosen == Form::serial)
        allowMixing(clone, rule);
      // The yields are created by scf.if only when there are no results.
      if (op->getNumResults() == 0)
        continue;
      branch.setInsertionPointToEnd(block);
      scf::YieldOp::create(branch, loc, clone->getResults());
    }
    ++numRuntimeSelected;
    op->replaceAllUsesWith(ifOp);
    op->erase();
  }
};

} // namespace
