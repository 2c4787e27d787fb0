//===- ssd-reference-test.cpp - Self-checks of the host-side runner code --===//
//
// Checks the double-precision reference scan against hand-computed numbers,
// the .npy reader/writer, the f16/bf16 rounding helpers and the input
// validation of loadProblem. Prints every failed check and exits non-zero if
// any failed.
//
// Most scan cases use A = -ln 2 and d = 1, so the per-token decay
// exp(d * A) is 1/2 (up to the float rounding of ln 2, hence the 1e-6
// relative tolerance) and every expected value is small arithmetic.
//
//===----------------------------------------------------------------------===//

#include "ssd/Runner/Npy.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ssd;

namespace {

int numChecks = 0, numFailed = 0;
const float kLn2 = 0.69314718f;

void check(bool ok, const std::string &what) {
  ++numChecks;
  if (!ok) {
    ++numFailed;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

bool near(double actual, double expected, double relTol = 1e-6) {
  return std::fabs(actual - expected) <=
         relTol * std::max(1.0, std::fabs(expected));
}

void checkValues(const std::vector<double> &actual,
                 const std::vector<double> &expected,
                 const std::string &what) {
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = near(actual[i], expected[i]);
  std::string detail = what + ": got [";
  for (size_t i = 0; i < actual.size(); ++i)
    detail += (i ? ", " : "") + std::to_string(actual[i]);
  detail += "], expected [";
  for (size_t i = 0; i < expected.size(); ++i)
    detail += (i ? ", " : "") + std::to_string(expected[i]);
  check(ok, detail + "]");
}

/// Bit-for-bit: the contract says untouched slots keep their exact bits.
void checkExact(const std::vector<double> &actual,
                const std::vector<double> &expected,
                const std::string &what) {
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = actual[i] == expected[i];
  check(ok, what + " (bit-identical)");
}

/// The single-head, single-channel two-token problem most cases start from:
///   A = -ln2, dt = [1, 1], x = [2, 3], B = [1, 2], C = [4, 5],
///   one sequence of both tokens in slot 1 of a 2-slot pool holding [9, 9].
ScanProblem tinyProblem() {
  ScanProblem p;
  p.T = 2;
  p.H = p.P = p.G = p.N = 1;
  p.S = 2;
  p.batch = 1;
  p.A = {-kLn2};
  p.dt = {1, 1};
  p.x = {2, 3};
  p.B = {1, 2};
  p.C = {4, 5};
  p.pool = {9, 9};
  p.queryStartLoc = {0, 2};
  p.cacheIndices = {1};
  return p;
}

void testScan() {
  std::vector<double> y, pool;

  // Plain recurrence, decay = exp(1 * -ln2) = 0.5:
  //   t0: S = 0.5*0 + 1*2*1 = 2   y0 = 2*4 = 8
  //   t1: S = 0.5*2 + 1*3*2 = 7   y1 = 7*5 = 35    pool[1] = 7
  {
    ScanProblem p = tinyProblem();
    referenceScan(p, y, pool);
    checkValues(y, {8, 35}, "plain: y");
    checkValues(pool, {9, 7}, "plain: pool");
    checkExact({pool[0]}, {9}, "plain: unnamed slot 0");
  }

  // D = 0.5 adds D*x: y0 = 8 + 0.5*2 = 9, y1 = 35 + 0.5*3 = 36.5; the state
  // is unaffected.
  {
    ScanProblem p = tinyProblem();
    p.hasD = true;
    p.D = {0.5f};
    referenceScan(p, y, pool);
    checkValues(y, {9, 36.5}, "D: y");
    checkValues(pool, {9, 7}, "D: pool");
  }

  // dt_bias: d = softplus(0.5 + -0.5) = log1p(exp(0)) = ln2 = 0.6931472,
  // and with A = -1 the decay is exp(-ln2) = 0.5 again:
  //   t0: S = ln2*2*1 = 2 ln2 = 1.3862944         y0 = 4 * 2 ln2 = 5.5451774
  //   t1: S = 0.5*2 ln2 + ln2*3*2 = 7 ln2 = 4.8520303
  //                                               y1 = 5 * 7 ln2 = 24.2601513
  {
    ScanProblem p = tinyProblem();
    p.A = {-1};
    p.dt = {0.5f, 0.5f};
    p.hasDtBias = true;
    p.dtBias = {-0.5f};
    referenceScan(p, y, pool);
    checkValues(y, {5.5451774, 24.2601513}, "dt_bias softplus: y");
    checkValues(pool, {9, 4.8520303}, "dt_bias softplus: pool");
  }

  // softplus on both sides of its threshold, one token, x = B = C = 1 and
  // no initial state, so y = d:
  //   dt + bias = -3 + 0  -> d = log1p(exp(-3)) = 0.0485873516
  //   dt + bias = 30 - 5  -> 25 > 20, so d = 25 exactly
  for (int i = 0; i < 2; ++i) {
    ScanProblem p = tinyProblem();
    p.T = 1;
    p.A = {-1};
    p.dt = {i == 0 ? -3.0f : 30.0f};
    p.hasDtBias = true;
    p.dtBias = {i == 0 ? 0.0f : -5.0f};
    p.x = {1};
    p.B = {1};
    p.C = {1};
    p.queryStartLoc = {0, 1};
    referenceScan(p, y, pool);
    checkValues(y, {i == 0 ? 0.0485873516 : 25.0},
                i == 0 ? "softplus(-3): y" : "softplus(25): y");
  }

  // Initial state 4 from slot 1:
  //   t0: S = 0.5*4 + 1*2*1 = 4   y0 = 4*4 = 16
  //   t1: S = 0.5*4 + 1*3*2 = 8   y1 = 8*5 = 40    pool[1] = 8
  {
    ScanProblem p = tinyProblem();
    p.pool = {9, 4};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {1};
    referenceScan(p, y, pool);
    checkValues(y, {16, 40}, "initial state: y");
    checkValues(pool, {9, 8}, "initial state: pool");
  }

  // has_initial_state present but false: starts from zero like the plain
  // case even though slot 1 holds 4; y = [8, 35], pool[1] = 7.
  {
    ScanProblem p = tinyProblem();
    p.pool = {9, 4};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {0};
    referenceScan(p, y, pool);
    checkValues(y, {8, 35}, "has_initial_state false: y");
    checkValues(pool, {9, 7}, "has_initial_state false: pool");
  }

  // update_state false: same y as the initial-state case (16, 40), but the
  // slot keeps its 4.
  {
    ScanProblem p = tinyProblem();
    p.pool = {9, 4};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {1};
    p.updateStatePresent = true;
    p.updateState = {0};
    referenceScan(p, y, pool);
    checkValues(y, {16, 40}, "update_state false: y");
    checkExact(pool, {9, 4}, "update_state false: pool");
  }

  // Padding sequence (index 0xFFFFFFFF) with has_initial_state true: starts
  // from zero anyway (y = 8, 35 as in the plain case) and writes nothing.
  {
    ScanProblem p = tinyProblem();
    p.pool = {9, 4};
    p.cacheIndices = {kPaddingSlot};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {1};
    referenceScan(p, y, pool);
    checkValues(y, {8, 35}, "padding: y");
    checkExact(pool, {9, 4}, "padding: pool");
  }

  // A zero-length sequence 0 (slot 0) before the two-token sequence 1
  // (slot 1): qsl = [0, 0, 2]. Sequence 0 still writes its initial state:
  //  (a) no initial state: slot 0 becomes 0; sequence 1 as plain: y = 8, 35,
  //      slot 1 = 7.
  //  (b) initial state for both, pool = [9, 4]: slot 0 gets its own 9 back;
  //      sequence 1 as in the initial-state case: y = 16, 40, slot 1 = 8.
  {
    ScanProblem p = tinyProblem();
    p.batch = 2;
    p.queryStartLoc = {0, 0, 2};
    p.cacheIndices = {0, 1};
    referenceScan(p, y, pool);
    checkValues(y, {8, 35}, "zero-length (a): y");
    checkValues(pool, {0, 7}, "zero-length (a): pool");

    p.pool = {9, 4};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {1, 1};
    referenceScan(p, y, pool);
    checkValues(y, {16, 40}, "zero-length (b): y");
    checkValues(pool, {9, 8}, "zero-length (b): pool");
  }

  // G = 2, H = 4: heads 0,1 use group 0 and heads 2,3 group 1 (h / (H/G)),
  // not h % G. One token, no initial state, d = 1:
  //   x = [1, 2, 3, 4], B = [2, 3] (per group), C = [5, 7] (per group)
  //   S_h = x_h * B_g = [1*2, 2*2, 3*3, 4*3] = [2, 4, 9, 12]
  //   y_h = S_h * C_g = [2*5, 4*5, 9*7, 12*7] = [10, 20, 63, 84]
  // (h % G would give [10, 42, 30, 84].)
  {
    ScanProblem p;
    p.T = 1;
    p.H = 4;
    p.P = p.N = 1;
    p.G = 2;
    p.S = 1;
    p.batch = 1;
    p.A = {-kLn2, -kLn2, -kLn2, -kLn2};
    p.dt = {1, 1, 1, 1};
    p.x = {1, 2, 3, 4};
    p.B = {2, 3};
    p.C = {5, 7};
    p.pool = {0, 0, 0, 0};
    p.queryStartLoc = {0, 1};
    p.cacheIndices = {0};
    referenceScan(p, y, pool);
    checkValues(y, {10, 20, 63, 84}, "group mapping: y");
    checkValues(pool, {2, 4, 9, 12}, "group mapping: pool");
  }

  // P = N = 2: the state is the outer product x Bᵀ ([p][n] layout) and
  // y = S C.
  //   t0: x = [1, 2], B = [3, 4], C = [5, 6]
  //       S = [[3, 4], [6, 8]]        y0 = [3*5+4*6, 6*5+8*6] = [39, 78]
  //   t1: x = [1, -1], B = [1, 0], C = [0, 1], decay 0.5
  //       S = [[1.5+1, 2+0], [3-1, 4+0]] = [[2.5, 2], [2, 4]]
  //       y1 = [2, 4]
  {
    ScanProblem p;
    p.T = 2;
    p.H = p.G = 1;
    p.P = p.N = 2;
    p.S = 1;
    p.batch = 1;
    p.A = {-kLn2};
    p.dt = {1, 1};
    p.x = {1, 2, 1, -1};
    p.B = {3, 4, 1, 0};
    p.C = {5, 6, 0, 1};
    p.pool = {0, 0, 0, 0};
    p.queryStartLoc = {0, 2};
    p.cacheIndices = {0};
    referenceScan(p, y, pool);
    checkValues(y, {39, 78, 2, 4}, "P=N=2: y");
    checkValues(pool, {2.5, 2, 2, 4}, "P=N=2: pool");
  }

  // Tree speculation: three one-token sequences read slot 0 (state 4); only
  // the middle one writes. Every reader sees the state from before the op:
  //   x = [1, 3, 5], B = C = 1: y_b = 0.5*4 + x_b = [3, 5, 7]
  //   slot 0 = 5 (from sequence 1); sequence 2 must not see it (7, not 7.5).
  {
    ScanProblem p;
    p.T = 3;
    p.H = p.P = p.G = p.N = 1;
    p.S = 1;
    p.batch = 3;
    p.A = {-kLn2};
    p.dt = {1, 1, 1};
    p.x = {1, 3, 5};
    p.B = {1, 1, 1};
    p.C = {1, 1, 1};
    p.pool = {4};
    p.queryStartLoc = {0, 1, 2, 3};
    p.cacheIndices = {0, 0, 0};
    p.hasInitialStatePresent = true;
    p.hasInitialState = {1, 1, 1};
    p.updateStatePresent = true;
    p.updateState = {0, 1, 0};
    referenceScan(p, y, pool);
    checkValues(y, {3, 5, 7}, "tree speculation: y");
    checkValues(pool, {5}, "tree speculation: pool");
  }

  // roundOutputs: y is rounded once, from double, to the model dtype.
  // 1 + 2^-8 + 2^-30 lies just above the bf16 tie between 1 and 1 + 2^-7,
  // so it must round up; rounding through float first would land exactly on
  // the tie and go to 1. The pool is rounded to float32 only.
  {
    ScanProblem p = tinyProblem();
    p.dtype = ModelDType::BF16;
    std::vector<double> yd = {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30),
                              0.1};
    std::vector<double> pd = {0.1, 1.0 + std::ldexp(1.0, -8)};
    std::vector<float> yf, pf;
    roundOutputs(p, yd, pd, yf, pf);
    check(yf.size() == 2 && yf[0] == 1.0f + std::ldexp(1.0f, -7),
          "roundOutputs: bf16 y rounded once from double");
    check(yf.size() == 2 && yf[1] == bf16BitsToFloat(0x3dcd),
          "roundOutputs: bf16 0.1 -> 0x3dcd");
    check(pf.size() == 2 && pf[0] == 0.1f &&
              pf[1] == 1.0f + std::ldexp(1.0f, -8),
          "roundOutputs: pool rounded to f32 only");
    p.dtype = ModelDType::F16;
    // f16 tie case: 1 + 2^-11 + 2^-40 is above the tie between 1 and
    // 1 + 2^-10.
    yd = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 0.1};
    roundOutputs(p, yd, pd, yf, pf);
    check(yf[0] == 1.0f + std::ldexp(1.0f, -10),
          "roundOutputs: f16 y rounded once from double");
    check(yf[1] == 0.0999755859375f, "roundOutputs: f16 0.1");
  }
}

//===----------------------------------------------------------------------===//
// Float helpers
//===----------------------------------------------------------------------===//

void testFloatHelpers() {
  const float two = 2.0f;
  auto p2 = [&](int e) { return std::ldexp(1.0f, e); };

  // bf16 keeps 7 fraction bits: the ulp at 1 is 2^-7.
  //   1 + 2^-8   = 1 + 0.5 ulp: tie, to even -> 1.0 (0x3f80)
  //   1 + 3*2^-8 = 1 + 1.5 ulp: tie, to even -> 1 + 2 ulp (0x3f82)
  //   1 + 2^-8 + 2^-20: above the tie -> 1 + 1 ulp (0x3f81)
  check(floatToBF16Bits(1.0f + p2(-8)) == 0x3f80, "bf16: 1+2^-8 -> 1");
  check(floatToBF16Bits(1.0f + 3 * p2(-8)) == 0x3f82,
        "bf16: 1+3*2^-8 rounds up to 1+2^-6");
  check(floatToBF16Bits(1.0f + p2(-8) + p2(-20)) == 0x3f81,
        "bf16: above the tie rounds up");
  check(floatToBF16Bits(-1.0f) == 0xbf80, "bf16: -1");
  check(floatToBF16Bits(std::numeric_limits<float>::max()) == 0x7f80,
        "bf16: FLT_MAX rounds to +inf");
  check(floatToBF16Bits(-std::numeric_limits<float>::infinity()) == 0xff80,
        "bf16: -inf");
  check(std::isnan(bf16BitsToFloat(
            floatToBF16Bits(std::numeric_limits<float>::quiet_NaN()))),
        "bf16: NaN preserved");
  // A NaN whose payload lives only in the low 16 bits must not become inf.
  {
    uint32_t nanBits = 0x7f800001u;
    float nan;
    std::memcpy(&nan, &nanBits, 4);
    check(std::isnan(bf16BitsToFloat(floatToBF16Bits(nan))),
          "bf16: low-payload NaN stays NaN");
  }
  check(bf16BitsToFloat(0x3f80) == 1.0f && bf16BitsToFloat(0xc000) == -two,
        "bf16: to float");

  // f16 keeps 10 fraction bits: the ulp at 1 is 2^-10.
  check(floatToHalfBits(1.0f) == 0x3c00, "f16: 1");
  check(floatToHalfBits(1.0f + p2(-11)) == 0x3c00, "f16: 1+2^-11 tie -> 1");
  check(floatToHalfBits(1.0f + 3 * p2(-11)) == 0x3c02,
        "f16: 1+3*2^-11 tie -> even, up");
  check(floatToHalfBits(0.1f) == 0x2e66, "f16: 0.1 -> 0x2e66");
  check(floatToHalfBits(-0.0f) == 0x8000, "f16: -0");
  // Largest finite 65504 = 0x7bff; 65520 is the tie with the next binade
  // (which is inf) and goes to even: inf. 65519 stays finite.
  check(floatToHalfBits(65504.0f) == 0x7bff, "f16: 65504");
  check(floatToHalfBits(65519.0f) == 0x7bff, "f16: 65519 -> 65504");
  check(floatToHalfBits(65520.0f) == 0x7c00, "f16: 65520 -> inf");
  check(floatToHalfBits(1e10f) == 0x7c00, "f16: overflow -> inf");
  // Subnormals count units of 2^-24: 2^-24 -> 1; 2^-25 is the tie between 0
  // and 1 -> 0; 1.5*2^-25 = 0.75 unit -> 1; 3*2^-25 = 1.5 units -> 2;
  // 2^-14 - 2^-24 is the largest subnormal (0x3ff).
  check(floatToHalfBits(p2(-24)) == 0x0001, "f16: 2^-24 -> min subnormal");
  check(floatToHalfBits(p2(-25)) == 0x0000, "f16: 2^-25 tie -> 0");
  check(floatToHalfBits(1.5f * p2(-25)) == 0x0001, "f16: 0.75 unit -> 1");
  check(floatToHalfBits(3 * p2(-25)) == 0x0002, "f16: 1.5 units -> 2");
  check(floatToHalfBits(p2(-14) - p2(-24)) == 0x03ff,
        "f16: largest subnormal");
  check(floatToHalfBits(p2(-30)) == 0x0000, "f16: tiny -> 0");
  check(floatToHalfBits(p2(-14)) == 0x0400, "f16: smallest normal");
  {
    uint16_t h = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
    check((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0, "f16: NaN preserved");
  }
  check(halfBitsToFloat(0x0001) == p2(-24), "f16: min subnormal to float");
  check(halfBitsToFloat(0x7bff) == 65504.0f, "f16: 0x7bff to float");
  check(halfBitsToFloat(0xfc00) == -std::numeric_limits<float>::infinity(),
        "f16: -inf to float");
  check(std::isnan(halfBitsToFloat(0x7e00)), "f16: NaN to float");
  // Every finite half survives the round trip.
  bool allRoundTrip = true;
  for (uint32_t h = 0; h < 0x10000; ++h)
    if ((h & 0x7c00) != 0x7c00)
      allRoundTrip &= floatToHalfBits(halfBitsToFloat(uint16_t(h))) == h;
  check(allRoundTrip, "f16: every finite half round-trips");

  check(roundToModelDType(0.1f, ModelDType::F32) == 0.1f, "round f32: 0.1");
  check(roundToModelDType(0.1f, ModelDType::F16) == 0.0999755859375f,
        "round f16: 0.1");
  check(roundToModelDType(1.0f + 3 * p2(-8), ModelDType::BF16) ==
            1.0f + p2(-6),
        "round bf16: 1+3*2^-8");
  ModelDType t;
  check(parseModelDType("bf16", t) && t == ModelDType::BF16 &&
            parseModelDType("f16", t) && t == ModelDType::F16 &&
            parseModelDType("f32", t) && t == ModelDType::F32 &&
            !parseModelDType("f64", t),
        "parseModelDType");
  check(std::string(toString(ModelDType::BF16)) == "bf16", "toString");
}

//===----------------------------------------------------------------------===//
// .npy files and loadProblem
//===----------------------------------------------------------------------===//

std::string tmpDir;

std::string tmpPath(const std::string &name) { return tmpDir + "/" + name; }

void removeTree(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    if (DIR *d = ::opendir(path.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..")
          removeTree(path + "/" + n);
      }
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

void writeRaw(const std::string &path, const std::string &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (f) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
}

/// A hand-built .npy: magic, version, header length, header dict, data.
std::string rawNpy(int major, const std::string &dict,
                   const std::string &data) {
  std::string h = dict + "\n";
  std::string s = std::string("\x93NUMPY", 6) + char(major) + char(0);
  s += char(h.size() & 0xff);
  s += char(h.size() >> 8);
  if (major >= 2)
    s += std::string(2, '\0');
  return s + h + data;
}

bool errorContains(const std::string &path, const std::string &needle,
                   std::string &error) {
  NpyArray a;
  if (readNpy(path, a, error))
    return false;
  return error.find(needle) != std::string::npos &&
         error.find('\n') == std::string::npos;
}

template <typename T>
NpyArray makeArray(const char *descr, std::vector<int64_t> shape,
                   const std::vector<T> &values) {
  NpyArray a;
  a.descr = descr;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

void testNpy() {
  struct Case {
    const char *name;
    NpyArray a;
  };
  std::vector<Case> cases = {
      {"f4", makeArray<float>("<f4", {2, 3}, {1, -2, 3.5f, 0, 1e-30f, 7})},
      {"f2", makeArray<uint16_t>("<f2", {4}, {0x3c00, 0x2e66, 0x8000, 0x7bff})},
      {"f8", makeArray<double>("<f8", {2, 2}, {0.1, -1e300, 3, 4})},
      {"i4", makeArray<int32_t>("<i4", {3}, {0, -1, 2147483647})},
      {"u4", makeArray<uint32_t>("<u4", {1, 3}, {0, 0xffffffffu, 7})},
      {"b1", makeArray<uint8_t>("|b1", {5}, {1, 0, 0, 1, 1})},
      {"u1", makeArray<uint8_t>("|u1", {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 255})},
      {"scalar", makeArray<float>("<f4", {}, {42})},
      {"empty", makeArray<float>("<f4", {0, 3}, {})},
  };
  for (const Case &c : cases) {
    std::string path = tmpPath(std::string("rt_") + c.name + ".npy");
    std::string error;
    NpyArray back;
    bool ok = writeNpy(path, c.a, error) && readNpy(path, back, error);
    check(ok, std::string("npy round trip ") + c.name + ": " + error);
    check(ok && back.descr == c.a.descr && back.shape == c.a.shape &&
              back.data == c.a.data,
          std::string("npy round trip ") + c.name + ": contents");
    struct stat st;
    check(::stat(path.c_str(), &st) == 0 &&
              (int64_t(st.st_size) - int64_t(c.a.data.size())) % 64 == 0,
          std::string("npy ") + c.name + ": data starts 64-byte aligned");
  }
  check(cases[7].a.numElements() == 1 && cases[8].a.numElements() == 0,
        "numElements of scalar and empty arrays");

  std::string error;
  std::string four(16, '\0');
  // Version 2.0 and 3.0 headers (4-byte length), double quotes, no trailing
  // comma.
  writeRaw(tmpPath("v2.npy"),
           rawNpy(2, "{\"descr\": \"<i4\", \"fortran_order\": False, "
                     "\"shape\": (2, 2)}",
                  four));
  writeRaw(tmpPath("v3.npy"),
           rawNpy(3, "{'shape': (4,), 'fortran_order': False, 'descr': '<f4',}",
                  four));
  {
    NpyArray a;
    check(readNpy(tmpPath("v2.npy"), a, error) && a.descr == "<i4" &&
              a.shape == std::vector<int64_t>{2, 2},
          "npy: reads a version 2.0 header: " + error);
    check(readNpy(tmpPath("v3.npy"), a, error) && a.descr == "<f4" &&
              a.shape == std::vector<int64_t>{4},
          "npy: reads a version 3.0 header: " + error);
  }

  // Each broken file must give a one-line error naming it and the problem.
  writeRaw(tmpPath("magic.npy"), "hello, this is not numpy");
  check(errorContains(tmpPath("magic.npy"), "magic.npy: not a .npy file (bad magic)",
                      error),
        "npy: bad magic -> " + error);
  writeRaw(tmpPath("trunc.npy"),
           rawNpy(1, "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (8,), }",
                  four.substr(0, 10)));
  check(errorContains(tmpPath("trunc.npy"),
                      "trunc.npy: truncated data (expected 32 bytes, found 10)",
                      error),
        "npy: truncated data -> " + error);
  writeRaw(tmpPath("trail.npy"),
           rawNpy(1, "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (2,), }",
                  four.substr(0, 9)));
  check(errorContains(tmpPath("trail.npy"), "trailing data", error),
        "npy: trailing data -> " + error);
  writeRaw(tmpPath("i8.npy"), rawNpy(1, "{'descr': '<i8', 'fortran_order': "
                                        "False, 'shape': (2,), }",
                                     four));
  check(errorContains(tmpPath("i8.npy"), "i8.npy: unsupported dtype '<i8'",
                      error),
        "npy: unsupported dtype -> " + error);
  writeRaw(tmpPath("big.npy"), rawNpy(1, "{'descr': '>f4', 'fortran_order': "
                                         "False, 'shape': (4,), }",
                                      four));
  check(errorContains(tmpPath("big.npy"), "unsupported dtype '>f4'", error),
        "npy: big-endian rejected -> " + error);
  writeRaw(tmpPath("fortran.npy"),
           rawNpy(1, "{'descr': '<f4', 'fortran_order': True, "
                     "'shape': (2, 2), }",
                  four));
  check(errorContains(tmpPath("fortran.npy"),
                      "fortran.npy: Fortran order is not supported", error),
        "npy: Fortran order -> " + error);
  writeRaw(tmpPath("hdr.npy"), rawNpy(1, "{'descr': '<f4', 'shape': (2, 2)",
                                      four));
  check(errorContains(tmpPath("hdr.npy"), "malformed header", error),
        "npy: malformed header -> " + error);
  writeRaw(tmpPath("shorthdr.npy"), std::string("\x93NUMPY\x01\x00\xff\x00{", 11));
  check(errorContains(tmpPath("shorthdr.npy"), "truncated header", error),
        "npy: truncated header -> " + error);
  check(errorContains(tmpPath("nonexistent.npy"), "nonexistent.npy: cannot open",
                      error),
        "npy: missing file -> " + error);
  check(!writeNpy(tmpPath("bad.npy"), makeArray<float>("<f4", {3}, {1, 2}),
                  error),
        "npy: writeNpy rejects data that does not match the shape");
}

/// Writes `p` (a problem in F32) as an ssd-run input directory. The masks
/// take their length from their vectors so tests can make them wrong.
void writeProblem(const std::string &dir, const ScanProblem &p) {
  ::mkdir(dir.c_str(), 0777);
  std::string e;
  auto f32 = [&](const char *name, std::vector<int64_t> shape,
                 const std::vector<float> &v) {
    writeNpy(dir + "/" + name, makeArray<float>("<f4", shape, v), e);
  };
  f32("x.npy", {p.T, p.H, p.P}, p.x);
  f32("dt.npy", {p.T, p.H}, p.dt);
  f32("A.npy", {p.H}, p.A);
  f32("B.npy", {p.T, p.G, p.N}, p.B);
  f32("C.npy", {p.T, p.G, p.N}, p.C);
  if (p.hasD)
    f32("D.npy", {p.H}, p.D);
  if (p.hasDtBias)
    f32("dt_bias.npy", {p.H}, p.dtBias);
  f32("ssm_pool.npy", {p.S, p.H, p.P, p.N}, p.pool);
  writeNpy(dir + "/query_start_loc.npy",
           makeArray<int32_t>("<i4", {p.batch + 1}, p.queryStartLoc), e);
  writeNpy(dir + "/cache_indices.npy",
           makeArray<uint32_t>(p.cacheIndicesUnsigned ? "<u4" : "<i4",
                               p.cacheIndicesRow
                                   ? std::vector<int64_t>{1, p.batch}
                                   : std::vector<int64_t>{p.batch},
                               p.cacheIndices),
           e);
  if (p.hasInitialStatePresent)
    writeNpy(dir + "/has_initial_state.npy",
             makeArray<uint8_t>("|b1", {int64_t(p.hasInitialState.size())},
                                p.hasInitialState), e);
  if (p.updateStatePresent)
    writeNpy(dir + "/update_state.npy",
             makeArray<uint8_t>("|b1", {int64_t(p.updateState.size())},
                                p.updateState), e);
}

/// Expects loadProblem on `p` to fail with a message containing `needle`.
void expectLoadError(const std::string &name, const ScanProblem &p,
                     const std::string &needle) {
  std::string dir = tmpPath(name);
  writeProblem(dir, p);
  ScanProblem loaded;
  std::string error;
  bool ok = loadProblem(dir, ModelDType::F32, loaded, error);
  check(!ok && error.find(needle) != std::string::npos &&
            error.find('\n') == std::string::npos,
        "loadProblem " + name + ": expected an error containing '" + needle +
            "', got " + (ok ? "success" : "'" + error + "'"));
}

void testLoad() {
  // A valid problem: two sequences, the second in a [1, batch] uint32 row
  // with masks, D and dt_bias present.
  ScanProblem p = tinyProblem();
  p.batch = 2;
  p.queryStartLoc = {0, 0, 2};
  p.cacheIndices = {0, 1};
  p.cacheIndicesRow = true;
  p.cacheIndicesUnsigned = true;
  p.hasD = true;
  p.D = {0.1f};
  p.hasDtBias = true;
  p.dtBias = {-0.5f};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1, 0};
  p.updateStatePresent = true;
  p.updateState = {0, 1};
  writeProblem(tmpPath("ok"), p);
  {
    ScanProblem q;
    std::string error;
    bool ok = loadProblem(tmpPath("ok"), ModelDType::F16, q, error);
    check(ok, "loadProblem valid: " + error);
    if (ok) {
      check(q.T == 2 && q.H == 1 && q.P == 1 && q.G == 1 && q.N == 1 &&
                q.S == 2 && q.batch == 2,
            "loadProblem valid: sizes");
      check(q.cacheIndicesRow && q.cacheIndicesUnsigned &&
                q.cacheIndices == std::vector<uint32_t>{0, 1},
            "loadProblem valid: cache_indices");
      check(q.hasD && q.hasDtBias && q.hasInitialStatePresent &&
                q.updateStatePresent &&
                q.hasInitialState == std::vector<uint8_t>{1, 0} &&
                q.updateState == std::vector<uint8_t>{0, 1},
            "loadProblem valid: optional operands");
      // Inputs are rounded to the model dtype (0.1 -> 0.0999755859375 in
      // f16); the pool is not.
      check(q.D[0] == 0.0999755859375f && q.A[0] == roundToModelDType(-kLn2, ModelDType::F16),
            "loadProblem valid: inputs rounded to f16");
      check(q.pool == p.pool, "loadProblem valid: pool not rounded");
    }
  }
  // Optional files absent.
  {
    ScanProblem a = tinyProblem();
    writeProblem(tmpPath("minimal"), a);
    ScanProblem q;
    std::string error;
    check(loadProblem(tmpPath("minimal"), ModelDType::F32, q, error) &&
              !q.hasD && !q.hasDtBias && !q.hasInitialStatePresent &&
              !q.updateStatePresent && q.D.empty() && q.hasInitialState.empty(),
          "loadProblem minimal: " + error);

    // writeOutputs then read back.
    std::vector<float> y = {1, 2}, pool = {3, 4};
    bool ok = writeOutputs(tmpPath("out/nested"), q, y, pool, error);
    NpyArray ya, pa;
    ok = ok && readNpy(tmpPath("out/nested/y.npy"), ya, error) &&
         readNpy(tmpPath("out/nested/ssm_pool.npy"), pa, error);
    check(ok && ya.descr == "<f4" &&
              ya.shape == std::vector<int64_t>{2, 1, 1} &&
              pa.shape == std::vector<int64_t>{2, 1, 1, 1} &&
              std::memcmp(pa.data.data(), pool.data(), 8) == 0,
          "writeOutputs: " + error);
    check(!writeOutputs(tmpPath("out2"), q, {1}, pool, error) &&
              ::access(tmpPath("out2/y.npy").c_str(), F_OK) != 0,
          "writeOutputs: wrong y size fails and writes nothing");
  }

  // Invalid inputs, one per rule.
  {
    ScanProblem b = tinyProblem();
    b.cacheIndices = {2};
    expectLoadError("range", b,
                    "cache_indices.npy: index 2 of sequence 0 is out of range "
                    "for a pool of 2 slots");
  }
  {
    ScanProblem b = tinyProblem();
    b.cacheIndices = {kPaddingSlot};
    writeProblem(tmpPath("padding"), b);
    ScanProblem q;
    std::string error;
    check(loadProblem(tmpPath("padding"), ModelDType::F32, q, error) &&
              q.cacheIndices[0] == kPaddingSlot,
          "loadProblem: -1 is padding, not out of range: " + error);
  }
  {
    ScanProblem b = tinyProblem();
    b.batch = 2;
    b.queryStartLoc = {0, 1, 2};
    b.cacheIndices = {1, 1};
    expectLoadError("twowriters", b,
                    "cache_indices.npy: sequences 0 and 1 both write slot 1");
    // Same slot, but only one writes: valid (tree speculation).
    b.updateStatePresent = true;
    b.updateState = {0, 1};
    writeProblem(tmpPath("onewriter"), b);
    ScanProblem q;
    std::string error;
    check(loadProblem(tmpPath("onewriter"), ModelDType::F32, q, error),
          "loadProblem: readers may share a slot with one writer: " + error);
  }
  {
    ScanProblem b = tinyProblem();
    b.batch = 2;
    b.queryStartLoc = {0, 2, 1};
    b.cacheIndices = {0, 1};
    expectLoadError("qsldecrease", b,
                    "query_start_loc.npy: offsets decrease at sequence 1");
    b.queryStartLoc = {1, 1, 2};
    expectLoadError("qslstart", b, "query_start_loc.npy: first offset is 1");
    b.queryStartLoc = {0, 1, 1};
    expectLoadError("qslend", b, "query_start_loc.npy: last offset is 1, "
                                 "expected T = 2");
  }
  {
    ScanProblem b = tinyProblem();
    b.hasInitialStatePresent = true;
    b.hasInitialState = {1, 0};
    expectLoadError("masklen", b, "has_initial_state.npy: shape [2] does not "
                                  "match [batch] = [1]");
  }
  {
    ScanProblem b = tinyProblem();
    b.H = 2;
    b.A = {-1, -1};
    b.dt = {1, 1, 1, 1};
    b.x = {1, 1, 1, 1};
    b.pool = std::vector<float>(4, 0);
    b.G = 1;
    b.B = {1, 1};
    b.C = {1, 1};
    writeProblem(tmpPath("hg"), b);
    // Rewrite B and C with G = 3, which does not divide H = 2.
    std::string e;
    writeNpy(tmpPath("hg/B.npy"),
             makeArray<float>("<f4", {2, 3, 1}, std::vector<float>(6, 1)), e);
    writeNpy(tmpPath("hg/C.npy"),
             makeArray<float>("<f4", {2, 3, 1}, std::vector<float>(6, 1)), e);
    ScanProblem q;
    std::string error;
    check(!loadProblem(tmpPath("hg"), ModelDType::F32, q, error) &&
              error.find("not a multiple of G = 3") != std::string::npos,
          "loadProblem: H % G != 0 -> " + error);
  }
  {
    // Wrong dtype and rank, and a missing file, patched into a valid dir.
    writeProblem(tmpPath("patch"), tinyProblem());
    std::string e, error;
    ScanProblem q;
    writeNpy(tmpPath("patch/dt.npy"),
             makeArray<double>("<f8", {2, 1}, {1, 1}), e);
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("dt.npy: dtype '<f8' is not float32") !=
                  std::string::npos,
          "loadProblem: float64 rejected -> " + error);
    writeNpy(tmpPath("patch/dt.npy"), makeArray<float>("<f4", {2}, {1, 1}), e);
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("dt.npy: expected rank 2") != std::string::npos,
          "loadProblem: wrong rank -> " + error);
    writeNpy(tmpPath("patch/dt.npy"),
             makeArray<float>("<f4", {3, 1}, {1, 1, 1}), e);
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("dt.npy: shape [3, 1] does not match [T, H] = [2, 1]") !=
                  std::string::npos,
          "loadProblem: inconsistent shape -> " + error);
    ::unlink(tmpPath("patch/dt.npy").c_str());
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("dt.npy: missing required input file") !=
                  std::string::npos,
          "loadProblem: missing file -> " + error);
    writeNpy(tmpPath("patch/dt.npy"), makeArray<float>("<f4", {2, 1}, {1, 1}),
             e);
    writeRaw(tmpPath("patch/query_start_loc.npy"), "garbage");
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("query_start_loc.npy: not a .npy file") !=
                  std::string::npos,
          "loadProblem: non-npy file -> " + error);
    writeNpy(tmpPath("patch/query_start_loc.npy"),
             makeArray<uint32_t>("<u4", {2}, {0, 2}), e);
    check(!loadProblem(tmpPath("patch"), ModelDType::F32, q, error) &&
              error.find("query_start_loc.npy: dtype '<u4' is not int32") !=
                  std::string::npos,
          "loadProblem: qsl dtype -> " + error);
  }
}

} // namespace

int main() {
  char tmpl[] = "/tmp/ssd-reference-test.XXXXXX";
  if (!::mkdtemp(tmpl)) {
    std::printf("ssd-reference-test: cannot create a temporary directory\n");
    return 1;
  }
  tmpDir = tmpl;

  testScan();
  testFloatHelpers();
  testNpy();
  testLoad();

  removeTree(tmpDir);
  if (numFailed) {
    std::printf("ssd-reference-test: %d of %d checks FAILED\n", numFailed,
                numChecks);
    return 1;
  }
  std::printf("ssd-reference-test: %d checks passed\n", numChecks);
  return 0;
}
