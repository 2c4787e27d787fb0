//===- LoweringDriver.cpp - what both lowering passes do around a pattern -===//

#include "ScanEmitter/LoweringDriver.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"
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
  // A hand-pinned op: the plan its form and chunk size name, no mixing.
  return ScanConfigAttr::get(op.getContext(), *op.getForm(),
                             op.getChunkSize().value_or(kChunkSizeDefault),
                             std::nullopt, std::nullopt, std::nullopt,
                             std::nullopt, std::nullopt, std::nullopt);
}

int64_t mlir::ssd::detail::chunkSizeOf(ChunkScanVarlenOp op) {
  return configOf(op).getChunkSize();
}

LogicalResult mlir::ssd::detail::lowerScanOps(
    Operation *root, RewritePatternSet &&patterns, llvm::StringRef passName,
    llvm::function_ref<std::optional<std::string>(ChunkScanVarlenOp)>
        whyNotLowered,
    Pass::Statistic &numSerial, Pass::Statistic &numChunked) {
  int64_t serial = 0, chunked = 0;
  root->walk([&](ChunkScanVarlenOp op) {
    if (op.getFormAttr() || op.getConfigAttr())
      ++(configOf(op).getForm() == Form::serial ? serial : chunked);
  });

  walkAndApplyPatterns(root, std::move(patterns));

  bool failedAny = false;
  root->walk([&](ChunkScanVarlenOp op) {
    failedAny = true;
    op.emitError(
        whyNotLowered(op).value_or((passName + ": op was not lowered").str()));
  });
  if (failedAny)
    return failure();
  numSerial += serial;
  numChunked += chunked;
  return success();
}
