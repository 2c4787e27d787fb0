//===- LowerToGPU.cpp - ssd-lower-to-gpu pass and its pattern -------------===//
//
// Replaces memref-form scan ops with the GPU kernels of the form recorded on
// them. The pass and the public pattern entry point share one pattern.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "ssd/IR/SSDOps.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDLOWERTOGPU
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

constexpr int64_t kDefaultChunkSize = 256;
/// Longest chunk the GPU chunked form takes: its C Bᵀ workspace grows as the
/// square of the chunk and its grid as the square of the 64-row tiles.
constexpr int64_t kMaxGPUChunkSize = 4096;

struct LowerChunkScanVarlenToGPU : public OpRewritePattern<ChunkScanVarlenOp> {
  LowerChunkScanVarlenToGPU(MLIRContext *ctx, const LowerToGPUOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(ChunkScanVarlenOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasTensorSemantics())
      return rewriter.notifyMatchFailure(op, "tensor form: bufferize first");
    if (!op.getFormAttr())
      return rewriter.notifyMatchFailure(op, "no form: run ssd-select-form");
    FailureOr<ssd::detail::StaticExtents> extents = ssd::detail::getStaticExtents(op);
    if (failed(extents))
      return rewriter.notifyMatchFailure(op, "dynamic H, P, G or N");
    int64_t chunkSize = op.getChunkSize().value_or(kDefaultChunkSize);
    if (*op.getForm() == Form::chunked && chunkSize > kMaxGPUChunkSize)
      return rewriter.notifyMatchFailure(op, "chunk size too large");
    rewriter.setInsertionPoint(op);
    if (*op.getForm() == Form::serial)
      ssd::detail::buildSerialScanGPU(rewriter, op, *extents, options);
    else
      ssd::detail::buildChunkedScanGPU(rewriter, op, *extents, chunkSize);
    return success();
  }

  LowerToGPUOptions options;
};

struct SSDLowerToGPUPass
    : public mlir::ssd::impl::SSDLowerToGPUBase<SSDLowerToGPUPass> {
  using SSDLowerToGPUBase::SSDLowerToGPUBase;

  void runOnOperation() override {
    if (serialRowsPerWarp < 1 || serialWarpsPerBlock < 1 ||
        serialWarpsPerBlock > 32) {
      getOperation()->emitError()
          << "ssd-lower-to-gpu: serial-rows-per-warp must be positive and "
             "serial-warps-per-block in [1, 32], got "
          << static_cast<int64_t>(serialRowsPerWarp) << " and "
          << static_cast<int64_t>(serialWarpsPerBlock);
      return signalPassFailure();
    }
    int64_t serial = 0, chunked = 0;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      if (op.getFormAttr())
        ++(*op.getForm() == Form::serial ? serial : chunked);
    });

    RewritePatternSet patterns(&getContext());
    populateSSDToGPUPatterns(
        patterns, LowerToGPUOptions{serialRowsPerWarp, serialWarpsPerBlock});
    walkAndApplyPatterns(getOperation(), std::move(patterns));

    bool failedAny = false;
    getOperation()->walk([&](ChunkScanVarlenOp op) {
      failedAny = true;
      if (op.hasTensorSemantics())
        op.emitError("ssd-lower-to-gpu: op is in the tensor form; bufferize "
                     "it first (one-shot-bufferize)");
      else if (!op.getFormAttr())
        op.emitError("ssd-lower-to-gpu: op has no form; run ssd-select-form "
                     "first");
      else if (failed(ssd::detail::getStaticExtents(op)))
        op.emitError("ssd-lower-to-gpu: the GPU kernels need static nheads, "
                     "head_dim, ngroups and dstate (they fix the tiling)");
      else
        op.emitError() << "ssd-lower-to-gpu: chunk_size "
                       << op.getChunkSize().value_or(kDefaultChunkSize)
                       << " is larger than the GPU chunked form supports ("
                       << kMaxGPUChunkSize << ")";
    });
    if (failedAny)
      return signalPassFailure();
    numSerialKernels += serial;
    numChunkedKernels += chunked;
  }
};

} // namespace

void mlir::ssd::populateSSDToGPUPatterns(RewritePatternSet &patterns,
                                         const LowerToGPUOptions &options) {
  patterns.add<LowerChunkScanVarlenToGPU>(patterns.getContext(), options);
}
