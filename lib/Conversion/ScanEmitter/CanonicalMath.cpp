//===- CanonicalMath.cpp - the invariant mode's per-token arithmetic ------===//

#include "ScanEmitter/CanonicalMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::ssd::detail;

namespace {

/// A constant of `type` (a float type or a vector of one) holding `value`,
/// which has the element type's semantics.
Value splat(ImplicitLocOpBuilder &b, Type type, const APFloat &value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b,
        DenseElementsAttr::get(
            vector, b.getFloatAttr(vector.getElementType(), value).getValue()));
  return arith::ConstantOp::create(b, b.getFloatAttr(type, value));
}

Value splat(ImplicitLocOpBuilder &b, Type type, float value) {
  return splat(b, type, APFloat(value));
}

} // namespace

Value canonical::fma(ImplicitLocOpBuilder &b, Value a, Value x, Value c) {
  // llvm.fma rather than math.fma: convert-gpu-to-nvvm would turn the latter
  // into a libdevice call, the former becomes fma.rn.f32.
  return LLVM::FMAOp::create(b, a, x, c);
}

Value canonical::processedDt(ImplicitLocOpBuilder &b, Value dt, Value dtBias) {
  if (!dtBias)
    return dt;
  // exp of a large v may overflow to inf in the untaken branch; select
  // discards it.
  Value v = arith::AddFOp::create(b, dt, dtBias);
  Value soft = log1p(b, exp(b, v));
  Value large = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, v,
                                      splat(b, v.getType(), 20.0f));
  return arith::SelectOp::create(b, large, v, soft);
}

Value canonical::decay(ImplicitLocOpBuilder &b, Value d, Value A) {
  Value delta = arith::MulFOp::create(b, d, A);
  return exp(
      b, arith::MinimumFOp::create(b, delta, splat(b, delta.getType(), 0.0f)));
}

Value canonical::stepWeight(ImplicitLocOpBuilder &b, Value d, Value x) {
  return arith::MulFOp::create(b, d, x);
}

Value canonical::update(ImplicitLocOpBuilder &b, Value g, Value h, Value w,
                        Value B) {
  return fma(b, g, h, arith::MulFOp::create(b, w, B));
}

Value canonical::accumulate(ImplicitLocOpBuilder &b, Value h, Value C,
                            Value acc) {
  return fma(b, h, C, acc);
}

Value canonical::tree32(ImplicitLocOpBuilder &b, Value partials) {
  // Lane l of each level adds lanes l and l + half, as a warp's XOR
  // butterfly does in lane 0: the GPU's shuffle sum is this tree.
  Value level = partials;
  for (int64_t half = kPartials / 2; half >= 1; half /= 2) {
    Value low =
        vector::ExtractStridedSliceOp::create(b, level, {0}, {half}, {1});
    Value high =
        vector::ExtractStridedSliceOp::create(b, level, {half}, {half}, {1});
    level = arith::AddFOp::create(b, low, high);
  }
  return vector::ExtractOp::create(b, level, ArrayRef<int64_t>{0});
}

Value canonical::finishY(ImplicitLocOpBuilder &b, Value sum, Value D, Value x) {
  return D ? fma(b, D, x, sum) : sum;
}

Value canonical::canonicalNaN(ImplicitLocOpBuilder &b, Value v) {
  Value isNaN = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  Value quiet = splat(b, v.getType(), APFloat::getQNaN(APFloat::IEEEsingle()));
  return arith::SelectOp::create(b, isNaN, quiet, v);
}

Value canonical::storedValue(ImplicitLocOpBuilder &b, Value v, Type element) {
  if (element.isF32())
    return canonicalNaN(b, v);
  Type type = element;
  if (auto vector = dyn_cast<VectorType>(v.getType()))
    type = vector.clone(element);
  // The NaN is chosen after the truncation, not before: NVPTX's
  // cvt.rn.bf16.f32 turns every NaN into 0x7FFF, where the CPU and the
  // emulator keep the quiet bit's pattern (0x7FC0).
  Value isNaN = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  Value quiet = splat(
      b, type, APFloat::getQNaN(cast<FloatType>(element).getFloatSemantics()));
  Value rounded = arith::TruncFOp::create(b, type, v);
  return arith::SelectOp::create(b, isNaN, quiet, rounded);
}
