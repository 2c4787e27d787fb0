//===- ExpandFloatConversionsTest.cpp - exactness of the expansions -------===//
//
// Every f16 and bf16 value, and every f32 near a rounding decision, goes
// through `--ssd-to-cpu`'s expanded conversions, JIT-compiled for the x86-64
// baseline (no F16C, no AVX512-BF16: LLVM has no instruction to fall back
// on there) or for the host elsewhere; each result must equal the runner's
// round-to-nearest-even helpers (checked against hand-computed values in
// unittests/Runner/FloatTest.cpp) bit for bit, NaNs as NaNs.
//
//===----------------------------------------------------------------------===//

#include "JITTestSupport.h"

#include "ssd/Runner/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cmath>
#include <numeric>
#include <vector>

namespace {

/// One function per direction and type; the loops step by 8 through
/// vector<8x...> loads so that the vector patterns run, and the scalar
/// tail through the scalar patterns.
constexpr const char *kModule = R"mlir(
#map = affine_map<(d0) -> (d0)>
func.func @convert_SRC_DST(%in: memref<?xSRC>, %out: memref<?xDST>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %in, %c0 : memref<?xSRC>
  %rem = arith.remui %n, %c8 : index
  %vn = arith.subi %n, %rem : index
  scf.for %i = %c0 to %vn step %c8 {
    %v = vector.load %in[%i] : memref<?xSRC>, vector<8xSRC>
    %w = arith.OP %v : vector<8xSRC> to vector<8xDST>
    vector.store %w, %out[%i] : memref<?xDST>, vector<8xDST>
  }
  scf.for %i = %vn to %n step %c1 {
    %v = memref.load %in[%i] : memref<?xSRC>
    %w = arith.OP %v : SRC to DST
    memref.store %w, %out[%i] : memref<?xDST>
  }
  return
}
)mlir";

std::string moduleText() {
  std::string all;
  for (auto [src, dst, op] : {std::tuple{"f32", "f16", "truncf"},
                              {"f16", "f32", "extf"},
                              {"f32", "bf16", "truncf"},
                              {"bf16", "f32", "extf"}}) {
    std::string text = kModule;
    for (auto [from, to] : {std::pair<std::string, std::string>{"SRC", src},
                            {"DST", dst},
                            {"OP", op}}) {
      for (size_t at; (at = text.find(from)) != std::string::npos;)
        text.replace(at, from.size(), to);
    }
    // One #map is enough.
    if (!all.empty())
      text.erase(0, text.find("func.func"));
    all += text;
  }
  return all;
}

class ExpandFloatConversions : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    context = ssd::test::createPipelineContext().release();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(moduleText(), context);
    ASSERT_TRUE(module);
    ASSERT_TRUE(mlir::succeeded(ssd::test::lowerToCPU(*module)));
    std::string error;
    engine = ssd::test::jitCompile(*module, ssd::test::baselineCPU(), error)
                 .release();
    ASSERT_TRUE(engine) << error;
  }
  static void TearDownTestSuite() {
    delete engine;
    delete context;
  }

  /// Runs `@convert_<src>_<dst>` on `in`.
  template <typename In, typename Out>
  static std::vector<Out> convert(const char *name, std::vector<In> &in) {
    return ssd::test::runUnary<Out>(*engine, name, in);
  }

  static inline mlir::MLIRContext *context = nullptr;
  static inline mlir::ExecutionEngine *engine = nullptr;
};

uint32_t floatToBits(float f) { return llvm::bit_cast<uint32_t>(f); }

/// f32 inputs around every rounding decision of a 16-bit format that keeps
/// `keptBits` of f32's 23 mantissa bits: each pattern of the bits above the
/// dropped ones (both signs), with the dropped bits 0, 1, just below half,
/// half, just above half and all ones.
std::vector<float> roundingCases(int keptBits) {
  int dropped = 23 - keptBits;
  uint32_t half = 1u << (dropped - 1), all = (1u << dropped) - 1;
  std::vector<float> cases;
  for (uint32_t high = 0; high < (1u << (32 - dropped)); ++high)
    for (uint32_t low : {0u, 1u, half - 1, half, half + 1, all})
      cases.push_back(llvm::bit_cast<float>(high << dropped | low));
  return cases;
}

/// `out`, what `function` (an f32 -> 16-bit truncation) made of `in`, against
/// `reference`'s bits; a NaN must stay a NaN (`infinityBits` is the format's
/// +infinity).
void expectRoundsLike(const char *function, uint16_t (*reference)(float),
                      uint16_t infinityBits, std::vector<uint16_t> out,
                      const std::vector<float> &in) {
  size_t wrong = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    uint16_t expected = reference(in[i]);
    bool bothNaN = std::isnan(in[i]) && (out[i] & 0x7fff) > infinityBits;
    if (out[i] != expected && !bothNaN && wrong++ < 5)
      ADD_FAILURE() << function << ": f32 bits 0x" << std::hex
                    << floatToBits(in[i]) << ": got 0x" << out[i]
                    << ", expected 0x" << expected;
  }
  EXPECT_EQ(wrong, 0u) << "of " << in.size();
}

TEST_F(ExpandFloatConversions, F32ToF16RoundsToNearestEven) {
  std::vector<float> in = roundingCases(10);
  expectRoundsLike("convert_f32_f16", ssd::floatToHalfBits, 0x7c00,
                   convert<float, uint16_t>("convert_f32_f16", in), in);
}

TEST_F(ExpandFloatConversions, F32ToBF16RoundsToNearestEven) {
  std::vector<float> in = roundingCases(7);
  expectRoundsLike("convert_f32_bf16", ssd::floatToBF16Bits, 0x7f80,
                   convert<float, uint16_t>("convert_f32_bf16", in), in);
}

std::vector<uint16_t> everySixteenBitPattern() {
  std::vector<uint16_t> patterns(65536);
  std::iota(patterns.begin(), patterns.end(), uint16_t(0));
  return patterns;
}

TEST_F(ExpandFloatConversions, F16ToF32IsExact) {
  std::vector<uint16_t> in = everySixteenBitPattern();
  std::vector<float> out = convert<uint16_t, float>("convert_f16_f32", in);
  size_t wrong = 0;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    float expected = ssd::halfBitsToFloat(uint16_t(bits));
    bool same = floatToBits(out[bits]) == floatToBits(expected) ||
                (std::isnan(expected) && std::isnan(out[bits]));
    if (!same && wrong++ < 5)
      ADD_FAILURE() << "f16 bits 0x" << std::hex << bits << ": got 0x"
                    << floatToBits(out[bits]) << ", expected 0x"
                    << floatToBits(expected);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(ExpandFloatConversions, BF16ToF32IsExact) {
  std::vector<uint16_t> in = everySixteenBitPattern();
  std::vector<float> out = convert<uint16_t, float>("convert_bf16_f32", in);
  size_t wrong = 0;
  for (uint32_t bits = 0; bits < 65536; ++bits)
    wrong += floatToBits(out[bits]) != bits << 16;
  EXPECT_EQ(wrong, 0u);
}

} // namespace
