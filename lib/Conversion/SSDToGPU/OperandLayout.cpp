//===- OperandLayout.cpp - the operand layouts the GPU kernels serve ------===//
//
// The kernels read and write some operands in vectors (16-byte loads and
// cp.async copies of x, B and C, pairs of y and pool elements, rows of the
// pool), and a GPU faults on a vector access whose address is not a
// multiple of its size. The op accepts any strided memref, so what each
// operand needs is read off the kernels themselves: the lowering builds
// them once, in a block of their own, and every access they make to an
// operand (through the views the builders take of it) contributes its
// alignment before the block is moved in place.
// Static offsets and strides are checked at compile time; host code checks
// the rest (the aligned pointer, dynamic offsets and strides) before the
// first launch of a call and reports the first one that fails through the
// runtime (ssdGPUMisalignedOperand), launching nothing.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "ssd/GPURuntime/DeviceRuntime.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

/// The op's memref operands in the order of ssd::kScanOperandNames (null
/// where an optional operand is absent).
SmallVector<Value> scanOperands(ChunkScanVarlenOp op) {
  return {op.getX(),
          op.getDt(),
          op.getA(),
          op.getB(),
          op.getC(),
          op.getD(),
          op.getDtBias(),
          op.getSsmPool(),
          op.getQueryStartLoc(),
          op.getHasInitialState(),
          op.getCacheIndices(),
          op.getUpdateState(),
          op.getYOut()};
}

int64_t elementBytes(MemRefType type) {
  return llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Adds the alignment of every access that the kernels in `kernels` make to
/// `memref`, or to a view of it, to `need`.
void noteAccesses(Value memref, Block &kernels, OperandLayoutNeed &need) {
  auto access = [&](Value base, VectorType vector,
                    std::optional<uint64_t> alignment) {
    if (base != memref)
      return;
    need.alignment = std::max<int64_t>(need.alignment, alignment.value_or(1));
    need.vectorized |= vector.getNumElements() > 1;
  };
  for (Operation *user : memref.getUsers()) {
    if (!kernels.findAncestorOpInBlock(*user))
      continue;
    if (auto load = dyn_cast<vector::LoadOp>(user)) {
      access(load.getBase(), load.getVectorType(), load.getAlignment());
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      access(store.getBase(), store.getVectorType(), store.getAlignment());
    } else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user)) {
      // cp.async: the source is aligned to the copy's size.
      auto source = cast<MemRefType>(copy.getSrc().getType());
      int64_t elements = copy.getDstElements().getSExtValue();
      if (copy.getSrc() == memref)
        access(memref, VectorType::get({elements}, source.getElementType()),
               elements * elementBytes(source));
    } else if (isa<memref::CastOp, UnrealizedConversionCastOp>(user) ||
               (isa<ViewLikeOpInterface>(user) &&
                cast<ViewLikeOpInterface>(user).getViewSource() == memref)) {
      for (Value view : user->getResults())
        if (isa<MemRefType>(view.getType()))
          noteAccesses(view, kernels, need);
    }
    // Scalar loads, stores and atomics need the element's alignment, which
    // `need` starts from.
  }
}

std::string describeStride(int64_t stride, int64_t bytes) {
  if (ShapedType::isDynamic(stride))
    return "a dynamic stride";
  return llvm::formatv("stride {0} ({1} bytes)", stride, stride * bytes).str();
}

} // namespace

void mlir::ssd::detail::declareMisalignedOperandFunction(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Type i32Type = IntegerType::get(ctx, 32), i64Type = IntegerType::get(ctx, 64);
  declareRuntimeFunction(
      op, kMisalignedOperandFunction,
      FunctionType::get(ctx, {i32Type, i32Type, i64Type, i64Type}, {}),
      /*cInterface=*/false);
}

SmallVector<OperandLayoutNeed>
mlir::ssd::detail::kernelLayoutNeeds(ChunkScanVarlenOp op, Block &kernels) {
  SmallVector<OperandLayoutNeed> needs;
  for (auto [index, value] : llvm::enumerate(scanOperands(op))) {
    auto type = value ? dyn_cast<MemRefType>(value.getType()) : nullptr;
    if (!type)
      continue;
    OperandLayoutNeed need{unsigned(index), value, elementBytes(type), false};
    noteAccesses(value, kernels, need);
    needs.push_back(need);
  }
  return needs;
}

std::optional<std::string>
mlir::ssd::detail::whyMisaligned(ArrayRef<OperandLayoutNeed> needs) {
  for (const OperandLayoutNeed &need : needs) {
    auto type = cast<MemRefType>(need.value.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.getRank() == 0 ||
        failed(type.getStridesAndOffset(strides, offset)))
      continue;
    const char *name = ::ssd::kScanOperandNames[need.operand];
    const int64_t bytes = elementBytes(type), rank = type.getRank();
    if (need.vectorized && strides.back() != 1)
      return llvm::formatv(
                 "ssd-lower-to-gpu: operand '{0}' has {1} in its last "
                 "dimension; its GPU kernels access it in vectors along that "
                 "dimension, which needs stride 1",
                 name, describeStride(strides.back(), bytes))
          .str();
    if (need.alignment <= bytes)
      continue;
    if (!ShapedType::isDynamic(offset) && (offset * bytes) % need.alignment)
      return llvm::formatv(
                 "ssd-lower-to-gpu: operand '{0}' starts at element offset "
                 "{1} ({2} bytes), not a multiple of the {3}-byte alignment "
                 "its GPU kernels access it with",
                 name, offset, offset * bytes, need.alignment)
          .str();
    // The last dimension, along which the vectors lie, has stride 1.
    for (int64_t d = 0; d < rank - 1; ++d)
      if (!ShapedType::isDynamic(strides[d]) && type.getDimSize(d) != 1 &&
          (strides[d] * bytes) % need.alignment)
        return llvm::formatv(
                   "ssd-lower-to-gpu: operand '{0}' has {1} in dimension "
                   "{2}, not a multiple of the {3}-byte alignment its GPU "
                   "kernels access it with",
                   name, describeStride(strides[d], bytes), d, need.alignment)
            .str();
  }
  return std::nullopt;
}

void mlir::ssd::detail::emitLayoutChecked(RewriterBase &rewriter,
                                          ChunkScanVarlenOp op,
                                          ArrayRef<OperandLayoutNeed> needs,
                                          Block &kernels) {
  using namespace ir;
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  // What host code checks: every operand's start address (the aligned
  // pointer is only known at run time), and the strides left dynamic.
  struct Check {
    unsigned operand;
    int32_t dim; // -1: the start address
    Value bytes;
    int64_t alignment;
  };
  SmallVector<Check> checks;
  for (const OperandLayoutNeed &need : needs) {
    auto type = cast<MemRefType>(need.value.getType());
    const int64_t bytes = elementBytes(type);
    if (need.alignment <= 1 || !type.isStrided())
      continue;
    auto meta = memref::ExtractStridedMetadataOp::create(b, need.value);
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, need.value);
    checks.push_back({need.operand, -1,
                      add(b, pointer, mul(b, meta.getOffset(), bytes)),
                      need.alignment});
    if (need.alignment <= bytes)
      continue;
    for (int64_t d = 0, rank = type.getRank(); d < rank - 1; ++d)
      if (type.getDimSize(d) != 1 &&
          ShapedType::isDynamic(type.getStridesAndOffset().first[d]))
        checks.push_back({need.operand, int32_t(d),
                          mul(b, meta.getStrides()[d], bytes), need.alignment});
  }
  // The kernels' ops go where the checks pass.
  auto build = [&] {
    Block *block = rewriter.getInsertionBlock();
    block->getOperations().splice(rewriter.getInsertionPoint(),
                                  kernels.getOperations());
  };
  if (checks.empty())
    return build();

  SmallVector<Value> aligned;
  Value all = boolean(b, true);
  for (const Check &c : checks) {
    aligned.push_back(eq(
        b, arith::RemUIOp::create(b, c.bytes, idx(b, c.alignment)), idx(b, 0)));
    all = both(b, all, aligned.back());
  }
  auto guard = scf::IfOp::create(b, all, /*withElseRegion=*/true);
  // Misaligned: the first failing check is reported, nothing launched.
  Type i64Type = b.getI64Type();
  declareMisalignedOperandFunction(op);
  b.setInsertionPoint(guard.elseBlock()->getTerminator());
  for (auto [c, ok] : llvm::zip_equal(checks, aligned)) {
    auto next = scf::IfOp::create(b, ok, /*withElseRegion=*/true);
    b.setInsertionPoint(next.elseBlock()->getTerminator());
    func::CallOp::create(
        b, kMisalignedOperandFunction, TypeRange{},
        ValueRange{
            i32(b, c.operand), i32(b, c.dim),
            arith::IndexCastOp::create(b, i64Type, c.bytes),
            arith::ConstantOp::create(b, b.getI64IntegerAttr(c.alignment))});
    b.setInsertionPoint(next.thenBlock()->getTerminator());
  }
  rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
  build();
}
