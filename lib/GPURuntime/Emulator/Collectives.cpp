//===- Collectives.cpp - what warp collectives and PTX math compute -------===//

#include "Collectives.h"

#include <cmath>
#include <cstring>

using namespace ssd::emulator;

MmaCounts ssd::emulator::mmaCounts(MmaKind kind) {
  switch (kind) {
  case MmaKind::M16N8K16BF16:
    return {4, 2, 16, true};
  case MmaKind::M16N8K16F16:
    return {4, 2, 16, false};
  case MmaKind::M16N8K8BF16:
    return {2, 1, 8, true};
  case MmaKind::M16N8K8F16:
    return {2, 1, 8, false};
  }
  return {0, 0, 0, true};
}

float ssd::emulator::bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

float ssd::emulator::halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits >> 15) << 31;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    // Subnormal f16: normalise into f32.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    out = sign | (uint32_t(113 - shift) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof(f));
  return f;
}

void ssd::emulator::mmaSync(MmaKind kind, MmaFragments lanes[kWarpSize]) {
  const MmaCounts counts = mmaCounts(kind);
  auto element = [&](uint32_t reg, unsigned half) {
    uint16_t bits = half ? uint16_t(reg >> 16) : uint16_t(reg & 0xffff);
    return counts.bf16 ? bf16ToFloat(bits) : halfToFloat(bits);
  };
  float a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, t = lane % 4;
    const MmaFragments &f = lanes[lane];
    for (unsigned r = 0; r < counts.a; ++r)
      for (unsigned h = 0; h < 2; ++h)
        a[g + 8 * (r % 2)][2 * t + h + 8 * (r / 2)] = element(f.a[r], h);
    for (unsigned r = 0; r < counts.b; ++r)
      for (unsigned h = 0; h < 2; ++h)
        b[2 * t + h + 8 * r][g] = element(f.b[r], h);
    for (unsigned i = 0; i < 4; ++i)
      c[g + 8 * (i / 2)][2 * t + i % 2] = f.c[i];
  }
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, t = lane % 4;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = g + 8 * (i / 2), column = 2 * t + i % 2;
      float sum = c[row][column];
      for (unsigned k = 0; k < counts.k; ++k)
        sum += a[row][k] * b[k][column];
      lanes[lane].d[i] = sum;
    }
  }
}

ShuffleSource ssd::emulator::shuffleSource(ShuffleMode mode, unsigned lane,
                                           uint32_t b, uint32_t c) {
  const int bval = int(b & 0x1f), cval = int(c & 0x1f);
  const int segmask = int((c >> 8) & 0x1f);
  const int self = int(lane);
  const int maxLane = (self & segmask) | (cval & ~segmask);
  const int minLane = self & segmask;
  int j = self;
  bool inRange = false;
  switch (mode) {
  case ShuffleMode::Up:
    j = self - bval;
    inRange = j >= maxLane;
    break;
  case ShuffleMode::Down:
    j = self + bval;
    inRange = j <= maxLane;
    break;
  case ShuffleMode::Bfly:
    j = self ^ bval;
    inRange = j <= maxLane;
    break;
  case ShuffleMode::Idx:
    j = minLane | (bval & ~segmask);
    inRange = j <= maxLane;
    break;
  }
  if (!inRange)
    j = self;
  return {unsigned(j), inRange};
}

namespace {

bool isSubnormal(double x) {
  return x != 0 && std::fabs(x) < double(std::numeric_limits<float>::min());
}

/// x with a subnormal single-precision value flushed to zero of its sign.
float flush(float x) { return isSubnormal(x) ? std::copysign(0.0f, x) : x; }

double exactF32(MathOp op, double x) {
  switch (op) {
  case MathOp::Ex2Approx:
  case MathOp::Ex2ApproxFtz:
  case MathOp::Exp2:
    return std::exp2(x);
  case MathOp::Lg2Approx:
  case MathOp::Lg2ApproxFtz:
  case MathOp::Log2:
    return std::log2(x);
  case MathOp::RcpApprox:
  case MathOp::RcpApproxFtz:
    return 1.0 / x;
  case MathOp::SqrtApprox:
  case MathOp::SqrtApproxFtz:
  case MathOp::Sqrt:
    return std::sqrt(x);
  case MathOp::RsqrtApprox:
  case MathOp::RsqrtApproxFtz:
  case MathOp::Rsqrt:
    return 1.0 / std::sqrt(x);
  case MathOp::SinApprox:
  case MathOp::SinApproxFtz:
  case MathOp::Sin:
    return std::sin(x);
  case MathOp::CosApprox:
  case MathOp::CosApproxFtz:
  case MathOp::Cos:
    return std::cos(x);
  case MathOp::TanhApprox:
  case MathOp::Tanh:
    return std::tanh(x);
  case MathOp::Exp:
    return std::exp(x);
  case MathOp::Expm1:
    return std::expm1(x);
  case MathOp::Log:
    return std::log(x);
  case MathOp::Log1p:
    return std::log1p(x);
  case MathOp::Erf:
    return std::erf(x);
  case MathOp::Fabs:
    return std::fabs(x);
  case MathOp::Floor:
    return std::floor(x);
  case MathOp::Ceil:
    return std::ceil(x);
  case MathOp::Trunc:
    return std::trunc(x);
  case MathOp::Round:
    return std::round(x);
  }
  return std::nan("");
}

bool flushes(MathOp op) {
  switch (op) {
  case MathOp::Ex2ApproxFtz:
  case MathOp::Lg2ApproxFtz:
  case MathOp::RcpApproxFtz:
  case MathOp::SqrtApproxFtz:
  case MathOp::RsqrtApproxFtz:
  case MathOp::SinApproxFtz:
  case MathOp::CosApproxFtz:
    return true;
  default:
    return false;
  }
}

} // namespace

float ssd::emulator::mathF32(MathOp op, float x) {
  const bool ftz = flushes(op);
  if (ftz)
    x = flush(x);
  float result = float(exactF32(op, double(x)));
  return ftz ? flush(result) : result;
}

double ssd::emulator::mathF64(MathOp op, double x) { return exactF32(op, x); }
