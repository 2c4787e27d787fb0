//===- LoweringDriver.h - what both lowering passes do around a pattern ---===//
//
// ssd-lower-to-loops and ssd-lower-to-gpu differ in how they replace an op
// and the reasons they can refuse one; the rest (the preconditions every
// lowering shares, the chunk size an op runs with, lowering each op once,
// reporting every op refused, counting what was lowered, the pattern form
// for other drivers) is here, once.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_LOWERINGDRIVER_H
#define SSD_LIB_CONVERSION_SCANEMITTER_LOWERINGDRIVER_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "ssd/IR/SSDOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace ssd {
namespace detail {

/// Why no lowering can take `op` yet (still in the tensor form, or without
/// a form), as the one-line diagnostic of the pass `passName`, or nothing.
std::optional<std::string> whyNotReadyToLower(ChunkScanVarlenOp op,
                                              llvm::StringRef passName);

/// The plan `op` (ready to lower) runs with: its config (ssd-select-form's
/// decision), else the one its form and chunk size (or the default) name.
ScanConfigAttr configOf(ChunkScanVarlenOp op);

/// The chunk size of configOf(op).
int64_t chunkSizeOf(ChunkScanVarlenOp op);

/// How a lowering replaces one op: nothing on success (the op erased), else
/// the one-line reason it cannot, with the IR unchanged.
using LowerScanFn = llvm::function_ref<std::optional<std::string>(
    RewriterBase &, ChunkScanVarlenOp)>;

/// Lowers every ssd.chunk_scan_varlen op under `root` with `lower`, each
/// once, reporting each op it refuses with its reason as the error. Failure
/// when any op is left; else adds the ops lowered, by form, to the pass's
/// statistics.
LogicalResult lowerScanOps(Operation *root, LowerScanFn lower,
                           Pass::Statistic &numSerial,
                           Pass::Statistic &numChunked);

/// The pattern form of `lower`, for hosts that run their own driver: the
/// refusal's reason goes to the driver's match-failure listener.
template <typename LowerFn>
struct LowerScanPattern : public OpRewritePattern<ChunkScanVarlenOp> {
  LowerScanPattern(MLIRContext *ctx, LowerFn lower)
      : OpRewritePattern(ctx), lower(std::move(lower)) {}

  LogicalResult matchAndRewrite(ChunkScanVarlenOp op,
                                PatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = lower(rewriter, op))
      return rewriter.notifyMatchFailure(op, *reason);
    return success();
  }

  LowerFn lower;
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_LOWERINGDRIVER_H
