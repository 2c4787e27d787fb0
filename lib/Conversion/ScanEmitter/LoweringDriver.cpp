//===- LoweringDriver.cpp - what both lowering passes do around a pattern -===//

#include "ScanEmitter/LoweringDriver.h"

#include "ssd/Transforms/FormSelection.h"

using namespace mlir;
using namespace mlir::ssd;

std::optional<std::string>
mlir::ssd::detail::whyNotReadyToLower(ChunkScanVarlenOp op,
                                      llvm::StringRef passName) {
  if (op.hasTensorSemantics())
    return (passName + ": op is in the tensor form; bufferize it first "
                       "(one-shot-bufferize)")
        .str();
  if (!op.getFormAttr() && !op.getConfigAttr())
    return (passName + ": op has no form; run ssd-select-form first").str();
  return std::nullopt;
}

ScanConfigAttr mlir::ssd::detail::configOf(ChunkScanVarlenOp op) {
  if (ScanConfigAttr config = op.getConfigAttr())
    return config;
  // A hand-pinned op: the plan its form and chunk size name, no mixing, and
  // the op's invariant mark (the verifier requires the two to agree).
  return ScanConfigAttr::get(op.getContext(), *op.getForm(),
                             op.getChunkSize().value_or(kChunkSizeDefault))
      .withInvariant(op.getInvariant());
}

int64_t mlir::ssd::detail::chunkSizeOf(ChunkScanVarlenOp op) {
  return configOf(op).getChunkSize();
}

LogicalResult mlir::ssd::detail::lowerScanOps(Operation *root,
                                              LowerScanFn lower,
                                              Pass::Statistic &numSerial,
                                              Pass::Statistic &numChunked) {
  SmallVector<ChunkScanVarlenOp> ops;
  root->walk([&](ChunkScanVarlenOp op) { ops.push_back(op); });
  int64_t serial = 0, chunked = 0;
  bool failedAny = false;
  IRRewriter rewriter(root->getContext());
  for (ChunkScanVarlenOp op : ops) {
    bool hasForm = op.getFormAttr() || op.getConfigAttr();
    bool isSerial = hasForm && configOf(op).getForm() == Form::serial;
    rewriter.setInsertionPoint(op);
    if (std::optional<std::string> reason = lower(rewriter, op)) {
      op.emitError(*reason);
      failedAny = true;
      continue;
    }
    ++(isSerial ? serial : chunked);
  }
  if (failedAny)
    return failure();
  numSerial += serial;
  numChunked += chunked;
  return success();
}
