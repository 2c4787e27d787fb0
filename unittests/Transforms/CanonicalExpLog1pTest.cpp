//===- CanonicalExpLog1pTest.cpp - the invariant mode's exp and log1p -----===//
//
// canonical::exp and canonical::log1p, built into a vector<16xf32> loop and
// a scalar loop, lowered through `--ssd-to-cpu` and JIT-compiled twice: for
// the x86-64 baseline (no FMA instructions: llvm.fma becomes a call to
// fmaf) and for the host. Over every 251st f32 (exp) or 127th non-negative
// f32 (log1p) plus dense windows around every edge of the algorithms, each
// result is within an ulp of the exact value (double precision's exp and
// log1p), the special values are exact, and all four builds give the same
// bits: the property the invariant mode rests on.
//
//===----------------------------------------------------------------------===//

#include "JITTestSupport.h"

#include "ScanEmitter/CanonicalMath.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace {

namespace canonical = mlir::ssd::detail::canonical;

/// Two functions per math op, math.FN standing for the canonical expansion
/// (replaced before lowering): @FN_vector on vector<16xf32> (the length must
/// be a multiple of 16) and @FN_scalar on f32.
constexpr const char *kModule = R"mlir(
func.func @FN_vector(%in: memref<?xf32>, %out: memref<?xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c16 {
    %v = vector.load %in[%i] : memref<?xf32>, vector<16xf32>
    %w = math.FN %v : vector<16xf32>
    vector.store %w, %out[%i] : memref<?xf32>, vector<16xf32>
  }
  return
}
func.func @FN_scalar(%in: memref<?xf32>, %out: memref<?xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %in[%i] : memref<?xf32>
    %w = math.FN %v : f32
    memref.store %w, %out[%i] : memref<?xf32>
  }
  return
}
)mlir";

std::string moduleText() {
  std::string all;
  for (std::string function : {"exp", "log1p"}) {
    std::string text = kModule;
    for (size_t at; (at = text.find("FN")) != std::string::npos;)
      text.replace(at, 2, function);
    all += text;
  }
  return all;
}

/// Replaces every math.exp and math.log1p by the canonical expansion.
void expandCanonically(mlir::ModuleOp module) {
  module.walk([](mlir::Operation *op) {
    if (!mlir::isa<mlir::math::ExpOp, mlir::math::Log1pOp>(op))
      return;
    mlir::ImplicitLocOpBuilder b(op->getLoc(), op);
    mlir::Value operand = op->getOperand(0);
    mlir::Value result = mlir::isa<mlir::math::ExpOp>(op)
                             ? canonical::exp(b, operand)
                             : canonical::log1p(b, operand);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  });
}

uint32_t floatToBits(float f) { return llvm::bit_cast<uint32_t>(f); }
float bitsToFloat(uint32_t bits) { return llvm::bit_cast<float>(bits); }

/// Every `stride`th bit pattern from `first` below `end`.
void addStrided(std::vector<float> &values, uint64_t first, uint64_t end,
                uint64_t stride) {
  for (uint64_t bits = first; bits < end; bits += stride)
    values.push_back(bitsToFloat(uint32_t(bits)));
}

/// The `radius` f32 on either side of `center` (same sign) and itself.
void addAround(std::vector<float> &values, float center, int64_t radius) {
  int64_t bits = floatToBits(center);
  int64_t signBit = bits & 0x80000000;
  for (int64_t at = bits - radius; at <= bits + radius; ++at)
    if ((at & 0x80000000) == signBit && (at & 0x7fffffff) <= 0x7f800000)
      values.push_back(bitsToFloat(uint32_t(at)));
}

/// The vector functions take whole vectors.
void padToVectors(std::vector<float> &values) {
  while (values.size() % 16)
    values.push_back(0.0f);
}

std::vector<float> expInputs() {
  std::vector<float> in;
  // Every sign, exponent and NaN payload class; 251 is prime, so the low
  // mantissa bits vary too.
  addStrided(in, 0, uint64_t(1) << 32, 251);
  for (double edge : {std::log(double(FLT_MAX)), // overflow
                      -150 * M_LN2,              // rounds to +0 below
                      -149 * M_LN2,              // the least subnormal
                      -126 * M_LN2,              // subnormal results below
                      88.8, -104.0,              // the clamp
                      M_LN2 / 2, -M_LN2 / 2, 20.0, -20.0, 1.0, -1.0})
    addAround(in, float(edge), 4096);
  for (float zero : {0.0f, -0.0f})
    addAround(in, zero, 4096);
  // The worst case of an exhaustive run over every f32 (0.976 ulp).
  in.push_back(-0x1.86ed5ep+5f);
  for (float special : {INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX})
    in.push_back(special);
  padToVectors(in);
  return in;
}

std::vector<float> log1pInputs() {
  std::vector<float> in;
  addStrided(in, 0, 0x7f800000, 127);
  // Subnormals and the u below 2^-24 where 1 + u rounds to 1.
  addAround(in, 0.0f, 8192);
  for (int power = -26; power <= -20; ++power)
    addAround(in, std::ldexp(1.0f, power), 2048);
  // Where w = 1 + u reaches a power of two or crosses sqrt(2) times one
  // (e steps; e = 2 and e = 25 switch the correction term).
  for (int power = 1; power <= 30; ++power) {
    addAround(in, std::ldexp(1.0f, power) - 1.0f, 1024);
    addAround(in, float(std::ldexp(M_SQRT2, power) - 1.0), 1024);
    addAround(in, float(std::ldexp(M_SQRT1_2, power) - 1.0), 1024);
  }
  addAround(in, 5e8f, 4096);
  addAround(in, FLT_MAX, 4096);
  // The worst case of an exhaustive run over every f32 >= 0 (0.870 ulp).
  in.push_back(0x1.a17d7ap-2f);
  for (float special : {INFINITY, NAN, 1e-30f})
    in.push_back(special);
  padToVectors(in);
  return in;
}

/// |got - exact| in ulps of the f32 binade of `exact` (subnormal ulps below
/// 2^-126); infinite when got and f32(exact) are not both or neither
/// infinite.
double ulpError(float got, double exact) {
  float rounded = float(exact);
  if (std::isinf(rounded) || std::isinf(got))
    return got == rounded ? 0 : INFINITY;
  int exponent = exact == 0 ? -126 : std::max(std::ilogb(exact), -126);
  return std::fabs(double(got) - exact) / std::ldexp(1.0, exponent - 23);
}

class CanonicalExpLog1p : public ::testing::Test {
protected:
  /// Each function's results on its inputs from each build.
  struct Runs {
    std::vector<float> in;
    std::vector<float> baselineVector, baselineScalar, hostVector, hostScalar;
  };

  static void SetUpTestSuite() {
    context = ssd::test::createPipelineContext().release();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(moduleText(), context);
    ASSERT_TRUE(module);
    expandCanonically(*module);
    ASSERT_TRUE(mlir::succeeded(ssd::test::lowerToCPU(*module)));
    std::string error;
    std::unique_ptr<mlir::ExecutionEngine> baseline =
        ssd::test::jitCompile(*module, ssd::test::baselineCPU(), error);
    ASSERT_TRUE(baseline) << error;
    std::unique_ptr<mlir::ExecutionEngine> host =
        ssd::test::jitCompile(*module, "", error);
    ASSERT_TRUE(host) << error;

    auto run = [&](const std::string &name, std::vector<float> in) {
      Runs runs;
      runs.baselineVector =
          ssd::test::runUnary<float>(*baseline, name + "_vector", in);
      runs.baselineScalar =
          ssd::test::runUnary<float>(*baseline, name + "_scalar", in);
      runs.hostVector = ssd::test::runUnary<float>(*host, name + "_vector", in);
      runs.hostScalar = ssd::test::runUnary<float>(*host, name + "_scalar", in);
      runs.in = std::move(in);
      return runs;
    };
    exp = new Runs(run("exp", expInputs()));
    log1p = new Runs(run("log1p", log1pInputs()));
  }
  static void TearDownTestSuite() {
    delete exp;
    delete log1p;
    delete context;
  }

  /// At most `bound` ulps from `reference` on every non-NaN input; NaN in,
  /// NaN out.
  static void expectWithin(const char *function, const Runs &runs,
                           double (*reference)(double), double bound) {
    double worst = 0;
    float worstInput = 0;
    size_t wrongNaNs = 0;
    for (size_t i = 0; i < runs.in.size(); ++i) {
      float in = runs.in[i], out = runs.hostVector[i];
      if (std::isnan(in)) {
        wrongNaNs += !std::isnan(out);
        continue;
      }
      double error = ulpError(out, reference(double(in)));
      if (!(error <= worst))
        worst = error, worstInput = in;
    }
    std::printf("%s: max error %.3f ulp (at %a) over %zu inputs\n", function,
                worst, worstInput, runs.in.size());
    EXPECT_LE(worst, bound) << function << " at " << worstInput << " (0x"
                            << std::hex << floatToBits(worstInput) << ")";
    EXPECT_EQ(wrongNaNs, 0u);
  }

  /// Every build gives the host vector loop's bits.
  static void expectSameBits(const char *function, const Runs &runs) {
    for (auto [build, out] :
         {std::pair{"baseline vector", &runs.baselineVector},
          {"baseline scalar", &runs.baselineScalar},
          {"host scalar", &runs.hostScalar}}) {
      size_t differ = 0;
      for (size_t i = 0; i < runs.in.size(); ++i) {
        uint32_t got = floatToBits((*out)[i]);
        uint32_t expected = floatToBits(runs.hostVector[i]);
        if (got != expected && differ++ < 5)
          ADD_FAILURE() << function << ", " << build << ": input 0x" << std::hex
                        << floatToBits(runs.in[i]) << " gives 0x" << got
                        << ", the host's vector loop 0x" << expected;
      }
      EXPECT_EQ(differ, 0u) << function << ", " << build;
    }
  }

  /// The host vector loop's result for each of `in` (searched from the end,
  /// where the special values are).
  static std::vector<float> at(const Runs &runs, std::vector<float> in) {
    std::vector<float> out;
    for (float value : in) {
      size_t i = runs.in.size();
      while (i > 0 && floatToBits(runs.in[i - 1]) != floatToBits(value))
        --i;
      EXPECT_GT(i, 0u) << value << " is not an input";
      out.push_back(i > 0 ? runs.hostVector[i - 1] : NAN);
    }
    return out;
  }

  static inline mlir::MLIRContext *context = nullptr;
  static inline Runs *exp = nullptr, *log1p = nullptr;
};

double exactExp(double x) { return std::exp(x); }
double exactLog1p(double x) { return std::log1p(x); }

TEST_F(CanonicalExpLog1p, ExpIsWithinAnUlp) {
  expectWithin("exp", *exp, exactExp, 1.0);
}

TEST_F(CanonicalExpLog1p, Log1pIsWithinAnUlp) {
  expectWithin("log1p", *log1p, exactLog1p, 1.0);
}

TEST_F(CanonicalExpLog1p, ExpSpecialValues) {
  std::vector<float> out = at(*exp, {-INFINITY, INFINITY, 0.0f, -0.0f, -104.0f,
                                     -FLT_MAX, 88.8f, FLT_MAX});
  std::vector<uint32_t> bits;
  for (float value : out)
    bits.push_back(floatToBits(value));
  EXPECT_EQ(bits, (std::vector<uint32_t>{0, 0x7f800000, 0x3f800000, 0x3f800000,
                                         0, 0, 0x7f800000, 0x7f800000}));
  EXPECT_TRUE(std::isnan(at(*exp, {NAN})[0]));
}

TEST_F(CanonicalExpLog1p, Log1pSpecialValues) {
  // Below 2^-24, log1p(u) rounds to u.
  float least = std::numeric_limits<float>::denorm_min();
  std::vector<float> in = {0.0f, least, 1e-30f, 0x1p-25f, INFINITY};
  std::vector<float> out = at(*log1p, in);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(floatToBits(out[i]), floatToBits(in[i])) << in[i];
  EXPECT_TRUE(std::isnan(at(*log1p, {NAN})[0]));
}

TEST_F(CanonicalExpLog1p, ExpIsTheSameOnEveryCPUAndWidth) {
  expectSameBits("exp", *exp);
}

TEST_F(CanonicalExpLog1p, Log1pIsTheSameOnEveryCPUAndWidth) {
  expectSameBits("log1p", *log1p);
}

} // namespace
