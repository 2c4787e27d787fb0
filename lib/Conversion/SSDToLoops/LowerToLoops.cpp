//===- LowerToLoops.cpp - ssd-lower-to-loops pass and its pattern ---------===//
//
// Replaces memref-form scan ops with the loop nest of the form that
// ssd-select-form recorded on them. The pass and the public pattern entry
// point share one lowering, so a host compiler gets exactly what the pass
// does.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

#include "LoopBuilders.h"
#include "ScanEmitter/LoweringDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Support/OptionRange.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDLOWERTOLOOPS
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

constexpr llvm::StringLiteral kPassName = "ssd-lower-to-loops";

/// Replaces `op` with the loop nest of its form (the one lowering the pass
/// and the pattern share), or says why it cannot.
struct LowerToLoops {
  explicit LowerToLoops(const SSDLowerToLoopsOptions &options)
      : serialPTile(options.serialPTile),
        vectorWidth(options.vectorWidth > 0 ? options.vectorWidth
                                            : hostF32VectorWidth()) {}

  std::optional<std::string> operator()(RewriterBase &rewriter,
                                        ChunkScanVarlenOp op) const {
    if (std::optional<std::string> reason =
            mlir::ssd::detail::whyNotReadyToLower(op, kPassName))
      return reason;
    rewriter.setInsertionPoint(op);
    // An invariant op's chunked form is the serial arithmetic, so on the CPU
    // both forms are the same loop nest.
    if (op.getInvariant())
      mlir::ssd::detail::buildInvariantScan(rewriter, op, serialPTile);
    else if (mlir::ssd::detail::configOf(op).getForm() == Form::serial)
      mlir::ssd::detail::buildSerialScan(rewriter, op, serialPTile,
                                         vectorWidth);
    else
      mlir::ssd::detail::buildChunkedScan(rewriter, op,
                                          mlir::ssd::detail::chunkSizeOf(op));
    return std::nullopt;
  }

  /// head_dim rows per serial task.
  int64_t serialPTile;
  /// f32 lanes of the serial form's vectors, the host's resolved for 0.
  int64_t vectorWidth;
};

struct SSDLowerToLoopsPass
    : public mlir::ssd::impl::SSDLowerToLoopsBase<SSDLowerToLoopsPass> {
  using SSDLowerToLoopsBase::SSDLowerToLoopsBase;

  /// The options, once per pipeline rather than per op.
  LogicalResult initialize(MLIRContext *context) override {
    if (failed(checkOptionRanges(
            context, kPassName,
            {{"serial-p-tile", serialPTile, kSerialPTileRange}})))
      return failure();
    if (!kVectorWidthRange.contains(vectorWidth) ||
        !llvm::isPowerOf2_64(std::max<int64_t>(vectorWidth, 1)))
      return emitError(UnknownLoc::get(context))
             << kPassName
             << ": vector-width must be 0 (the host's) or a power of two up "
                "to "
             << kVectorWidthRange.max << ", got "
             << static_cast<int64_t>(vectorWidth);
    return success();
  }

  void runOnOperation() override {
    if (failed(mlir::ssd::detail::lowerScanOps(
            getOperation(),
            LowerToLoops(SSDLowerToLoopsOptions{serialPTile, vectorWidth}),
            numSerialLowered, numChunkedLowered)))
      signalPassFailure();
  }
};

} // namespace

int64_t mlir::ssd::hostF32VectorWidth() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](llvm::StringRef name) { return features.lookup(name); };
  if (has("avx512f"))
    return 16;
  if (has("avx"))
    return 8;
  if (has("sse2") || has("neon") || has("simd"))
    return 4;
  return 1;
}

void mlir::ssd::populateSSDToLoopsPatterns(
    RewritePatternSet &patterns, const SSDLowerToLoopsOptions &options) {
  patterns.add<mlir::ssd::detail::LowerScanPattern<LowerToLoops>>(
      patterns.getContext(), LowerToLoops(options));
}
