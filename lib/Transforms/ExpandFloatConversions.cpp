//===- ExpandFloatConversions.cpp - 16-bit float conversions as integers --===//
//
// LLVM lowers an f32 <-> bf16 or f16 conversion to one instruction only on
// CPUs that have it (AVX512-BF16, F16C, ARMv8.6 BF16); elsewhere the backend
// emits a call into compiler-rt (`__truncsfbf2`, `__truncsfhf2`,
// `__extendhfsf2`), which neither libgcc 12 nor a JIT without compiler-rt
// provides. Written as integer and f32 arithmetic, the conversions run on any
// CPU with the same results (round to nearest even), and the code then needs
// nothing beyond libc, libm and the OpenMP runtime.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDEXPANDFLOATCONVERSIONS
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

/// `type` with its element type (or itself, for a scalar) replaced by
/// `element`: the integer twin of a float scalar or vector.
Type withElementType(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

/// Builds integer and float constants and operations of one shape, scalar
/// or vector, so that the bit manipulations below read as formulas.
struct BitBuilder {
  PatternRewriter &rewriter;
  Location loc;
  Type like; ///< the scalar or vector type whose shape the values take

  Type intType(unsigned width) const {
    return withElementType(like, rewriter.getIntegerType(width));
  }
  Type floatType(FloatType element) const {
    return withElementType(like, element);
  }
  Value constant(Type type, TypedAttr scalar) {
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(rewriter, loc,
                                       DenseElementsAttr::get(shaped, scalar));
    return arith::ConstantOp::create(rewriter, loc, scalar);
  }
  Value i32(uint32_t value) {
    return constant(intType(32), rewriter.getI32IntegerAttr(value));
  }
  Value f32(float value) {
    return constant(floatType(rewriter.getF32Type()),
                    rewriter.getF32FloatAttr(value));
  }
  Value bitcast(Type type, Value value) {
    return arith::BitcastOp::create(rewriter, loc, type, value);
  }
  Value andI(Value a, Value b) {
    return arith::AndIOp::create(rewriter, loc, a, b);
  }
  Value orI(Value a, Value b) {
    return arith::OrIOp::create(rewriter, loc, a, b);
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b);
  }
  Value sub(Value a, Value b) {
    return arith::SubIOp::create(rewriter, loc, a, b);
  }
  Value shl(Value a, uint32_t bits) {
    return arith::ShLIOp::create(rewriter, loc, a, i32(bits));
  }
  Value shr(Value a, uint32_t bits) {
    return arith::ShRUIOp::create(rewriter, loc, a, i32(bits));
  }
  Value cmp(arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, predicate, a, b);
  }
  Value select(Value condition, Value a, Value b) {
    return arith::SelectOp::create(rewriter, loc, condition, a, b);
  }
};

bool hasElementType(Type type, function_ref<bool(Type)> predicate) {
  return predicate(getElementTypeOrSelf(type));
}

/// f32 -> f16, rounded to nearest even, in i32 arithmetic. With a = |x| as
/// bits:
///   a >= 2^16 (as f32 bits 0x47800000): NaN -> 0x7e00, else +inf 0x7c00;
///   a < 2^-14 (the smallest normal f16, 0x38800000): the f32 addition
///     a + 0.5 rounds a to a multiple of 2^-24, the f16 subnormal step, and
///     the sum's low mantissa bits are the f16 bits;
///   otherwise the exponent is rebiased (-112 << 23) and the 13 dropped bits
///     rounded: + 0xfff, + the kept mantissa's lowest bit (ties to even),
///     a carry into the exponent giving the next binade or +inf.
/// The sign goes back on as bit 15.
struct ExpandTruncFToF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasElementType(op.getType(), [](Type t) { return t.isF16(); }) ||
        !hasElementType(op.getIn().getType(), [](Type t) { return t.isF32(); }))
      return rewriter.notifyMatchFailure(op, "not an f32 -> f16 truncation");
    if (op.getRoundingmode() &&
        *op.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounding other than nearest");
    BitBuilder b{rewriter, op.getLoc(), op.getType()};
    Value bits = b.bitcast(b.intType(32), op.getIn());
    Value sign = b.andI(bits, b.i32(0x80000000u));
    Value magnitude = b.andI(bits, b.i32(0x7fffffffu));

    Value isNaN =
        b.cmp(arith::CmpIPredicate::ugt, magnitude, b.i32(0x7f800000u));
    Value overflow = b.select(isNaN, b.i32(0x7e00u), b.i32(0x7c00u));
    Value tooLarge =
        b.cmp(arith::CmpIPredicate::uge, magnitude, b.i32(0x47800000u));

    Value half = b.f32(0.5f);
    Value sum = arith::AddFOp::create(
        rewriter, op.getLoc(),
        b.bitcast(b.floatType(rewriter.getF32Type()), magnitude), half);
    Value subnormal = b.sub(b.bitcast(b.intType(32), sum), b.i32(0x3f000000u));
    Value tooSmall =
        b.cmp(arith::CmpIPredicate::ult, magnitude, b.i32(0x38800000u));

    Value keptLowBit = b.andI(b.shr(magnitude, 13), b.i32(1));
    Value rounded = b.add(b.add(magnitude, b.i32(0xc8000fffu)), keptLowBit);
    Value normal = b.shr(rounded, 13);

    Value unsignedHalf =
        b.select(tooLarge, overflow, b.select(tooSmall, subnormal, normal));
    Value withSign = b.orI(unsignedHalf, b.shr(sign, 16));
    Value narrow =
        arith::TruncIOp::create(rewriter, op.getLoc(), b.intType(16), withSign);
    rewriter.replaceOp(op, b.bitcast(op.getType(), narrow));
    return success();
  }
};

/// f16 -> f32 (exact), in i32 arithmetic. With m = (h & 0x7fff) << 13, the
/// f16 exponent and mantissa in the f32 fields:
///   exponent 0 (zero, subnormal): the f32 with bits m + (113 << 23) is
///     2^-14 (1 + mantissa / 1024); less 2^-14 leaves mantissa * 2^-24;
///   exponent 31 (inf, NaN): the exponent field becomes 255 (+ 224 << 23);
///   otherwise the exponent is rebiased (+ 112 << 23).
/// The sign moves from bit 15 to bit 31. f16 -> f64 goes through f32.
struct ExpandExtFFromF16 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasElementType(op.getIn().getType(), [](Type t) { return t.isF16(); }))
      return rewriter.notifyMatchFailure(op, "not an extension of f16");
    Type resultElement = getElementTypeOrSelf(op.getType());
    if (!resultElement.isF32() && !resultElement.isF64())
      return rewriter.notifyMatchFailure(op, "not to f32 or f64");
    BitBuilder b{rewriter, op.getLoc(), op.getType()};
    Type f32Type = b.floatType(rewriter.getF32Type());
    Value bits16 = b.bitcast(b.intType(16), op.getIn());
    Value bits =
        arith::ExtUIOp::create(rewriter, op.getLoc(), b.intType(32), bits16);
    Value sign = b.shl(b.andI(bits, b.i32(0x8000u)), 16);
    Value shifted = b.shl(b.andI(bits, b.i32(0x7fffu)), 13);
    Value exponent = b.andI(bits, b.i32(0x7c00u));

    Value normal = b.add(shifted, b.i32(112u << 23));
    Value special = b.add(shifted, b.i32(224u << 23));
    Value scaled = b.bitcast(f32Type, b.add(shifted, b.i32(113u << 23)));
    Value subnormal = b.bitcast(
        b.intType(32),
        arith::SubFOp::create(rewriter, op.getLoc(), scaled, b.f32(0x1p-14f)));

    Value isZeroExponent = b.cmp(arith::CmpIPredicate::eq, exponent, b.i32(0));
    Value isMaxExponent =
        b.cmp(arith::CmpIPredicate::eq, exponent, b.i32(0x7c00u));
    Value magnitude = b.select(isZeroExponent, subnormal,
                               b.select(isMaxExponent, special, normal));
    Value result = b.bitcast(f32Type, b.orI(magnitude, sign));
    if (resultElement.isF64())
      result =
          arith::ExtFOp::create(rewriter, op.getLoc(), op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SSDExpandFloatConversionsPass
    : public mlir::ssd::impl::SSDExpandFloatConversionsBase<
          SSDExpandFloatConversionsPass> {
  using SSDExpandFloatConversionsBase::SSDExpandFloatConversionsBase;

  void runOnOperation() override {
    auto is16BitConversion = [](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
        return false;
      auto is16Bit = [](Type type) {
        Type element = getElementTypeOrSelf(type);
        return element.isF16() || element.isBF16();
      };
      return is16Bit(op->getOperand(0).getType()) ||
             is16Bit(op->getResult(0).getType());
    };
    int64_t before = 0;
    getOperation()->walk(
        [&](Operation *op) { before += is16BitConversion(op); });

    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    patterns.add<ExpandTruncFToF16, ExpandExtFFromF16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // What is left is a conversion the patterns cannot do exactly (from
    // f64, or with a directed rounding mode): an error rather than a libcall
    // left for the backend.
    int64_t left = 0;
    getOperation()->walk([&](Operation *op) {
      if (!is16BitConversion(op))
        return;
      if (left++ == 0)
        op->emitError("ssd-expand-float-conversions: no exact expansion of "
                      "this 16-bit float conversion (only between f32 and "
                      "f16/bf16, rounding to nearest even)");
    });
    numExpanded += before - left;
    if (left > 0)
      signalPassFailure();
  }
};

} // namespace
