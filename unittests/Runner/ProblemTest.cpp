//===- ProblemTest.cpp - loadProblem's validation and writeOutputs --------===//
//
// loadProblem is the gate every ssd-run input passes: a valid directory
// loads with its optional operands and rounding, and every rule of the op's
// contract that a file can break gives a one-line error naming the file.
//
//===----------------------------------------------------------------------===//

#include "RunnerTestUtils.h"

#include <unistd.h>

using namespace ssd;
using namespace ssd::testing;

namespace {

class LoadProblemTest : public TempDirTest {
protected:
  /// loadProblem on directory `name`, expected to fail with one line.
  std::string loadError(const std::string &name) {
    ScanProblem loaded;
    std::string error;
    EXPECT_FALSE(loadProblem(path(name), ModelDType::F32, loaded, error))
        << name << " was accepted";
    EXPECT_EQ(error.find('\n'), std::string::npos) << "not one line: " << error;
    return error;
  }
  std::string loadError(const std::string &name, const ScanProblem &p) {
    writeProblem(name, p);
    return loadError(name);
  }
};

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "'" << (haystack) << "' does not contain '" << (needle) << "'"

// Two sequences, cache_indices as a [1, batch] uint32 row, masks, D and
// dt_bias present, loaded as f16.
TEST_F(LoadProblemTest, ValidDirectoryWithEveryOptionalOperand) {
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
  writeProblem("ok", p);

  ScanProblem q;
  std::string error;
  ASSERT_TRUE(loadProblem(path("ok"), ModelDType::F16, q, error)) << error;
  EXPECT_EQ(q.T, 2);
  EXPECT_EQ(q.H, 1);
  EXPECT_EQ(q.P, 1);
  EXPECT_EQ(q.G, 1);
  EXPECT_EQ(q.N, 1);
  EXPECT_EQ(q.S, 2);
  EXPECT_EQ(q.batch, 2);
  EXPECT_TRUE(q.cacheIndicesRow);
  EXPECT_TRUE(q.cacheIndicesUnsigned);
  EXPECT_EQ(q.cacheIndices, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(q.hasD && q.hasDtBias && q.hasInitialStatePresent &&
              q.updateStatePresent);
  EXPECT_EQ(q.hasInitialState, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(q.updateState, (std::vector<uint8_t>{0, 1}));
  // Inputs are rounded to the model dtype (0.1 -> 0.0999755859375 in f16);
  // the pool is not.
  EXPECT_EQ(q.D[0], 0.0999755859375f);
  EXPECT_EQ(q.A[0], roundToModelDType(-kLn2, ModelDType::F16));
  EXPECT_EQ(q.pool, p.pool);
}

TEST_F(LoadProblemTest, OptionalFilesAbsentAndOutputsWritten) {
  writeProblem("minimal", tinyProblem());
  ScanProblem q;
  std::string error;
  ASSERT_TRUE(loadProblem(path("minimal"), ModelDType::F32, q, error)) << error;
  EXPECT_FALSE(q.hasD || q.hasDtBias || q.hasInitialStatePresent ||
               q.updateStatePresent);
  EXPECT_TRUE(q.D.empty() && q.hasInitialState.empty());

  // writeOutputs creates the nested directory; the files read back.
  std::vector<float> y = {1, 2}, pool = {3, 4};
  ASSERT_TRUE(writeOutputs(path("out/nested"), q, y, pool, error)) << error;
  NpyArray ya, pa;
  ASSERT_TRUE(readNpy(path("out/nested/y.npy"), ya, error)) << error;
  ASSERT_TRUE(readNpy(path("out/nested/ssm_pool.npy"), pa, error)) << error;
  EXPECT_EQ(ya.descr, "<f4");
  EXPECT_EQ(ya.shape, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(pa.shape, (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(std::memcmp(pa.data.data(), pool.data(), 8), 0);

  // A wrong y size fails and writes nothing.
  EXPECT_FALSE(writeOutputs(path("out2"), q, {1}, pool, error));
  EXPECT_NE(::access(path("out2/y.npy").c_str(), F_OK), 0);
}

TEST_F(LoadProblemTest, SlotOutOfRange) {
  ScanProblem b = tinyProblem();
  b.cacheIndices = {2};
  EXPECT_CONTAINS(loadError("range", b),
                  "cache_indices.npy: index 2 of sequence 0 is out of range "
                  "for a pool of 2 slots");
}

TEST_F(LoadProblemTest, PaddingIsNotOutOfRange) {
  ScanProblem b = tinyProblem();
  b.cacheIndices = {kPaddingSlot};
  writeProblem("padding", b);
  ScanProblem q;
  std::string error;
  ASSERT_TRUE(loadProblem(path("padding"), ModelDType::F32, q, error)) << error;
  EXPECT_EQ(q.cacheIndices[0], kPaddingSlot);
}

TEST_F(LoadProblemTest, OneWriterPerSlot) {
  ScanProblem b = tinyProblem();
  b.batch = 2;
  b.queryStartLoc = {0, 1, 2};
  b.cacheIndices = {1, 1};
  EXPECT_CONTAINS(loadError("twowriters", b),
                  "cache_indices.npy: sequences 0 and 1 both write slot 1");
  // The same slot with one writer is valid (tree speculation).
  b.updateStatePresent = true;
  b.updateState = {0, 1};
  writeProblem("onewriter", b);
  ScanProblem q;
  std::string error;
  EXPECT_TRUE(loadProblem(path("onewriter"), ModelDType::F32, q, error))
      << error;
}

TEST_F(LoadProblemTest, QueryStartLocRules) {
  ScanProblem b = tinyProblem();
  b.batch = 2;
  b.cacheIndices = {0, 1};
  b.queryStartLoc = {0, 2, 1};
  EXPECT_CONTAINS(loadError("qsldecrease", b),
                  "query_start_loc.npy: offsets decrease at sequence 1");
  b.queryStartLoc = {1, 1, 2};
  EXPECT_CONTAINS(loadError("qslstart", b),
                  "query_start_loc.npy: first offset is 1");
  b.queryStartLoc = {0, 1, 1};
  EXPECT_CONTAINS(loadError("qslend", b),
                  "query_start_loc.npy: last offset is 1, expected T = 2");
}

TEST_F(LoadProblemTest, MaskLength) {
  ScanProblem b = tinyProblem();
  b.hasInitialStatePresent = true;
  b.hasInitialState = {1, 0};
  EXPECT_CONTAINS(
      loadError("masklen", b),
      "has_initial_state.npy: shape [2] does not match [batch] = [1]");
}

TEST_F(LoadProblemTest, HeadsMultipleOfGroups) {
  ScanProblem b = tinyProblem();
  b.H = 2;
  b.A = {-1, -1};
  b.dt = {1, 1, 1, 1};
  b.x = {1, 1, 1, 1};
  b.pool = std::vector<float>(4, 0);
  b.B = b.C = {1, 1};
  writeProblem("hg", b);
  // B and C rewritten with G = 3, which does not divide H = 2.
  std::string e;
  ASSERT_TRUE(writeNpy(
      path("hg/B.npy"),
      makeArray<float>("<f4", {2, 3, 1}, std::vector<float>(6, 1)), e));
  ASSERT_TRUE(writeNpy(
      path("hg/C.npy"),
      makeArray<float>("<f4", {2, 3, 1}, std::vector<float>(6, 1)), e));
  EXPECT_CONTAINS(loadError("hg"), "not a multiple of G = 3");
}

// Wrong dtype, rank, shape, a missing file and a non-.npy file, each patched
// into a valid directory.
TEST_F(LoadProblemTest, FileLevelErrors) {
  writeProblem("patch", tinyProblem());
  std::string e;
  ASSERT_TRUE(writeNpy(path("patch/dt.npy"),
                       makeArray<double>("<f8", {2, 1}, {1, 1}), e));
  EXPECT_CONTAINS(loadError("patch"), "dt.npy: dtype '<f8' is not float32");
  ASSERT_TRUE(
      writeNpy(path("patch/dt.npy"), makeArray<float>("<f4", {2}, {1, 1}), e));
  EXPECT_CONTAINS(loadError("patch"), "dt.npy: expected rank 2");
  ASSERT_TRUE(writeNpy(path("patch/dt.npy"),
                       makeArray<float>("<f4", {3, 1}, {1, 1, 1}), e));
  EXPECT_CONTAINS(loadError("patch"),
                  "dt.npy: shape [3, 1] does not match [T, H] = [2, 1]");
  ::unlink(path("patch/dt.npy").c_str());
  EXPECT_CONTAINS(loadError("patch"), "dt.npy: missing required input file");
  ASSERT_TRUE(writeNpy(path("patch/dt.npy"),
                       makeArray<float>("<f4", {2, 1}, {1, 1}), e));
  writeRaw("patch/query_start_loc.npy", "garbage");
  EXPECT_CONTAINS(loadError("patch"), "query_start_loc.npy: not a .npy file");
  ASSERT_TRUE(writeNpy(path("patch/query_start_loc.npy"),
                       makeArray<uint32_t>("<u4", {2}, {0, 2}), e));
  EXPECT_CONTAINS(loadError("patch"),
                  "query_start_loc.npy: dtype '<u4' is not int32");
}

// token_parents.npy: int32, [T], and every parent in [-1, j) of its
// sequence, the message naming the sequence, the token and the value.
TEST_F(LoadProblemTest, TokenParents) {
  writeProblem("tree", tinyProblem());
  std::string e;
  ASSERT_TRUE(writeNpy(path("tree/token_parents.npy"),
                       makeArray<int32_t>("<i4", {2}, {-1, 0}), e));
  ScanProblem loaded;
  ASSERT_TRUE(loadProblem(path("tree"), ModelDType::F32, loaded, e)) << e;
  EXPECT_TRUE(loaded.tokenParentsPresent);
  EXPECT_EQ(loaded.tokenParents, (std::vector<int32_t>{-1, 0}));
  ASSERT_TRUE(writeNpy(path("tree/token_parents.npy"),
                       makeArray<int32_t>("<i4", {2}, {-1, 1}), e));
  EXPECT_CONTAINS(loadError("tree"),
                  "token_parents.npy: parent 1 of token 1 (token 1 of "
                  "sequence 0) is outside [-1, 1)");
  ASSERT_TRUE(writeNpy(path("tree/token_parents.npy"),
                       makeArray<int32_t>("<i4", {2}, {-2, 0}), e));
  EXPECT_CONTAINS(loadError("tree"), "parent -2 of token 0 (token 0 of "
                                     "sequence 0) is outside [-1, 0)");
  ASSERT_TRUE(writeNpy(path("tree/token_parents.npy"),
                       makeArray<int32_t>("<i4", {3}, {-1, 0, 1}), e));
  EXPECT_CONTAINS(loadError("tree"), "token_parents.npy: shape [3] does not "
                                     "match [T] = [2]");
  ASSERT_TRUE(writeNpy(path("tree/token_parents.npy"),
                       makeArray<uint32_t>("<u4", {2}, {0, 0}), e));
  EXPECT_CONTAINS(loadError("tree"),
                  "token_parents.npy: dtype '<u4' is not int32");
}

// checkTreeContract: parents are local to each sequence, and checkpoints
// must come one per token.
TEST(CheckTreeContractTest, ParentsAreLocalToTheirSequence) {
  ScanProblem p;
  p.T = 5, p.S = 4, p.batch = 2;
  p.queryStartLoc = {0, 2, 5};
  p.cacheIndices = {0, 1};
  p.tokenParentsPresent = true;
  p.tokenParents = {-1, 0, -1, 0, 0};
  std::string error;
  EXPECT_TRUE(checkTreeContract(p, error)) << error;
  p.tokenParents = {-1, 0, -1, 0, 2};
  EXPECT_FALSE(checkTreeContract(p, error));
  EXPECT_EQ(error, "parent 2 of token 4 (token 2 of sequence 1) is outside "
                   "[-1, 2): a parent is an earlier token of its sequence, "
                   "or -1 for its initial state");
  p.tokenParents = {-1, 0, -1, 0, 1};
  p.checkpointSlotsPresent = true;
  p.checkpointInterval = 2;
  p.checkpointK = 1;
  p.checkpointSlots = {2, 3};
  EXPECT_FALSE(checkTreeContract(p, error));
  EXPECT_CONTAINS(error, "needs checkpoint interval 1");
  p.checkpointInterval = 1;
  EXPECT_TRUE(checkTreeContract(p, error)) << error;
  p.tokenParents.pop_back();
  EXPECT_FALSE(checkTreeContract(p, error));
  EXPECT_EQ(error, "has 4 entries, expected T = 5");
}

// checkIndexContract without files (the torch op's caller): the first
// sequence that breaks a rule is the one reported, whichever rule it breaks.
TEST(CheckIndexContractTest, FirstBrokenRuleIsReported) {
  ScanProblem p;
  p.T = 4, p.S = 3, p.batch = 4;
  p.queryStartLoc = {0, 1, 2, 3, 4};
  std::string operand, error;
  p.cacheIndices = {1, 2, 1, 2};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_EQ(operand, "cache_indices");
  EXPECT_EQ(error, "sequences 0 and 2 both write slot 1 (at most one writer "
                   "per slot)");
  p.cacheIndices = {2, 0, 1, 2};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_CONTAINS(error, "sequences 0 and 3 both write slot 2");
  // Sequence 2 is the first second writer, though slot 1's pair sorts first.
  p.cacheIndices = {2, 1, 2, 1};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_CONTAINS(error, "sequences 0 and 2 both write slot 2");
  p.cacheIndices = {1, 7, 1, kPaddingSlot};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_CONTAINS(error, "index 7 of sequence 1 is out of range for a pool "
                         "of 3 slots");
  p.cacheIndices = {1, kPaddingSlot, 1, 5};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_CONTAINS(error, "sequences 0 and 2 both write slot 1");
  // Readers do not count as writers.
  p.updateStatePresent = true;
  p.updateState = {1, 0, 0, 0};
  p.cacheIndices = {1, 1, 1, kPaddingSlot};
  EXPECT_TRUE(checkIndexContract(p, operand, error)) << error;
  p.queryStartLoc = {0, 1, 1, 3, 2};
  EXPECT_FALSE(checkIndexContract(p, operand, error));
  EXPECT_EQ(operand, "query_start_loc");
  EXPECT_EQ(error, "offsets decrease at sequence 3 (3 then 2)");
  p.queryStartLoc = {0, 1, 1, 3, 3};
  EXPECT_FALSE(checkIndexContract(p, operand, error, "x"));
  EXPECT_EQ(error, "last offset is 3, expected T = 4 (from x)");
}

// checkCheckpointContract: the first offending entry in row-major order is
// reported, whichever rule it breaks.
TEST(CheckCheckpointContractTest, FirstOffendingEntryIsReported) {
  ScanProblem p;
  p.T = 3, p.S = 10, p.batch = 3;
  p.queryStartLoc = {0, 1, 2, 3};
  p.cacheIndices = {0, 1, kPaddingSlot};
  p.hasInitialStatePresent = true;
  p.hasInitialState = {1, 0, 1}; // 0 reads slot 0, 1 writes slot 1 only
  p.checkpointInterval = 1;
  p.checkpointSlotsPresent = true;
  p.checkpointK = 2;
  std::string operand, error;
  p.checkpointSlots = {2, 3, 4, kPaddingSlot, 5, 6};
  EXPECT_TRUE(checkCheckpointContract(p, operand, error)) << error;

  p.checkpointSlots = {2, 3, 4, 10, 5, 6};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_EQ(operand, "checkpoint_slots");
  EXPECT_EQ(error, "slot 10 at sequence 1, column 1 is out of range for a "
                   "pool of 10 slots (only -1 marks an unused entry)");
  p.checkpointSlots = {2, 3, 4, 0, 5, 6};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_EQ(error, "slot 0 at sequence 1, column 1 is the initial state "
                   "sequence 0 reads (checkpoint slots must differ from every "
                   "slot the call reads or writes)");
  p.checkpointSlots = {2, 3, 1, 0, 5, 6};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_CONTAINS(error, "slot 1 at sequence 1, column 0 is the final state "
                         "sequence 1 writes");
  // A repeat after a clash: the earlier entry (the repeat) is reported.
  p.checkpointSlots = {2, 3, 3, 0, 5, 6};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_EQ(error, "slot 3 at sequence 1, column 0 repeats sequence 0, "
                   "column 1 (checkpoint slots must be distinct)");
  // Padding rows count for distinctness.
  p.checkpointSlots = {2, 3, 4, 5, 6, 2};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_CONTAINS(error, "slot 2 at sequence 2, column 1 repeats sequence 0, "
                         "column 0");
  // A padding sequence's cache index names no slot to avoid.
  p.checkpointSlots = {2, 3, 4, 5, 6, 7};
  p.checkpointOffsetsPresent = true;
  p.checkpointOffsets = {0, 5, -1};
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_EQ(operand, "checkpoint_offsets");
  EXPECT_EQ(error, "offset -1 of sequence 2 is negative (tokens held before "
                   "this call)");
  p.checkpointOffsets = {0, 5, 0};
  EXPECT_TRUE(checkCheckpointContract(p, operand, error)) << error;
  p.checkpointSlotsPresent = false;
  EXPECT_FALSE(checkCheckpointContract(p, operand, error));
  EXPECT_EQ(operand, "checkpoint_offsets");
}

} // namespace
