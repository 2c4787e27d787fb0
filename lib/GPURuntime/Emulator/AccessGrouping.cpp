//===- AccessGrouping.cpp - the lanes' accesses as warp-level instructions ===//
//
// The executor's side of the cost model (CostModel.h): the accesses the
// lanes of a warp buffered are grouped into warp-level instructions at the
// warp's next synchronisation and counted into the worker's counters, and
// the L2 window tells DRAM reads from L2 hits.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

namespace ssd {
namespace emulator {

namespace {

MemoryTraffic &trafficOf(Worker &w, AccessKind kind) {
  switch (kind) {
  case AccessKind::SharedLoad:
    return w.cost.sharedLoad;
  case AccessKind::SharedStore:
    return w.cost.sharedStore;
  case AccessKind::SharedAtomic:
    return w.cost.sharedAtomic;
  case AccessKind::SharedCpAsync:
    return w.cost.sharedCpAsync;
  case AccessKind::GlobalLoad:
    return w.cost.globalLoad;
  case AccessKind::GlobalStore:
    return w.cost.globalStore;
  case AccessKind::GlobalAtomic:
    return w.cost.globalAtomic;
  case AccessKind::GlobalCpAsync:
    break;
  }
  return w.cost.globalCpAsync;
}

/// The L2 rule of the cost model: a sector that a launch wrote and then
/// reads again while less than the L2's capacity of traffic came between
/// is an L2 hit, not DRAM traffic. Per 128-byte line of the device window,
/// the launch's traffic (KiB) when it last wrote the line, tagged with the
/// launch (a lazily touched table, 4 bytes per line).
class L2Window {
public:
  static constexpr uint64_t kCapacityKiB = 50 * 1024; // H200: 50 MiB

  void beginLaunch() {
    if (!table) {
      // One entry per 32-byte sector: L2 lines are sectored, so a write to
      // one sector of a line does not make its other sectors hits.
      sectors = DeviceMemory::get().capacity() / 32;
      void *p = mmap(nullptr, sectors * 4, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) {
        sectors = 0;
        return;
      }
      table = static_cast<std::atomic<uint32_t> *>(p);
    }
    tag = tag % 255 + 1;
    if (tag == 1)
      madvise(table, sectors * 4, MADV_DONTNEED); // tags start over
    traffic = 0;
  }
  /// Advances the launch's traffic by one instruction's sectors.
  void advance(uint64_t sectors) { traffic += 32 * sectors; }
  void wrote(uintptr_t address) {
    if (uint64_t sector = DeviceMemory::get().offsetOf(address) / 32;
        sector < sectors)
      table[sector].store(tag << 24 |
                              uint32_t(traffic.load() / 1024 & 0xffffff),
                          std::memory_order_relaxed);
  }
  bool hit(uintptr_t address) const {
    uint64_t sector = DeviceMemory::get().offsetOf(address) / 32;
    if (sector >= sectors)
      return false;
    uint32_t entry = table[sector].load(std::memory_order_relaxed);
    if (entry >> 24 != tag)
      return false;
    uint32_t now = uint32_t(traffic.load() / 1024 & 0xffffff);
    return ((now - entry) & 0xffffff) < kCapacityKiB;
  }

private:
  std::atomic<uint32_t> *table = nullptr;
  uint64_t sectors = 0;
  uint32_t tag = 0;
  std::atomic<uint64_t> traffic{0};
};
L2Window &l2Window() {
  static L2Window window;
  return window;
}

/// Sorts a global instruction's sectors into DRAM reads, L2 hits and
/// writes (SSD_GPU_EMULATOR_COSTS=full).
void classifySectors(Worker &w, AccessKind kind, const LaneAccess *group,
                     size_t count, uint64_t distinct) {
  L2Window &l2 = l2Window();
  const bool reads =
      kind == AccessKind::GlobalLoad || kind == AccessKind::GlobalCpAsync;
  for (size_t i = 0; i < count; ++i) {
    const LaneAccess &a = group[i];
    if (a.bytes == 0)
      continue;
    for (uint64_t s = a.address / 32; s <= (a.address + a.bytes - 1) / 32;
         ++s) {
      if (!reads) {
        w.writeSectors.insert(s);
        l2.wrote(s * 32);
      } else if (l2.hit(s * 32)) {
        w.l2Sectors.insert(s);
      } else {
        w.readSectors.insert(s);
      }
    }
  }
  l2.advance(distinct);
}

/// Counts one warp-level instruction: the lanes' accesses in `group`.
void countInstruction(Worker &w, AccessKind kind, const LaneAccess *group,
                      size_t count, uint32_t site) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; ++i)
    bytes += group[i].bytes;
  if (bytes == 0)
    return; // cp.async sources of src-size 0: nothing read
  MemoryTraffic &t = trafficOf(w, kind);
  ++t.instructions;
  t.bytes += bytes;
  SiteTraffic *profile = nullptr;
  if (w.profileAccesses) {
    // A site may make accesses of two kinds (cp.async: the global source
    // and the shared destination).
    const size_t slot = size_t(site) * kAccessKinds + size_t(kind);
    if (w.accessProfile.size() <= slot)
      w.accessProfile.resize(slot + 1);
    profile = &w.accessProfile[slot];
    ++profile->instructions;
    profile->bytes += bytes;
  }
  if (isShared(kind)) {
    uint64_t phases = 0;
    const uint64_t wavefronts = sharedWavefronts(group, count, phases);
    t.transactions += wavefronts;
    t.conflicts += wavefronts - phases;
    if (profile)
      profile->transactions += wavefronts;
    return;
  }
  const uint64_t sectors = globalSectors(group, count, nullptr);
  t.transactions += sectors;
  if (profile)
    profile->transactions += sectors;
  if (w.costLevel == CostLevel::Full)
    classifySectors(w, kind, group, count, sectors);
}

/// Divergent code: the lanes' accesses from position `from` on (the lanes
/// agreed before it), grouped by (call site, kind, how many times the lane
/// reached that site since position `from`).
void groupDivergent(Worker &w, Thread *lanes, uint32_t withRecords,
                    uint32_t from) {
  DivergentScratch &d = w.divergent;
  d.reset();
  for (uint32_t mask = withRecords; mask; mask &= mask - 1) {
    const unsigned l = __builtin_ctz(mask);
    const Thread &t = lanes[l];
    d.counts.clear();
    for (uint32_t j = from; j < t.recordCount; ++j) {
      const AccessRecord &r = t.records[j * kWarpSize];
      const uint64_t key = (uint64_t(r.site) << 32) | (uint64_t(r.kind) << 24);
      uint32_t occurrence = 0;
      auto it = std::find_if(d.counts.begin(), d.counts.end(),
                             [&](const auto &c) { return c.first == key; });
      if (it == d.counts.end())
        d.counts.push_back({key, 1});
      else
        occurrence = it->second++;
      DivergentScratch::Group &g =
          d.group(key | std::min<uint32_t>(occurrence, 0xffffff), r.kind);
      if (g.count < kWarpSize)
        g.lanes[g.count++] = {r.address, r.bytes, l};
    }
  }
  for (size_t i = 0; i < d.used; ++i)
    countInstruction(w, AccessKind(d.groups[i].kind), d.groups[i].lanes,
                     d.groups[i].count, uint32_t(d.groups[i].key >> 32));
}

} // namespace

void beginL2Window() { l2Window().beginLaunch(); }

void resetIssueCounts(Worker &w) {
  const size_t size = size_t((w.threadCount + kIssueLanes - 1) / kIssueLanes) *
                      w.kernel->issueBlocks * kIssueLanes;
  if (w.issueCounts.size() < size)
    w.issueCounts.resize(size);
  std::fill_n(w.issueCounts.begin(), size, 0);
}

// A warp issues a basic block's instructions once for all its lanes that
// run it together: the k-th time each lane enters the block is one issue,
// so the warp issues it as often as its busiest lane entered it (exact for
// the SIMT execution of structured control flow; lanes that ran a block a
// different number of times are taken to have shared their first visits).
void countIssue(Worker &w) {
  const Kernel &k = *w.kernel;
  if (!k.issueTable || !k.issueBlocks)
    return;
  const unsigned warps = (w.threadCount + kIssueLanes - 1) / kIssueLanes;
  const uint32_t *counts = w.issueCounts.data();
  const bool profile = !settings().issueProfile.empty();
  if (profile && w.issueProfile.size() != k.issueBlocks)
    w.issueProfile.assign(k.issueBlocks, 0);
  for (unsigned warp = 0; warp < warps; ++warp)
    for (uint32_t b = 0; b < k.issueBlocks; ++b, counts += kIssueLanes) {
      uint32_t most = 0;
      for (unsigned lane = 0; lane < kIssueLanes; ++lane)
        most = std::max(most, counts[lane]);
      if (!most)
        continue;
      if (profile)
        w.issueProfile[b] += most;
      const uint32_t *perClass = k.issueTable + size_t(b) * kIssueClasses;
      for (unsigned c = 0; c < kIssueClasses; ++c)
        w.cost.issue[c] += uint64_t(most) * perClass[c];
    }
}

/// Groups the accesses the lanes of `warp` buffered since its last
/// synchronisation into warp-level instructions, counts them and drops them.
/// Convergent code (every lane's j-th access at the same call site) is
/// grouped by position; from the first position where the lanes disagree
/// on, by occurrence (groupDivergent).
void groupWarpAccesses(Worker &w, unsigned warp) {
  w.parkedLanes[warp] = 0;
  const uint32_t withRecords = w.recordLanes[warp];
  if (!withRecords)
    return;
  w.recordLanes[warp] = 0;
  Thread *lanes = &w.threads[warp * kWarpSize];
  uint32_t longest = 0, shortest = UINT32_MAX;
  for (uint32_t mask = withRecords; mask; mask &= mask - 1) {
    const uint32_t n = lanes[__builtin_ctz(mask)].recordCount;
    longest = std::max(longest, n);
    shortest = std::min(shortest, n);
  }
  LaneAccess group[kWarpSize];
  uint32_t j = 0;
  // Positions every lane with records reached: a tight loop.
  const unsigned firstLane = __builtin_ctz(withRecords);
  for (; j < shortest; ++j) {
    const AccessRecord &model = lanes[firstLane].records[j * kWarpSize];
    size_t n = 0;
    bool same = true;
    for (uint32_t mask = withRecords; mask; mask &= mask - 1) {
      const unsigned l = __builtin_ctz(mask);
      const AccessRecord &r = lanes[l].records[j * kWarpSize];
      same &= r.site == model.site && r.kind == model.kind;
      group[n++] = {r.address, r.bytes, l};
    }
    if (!same)
      break;
    countInstruction(w, AccessKind(model.kind), group, n, model.site);
  }
  for (; j < longest && j >= shortest; ++j) {
    const AccessRecord *model = nullptr;
    size_t n = 0;
    bool same = true;
    for (uint32_t mask = withRecords; mask && same; mask &= mask - 1) {
      const unsigned l = __builtin_ctz(mask);
      const Thread &t = lanes[l];
      if (j >= t.recordCount)
        continue;
      const AccessRecord &r = t.records[j * kWarpSize];
      if (!model)
        model = &r;
      else if (r.site != model->site || r.kind != model->kind)
        same = false;
      group[n++] = {r.address, r.bytes, l};
    }
    if (!same)
      break;
    countInstruction(w, AccessKind(model->kind), group, n, model->site);
  }
  if (j < longest)
    groupDivergent(w, lanes, withRecords, j);
  for (uint32_t mask = withRecords; mask; mask &= mask - 1)
    lanes[__builtin_ctz(mask)].recordCount = 0;
}

void groupAllAccesses(Worker &w) {
  if (w.costLevel == CostLevel::Off)
    return;
  for (unsigned warp = 0; warp * kWarpSize < w.threadCount; ++warp)
    groupWarpAccesses(w, warp);
}

/// A lane whose buffer is full waits until every lane of its warp has
/// stopped (full buffer, barrier, collective or exit); the last one groups
/// the warp's accesses so far. Exact for convergent code, whose lanes stop
/// at the same access.
__attribute__((noinline)) void park(Worker &w, Thread &t) {
  const unsigned warp = t.index / kWarpSize;
  const unsigned first = warp * kWarpSize;
  const unsigned present = std::min(kWarpSize, w.threadCount - first);
  while (t.recordCount >= kRecordLimit) {
    w.parkedLanes[warp] |= 1u << (t.index % kWarpSize);
    bool stopped = true;
    for (unsigned l = 0; l < present && stopped; ++l)
      stopped = w.threads[first + l].state != ThreadState::Runnable ||
                (w.parkedLanes[warp] & (1u << l));
    if (stopped) {
      ++w.cost.earlyGroupings;
      groupWarpAccesses(w, warp);
      return;
    }
    suspend(w);
  }
}

} // namespace emulator
} // namespace ssd
