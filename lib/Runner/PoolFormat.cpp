//===- PoolFormat.cpp - the pool's storage formats in plain C++ -----------===//
//
// Written from the contract in docs/overview.md, in double where that makes
// a step obviously exact (a power-of-two gap, an integer below 2^24), and
// in float exactly where the contract names an f32 operation (the row
// maximum, the two divisions, the product).
//
//===----------------------------------------------------------------------===//

#include "ssd/Runner/PoolFormat.h"

#include "ssd/Runner/Npy.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace ssd;

std::array<uint32_t, 4> ssd::philox4x32x10(std::array<uint32_t, 4> c,
                                           std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return c;
}

uint32_t ssd::poolRandomBits(int64_t seed, int64_t n, int64_t row, int64_t slot,
                             int64_t tokens) {
  const uint64_t key = uint64_t(seed);
  // Four consecutive columns share a call, one word each.
  const uint32_t column = uint32_t(n);
  return philox4x32x10(
      {column / 4, uint32_t(row), uint32_t(slot), uint32_t(tokens)},
      {uint32_t(key), uint32_t(key >> 32)})[column % 4];
}

float ssd::poolQmax(PoolDType t) {
  return t == PoolDType::F8E4M3FN ? 448.0f : 127.0f;
}

float ssd::decodeF8E4M3FN(uint8_t code) {
  const int magnitude = code & 0x7f;
  if (magnitude == 0x7f)
    return std::numeric_limits<float>::quiet_NaN();
  const int exponent = magnitude >> 3, mantissa = magnitude & 7;
  // Exponent 0 holds the subnormals mantissa * 2^-9; bias 7.
  const float v = exponent == 0
                      ? std::ldexp(float(mantissa), -9)
                      : std::ldexp(float(8 + mantissa), exponent - 10);
  return code & 0x80 ? -v : v;
}

float ssd::decodePoolCode(PoolDType t, uint8_t code, float scale) {
  const float value =
      t == PoolDType::I8 ? float(int8_t(code)) : decodeF8E4M3FN(code);
  return value * scale;
}

namespace {

/// The stochastic decision: up when u = (bits >> 8) * 2^-24 < frac.
bool roundsUp(double frac, uint32_t bits) {
  return double(bits >> 8) * 0x1p-24 < frac;
}

/// a >= 0 finite, rounded onto the grid of a binary float with `mantissa`
/// stored bits whose smallest normal exponent is `minExponent` (below it the
/// subnormal gap): to nearest even, or stochastically.
double roundOnFloatGrid(double a, int mantissa, int minExponent,
                        bool stochastic, uint32_t bits) {
  int e = 0;
  std::frexp(a, &e); // a = f * 2^e with f in [0.5, 1): a's exponent is e - 1
  const int exponent = a == 0 ? minExponent : std::max(e - 1, minExponent);
  const double gap = std::ldexp(1.0, exponent - mantissa);
  const double t = a / gap; // exact: a power of two
  const double low = std::floor(t);
  double q;
  if (stochastic)
    q = low + (roundsUp(t - low, bits) ? 1 : 0);
  else
    q = std::nearbyint(t); // the default mode: ties to even
  return q * gap;
}

uint8_t f8E4M3FNBits(double magnitude, bool negative) {
  unsigned code;
  if (magnitude < 0x1p-6) {
    code = unsigned(magnitude * 512.0);
  } else {
    int e = 0;
    double f = std::frexp(magnitude, &e); // magnitude = f * 2^e
    code = unsigned((e - 1 + 7) << 3) | unsigned((2 * f - 1) * 8);
  }
  return uint8_t(code | (negative ? 0x80u : 0u));
}

} // namespace

float ssd::roundPoolValue(PoolDType t, float v, bool stochastic,
                          uint32_t bits) {
  switch (t) {
  case PoolDType::BF16: {
    if (!stochastic || std::isnan(v))
      return bf16BitsToFloat(floatToBF16Bits(v));
    // bf16 is f32 without its low 16 bits: u < frac reads
    // (bits >> 16) < the low 16 bits.
    uint32_t u;
    std::memcpy(&u, &v, 4);
    uint32_t rounded =
        (u & 0xffff0000u) + ((bits >> 16) < (u & 0xffffu) ? 0x10000u : 0u);
    float r;
    std::memcpy(&r, &rounded, 4);
    return r;
  }
  case PoolDType::F16: {
    if (!stochastic || !(std::fabs(v) < INFINITY))
      return halfBitsToFloat(floatToHalfBits(v));
    double magnitude = roundOnFloatGrid(std::fabs(double(v)), 10, -14,
                                        /*stochastic=*/true, bits);
    // Exact in f32 (11 significant bits) unless past f32's range; the
    // conversion to f16 then only overflows to infinity.
    float r = std::copysign(float(magnitude), v);
    return halfBitsToFloat(floatToHalfBits(r));
  }
  default:
    return v;
  }
}

void ssd::encodePoolRow(PoolDType t, const float *r, int64_t N, bool stochastic,
                        const std::function<uint32_t(int64_t)> &bits,
                        uint8_t *codes, float &scale) {
  float m = 0.0f;
  for (int64_t n = 0; n < N; ++n) {
    const float a = std::fabs(r[n]);
    if (std::isnan(a)) {
      m = a;
      break;
    }
    m = std::max(m, a);
  }
  const float qmax = poolQmax(t);
  if (m == 0.0f || !(m < INFINITY)) {
    scale = m == 0.0f ? 0.0f : std::numeric_limits<float>::quiet_NaN();
    std::memset(codes, 0, size_t(N));
    return;
  }
  scale = m / qmax;
  const float inverse = qmax / m;
  for (int64_t n = 0; n < N; ++n) {
    float p = r[n] * inverse;
    // Only a row whose maximum is so small that Qmax / m overflows gets a
    // non-finite product; it stores 0.
    if (!(std::fabs(p) < INFINITY))
      p = 0.0f;
    const uint32_t word = stochastic ? bits(n) : 0;
    if (t == PoolDType::I8) {
      const double a = std::min(std::fabs(double(p)), 127.0);
      double q;
      if (stochastic)
        q = std::floor(a) + (roundsUp(a - std::floor(a), word) ? 1 : 0);
      else
        q = std::nearbyint(a);
      codes[n] = uint8_t(int8_t(std::signbit(p) ? -q : q));
    } else {
      const double a = std::min(std::fabs(double(p)), 448.0);
      const double magnitude = roundOnFloatGrid(a, 3, -6, stochastic, word);
      codes[n] = f8E4M3FNBits(std::min(magnitude, 448.0), std::signbit(p));
    }
  }
}
