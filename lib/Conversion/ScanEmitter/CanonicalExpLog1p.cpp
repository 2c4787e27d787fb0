//===- CanonicalExpLog1p.cpp - the invariant mode's exp and log1p ---------===//
//
// f32 exp and log1p built from operations every target rounds the same way:
// IEEE add, sub, mul, div and llvm.fma (exact in hardware or in fmaf), min,
// max, conversions between integer-valued floats and i32, and integer bit
// operations. libm, libdevice and the PTX approximations each give their own
// bits, so the invariant mode cannot use them. Both are within one ulp of the
// exact result: a C transcription of these operations, run on every f32,
// erred by at most 0.976 ulp (exp, at -0x1.86ed5ep+5) and 0.870 ulp (log1p
// of u >= 0, at 0x1.a17d7ap-2); the unit test checks a dense sample and
// those two inputs.
//
// The constants are written as their bit patterns: they are the exact f32
// values the error bounds were measured with.
//
//===----------------------------------------------------------------------===//

#include "ScanEmitter/CanonicalMath.h"
#include "ScanEmitter/LaneConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"

#include <limits>

using namespace mlir;
using namespace mlir::ssd::detail;

namespace {

/// The f32 whose bit pattern is `bits`.
float f32FromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }

/// A constant of `type` (f32, i32 or a vector of either) holding `value`.
Value splat(ImplicitLocOpBuilder &b, Type type, TypedAttr value) {
  return constantOfShape(b, type, value);
}

Value splatF32(ImplicitLocOpBuilder &b, Type type, float value) {
  return splat(b, type, b.getF32FloatAttr(value));
}

Value splatI32(ImplicitLocOpBuilder &b, Type type, int32_t value) {
  return splat(b, type, b.getI32IntegerAttr(value));
}

/// i32 or a vector of i32 of the same shape as `floatType`: the type the bit
/// operations on its values work in.
Type bitsType(ImplicitLocOpBuilder &b, Type floatType) {
  return withElementType(floatType, b.getI32Type());
}

/// 2^n for integer n with -126 <= n <= 127, built from its exponent field.
Value powerOfTwo(ImplicitLocOpBuilder &b, Type floatType, Value n) {
  Type intType = n.getType();
  Value biased = arith::AddIOp::create(b, n, splatI32(b, intType, 127));
  Value bits = arith::ShLIOp::create(b, biased, splatI32(b, intType, 23));
  return arith::BitcastOp::create(b, floatType, bits);
}

} // namespace

// exp(v) = 2^k * exp(r), r = x - k ln2, |r| <= ln2 / 2.
//   x  = min(max(v, -104), 88.8): exp(-104) < 2^-150 rounds to +0 (so does
//        -inf), exp(88.8) > FLT_MAX overflows to +inf (so does +inf); k then
//        stays in [-150, 128].
//   k  = fma(x, log2 e, 1.5 * 2^23) - 1.5 * 2^23, x log2 e rounded to an
//        integer (the shifter's ulp is 1), exact.
//   r  = fma(k, -ln2_lo, fma(k, -ln2_hi, x)); ln2_hi = f32(ln2), ln2_lo =
//        f32(ln2 - ln2_hi). The first fma is exact: its result is a
//        multiple of x's and k ln2_hi's common ulp below 0.35.
//   p  = 1 + r (1 + r (c2 + r (c3 + r (c4 + r (c5 + r c6))))), fma Horner;
//        c2..c6 interpolate (e^r - 1 - r) / r^2 at the 5 Chebyshev nodes of
//        [-ln2/2, ln2/2] (our own fit, rounded to f32).
//   2^k = 2^(k >> 1) * 2^(k - (k >> 1)): both factors are normal, and the
//        first product is exact, so a subnormal result is rounded once.
// A NaN v is returned as it is (its k is poison, which the select drops).
Value canonical::exp(ImplicitLocOpBuilder &b, Value v) {
  Type type = v.getType();
  auto constant = [&](uint32_t bits) {
    return splatF32(b, type, f32FromBits(bits));
  };
  Value x = arith::MinimumFOp::create(
      b, arith::MaximumFOp::create(b, v, splatF32(b, type, -104.0f)),
      splatF32(b, type, 88.8f));

  Value shifter = splatF32(b, type, 0x1.8p23f);
  Value k = arith::SubFOp::create(
      b, fma(b, x, constant(0x3fb8aa3b) /*log2 e*/, shifter), shifter);
  Value r = fma(b, k, constant(0xbf317218) /*-ln2_hi*/, x);
  r = fma(b, k, constant(0x3102e308) /*-ln2_lo*/, r);

  Value p = constant(0x3ab68885); // c6
  for (uint32_t coefficient :
       {0x3c0905b7u /*c5*/, 0x3d2aaa8du /*c4*/, 0x3e2aaa6eu /*c3*/,
        0x3f000000u /*c2*/, 0x3f800000u /*1*/, 0x3f800000u /*1*/})
    p = fma(b, p, r, constant(coefficient));

  Type intType = bitsType(b, type);
  Value n = arith::FPToSIOp::create(b, intType, k);
  Value half = arith::ShRSIOp::create(b, n, splatI32(b, intType, 1));
  Value rest = arith::SubIOp::create(b, n, half);
  Value scaled = arith::MulFOp::create(
      b, arith::MulFOp::create(b, p, powerOfTwo(b, type, half)),
      powerOfTwo(b, type, rest));

  Value isNaN = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  return arith::SelectOp::create(b, isNaN, v, scaled);
}

// log1p(u) for u >= 0, in the scheme of fdlibm's log1pf:
//   w  = 1 + u = 2^e m, m in [sqrt(1/2), sqrt(2)) split off by bit
//        operations (adding bits(1) - bits(sqrt(1/2)) to w's bits carries
//        into the exponent exactly when m would reach sqrt(2)); f = m - 1
//        (exact).
//   c  = the rounding error of w relative to w: (u - (w - 1)) / w for
//        e < 2, (1 - (w - u)) / w for 2 <= e < 25 (both differences exact),
//        0 beyond, where it is below half an ulp of the result.
//   s  = f / (2 + f), z = s^2, R = z (L1 + z (L2 + z (L3 + z L4))) with
//        L_i = f32(2 / (2i + 1)), the series of (log(1+f) - 2s) / s: z <=
//        0.0295, so the first term left out is below 2^-28 of the result.
//   hfsq = (0.5 f) f;  log1p(u) = e ln2_hi + (f - (hfsq - (s (hfsq + R) +
//        (e ln2_lo + c)))), ln2_hi = ln2 to 16 bits (e ln2_hi exact),
//        ln2_lo = f32(ln2 - ln2_hi).
// u = +0 gives +0, +inf gives +inf and a NaN u is returned as it is.
Value canonical::log1p(ImplicitLocOpBuilder &b, Value u) {
  Type type = u.getType();
  Type intType = bitsType(b, type);
  auto constant = [&](float value) { return splatF32(b, type, value); };
  auto bits = [&](int32_t value) { return splatI32(b, intType, value); };
  Value one = constant(1.0f);

  Value w = arith::AddFOp::create(b, one, u);
  // 0x3f3504f3 = f32(sqrt(1/2)), 0x3f800000 = 1.0f.
  Value shifted = arith::AddIOp::create(
      b, arith::BitcastOp::create(b, intType, w), bits(0x004afb0d));
  Value e = arith::SubIOp::create(
      b, arith::ShRUIOp::create(b, shifted, bits(23)), bits(127));
  Value m = arith::BitcastOp::create(
      b, type,
      arith::AddIOp::create(b,
                            arith::AndIOp::create(b, shifted, bits(0x007fffff)),
                            bits(0x3f3504f3)));
  Value f = arith::SubFOp::create(b, m, one);

  Value errorSmall =
      arith::SubFOp::create(b, u, arith::SubFOp::create(b, w, one));
  Value errorLarge =
      arith::SubFOp::create(b, one, arith::SubFOp::create(b, w, u));
  Value error = arith::SelectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, e, bits(2)),
      errorLarge, errorSmall);
  Value c = arith::SelectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, e, bits(25)),
      arith::DivFOp::create(b, error, w), constant(0.0f));

  Value s =
      arith::DivFOp::create(b, f, arith::AddFOp::create(b, constant(2.0f), f));
  Value z = arith::MulFOp::create(b, s, s);
  Value series = constant(2.0f / 9.0f);
  for (float coefficient : {2.0f / 7.0f, 2.0f / 5.0f, 2.0f / 3.0f})
    series = arith::AddFOp::create(b, constant(coefficient),
                                   arith::MulFOp::create(b, z, series));
  Value R = arith::MulFOp::create(b, z, series);
  Value hfsq =
      arith::MulFOp::create(b, arith::MulFOp::create(b, constant(0.5f), f), f);

  Value ef = arith::SIToFPOp::create(b, type, e);
  Value ln2Hi = constant(f32FromBits(0x3f317200));
  Value ln2Lo = constant(f32FromBits(0x35bfbe8e));
  Value tail = arith::AddFOp::create(
      b, arith::MulFOp::create(b, s, arith::AddFOp::create(b, hfsq, R)),
      arith::AddFOp::create(b, arith::MulFOp::create(b, ef, ln2Lo), c));
  Value result = arith::AddFOp::create(
      b, arith::MulFOp::create(b, ef, ln2Hi),
      arith::SubFOp::create(b, f, arith::SubFOp::create(b, hfsq, tail)));

  // Unordered-or-equal: u itself for NaN and +inf.
  Value passThrough =
      arith::CmpFOp::create(b, arith::CmpFPredicate::UEQ, u,
                            constant(std::numeric_limits<float>::infinity()));
  return arith::SelectOp::create(b, passThrough, u, result);
}
