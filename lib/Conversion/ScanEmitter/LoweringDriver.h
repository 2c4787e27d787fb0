//===- LoweringDriver.h - what both lowering passes do around a pattern ---===//
//
// ssd-lower-to-loops and ssd-lower-to-gpu differ in their pattern and the
// reasons it can refuse an op; the rest (the preconditions every lowering
// shares, the chunk size an op runs with, applying the pattern, reporting
// every op left behind, counting what was lowered) is here, once.
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

/// Applies `patterns` to every ssd.chunk_scan_varlen op under `root` (walk
/// driver), then reports each op still there with `whyNotLowered(op)` as
/// its error (or "PASSNAME: op was not lowered"). Failure when any op is
/// left; else adds the ops lowered, by form, to the pass's statistics.
LogicalResult
lowerScanOps(Operation *root, RewritePatternSet &&patterns,
             llvm::StringRef passName,
             llvm::function_ref<std::optional<std::string>(ChunkScanVarlenOp)>
                 whyNotLowered,
             Pass::Statistic &numSerial, Pass::Statistic &numChunked);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_LOWERINGDRIVER_H
