//===- FloatTest.cpp - f16 and bf16 rounding of the runner ----------------===//
//
// The runner rounds inputs to the model dtype and outputs once from double
// (round to nearest even); these helpers are what makes "rounded once" true
// on the host side, so their ties, overflow, subnormals and NaNs are pinned
// here.
//
//===----------------------------------------------------------------------===//

#include "RunnerTestUtils.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace ssd;

namespace {

float pow2(int e) { return std::ldexp(1.0f, e); }

// bf16 keeps 7 fraction bits: the ulp at 1 is 2^-7.
TEST(BF16, RoundsToNearestEven) {
  EXPECT_EQ(floatToBF16Bits(1.0f + pow2(-8)), 0x3f80) << "tie, to even: 1";
  EXPECT_EQ(floatToBF16Bits(1.0f + 3 * pow2(-8)), 0x3f82)
      << "tie, to even: 1 + 2^-6";
  EXPECT_EQ(floatToBF16Bits(1.0f + pow2(-8) + pow2(-20)), 0x3f81)
      << "above the tie rounds up";
  EXPECT_EQ(floatToBF16Bits(-1.0f), 0xbf80);
}

TEST(BF16, OverflowInfinityAndNaN) {
  EXPECT_EQ(floatToBF16Bits(std::numeric_limits<float>::max()), 0x7f80)
      << "FLT_MAX rounds to +inf";
  EXPECT_EQ(floatToBF16Bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(
      floatToBF16Bits(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload lives only in the low 16 bits must not become inf.
  uint32_t nanBits = 0x7f800001u;
  float nan;
  std::memcpy(&nan, &nanBits, 4);
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(floatToBF16Bits(nan))));
}

TEST(BF16, ToFloat) {
  EXPECT_EQ(bf16BitsToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bf16BitsToFloat(0xc000), -2.0f);
}

// f16 keeps 10 fraction bits: the ulp at 1 is 2^-10.
TEST(F16, RoundsToNearestEven) {
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalfBits(1.0f + pow2(-11)), 0x3c00) << "tie -> 1";
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * pow2(-11)), 0x3c02) << "tie -> even, up";
  EXPECT_EQ(floatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
}

// Largest finite 65504 = 0x7bff; 65520 is the tie with the next binade
// (infinity) and goes to even: inf. 65519 stays finite.
TEST(F16, Overflow) {
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7c00);
  EXPECT_EQ(floatToHalfBits(1e10f), 0x7c00);
}

// Subnormals count units of 2^-24: 2^-25 is the tie between 0 and 1 unit
// (to even: 0); 0.75 unit -> 1; 1.5 units -> 2.
TEST(F16, Subnormals) {
  EXPECT_EQ(floatToHalfBits(pow2(-24)), 0x0001);
  EXPECT_EQ(floatToHalfBits(pow2(-25)), 0x0000);
  EXPECT_EQ(floatToHalfBits(1.5f * pow2(-25)), 0x0001);
  EXPECT_EQ(floatToHalfBits(3 * pow2(-25)), 0x0002);
  EXPECT_EQ(floatToHalfBits(pow2(-14) - pow2(-24)), 0x03ff)
      << "largest subnormal";
  EXPECT_EQ(floatToHalfBits(pow2(-30)), 0x0000);
  EXPECT_EQ(floatToHalfBits(pow2(-14)), 0x0400) << "smallest normal";
}

TEST(F16, NaNAndToFloat) {
  uint16_t h = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(h & 0x7c00, 0x7c00);
  EXPECT_NE(h & 0x3ff, 0);
  EXPECT_EQ(halfBitsToFloat(0x0001), pow2(-24));
  EXPECT_EQ(halfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfBitsToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7e00)));
}

TEST(F16, EveryFiniteHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h)
    if ((h & 0x7c00) != 0x7c00)
      ASSERT_EQ(floatToHalfBits(halfBitsToFloat(uint16_t(h))), h)
          << "0x" << std::hex << h;
}

TEST(ModelDType, RoundingAndNames) {
  EXPECT_EQ(roundToModelDType(0.1f, ModelDType::F32), 0.1f);
  EXPECT_EQ(roundToModelDType(0.1f, ModelDType::F16), 0.0999755859375f);
  EXPECT_EQ(roundToModelDType(1.0f + 3 * pow2(-8), ModelDType::BF16),
            1.0f + pow2(-6));
  ModelDType t;
  EXPECT_TRUE(parseModelDType("bf16", t) && t == ModelDType::BF16);
  EXPECT_TRUE(parseModelDType("f16", t) && t == ModelDType::F16);
  EXPECT_TRUE(parseModelDType("f32", t) && t == ModelDType::F32);
  EXPECT_FALSE(parseModelDType("f64", t));
  EXPECT_STREQ(toString(ModelDType::BF16), "bf16");
}

} // namespace
