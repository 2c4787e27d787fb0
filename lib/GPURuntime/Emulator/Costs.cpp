//===- Costs.cpp - the emulator's cost model: rules and bookkeeping -------===//
//
// The cost model (Costs.h): bank conflicts and sectors of warp-level
// instructions, the per-kernel and per-launch stores and their report, and
// the executor's side of it (Executor.h): grouping the accesses the lanes
// of a warp buffered into warp-level instructions, and the L2 window that
// tells DRAM reads from L2 hits. In one file so that the rules and the
// grouping that feeds them are read together.
//
//===----------------------------------------------------------------------===//

#include "Costs.h"

#include "Collectives.h"
#include "Emulator.h"
#include "Executor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

using namespace ssd::emulator;

namespace {

constexpr unsigned kBanks = 32;
constexpr uint64_t kMaxWordsPerPhase = 128; // 32 lanes x 4 words (16 bytes)

/// The largest number of distinct words in one bank among `words`
/// (sorted in place unless no two distinct words share a bank).
uint64_t worstBank(uint64_t *words, size_t count) {
  if (count == 0)
    return 0;
  // The common case first: every bank holds at most one distinct word.
  uint64_t owner[kBanks];
  uint32_t used = 0;
  bool conflict = false;
  for (size_t i = 0; i < count && !conflict; ++i) {
    const unsigned bank = words[i] % kBanks;
    if (!(used & (1u << bank))) {
      used |= 1u << bank;
      owner[bank] = words[i];
    } else {
      conflict = owner[bank] != words[i];
    }
  }
  if (!conflict)
    return 1;
  std::sort(words, words + count);
  unsigned perBank[kBanks] = {};
  unsigned worst = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i && words[i] == words[i - 1])
      continue; // lanes sharing a word: one access (broadcast)
    worst = std::max(worst, ++perBank[words[i] % kBanks]);
  }
  return worst;
}

} // namespace

uint64_t ssd::emulator::sharedWavefronts(const LaneAccess *accesses,
                                         size_t count, uint64_t &phases) {
  uint32_t widest = 0;
  for (size_t i = 0; i < count; ++i)
    widest = std::max(widest, accesses[i].bytes);
  if (widest == 0)
    return 0;
  if (widest > 16) {
    // Wider than any single instruction (memcpy): 16-byte pieces, each a
    // warp-level access of its own.
    uint64_t total = 0;
    LaneAccess piece[kWarpSize];
    for (uint32_t start = 0; start < widest; start += 16) {
      size_t n = 0;
      for (size_t i = 0; i < count && n < kWarpSize; ++i)
        if (accesses[i].bytes > start)
          piece[n++] = {accesses[i].address + start,
                        std::min<uint32_t>(16, accesses[i].bytes - start),
                        accesses[i].lane};
      total += sharedWavefronts(piece, n, phases);
    }
    return total;
  }
  if (widest <= 4) {
    // One phase; the common case first: each lane's bytes lie in one word
    // and no two distinct words share a bank.
    uint64_t owner[kBanks];
    uint32_t used = 0;
    bool simple = true;
    for (size_t i = 0; i < count && simple; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      const uint64_t word = a.address / 4;
      if ((a.address + a.bytes - 1) / 4 != word) {
        simple = false;
        break;
      }
      const unsigned bank = word % kBanks;
      if (!(used & (1u << bank))) {
        used |= 1u << bank;
        owner[bank] = word;
      } else if (owner[bank] != word) {
        simple = false;
      }
    }
    if (simple) {
      phases += used ? 1 : 0;
      return used ? 1 : 0;
    }
  }
  // 128 bytes per phase: 32 lanes of 4 bytes, 16 of 8, 8 of 16.
  const unsigned lanesPerPhase = widest <= 4 ? 32 : widest <= 8 ? 16 : 8;
  uint64_t total = 0;
  uint64_t words[kMaxWordsPerPhase];
  size_t i = 0;
  while (i < count) {
    const unsigned phase = accesses[i].lane / lanesPerPhase;
    size_t n = 0;
    for (; i < count && accesses[i].lane / lanesPerPhase == phase; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      for (uint64_t w = a.address / 4;
           w <= (a.address + a.bytes - 1) / 4 && n < kMaxWordsPerPhase; ++w)
        words[n++] = w;
    }
    phases += n ? 1 : 0;
    total += worstBank(words, n);
  }
  return total;
}

uint64_t ssd::emulator::ldmatrixWavefronts(const uint64_t *rows,
                                           unsigned matrices) {
  uint64_t total = 0;
  for (unsigned m = 0; m < matrices; ++m) {
    uint64_t words[32];
    size_t n = 0;
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned w = 0; w < 4; ++w)
        words[n++] = rows[8 * m + r] / 4 + w;
    total += worstBank(words, n);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// Sectors
//===----------------------------------------------------------------------===//

SectorSet::Entry &SectorSet::find(uint64_t key) {
  if (table.empty())
    table.assign(1024, Entry{0, 0});
  const size_t mask = table.size() - 1;
  size_t slot = size_t((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (true) {
    Entry &e = table[slot];
    if (e.key == key)
      return e;
    if (e.key == 0) {
      if ((used + 1) * 2 > table.size()) {
        grow();
        return find(key);
      }
      ++used;
      e.key = key;
      return e;
    }
    slot = (slot + 1) & mask;
  }
}

void SectorSet::grow() {
  std::vector<Entry> old;
  old.swap(table);
  table.assign(old.size() * 2, Entry{0, 0});
  used = 0;
  last_ = nullptr;
  for (const Entry &e : old)
    if (e.key)
      find(e.key).bits = e.bits;
}

void SectorSet::insert(uint64_t sector) {
  const uint64_t key = sector / 64 + 1;
  const uint64_t bit = uint64_t(1) << (sector % 64);
  if (last_ && last_->key == key) {
    last_->bits |= bit;
    return;
  }
  Entry &e = find(key);
  e.bits |= bit;
  last_ = &e;
}

void SectorSet::insertRange(uint64_t first, uint64_t last) {
  while (first <= last) {
    const uint64_t key = first / 64 + 1;
    const unsigned low = first % 64;
    const uint64_t blockEnd = (first | 63);
    const unsigned high = unsigned((std::min(last, blockEnd)) % 64);
    const uint64_t bits =
        (high == 63 ? ~uint64_t(0) : ((uint64_t(1) << (high + 1)) - 1)) &
        ~((uint64_t(1) << low) - 1);
    if (last_ && last_->key == key) {
      last_->bits |= bits;
    } else {
      Entry &e = find(key);
      e.bits |= bits;
      last_ = &e;
    }
    if (blockEnd >= last)
      break;
    first = blockEnd + 1;
  }
}

void SectorSet::merge(const SectorSet &other) {
  for (const Entry &e : other.table)
    if (e.key) {
      Entry &mine = find(e.key);
      mine.bits |= e.bits;
    }
  last_ = nullptr;
}

uint64_t SectorSet::count() const {
  uint64_t total = 0;
  for (const Entry &e : table)
    total += uint64_t(__builtin_popcountll(e.bits));
  return total;
}

void SectorSet::clear() {
  if (used)
    std::fill(table.begin(), table.end(), Entry{0, 0});
  used = 0;
  last_ = nullptr;
}

uint64_t ssd::emulator::globalSectors(const LaneAccess *accesses, size_t count,
                                      SectorSet *sectors) {
  // The common case first: lanes in increasing lane order touch sectors in
  // non-decreasing order (each lane's first sector is at or after the
  // previous lane's last), so the distinct ones are counted in one pass.
  // (Sectors inserted before finding otherwise are inserted again below:
  // the set does not mind.)
  {
    uint64_t distinct = 0, last = 0;
    bool any = false, ordered = true;
    for (size_t i = 0; i < count; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      const uint64_t first = a.address / 32;
      const uint64_t end = (a.address + a.bytes - 1) / 32;
      if (any && first < last) {
        ordered = false;
        break;
      }
      distinct += end - first + (any && first == last ? 0 : 1);
      any = true;
      last = end;
      if (sectors)
        sectors->insertRange(first, end);
    }
    if (ordered)
      return distinct;
  }
  size_t needed = 0;
  for (size_t i = 0; i < count; ++i)
    if (accesses[i].bytes)
      needed += (accesses[i].address + accesses[i].bytes - 1) / 32 -
                accesses[i].address / 32 + 1;
  uint64_t local[2 * kWarpSize];
  std::vector<uint64_t> large;
  uint64_t *list = local;
  if (needed > 2 * kWarpSize) {
    large.resize(needed);
    list = large.data();
  }
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const LaneAccess &a = accesses[i];
    if (a.bytes)
      for (uint64_t s = a.address / 32; s <= (a.address + a.bytes - 1) / 32;
           ++s)
        list[n++] = s;
  }
  std::sort(list, list + n);
  uint64_t distinct = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i && list[i] == list[i - 1])
      continue;
    ++distinct;
    if (sectors)
      sectors->insert(list[i]);
  }
  return distinct;
}

//===----------------------------------------------------------------------===//
// Counters and their store
//===----------------------------------------------------------------------===//

void CostCounters::add(const CostCounters &o) {
  launches += o.launches;
  blocks += o.blocks;
  threads += o.threads;
  warps += o.warps;
  barriers += o.barriers;
  warpCollectives += o.warpCollectives;
  for (unsigned i = 0; i < 4; ++i)
    mma[i] += o.mma[i];
  mmaFlops += o.mmaFlops;
  wgmma += o.wgmma;
  wgmmaFlops += o.wgmmaFlops;
  ldmatrix += o.ldmatrix;
  ldmatrixMatrices += o.ldmatrixMatrices;
  cpAsync += o.cpAsync;
  cpAsyncZeroFill += o.cpAsyncZeroFill;
  sharedLoad.add(o.sharedLoad);
  sharedStore.add(o.sharedStore);
  sharedAtomic.add(o.sharedAtomic);
  sharedLdmatrix.add(o.sharedLdmatrix);
  sharedCpAsync.add(o.sharedCpAsync);
  sharedWgmma.add(o.sharedWgmma);
  globalLoad.add(o.globalLoad);
  globalStore.add(o.globalStore);
  globalAtomic.add(o.globalAtomic);
  globalCpAsync.add(o.globalCpAsync);
  dramReadSectors += o.dramReadSectors;
  dramWriteSectors += o.dramWriteSectors;
  l2ReadSectors += o.l2ReadSectors;
  earlyGroupings += o.earlyGroupings;
}

namespace {

constexpr size_t kMaxLaunchRecords = 65536;

struct CostStore {
  std::mutex mutex;
  std::vector<KernelCost> kernels;
  std::map<std::string, size_t> index;
  std::deque<LaunchCost> launches;
};

CostStore &store() {
  static CostStore *s = new CostStore; // used by atexit handlers too
  return *s;
}

} // namespace

void ssd::emulator::recordLaunchCosts(const Kernel &kernel,
                                      const LaunchConfig &config,
                                      const CostCounters &counters) {
  CostStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, inserted] = s.index.try_emplace(kernel.costName, s.kernels.size());
  if (inserted)
    s.kernels.push_back(KernelCost{kernel.costName, CostCounters()});
  s.kernels[it->second].counters.add(counters);
  LaunchCost launch;
  launch.kernel = kernel.costName;
  for (int i = 0; i < 3; ++i) {
    launch.grid[i] = config.grid[i];
    launch.block[i] = config.block[i];
  }
  launch.sharedBytes = kernel.dynamicOffset + config.dynamicShared;
  launch.counters = counters;
  s.launches.push_back(std::move(launch));
  if (s.launches.size() > kMaxLaunchRecords)
    s.launches.pop_front();
}

void ssd::emulator::recordMemsetCosts(uint64_t bytes) {
  CostStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, inserted] = s.index.try_emplace("memset", s.kernels.size());
  if (inserted)
    s.kernels.push_back(KernelCost{"memset", CostCounters()});
  CostCounters &c = s.kernels[it->second].counters;
  c.launches += 1;
  c.dramWriteSectors += (bytes + 31) / 32;
}

std::vector<KernelCost> ssd::emulator::takeCosts() {
  CostStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<KernelCost> result;
  result.swap(s.kernels);
  s.index.clear();
  return result;
}

std::vector<LaunchCost> ssd::emulator::takeLaunchCosts() {
  CostStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<LaunchCost> result(s.launches.begin(), s.launches.end());
  s.launches.clear();
  return result;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

/// H200 SXM peaks for the lower bounds: 132 SMs at 1.98 GHz, 989 dense
/// bf16/f16 tensor TFLOP/s, 4.8 TB/s HBM3e, one shared-memory wavefront
/// (128 bytes) per SM per clock.
constexpr double kTensorFlopsPerSecond = 989e12;
constexpr double kDramBytesPerSecond = 4.8e12;
constexpr double kWavefrontsPerSecond = 132 * 1.98e9;

const char *mmaName(unsigned index) {
  switch (MmaKind(index + 1)) {
  case MmaKind::M16N8K16BF16:
    return "m16n8k16.bf16";
  case MmaKind::M16N8K16F16:
    return "m16n8k16.f16";
  case MmaKind::M16N8K8BF16:
    return "m16n8k8.bf16";
  case MmaKind::M16N8K8F16:
    return "m16n8k8.f16";
  }
  return "?";
}

void appendf(std::string &out, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void appendf(std::string &out, const char *format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  if (n > 0)
    out.append(buffer, std::min<size_t>(size_t(n), sizeof(buffer) - 1));
}

void traffic(std::string &out, const char *name, const MemoryTraffic &t,
             const char *unit) {
  if (!t.instructions)
    return;
  appendf(out,
          "  %s: instructions %" PRIu64 " bytes %" PRIu64 " %s %" PRIu64
          " (%.2f per instruction)",
          name, t.instructions, t.bytes, unit, t.transactions,
          double(t.transactions) / double(t.instructions));
  if (std::strcmp(unit, "wavefronts") == 0)
    appendf(out, " bank-conflict wavefronts %" PRIu64, t.conflicts);
  out += '\n';
}

} // namespace

std::string ssd::emulator::formatCosts(const std::vector<KernelCost> &costs) {
  std::string out;
  for (const KernelCost &k : costs) {
    const CostCounters &c = k.counters;
    appendf(out,
            "kernel %s: launches %" PRIu64 " blocks %" PRIu64
            " threads %" PRIu64 " warps %" PRIu64 "\n",
            k.kernel.c_str(), c.launches, c.blocks, c.threads, c.warps);
    appendf(out, "  sync: barriers %" PRIu64 " warp-collectives %" PRIu64 "\n",
            c.barriers, c.warpCollectives);
    for (unsigned i = 0; i < 4; ++i)
      if (c.mma[i])
        appendf(out, "  mma.sync %s: %" PRIu64 "\n", mmaName(i), c.mma[i]);
    if (c.mmaFlops)
      appendf(out, "  mma flops: %" PRIu64 "\n", c.mmaFlops);
    if (c.wgmma)
      appendf(out, "  wgmma.mma_async: %" PRIu64 "\n", c.wgmma);
    if (c.wgmmaFlops)
      appendf(out, "  wgmma flops: %" PRIu64 "\n", c.wgmmaFlops);
    if (c.ldmatrix)
      appendf(out,
              "  ldmatrix: instructions %" PRIu64 " matrices %" PRIu64 "\n",
              c.ldmatrix, c.ldmatrixMatrices);
    if (c.cpAsync)
      appendf(out,
              "  cp.async: copies %" PRIu64 " zero-filled bytes %" PRIu64 "\n",
              c.cpAsync, c.cpAsyncZeroFill);
    traffic(out, "shared.load", c.sharedLoad, "wavefronts");
    traffic(out, "shared.store", c.sharedStore, "wavefronts");
    traffic(out, "shared.atomic", c.sharedAtomic, "wavefronts");
    traffic(out, "shared.ldmatrix", c.sharedLdmatrix, "wavefronts");
    traffic(out, "shared.cp.async", c.sharedCpAsync, "wavefronts");
    traffic(out, "shared.wgmma", c.sharedWgmma, "wavefronts");
    traffic(out, "global.load", c.globalLoad, "sectors");
    traffic(out, "global.store", c.globalStore, "sectors");
    traffic(out, "global.atomic", c.globalAtomic, "sectors");
    traffic(out, "global.cp.async", c.globalCpAsync, "sectors");
    if (c.dramReadSectors || c.dramWriteSectors)
      appendf(out,
              "  dram: read sectors %" PRIu64 " written sectors %" PRIu64
              " (%" PRIu64 " bytes)\n",
              c.dramReadSectors, c.dramWriteSectors,
              32 * (c.dramReadSectors + c.dramWriteSectors));
    if (c.l2ReadSectors)
      appendf(out,
              "  l2: read sectors %" PRIu64
              " written earlier in the launch (%" PRIu64 " bytes)\n",
              c.l2ReadSectors, 32 * c.l2ReadSectors);
    if (c.earlyGroupings)
      appendf(out, "  early groupings: %" PRIu64 "\n", c.earlyGroupings);
    const uint64_t wavefronts =
        c.sharedLoad.transactions + c.sharedStore.transactions +
        c.sharedAtomic.transactions + c.sharedLdmatrix.transactions +
        c.sharedCpAsync.transactions + c.sharedWgmma.transactions;
    appendf(out,
            "  h200 lower bounds (us): tensor %.3f dram %.3f shared %.3f\n",
            1e6 * double(c.mmaFlops) / kTensorFlopsPerSecond,
            1e6 * 32.0 * double(c.dramReadSectors + c.dramWriteSectors) /
                kDramBytesPerSecond,
            1e6 * double(wavefronts) / kWavefrontsPerSecond);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Cost model: warp-level instructions from the lanes' buffered accesses
//===----------------------------------------------------------------------===//

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
                      size_t count) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; ++i)
    bytes += group[i].bytes;
  if (bytes == 0)
    return; // cp.async sources of src-size 0: nothing read
  MemoryTraffic &t = trafficOf(w, kind);
  ++t.instructions;
  t.bytes += bytes;
  if (isShared(kind)) {
    uint64_t phases = 0;
    const uint64_t wavefronts = sharedWavefronts(group, count, phases);
    t.transactions += wavefronts;
    t.conflicts += wavefronts - phases;
    return;
  }
  const uint64_t sectors = globalSectors(group, count, nullptr);
  t.transactions += sectors;
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
                     d.groups[i].count);
}

} // namespace

void beginL2Window() { l2Window().beginLaunch(); }

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
    countInstruction(w, AccessKind(model.kind), group, n);
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
    countInstruction(w, AccessKind(model->kind), group, n);
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
