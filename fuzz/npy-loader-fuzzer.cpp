//===- npy-loader-fuzzer.cpp - libFuzzer target: .npy inputs of ssd-run ---===//
//
// Feeds an input set of ssd-run (up to the 15 .npy files of an input
// directory, in memory) through the .npy parser and the validation of
// loadProblem, then, for every set that validation accepts, through what
// runs on a validated problem without compiling anything: the limit check,
// the double-precision reference (when its work is small), the host
// operand layout and the CPU workspace estimate.
//
// Input format (fuzz/pack-inputs.py writes seeds from input directories):
//   byte 0          options: bits 0-1 model dtype (0 f32, 1 f16, 2 bf16,
//                   3 f32), bit 2 bf16 pool, bits 3-7 the checkpoint
//                   interval (ssd-run's --checkpoint-interval; 0: none)
//   then records    [file index: 1 byte][length: 4 bytes, little-endian]
//                   [bytes]; index % 15 names the file (FuzzNpy.h); a later
//                   record of a file replaces an earlier one; a record cut
//                   short by the end of the input keeps what is there.
//
// Properties checked (a violation aborts, which libFuzzer reports):
//   - a rejection is exactly one line naming a file of the set ("in/...");
//   - an accepted problem satisfies every rule the compiled code relies on
//     (array sizes, offsets, slots, one writer per slot, the limits, and
//     the checkpoint rules, checked here with sets rather than the
//     loader's sorting, and every token's parent earlier in its sequence);
//   - the reference, when run, returns y and pool of the right sizes.
//
//===----------------------------------------------------------------------===//

#include "FuzzNpy.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr size_t kFileCount = ssd_fuzz::kNpyFileCount;

[[noreturn]] void violated(const char *what, const std::string &detail) {
  ssd_fuzz::violated("npy-loader-fuzzer", what, detail);
}

void require(bool ok, const char *what, const std::string &detail = "") {
  if (!ok)
    violated(what, detail);
}

void checkValidated(const ssd::ScanProblem &p) {
  std::string error;
  require(ssd::checkLimits(p, error), "accepted extents above the limits",
          error);
  require(p.H >= 1 && p.P >= 1 && p.G >= 1 && p.N >= 1 && p.T >= 0 &&
              p.S >= 0 && p.batch >= 0,
          "accepted a non-positive extent");
  require(p.H % p.G == 0, "accepted H not a multiple of G");
  auto sized = [&](const std::vector<float> &v, int64_t n, const char *name) {
    require(int64_t(v.size()) == n, "array size", name);
  };
  sized(p.x, p.T * p.H * p.P, "x");
  sized(p.dt, p.T * p.H, "dt");
  sized(p.A, p.H, "A");
  sized(p.B, p.T * p.G * p.N, "B");
  sized(p.C, p.T * p.G * p.N, "C");
  sized(p.D, p.hasD ? p.H : 0, "D");
  sized(p.dtBias, p.hasDtBias ? p.H : 0, "dt_bias");
  sized(p.pool, p.S * p.H * p.P * p.N, "pool");
  require(int64_t(p.queryStartLoc.size()) == p.batch + 1, "qsl size");
  require(p.queryStartLoc[0] == 0 && p.queryStartLoc[p.batch] == p.T,
          "qsl ends");
  for (int64_t b = 0; b < p.batch; ++b)
    require(p.queryStartLoc[b] <= p.queryStartLoc[b + 1], "qsl decreases");
  require(int64_t(p.cacheIndices.size()) == p.batch, "cache_indices size");
  require(int64_t(p.hasInitialState.size()) ==
              (p.hasInitialStatePresent ? p.batch : 0),
          "has_initial_state size");
  require(int64_t(p.updateState.size()) == (p.updateStatePresent ? p.batch : 0),
          "update_state size");
  std::set<uint32_t> written;
  for (int64_t b = 0; b < p.batch; ++b) {
    uint32_t slot = p.cacheIndices[b];
    require(slot == ssd::kPaddingSlot || int64_t(slot) < p.S,
            "slot out of range");
    if (p.writesState(b))
      require(written.insert(slot).second, "two writers of one slot");
  }

  // Checkpoints: present exactly with an interval; every entry -1 or in
  // range, distinct, and neither read nor written by the call.
  require(p.checkpointSlotsPresent == (p.checkpointInterval > 0),
          "checkpoint slots without an interval, or the reverse");
  require(!p.checkpointOffsetsPresent || p.checkpointSlotsPresent,
          "checkpoint offsets without slots");
  require(int64_t(p.checkpointSlots.size()) == p.batch * p.checkpointK,
          "checkpoint_slots size");
  require(int64_t(p.checkpointOffsets.size()) ==
              (p.checkpointOffsetsPresent ? p.batch : 0),
          "checkpoint_offsets size");
  std::set<uint32_t> read;
  for (int64_t b = 0; b < p.batch; ++b)
    if (p.readsState(b))
      read.insert(p.cacheIndices[b]);
  std::set<uint32_t> checkpoints;
  for (uint32_t slot : p.checkpointSlots) {
    if (slot == ssd::kPaddingSlot)
      continue;
    require(int64_t(slot) < p.S, "checkpoint slot out of range");
    require(checkpoints.insert(slot).second, "checkpoint slot repeated");
    require(!read.count(slot) && !written.count(slot),
            "checkpoint slot read or written by the call");
  }
  for (int32_t o : p.checkpointOffsets)
    require(o >= 0, "negative checkpoint offset");

  // Draft trees: one parent per token, each -1 or an earlier token of its
  // own sequence, and checkpoints (if any) one per token.
  require(int64_t(p.tokenParents.size()) == (p.tokenParentsPresent ? p.T : 0),
          "token_parents size");
  require(!p.tokenParentsPresent || !p.checkpointSlotsPresent ||
              p.checkpointInterval == 1,
          "token_parents with a checkpoint interval other than 1");
  for (int64_t b = 0; p.tokenParentsPresent && b < p.batch; ++b)
    for (int64_t t = p.queryStartLoc[b]; t < p.queryStartLoc[b + 1]; ++t)
      require(p.tokenParents[t] >= -1 &&
                  p.tokenParents[t] < t - p.queryStartLoc[b],
              "token parent outside [-1, j)");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const ssd::ModelDType dtypes[] = {ssd::ModelDType::F32, ssd::ModelDType::F16,
                                    ssd::ModelDType::BF16,
                                    ssd::ModelDType::F32};
  ssd::ModelDType dtype = dtypes[data[0] & 3];
  ssd::PoolDType poolDType =
      data[0] & 4 ? ssd::PoolDType::BF16 : ssd::PoolDType::F32;
  const int64_t checkpointInterval = data[0] >> 3;

  std::map<std::string, std::vector<uint8_t>> files =
      ssd_fuzz::readRecords(data, size, 1, kFileCount);

  ssd::ScanProblem p;
  std::string error;
  if (!ssd::loadProblemFromMemory(files, "in", dtype, p, error, poolDType,
                                  checkpointInterval)) {
    ssd_fuzz::checkRejection("npy-loader-fuzzer", error);
    return 0;
  }
  checkValidated(p);

  // Derived work: the CPU workspace estimate is a finite number, the host
  // operands have the layout's sizes, and the reference runs where its work
  // (batch + tokens x state + written slots x state) is small.
  double workspace = ssd::cpuWorkspaceBytes(p, true, 256, 2) +
                     ssd::cpuWorkspaceBytes(p, false, 256, 2);
  require(std::isfinite(workspace) && workspace >= 0, "workspace estimate");
  if (!ssd_fuzz::smallEnoughForTheReference(p))
    return 0;
  ssd::HostOperands operands(p);
  ssd_fuzz::checkHostOperands("npy-loader-fuzzer", p, operands);
  std::vector<double> y, pool;
  require(ssd::referenceScan(p, y, pool, &error), "reference failed", error);
  require(y.size() == p.x.size() && pool.size() == p.pool.size(),
          "reference output sizes");
  std::vector<float> yOut, poolOut;
  ssd::roundOutputs(p, y, pool, yOut, poolOut);
  operands.readOutputs(yOut, poolOut);
  require(yOut.size() == p.x.size() && poolOut.size() == p.pool.size(),
          "host operand output sizes");
  return 0;
}
