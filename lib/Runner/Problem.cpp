//===- Problem.cpp - load, validate and store an ssd-run problem ----------===//

#include "ssd/Runner/Problem.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/Runner/Npy.h"
#include "ssd/Runner/PoolFormat.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy element bytes are reinterpreted in place: little-endian only"
#endif

using namespace ssd;
namespace limits = mlir::ssd::limits;

bool ssd::parseModelDType(const std::string &s, ModelDType &out) {
  std::optional<ModelDType> parsed =
      mlir::ssd::parseEnumName(kModelDTypeNames, s);
  if (parsed)
    out = *parsed;
  return parsed.has_value();
}

const char *ssd::toString(ModelDType t) {
  for (const auto &entry : kModelDTypeNames)
    if (entry.value == t)
      return entry.name;
  return "?";
}

float ssd::roundToModelDType(float v, ModelDType t) {
  switch (t) {
  case ModelDType::F32:
    return v;
  case ModelDType::F16:
    return halfBitsToFloat(floatToHalfBits(v));
  case ModelDType::BF16:
    return bf16BitsToFloat(floatToBF16Bits(v));
  }
  return v;
}

float ssd::roundDoubleToModelDType(double v, ModelDType t) {
  float f = float(v);
  if (t == ModelDType::F32 || std::isnan(v) || double(f) == v)
    return roundToModelDType(f, t);
  // Round to odd into float first: with at least two spare bits below the
  // target's last bit (float keeps 24, f16 11, bf16 8), a second
  // round-to-nearest-even then equals a single rounding of the double.
  if (std::isinf(f))
    f = std::copysign(FLT_MAX, float(v));
  else if (std::fabs(double(f)) > std::fabs(v))
    f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return roundToModelDType(f, t);
}

bool ssd::parsePoolDType(const std::string &s, PoolDType &out) {
  std::optional<PoolDType> parsed =
      mlir::ssd::parseEnumName(kPoolDTypeNames, s);
  if (parsed)
    out = *parsed;
  return parsed.has_value();
}

const char *ssd::toString(PoolDType t) {
  for (const auto &entry : kPoolDTypeNames)
    if (entry.value == t)
      return entry.name;
  return "?";
}

const char *ssd::toString(PoolRounding r) {
  for (const auto &entry : kPoolRoundingNames)
    if (entry.value == r)
      return entry.name;
  return "?";
}

const char *ssd::poolElementType(PoolDType t) {
  switch (t) {
  case PoolDType::F32:
    return "f32";
  case PoolDType::BF16:
    return "bf16";
  case PoolDType::F16:
    return "f16";
  case PoolDType::F8E4M3FN:
    return "f8E4M3FN";
  case PoolDType::I8:
    return "i8";
  }
  return "?";
}

size_t ssd::poolElementBytes(PoolDType t) {
  return t == PoolDType::F32 ? 4 : isScaledPool(t) ? 1 : 2;
}

bool ssd::parseModelDTypeFlag(const std::string &flag, const std::string &value,
                              ModelDType &out, std::string &error) {
  return mlir::ssd::parseEnumFlag(kModelDTypeNames, flag, value, out, error);
}

bool ssd::parsePoolDTypeFlag(const std::string &flag, const std::string &value,
                             PoolDType &out, std::string &error) {
  return mlir::ssd::parseEnumFlag(kPoolDTypeNames, flag, value, out, error);
}

bool ssd::checkPoolRoundingFlags(PoolDType pool, PoolRounding rounding,
                                 std::string &error) {
  if (rounding != PoolRounding::Stochastic || pool != PoolDType::F32)
    return true;
  error = "--pool-rounding stochastic needs a narrow pool (--pool-dtype "
          "bf16, f16, f8e4m3 or i8): an f32 pool has nothing to round";
  return false;
}

bool ssd::checkLimits(const ScanProblem &p, std::string &error) {
  struct Limit {
    const char *name;
    int64_t value, max;
  };
  for (const Limit &l : {Limit{"total tokens T", p.T, limits::kMaxTokens},
                         Limit{"nheads H", p.H, limits::kMaxHeads},
                         Limit{"head_dim P", p.P, limits::kMaxHeadDim},
                         Limit{"ngroups G", p.G, limits::kMaxGroups},
                         Limit{"dstate N", p.N, limits::kMaxDState}})
    if (l.value > l.max) {
      error = std::string(l.name) + " = " + std::to_string(l.value) +
              " exceeds the supported maximum " + std::to_string(l.max);
      return false;
    }
  return true;
}

bool ScanProblem::readsState(int64_t b) const {
  return cacheIndices[b] != kPaddingSlot && hasInitialStatePresent &&
         hasInitialState[b];
}

bool ScanProblem::writesState(int64_t b) const {
  return cacheIndices[b] != kPaddingSlot &&
         (!updateStatePresent || updateState[b]);
}

bool ssd::checkIndexContract(const ScanProblem &p, std::string &operand,
                             std::string &error, const char *tSource) {
  // query_start_loc: batch + 1 offsets from 0 to T, never decreasing.
  const std::vector<int32_t> &q = p.queryStartLoc;
  operand = "query_start_loc";
  if (q.size() != size_t(p.batch + 1)) {
    error = "has " + std::to_string(q.size()) +
            " offsets, expected batch + 1 = " + std::to_string(p.batch + 1);
    return false;
  }
  if (q[0] != 0) {
    error = "first offset is " + std::to_string(q[0]) + ", expected 0";
    return false;
  }
  for (int64_t b = 0; b < p.batch; ++b)
    if (q[b + 1] < q[b]) {
      error = "offsets decrease at sequence " + std::to_string(b) + " (" +
              std::to_string(q[b]) + " then " + std::to_string(q[b + 1]) + ")";
      return false;
    }
  if (int64_t(q[p.batch]) != p.T) {
    error = "last offset is " + std::to_string(q[p.batch]) +
            ", expected T = " + std::to_string(p.T) + " (from " + tSource + ")";
    return false;
  }

  // Slots: in range (or padding), at most one writer each. Whether a
  // sequence writes depends on the mask. The first sequence that breaks a
  // rule is reported; writers are found by sorting (slot, sequence) pairs
  // rather than with a map, since callers on the decode path (the torch op)
  // pay for this check on every call.
  operand = "cache_indices";
  int64_t firstBad = p.batch;
  for (int64_t b = 0; b < p.batch; ++b) {
    uint32_t slot = p.cacheIndices[b];
    if (slot != kPaddingSlot && int64_t(slot) >= p.S) {
      firstBad = b;
      break;
    }
  }
  std::vector<std::pair<uint32_t, int64_t>> writers;
  writers.reserve(size_t(firstBad));
  for (int64_t b = 0; b < firstBad; ++b)
    if (p.writesState(b))
      writers.push_back({p.cacheIndices[b], b});
  std::sort(writers.begin(), writers.end());
  int64_t firstWriter = -1, secondWriter = p.batch;
  for (size_t i = 1; i < writers.size(); ++i)
    if (writers[i].first == writers[i - 1].first &&
        writers[i].second < secondWriter) {
      // writers[i - 1] is the slot's first writer only if it starts the run.
      size_t first = i - 1;
      while (first > 0 && writers[first - 1].first == writers[i].first)
        --first;
      firstWriter = writers[first].second;
      secondWriter = writers[i].second;
    }
  if (secondWriter < firstBad) {
    error = "sequences " + std::to_string(firstWriter) + " and " +
            std::to_string(secondWriter) + " both write slot " +
            std::to_string(p.cacheIndices[secondWriter]) +
            " (at most one writer per slot)";
    return false;
  }
  if (firstBad < p.batch) {
    uint32_t slot = p.cacheIndices[firstBad];
    // Show the value as the caller spells it: -2, not 4294967294.
    std::string value = p.cacheIndicesUnsigned ? std::to_string(slot)
                                               : std::to_string(int32_t(slot));
    error = "index " + value + " of sequence " + std::to_string(firstBad) +
            " is out of range for a pool of " + std::to_string(p.S) + " slots" +
            (p.cacheIndicesUnsigned
                 ? std::string(" (only 0xFFFFFFFF marks padding)")
                 : std::string(" (only -1 marks padding)"));
    return false;
  }
  return true;
}

bool ssd::checkTreeContract(const ScanProblem &p, std::string &error) {
  if (!p.tokenParentsPresent)
    return true;
  if (p.tokenParents.size() != size_t(p.T)) {
    error = "has " + std::to_string(p.tokenParents.size()) +
            " entries, expected T = " + std::to_string(p.T);
    return false;
  }
  if (p.checkpointSlotsPresent && p.checkpointInterval != 1) {
    error = "needs checkpoint interval 1 (column j of checkpoint_slots holds "
            "the state of token j), got " +
            std::to_string(p.checkpointInterval);
    return false;
  }
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t begin = p.queryStartLoc[b], end = p.queryStartLoc[b + 1];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t parent = p.tokenParents[t], j = t - begin;
      if (parent >= -1 && parent < j)
        continue;
      error = "parent " + std::to_string(parent) + " of token " +
              std::to_string(t) + " (token " + std::to_string(j) +
              " of sequence " + std::to_string(b) + ") is outside [-1, " +
              std::to_string(j) +
              "): a parent is an earlier token of its sequence, or -1 for "
              "its initial state";
      return false;
    }
  }
  return true;
}

bool ssd::checkCheckpointContract(const ScanProblem &p, std::string &operand,
                                  std::string &error) {
  if (!p.checkpointSlotsPresent) {
    if (p.checkpointOffsetsPresent) {
      operand = "checkpoint_offsets";
      error = "given without checkpoint_slots (offsets only place "
              "checkpoints)";
      return false;
    }
    return true;
  }
  const int64_t K = p.checkpointK;
  operand = "checkpoint_slots";
  if (K < 0 || p.checkpointSlots.size() != size_t(p.batch * K)) {
    error = "has " + std::to_string(p.checkpointSlots.size()) +
            " entries, expected batch * K = " + std::to_string(p.batch) +
            " * " + std::to_string(K);
    return false;
  }
  if (p.checkpointOffsetsPresent &&
      p.checkpointOffsets.size() != size_t(p.batch)) {
    operand = "checkpoint_offsets";
    error = "has " + std::to_string(p.checkpointOffsets.size()) +
            " offsets, expected batch = " + std::to_string(p.batch);
    return false;
  }

  // The first offending entry in row-major order, found by sorting rather
  // than with a table of S slots: the torch op pays for this on every call.
  // An entry offends when it is out of range, is a slot the call reads or
  // writes, or repeats an earlier entry; `reason` keeps that order.
  const int64_t entries = p.batch * K;
  int64_t firstBad = entries;
  enum { OutOfRange, Read, Written, Repeated } reason = OutOfRange;
  int64_t other = -1; // the sequence or entry it clashes with
  for (int64_t e = 0; e < entries; ++e) {
    uint32_t slot = p.checkpointSlots[e];
    if (slot != kPaddingSlot && int64_t(slot) >= p.S) {
      firstBad = e;
      break;
    }
  }
  // (slot, sequence) of every slot the call reads or writes; a sequence
  // that does both reads and writes the same slot, so a slot found here is
  // reported as read when it is read at all.
  std::vector<std::pair<uint32_t, int64_t>> reads, writes;
  for (int64_t b = 0; b < p.batch; ++b) {
    if (p.readsState(b))
      reads.push_back({p.cacheIndices[b], b});
    if (p.writesState(b))
      writes.push_back({p.cacheIndices[b], b});
  }
  std::sort(reads.begin(), reads.end());
  std::sort(writes.begin(), writes.end());
  auto find = [](const std::vector<std::pair<uint32_t, int64_t>> &v,
                 uint32_t slot) -> int64_t {
    auto it =
        std::lower_bound(v.begin(), v.end(), std::make_pair(slot, int64_t(-1)));
    return it != v.end() && it->first == slot ? it->second : -1;
  };
  std::vector<std::pair<uint32_t, int64_t>> used;
  used.reserve(size_t(firstBad));
  for (int64_t e = 0; e < firstBad; ++e) {
    uint32_t slot = p.checkpointSlots[e];
    if (slot == kPaddingSlot)
      continue;
    if (int64_t b = find(reads, slot); b >= 0) {
      firstBad = e, reason = Read, other = b;
      break;
    }
    if (int64_t b = find(writes, slot); b >= 0) {
      firstBad = e, reason = Written, other = b;
      break;
    }
    used.push_back({slot, e});
  }
  // Repeats among the entries before firstBad: the later entry of each
  // equal pair offends; keep the earliest such.
  std::sort(used.begin(), used.end());
  for (size_t i = 1; i < used.size(); ++i)
    if (used[i].first == used[i - 1].first) {
      size_t first = i - 1;
      while (first > 0 && used[first - 1].first == used[i].first)
        --first;
      if (used[i].second < firstBad)
        firstBad = used[i].second, reason = Repeated,
        other = used[first].second;
    }
  if (firstBad < entries) {
    uint32_t slot = p.checkpointSlots[firstBad];
    std::string where = "sequence " + std::to_string(firstBad / K) +
                        ", column " + std::to_string(firstBad % K);
    switch (reason) {
    case OutOfRange:
      error = "slot " +
              (p.checkpointSlotsUnsigned ? std::to_string(slot)
                                         : std::to_string(int32_t(slot))) +
              " at " + where + " is out of range for a pool of " +
              std::to_string(p.S) + " slots" +
              (p.checkpointSlotsUnsigned
                   ? " (only 0xFFFFFFFF marks an unused entry)"
                   : " (only -1 marks an unused entry)");
      break;
    case Read:
      error = "slot " + std::to_string(slot) + " at " + where +
              " is the initial state sequence " + std::to_string(other) +
              " reads (checkpoint slots must differ from every slot the "
              "call reads or writes)";
      break;
    case Written:
      error = "slot " + std::to_string(slot) + " at " + where +
              " is the final state sequence " + std::to_string(other) +
              " writes (checkpoint slots must differ from every slot the "
              "call reads or writes)";
      break;
    case Repeated:
      error = "slot " + std::to_string(slot) + " at " + where +
              " repeats sequence " + std::to_string(other / K) + ", column " +
              std::to_string(other % K) +
              " (checkpoint slots must be distinct)";
      break;
    }
    return false;
  }

  operand = "checkpoint_offsets";
  if (p.checkpointOffsetsPresent)
    for (int64_t b = 0; b < p.batch; ++b)
      if (p.checkpointOffsets[b] < 0) {
        error = "offset " + std::to_string(p.checkpointOffsets[b]) +
                " of sequence " + std::to_string(b) +
                " is negative (tokens held before this call)";
        return false;
      }
  return true;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 || errno != ENOENT;
}

/// Loads everything from one directory, remembering each file's full path
/// so every message can name it.
class Loader {
public:
  /// Files come from `memory` when it is set, else from the directory.
  Loader(const std::string &dir, std::string &error,
         const std::map<std::string, std::vector<uint8_t>> *memory = nullptr)
      : dir(dir), error(error), memory(memory) {}

  std::string path(const char *name) const {
    if (dir.empty())
      return name;
    if (dir.back() == '/')
      return dir + name;
    return dir + "/" + name;
  }

  bool fail(const char *name, const std::string &what) {
    error = path(name) + ": " + what;
    return false;
  }

  /// Reads a file; when `optional` and the file does not exist, sets
  /// `present` to false and succeeds.
  bool read(const char *name, bool optional, NpyArray &a, bool &present) {
    std::string p = path(name);
    present = false;
    if (memory) {
      auto it = memory->find(name);
      if (it == memory->end()) {
        if (optional)
          return true;
        return fail(name, "missing required input file");
      }
      std::vector<uint8_t> copy = it->second;
      if (!parseNpy(p, std::move(copy), a, error))
        return false;
      present = true;
      return true;
    }
    if (!fileExists(p)) {
      if (optional)
        return true;
      return fail(name, "missing required input file");
    }
    if (!readNpy(p, a, error))
      return false;
    present = true;
    return true;
  }

  /// Rejects an extent above its documented maximum, naming the file that
  /// declares it.
  bool expectAtMost(const char *name, const char *extent, int64_t value,
                    int64_t max) {
    if (value <= max)
      return true;
    return fail(name, std::string(extent) + " = " + std::to_string(value) +
                          " exceeds the supported maximum " +
                          std::to_string(max) + " (docs/overview.md, Limits)");
  }

  bool expectRank(const char *name, const NpyArray &a, size_t rank,
                  const char *dims) {
    if (a.shape.size() == rank)
      return true;
    return fail(name, "expected rank " + std::to_string(rank) + " " + dims +
                          ", got shape " + shapeStr(a.shape));
  }

  bool expectShape(const char *name, const NpyArray &a,
                   const std::vector<int64_t> &shape, const char *dims,
                   const char *from) {
    if (a.shape == shape)
      return true;
    return fail(name, "shape " + shapeStr(a.shape) + " does not match " + dims +
                          " = " + shapeStr(shape) + " from " + from);
  }

  /// Converts a float32/float16 array to float and optionally rounds it to
  /// the model dtype.
  bool toFloats(const char *name, const NpyArray &a, bool round,
                ModelDType dtype, std::vector<float> &out) {
    int64_t n = a.numElements();
    out.resize(size_t(n));
    if (a.descr == "<f4") {
      if (n)
        std::memcpy(out.data(), a.data.data(), size_t(n) * 4);
    } else if (a.descr == "<f2") {
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h = uint16_t(a.data[2 * i] | (a.data[2 * i + 1] << 8));
        out[i] = halfBitsToFloat(h);
      }
    } else {
      return fail(name, "dtype '" + a.descr +
                            "' is not float32 ('<f4') or float16 ('<f2')");
    }
    if (round && dtype != ModelDType::F32)
      for (float &v : out)
        v = roundToModelDType(v, dtype);
    return true;
  }

  bool toMask(const char *name, const NpyArray &a, int64_t batch,
              std::vector<uint8_t> &out) {
    if (a.descr != "|b1")
      return fail(name, "dtype '" + a.descr + "' is not bool ('|b1')");
    if (!expectRank(name, a, 1, "[batch]") ||
        !expectShape(name, a, {batch}, "[batch]", "query_start_loc.npy"))
      return false;
    out.resize(size_t(batch));
    for (int64_t i = 0; i < batch; ++i)
      out[i] = a.data[i] ? 1 : 0;
    return true;
  }

private:
  std::string dir;
  std::string &error;
  const std::map<std::string, std::vector<uint8_t>> *memory;
};

} // namespace

namespace {
bool load(Loader &L, ModelDType dtype, PoolDType poolDType,
          int64_t checkpointInterval, ScanProblem &out);
} // namespace

std::string ssd::checkpointSlotsPath(const std::string &dir) {
  std::string error;
  Loader L(dir, error);
  std::string path = L.path("checkpoint_slots.npy");
  return fileExists(path) ? path : std::string();
}

bool ssd::loadProblem(const std::string &dir, ModelDType dtype,
                      ScanProblem &out, std::string &error, PoolDType poolDType,
                      int64_t checkpointInterval) {
  Loader L(dir, error);
  return load(L, dtype, poolDType, checkpointInterval, out);
}

bool ssd::loadProblemFromMemory(
    const std::map<std::string, std::vector<uint8_t>> &files,
    const std::string &dir, ModelDType dtype, ScanProblem &out,
    std::string &error, PoolDType poolDType, int64_t checkpointInterval) {
  Loader L(dir, error, &files);
  return load(L, dtype, poolDType, checkpointInterval, out);
}

namespace {
bool load(Loader &L, ModelDType dtype, PoolDType poolDType,
          int64_t checkpointInterval, ScanProblem &out) {
  out = ScanProblem();
  out.dtype = dtype;
  out.poolDType = poolDType;
  out.checkpointInterval = checkpointInterval;

  NpyArray x, dt, A, B, C, D, dtBias, pool, scales, qsl, ci, hasInit, update,
      ckSlots, ckOffsets, parents;
  bool present, scalesPresent;
  if (!L.read("x.npy", false, x, present) ||
      !L.read("dt.npy", false, dt, present) ||
      !L.read("A.npy", false, A, present) ||
      !L.read("B.npy", false, B, present) ||
      !L.read("C.npy", false, C, present) ||
      !L.read("D.npy", true, D, out.hasD) ||
      !L.read("dt_bias.npy", true, dtBias, out.hasDtBias) ||
      !L.read("ssm_pool.npy", false, pool, present) ||
      !L.read("ssm_pool_scales.npy", true, scales, scalesPresent) ||
      !L.read("query_start_loc.npy", false, qsl, present) ||
      !L.read("cache_indices.npy", false, ci, present) ||
      !L.read("has_initial_state.npy", true, hasInit,
              out.hasInitialStatePresent) ||
      !L.read("update_state.npy", true, update, out.updateStatePresent) ||
      !L.read("checkpoint_slots.npy", true, ckSlots,
              out.checkpointSlotsPresent) ||
      !L.read("checkpoint_offsets.npy", true, ckOffsets,
              out.checkpointOffsetsPresent) ||
      !L.read("token_parents.npy", true, parents, out.tokenParentsPresent))
    return false;
  // The interval and the offsets come with the slots: neither means
  // anything alone.
  if (out.checkpointOffsetsPresent && !out.checkpointSlotsPresent)
    return L.fail("checkpoint_offsets.npy",
                  "given without checkpoint_slots.npy (offsets only place "
                  "checkpoints)");
  if (out.checkpointSlotsPresent && checkpointInterval < 1)
    return L.fail("checkpoint_slots.npy",
                  "--checkpoint-interval is required with "
                  "checkpoint_slots.npy");
  if (!out.checkpointSlotsPresent && checkpointInterval > 0)
    return L.fail("checkpoint_slots.npy",
                  "--checkpoint-interval " +
                      std::to_string(checkpointInterval) +
                      " given without checkpoint_slots.npy");

  // Sizes come from x (T, H, P), B (G, N), the pool (S) and
  // query_start_loc (batch); every other file is checked against them.
  if (!L.expectRank("x.npy", x, 3, "[T, H, P]"))
    return false;
  out.T = x.shape[0];
  out.H = x.shape[1];
  out.P = x.shape[2];
  if (out.H < 1 || out.P < 1)
    return L.fail("x.npy",
                  "H and P must be at least 1, got shape " + shapeStr(x.shape));
  if (!L.expectAtMost("x.npy", "total tokens T", out.T, limits::kMaxTokens) ||
      !L.expectAtMost("x.npy", "nheads H", out.H, limits::kMaxHeads) ||
      !L.expectAtMost("x.npy", "head_dim P", out.P, limits::kMaxHeadDim))
    return false;
  if (!L.expectRank("dt.npy", dt, 2, "[T, H]") ||
      !L.expectShape("dt.npy", dt, {out.T, out.H}, "[T, H]", "x.npy") ||
      !L.expectRank("A.npy", A, 1, "[H]") ||
      !L.expectShape("A.npy", A, {out.H}, "[H]", "x.npy") ||
      !L.expectRank("B.npy", B, 3, "[T, G, N]"))
    return false;
  out.G = B.shape[1];
  out.N = B.shape[2];
  if (!L.expectShape("B.npy", B, {out.T, out.G, out.N}, "[T, G, N]",
                     "x.npy (T) and B.npy (G, N)"))
    return false;
  if (out.G < 1 || out.N < 1)
    return L.fail("B.npy",
                  "G and N must be at least 1, got shape " + shapeStr(B.shape));
  if (!L.expectAtMost("B.npy", "ngroups G", out.G, limits::kMaxGroups) ||
      !L.expectAtMost("B.npy", "dstate N", out.N, limits::kMaxDState))
    return false;
  if (out.H % out.G != 0)
    return L.fail("B.npy", "H = " + std::to_string(out.H) +
                               " (from x.npy) is not a multiple of G = " +
                               std::to_string(out.G));
  if (!L.expectRank("C.npy", C, 3, "[T, G, N]") ||
      !L.expectShape("C.npy", C, B.shape, "[T, G, N]", "B.npy"))
    return false;
  if (out.hasD && (!L.expectRank("D.npy", D, 1, "[H]") ||
                   !L.expectShape("D.npy", D, {out.H}, "[H]", "x.npy")))
    return false;
  if (out.hasDtBias &&
      (!L.expectRank("dt_bias.npy", dtBias, 1, "[H]") ||
       !L.expectShape("dt_bias.npy", dtBias, {out.H}, "[H]", "x.npy")))
    return false;
  if (!L.expectRank("ssm_pool.npy", pool, 4, "[S, H, P, N]"))
    return false;
  out.S = pool.shape[0];
  if (!L.expectShape("ssm_pool.npy", pool, {out.S, out.H, out.P, out.N},
                     "[S, H, P, N]", "x.npy (H, P) and B.npy (N)"))
    return false;
  // An 8-bit pool is its codes and a scale per row; no other pool has
  // scales, and codes are never guessed from values.
  const bool scaled = isScaledPool(poolDType);
  const std::string poolFlag =
      std::string("--pool-dtype ") + toString(poolDType);
  if (scaled && !scalesPresent)
    return L.fail("ssm_pool_scales.npy",
                  "missing: " + poolFlag +
                      " needs one float32 scale per pool row, [S, H, P]");
  if (!scaled && scalesPresent)
    return L.fail("ssm_pool_scales.npy",
                  "given with " + poolFlag +
                      " (scales belong to the 8-bit pools f8e4m3 and i8)");
  if (scaled) {
    const char *codeDescr = poolDType == PoolDType::I8 ? "|i1" : "|u1";
    if (pool.descr != codeDescr)
      return L.fail("ssm_pool.npy",
                    "dtype '" + pool.descr + "' is not " +
                        (poolDType == PoolDType::I8
                             ? "int8 ('|i1'), the codes of "
                             : "uint8 ('|u1'), the f8E4M3FN bit patterns "
                               "of ") +
                        poolFlag);
    if (scales.descr != "<f4")
      return L.fail("ssm_pool_scales.npy",
                    "dtype '" + scales.descr + "' is not float32 ('<f4')");
    if (!L.expectRank("ssm_pool_scales.npy", scales, 3, "[S, H, P]") ||
        !L.expectShape("ssm_pool_scales.npy", scales, {out.S, out.H, out.P},
                       "[S, H, P]", "ssm_pool.npy"))
      return false;
  }

  if (!L.toFloats("x.npy", x, true, dtype, out.x) ||
      !L.toFloats("dt.npy", dt, true, dtype, out.dt) ||
      !L.toFloats("A.npy", A, true, dtype, out.A) ||
      !L.toFloats("B.npy", B, true, dtype, out.B) ||
      !L.toFloats("C.npy", C, true, dtype, out.C) ||
      (out.hasD && !L.toFloats("D.npy", D, true, dtype, out.D)) ||
      (out.hasDtBias &&
       !L.toFloats("dt_bias.npy", dtBias, true, dtype, out.dtBias)) ||
      (!scaled && !L.toFloats("ssm_pool.npy", pool, false, dtype, out.pool)))
    return false;
  if (poolDType == PoolDType::BF16 || poolDType == PoolDType::F16)
    for (float &v : out.pool)
      v = roundToModelDType(v, poolDType == PoolDType::BF16 ? ModelDType::BF16
                                                            : ModelDType::F16);
  if (scaled) {
    out.poolCodes = std::move(pool.data);
    out.poolScales.resize(size_t(scales.numElements()));
    if (!out.poolScales.empty())
      std::memcpy(out.poolScales.data(), scales.data.data(),
                  scales.data.size());
    const size_t rowLength = size_t(out.N);
    out.pool.resize(out.poolCodes.size());
    for (size_t i = 0; i < out.pool.size(); ++i)
      out.pool[i] = decodePoolCode(poolDType, out.poolCodes[i],
                                   out.poolScales[i / rowLength]);
  }

  // query_start_loc: batch + 1 int32 offsets from 0 to T, never decreasing.
  if (qsl.descr != "<i4")
    return L.fail("query_start_loc.npy",
                  "dtype '" + qsl.descr + "' is not int32 ('<i4')");
  if (!L.expectRank("query_start_loc.npy", qsl, 1, "[batch + 1]"))
    return false;
  if (qsl.shape[0] < 1)
    return L.fail("query_start_loc.npy",
                  "needs at least one offset (shape [batch + 1])");
  out.batch = qsl.shape[0] - 1;
  out.queryStartLoc.resize(size_t(qsl.shape[0]));
  std::memcpy(out.queryStartLoc.data(), qsl.data.data(), qsl.data.size());
  // cache_indices: one slot per sequence, read as unsigned.
  if (ci.descr != "<i4" && ci.descr != "<u4")
    return L.fail("cache_indices.npy", "dtype '" + ci.descr +
                                           "' is not int32 ('<i4') or "
                                           "uint32 ('<u4')");
  out.cacheIndicesUnsigned = ci.descr == "<u4";
  if (ci.shape == std::vector<int64_t>{out.batch}) {
    out.cacheIndicesRow = false;
  } else if (ci.shape == std::vector<int64_t>{1, out.batch}) {
    out.cacheIndicesRow = true;
  } else {
    return L.fail("cache_indices.npy",
                  "shape " + shapeStr(ci.shape) + " is neither [batch] = [" +
                      std::to_string(out.batch) + "] nor [1, batch] = [1, " +
                      std::to_string(out.batch) +
                      "] (batch from query_start_loc.npy)");
  }
  out.cacheIndices.resize(size_t(out.batch));
  if (out.batch)
    std::memcpy(out.cacheIndices.data(), ci.data.data(), ci.data.size());

  if (out.hasInitialStatePresent && !L.toMask("has_initial_state.npy", hasInit,
                                              out.batch, out.hasInitialState))
    return false;
  if (out.updateStatePresent &&
      !L.toMask("update_state.npy", update, out.batch, out.updateState))
    return false;

  if (out.checkpointSlotsPresent) {
    if (ckSlots.descr != "<i4" && ckSlots.descr != "<u4")
      return L.fail("checkpoint_slots.npy",
                    "dtype '" + ckSlots.descr +
                        "' is not int32 ('<i4') or uint32 ('<u4')");
    if (!L.expectRank("checkpoint_slots.npy", ckSlots, 2, "[batch, K]"))
      return false;
    out.checkpointK = ckSlots.shape[1];
    if (!L.expectShape("checkpoint_slots.npy", ckSlots,
                       {out.batch, out.checkpointK}, "[batch, K]",
                       "query_start_loc.npy (batch)"))
      return false;
    out.checkpointSlotsUnsigned = ckSlots.descr == "<u4";
    out.checkpointSlots.resize(size_t(out.batch * out.checkpointK));
    if (!out.checkpointSlots.empty())
      std::memcpy(out.checkpointSlots.data(), ckSlots.data.data(),
                  ckSlots.data.size());
  }
  if (out.checkpointOffsetsPresent) {
    if (ckOffsets.descr != "<i4")
      return L.fail("checkpoint_offsets.npy",
                    "dtype '" + ckOffsets.descr + "' is not int32 ('<i4')");
    if (!L.expectRank("checkpoint_offsets.npy", ckOffsets, 1, "[batch]") ||
        !L.expectShape("checkpoint_offsets.npy", ckOffsets, {out.batch},
                       "[batch]", "query_start_loc.npy"))
      return false;
    out.checkpointOffsets.resize(size_t(out.batch));
    if (out.batch)
      std::memcpy(out.checkpointOffsets.data(), ckOffsets.data.data(),
                  ckOffsets.data.size());
  }

  if (out.tokenParentsPresent) {
    if (parents.descr != "<i4")
      return L.fail("token_parents.npy",
                    "dtype '" + parents.descr + "' is not int32 ('<i4')");
    if (!L.expectRank("token_parents.npy", parents, 1, "[T]") ||
        !L.expectShape("token_parents.npy", parents, {out.T}, "[T]", "x.npy"))
      return false;
    out.tokenParents.resize(size_t(out.T));
    if (out.T)
      std::memcpy(out.tokenParents.data(), parents.data.data(),
                  parents.data.size());
  }

  std::string operand, what;
  if (!checkIndexContract(out, operand, what) ||
      !checkCheckpointContract(out, operand, what))
    return L.fail((operand + ".npy").c_str(), what);
  if (!checkTreeContract(out, what))
    return L.fail("token_parents.npy", what);
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// mkdir -p.
bool makeDirs(const std::string &dir, std::string &error) {
  if (dir.empty())
    return true;
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/')
      continue;
    std::string prefix = dir.substr(0, i);
    struct stat st;
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        error = prefix + ": not a directory";
        return false;
      }
      continue;
    }
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      error =
          prefix + ": cannot create directory (" + std::strerror(errno) + ")";
      return false;
    }
  }
  return true;
}

NpyArray floatArray(const std::vector<int64_t> &shape,
                    const std::vector<float> &v) {
  NpyArray a;
  a.descr = "<f4";
  a.shape = shape;
  a.data.resize(v.size() * 4);
  if (!v.empty())
    std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

} // namespace

bool ssd::writeOutputs(const std::string &dir, const ScanProblem &p,
                       const std::vector<float> &y,
                       const std::vector<float> &pool, std::string &error) {
  PoolContents contents;
  contents.values = pool;
  return writeOutputs(dir, p, y, contents, error);
}

bool ssd::writeOutputs(const std::string &dir, const ScanProblem &p,
                       const std::vector<float> &y, const PoolContents &pool,
                       std::string &error) {
  std::string base = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  std::string yPath = base + "y.npy", poolPath = base + "ssm_pool.npy";
  const bool scaled = isScaledPool(p.poolDType);
  if (int64_t(y.size()) != p.T * p.H * p.P) {
    error = yPath + ": internal error: y has " + std::to_string(y.size()) +
            " elements, expected T*H*P = " + std::to_string(p.T * p.H * p.P);
    return false;
  }
  const size_t poolElements = scaled ? pool.codes.size() : pool.values.size();
  if (int64_t(poolElements) != p.S * p.H * p.P * p.N ||
      (scaled && int64_t(pool.scales.size()) != p.S * p.H * p.P)) {
    error = poolPath + ": internal error: pool has " +
            std::to_string(poolElements) + " elements, expected S*H*P*N = " +
            std::to_string(p.S * p.H * p.P * p.N);
    return false;
  }
  if (!makeDirs(dir, error))
    return false;

  // Every file under a temporary name first; renamed only when all are
  // written, and a failed rename takes back the ones already renamed.
  std::vector<std::pair<std::string, NpyArray>> files;
  files.emplace_back(yPath, floatArray({p.T, p.H, p.P}, y));
  if (scaled) {
    NpyArray codes;
    codes.descr = p.poolDType == PoolDType::I8 ? "|i1" : "|u1";
    codes.shape = {p.S, p.H, p.P, p.N};
    codes.data = pool.codes;
    files.emplace_back(poolPath, std::move(codes));
    files.emplace_back(base + "ssm_pool_scales.npy",
                       floatArray({p.S, p.H, p.P}, pool.scales));
  } else {
    files.emplace_back(poolPath, floatArray({p.S, p.H, p.P, p.N}, pool.values));
  }
  std::string suffix = ".tmp." + std::to_string(long(::getpid()));
  auto removeTemporaries = [&] {
    for (auto &file : files)
      std::remove((file.first + suffix).c_str());
  };
  for (auto &file : files)
    if (!writeNpy(file.first + suffix, file.second, error)) {
      removeTemporaries();
      return false;
    }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string &path = files[i].first;
    if (std::rename((path + suffix).c_str(), path.c_str()) != 0) {
      error =
          path + ": cannot rename into place (" + std::strerror(errno) + ")";
      // Leave no file that belongs to no other.
      for (size_t j = 0; j < i; ++j)
        std::remove(files[j].first.c_str());
      removeTemporaries();
      return false;
    }
  }
  return true;
}
