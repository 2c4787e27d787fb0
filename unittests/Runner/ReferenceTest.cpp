//===- ReferenceTest.cpp - the reference scan against hand-computed values ===//
//
// The double-precision reference (lib/Runner/Reference.cpp) is what every
// numeric test compares compiled code with, so it is itself checked here on
// problems small enough to compute by hand. Most use A = -ln 2 and d = 1:
// the per-token decay is 1/2.
//
//===----------------------------------------------------------------------===//

#include "RunnerTestUtils.h"

#include "ssd/Runner/Reference.h"

#include <cmath>

using namespace ssd;
using namespace ssd::testing;

namespace {

struct Result {
  std::vector<double> y, pool;
};

Result scan(const ScanProblem &p) {
  Result r;
  std::string error;
  EXPECT_TRUE(referenceScan(p, r.y, r.pool, &error)) << error;
  return r;
}

// decay = exp(1 * -ln2) = 0.5:
//   t0: S = 0.5*0 + 1*2*1 = 2   y0 = 2*4 = 8
//   t1: S = 0.5*2 + 1*3*2 = 7   y1 = 7*5 = 35    pool[1] = 7
TEST(ReferenceScan, PlainRecurrence) {
  Result r = scan(tinyProblem());
  EXPECT_TRUE(valuesNear(r.y, {8, 35}));
  EXPECT_TRUE(valuesNear(r.pool, {9, 7}));
  EXPECT_TRUE(valuesExact({r.pool[0]}, {9})) << "slot 0 is not named";
}

// D = 0.5 adds D*x: y = [8 + 0.5*2, 35 + 0.5*3]; the state is unaffected.
TEST(ReferenceScan, SkipTermD) {
  ScanProblem p = tinyProblem();
  p.hasD = true;
  p.D = {0.5f};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {9, 36.5}));
  EXPECT_TRUE(valuesNear(r.pool, {9, 7}));
}

// d = softplus(0.5 + -0.5) = log1p(exp(0)) = ln2, and with A = -1 the decay
// is exp(-ln2) = 0.5 again:
//   t0: S = ln2*2*1 = 2 ln2                  y0 = 4 * 2 ln2 = 5.5451774
//   t1: S = 0.5*2 ln2 + ln2*3*2 = 7 ln2      y1 = 5 * 7 ln2 = 24.2601513
TEST(ReferenceScan, DtBiasAndSoftplus) {
  ScanProblem p = tinyProblem();
  p.A = {-1};
  p.dt = {0.5f, 0.5f};
  p.hasDtBias = true;
  p.dtBias = {-0.5f};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {5.5451774, 24.2601513}));
  EXPECT_TRUE(valuesNear(r.pool, {9, 4.8520303}));
}

// One token, x = B = C = 1, no initial state, so y = d:
//   dt + bias = -3      -> d = log1p(exp(-3)) = 0.0485873516
//   dt + bias = 30 - 5  -> 25 > 20, so d = 25 exactly
TEST(ReferenceScan, SoftplusBothSidesOfThreshold) {
  for (bool large : {false, true}) {
    ScanProblem p = tinyProblem();
    p.T = 1;
    p.A = {-1};
    p.dt = {large ? 30.0f : -3.0f};
    p.hasDtBias = true;
    p.dtBias = {large ? -5.0f : 0.0f};
    p.x = p.B = p.C = {1};
    p.queryStartLoc = {0, 1};
    Result r = scan(p);
    EXPECT_TRUE(valuesNear(r.y, {large ? 25.0 : 0.0485873516}))
        << (large ? "softplus(25)" : "softplus(-3)");
  }
  EXPECT_EQ(referenceSoftplus(25.0), 25.0);
  EXPECT_EQ(referenceSoftplus(20.5), 20.5);
}

// Initial state 4 from slot 1:
//   t0: S = 0.5*4 + 1*2*1 = 4   y0 = 16
//   t1: S = 0.5*4 + 1*3*2 = 8   y1 = 40    pool[1] = 8
TEST(ReferenceScan, InitialState) {
  ScanProblem p = tinyProblem();
  p.pool = {9, 4};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {16, 40}));
  EXPECT_TRUE(valuesNear(r.pool, {9, 8}));
}

// has_initial_state present but false: starts from zero although slot 1
// holds 4.
TEST(ReferenceScan, InitialStateFlagFalse) {
  ScanProblem p = tinyProblem();
  p.pool = {9, 4};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {0};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {8, 35}));
  EXPECT_TRUE(valuesNear(r.pool, {9, 7}));
}

// update_state false: y as with the initial state, but the slot keeps its 4.
TEST(ReferenceScan, UpdateStateFalse) {
  ScanProblem p = tinyProblem();
  p.pool = {9, 4};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1};
  p.updateStatePresent = true;
  p.updateState = {0};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {16, 40}));
  EXPECT_TRUE(valuesExact(r.pool, {9, 4}));
}

// A padding sequence (index 0xFFFFFFFF) with has_initial_state true starts
// from zero anyway and writes nothing.
TEST(ReferenceScan, PaddingSequence) {
  ScanProblem p = tinyProblem();
  p.pool = {9, 4};
  p.cacheIndices = {kPaddingSlot};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {8, 35}));
  EXPECT_TRUE(valuesExact(r.pool, {9, 4}));
}

// A zero-length sequence 0 (slot 0) before the two-token sequence 1 (slot
// 1), qsl = [0, 0, 2]: sequence 0 still writes its initial state.
//  (a) no initial state: slot 0 becomes 0; sequence 1 as plain.
//  (b) initial states, pool [9, 4]: slot 0 gets its own 9 back; sequence 1
//      as with the initial state (16, 40; slot 1 = 8).
TEST(ReferenceScan, ZeroLengthSequenceWritesItsState) {
  ScanProblem p = tinyProblem();
  p.batch = 2;
  p.queryStartLoc = {0, 0, 2};
  p.cacheIndices = {0, 1};
  Result a = scan(p);
  EXPECT_TRUE(valuesNear(a.y, {8, 35}));
  EXPECT_TRUE(valuesNear(a.pool, {0, 7}));

  p.pool = {9, 4};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1, 1};
  Result b = scan(p);
  EXPECT_TRUE(valuesNear(b.y, {16, 40}));
  EXPECT_TRUE(valuesNear(b.pool, {9, 8}));
}

// G = 2, H = 4: heads 0, 1 use group 0 and heads 2, 3 group 1 (h / (H/G),
// not h % G). One token, no initial state, d = 1:
//   x = [1, 2, 3, 4], B = [2, 3], C = [5, 7] (per group)
//   S_h = x_h B_g = [2, 4, 9, 12], y_h = S_h C_g = [10, 20, 63, 84]
// (h % G would give [10, 42, 30, 84].)
TEST(ReferenceScan, GroupMapping) {
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
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {10, 20, 63, 84}));
  EXPECT_TRUE(valuesNear(r.pool, {2, 4, 9, 12}));
}

// P = N = 2: the state is the outer product x Bᵀ ([p][n] layout), y = S C.
//   t0: x = [1, 2], B = [3, 4], C = [5, 6]
//       S = [[3, 4], [6, 8]]                 y0 = [39, 78]
//   t1: x = [1, -1], B = [1, 0], C = [0, 1], decay 0.5
//       S = [[1.5 + 1, 2], [3 - 1, 4]]       y1 = [2, 4]
TEST(ReferenceScan, OuterProductLayout) {
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
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {39, 78, 2, 4}));
  EXPECT_TRUE(valuesNear(r.pool, {2.5, 2, 2, 4}));
}

// Tree speculation: three one-token sequences read slot 0 (state 4); only
// the middle one writes. Every reader sees the state from before the op:
//   x = [1, 3, 5], B = C = 1: y_b = 0.5*4 + x_b = [3, 5, 7]; slot 0 = 5,
//   and sequence 2 must not see it (7, not 7.5).
TEST(ReferenceScan, TreeSpeculationReadsTheOldState) {
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
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {3, 5, 7}));
  EXPECT_TRUE(valuesNear(r.pool, {5}));
}

// State checkpoints on a scalar recurrence: decay 0.5, d = B = C = 1,
// x = [2, 4, 6, 8, 10], sequence in slot 0, pool [9, 9, 9, 9, 9]:
//   S after token j = 0..4: 2, 1 + 4 = 5, 2.5 + 6 = 8.5, 4.25 + 8 = 12.25,
//   6.125 + 10 = 16.125.
ScanProblem checkpointProblem(int64_t interval, std::vector<uint32_t> slots,
                              std::vector<int32_t> offsets) {
  ScanProblem p;
  p.T = 5;
  p.H = p.P = p.G = p.N = 1;
  p.S = 5;
  p.batch = 1;
  p.A = {-kLn2};
  p.dt = {1, 1, 1, 1, 1};
  p.x = {2, 4, 6, 8, 10};
  p.B = p.C = {1, 1, 1, 1, 1};
  p.pool = {9, 9, 9, 9, 9};
  p.queryStartLoc = {0, 5};
  p.cacheIndices = {0};
  p.checkpointInterval = interval;
  p.checkpointSlotsPresent = true;
  p.checkpointK = int64_t(slots.size());
  p.checkpointSlots = std::move(slots);
  p.checkpointOffsetsPresent = !offsets.empty();
  p.checkpointOffsets = std::move(offsets);
  return p;
}

// I = 2, no offsets: the sequence holds 2 tokens after j = 1 (boundary 0)
// and 4 after j = 3 (boundary 1): slot 1 = 5, slot 2 = 12.25. The final
// state 16.125 goes to slot 0; y is unchanged by checkpoints.
TEST(ReferenceScan, CheckpointsEveryTwoTokens) {
  Result r = scan(checkpointProblem(2, {1, 2}, {}));
  EXPECT_TRUE(valuesNear(r.y, {2, 5, 8.5, 12.25, 16.125}));
  EXPECT_TRUE(valuesNear(r.pool, {16.125, 5, 12.25, 9, 9}));
}

// Offset o = 1 (one token held before): after j the sequence holds j + 2
// tokens, so boundaries fall after j = 0 (2 tokens, k = 2/2 - 1/2 - 1 = 0),
// j = 2 (k = 1) and j = 4 (k = 2): slots 1, 2, 3 = 2, 8.5, 16.125.
TEST(ReferenceScan, CheckpointsWithOffset) {
  Result r = scan(checkpointProblem(2, {1, 2, 3}, {1}));
  EXPECT_TRUE(valuesNear(r.pool, {16.125, 2, 8.5, 16.125, 9}));
  // o = 3: boundaries after j = 0 (4 tokens, k = 2 - 1 - 1 = 0) and j = 2
  // (6 tokens, k = 1); j = 4 holds 8 (k = 2 >= K = 2: not written).
  r = scan(checkpointProblem(2, {1, 2}, {3}));
  EXPECT_TRUE(valuesNear(r.pool, {16.125, 2, 8.5, 9, 9}));
}

// I = 1: one state per token, boundary k after token j = k. With K = 4 and
// column 2 unused (-1), the states 2, 5, 12.25 of j = 0, 1, 3 go to slots
// 1, 2, 3; 8.5 (unused column) and 16.125 (k = 4 >= K) are not stored as
// checkpoints, and slots 4 and 5 keep their 9.
TEST(ReferenceScan, CheckpointsEveryTokenUnusedAndBeyondK) {
  ScanProblem p = checkpointProblem(1, {1, 2, kPaddingSlot, 3}, {});
  p.S = 6;
  p.pool.push_back(9);
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.pool, {16.125, 2, 5, 12.25, 9, 9}));
}

// Draft trees: token_parents [-1, 0, 0, 1, -1] over x = [2, 4, 6, 8, 10]
// (decay 1/2, B = C = 1, starting from zero):
//   t0 (root):       S = 2            t1 (parent 0): S = 1 + 4 = 5
//   t2 (parent 0):   S = 1 + 6 = 7    t3 (parent 1): S = 2.5 + 8 = 10.5
//   t4 (root again): S = 10
// y is each token's state; the final state is the last token's (10), and
// column j of the checkpoints gets token j's state.
/// checkpointProblem's five tokens with a state per token into slots 1-4
/// and the given parents.
ScanProblem treeProblem(std::vector<int32_t> parents) {
  ScanProblem p = checkpointProblem(1, {1, 2, 3, 4}, {});
  p.tokenParentsPresent = true;
  p.tokenParents = std::move(parents);
  return p;
}

TEST(ReferenceScan, TreeFollowsParents) {
  Result r = scan(treeProblem({-1, 0, 0, 1, -1}));
  EXPECT_TRUE(valuesNear(r.y, {2, 5, 7, 10.5, 10}));
  EXPECT_TRUE(valuesNear(r.pool, {10, 2, 5, 7, 10.5}));
}

// The same tree from an initial state of 9: each root starts from it.
//   t0: 4.5 + 2 = 6.5   t1: 3.25 + 4 = 7.25   t2: 3.25 + 6 = 9.25
//   t3: 3.625 + 8 = 11.625   t4: 4.5 + 10 = 14.5
TEST(ReferenceScan, TreeRootsStartFromTheInitialState) {
  ScanProblem p = treeProblem({-1, 0, 0, 1, -1});
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1};
  Result r = scan(p);
  EXPECT_TRUE(valuesNear(r.y, {6.5, 7.25, 9.25, 11.625, 14.5}));
  EXPECT_TRUE(valuesNear(r.pool, {14.5, 6.5, 7.25, 9.25, 11.625}));
}

// A chain written as explicit parents is the op without token_parents, to
// the bit.
TEST(ReferenceScan, TreeChainEqualsNoParents) {
  Result plain = scan(checkpointProblem(1, {1, 2, 3, 4}, {}));
  Result explicitChain = scan(treeProblem({-1, 0, 1, 2, 3}));
  EXPECT_TRUE(valuesExact(explicitChain.y, plain.y));
  EXPECT_TRUE(valuesExact(explicitChain.pool, plain.pool));
}

// Checkpoints are written whatever update_state says, and never for
// padding sequences.
TEST(ReferenceScan, CheckpointsWithoutUpdateAndPadding) {
  ScanProblem p = checkpointProblem(2, {1, 2}, {});
  p.updateStatePresent = true;
  p.updateState = {0};
  Result r = scan(p);
  EXPECT_TRUE(valuesExact({r.pool[0]}, {9})) << "update_state is false";
  EXPECT_TRUE(valuesNear(r.pool, {9, 5, 12.25, 9, 9}));

  p = checkpointProblem(2, {1, 2}, {});
  p.cacheIndices = {kPaddingSlot};
  r = scan(p);
  EXPECT_TRUE(valuesExact(r.pool, {9, 9, 9, 9, 9}));
}

// Checkpoints of a bf16 pool are rounded like final states: once, from
// double. With x = [1 + 2^-8 + 2^-20] and no decay history, the state after
// token 0 is x itself, just above the bf16 tie: it rounds up to 1 + 2^-7.
TEST(ReferenceScan, CheckpointsRoundedLikeFinalStates) {
  ScanProblem p = checkpointProblem(1, {1}, {});
  p.poolDType = PoolDType::BF16;
  p.x[0] = 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20);
  Result r = scan(p);
  std::vector<float> yOut, poolOut;
  roundOutputs(p, r.y, r.pool, yOut, poolOut);
  EXPECT_EQ(poolOut[1], 1.0f + std::ldexp(1.0f, -7));
}

// y is rounded once, from double, to the model dtype. 1 + 2^-8 + 2^-30 lies
// just above the bf16 tie between 1 and 1 + 2^-7, so it rounds up; rounding
// through float first would land on the tie and go to 1. The pool is
// rounded to float32 only.
TEST(ReferenceScan, OutputsRoundedOnceFromDouble) {
  ScanProblem p = tinyProblem();
  p.dtype = ModelDType::BF16;
  std::vector<double> y = {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30),
                           0.1};
  std::vector<double> pool = {0.1, 1.0 + std::ldexp(1.0, -8)};
  std::vector<float> yOut, poolOut;
  roundOutputs(p, y, pool, yOut, poolOut);
  ASSERT_EQ(yOut.size(), 2u);
  EXPECT_EQ(yOut[0], 1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(yOut[1], bf16BitsToFloat(0x3dcd));
  ASSERT_EQ(poolOut.size(), 2u);
  EXPECT_EQ(poolOut[0], 0.1f);
  EXPECT_EQ(poolOut[1], 1.0f + std::ldexp(1.0f, -8));

  // f16: 1 + 2^-11 + 2^-40 is above the tie between 1 and 1 + 2^-10.
  p.dtype = ModelDType::F16;
  y = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 0.1};
  roundOutputs(p, y, pool, yOut, poolOut);
  EXPECT_EQ(yOut[0], 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(yOut[1], 0.0999755859375f);
}

} // namespace
