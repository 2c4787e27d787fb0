//===- Problem.h - one scan problem on the host ----------------*- C++ -*-===//
//
// Loads the input directory of ssd-run (docs/overview.md, "Files of
// ssd-run"), validates it against the operation's contract (docs/overview.md,
// "The op") and writes the outputs.
// Plain C++17 with no exceptions; failures are one-line messages naming the
// file and the problem.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_RUNNER_PROBLEM_H
#define SSD_RUNNER_PROBLEM_H

#include "ssd/Support/EnumName.h"
#include <cstdint>

#include <map>
#include <string>
#include <vector>

namespace ssd {

enum class ModelDType { F32, F16, BF16 };

/// Element type of the state pool (storage only: the op reads it as f32 and
/// rounds what it writes; docs/overview.md, "Compressed state pools"): f32,
/// bf16 or f16, or 8-bit codes with a float32 scale per row (f8E4M3FN, i8).
/// For the 16-bit types ssm_pool.npy holds float32 (or float16) values,
/// rounded to the type on load, and the pool written back holds the type's
/// values as float32; for the 8-bit types it holds the codes (uint8 bit
/// patterns of f8E4M3FN, or int8) beside ssm_pool_scales.npy
/// (docs/overview.md, "Files of ssd-run").
enum class PoolDType { F32, BF16, F16, F8E4M3FN, I8 };

/// The rounding of every pool write (the op's pool_rounding).
enum class PoolRounding { NearestEven, Stochastic };

/// How the tools and the torch op spell the dtypes.
inline constexpr mlir::ssd::EnumName<ModelDType> kModelDTypeNames[] = {
    {ModelDType::F32, "f32", "float32"},
    {ModelDType::F16, "f16", "float16"},
    {ModelDType::BF16, "bf16", "bfloat16"},
};
inline constexpr mlir::ssd::EnumName<PoolDType> kPoolDTypeNames[] = {
    {PoolDType::F32, "f32", "float32 states"},
    {PoolDType::BF16, "bf16", "bfloat16 states"},
    {PoolDType::F16, "f16", "float16 states"},
    {PoolDType::F8E4M3FN, "f8e4m3",
     "f8E4M3FN codes with a float32 scale per row"},
    {PoolDType::I8, "i8",
     "int8 codes (-127..127) with a float32 scale per row"},
};
inline constexpr mlir::ssd::EnumName<PoolRounding> kPoolRoundingNames[] = {
    {PoolRounding::NearestEven, "nearest", "to nearest, ties to even"},
    {PoolRounding::Stochastic, "stochastic",
     "stochastically, with bits from --rounding-seed"},
};

/// True for the pools of 8-bit codes with a scale per row.
inline bool isScaledPool(PoolDType t) {
  return t == PoolDType::F8E4M3FN || t == PoolDType::I8;
}
/// The pool's memref element type as MLIR spells it ("f32", "bf16", "f16",
/// "f8E4M3FN", "i8").
const char *poolElementType(PoolDType t);
/// Bytes of one stored pool element.
size_t poolElementBytes(PoolDType t);

/// Parses "f32", "bf16", "f16", "f8e4m3" or "i8".
bool parsePoolDType(const std::string &s, PoolDType &out);
/// "f32", "bf16", "f16", "f8e4m3" or "i8".
const char *toString(PoolDType t);
/// "nearest" or "stochastic".
const char *toString(PoolRounding r);

/// Parses "f32", "f16" or "bf16".
bool parseModelDType(const std::string &s, ModelDType &out);
/// "f32", "f16" or "bf16".
const char *toString(ModelDType t);
/// A tool's `flag` (e.g. "--dtype") parsed as a model dtype or a pool dtype;
/// false with the one-line error "unknown FLAG 'VALUE' (expected ...)".
bool parseModelDTypeFlag(const std::string &flag, const std::string &value,
                         ModelDType &out, std::string &error);
bool parsePoolDTypeFlag(const std::string &flag, const std::string &value,
                        PoolDType &out, std::string &error);
/// The tools' --pool-dtype and --pool-rounding together: false with the
/// one-line error when stochastic rounding is asked of an f32 pool.
bool checkPoolRoundingFlags(PoolDType pool, PoolRounding rounding,
                            std::string &error);
/// Rounds to the nearest value of the model dtype (ties to even) and returns
/// it widened back to float.
float roundToModelDType(float v, ModelDType t);
/// Same, straight from double with a single rounding (going through float
/// first could round twice and differ in the last bit).
float roundDoubleToModelDType(double v, ModelDType t);

struct ScanProblem {
  int64_t T = 0, H = 0, P = 0, G = 0, N = 0, S = 0, batch = 0;
  ModelDType dtype = ModelDType::F32;
  PoolDType poolDType = PoolDType::F32;
  /// Row-major in the shapes of docs/overview.md, already rounded to `dtype`:
  /// x [T,H,P], dt [T,H], A [H], B [T,G,N], C [T,G,N].
  std::vector<float> x, dt, A, B, C;
  bool hasD = false, hasDtBias = false;
  /// [H] each, rounded to `dtype`; empty when absent.
  std::vector<float> D, dtBias;
  /// [S,H,P,N] float32 exactly as read (f32 pool), rounded to bf16 or f16
  /// (16-bit pools), or the 8-bit codes decoded (code * scale, one f32
  /// multiplication): what the op reads.
  std::vector<float> pool;
  /// 8-bit pools only (else empty): [S,H,P,N] codes as stored (f8E4M3FN bit
  /// patterns or int8 two's complement) and [S,H,P] float32 scales.
  std::vector<uint8_t> poolCodes;
  std::vector<float> poolScales;
  /// The op's pool_rounding and, when stochastic, its rounding_seed.
  PoolRounding poolRounding = PoolRounding::NearestEven;
  int64_t roundingSeed = 0;
  /// [batch+1], validated: starts at 0, non-decreasing, ends at T.
  std::vector<int32_t> queryStartLoc;
  /// [batch], as unsigned; each is kPaddingSlot or < S.
  std::vector<uint32_t> cacheIndices;
  bool cacheIndicesRow = false;      ///< The file was [1,batch].
  bool cacheIndicesUnsigned = false; ///< The file was uint32 (else int32).
  bool hasInitialStatePresent = false, updateStatePresent = false;
  /// [batch] of 0/1 each; empty when the file is absent.
  std::vector<uint8_t> hasInitialState, updateState;

  /// State checkpoints (docs/overview.md, "State checkpoints"). The
  /// interval I is given beside the files (ssd-run's --checkpoint-interval,
  /// the torch op's checkpoint_interval); 0 means no checkpoints, and then
  /// checkpoint_slots must be absent.
  int64_t checkpointInterval = 0;
  bool checkpointSlotsPresent = false;
  bool checkpointSlotsUnsigned = false; ///< The file was uint32 (else int32).
  /// K, the columns of checkpoint_slots (0 when absent).
  int64_t checkpointK = 0;
  /// [batch, K] row-major, as unsigned; kPaddingSlot marks an unused entry.
  std::vector<uint32_t> checkpointSlots;
  bool checkpointOffsetsPresent = false;
  /// [batch]; empty when the file is absent (every offset is then 0).
  std::vector<int32_t> checkpointOffsets;

  /// Draft trees (docs/overview.md, "Tree verification"): token_parents
  /// [T] int32, the parent of token t as a local index of its sequence, or
  /// -1 for the sequence's initial state; empty when the file is absent
  /// (every token's parent is the one before it).
  bool tokenParentsPresent = false;
  std::vector<int32_t> tokenParents;

  /// True when sequence b reads its slot (not padding, has_initial_state).
  bool readsState(int64_t b) const;
  /// True when sequence b writes its slot (not padding, update_state absent
  /// or true).
  bool writesState(int64_t b) const;
  /// o of sequence b: the tokens it held before this call (0 without
  /// checkpoint_offsets).
  int64_t checkpointOffset(int64_t b) const {
    return checkpointOffsetsPresent ? checkpointOffsets[b] : 0;
  }
};

/// cache_indices value that marks a padding sequence (-1 as int32).
constexpr uint32_t kPaddingSlot = 0xFFFFFFFFu;

/// Loads DIR/x.npy, dt.npy, A.npy, B.npy, C.npy, ssm_pool.npy,
/// query_start_loc.npy, cache_indices.npy and, when present, D.npy,
/// dt_bias.npy, has_initial_state.npy, update_state.npy, and validates
/// shapes, dtypes and the index contract. On failure returns false with a
/// one-line error naming the file (as DIR/name.npy) and the problem, e.g.
/// "in/cache_indices.npy: index 9 of sequence 2 is out of range for a pool of
/// 4 slots".
///
/// Extents above the documented maxima (ssd/IR/SSDLimits.h) are rejected
/// here too, naming the file that declares them, before anything is
/// compiled or allocated for them.
///
/// checkpoint_slots.npy ([batch, K], int32 or uint32) and
/// checkpoint_offsets.npy ([batch], int32) are optional too;
/// `checkpointInterval` (ssd-run's --checkpoint-interval, 0 when not given)
/// must be given exactly when checkpoint_slots.npy is present, and the
/// checkpoint entries must pass checkCheckpointContract.
///
/// ssm_pool_scales.npy ([S, H, P] float32) is required with an 8-bit
/// `poolDType` and refused with any other; ssm_pool.npy then holds uint8
/// (f8E4M3FN bit patterns) or int8 codes.
bool loadProblem(const std::string &dir, ModelDType dtype, ScanProblem &out,
                 std::string &error, PoolDType poolDType = PoolDType::F32,
                 int64_t checkpointInterval = 0);

/// The same from .npy images in memory: `files` maps a file name
/// ("x.npy", ...) to its bytes, names it lacks are absent files; messages
/// name them as `dir`/name. For tests and fuzzing.
bool loadProblemFromMemory(
    const std::map<std::string, std::vector<uint8_t>> &files,
    const std::string &dir, ModelDType dtype, ScanProblem &out,
    std::string &error, PoolDType poolDType = PoolDType::F32,
    int64_t checkpointInterval = 0);

/// DIR/checkpoint_slots.npy when that file exists, else empty: lets a tool
/// that does not take checkpoints reject them in one line before loading.
std::string checkpointSlotsPath(const std::string &dir);

/// Checks H, P, G, N and T of `p` against the documented maxima; false with
/// a one-line message naming the extent, its value and the maximum.
bool checkLimits(const ScanProblem &p, std::string &error);

/// Checks the index operands of `p` against the op's contract, given its
/// T, S and batch: query_start_loc (batch + 1 offsets, starting at 0, never
/// decreasing, ending at T), cache_indices (each slot padding or below S)
/// and at most one writing sequence per slot (update_state decides which
/// write). The loaders and the torch op both call it. On failure false with
/// `operand` naming the operand ("query_start_loc", "cache_indices") and
/// `error` a one-line message about the first sequence that breaks a rule
/// (`tSource` names where T came from).
bool checkIndexContract(const ScanProblem &p, std::string &operand,
                        std::string &error, const char *tSource = "x.npy");

/// Checks the checkpoint operands of `p` (which must have passed
/// checkIndexContract; the interval's presence is the caller's to check,
/// since ssd-run and the torch op name it differently): checkpoint_slots is
/// [batch, K], each entry -1 or below S, the entries other than -1 distinct
/// across the whole call and none a slot the call reads (a non-padding
/// sequence with an initial state) or writes (a final state);
/// checkpoint_offsets is [batch], each >= 0. Without checkpoint_slots,
/// checkpoint_offsets must be absent. On failure false with `operand`
/// naming the operand ("checkpoint_slots", "checkpoint_offsets") and
/// `error` a one-line message about the first offending entry in row-major
/// order (sequence b, column k).
bool checkCheckpointContract(const ScanProblem &p, std::string &operand,
                             std::string &error);

/// Checks token_parents of `p` (which must have passed checkIndexContract
/// and checkCheckpointContract): [T] entries, the entry of token t, the
/// j-th token of its sequence b, in [-1, j); with checkpoints the interval
/// must be 1. Without token_parents it passes. On failure false with
/// `error` one line naming the sequence, the token (global and local
/// index) and the value, or the interval.
bool checkTreeContract(const ScanProblem &p, std::string &error);

/// The pool after a call, as stored: `values` [S,H,P,N] as float32 (f32,
/// bf16 and f16 pools), or the 8-bit `codes` [S,H,P,N] and `scales`
/// [S,H,P].
struct PoolContents {
  std::vector<float> values;
  std::vector<uint8_t> codes;
  std::vector<float> scales;
};

/// Writes y ([T,H,P]) and the pool ([S,H,P,N]) as float32 DIR/y.npy and
/// DIR/ssm_pool.npy, creating DIR if needed. Both are written under
/// temporary names first and renamed only when both succeeded.
bool writeOutputs(const std::string &dir, const ScanProblem &p,
                  const std::vector<float> &y, const std::vector<float> &pool,
                  std::string &error);
/// The same for any pool type: an 8-bit pool is written as its codes
/// (DIR/ssm_pool.npy, uint8 or int8) and DIR/ssm_pool_scales.npy (float32),
/// all three files renamed into place only when all were written.
bool writeOutputs(const std::string &dir, const ScanProblem &p,
                  const std::vector<float> &y, const PoolContents &pool,
                  std::string &error);

} // namespace ssd

#endif // SSD_RUNNER_PROBLEM_H
