//===- LowerToGPU.cpp - ssd-lower-to-gpu pass and its pattern -------------===//
//
// Replaces memref-form scan ops with the GPU kernels of the form recorded on
// them. The pass and the public pattern entry point share one pattern.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

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

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDLOWERTOGPU
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

/// The options the kernels of `op` are built with. An op with state
/// checkpoints takes the chunked form's three launches: its checkpoints
/// are states inside a sequence, and launch 2 (state passing), where each
/// thread walks one sequence's chunks with its state elements in
/// registers, is where they can be written at chunk ends and, by a short
/// serial walk from S_prev, inside chunks (ChunkedScanGPU.cpp). The fused
/// modes hold a chunk's state in one block of the chunk kernel for the
/// length of a look-back and have no such walk, so they are off for it;
/// the decision is made here, before any chunked plan is formed, so that
/// the shared-memory checks, the mixed launch and the kernels agree.
LowerToGPUOptions kernelOptions(ChunkScanVarlenOp op,
                                const LowerToGPUOptions &options) {
  LowerToGPUOptions kernel = options;
  if (op.getCheckpointSlots()) {
    kernel.fusedStatePassing = false;
    kernel.fusedOutput = false;
  }
  return kernel;
}

/// Why the chunked kernels cannot take `op` at `chunkSize`, or nothing.
std::optional<std::string>
whyNotChunked(ChunkScanVarlenOp op,
              const mlir::ssd::detail::StaticExtents &extents,
              int64_t chunkSize, const LowerToGPUOptions &options) {
  if (chunkSize > kGPUChunkSizeMax)
    return llvm::formatv("ssd-lower-to-gpu: chunk_size {0} is larger than the "
                         "GPU chunked form supports ({1})",
                         chunkSize, kGPUChunkSizeMax)
        .str();
  Type modelType = cast<MemRefType>(op.getX().getType()).getElementType();
  for (mlir::ssd::detail::KernelSharedMemory kernel :
       mlir::ssd::detail::chunkedSharedMemory(extents, modelType, chunkSize,
                                              options))
    if (kernel.bytes > options.sharedMemoryLimit)
      return llvm::formatv(
                 "ssd-lower-to-gpu: kernel '{0}' of the chunked form needs "
                 "{1} bytes of shared memory per block, more than "
                 "shared-memory-limit ({2} bytes), at head_dim (P) {3}, "
                 "dstate (N) {4}, chunk_size {5}",
                 kernel.kernel, kernel.bytes, options.sharedMemoryLimit,
                 extents.headDim, extents.dstate, chunkSize)
          .str();
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>>
mixedLaunch(ChunkScanVarlenOp op,
            const mlir::ssd::detail::StaticExtents &extents,
            const LowerToGPUOptions &options);

/// Replaces `op` with the kernels of its form (or of a mixed launch) at the
/// rewriter's insertion point.
void buildKernels(RewriterBase &rewriter, ChunkScanVarlenOp op,
                  const mlir::ssd::detail::StaticExtents &extents,
                  const LowerToGPUOptions &options) {
  if (auto mixed = mixedLaunch(op, extents, options))
    mlir::ssd::detail::buildMixedScanGPU(rewriter, op, extents, mixed->second,
                                         mixed->first, options);
  else if (*op.getForm() == Form::serial || extents.emptyState())
    mlir::ssd::detail::buildSerialScanGPU(rewriter, op, extents, options);
  else
    mlir::ssd::detail::buildChunkedScanGPU(
        rewriter, op, extents, mlir::ssd::detail::chunkSizeOf(op), options);
}

/// Why the GPU kernels cannot take `op` under `options`, as the one-line
/// diagnostic the pass reports, or nothing when they can (then `needs`, if
/// given, receives what the kernels need of the operands' layouts). The
/// pattern and the pass share it, so that what the pattern skips is what
/// the pass reports.
std::optional<std::string> whyNotLowerable(
    ChunkScanVarlenOp op, const LowerToGPUOptions &passOptions,
    SmallVector<mlir::ssd::detail::OperandLayoutNeed> *needs = nullptr) {
  LowerToGPUOptions options = kernelOptions(op, passOptions);
  if (std::optional<std::string> reason =
          mlir::ssd::detail::whyNotReadyToLower(op, "ssd-lower-to-gpu"))
    return reason;
  FailureOr<mlir::ssd::detail::StaticExtents> extents =
      mlir::ssd::detail::getStaticExtents(op);
  if (failed(extents))
    return std::string("ssd-lower-to-gpu: the GPU kernels need static nheads, "
                       "head_dim, ngroups and dstate (they fix the tiling)");
  // With no state elements (P or N = 0) the chunked tiles have nothing to
  // tile: such ops take the serial kernels (buildKernels).
  if (*op.getForm() == Form::chunked && !extents->emptyState())
    if (std::optional<std::string> reason = whyNotChunked(
            op, *extents, mlir::ssd::detail::chunkSizeOf(op), options))
      return reason;
  SmallVector<mlir::ssd::detail::OperandLayoutNeed> layoutNeeds =
      mlir::ssd::detail::kernelLayoutNeeds(
          op, [&](RewriterBase &rewriter, ChunkScanVarlenOp copy) {
            buildKernels(rewriter, copy, *extents, options);
          });
  if (std::optional<std::string> reason =
          mlir::ssd::detail::whyMisaligned(layoutNeeds))
    return reason;
  if (needs)
    *needs = std::move(layoutNeeds);
  return std::nullopt;
}

/// The mixed-launch attributes of a serial op (FormSelection.h) that the
/// chunked kernels can take: the per-sequence threshold and the chunk size.
/// A serial op whose chunk size they cannot take runs every sequence
/// serially, which is what its form says.
std::optional<std::pair<int64_t, int64_t>>
mixedLaunch(ChunkScanVarlenOp op,
            const mlir::ssd::detail::StaticExtents &extents,
            const LowerToGPUOptions &options) {
  auto minTokens = op->getAttrOfType<IntegerAttr>(kMixedMinChunkedTokensAttr);
  auto chunkSize = op->getAttrOfType<IntegerAttr>(kMixedChunkSizeAttr);
  if (*op.getForm() != Form::serial || extents.emptyState() || !minTokens ||
      !chunkSize || minTokens.getInt() < 1 || chunkSize.getInt() < 1 ||
      whyNotChunked(op, extents, chunkSize.getInt(), options))
    return std::nullopt;
  return std::pair{minTokens.getInt(), chunkSize.getInt()};
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
    mlir::ssd::detail::StaticExtents extents =
        *mlir::ssd::detail::getStaticExtents(op);
    rewriter.setInsertionPoint(op);
    mlir::ssd::detail::emitLayoutChecked(rewriter, op, needs, [&] {
      buildKernels(rewriter, op, extents, kernelOptions(op, options));
    });
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
    RewritePatternSet patterns(&getContext());
    populateSSDToGPUPatterns(patterns, options);
    if (failed(mlir::ssd::detail::lowerScanOps(
            getOperation(), std::move(patterns), "ssd-lower-to-gpu",
            [&](ChunkScanVarlenOp op) { return whyNotLowerable(op, options); },
            numSerialKernels, numChunkedKernels)))
      signalPassFailure();
  }
};

} // namespace

void mlir::ssd::populateSSDToGPUPatterns(RewritePatternSet &patterns,
                                         const SSDLowerToGPUOptions &options) {
  patterns.add<LowerChunkScanVarlenToGPU>(patterns.getContext(), options);
}
