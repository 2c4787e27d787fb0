//===- LowerToGPU.cpp - ssd-lower-to-gpu pass and its pattern -------------===//
//
// Replaces memref-form scan ops with the GPU kernels of the plan recorded on
// them (#ssd.scan_config) and nothing else: the plan is read and checked
// against the op once (readGPUPlan), the kernels built once, in a block of
// their own, the operand layouts they need read off them, and the block
// moved in place behind the host-side layout checks. The pass and the
// public pattern share that one lowering.
//
//===----------------------------------------------------------------------===//

#include "ssd/Conversion/Passes.h"

#include "ChunkedPlan.h"
#include "GPUBuilders.h"
#include "ScanEmitter/LoweringDriver.h"
#include "ScanEmitter/PoolCodec.h"

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
#include "llvm/Support/FormatVariadic.h"

#include <variant>

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDLOWERTOGPU
#include "ssd/Conversion/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

constexpr llvm::StringLiteral kPassName = "ssd-lower-to-gpu";

/// What the GPU lowering of one op builds: its config's choices, checked
/// against the op.
struct GPUScanPlan {
  StaticExtents extents;
  /// serial or chunked; a chunked op without state elements runs serially.
  Form form;
  /// A serial op's mixed launch.
  std::optional<int64_t> mixedMinTokens;
  SerialTiling serial;
  /// The chunked kernels' plan, where they run (chunked form or mixed).
  std::optional<ChunkedPlan> chunked;
};

/// The pool's element type as the op spells it (i8, f8E4M3FN, ...).
std::string poolTypeName(const PoolCodec &codec) {
  std::string name;
  llvm::raw_string_ostream os(name);
  codec.element.print(os);
  return name;
}

/// Why the serial kernel cannot write `op`'s pool, if it cannot: it keeps
/// an 8-bit row whole in registers, up to dstate 2048.
std::optional<std::string> whyNotSerialPool(ChunkScanVarlenOp op,
                                            const StaticExtents &x,
                                            const SerialTiling &tiling) {
  PoolCodec codec(op);
  if (codec.scaled() &&
      serialScansInPieces(x, tiling, op.getInvariant(), /*wholeRows=*/true))
    return llvm::formatv(
               "ssd-lower-to-gpu: the GPU serial kernel keeps each row of an "
               "8-bit pool ({0}) in registers (its scale needs all N "
               "columns), which holds dstate (N) up to 2048, got {1}",
               poolTypeName(codec), x.dstate)
        .str();
  return std::nullopt;
}

/// Why the chunked kernels of `plan` (chunked form, or a mixed launch's
/// long sequences) cannot write `op`'s pool, if they cannot: an 8-bit row's
/// scale is combined over the lanes of one warp that hold the row in state
/// passing and the output kernel (every final state of the fused kernels
/// too), which the fused chunk kernel's checkpoint stores do not have.
std::optional<std::string> whyNotChunkedPool(ChunkScanVarlenOp op,
                                             const StaticExtents &x,
                                             const ChunkedPlan &plan,
                                             bool mixed) {
  PoolCodec codec(op);
  if (!codec.scaled())
    return std::nullopt;
  StringRef kernels = mixed ? "the GPU chunked kernels (of a mixed launch)"
                            : "the GPU chunked kernels";
  if (plan.fused && op.getCheckpointSlots())
    return llvm::formatv("ssd-lower-to-gpu: {0} store the checkpoints of {1} "
                         "pools unfused only (the fused chunk kernel stores a "
                         "checkpoint from fragments of several warps, which "
                         "hold no row's scale); plan them with "
                         "fused-state-passing=false",
                         kernels, poolTypeName(codec))
        .str();
  if (!chunkedRowLanes(x))
    return llvm::formatv(
               "ssd-lower-to-gpu: {0} store {1} pools only where one warp "
               "holds a state row (dstate N / 4, or N when N is not a "
               "multiple of 4, a power of two up to 32; or N 256 or 512, at "
               "N / 32 elements a lane), got dstate (N) {2}; use form serial",
               kernels, poolTypeName(codec), x.dstate)
        .str();
  return std::nullopt;
}

/// The plan the config of `op` records, or why the kernels cannot honour
/// it for `op`.
std::variant<GPUScanPlan, std::string> readGPUPlan(ChunkScanVarlenOp op) {
  FailureOr<StaticExtents> extents = getStaticExtents(op);
  if (failed(extents))
    return std::string("ssd-lower-to-gpu: the GPU kernels need static nheads, "
                       "head_dim, ngroups and dstate (they fix the tiling)");
  ScanConfigAttr config = configOf(op);
  std::optional<GPUKernelChoices> gpu = config.getGPUChoices();
  if (!gpu)
    return std::string("ssd-lower-to-gpu: the op's config records no GPU "
                       "kernels' choices; run ssd-plan-gpu-kernels first");
  GPUScanPlan plan{*extents,
                   config.getForm(),
                   config.getMixedMinTokens(),
                   {gpu->serialRowsPerWarp, gpu->serialWarpsPerBlock},
                   std::nullopt};
  if (op.getInvariant() && extents->dstate > kInvariantMaxDstate)
    return llvm::formatv("ssd-lower-to-gpu: an invariant op keeps its state "
                         "in registers on the GPU, which holds dstate (N) up "
                         "to {0}, got {1}",
                         kInvariantMaxDstate, extents->dstate)
        .str();
  // With no state elements (P or N = 0) the chunked tiles have nothing to
  // tile, and an invariant op's every form computes the serial kernel's
  // bits (its config never mixes): such ops take the serial kernels.
  if (extents->emptyState() || op.getInvariant()) {
    plan.form = Form::serial;
    plan.mixedMinTokens.reset();
    return plan;
  }
  // The serial kernels run the serial form and a mixed launch's short
  // sequences.
  if (plan.form == Form::serial)
    if (std::optional<std::string> reason =
            whyNotSerialPool(op, *extents, plan.serial))
      return *reason;
  if (plan.form == Form::serial && !plan.mixedMinTokens)
    return plan;
  if (!gpu->chunked)
    return std::string(
        "ssd-lower-to-gpu: the op's config records no chunked kernels' "
        "choices for its chunked form; run ssd-plan-gpu-kernels first");
  Type modelType = cast<ShapedType>(op.getX().getType()).getElementType();
  ChunkedPlan chunked(*extents, modelType, config.getChunkSize(),
                      *gpu->chunked);
  if (std::optional<std::string> reason = chunked.whyNotHonoured(kPassName))
    return *reason;
  if (chunked.maxSharedMemory() != gpu->chunked->sharedMemory)
    return llvm::formatv(
               "ssd-lower-to-gpu: the config's shared_memory ({0} bytes) is "
               "not what its chunked kernels need ({1} bytes) at head_dim "
               "(P) {2}, dstate (N) {3}, chunk_size {4}",
               gpu->chunked->sharedMemory, chunked.maxSharedMemory(),
               extents->headDim, extents->dstate, config.getChunkSize())
        .str();
  if (std::optional<std::string> reason = whyNotChunkedPool(
          op, *extents, chunked, plan.mixedMinTokens.has_value()))
    return *reason;
  plan.chunked = chunked;
  return plan;
}

/// The kernels of `plan` for `op`, at `b`'s insertion point.
void buildKernels(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                  const GPUScanPlan &plan) {
  if (plan.mixedMinTokens)
    buildMixedScanGPU(b, op, *plan.chunked, plan.serial, *plan.mixedMinTokens);
  else if (plan.form == Form::serial)
    buildSerialScanGPU(b, op, plan.extents, plan.serial);
  else
    buildChunkedScanGPU(b, op, *plan.chunked);
}

/// Replaces `op` with its kernels, or says why it cannot (IR unchanged).
/// The kernels are built into a block of their own first: what they need of
/// the operands' layouts is read off them, a static layout that breaks it
/// is refused, and the block's ops move behind the run-time checks.
std::optional<std::string> lowerToGPU(RewriterBase &rewriter,
                                      ChunkScanVarlenOp op) {
  if (std::optional<std::string> reason = whyNotReadyToLower(op, kPassName))
    return reason;
  std::variant<GPUScanPlan, std::string> plan = readGPUPlan(op);
  if (auto *reason = std::get_if<std::string>(&plan))
    return *reason;

  // The host code checks the operands before it launches anything; its
  // runtime function is declared first, as the checks come first.
  declareMisalignedOperandFunction(op);
  Block kernels;
  OpBuilder builder(op.getContext());
  builder.setInsertionPointToEnd(&kernels);
  ImplicitLocOpBuilder b(op.getLoc(), builder);
  buildKernels(b, op, std::get<GPUScanPlan>(plan));
  SmallVector<OperandLayoutNeed> needs = kernelLayoutNeeds(op, kernels);
  if (std::optional<std::string> reason = whyMisaligned(needs)) {
    // Uses first, so that each op is erased with no users left.
    for (Operation &kernelOp : kernels)
      kernelOp.dropAllReferences();
    while (!kernels.empty())
      kernels.back().erase();
    return reason;
  }
  rewriter.setInsertionPoint(op);
  emitLayoutChecked(rewriter, op, needs, kernels);
  rewriter.eraseOp(op);
  return std::nullopt;
}

struct SSDLowerToGPUPass
    : public mlir::ssd::impl::SSDLowerToGPUBase<SSDLowerToGPUPass> {
  using SSDLowerToGPUBase::SSDLowerToGPUBase;

  void runOnOperation() override {
    if (failed(lowerScanOps(getOperation(), lowerToGPU, numSerialKernels,
                            numChunkedKernels)))
      signalPassFailure();
  }
};

} // namespace

void mlir::ssd::populateSSDToGPUPatterns(RewritePatternSet &patterns) {
  using Pattern = LowerScanPattern<decltype(&lowerToGPU)>;
  patterns.add<Pattern>(patterns.getContext(), &lowerToGPU);
}
