//===- PoolFormatTest.cpp - the host's pool formats against known answers -===//
//
// lib/Runner/PoolFormat.cpp is the reference's reading of the contract in
// docs/overview.md ("Compressed state pools"); every compiled pool write is
// compared with it. Here it meets answers computed by hand (codes, scales,
// stochastic decisions at chosen bits) and Random123's known-answer vectors
// for Philox4x32-10.
//
//===----------------------------------------------------------------------===//

#include "RunnerTestUtils.h"

#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/PoolFormat.h"
#include "ssd/Runner/Reference.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace ssd;
using namespace ssd::testing;

namespace {

using Words = std::array<uint32_t, 4>;

// Random123's kat_vectors for philox4x32_10.
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32x10({0, 0, 0, 0}, {0, 0}),
            (Words{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32x10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (Words{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32x10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (Words{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// The counter is (n div 4, h * P + p, slot, tokens) mod 2^32, the word
// n mod 4, and the key the seed's low and high halves (n taken mod 2^32
// first). Expected words from utils/ssdgen.py's Philox, whose known
// answers are those above.
TEST(Philox, CounterAndKeyOfAWrite) {
  EXPECT_EQ(poolRandomBits(int64_t(0x299f31d0a4093822), 0x243f6a88, 0x85a308d3,
                           0x13198a2e, 0x03707344),
            0x4a1422e3u);
  EXPECT_EQ(poolRandomBits(int64_t(0x299f31d0a4093822), 0x243f6a89, 0x85a308d3,
                           0x13198a2e, 0x03707344),
            0xeeafb11fu)
      << "the next column takes the next word of the same call";
  EXPECT_EQ(poolRandomBits(int64_t(0x299f31d0a4093822), 0x243f6a8b, 0x85a308d3,
                           0x13198a2e, 0x03707344),
            0xe2b57b44u);
  EXPECT_EQ(poolRandomBits(-1, -1, -1, -1, -1), 0xb34a0da7u);
  EXPECT_EQ(poolRandomBits(0, int64_t(1) << 32, int64_t(1) << 32, 0, 0),
            0x6627e8d5u)
      << "each counter word is taken mod 2^32";
}

float f32(double v) { return float(v); }

struct Row {
  std::vector<uint8_t> codes;
  float scale = -1;
};

Row encode(PoolDType t, const std::vector<float> &r, bool stochastic = false,
           uint32_t bits = 0) {
  Row row;
  row.codes.assign(r.size(), 0xAA);
  encodePoolRow(
      t, r.data(), int64_t(r.size()), stochastic, [&](int64_t) { return bits; },
      row.codes.data(), row.scale);
  return row;
}

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v)
    out.push_back(uint8_t(b));
  return out;
}

// m = 127: scale 1, inverse 1, the codes are the values rounded, ties to
// even, and the sign of zero is lost in an integer.
TEST(PoolFormat, I8NearestTiesToEven) {
  Row row = encode(PoolDType::I8,
                   {127, 63.5f, 62.5f, -0.5f, 1.5f, -2.5f, -127, 0.49f});
  EXPECT_EQ(row.scale, 1.0f);
  EXPECT_EQ(row.codes, bytes({127, 64, 62, 0, 2, 0xFE, 0x81, 0}));
}

// m = 3: scale = f32(3 / 127), inverse = f32(127 / 3) = 42.33333206...;
// 1 * inverse = 42.33 -> 42; -1.5 * inverse = -63.49999809 rounds to -63.5
// in f32, a tie, -> -64 (the product is an f32 product).
TEST(PoolFormat, I8ScaleIsTwoF32Divisions) {
  Row row = encode(PoolDType::I8, {3, 1, -1.5f});
  EXPECT_EQ(row.scale, f32(3.0) / f32(127.0));
  EXPECT_EQ(row.codes, bytes({127, 42, 0xC0}));
  EXPECT_EQ(decodePoolCode(PoolDType::I8, 0xC0, row.scale), -64.0f * row.scale);
}

// A row whose maximum times Qmax / m rounds above Qmax in f32 still
// stores +-Qmax, even when the random bits would round every value up.
TEST(PoolFormat, Saturation) {
  for (PoolDType t : {PoolDType::I8, PoolDType::F8E4M3FN}) {
    const float qmax = poolQmax(t);
    float m = 1.0f;
    // Found by plain f32 arithmetic: some m has m * (Qmax / m) > Qmax.
    for (int i = 0; i < 100000 && m * (qmax / m) <= qmax; ++i)
      m = std::nextafter(m, 2.0f);
    ASSERT_GT(m * (qmax / m), qmax);
    const uint8_t top = t == PoolDType::I8 ? 127 : 0x7e;
    const uint8_t bottom = t == PoolDType::I8 ? 0x81 : 0xfe;
    for (bool stochastic : {false, true}) {
      Row row = encode(t, {m, -m}, stochastic, /*bits=*/0);
      EXPECT_EQ(row.codes, bytes({top, bottom}))
          << "pool " << toString(t) << " stochastic " << stochastic;
    }
  }
}

TEST(PoolFormat, ZeroRow) {
  for (PoolDType t : {PoolDType::I8, PoolDType::F8E4M3FN}) {
    Row row = encode(t, {0.0f, -0.0f, 0.0f});
    EXPECT_EQ(row.scale, 0.0f);
    EXPECT_FALSE(std::signbit(row.scale));
    EXPECT_EQ(row.codes, bytes({0, 0, 0})) << toString(t);
  }
}

// A NaN or an infinity anywhere: scale NaN, every code 0.
TEST(PoolFormat, NonFiniteRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (PoolDType t : {PoolDType::I8, PoolDType::F8E4M3FN})
    for (const std::vector<float> &r :
         {std::vector<float>{1, nan, 2}, std::vector<float>{nan, 5, 2},
          std::vector<float>{-inf, 1, 2}, std::vector<float>{1, 2, inf}}) {
      Row row = encode(t, r);
      EXPECT_TRUE(std::isnan(row.scale)) << toString(t);
      EXPECT_EQ(row.codes, bytes({0, 0, 0})) << toString(t);
    }
}

// m = 448: scale 1, the codes are the f8E4M3FN encodings of the values.
// Subnormals are k * 2^-9 (k < 8); 2^-6 is the smallest normal (0x08).
TEST(PoolFormat, F8E4M3FNCodes) {
  const float s = 0x1p-9f;
  Row row = encode(PoolDType::F8E4M3FN,
                   {448, -448, 1.0f, 1.0625f, 1.1875f, 2 * s, 3 * s, s / 2,
                    -s / 2, 1.5f * s, 7.5f * s, 0x1p-6f, 0x1p-12f, 240});
  EXPECT_EQ(row.scale, 1.0f);
  EXPECT_EQ(row.codes, bytes({0x7e, 0xfe, 0x38,
                              0x38, // 1 + 1/16: tie, to the even mantissa 0
                              0x3a, // 1 + 3/16: tie, to the even mantissa 2
                              0x02, 0x03, //
                              0x00, // half the smallest subnormal: tie, to 0
                              0x80, // the same negative: -0 keeps its sign
                              0x02, // 1.5 subnormal gaps: tie, to 2
                              0x08, // 7.5 gaps: tie, to 8 = the smallest normal
                              0x08, 0x00, // 2^-12 is below half a gap
                              0x77}));    // 240 = 1.875 * 2^7
}

TEST(PoolFormat, F8E4M3FNDecode) {
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0x7f)));
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0xff)));
  EXPECT_EQ(decodeF8E4M3FN(0x01), 0x1p-9f);
  EXPECT_EQ(decodeF8E4M3FN(0x07), 7 * 0x1p-9f);
  EXPECT_EQ(decodeF8E4M3FN(0x08), 0x1p-6f);
  EXPECT_EQ(decodeF8E4M3FN(0x7e), 448.0f);
  EXPECT_EQ(decodeF8E4M3FN(0xfe), -448.0f);
  EXPECT_EQ(decodeF8E4M3FN(0x3a), 1.25f);
  EXPECT_TRUE(std::signbit(decodeF8E4M3FN(0x80)));
  EXPECT_EQ(decodeF8E4M3FN(0x80), 0.0f);
  // Every code that is a number re-encodes to itself (scale 1).
  for (int c = 0; c < 256; ++c) {
    float v = decodeF8E4M3FN(uint8_t(c));
    if (std::isnan(v))
      continue;
    Row row = encode(PoolDType::F8E4M3FN, {448, v});
    EXPECT_EQ(row.codes[1], uint8_t(c)) << "code " << c;
  }
}

// u = (bits >> 8) * 2^-24 rounds away from zero when u < frac. At frac =
// 0.25 the last bits rounding up are 0x3FFFFF00 (u = 0.25 - 2^-24).
constexpr uint32_t kUp = 0x3FFFFF00u, kDown = 0x40000000u;

TEST(PoolFormat, StochasticI8) {
  EXPECT_EQ(encode(PoolDType::I8, {127, 10.25f, -10.25f}, true, kUp).codes,
            bytes({127, 11, uint8_t(-11)}));
  EXPECT_EQ(encode(PoolDType::I8, {127, 10.25f, -10.25f}, true, kDown).codes,
            bytes({127, 10, uint8_t(-10)}));
  // An integer never moves, whatever the bits.
  EXPECT_EQ(encode(PoolDType::I8, {127, 3}, true, 0).codes, bytes({127, 3}));
}

TEST(PoolFormat, StochasticF8E4M3FN) {
  // 1 + 1/32 lies a quarter of the gap 1/8 above 1.
  EXPECT_EQ(
      encode(PoolDType::F8E4M3FN, {448, 1.03125f, -1.03125f}, true, kUp).codes,
      bytes({0x7e, 0x39, 0xb9}));
  EXPECT_EQ(encode(PoolDType::F8E4M3FN, {448, 1.03125f, -1.03125f}, true, kDown)
                .codes,
            bytes({0x7e, 0x38, 0xb8}));
  // Below the smallest normal the gap is the subnormal one, 2^-9.
  EXPECT_EQ(
      encode(PoolDType::F8E4M3FN, {448, 2.25f * 0x1p-9f}, true, kUp).codes,
      bytes({0x7e, 0x03}));
  EXPECT_EQ(
      encode(PoolDType::F8E4M3FN, {448, 2.25f * 0x1p-9f}, true, kDown).codes,
      bytes({0x7e, 0x02}));
}

TEST(PoolFormat, StochasticF16) {
  // 1 + 2^-12: a quarter of f16's gap 2^-10 above 1.
  const float v = 1.0f + 0x1p-12f;
  EXPECT_EQ(roundPoolValue(PoolDType::F16, v, true, kUp), 1.0f + 0x1p-10f);
  EXPECT_EQ(roundPoolValue(PoolDType::F16, v, true, kDown), 1.0f);
  EXPECT_EQ(roundPoolValue(PoolDType::F16, -v, true, kUp), -1.0f - 0x1p-10f);
  // Half the subnormal gap 2^-24: up below u = 1/2.
  EXPECT_EQ(roundPoolValue(PoolDType::F16, 0x1p-25f, true, 0x7FFFFF00u),
            0x1p-24f);
  EXPECT_EQ(roundPoolValue(PoolDType::F16, 0x1p-25f, true, 0x80000000u), 0.0f);
  // Nearest even, and overflow to infinity.
  EXPECT_EQ(roundPoolValue(PoolDType::F16, 1.0f + 0x1p-11f, false, 0), 1.0f);
  EXPECT_EQ(roundPoolValue(PoolDType::F16, 1.0f + 3 * 0x1p-11f, false, 0),
            1.0f + 0x1p-9f);
  EXPECT_TRUE(std::isinf(roundPoolValue(PoolDType::F16, 70000.0f, false, 0)));
  EXPECT_TRUE(std::isinf(roundPoolValue(PoolDType::F16, 70000.0f, true, 0)));
}

TEST(PoolFormat, StochasticBF16) {
  // 1 + 2^-9 is f32 0x3F804000: its low 16 bits are 0x4000.
  const float v = 1.0f + 0x1p-9f;
  EXPECT_EQ(roundPoolValue(PoolDType::BF16, v, true, 0x3FFF0000u),
            1.0f + 0x1p-7f);
  EXPECT_EQ(roundPoolValue(PoolDType::BF16, v, true, 0x4000FFFFu), 1.0f);
  EXPECT_TRUE(std::isnan(roundPoolValue(
      PoolDType::BF16, std::numeric_limits<float>::quiet_NaN(), true, 0)));
}

// The reference stores the final state through the contract: tinyProblem's
// slot 1 ends at 7 (up to the rounding of ln 2), an i8 row of one value
// (code 127, scale 7/127); slot 0 keeps its codes and scale.
TEST(PoolFormat, ReferenceWritesCodesAndScales) {
  ScanProblem p = tinyProblem();
  p.poolDType = PoolDType::I8;
  p.poolCodes = {0x81, 5};
  p.poolScales = {f32(9.0) / f32(127.0), 1.0f};
  p.pool = {decodePoolCode(PoolDType::I8, 0x81, p.poolScales[0]), 5.0f};
  std::vector<double> y;
  PoolContents pool;
  std::string error;
  ASSERT_TRUE(referenceScan(p, y, pool, &error)) << error;
  EXPECT_EQ(pool.codes, bytes({0x81, 127}));
  EXPECT_EQ(pool.scales[0], p.poolScales[0]);
  EXPECT_NEAR(pool.scales[1], 7.0 / 127.0, 1e-6);
}

// A stochastic write draws the bits of its own slot and token count:
// o + len for a final state.
TEST(PoolFormat, ReferenceCounterOfAFinalState) {
  ScanProblem p = tinyProblem();
  p.poolDType = PoolDType::BF16;
  p.poolRounding = PoolRounding::Stochastic;
  p.checkpointOffsetsPresent = true;
  p.checkpointOffsets = {5};
  p.x = {2, 3.3f}; // a final state 7.6 with low bits for bf16 to round
  std::vector<double> y, exact;
  std::string error;
  {
    ScanProblem f32Pool = p;
    f32Pool.poolDType = PoolDType::F32;
    f32Pool.poolRounding = PoolRounding::NearestEven;
    ASSERT_TRUE(referenceScan(f32Pool, y, exact, &error)) << error;
  }
  const float state = float(exact[1]);
  int differing = 0;
  for (int64_t seed = 0; seed < 64; ++seed) {
    p.roundingSeed = seed;
    PoolContents pool;
    ASSERT_TRUE(referenceScan(p, y, pool, &error)) << error;
    const float expected = roundPoolValue(PoolDType::BF16, state, true,
                                          poolRandomBits(seed, 0, 0, 1, 5 + 2));
    EXPECT_EQ(pool.values[1], expected) << "seed " << seed;
    differing += expected != roundPoolValue(PoolDType::BF16, state, true,
                                            poolRandomBits(seed, 0, 0, 1, 2));
  }
  EXPECT_GT(differing, 0) << "the token count must reach the counter";
}

} // namespace

namespace {

std::vector<std::string> names(const std::vector<OperandLayout> &layouts) {
  std::vector<std::string> out;
  for (const OperandLayout &l : layouts)
    out.push_back(l.name + ":" + l.elementType);
  return out;
}

// The compiled function's operands: the scales right after the pool, the
// seed (0-d) after token_parents, both only when the pool needs them; an
// 8-bit pool's call writes its scales too.
TEST(PoolOperands, Layout) {
  ScanProblem p = tinyProblem();
  EXPECT_EQ(names(operandLayouts(p)),
            (std::vector<std::string>{
                "x:f32", "dt:f32", "A:f32", "B:f32", "C:f32", "ssm_pool:f32",
                "query_start_loc:i32", "cache_indices:i32", "outs:f32"}));
  const std::string f32Key = signatureKey(p);
  EXPECT_EQ(f32Key.find("pool="), std::string::npos)
      << "an f32 pool's key stays as it was";

  p.poolDType = PoolDType::I8;
  p.poolCodes = {1, 2};
  p.poolScales = {0.5f, 0.25f};
  p.poolRounding = PoolRounding::Stochastic;
  p.roundingSeed = -2;
  p.tokenParentsPresent = true;
  p.tokenParents = {-1, 0};
  std::vector<OperandLayout> layouts = operandLayouts(p);
  EXPECT_EQ(
      names(layouts),
      (std::vector<std::string>{
          "x:f32", "dt:f32", "A:f32", "B:f32", "C:f32", "ssm_pool:i8",
          "ssm_pool_scales:f32", "query_start_loc:i32", "cache_indices:i32",
          "token_parents:i32", "rounding_seed:i64", "outs:f32"}));
  EXPECT_EQ(layouts[6].shape, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_TRUE(layouts[10].shape.empty());
  EXPECT_NE(signatureKey(p).find(" pool=i8 rounding=stochastic"),
            std::string::npos);

  HostOperands operands(p);
  EXPECT_EQ(operands.bytes(5), bytes({1, 2}));
  EXPECT_EQ(operands.bytes(6).size(), 8u);
  int64_t seed;
  ASSERT_EQ(operands.bytes(10).size(), 8u);
  std::memcpy(&seed, operands.bytes(10).data(), 8);
  EXPECT_EQ(seed, -2);
  EXPECT_EQ(operands.writtenIndices(),
            (std::vector<size_t>{operands.yIndex(), 5, 6}));
  std::vector<std::vector<int64_t>> descriptors = operands.descriptors(
      {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
       nullptr, nullptr, nullptr, nullptr});
  EXPECT_EQ(descriptors[10].size(), 3u) << "a 0-d memref: pointers, offset";

  PoolContents out;
  std::vector<float> y;
  operands.readOutputs(y, out);
  EXPECT_EQ(out.codes, bytes({1, 2}));
  EXPECT_EQ(out.scales, (std::vector<float>{0.5f, 0.25f}));
  std::vector<float> decoded;
  operands.readOutputs(y, decoded);
  EXPECT_EQ(decoded, (std::vector<float>{0.5f, 0.5f}));
}

class PoolFilesTest : public TempDirTest {};

// ssd-run's files of an i8 pool: int8 codes and float32 scales, loaded and
// written back the same way; an f16 pool's float32 file is rounded.
TEST_F(PoolFilesTest, LoadAndWrite) {
  ScanProblem p = tinyProblem();
  writeProblem("in", p);
  std::string e;
  ASSERT_TRUE(writeNpy(path("in/ssm_pool.npy"),
                       makeArray<int8_t>("|i1", {2, 1, 1, 1}, {-127, 3}), e))
      << e;
  ASSERT_TRUE(writeNpy(path("in/ssm_pool_scales.npy"),
                       makeArray<float>("<f4", {2, 1, 1}, {0.5f, 2.0f}), e))
      << e;
  ScanProblem loaded;
  ASSERT_TRUE(
      loadProblem(path("in"), ModelDType::F32, loaded, e, PoolDType::I8))
      << e;
  EXPECT_EQ(loaded.poolCodes, bytes({0x81, 3}));
  EXPECT_EQ(loaded.pool, (std::vector<float>{-63.5f, 6.0f}));

  PoolContents pool;
  pool.codes = {0x81, 5};
  pool.scales = {0.5f, 0.125f};
  ASSERT_TRUE(writeOutputs(path("out"), loaded, {1, 2}, pool, e)) << e;
  NpyArray codes, scales;
  ASSERT_TRUE(readNpy(path("out/ssm_pool.npy"), codes, e)) << e;
  ASSERT_TRUE(readNpy(path("out/ssm_pool_scales.npy"), scales, e)) << e;
  EXPECT_EQ(codes.descr, "|i1");
  EXPECT_EQ(codes.shape, (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(codes.data, bytes({0x81, 5}));
  EXPECT_EQ(scales.descr, "<f4");
  EXPECT_EQ(scales.shape, (std::vector<int64_t>{2, 1, 1}));

  ScanProblem f16;
  ASSERT_TRUE(loadProblem(path("out"), ModelDType::F32, f16, e,
                          PoolDType::F8E4M3FN) == false);
  p.pool = {1.0f + 0x1p-12f, 70000.0f};
  writeProblem("in16", p);
  ASSERT_TRUE(
      loadProblem(path("in16"), ModelDType::F32, f16, e, PoolDType::F16))
      << e;
  EXPECT_EQ(f16.pool[0], 1.0f);
  EXPECT_TRUE(std::isinf(f16.pool[1]));
}

} // namespace
