//===- PoolCodec.cpp - how every lowering reads and writes the pool -------===//
//
// Everything here is exact f32 or integer arithmetic that means the same on
// every target: scaling by powers of two built from exponent bits, rounding
// to an integer by the 1.5 * 2^23 addition (exact ties-to-even for
// |t| < 2^22), truncation by fptoui only on finite values below 2^24, and
// the 8-bit float format assembled from bits. No libm call, no intrinsic a
// target might approximate, so the CPU loops, the GPU kernels and the
// emulator produce the same codes from the same f32 states.
//
//===----------------------------------------------------------------------===//

#include "ScanEmitter/PoolCodec.h"
#include "ScanEmitter/LaneConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011): the round multipliers and the Weyl key increments.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

Value f32Like(ImplicitLocOpBuilder &b, Type like, double v) {
  return constantOfShape(b, like, b.getF32FloatAttr(v));
}

Value i32Like(ImplicitLocOpBuilder &b, Type like, uint32_t v) {
  return constantOfShape(b, like, b.getI32IntegerAttr(static_cast<int32_t>(v)));
}

/// A scalar broadcast to `like`'s shape (itself when `like` is scalar).
Value splatLike(ImplicitLocOpBuilder &b, Type like, Value scalar) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector::BroadcastOp::create(b, vector.clone(scalar.getType()),
                                       scalar);
  return scalar;
}

Value asBits(ImplicitLocOpBuilder &b, Value f) {
  return arith::BitcastOp::create(
      b, withElementType(f.getType(), b.getI32Type()), f);
}

Value asFloat(ImplicitLocOpBuilder &b, Value bits) {
  return arith::BitcastOp::create(
      b, withElementType(bits.getType(), b.getF32Type()), bits);
}

/// |f| by clearing the sign bit: math.absf would become a libdevice call
/// in convert-gpu-to-nvvm, which a kernel assembled without libdevice
/// cannot resolve.
Value magnitudeOf(ImplicitLocOpBuilder &b, Value f) {
  return asFloat(b, arith::AndIOp::create(
                        b, asBits(b, f), i32Like(b, f.getType(), 0x7fffffffu)));
}

/// The larger of two magnitudes (sign bits clear) by their bits: for
/// non-negative floats the bit patterns order as the values do, and NaN
/// above infinity above every number, so a NaN wins (as the row maximum
/// must) in one integer instruction, where a NaN-propagating float maximum
/// takes several on x86.
Value largerMagnitude(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  return asFloat(b, arith::MaxUIOp::create(b, asBits(b, lhs), asBits(b, rhs)));
}

/// 2^(biased - 127) for an i32 biased exponent in [1, 254].
Value powerOfTwo(ImplicitLocOpBuilder &b, Value biased) {
  return asFloat(
      b, arith::ShLIOp::create(b, biased, i32Like(b, biased.getType(), 23)));
}

/// Nearest integer, ties to even, for |t| < 2^22: t + 1.5 * 2^23 lands in
/// the binade whose spacing is 1, so the addition itself rounds.
Value roundToEvenInteger(ImplicitLocOpBuilder &b, Value t) {
  Value magic = f32Like(b, t.getType(), 12582912.0);
  return arith::SubFOp::create(b, arith::AddFOp::create(b, t, magic), magic);
}

/// floor(t) or floor(t) + 1 for finite 0 <= t < 2^24: the latter when
/// u = (bits >> 8) * 2^-24 < frac(t), i.e. with probability frac(t) over
/// uniform bits. Both sides of the comparison are exact in f32.
Value stochasticInteger(ImplicitLocOpBuilder &b, Value t, Value bits) {
  Type like = t.getType();
  Type i32 = withElementType(like, b.getI32Type());
  Value low =
      arith::UIToFPOp::create(b, like, arith::FPToUIOp::create(b, i32, t));
  Value frac = arith::SubFOp::create(b, t, low);
  Value u = arith::UIToFPOp::create(
      b, like, arith::ShRUIOp::create(b, bits, i32Like(b, like, 8)));
  Value up = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, u,
      arith::MulFOp::create(b, frac, f32Like(b, like, 16777216.0)));
  return arith::AddFOp::create(b, low,
                               arith::SelectOp::create(b, up,
                                                       f32Like(b, like, 1.0),
                                                       f32Like(b, like, 0.0)));
}

/// v with the sign bit of `signOf`.
Value withSignOf(ImplicitLocOpBuilder &b, Value v, Value signOf) {
  Type like = v.getType();
  Value sign = arith::AndIOp::create(b, asBits(b, signOf),
                                     i32Like(b, like, 0x80000000u));
  return asFloat(b, arith::OrIOp::create(b, asBits(b, v), sign));
}

/// |a| rounded stochastically onto a float grid with `mantissa` stored bits
/// and smallest normal exponent `minExponent` (subnormals below it), for
/// a >= 0; non-finite a is returned as it is. Scaling a by the grid's gap
/// (a power of two) is exact, so the rounding happens on an integer grid.
Value stochasticOnFloatGrid(ImplicitLocOpBuilder &b, Value a, Value bits,
                            int mantissa, int minExponent) {
  Type like = a.getType();
  Value biased = arith::ShRUIOp::create(b, asBits(b, a), i32Like(b, like, 23));
  Value exponent =
      arith::MaxUIOp::create(b, biased, i32Like(b, like, 127 + minExponent));
  Value gap = powerOfTwo(
      b, arith::SubIOp::create(b, exponent, i32Like(b, like, mantissa)));
  Value inverseGap = powerOfTwo(
      b, arith::SubIOp::create(b, i32Like(b, like, 254 + mantissa), exponent));
  Value finite = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, a,
      f32Like(b, like, std::numeric_limits<float>::infinity()));
  Value t = arith::SelectOp::create(b, finite,
                                    arith::MulFOp::create(b, a, inverseGap),
                                    f32Like(b, like, 0.0));
  Value rounded = arith::MulFOp::create(b, stochasticInteger(b, t, bits), gap);
  return arith::SelectOp::create(b, finite, rounded, a);
}

/// value * inverse with every non-finite product as 0, so that conversions
/// never see one; and +0 throughout a row without a scale (m = 0 or not
/// finite: inverse 0), whose codes are 0, where v * 0 would give an
/// f8E4M3FN code the sign of a negative v (0x80).
Value scaledFinite(ImplicitLocOpBuilder &b, Value values, Value inverse) {
  Type like = values.getType();
  Value p = arith::MulFOp::create(b, values, splatLike(b, like, inverse));
  Value finite = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, magnitudeOf(b, p),
      f32Like(b, like, std::numeric_limits<float>::infinity()));
  Value scaled = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, inverse,
                                       f32Like(b, b.getF32Type(), 0.0));
  Value keep = arith::AndIOp::create(b, finite, splatLike(b, like, scaled));
  return arith::SelectOp::create(b, keep, p, f32Like(b, like, 0.0));
}

} // namespace

PoolCodec::PoolCodec(ChunkScanVarlenOp op)
    : scales(op.getSsmPoolScales()), seed(op.getRoundingSeed()),
      stochastic(op.getPoolRounding() == PoolRounding::stochastic),
      pool(op.getSsmPool()) {
  element = cast<MemRefType>(pool.getType()).getElementType();
  if (element.isF32())
    storage = PoolStorage::F32;
  else if (element.isBF16())
    storage = PoolStorage::BF16;
  else if (element.isF16())
    storage = PoolStorage::F16;
  else if (isa<Float8E4M3FNType>(element))
    storage = PoolStorage::F8E4M3FN;
  else
    storage = PoolStorage::I8; // the verifier allows nothing else
}

double PoolCodec::qmax() const {
  return storage == PoolStorage::F8E4M3FN ? 448.0 : 127.0;
}

Value PoolCodec::decode(ImplicitLocOpBuilder &b, Value stored,
                        Value scale) const {
  Type like = stored.getType();
  Type f32 = withElementType(like, b.getF32Type());
  switch (storage) {
  case PoolStorage::F32:
    return stored;
  case PoolStorage::BF16:
  case PoolStorage::F16:
    return arith::ExtFOp::create(b, f32, stored);
  case PoolStorage::I8:
    return arith::MulFOp::create(b, arith::SIToFPOp::create(b, f32, stored),
                                 splatLike(b, f32, scale));
  case PoolStorage::F8E4M3FN:
    break;
  }
  // f8E4M3FN: sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0
  // holds the subnormals m * 2^-9; S.1111.111 is NaN; no infinities.
  Value code = arith::ExtUIOp::create(
      b, withElementType(like, b.getI32Type()),
      arith::BitcastOp::create(b, withElementType(like, b.getI8Type()),
                               stored));
  Value sign = arith::AndIOp::create(b, code, i32Like(b, f32, 0x80));
  Value magnitude = arith::AndIOp::create(b, code, i32Like(b, f32, 0x7f));
  Value signBit = arith::ShLIOp::create(b, sign, i32Like(b, f32, 24));
  // Exponent and mantissa move up by 20 bits; the bias grows by 120.
  Value normal = asFloat(
      b, arith::OrIOp::create(
             b, signBit,
             arith::AddIOp::create(
                 b, arith::ShLIOp::create(b, magnitude, i32Like(b, f32, 20)),
                 i32Like(b, f32, 120u << 23))));
  Value subnormal = asFloat(
      b, arith::OrIOp::create(
             b, signBit,
             asBits(b, arith::MulFOp::create(
                           b, arith::UIToFPOp::create(b, f32, magnitude),
                           f32Like(b, f32, 0x1p-9)))));
  Value isSubnormal = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                            magnitude, i32Like(b, f32, 8));
  Value isNaN = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, magnitude,
                                      i32Like(b, f32, 0x7f));
  Value value = arith::SelectOp::create(
      b, isNaN, f32Like(b, f32, std::numeric_limits<float>::quiet_NaN()),
      arith::SelectOp::create(b, isSubnormal, subnormal, normal));
  return arith::MulFOp::create(b, value, splatLike(b, f32, scale));
}

Value PoolCodec::encode(ImplicitLocOpBuilder &b, Value values, Value inverse,
                        const PoolWriteSite &site) const {
  Type like = values.getType();
  int64_t lanes = 0;
  if (auto vector = dyn_cast<VectorType>(like))
    lanes = vector.getNumElements();
  Type stored = withElementType(like, element);
  auto bits = [&] { return randomBits(b, site, lanes); };
  switch (storage) {
  case PoolStorage::F32:
    return values;
  case PoolStorage::BF16: {
    Value nearest = arith::TruncFOp::create(b, stored, values);
    if (!stochastic)
      return nearest;
    // bf16 is f32 without its low 16 bits: away from zero iff
    // (bits >> 16) < low 16 bits, the decision u < frac at 2^-16 grain.
    Value v = asBits(b, values);
    Value low = arith::AndIOp::create(b, v, i32Like(b, like, 0xffff));
    Value up = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ult,
        arith::ShRUIOp::create(b, bits(), i32Like(b, like, 16)), low);
    Value rounded = arith::AddIOp::create(
        b, arith::AndIOp::create(b, v, i32Like(b, like, 0xffff0000u)),
        arith::SelectOp::create(b, up, i32Like(b, like, 0x10000),
                                i32Like(b, like, 0)));
    Value isNaN =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, values, values);
    return arith::SelectOp::create(
        b, isNaN, nearest,
        arith::TruncFOp::create(b, stored, asFloat(b, rounded)));
  }
  case PoolStorage::F16: {
    if (!stochastic)
      return arith::TruncFOp::create(b, stored, values);
    Value magnitude = stochasticOnFloatGrid(b, magnitudeOf(b, values), bits(),
                                            /*mantissa=*/10,
                                            /*minExponent=*/-14);
    return arith::TruncFOp::create(b, stored, withSignOf(b, magnitude, values));
  }
  case PoolStorage::I8:
  case PoolStorage::F8E4M3FN:
    break;
  }
  return encodeScaled(b, scaledFinite(b, values, inverse), site,
                      /*withinQmax=*/false);
}

Value PoolCodec::encodeInRange(ImplicitLocOpBuilder &b, Value values,
                               Value inverse, const PoolWriteSite &site) const {
  if (!scaled())
    return encode(b, values, inverse, site);
  Value p =
      arith::MulFOp::create(b, values, splatLike(b, values.getType(), inverse));
  return encodeScaled(b, p, site, /*withinQmax=*/true);
}

Value PoolCodec::zeroCodes(ImplicitLocOpBuilder &b, Type like) const {
  Type stored = withElementType(like, element);
  if (isa<FloatType>(element))
    return constantOfShape(b, stored, b.getFloatAttr(element, 0.0));
  return constantOfShape(b, stored, b.getIntegerAttr(element, 0));
}

Value PoolCodec::encodeScaled(ImplicitLocOpBuilder &b, Value p,
                              const PoolWriteSite &site,
                              bool withinQmax) const {
  Type like = p.getType();
  int64_t lanes = 0;
  if (auto vector = dyn_cast<VectorType>(like))
    lanes = vector.getNumElements();
  Type stored = withElementType(like, element);
  Type i32 = withElementType(like, b.getI32Type());
  if (storage == PoolStorage::I8) {
    if (withinQmax && !stochastic) {
      // |p| < 127.5 rounds to at most 127: the rounding addition of
      // roundToEvenInteger leaves magic + round(p) in a binade of spacing
      // 1, whose bits are magic's plus round(p).
      Value sum = arith::AddFOp::create(b, p, f32Like(b, like, 12582912.0));
      Value code = arith::SubIOp::create(b, asBits(b, sum),
                                         i32Like(b, like, 0x4B400000u));
      return arith::TruncIOp::create(b, stored, code);
    }
    // |p| <= Qmax up to the rounding of r * inv, so rounding first and
    // clamping the integer gives the codes of clamping first.
    Value rounded =
        stochastic ? withSignOf(b,
                                stochasticInteger(b, magnitudeOf(b, p),
                                                  randomBits(b, site, lanes)),
                                p)
                   : roundToEvenInteger(b, p);
    Value code = arith::MinSIOp::create(
        b,
        arith::MaxSIOp::create(b, arith::FPToSIOp::create(b, i32, rounded),
                               i32Like(b, like, static_cast<uint32_t>(-127))),
        i32Like(b, like, 127));
    return arith::TruncIOp::create(b, stored, code);
  }
  // f8E4M3FN: saturate at 448, round on the grid of |p|'s binade (spacing
  // 2^(e - 3), e >= -6), then assemble the code from the exact result.
  // p is finite here: the smaller magnitude by its bits.
  Value a =
      asFloat(b, arith::MinUIOp::create(b, asBits(b, magnitudeOf(b, p)),
                                        asBits(b, f32Like(b, like, 448.0))));
  Value code;
  if (stochastic) {
    Value magnitude = stochasticOnFloatGrid(b, a, randomBits(b, site, lanes),
                                            /*mantissa=*/3, /*minExponent=*/-6);
    Value isSubnormal = arith::CmpFOp::create(
        b, arith::CmpFPredicate::OLT, magnitude, f32Like(b, like, 0x1p-6));
    Value subnormalCode = arith::FPToUIOp::create(
        b, i32, arith::MulFOp::create(b, magnitude, f32Like(b, like, 512.0)));
    // A normal f32 E.mmm... is the code (E - 120).mmm after a 20-bit shift.
    Value normalCode = arith::SubIOp::create(
        b,
        arith::ShRUIOp::create(b, asBits(b, magnitude), i32Like(b, like, 20)),
        i32Like(b, like, 120u << 3));
    code = arith::SelectOp::create(b, isSubnormal, subnormalCode, normalCode);
  } else {
    // To nearest, ties to even, on a's bits. Below 2^-6 the grid is
    // 2^-9: round(a * 512) by the 1.5 * 2^23 addition (8 is the smallest
    // normal's code). Above, the code is (E - 120).mmm of a's bits rounded
    // at bit 20: adding 2^19 - 1 and bit 20 rounds ties to even, a carry
    // moves into the exponent as the next binade's code, and a <= 448
    // never reaches the NaN code.
    Value bits = asBits(b, a);
    Value sum = arith::AddFOp::create(
        b, arith::MulFOp::create(b, a, f32Like(b, like, 512.0)),
        f32Like(b, like, 12582912.0));
    Value subnormalCode =
        arith::SubIOp::create(b, asBits(b, sum), i32Like(b, like, 0x4B400000u));
    Value evenBit = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, bits, i32Like(b, like, 20)),
        i32Like(b, like, 1));
    Value rounded = arith::AddIOp::create(
        b, arith::AddIOp::create(b, bits, i32Like(b, like, 0x7FFFFu)), evenBit);
    Value normalCode = arith::SubIOp::create(
        b, arith::ShRUIOp::create(b, rounded, i32Like(b, like, 20)),
        i32Like(b, like, 120u << 3));
    Value isSubnormal = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ult, bits, i32Like(b, like, 0x3C800000u));
    code = arith::SelectOp::create(b, isSubnormal, subnormalCode, normalCode);
  }
  Value sign = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, asBits(b, p), i32Like(b, like, 24)),
      i32Like(b, like, 0x80));
  code = arith::OrIOp::create(b, code, sign);
  return arith::BitcastOp::create(
      b, stored,
      arith::TruncIOp::create(b, withElementType(like, b.getI8Type()), code));
}

Value PoolCodec::loadScale(ImplicitLocOpBuilder &b, Value slot, Value head,
                           Value p) const {
  return memref::LoadOp::create(b, scales, ValueRange{slot, head, p});
}

void PoolCodec::storeScale(ImplicitLocOpBuilder &b, Value scale, Value slot,
                           Value head, Value p) const {
  memref::StoreOp::create(b, scale, scales, ValueRange{slot, head, p});
}

Value PoolCodec::absMax(ImplicitLocOpBuilder &b, Value acc,
                        Value values) const {
  Value magnitude = magnitudeOf(b, values);
  if (acc.getType() != magnitude.getType())
    magnitude = rowMaximum(b, magnitude);
  return largerMagnitude(b, acc, magnitude);
}

Value PoolCodec::rowMaximum(ImplicitLocOpBuilder &b, Value magnitudes) const {
  return asFloat(b, vector::ReductionOp::create(b, vector::CombiningKind::MAXUI,
                                                asBits(b, magnitudes)));
}

Value PoolCodec::combineAbsMax(ImplicitLocOpBuilder &b, Value lhs,
                               Value rhs) const {
  return largerMagnitude(b, lhs, rhs);
}

PoolCodec::RowScale PoolCodec::rowScale(ImplicitLocOpBuilder &b,
                                        Value maxAbs) const {
  Type f32 = maxAbs.getType();
  Value qmaxValue = f32Like(b, f32, qmax());
  Value zero = f32Like(b, f32, 0.0);
  Value finite = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, maxAbs,
      f32Like(b, f32, std::numeric_limits<float>::infinity()));
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, maxAbs, zero);
  RowScale row;
  row.scale = arith::SelectOp::create(
      b, finite, arith::DivFOp::create(b, maxAbs, qmaxValue),
      f32Like(b, f32, std::numeric_limits<float>::quiet_NaN()));
  row.inverse = arith::SelectOp::create(
      b, arith::AndIOp::create(b, finite, positive),
      arith::DivFOp::create(b, qmaxValue, maxAbs), zero);
  // m below Qmax / FLT_MAX (about 4e-37) leaves an infinite inverse.
  row.inRange = arith::AndIOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, row.inverse, zero),
      arith::CmpFOp::create(
          b, arith::CmpFPredicate::OLT, row.inverse,
          f32Like(b, f32, std::numeric_limits<float>::infinity())));
  return row;
}

Value PoolCodec::randomBits(ImplicitLocOpBuilder &b, const PoolWriteSite &site,
                            int64_t lanes) const {
  Type i32 = b.getI32Type();
  auto iota = [&](VectorType type) -> Value {
    SmallVector<int32_t> values;
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      values.push_back(static_cast<int32_t>(i));
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(type, ArrayRef<int32_t>(values)));
  };
  // Counter: (n / 4, h * P + p, slot, tokens held), word n mod 4 of the
  // call; key: the seed's two halves. Four columns share a call.
  Value headDimValue = memref::DimOp::create(b, pool, 2);
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, site.head, headDimValue), site.p);
  Value key = memref::LoadOp::create(b, seed, ValueRange{});
  auto philox = [&](Value c0, Type like) {
    auto word = [&](Value index) {
      return splatLike(b, like, arith::IndexCastUIOp::create(b, i32, index));
    };
    Value c1 = word(row), c2 = word(site.slot), c3 = word(site.tokensHeld);
    Value k0 = arith::TruncIOp::create(b, i32, key);
    Value k1 = arith::TruncIOp::create(
        b, i32,
        arith::ShRUIOp::create(
            b, key, arith::ConstantOp::create(b, b.getI64IntegerAttr(32))));
    for (int round = 0; round < 10; ++round) {
      auto lo0hi0 =
          arith::MulUIExtendedOp::create(b, i32Like(b, like, kPhiloxM0), c0);
      auto lo1hi1 =
          arith::MulUIExtendedOp::create(b, i32Like(b, like, kPhiloxM1), c2);
      Value k0Like = splatLike(b, like, k0), k1Like = splatLike(b, like, k1);
      Value next0 = arith::XOrIOp::create(
          b, arith::XOrIOp::create(b, lo1hi1.getHigh(), c1), k0Like);
      Value next2 = arith::XOrIOp::create(
          b, arith::XOrIOp::create(b, lo0hi0.getHigh(), c3), k1Like);
      c1 = lo1hi1.getLow();
      c3 = lo0hi0.getLow();
      c0 = next0;
      c2 = next2;
      if (round < 9) {
        k0 = arith::AddIOp::create(
            b, k0,
            arith::ConstantOp::create(
                b, b.getI32IntegerAttr(static_cast<int32_t>(kPhiloxW0))));
        k1 = arith::AddIOp::create(
            b, k1,
            arith::ConstantOp::create(
                b, b.getI32IntegerAttr(static_cast<int32_t>(kPhiloxW1))));
      }
    }
    return std::array<Value, 4>{c0, c1, c2, c3};
  };
  Value n = arith::IndexCastUIOp::create(b, i32, site.n);
  Value two = arith::ConstantOp::create(b, b.getI32IntegerAttr(2));
  if (lanes && lanes % 4 == 0) {
    // Whole groups of four columns (the vector starts at a multiple of 4,
    // as every vector store of the lowerings does): lanes / 4 calls, their
    // words interleaved so that lane 4 c + w holds word w of call c.
    auto calls = VectorType::get({lanes / 4}, i32);
    Value first = vector::BroadcastOp::create(
        b, calls, arith::ShRUIOp::create(b, n, two));
    std::array<Value, 4> words =
        philox(arith::AddIOp::create(b, first, iota(calls)), calls);
    auto interleave = [&](Value lhs, Value rhs) -> Value {
      const int64_t width = cast<VectorType>(lhs.getType()).getShape()[0];
      SmallVector<int64_t> pairs;
      for (int64_t i = 0; i < width; ++i) {
        pairs.push_back(i);
        pairs.push_back(width + i);
      }
      return vector::ShuffleOp::create(b, lhs, rhs, pairs);
    };
    // [w0, w1] pairs and [w2, w3] pairs, then pairs of pairs.
    Value low = interleave(words[0], words[1]);
    Value high = interleave(words[2], words[3]);
    SmallVector<int64_t> quads;
    for (int64_t c = 0; c < lanes / 4; ++c)
      for (int64_t i :
           {2 * c, 2 * c + 1, lanes / 2 + 2 * c, lanes / 2 + 2 * c + 1})
        quads.push_back(i);
    return vector::ShuffleOp::create(b, low, high, quads);
  }
  // Any other shape: each lane's own call and word.
  Type like = lanes ? Type(VectorType::get({lanes}, i32)) : i32;
  Value column = splatLike(b, like, n);
  if (lanes)
    column = arith::AddIOp::create(b, column, iota(cast<VectorType>(like)));
  std::array<Value, 4> words =
      philox(arith::ShRUIOp::create(b, column, splatLike(b, like, two)), like);
  Value which = arith::AndIOp::create(b, column, i32Like(b, like, 3));
  auto is = [&](uint32_t w) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, which,
                                 i32Like(b, like, w));
  };
  return arith::SelectOp::create(
      b, is(0), words[0],
      arith::SelectOp::create(
          b, is(1), words[1],
          arith::SelectOp::create(b, is(2), words[2], words[3])));
}
