//===- Executor.cpp - thread blocks as fibers, one per GPU thread ---------===//
//
// A launch's blocks are spread over a few OS threads (workers). A worker runs
// one block at a time: each GPU thread of the block is a fiber with its own
// stack, and a scheduler on the worker resumes them in turn. A thread runs
// until it reaches a barrier, joins a warp collective or returns; then the
// scheduler runs the next one. When every thread is waiting:
//
//  - a warp collective whose member lanes have all arrived (same operation,
//    same member mask) is computed for all of them at once and they run on;
//    lanes of the mask that exited do not count, except for mma.sync;
//  - when every live thread waits at the same barrier, the barrier opens and
//    a new barrier interval (epoch) starts;
//  - anything else can never make progress on a GPU either: a barrier that
//    part of the block skipped or exited past, threads at different
//    barriers, a collective whose lanes never all arrive. It is reported as
//    an error naming the kernel, the block, the threads and the call sites.
//
// Shared memory is the worker's arena, checked on every access: bounds, a
// shadow word per 4 bytes recording the last writer and readers in the
// current epoch (two different threads touching one word between two
// barriers, one of them writing, is a race, unless both are in a warp that
// ran a bar.warp.sync of all its lanes in between), and whether any thread
// wrote it since the block started. ldmatrix is a warp collective whose row
// reads are checked as reads of the lanes that give the row addresses.
// cp.async checks its source and destination when issued and copies at the
// cp.async.wait_group that covers it; in between, its destination words are
// marked in flight and any access to them is a race.
//
// Device memory between blocks (GlobalRaces.h): plain accesses are stamped
// per 4-byte word; an access that conflicts with another block's in the
// same launch is a race unless a release of that block, acquired by this
// thread (or by its block before a barrier), covers it.
//
// Cost model: each lane appends its memory accesses to a buffer; when its
// warp synchronises (a collective of all its live lanes, a barrier, the end
// of the block, or a full buffer in every lane) the lanes' accesses are
// grouped into warp-level instructions and counted (Costs.h).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "Costs.h"
#include "Emulator.h"
#include "GlobalRaces.h"
#include "Waits.h"

#include <boost/context/detail/fcontext.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <utility>

using namespace ssd::emulator;
namespace fiber = boost::context::detail;

namespace {

constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned kMaxThreadsPerBlock = 1024;
/// Accesses a lane buffers for the cost model before it lets the other
/// lanes of its warp catch up (so that they can be grouped and dropped).
constexpr size_t kRecordLimit = 1024;

enum class ThreadState : uint8_t { Runnable, AtBarrier, AtWarp, Exited };
enum class WarpOpKind : uint8_t { Shuffle, Vote, Mma, SyncWarp, Ldmatrix };

struct WarpOp {
  WarpOpKind kind;
  uint32_t mode, mask, site;
  uint32_t value, b, c; ///< shfl operands; vote: value is the predicate
  MmaFragments *fragments;
  uint32_t result;
  bool inRange;
  uintptr_t address;     ///< ldmatrix: this lane's row address
  uint32_t registers[4]; ///< ldmatrix: this lane's results
};

/// A cp.async issued and not yet waited for: the copy happens at the
/// cp.async.wait_group that covers it.
struct PendingCopy {
  uint64_t offset;  ///< destination in shared memory
  const char *from; ///< source (host window), null when srcBytes is 0
  uint32_t bytes, srcBytes;
  uint32_t group; ///< the issuing thread's commits before it
  uint32_t site;
};

struct Thread {
  fiber::fcontext_t context = nullptr;
  char *stackLow = nullptr; ///< lowest usable byte (a guard page below)
  unsigned index = 0, tid[3] = {0, 0, 0};
  ThreadState state = ThreadState::Exited;
  uint32_t barrierSite = 0, barrierId = 0;
  WarpOp op{};
  /// Memory accesses since the warp's last synchronisation (cost model):
  /// kRecordLimit slots in the worker's record slab, the warp's lanes
  /// interleaved (access j of this lane at records[j * kWarpSize]) so that
  /// grouping reads a warp's j-th accesses from consecutive memory.
  AccessRecord *records = nullptr;
  uint32_t recordCount = 0;
  std::vector<PendingCopy> pending;
  uint32_t commits = 0; ///< cp.async.commit_groups executed
  /// The device word this thread last read with a strong load, if its
  /// last device access was that read (waits between blocks: Waits.h).
  PollState poll;
  /// The cross-block race check (GlobalRaces.h): this thread's accesses
  /// are stamped with `gen`, which advances at its fences and releases and
  /// at every block barrier. Those stamped below `fencedGen` precede its
  /// last fence or release; `fenceCoverage` is the block's barrier coverage
  /// at that point (other threads' accesses before a barrier that precedes
  /// it), which a later relaxed write of this thread publishes too.
  uint32_t gen = 0, fencedGen = 0;
  CoverageRef fenceCoverage;
  /// Knowledge this thread acquired since the block's last barrier (the
  /// other threads get it at the barrier).
  std::vector<KnowledgeRef> acquired;
  /// A word read by an acquire whose publisher is looked up at the
  /// thread's next runtime call, after the load has returned its value.
  uintptr_t acquirePending = 0;
  /// Words read by relaxed or volatile loads since the last fence: a fence
  /// after them acquires (the last few only).
  static constexpr unsigned kRelaxedLoads = 4;
  uintptr_t relaxedLoads[kRelaxedLoads] = {};
  uint32_t relaxedCount = 0;
};

/// The order of a launch's blocks (Settings::blockOrder): the linear block
/// index that the dispatch number `d` (the d-th block started) runs.
class BlockPermutation {
public:
  BlockPermutation(BlockOrder kind, uint64_t blocks, uint64_t seed)
      : kind(kind), blocks(blocks) {
    if (kind != BlockOrder::Random || blocks < 2)
      return;
    // splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
    // generators"), a Fisher-Yates shuffle up to 2^24 blocks; beyond, a
    // random affine map d -> (a d + c) mod blocks with a coprime to blocks.
    auto next = [&seed] {
      uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
    };
    if (blocks <= (uint64_t(1) << 24)) {
      shuffled.resize(blocks);
      for (uint64_t i = 0; i < blocks; ++i)
        shuffled[i] = uint32_t(i);
      for (uint64_t i = blocks - 1; i > 0; --i)
        std::swap(shuffled[i], shuffled[next() % (i + 1)]);
      return;
    }
    do
      stride = next() % blocks;
    while (std::gcd(stride, blocks) != 1);
    offset = next() % blocks;
  }
  uint64_t operator()(uint64_t d) const {
    switch (kind) {
    case BlockOrder::Forward:
      return d;
    case BlockOrder::Reverse:
      return blocks - 1 - d;
    case BlockOrder::Random:
      if (blocks < 2)
        return d;
      if (!shuffled.empty())
        return shuffled[d];
      return uint64_t((unsigned __int128)stride * d % blocks + offset) % blocks;
    }
    return d;
  }

private:
  BlockOrder kind;
  uint64_t blocks;
  std::vector<uint32_t> shuffled;
  uint64_t stride = 1, offset = 0;
};

/// A launch's synchronisation between blocks: waits on device words
/// (Waits.h) and what releases published (the race check).
struct LaunchSync {
  explicit LaunchSync(unsigned workers) : waits(workers) {}
  Waits waits;
  struct Word {
    /// What its releases published (the cross-block race check).
    KnowledgeRef published;
  };
  std::mutex mutex;
  std::unordered_map<uint64_t, Word> words;

  /// The cross-block race check (GlobalRaces.h): on for this launch, its
  /// shadow tag, per block (dispatch number) its newest release record,
  /// and whether a race was reported (one per launch).
  bool raceCheck = false;
  uint32_t tag = 0;
  uint64_t blocks = 0;
  /// The linear index of the block with each dispatch number.
  const BlockPermutation *order = nullptr;
  std::unique_ptr<std::atomic<const ReleaseRecord *>[]> releases;
  std::atomic<bool> raceReported{false};
};

/// The running launch's synchronisation between blocks.
LaunchSync *activeSync = nullptr;

/// Per 4-byte word of shared memory, for the race and initialisation checks.
/// Two accesses are ordered when a block barrier lies between them (the
/// epochs differ) or, for two threads of one warp, when a bar.warp.sync of
/// the whole warp does (the warp's epoch grew since the first): PTX orders
/// the memory accesses of the threads bar.warp.sync synchronises.
struct Shadow {
  uint32_t writeEpoch, readEpoch; ///< 0: not in this block
  uint32_t writeSite, readSite, otherReadSite;
  uint32_t writeWarpEpoch; ///< the writer's warp epoch at the write
  /// With the readers in one warp: that warp's epoch at the latest read, and
  /// the lanes that read in it (reads in earlier warp epochs are ordered
  /// before the warp's later accesses).
  uint32_t readWarpEpoch, readLanes;
  uint16_t writer, reader; ///< reader: the latest
  uint16_t otherReader;    ///< with manyWarps: a reader of another warp
  uint16_t asyncWriter;    ///< with asyncPending: the issuing thread
  uint8_t manyWarps;       ///< readers of several warps in this epoch
  uint8_t atomicWrite;
  uint8_t readUnwritten; ///< listed in Worker::unwrittenReads
  /// A cp.async writing this word was issued and its thread has not waited
  /// for it: no thread may access the word until then.
  uint8_t asyncPending;
};
static_assert(sizeof(Shadow) == 44, "one shadow word per 4 bytes");

/// A read of a shared word no thread had written yet. Judged at the next
/// barrier: a write by another thread in between is a race (reported when
/// it happens); no write, or only the reader's own, leaves garbage read.
struct UnwrittenRead {
  uint64_t word;
  uint16_t thread;
  uint32_t site;
};

/// Scratch space for grouping the accesses of divergent code: warp-level
/// instructions found by key (an open-addressing table of group indices).
struct DivergentScratch {
  struct Group {
    uint64_t key;
    uint32_t kind, count;
    LaneAccess lanes[kWarpSize];
  };
  std::vector<Group> groups;
  size_t used = 0;
  std::vector<uint32_t> table; ///< group index + 1; 0: empty
  std::vector<std::pair<uint64_t, uint32_t>> counts;

  void reset() {
    used = 0;
    std::fill(table.begin(), table.end(), 0);
  }
  Group &group(uint64_t key, uint32_t kind) {
    if ((used + 1) * 2 > table.size())
      rehash(std::max<size_t>(64, table.size() * 2));
    const size_t mask = table.size() - 1;
    size_t slot = size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (table[slot]) {
      Group &g = groups[table[slot] - 1];
      if (g.key == key)
        return g;
      slot = (slot + 1) & mask;
    }
    if (groups.size() <= used)
      groups.resize(used + 1);
    Group &g = groups[used++];
    g.key = key;
    g.kind = kind;
    g.count = 0;
    table[slot] = uint32_t(used);
    return g;
  }
  void rehash(size_t size) {
    table.assign(size, 0);
    for (size_t i = 0; i < used; ++i) {
      size_t slot =
          size_t((groups[i].key * 0x9E3779B97F4A7C15ull) >> 32) & (size - 1);
      while (table[slot])
        slot = (slot + 1) & (size - 1);
      table[slot] = uint32_t(i + 1);
    }
  }
};

struct Worker {
  std::vector<Thread> threads;
  char *stacks = nullptr;
  size_t stackStride = 0;
  std::vector<uint64_t> sharedStorage; ///< 8-byte aligned arena
  std::vector<Shadow> shadow;
  fiber::fcontext_t scheduler = nullptr;

  // The block being run.
  const Kernel *kernel = nullptr;
  const LaunchConfig *config = nullptr;
  void **params = nullptr;
  unsigned block[3] = {0, 0, 0};
  unsigned threadCount = 0;
  char *shared = nullptr;
  uint64_t sharedBytes = 0;
  uint32_t epoch = 1, barriers = 0, lastBarrierSite = UINT32_MAX;
  /// Completed bar.warp.syncs of each whole warp in this block (see Shadow).
  uint32_t warpEpochs[kMaxThreadsPerBlock / kWarpSize] = {};
  /// Per warp, the lanes waiting in a collective and the lanes that exited:
  /// the arriving lane that completes its group computes it at once.
  uint32_t waitingLanes[kMaxThreadsPerBlock / kWarpSize] = {};
  uint32_t exitedLanes[kMaxThreadsPerBlock / kWarpSize] = {};
  bool aborted = false;
  bool raceReported = false;
  std::vector<UnwrittenRead> unwrittenReads;
  Thread *current = nullptr;
  /// The allocations this worker's kernels touched last, most recent first
  /// (stable during a launch: allocations change only between launches).
  static constexpr unsigned kRecentRanges = 8;
  const DeviceRange *recentRanges[kRecentRanges] = {};
  /// Work counted here and added to counters() after the launch, so that
  /// workers do not contend for one cache line on every access.
  uint64_t globalAccesses = 0, sharedAccesses = 0, collectives = 0, mmas = 0,
           barriersOpened = 0;
  /// The cost model: this worker's share of the running launch.
  CostLevel costLevel = CostLevel::Off;
  CostCounters cost;
  SectorSet readSectors, writeSectors, l2Sectors;
  /// Per warp, the lanes that stopped because their access buffer is full,
  /// and the lanes with buffered accesses.
  uint32_t parkedLanes[kMaxThreadsPerBlock / kWarpSize] = {};
  uint32_t recordLanes[kMaxThreadsPerBlock / kWarpSize] = {};
  AccessRecord *recordSlab = nullptr; ///< kRecordLimit per thread
  DivergentScratch divergent;
  /// Waits between blocks (Waits.h): this worker's index in the launch,
  /// the running block's dispatch number, and the device words its threads
  /// wrote with strong stores or atomics that are not yet noted (a store
  /// runs after the runtime call that checked it returns: it is noted at
  /// the next call, when it has run).
  unsigned index = 0;
  uint64_t dispatch = 0;
  std::vector<uintptr_t> syncWrites;
  /// The cross-block race check: on for the running block, the stamp of
  /// its accesses without thread and generation, what the block knows of
  /// others since its last barrier, its newest release record, and the
  /// records of this launch's blocks that ran here (freed after it).
  bool raceOn = false;
  uint64_t stampBase = 0;
  Knowledge known;
  const ReleaseRecord *lastRelease = nullptr;
  std::vector<std::unique_ptr<ReleaseRecord>> ownedReleases;
  /// Per thread, the generation its accesses before the block's last
  /// barrier are stamped below (null: no barrier yet). A release by any
  /// thread after the barrier publishes them: PTX releases are cumulative
  /// over what precedes them in causality order, and bar.sync orders every
  /// thread's earlier accesses before every thread's later ones.
  CoverageRef barrierCoverage;
  /// Plain device-memory accesses of the running block so far.
  uint64_t plainGlobal = 0;

  ~Worker() {
    if (stacks)
      munmap(stacks, stackStride * kMaxThreadsPerBlock);
    if (recordSlab)
      munmap(recordSlab,
             sizeof(AccessRecord) * kRecordLimit * kMaxThreadsPerBlock);
  }
};

// Initial-exec: kernels read it on every runtime call, and the general TLS
// model would make each read a call into the dynamic loader.
__attribute__((tls_model("initial-exec"))) thread_local Worker *activeWorker =
    nullptr;

/// The guard pages below fiber stacks, for the fault handler's message.
std::mutex stackRegistryMutex;
std::vector<std::pair<uintptr_t, uintptr_t>> stackRegions;

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string siteText(const Kernel &kernel, uint32_t site) {
  if (kernel.sites && site < kernel.sites->size())
    return (*kernel.sites)[site];
  return "site " + std::to_string(site);
}

std::string tuple(const unsigned v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
         std::to_string(v[2]) + ")";
}

std::string where(const Worker &w) {
  return "kernel " + w.kernel->name + " block " + tuple(w.block);
}

std::string threadName(const Thread &t) { return "thread " + tuple(t.tid); }

/// "threads (0,0,0)-(31,3,0)" style summary of a set of thread indices.
std::string threadList(const Worker &w, const std::vector<unsigned> &indices) {
  std::ostringstream os;
  size_t shown = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1)
      ++j;
    if (shown++)
      os << ", ";
    if (shown > 6) {
      os << "...";
      break;
    }
    os << tuple(w.threads[indices[i]].tid);
    if (j > i)
      os << "-" << tuple(w.threads[indices[j]].tid);
    i = j;
  }
  return os.str();
}

std::string sharedLocation(const Worker &w, uint64_t offset) {
  for (const SharedBufferInfo &b : w.kernel->buffers)
    if (offset >= b.offset && offset < b.offset + b.bytes)
      return b.name + "+" + std::to_string(offset - b.offset);
  if (offset >= w.kernel->dynamicOffset)
    return "dynamic shared memory+" +
           std::to_string(offset - w.kernel->dynamicOffset);
  return "shared offset " + std::to_string(offset);
}

std::string intervalText(const Worker &w) {
  if (w.lastBarrierSite == UINT32_MAX)
    return "between the start of the block and the first barrier";
  return "after barrier " + std::to_string(w.barriers) + " of the block (" +
         siteText(*w.kernel, w.lastBarrierSite) + ")";
}

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

/// Switches to the context `target`, leaving the current one in `save`.
/// Every switch passes the slot where the resumed side stores the context
/// it came from, so fibers can hand over to each other directly.
void switchTo(fiber::fcontext_t target, fiber::fcontext_t *save) {
  fiber::transfer_t from = fiber::jump_fcontext(target, save);
  *static_cast<fiber::fcontext_t *>(from.data) = from.fctx;
}

/// Leaves the running thread, which can no longer run: the next runnable
/// thread of the block after it runs (one switch instead of two through the
/// scheduler), or the scheduler when none is left in this pass.
void suspend(Worker &w) {
  Thread &self = *w.current;
  for (unsigned i = self.index + 1; i < w.threadCount; ++i) {
    Thread &next = w.threads[i];
    if (next.state == ThreadState::Runnable) {
      w.current = &next;
      switchTo(next.context, &self.context);
      return;
    }
  }
  switchTo(w.scheduler, &self.context);
}

void markExited(Worker &w, Thread &t) {
  t.state = ThreadState::Exited;
  w.exitedLanes[t.index / kWarpSize] |= 1u << (t.index % kWarpSize);
}

/// Ends the block after a fatal error in its current thread: the scheduler
/// never resumes any of its threads. An empty message: another block's
/// error ends this one, reported there.
[[noreturn]] void abortBlock(Worker &w, const std::string &message) {
  if (!message.empty())
    reportError(message);
  w.aborted = true;
  Thread &self = *w.current;
  markExited(w, self);
  switchTo(w.scheduler, &self.context);
  __builtin_unreachable();
}

void fiberMain(fiber::transfer_t from) {
  *static_cast<fiber::fcontext_t *>(from.data) = from.fctx;
  Worker &w = *activeWorker;
  w.kernel->entry(w.params);
  markExited(w, *w.current);
  suspend(w);
  __builtin_unreachable();
}

void resume(Worker &w, Thread &t) {
  w.current = &t;
  switchTo(t.context, &w.scheduler);
  w.current = nullptr;
}

void prepareWorker(Worker &w) {
  if (w.stacks)
    return;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  w.stackStride = kStackBytes + page;
  size_t total = w.stackStride * kMaxThreadsPerBlock;
  void *region =
      mmap(nullptr, total, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (region == MAP_FAILED) {
    reportError("cannot map the stacks of the emulated GPU threads");
    return;
  }
  w.stacks = static_cast<char *>(region);
  w.threads.resize(kMaxThreadsPerBlock);
  // The cost model's access buffers: pages are touched only when used.
  void *slab =
      mmap(nullptr, sizeof(AccessRecord) * kRecordLimit * kMaxThreadsPerBlock,
           PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
           -1, 0);
  if (slab == MAP_FAILED) {
    reportError("cannot map the emulator's access buffers");
    munmap(w.stacks, total);
    w.stacks = nullptr;
    return;
  }
  w.recordSlab = static_cast<AccessRecord *>(slab);
  for (unsigned i = 0; i < kMaxThreadsPerBlock; ++i)
    w.threads[i].records = w.recordSlab +
                           size_t(i / kWarpSize) * kWarpSize * kRecordLimit +
                           i % kWarpSize;
  std::lock_guard<std::mutex> lock(stackRegistryMutex);
  for (unsigned i = 0; i < kMaxThreadsPerBlock; ++i) {
    char *low = w.stacks + i * w.stackStride;
    mprotect(low, page, PROT_NONE);
    stackRegions.push_back({uintptr_t(low), uintptr_t(low + page)});
    w.threads[i].stackLow = low + page;
  }
}

//===----------------------------------------------------------------------===//
// Cost model: warp-level instructions from the lanes' buffered accesses
//===----------------------------------------------------------------------===//

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

__attribute__((always_inline)) inline void
recordAccess(Worker &w, Thread &t, uint64_t address, uint64_t bytes,
             AccessKind kind, uint32_t site) {
  AccessRecord &r = t.records[size_t(t.recordCount++) * kWarpSize];
  r.address = address;
  r.site = site;
  r.bytes = uint32_t(std::min<uint64_t>(bytes, 0xffffff));
  r.kind = uint32_t(kind);
  w.recordLanes[t.index / kWarpSize] |= 1u << (t.index % kWarpSize);
  if (__builtin_expect(t.recordCount >= kRecordLimit, 0))
    park(w, t);
}

void checkShared(Worker &w, Thread &who, uint64_t offset, uint64_t bytes,
                 uint32_t flags, uint32_t site);
void resolveAcquire(Thread &t);

//===----------------------------------------------------------------------===//
// Warp collectives and barriers
//===----------------------------------------------------------------------===//

const char *opName(WarpOpKind kind) {
  switch (kind) {
  case WarpOpKind::Shuffle:
    return "shfl.sync";
  case WarpOpKind::Vote:
    return "vote.sync";
  case WarpOpKind::Mma:
    return "mma.sync";
  case WarpOpKind::SyncWarp:
    return "bar.warp.sync";
  case WarpOpKind::Ldmatrix:
    return "ldmatrix";
  }
  return "?";
}

/// .aligned collectives: every lane of the warp takes part.
bool wholeWarp(WarpOpKind kind) {
  return kind == WarpOpKind::Mma || kind == WarpOpKind::Ldmatrix;
}

/// Lanes of `warp` that take part in the collective `op` joined by `lane`.
uint32_t members(const Worker &w, unsigned warp, const WarpOp &op) {
  unsigned first = warp * kWarpSize;
  unsigned present = std::min(kWarpSize, w.threadCount - first);
  uint32_t existing = present == 32 ? ~0u : ((1u << present) - 1);
  return (wholeWarp(op.kind) ? ~0u : op.mask) & existing;
}

bool sameOp(const WarpOp &a, const WarpOp &b) {
  return a.kind == b.kind && a.mode == b.mode && a.mask == b.mask;
}

/// ldmatrix.sync.aligned.m8n8.x<N>[.trans].b16 (PTX ISA, "Warp-level matrix
/// load instruction: ldmatrix"): lanes 8i..8i+7 give the addresses of rows
/// 0..7 of matrix i (i < N; the other lanes' addresses are not used), each
/// row 8 consecutive 16-bit elements (16 bytes, 16-byte aligned, in shared
/// memory); lane l receives, for each matrix, the 32-bit register holding
/// row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 (the lower index in the
/// low half) of the matrix, or of its transpose with .trans. False after an
/// error.
bool computeLdmatrix(Worker &w, Thread *lanes, const WarpOp &op) {
  const unsigned matrices = op.mode & kLdmatrixMatricesMask;
  const bool trans = op.mode & kLdmatrixTrans;
  const uintptr_t base = reinterpret_cast<uintptr_t>(w.shared);
  uint64_t rows[32];
  for (unsigned i = 0; i < 8 * matrices; ++i) {
    Thread &provider = lanes[i];
    const uintptr_t a = provider.op.address;
    std::string problem;
    if (a < base)
      problem = "a row address outside the block's shared memory";
    else if (a - base + 16 > w.sharedBytes)
      problem = "the row address of shared offset " + std::to_string(a - base) +
                ", whose 16 bytes run past the "
                "block's " +
                std::to_string(w.sharedBytes) + " bytes";
    else if ((a - base) % 16)
      problem = "the row address of shared offset " + std::to_string(a - base) +
                ", not 16-byte aligned";
    if (!problem.empty()) {
      reportError(where(w) + ": " + threadName(provider) + " gives ldmatrix " +
                  problem + " (row " + std::to_string(i % 8) + " of matrix " +
                  std::to_string(i / 8) + "; " + siteText(*w.kernel, op.site) +
                  ")");
      w.aborted = true;
      return false;
    }
    rows[i] = a - base;
    checkShared(w, provider, rows[i], 16, AccessRead, op.site);
  }
  auto element = [&](unsigned matrix, unsigned row, unsigned column) {
    uint16_t value;
    std::memcpy(&value, w.shared + rows[8 * matrix + row] + 2 * column,
                sizeof(value));
    return uint32_t(value);
  };
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, t = lane % 4;
    for (unsigned m = 0; m < matrices; ++m) {
      uint32_t low = trans ? element(m, 2 * t, g) : element(m, g, 2 * t);
      uint32_t high =
          trans ? element(m, 2 * t + 1, g) : element(m, g, 2 * t + 1);
      lanes[lane].op.registers[m] = low | (high << 16);
    }
  }
  ++w.cost.ldmatrix;
  w.cost.ldmatrixMatrices += matrices;
  if (w.costLevel != CostLevel::Off) {
    ++w.cost.sharedLdmatrix.instructions;
    w.cost.sharedLdmatrix.bytes += 128 * matrices;
    const uint64_t wavefronts = ldmatrixWavefronts(rows, matrices);
    w.cost.sharedLdmatrix.transactions += wavefronts;
    // One 128-byte phase per 8x8 matrix.
    w.cost.sharedLdmatrix.conflicts += wavefronts - matrices;
  }
  return true;
}

void computeCollective(Worker &w, unsigned warp, uint32_t group) {
  Thread *lanes = &w.threads[warp * kWarpSize];
  unsigned leader = __builtin_ctz(group);
  const WarpOp &op = lanes[leader].op;
  ++w.collectives;
  switch (op.kind) {
  case WarpOpKind::Shuffle:
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(group & (1u << lane)))
        continue;
      WarpOp &mine = lanes[lane].op;
      ShuffleSource source =
          shuffleSource(ShuffleMode(mine.mode), lane, mine.b, mine.c);
      if (source.inRange && !(group & (1u << source.lane))) {
        // The value of a lane that does not take part is undefined.
        const char *why = !(mine.mask & (1u << source.lane))
                              ? "is not in the member mask"
                          : warp * kWarpSize + source.lane >= w.threadCount
                              ? "does not exist (the block ends before it)"
                              : "has exited";
        reportError(where(w) + ": " + threadName(lanes[lane]) +
                    " shuffles from lane " + std::to_string(source.lane) +
                    ", which " + why + " (" + siteText(*w.kernel, mine.site) +
                    ")");
        w.aborted = true;
        return;
      }
      mine.result = lanes[source.lane].op.value;
      mine.inRange = source.inRange;
    }
    break;
  case WarpOpKind::Vote: {
    uint32_t ballot = 0;
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      if ((group & (1u << lane)) && lanes[lane].op.value)
        ballot |= 1u << lane;
    uint32_t result = 0;
    switch (VoteMode(op.mode)) {
    case VoteMode::All:
      result = ballot == group;
      break;
    case VoteMode::Any:
      result = ballot != 0;
      break;
    case VoteMode::Uni:
      result = ballot == 0 || ballot == group;
      break;
    case VoteMode::Ballot:
      result = ballot;
      break;
    }
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      if (group & (1u << lane))
        lanes[lane].op.result = result;
    break;
  }
  case WarpOpKind::Mma: {
    MmaFragments fragments[kWarpSize];
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      fragments[lane] = *lanes[lane].op.fragments;
    mmaSync(MmaKind(op.mode), fragments);
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      std::memcpy(lanes[lane].op.fragments->d, fragments[lane].d,
                  sizeof(fragments[lane].d));
    ++w.mmas;
    ++w.cost.mma[op.mode - 1];
    w.cost.mmaFlops += 2 * 16 * 8 * mmaCounts(MmaKind(op.mode)).k;
    break;
  }
  case WarpOpKind::Ldmatrix:
    if (!computeLdmatrix(w, lanes, op))
      return;
    break;
  case WarpOpKind::SyncWarp: {
    // A bar.warp.sync of every lane of the warp orders all their earlier
    // shared-memory accesses before all their later ones.
    unsigned present = std::min(kWarpSize, w.threadCount - warp * kWarpSize);
    if (group == (present == kWarpSize ? ~0u : (1u << present) - 1))
      ++w.warpEpochs[warp];
    break;
  }
  }
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    if (group & (1u << lane))
      lanes[lane].state = ThreadState::Runnable;
  w.waitingLanes[warp] &= ~group;
  ++w.cost.warpCollectives;
  // Every live lane of the warp is here: its accesses since the last
  // synchronisation are complete.
  if (w.costLevel != CostLevel::Off) {
    unsigned present = std::min(kWarpSize, w.threadCount - warp * kWarpSize);
    uint32_t all = present == kWarpSize ? ~0u : (1u << present) - 1;
    if (((group | w.exitedLanes[warp]) & all) == all)
      groupWarpAccesses(w, warp);
  }
}

/// Completes every collective of `warp` whose members have all arrived.
/// True when some lane can run again.
bool resolveWarp(Worker &w, unsigned warp) {
  unsigned first = warp * kWarpSize;
  if (first >= w.threadCount)
    return false;
  Thread *lanes = &w.threads[first];
  uint32_t handled = 0;
  bool released = false;
  unsigned present = std::min(kWarpSize, w.threadCount - first);
  for (unsigned lane = 0; lane < present; ++lane) {
    Thread &t = lanes[lane];
    if (t.state != ThreadState::AtWarp || (handled & (1u << lane)))
      continue;
    uint32_t group = members(w, warp, t.op);
    if (wholeWarp(t.op.kind) && present != kWarpSize) {
      reportError(where(w) + ": " + opName(t.op.kind) + " in a warp of " +
                  std::to_string(present) +
                  " threads (it needs all 32 lanes; " +
                  siteText(*w.kernel, t.op.site) + ")");
      w.aborted = true;
      return false;
    }
    if (!(group & (1u << lane))) {
      reportError(where(w) + ": " + threadName(t) + " executes " +
                  opName(t.op.kind) +
                  " with a member mask that excludes "
                  "itself (" +
                  siteText(*w.kernel, t.op.site) + ")");
      w.aborted = true;
      return false;
    }
    bool ready = true;
    handled |= group;
    for (unsigned other = 0; other < present && ready; ++other) {
      if (!(group & (1u << other)))
        continue;
      Thread &o = lanes[other];
      if (o.state == ThreadState::Exited) {
        // shfl.sync and vote.sync wait only for the non-exited threads of
        // their member mask (PTX ISA), bar.warp.sync too (__syncwarp in the
        // CUDA programming guide): exited lanes leave the group, and a
        // shuffle that reads from one is reported when it is computed.
        // mma.sync and ldmatrix are .aligned: every lane of the warp must
        // execute them.
        if (!wholeWarp(t.op.kind)) {
          group &= ~(1u << other);
          continue;
        }
        reportError(where(w) + ": " + threadName(o) + " exited while lane " +
                    std::to_string(lane) + " waits for it in " +
                    opName(t.op.kind) + " (" + siteText(*w.kernel, t.op.site) +
                    ")");
        w.aborted = true;
        return false;
      }
      ready = o.state == ThreadState::AtWarp && sameOp(o.op, t.op);
    }
    if (!ready)
      continue;
    computeCollective(w, warp, group);
    if (w.aborted)
      return false;
    released = true;
  }
  return released;
}

/// Reports reads of shared memory that returned bytes no other thread wrote
/// before them in this barrier interval, unless a race explains them.
void judgeUnwrittenReads(Worker &w) {
  if (!w.raceReported)
    for (const UnwrittenRead &read : w.unwrittenReads) {
      const Shadow &s = w.shadow[read.word];
      if (s.writeEpoch != 0 && s.writer != read.thread)
        continue;
      reportError(where(w) + ": " + threadName(w.threads[read.thread]) +
                  " reads " + sharedLocation(w, read.word * 4) +
                  ", which no thread of the block has written (" +
                  siteText(*w.kernel, read.site) + ")");
      w.aborted = true;
      break;
    }
  for (const UnwrittenRead &read : w.unwrittenReads)
    w.shadow[read.word].readUnwritten = 0;
  w.unwrittenReads.clear();
}

/// Called when no thread can run: opens the barrier, or reports why the
/// block can never finish. True when threads run again.
bool openBarrierOrReport(Worker &w) {
  std::vector<unsigned> atBarrier, atWarp, exited;
  for (unsigned i = 0; i < w.threadCount; ++i) {
    switch (w.threads[i].state) {
    case ThreadState::AtBarrier:
      atBarrier.push_back(i);
      break;
    case ThreadState::AtWarp:
      atWarp.push_back(i);
      break;
    case ThreadState::Exited:
      exited.push_back(i);
      break;
    case ThreadState::Runnable:
      return true;
    }
  }
  if (atBarrier.empty() && atWarp.empty()) {
    judgeUnwrittenReads(w);
    groupAllAccesses(w);
    return false; // the block is done
  }
  if (atWarp.empty()) {
    const Thread &first = w.threads[atBarrier.front()];
    std::vector<unsigned> here, elsewhere;
    for (unsigned i : atBarrier)
      (w.threads[i].barrierSite != first.barrierSite ||
               w.threads[i].barrierId != first.barrierId
           ? elsewhere
           : here)
          .push_back(i);
    if (!exited.empty()) {
      reportError(where(w) + ": barrier divergence: threads " +
                  threadList(w, atBarrier) + " wait at " +
                  siteText(*w.kernel, first.barrierSite) + " but threads " +
                  threadList(w, exited) +
                  " exited without reaching it; the block would hang");
      w.aborted = true;
      return false;
    }
    if (!elsewhere.empty()) {
      reportError(
          where(w) + ": barrier divergence: threads " + threadList(w, here) +
          " wait at " + siteText(*w.kernel, first.barrierSite) +
          " and threads " + threadList(w, elsewhere) + " at " +
          siteText(*w.kernel, w.threads[elsewhere.front()].barrierSite) +
          "; the block would hang");
      w.aborted = true;
      return false;
    }
    // Everyone is here: the next barrier interval starts.
    judgeUnwrittenReads(w);
    if (w.aborted)
      return false;
    groupAllAccesses(w);
    ++w.epoch;
    ++w.barriers;
    w.lastBarrierSite = first.barrierSite;
    ++w.barriersOpened;
    ++w.cost.barriers;
    for (unsigned i : atBarrier)
      w.threads[i].state = ThreadState::Runnable;
    if (w.raceOn) {
      // The barrier orders every thread's earlier accesses before the
      // others' later ones: they become publishable by any thread's later
      // release (or fence and relaxed write), and what a thread acquired
      // is the block's.
      auto coverage =
          w.barrierCoverage
              ? std::make_shared<std::vector<uint32_t>>(*w.barrierCoverage)
              : std::make_shared<std::vector<uint32_t>>(w.threadCount, 0);
      for (unsigned i : atBarrier) {
        Thread &t = w.threads[i];
        t.gen = std::min(t.gen + 1, stamp::kMaxGen);
        (*coverage)[i] = t.gen;
        for (const KnowledgeRef &k : t.acquired)
          w.known.join(*k);
        t.acquired.clear();
      }
      w.barrierCoverage = std::move(coverage);
    }
    return true;
  }
  const Thread &waiting = w.threads[atWarp.front()];
  std::string message =
      where(w) + ": deadlock: threads " + threadList(w, atWarp) + " wait in " +
      opName(waiting.op.kind) + " (" + siteText(*w.kernel, waiting.op.site) +
      ") for lanes that never join it";
  if (!atBarrier.empty())
    message += "; threads " + threadList(w, atBarrier) + " wait at " +
               siteText(*w.kernel, w.threads[atBarrier.front()].barrierSite);
  if (!exited.empty())
    message += "; threads " + threadList(w, exited) + " exited";
  reportError(message);
  w.aborted = true;
  return false;
}

void runBlock(Worker &w, uint64_t linearBlock) {
  const LaunchConfig &c = *w.config;
  w.block[0] = unsigned(linearBlock % c.grid[0]);
  w.block[1] = unsigned(linearBlock / c.grid[0] % c.grid[1]);
  w.block[2] = unsigned(linearBlock / (uint64_t(c.grid[0]) * c.grid[1]));
  w.epoch = 1;
  w.barriers = 0;
  w.lastBarrierSite = UINT32_MAX;
  w.raceReported = false;
  std::fill(std::begin(w.warpEpochs), std::end(w.warpEpochs), 0);
  std::fill(std::begin(w.waitingLanes), std::end(w.waitingLanes), 0);
  std::fill(std::begin(w.exitedLanes), std::end(w.exitedLanes), 0);
  std::fill(std::begin(w.parkedLanes), std::end(w.parkedLanes), 0);
  std::fill(std::begin(w.recordLanes), std::end(w.recordLanes), 0);
  w.unwrittenReads.clear();
  std::fill(std::begin(w.recentRanges), std::end(w.recentRanges), nullptr);
  w.raceOn = activeSync->raceCheck && w.dispatch <= stamp::kMaxDispatch;
  w.stampBase = stamp::make(activeSync->tag, w.dispatch, 0, 0);
  w.known.entries.clear();
  w.lastRelease = nullptr;
  w.barrierCoverage.reset();
  w.plainGlobal = 0;
  // Shared memory starts as garbage (0xff: NaN) and unwritten.
  std::memset(w.shared, 0xff, w.sharedBytes);
  std::memset(w.shadow.data(), 0, sizeof(Shadow) * ((w.sharedBytes + 3) / 4));
  for (unsigned i = 0; i < w.threadCount; ++i) {
    Thread &t = w.threads[i];
    t.index = i;
    t.tid[0] = i % c.block[0];
    t.tid[1] = i / c.block[0] % c.block[1];
    t.tid[2] = i / (c.block[0] * c.block[1]);
    t.state = ThreadState::Runnable;
    t.recordCount = 0;
    t.pending.clear();
    t.commits = 0;
    t.poll = PollState();
    t.gen = 0;
    t.fencedGen = 0;
    t.fenceCoverage.reset();
    t.acquired.clear();
    t.acquirePending = 0;
    t.relaxedCount = 0;
    // Stack tops staggered by a cache line per thread: page-aligned tops
    // would put every thread's hot frames in the same few L1 sets.
    size_t colour = (i % 64) * 64;
    t.context = fiber::make_fcontext(t.stackLow + kStackBytes - colour,
                                     kStackBytes - colour, fiberMain);
  }
  counters().blocks++;
  counters().threads += w.threadCount;
  ++w.cost.blocks;
  w.cost.threads += w.threadCount;
  w.cost.warps += (w.threadCount + kWarpSize - 1) / kWarpSize;
  while (true) {
    for (unsigned i = 0; i < w.threadCount; ++i) {
      if (w.threads[i].state != ThreadState::Runnable)
        continue;
      resume(w, w.threads[i]);
      if (w.aborted)
        return;
    }
    bool released = false;
    for (unsigned warp = 0; warp * kWarpSize < w.threadCount; ++warp) {
      released |= resolveWarp(w, warp);
      if (w.aborted)
        return;
    }
    if (released)
      continue;
    if (!openBarrierOrReport(w))
      return;
  }
}

//===----------------------------------------------------------------------===//
// Workers
//===----------------------------------------------------------------------===//

/// A fixed set of OS threads that run a function together; the calling
/// thread is worker 0.
class Pool {
public:
  static Pool &get() {
    // Never destroyed: its threads wait on it until the process ends.
    static Pool *pool = new Pool;
    return *pool;
  }

  void run(unsigned count, const std::function<void(unsigned)> &job) {
    std::unique_lock<std::mutex> lock(mutex);
    while (threads.size() + 1 < count) {
      threads.emplace_back(
          [this, index = unsigned(threads.size() + 1)] { loop(index); });
      threads.back().detach();
    }
    current = &job;
    active = count;
    pending = count - 1;
    ++generation;
    wake.notify_all();
    lock.unlock();
    job(0);
    lock.lock();
    done.wait(lock, [&] { return pending == 0; });
    current = nullptr;
  }

private:
  std::mutex mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> threads;
  const std::function<void(unsigned)> *current = nullptr;
  unsigned active = 0, pending = 0;
  uint64_t generation = 0;

  void loop(unsigned index) {
    installAlternateSignalStack();
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return generation != seen; });
      seen = generation;
      if (index >= active)
        continue;
      const std::function<void(unsigned)> *job = current;
      lock.unlock();
      (*job)(index);
      lock.lock();
      if (--pending == 0)
        done.notify_all();
    }
  }

public:
  static void installAlternateSignalStack() {
    thread_local bool installed = false;
    if (installed)
      return;
    installed = true;
    stack_t stack{};
    stack.ss_size = 64 * 1024;
    stack.ss_sp = mmap(nullptr, stack.ss_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack.ss_sp != MAP_FAILED)
      sigaltstack(&stack, nullptr);
  }
};

std::vector<std::unique_ptr<Worker>> &workers() {
  static std::vector<std::unique_ptr<Worker>> all;
  return all;
}

Worker &worker() {
  if (!activeWorker)
    abort(); // a runtime function called outside a kernel
  return *activeWorker;
}

Thread &currentThread() { return *worker().current; }

//===----------------------------------------------------------------------===//
// Shared-memory checks
//===----------------------------------------------------------------------===//

void reportRace(Worker &w, const Thread &self, uint64_t offset, uint32_t site,
                bool writing, unsigned other, bool otherWrote,
                uint32_t otherSite) {
  if (w.raceReported)
    return;
  w.raceReported = true;
  reportError(
      where(w) + ": shared-memory race on " + sharedLocation(w, offset) + ": " +
      threadName(self) + (writing ? " writes it" : " reads it") + " (" +
      siteText(*w.kernel, site) + ") and " + threadName(w.threads[other]) +
      (otherWrote ? " wrote it" : " read it") +
      (otherSite == UINT32_MAX ? std::string()
                               : " (" + siteText(*w.kernel, otherSite) + ")") +
      " in the same barrier interval, " + intervalText(w));
}

/// An access to a word that a cp.async still in flight writes: nothing
/// orders the two until the issuing thread's cp.async.wait_group.
void reportAsyncRace(Worker &w, const Thread &self, uint64_t offset,
                     uint32_t site, bool writing, unsigned issuer) {
  if (w.raceReported)
    return;
  w.raceReported = true;
  const Thread &t = w.threads[issuer];
  uint32_t copySite = UINT32_MAX;
  for (const PendingCopy &c : t.pending)
    if (offset >= c.offset && offset < c.offset + c.bytes)
      copySite = c.site;
  reportError(
      where(w) + ": shared-memory race on " + sharedLocation(w, offset) + ": " +
      threadName(self) + (writing ? " writes it" : " reads it") + " (" +
      siteText(*w.kernel, site) + ") while the cp.async of " + threadName(t) +
      (copySite == UINT32_MAX ? std::string()
                              : " (" + siteText(*w.kernel, copySite) + ")") +
      " that writes it is in flight: no cp.async.wait_group of " +
      threadName(t) + " has covered it, " + intervalText(w));
}

/// The checks of an access by thread `who` to [offset, offset + bytes) of
/// the block's shared memory (bounds, races, unwritten words), recording it
/// in the shadow words.
void checkShared(Worker &w, Thread &who, uint64_t offset, uint64_t bytes,
                 uint32_t flags, uint32_t site) {
  ++w.sharedAccesses;
  if (offset + bytes > w.sharedBytes || offset + bytes < offset)
    abortBlock(w, where(w) + ": " + threadName(who) + " accesses " +
                      std::to_string(bytes) +
                      " bytes of shared memory at offset " +
                      std::to_string(offset) + ", beyond the block's " +
                      std::to_string(w.sharedBytes) + " bytes (" +
                      siteText(*w.kernel, site) + ")");
  const bool writing = flags & (AccessWrite | AccessAtomic);
  const bool atomic = flags & AccessAtomic;
  const uint16_t self = uint16_t(who.index);
  const unsigned warp = self / kWarpSize, lane = self % kWarpSize;
  const uint32_t warpEpoch = w.warpEpochs[warp];
  for (uint64_t word = offset / 4; word * 4 < offset + bytes; ++word) {
    Shadow &s = w.shadow[word];
    if (s.asyncPending && settings().raceCheck)
      reportAsyncRace(w, who, word * 4, site, writing, s.asyncWriter);
    if ((!writing || atomic) && s.writeEpoch == 0 && !s.readUnwritten) {
      s.readUnwritten = 1;
      w.unwrittenReads.push_back({word, self, site});
    }
    // Without the race check the writes are still recorded below: the
    // check for reads of unwritten words needs them.
    if (settings().raceCheck) {
      if (s.writeEpoch == w.epoch && s.writer != self &&
          !(atomic && s.atomicWrite) &&
          !(s.writer / kWarpSize == warp && warpEpoch > s.writeWarpEpoch))
        reportRace(w, who, word * 4, site, writing, s.writer, true,
                   s.writeSite);
      if (writing && s.readEpoch == w.epoch) {
        if (s.manyWarps || s.reader / kWarpSize != warp) {
          // Some reader is of another warp: nothing orders it.
          bool latest = s.reader / kWarpSize != warp;
          reportRace(w, who, word * 4, site, true,
                     latest ? s.reader : s.otherReader, false,
                     latest ? s.readSite : s.otherReadSite);
        } else if (warpEpoch == s.readWarpEpoch) {
          // Lanes of this warp that read since its last bar.warp.sync.
          if (uint32_t others = s.readLanes & ~(1u << lane))
            reportRace(w, who, word * 4, site, true,
                       s.reader != self
                           ? s.reader
                           : warp * kWarpSize + __builtin_ctz(others),
                       false, s.reader != self ? s.readSite : UINT32_MAX);
        }
      }
    }
    if (writing) {
      s.writeEpoch = w.epoch;
      s.writer = self;
      s.writeSite = site;
      s.writeWarpEpoch = warpEpoch;
      s.atomicWrite = atomic;
      continue;
    }
    if (s.readEpoch != w.epoch) {
      s.readEpoch = w.epoch;
      s.manyWarps = 0;
      s.readWarpEpoch = warpEpoch;
      s.readLanes = 0;
    } else if (s.reader / kWarpSize != warp) {
      s.manyWarps = 1;
      s.otherReader = s.reader;
      s.otherReadSite = s.readSite;
    } else if (s.readWarpEpoch != warpEpoch) {
      s.readWarpEpoch = warpEpoch;
      s.readLanes = 0;
    }
    s.readLanes |= 1u << lane;
    s.reader = self;
    s.readSite = site;
  }
}

//===----------------------------------------------------------------------===//
// The functions emulated kernels import (EmulatorABI.h)
//===----------------------------------------------------------------------===//

uint32_t importSreg(uint32_t which) {
  Worker &w = worker();
  const Thread &t = *w.current;
  const LaunchConfig &c = *w.config;
  switch (SpecialRegister(which)) {
  case SpecialRegister::TidX:
  case SpecialRegister::TidY:
  case SpecialRegister::TidZ:
    return t.tid[which - uint32_t(SpecialRegister::TidX)];
  case SpecialRegister::NtidX:
  case SpecialRegister::NtidY:
  case SpecialRegister::NtidZ:
    return c.block[which - uint32_t(SpecialRegister::NtidX)];
  case SpecialRegister::CtaidX:
  case SpecialRegister::CtaidY:
  case SpecialRegister::CtaidZ:
    return w.block[which - uint32_t(SpecialRegister::CtaidX)];
  case SpecialRegister::NctaidX:
  case SpecialRegister::NctaidY:
  case SpecialRegister::NctaidZ:
    return c.grid[which - uint32_t(SpecialRegister::NctaidX)];
  case SpecialRegister::LaneId:
    return t.index % kWarpSize;
  case SpecialRegister::WarpId:
    return t.index / kWarpSize;
  case SpecialRegister::NWarpId:
    return (kMaxThreadsPerBlock * 2) / kWarpSize; // warps per SM (sm_80+)
  case SpecialRegister::WarpSize:
    return kWarpSize;
  }
  abortBlock(w,
             where(w) + ": unknown special register " + std::to_string(which));
}

void importBarrier(uint32_t site, uint32_t id, uint32_t threads) {
  Worker &w = worker();
  Thread &t = *w.current;
  if (threads != 0 &&
      threads != (w.threadCount + kWarpSize - 1) / kWarpSize * kWarpSize)
    abortBlock(w, where(w) + ": barrier " + std::to_string(id) + " for " +
                      std::to_string(threads) +
                      " threads (a subset of the block) is not supported by "
                      "the emulator (" +
                      siteText(*w.kernel, site) + ")");
  if (w.raceOn)
    resolveAcquire(t);
  t.state = ThreadState::AtBarrier;
  t.barrierSite = site;
  t.barrierId = id;
  suspend(w);
}

void waitInWarp(Worker &w, WarpOp op) {
  Thread &t = *w.current;
  t.op = op;
  t.state = ThreadState::AtWarp;
  const unsigned warp = t.index / kWarpSize;
  w.waitingLanes[warp] |= 1u << (t.index % kWarpSize);
  // The last lane of the group to arrive computes the collective and runs
  // on; the others wait (resolveWarp checks everything else).
  uint32_t group = members(w, warp, t.op);
  if (!wholeWarp(t.op.kind))
    group &= ~w.exitedLanes[warp];
  if ((w.waitingLanes[warp] & group) == group) {
    resolveWarp(w, warp);
    if (w.aborted) {
      markExited(w, t);
      switchTo(w.scheduler, &t.context);
      __builtin_unreachable();
    }
  }
  if (t.state == ThreadState::AtWarp)
    suspend(w);
}

void importSyncwarp(uint32_t site, uint32_t mask) {
  Worker &w = worker();
  waitInWarp(w, WarpOp{WarpOpKind::SyncWarp, 0, mask, site, 0, 0, 0, nullptr, 0,
                       false});
}

uint32_t importShfl(uint32_t site, uint32_t mode, uint32_t mask, uint32_t value,
                    uint32_t laneOrDelta, uint32_t clamp, uint8_t *inRange) {
  Worker &w = worker();
  waitInWarp(w, WarpOp{WarpOpKind::Shuffle, mode, mask, site, value,
                       laneOrDelta, clamp, nullptr, 0, false});
  const WarpOp &done = w.current->op;
  *inRange = done.inRange;
  return done.result;
}

uint32_t importVote(uint32_t site, uint32_t mode, uint32_t mask,
                    uint32_t predicate) {
  Worker &w = worker();
  waitInWarp(w, WarpOp{WarpOpKind::Vote, mode, mask, site, predicate != 0, 0, 0,
                       nullptr, 0, false});
  return w.current->op.result;
}

void importMma(uint32_t site, uint32_t kind, const uint32_t *a,
               const uint32_t *b, const float *c, float *d) {
  Worker &w = worker();
  MmaCounts counts = mmaCounts(MmaKind(kind));
  if (counts.k == 0)
    abortBlock(w, where(w) + ": unknown mma kind " + std::to_string(kind));
  MmaFragments fragments{};
  std::memcpy(fragments.a, a, counts.a * sizeof(uint32_t));
  std::memcpy(fragments.b, b, counts.b * sizeof(uint32_t));
  std::memcpy(fragments.c, c, sizeof(fragments.c));
  waitInWarp(w, WarpOp{WarpOpKind::Mma, kind, ~0u, site, 0, 0, 0, &fragments, 0,
                       false});
  std::memcpy(d, fragments.d, sizeof(fragments.d));
}

AccessKind accessKind(uint32_t flags, bool shared) {
  if (flags & AccessAtomic)
    return shared ? AccessKind::SharedAtomic : AccessKind::GlobalAtomic;
  if (flags & (AccessWrite | AccessReadWrite))
    return shared ? AccessKind::SharedStore : AccessKind::GlobalStore;
  return shared ? AccessKind::SharedLoad : AccessKind::GlobalLoad;
}

/// Ends the block for an access at `location` (a device address, or an
/// offset in the block's shared memory, which starts aligned on a GPU) that
/// breaks the alignment it promises (EmulatorABI.h, kAccessAlignShift).
[[noreturn]] void misaligned(Worker &w, uint64_t bytes, uint32_t flags,
                             uint32_t site, const std::string &location) {
  const uint64_t alignment = accessAlignment(flags);
  abortBlock(
      w, where(w) + ": " + threadName(*w.current) +
             ((flags & (AccessWrite | AccessAtomic)) ? " writes " : " reads ") +
             std::to_string(bytes) + " bytes at " + location +
             ", misaligned: the access requires " + std::to_string(alignment) +
             "-byte alignment (" + siteText(*w.kernel, site) + ")");
}

void *importShared(void *address, uint64_t bytes, uint32_t flags,
                   uint32_t site) {
  Worker &w = worker();
  Thread &t = *w.current;
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  uintptr_t base = reinterpret_cast<uintptr_t>(w.shared);
  if (a < base)
    abortBlock(w, where(w) + ": " + threadName(t) +
                      " accesses shared memory below its start (" +
                      siteText(*w.kernel, site) + ")");
  if ((a - base) & (accessAlignment(flags) - 1))
    misaligned(w, bytes, flags, site,
               "shared offset " + std::to_string(a - base) + " (" +
                   sharedLocation(w, a - base) + ")");
  checkShared(w, t, a - base, bytes, flags, site);
  if (w.costLevel != CostLevel::Off)
    recordAccess(w, t, a - base, bytes, accessKind(flags, true), site);
  return address;
}

/// The host-window address of the device memory [a, a + bytes) after the
/// bounds check (the block ends with an error when it fails).
char *deviceAccess(Worker &w, uintptr_t a, uint64_t bytes, uint32_t flags,
                   uint32_t site) {
  DeviceMemory &memory = DeviceMemory::get();
  ++w.globalAccesses;
  constexpr unsigned n = Worker::kRecentRanges;
  const DeviceRange **recent = w.recentRanges;
  for (unsigned i = 0; i < n && recent[i]; ++i) {
    const DeviceRange *r = recent[i];
    if (a >= r->begin && a < r->end && bytes <= r->end - a) {
      if (i)
        std::rotate(recent, recent + i, recent + i + 1);
      return memory.hostAddress(a);
    }
  }
  // The live allocations do not change during a launch: look the address
  // up directly, and only for an error ask translate() for the message.
  const DeviceRange *r = memory.find(a);
  if (!r || a >= r->end || bytes > r->end - a) {
    std::string why;
    if (!memory.translate(a, bytes, why))
      abortBlock(w, where(w) + ": " + threadName(*w.current) +
                        ((flags & AccessWrite) ? " writes " : " reads ") +
                        std::to_string(bytes) + " bytes at device address " +
                        std::to_string(a) + ", which " + why + " (" +
                        siteText(*w.kernel, site) + ")");
  }
  std::move_backward(recent, recent + n - 1, recent + n);
  recent[0] = r;
  return memory.hostAddress(a);
}

[[noreturn]] void notDeviceMemory(Worker &w, uintptr_t a, const char *verb,
                                  uint32_t site) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, a);
  abortBlock(w, where(w) + ": " + threadName(*w.current) + verb + " address " +
                    text +
                    (a == 0 ? " (a null pointer)"
                            : ", which is not device memory (a host "
                              "pointer?)") +
                    " (" + siteText(*w.kernel, site) + ")");
}

/// A strong write (release, relaxed or volatile store, atomic) that another
/// block may be waiting for: noted once it has run (flushSyncWrites).
void noteSyncWrite(Worker &w, uintptr_t a) {
  if (w.syncWrites.empty() || w.syncWrites.back() != a)
    w.syncWrites.push_back(a);
}

/// Called on entry to the runtime: every store checked before has run.
void flushSyncWrites(Worker &w) {
  if (!w.syncWrites.empty())
    activeSync->waits.noteWrites(w.syncWrites, w.dispatch);
}

//===----------------------------------------------------------------------===//
// Races between blocks in device memory (GlobalRaces.h)
//===----------------------------------------------------------------------===//

/// Adds knowledge acquired by thread `t` (the other threads of its block get
/// it at the next barrier).
void addKnowledge(Thread &t, KnowledgeRef k) {
  if (!k || k->entries.empty())
    return;
  for (const KnowledgeRef &known : t.acquired)
    if (known == k)
      return;
  t.acquired.push_back(std::move(k));
  if (t.acquired.size() > 8) {
    auto merged = std::make_shared<Knowledge>();
    for (const KnowledgeRef &known : t.acquired)
      merged->join(*known);
    t.acquired.assign(1, std::move(merged));
  }
}

/// Thread `t` read `a` with an acquire (or a relaxed load before a fence):
/// it learns what the releases to that word published.
void acquireWord(Thread &t, uintptr_t a) {
  LaunchSync &sync = *activeSync;
  KnowledgeRef k;
  {
    std::lock_guard<std::mutex> lock(sync.mutex);
    auto it = sync.words.find(a);
    if (it != sync.words.end())
      k = it->second.published;
  }
  addKnowledge(t, std::move(k));
}

void resolveAcquire(Thread &t) {
  if (t.acquirePending)
    acquireWord(t, std::exchange(t.acquirePending, 0));
}

/// Whether the access `other` (a stamp of another block of this launch)
/// happens before thread `t`'s access now; `known` is the index of the
/// newest release of that block that `t` knows (0: none).
bool orderedBefore(const Worker &w, const Thread &t, uint64_t other,
                   uint32_t &known) {
  const uint32_t d = stamp::dispatch(other);
  known = w.known.of(d);
  for (const KnowledgeRef &k : t.acquired)
    known = std::max(known, k->of(d));
  if (!known)
    return false;
  const ReleaseRecord *r =
      activeSync->releases[d].load(std::memory_order_acquire);
  while (r && r->index > known)
    r = r->previous;
  const uint32_t k = stamp::thread(other);
  return r && k < r->coverage.size() && r->coverage[k] > stamp::gen(other);
}

void reportGlobalRace(Worker &w, const Thread &t, uintptr_t a, uint32_t site,
                      bool writing, uint64_t other, bool otherWrote,
                      uint32_t known) {
  LaunchSync &sync = *activeSync;
  if (sync.raceReported.exchange(true))
    return;
  const LaunchConfig &c = *w.config;
  const uint64_t d = stamp::dispatch(other);
  const uint64_t linear = (*sync.order)(d);
  const unsigned block[3] = {
      unsigned(linear % c.grid[0]), unsigned(linear / c.grid[0] % c.grid[1]),
      unsigned(linear / (uint64_t(c.grid[0]) * c.grid[1]))};
  const unsigned k = stamp::thread(other);
  const unsigned tid[3] = {k % c.block[0], k / c.block[0] % c.block[1],
                           k / (c.block[0] * c.block[1])};
  std::string location;
  if (const DeviceRange *r = DeviceMemory::get().find(a))
    location = "device allocation #" + std::to_string(r->id) + " (" +
               std::to_string(r->end - r->begin) + " bytes)+" +
               std::to_string(a - r->begin);
  else
    location = "device address " + std::to_string(a);
  const std::string otherName =
      "thread " + tuple(tid) + " of block " + tuple(block);
  std::string why =
      known == 0
          ? "nothing orders the two blocks (no release store or atomic of "
            "block " +
                tuple(block) +
                " reached this thread through acquire loads or atomics, "
                "directly or through other blocks)"
          : "the release of block " + tuple(block) +
                " that this thread acquired does not publish that access: "
                "it came after the release, or " +
                otherName +
                " made it after the last block barrier before the release "
                "(a release by another thread publishes only what a barrier "
                "ordered before it; a relaxed write, only what precedes its "
                "thread's last fence)";
  reportError(where(w) + ": global-memory race between blocks on " + location +
              ": " + threadName(t) + (writing ? " writes it" : " reads it") +
              " (" + siteText(*w.kernel, site) + ") and " + otherName +
              (otherWrote ? " wrote it" : " read it") +
              " earlier in this launch; " + why);
}

/// The race check of an access by thread `t` to device memory [a, a +
/// bytes): against the last plain write and read of every word by other
/// blocks in this launch; a plain access (`record`) is stamped there.
void checkGlobal(Worker &w, Thread &t, uintptr_t a, uint64_t bytes,
                 bool writing, bool record, uint32_t site) {
  const GlobalShadow &shadow = GlobalShadow::get();
  const uint32_t tag = activeSync->tag;
  const uint64_t mine =
      w.stampBase | uint64_t(t.index) << 22 | std::min(t.gen, stamp::kMaxGen);
  const uint32_t self = stamp::dispatch(mine);
  const uint64_t offset = DeviceMemory::get().offsetOf(a);
  w.plainGlobal += record;
  const uint64_t end = offset + bytes;
  for (uint64_t word = offset & ~uint64_t(3); word < end; word += 4) {
    // The bytes of this word the access touches.
    uint32_t mask = 0xf;
    if (word < offset || word + 4 > end)
      mask = (0xfu << (offset > word ? offset - word : 0)) &
             (0xfu >> (word + 4 > end ? word + 4 - end : 0));
    std::atomic<uint64_t> *s = shadow.word(word);
    uint32_t known;
    const uint64_t writer = s[0].load(std::memory_order_relaxed);
    if (stamp::tag(writer) == tag && stamp::dispatch(writer) != self &&
        (stamp::bytes(writer) & mask) && !orderedBefore(w, t, writer, known))
      reportGlobalRace(w, t, a - offset + word, site, writing, writer, true,
                       known);
    const uint64_t reader = s[1].load(std::memory_order_relaxed);
    const uint64_t stamped = stamp::withBytes(mine, mask);
    if (writing) {
      if (stamp::tag(reader) == tag && stamp::dispatch(reader) != self &&
          (stamp::bytes(reader) & mask) && !orderedBefore(w, t, reader, known))
        reportGlobalRace(w, t, a - offset + word, site, true, reader, false,
                         known);
      if (record)
        s[0].store(stamped, std::memory_order_relaxed);
    } else if (record && reader != stamped) {
      s[1].store(stamped, std::memory_order_relaxed);
    }
  }
}

/// The release fence of thread `t` (a fence, or the release half of a
/// release operation): its accesses so far, and other threads' accesses
/// before the block's last barrier, precede it.
void noteFence(Worker &w, Thread &t) {
  t.gen = std::min(t.gen + 1, stamp::kMaxGen);
  t.fencedGen = t.gen;
  t.fenceCoverage = w.barrierCoverage;
}

/// A release (store or atomic read-modify-write; `releasing` false: a
/// relaxed or volatile store or a relaxed atomic, which publishes only what
/// precedes its thread's last fence: PTX's release pattern) of thread `t`
/// to the word `a`: what the block did that is ordered before it, and what
/// it knows, become visible to whoever acquires the word. `acquiring`: an
/// atomic with acquire semantics, which learns what the word published
/// before it.
void publish(Worker &w, Thread &t, uintptr_t a, bool rmw, bool releasing,
             bool acquiring) {
  if (releasing)
    noteFence(w, t);
  // Per thread, the generation below which the release covers its
  // accesses: t's before its last fence (a release is one), another
  // thread's before a barrier that precedes that fence.
  const ReleaseRecord *last = w.lastRelease;
  const std::vector<uint32_t> *others = t.fenceCoverage.get();
  std::vector<uint32_t> coverage(w.threadCount);
  bool changed = !last;
  for (unsigned k = 0; k < w.threadCount; ++k) {
    uint32_t c = k == t.index ? t.fencedGen : others ? (*others)[k] : 0;
    if (last)
      c = std::max(c, last->coverage[k]);
    changed |= last && c != last->coverage[k];
    coverage[k] = c;
  }
  auto knowledge = std::make_shared<Knowledge>(w.known);
  for (const KnowledgeRef &k : t.acquired)
    knowledge->join(*k);
  // A block that has not touched device memory yet publishes only what it
  // knows (a ticket taken at the start costs no record).
  if (changed && w.plainGlobal) {
    auto record = std::make_unique<ReleaseRecord>();
    record->index = last ? last->index + 1 : 1;
    record->previous = last;
    record->coverage = std::move(coverage);
    w.lastRelease = record.get();
    activeSync->releases[w.dispatch].store(record.get(),
                                           std::memory_order_release);
    w.ownedReleases.push_back(std::move(record));
  }
  if (w.lastRelease)
    knowledge->set(uint32_t(w.dispatch), w.lastRelease->index);
  LaunchSync &sync = *activeSync;
  KnowledgeRef before;
  {
    std::lock_guard<std::mutex> lock(sync.mutex);
    KnowledgeRef &published = sync.words[a].published;
    before = published;
    // An atomic continues the word's release sequence: whoever reads a
    // later value still synchronises with the earlier releases.
    if (rmw && before)
      knowledge->join(*before);
    published = std::move(knowledge);
  }
  if (acquiring)
    addKnowledge(t, std::move(before));
}

/// The cross-block race check and bookkeeping of an access by the current
/// thread to device memory (after its bounds check).
void raceAccess(Worker &w, Thread &t, uintptr_t a, uint64_t bytes,
                uint32_t flags, uint32_t site) {
  resolveAcquire(t);
  const bool strong =
      flags & (AccessAtomic | AccessAcquire | AccessRelease | AccessRelaxed);
  const bool writing = flags & (AccessWrite | AccessReadWrite | AccessAtomic);
  checkGlobal(w, t, a, bytes, writing, !strong, site);
  if (!strong)
    return;
  if (flags & AccessAtomic) {
    // An atomic read-modify-write has the semantics of its PTX instruction
    // (EmulatorABI.h, AccessAtomic): `atom` alone is relaxed, so it
    // publishes only what its thread fenced, and acquires only with a
    // later fence of its thread, like a relaxed load.
    publish(w, t, a, /*rmw=*/true, flags & AccessRelease,
            flags & AccessAcquire);
    if (!(flags & AccessAcquire))
      t.relaxedLoads[t.relaxedCount++ % Thread::kRelaxedLoads] = a;
    return;
  }
  if (flags & AccessRelease)
    publish(w, t, a, false, true, false);
  else if ((flags & AccessRelaxed) && writing)
    publish(w, t, a, false, false, false);
  if ((flags & AccessAcquire) && !(flags & AccessRelaxed))
    t.acquirePending = a;
  else if ((flags & AccessRelaxed) && !writing)
    t.relaxedLoads[t.relaxedCount++ % Thread::kRelaxedLoads] = a;
}

/// membar.gl / membar.sys / fence.sc.cluster / an LLVM fence beyond the
/// block: the thread's earlier accesses are fenced (a later barrier and a
/// release by any thread of the block publish them), and relaxed loads
/// before it acquire.
void importFence(uint32_t) {
  Worker &w = worker();
  if (!w.raceOn)
    return;
  Thread &t = *w.current;
  resolveAcquire(t);
  for (uint32_t i = 0;
       i < std::min<uint32_t>(t.relaxedCount, Thread::kRelaxedLoads); ++i)
    acquireWord(t, t.relaxedLoads[i]);
  t.relaxedCount = 0;
  noteFence(w, t);
}

/// A strong load of `bytes` at `a` by the current thread, about to run:
/// returns when it may (Waits.h), or ends the block.
void poll(Worker &w, Thread &t, uintptr_t a, uint64_t bytes, const char *host,
          uint32_t site) {
  uint64_t writer = 0;
  const PollOutcome outcome = activeSync->waits.poll(
      w.index, t.poll, a, host, uint32_t(bytes), w.dispatch, writer);
  if (outcome == PollOutcome::Read || outcome == PollOutcome::Woken)
    return;
  if (outcome == PollOutcome::Failed)
    abortBlock(w, "");
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, a);
  if (outcome == PollOutcome::LateWriter)
    abortBlock(w, where(w) + ": " + threadName(t) + " waits for word " + text +
                      " (" + siteText(*w.kernel, site) +
                      "), which a block that started after the wait began "
                      "wrote: a GPU need not start that block while this one "
                      "waits (forward progress; order waits with tickets)");
  abortBlock(w, where(w) + ": " + threadName(t) + " waits for word " + text +
                    " (" + siteText(*w.kernel, site) +
                    ") that no running block will write: a deadlock (every "
                    "other block is done or waiting; blocks not yet started "
                    "cannot be relied on)");
}

void *importGlobal(void *address, uint64_t bytes, uint32_t flags,
                   uint32_t site) {
  Worker &w = worker();
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (DeviceMemory::get().inWindow(a)) {
    if (a & (accessAlignment(flags) - 1)) {
      char text[32];
      std::snprintf(text, sizeof(text), "0x%" PRIxPTR, a);
      misaligned(w, bytes, flags, site,
                 "device address " + std::to_string(a) + " (" + text + ")");
    }
    char *host = deviceAccess(w, a, bytes, flags, site);
    Thread &t = *w.current;
    flushSyncWrites(w);
    if (w.raceOn)
      raceAccess(w, t, a, bytes, flags, site);
    // Strong loads (acquire, volatile, relaxed atomic) may be a spin; any
    // other device access between two of them makes it no pure spin.
    if ((flags & (AccessAcquire | AccessRelaxed)) &&
        !(flags & (AccessWrite | AccessAtomic)) && bytes <= kMaxPollBytes)
      poll(w, t, a, bytes, host, site);
    else
      t.poll.address = 0;
    if ((flags & AccessWrite) &&
        (flags & (AccessRelease | AccessAtomic | AccessRelaxed)))
      noteSyncWrite(w, a);
    if (w.costLevel != CostLevel::Off)
      recordAccess(w, *w.current, a, bytes, accessKind(flags, false), site);
    return host;
  }
  uintptr_t shared = reinterpret_cast<uintptr_t>(w.shared);
  if (a >= shared && a < shared + w.sharedBytes)
    return importShared(address, bytes, flags, site);
  uintptr_t stackLow = reinterpret_cast<uintptr_t>(w.current->stackLow);
  if (a >= stackLow && a < stackLow + kStackBytes)
    return address; // the thread's local memory
  notDeviceMemory(w, a, (flags & AccessWrite) ? " writes" : " reads", site);
}

void importLdmatrix(uint32_t site, uint32_t mode, void *row, uint32_t *result) {
  Worker &w = worker();
  const unsigned matrices = mode & kLdmatrixMatricesMask;
  if (matrices != 1 && matrices != 2 && matrices != 4)
    abortBlock(w, where(w) + ": ldmatrix of " + std::to_string(matrices) +
                      " matrices (" + siteText(*w.kernel, site) + ")");
  WarpOp op{};
  op.kind = WarpOpKind::Ldmatrix;
  op.mode = mode;
  op.mask = ~0u;
  op.site = site;
  op.address = reinterpret_cast<uintptr_t>(row);
  waitInWarp(w, op);
  std::memcpy(result, w.current->op.registers, matrices * sizeof(uint32_t));
}

/// cp.async.{ca,cg}.shared.global (PTX ISA, "cp.async"): `bytes` (the
/// cp-size: 4, 8 or 16) from global `src` to shared `dst`, of which the last
/// bytes - srcBytes are zeros (src-size). Both checked now; the copy itself
/// happens at the cp.async.wait_group that covers it, and until then the
/// destination words count as being written by this thread: any access to
/// them (a read before the wait, by any thread) is a race.
void importCpAsync(uint32_t site, void *dst, void *src, uint32_t bytes,
                   uint32_t srcBytes) {
  Worker &w = worker();
  Thread &t = *w.current;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    abortBlock(w, where(w) + ": cp.async of " + std::to_string(bytes) +
                      " bytes (" + siteText(*w.kernel, site) + ")");
  if (srcBytes > bytes)
    abortBlock(w, where(w) + ": " + threadName(t) +
                      " executes cp.async with "
                      "src-size " +
                      std::to_string(srcBytes) + ", larger than its cp-size " +
                      std::to_string(bytes) + " (" + siteText(*w.kernel, site) +
                      ")");
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
  const uintptr_t base = reinterpret_cast<uintptr_t>(w.shared);
  if (d < base)
    abortBlock(w, where(w) + ": " + threadName(t) +
                      " executes cp.async to an address below the block's "
                      "shared memory (" +
                      siteText(*w.kernel, site) + ")");
  const uint64_t offset = d - base;
  if (offset % bytes)
    abortBlock(w, where(w) + ": " + threadName(t) + " executes cp.async of " +
                      std::to_string(bytes) + " bytes to shared offset " +
                      std::to_string(offset) + ", not aligned to " +
                      std::to_string(bytes) + " bytes (" +
                      siteText(*w.kernel, site) + ")");
  const uintptr_t a = reinterpret_cast<uintptr_t>(src);
  const char *from = nullptr;
  if (srcBytes) {
    if (!DeviceMemory::get().inWindow(a))
      notDeviceMemory(w, a, " executes cp.async from", site);
    if (a % bytes)
      abortBlock(w, where(w) + ": " + threadName(t) + " executes cp.async of " +
                        std::to_string(bytes) + " bytes from device address " +
                        std::to_string(a) + ", not aligned to " +
                        std::to_string(bytes) + " bytes (" +
                        siteText(*w.kernel, site) + ")");
    from = deviceAccess(w, a, srcBytes, AccessRead, site);
    if (w.raceOn)
      raceAccess(w, t, a, srcBytes, AccessRead, site);
  }
  checkShared(w, t, offset, bytes, AccessWrite, site);
  for (uint64_t word = offset / 4; word * 4 < offset + bytes; ++word) {
    w.shadow[word].asyncPending = 1;
    w.shadow[word].asyncWriter = uint16_t(t.index);
  }
  t.pending.push_back({offset, from, bytes, srcBytes, t.commits, site});
  ++w.cost.cpAsync;
  w.cost.cpAsyncZeroFill += bytes - srcBytes;
  if (w.costLevel != CostLevel::Off) {
    recordAccess(w, t, offset, bytes, AccessKind::SharedCpAsync, site);
    recordAccess(w, t, a, srcBytes, AccessKind::GlobalCpAsync, site);
  }
}

void importCpAsyncCommit(uint32_t) { ++worker().current->commits; }

/// cp.async.wait_group N: the thread's cp.async operations of every group
/// it committed except the N most recent complete now (uncommitted ones do
/// not). Each copy is then a write of its thread at this point.
void importCpAsyncWait(uint32_t, uint32_t pendingGroups) {
  Worker &w = worker();
  Thread &t = *w.current;
  if (t.pending.empty())
    return;
  const unsigned warp = t.index / kWarpSize;
  size_t kept = 0;
  for (const PendingCopy &c : t.pending) {
    if (uint64_t(c.group) + pendingGroups >= t.commits) {
      t.pending[kept++] = c;
      continue;
    }
    char *to = w.shared + c.offset;
    if (c.srcBytes)
      std::memcpy(to, c.from, c.srcBytes);
    std::memset(to + c.srcBytes, 0, c.bytes - c.srcBytes);
    for (uint64_t word = c.offset / 4; word * 4 < c.offset + c.bytes; ++word) {
      Shadow &s = w.shadow[word];
      s.asyncPending = 0;
      s.writeEpoch = w.epoch;
      s.writer = uint16_t(t.index);
      s.writeSite = c.site;
      s.writeWarpEpoch = w.warpEpochs[warp];
      s.atomicWrite = 0;
    }
  }
  t.pending.resize(kept);
}

void *importSharedBase() { return worker().shared; }

float importMathF32(uint32_t op, float x) { return mathF32(MathOp(op), x); }
double importMathF64(uint32_t op, double x) { return mathF64(MathOp(op), x); }

void importTrap(uint32_t site) {
  Worker &w = worker();
  abortBlock(w, where(w) + ": " + threadName(*w.current) + " executed trap (" +
                    siteText(*w.kernel, site) + ")");
}

/// The thread entered code with no way out of its function (KernelToHost.cpp,
/// markEndlessLoops): it would spin forever on a GPU.
void importHang(uint32_t site) {
  Worker &w = worker();
  abortBlock(w, where(w) + ": " + threadName(*w.current) +
                    " entered a loop that never exits, a hang on a GPU (" +
                    siteText(*w.kernel, site) +
                    "; a wait on a plain load becomes one when the compiler "
                    "hoists the load out of the loop: poll with ld.acquire "
                    "or ld.volatile)");
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points of the rest of the runtime
//===----------------------------------------------------------------------===//

namespace ssd {
namespace emulator {

void *importAddress(const std::string &name) {
  static const std::pair<const char *, void *> table[] = {
      {"sreg", reinterpret_cast<void *>(&importSreg)},
      {"barrier", reinterpret_cast<void *>(&importBarrier)},
      {"syncwarp", reinterpret_cast<void *>(&importSyncwarp)},
      {"shfl", reinterpret_cast<void *>(&importShfl)},
      {"vote", reinterpret_cast<void *>(&importVote)},
      {"mma", reinterpret_cast<void *>(&importMma)},
      {"global", reinterpret_cast<void *>(&importGlobal)},
      {"shared", reinterpret_cast<void *>(&importShared)},
      {"shared_base", reinterpret_cast<void *>(&importSharedBase)},
      {"math_f32", reinterpret_cast<void *>(&importMathF32)},
      {"math_f64", reinterpret_cast<void *>(&importMathF64)},
      {"trap", reinterpret_cast<void *>(&importTrap)},
      {"ldmatrix", reinterpret_cast<void *>(&importLdmatrix)},
      {"cp_async", reinterpret_cast<void *>(&importCpAsync)},
      {"cp_async_commit", reinterpret_cast<void *>(&importCpAsyncCommit)},
      {"cp_async_wait", reinterpret_cast<void *>(&importCpAsyncWait)},
      {"fence", reinterpret_cast<void *>(&importFence)},
      {"hang", reinterpret_cast<void *>(&importHang)},
  };
  for (const auto &[n, address] : table)
    if (name == n)
      return address;
  return nullptr;
}

bool inFiberStackGuard(uintptr_t address) {
  std::lock_guard<std::mutex> lock(stackRegistryMutex);
  for (const auto &[low, high] : stackRegions)
    if (address >= low && address < high)
      return true;
  return false;
}

bool describeRunningThread(char *buffer, size_t size) {
  const Worker *w = activeWorker;
  if (!w || !w->kernel)
    return false;
  int n = std::snprintf(buffer, size, "kernel %s block (%u,%u,%u)",
                        w->kernel->name.c_str(), w->block[0], w->block[1],
                        w->block[2]);
  if (const Thread *t = w->current; t && n > 0 && size_t(n) < size)
    std::snprintf(buffer + n, size - n, " thread (%u,%u,%u)", t->tid[0],
                  t->tid[1], t->tid[2]);
  return true;
}

void runLaunch(const Kernel &kernel, const LaunchConfig &config,
               void **params) {
  const uint64_t blocks =
      uint64_t(config.grid[0]) * config.grid[1] * config.grid[2];
  const unsigned threadCount =
      config.block[0] * config.block[1] * config.block[2];
  const uint64_t sharedBytes = kernel.dynamicOffset + config.dynamicShared;
  const uint64_t launchNumber = ++counters().launches;
  if (!settings().badBlockOrder.empty()) {
    reportError("SSD_GPU_EMULATOR_BLOCK_ORDER=" + settings().badBlockOrder +
                " is none of forward, reverse, random:SEED");
    return;
  }
  // Each launch of a program its own order, the same in every run.
  const BlockPermutation order(settings().blockOrder, blocks,
                               settings().blockOrderSeed ^
                                   launchNumber * 0xd1b54a32d192ed03ull);
  unsigned count = unsigned(std::min<uint64_t>(settings().threads, blocks));
  auto &all = workers();
  while (all.size() < count)
    all.push_back(std::make_unique<Worker>());
  if (settings().costs == CostLevel::Full)
    l2Window().beginLaunch();
  LaunchSync sync(count);
  activeSync = &sync;
  // Races between blocks (GlobalRaces.h); a grid beyond the stamps' range
  // of dispatch numbers is checked for its first blocks only.
  if (settings().raceCheck && blocks > 1 && GlobalShadow::get().beginLaunch()) {
    sync.raceCheck = true;
    sync.tag = GlobalShadow::get().tag();
    sync.blocks = blocks;
    const uint64_t tracked = std::min(blocks, stamp::kMaxDispatch + 1);
    sync.releases.reset(new std::atomic<const ReleaseRecord *>[tracked]);
    for (uint64_t i = 0; i < tracked; ++i)
      sync.releases[i].store(nullptr, std::memory_order_relaxed);
  }
  std::atomic<uint64_t> &next = sync.waits.dispatched;
  std::atomic<bool> stop{false};
  sync.order = &order;
  Pool::installAlternateSignalStack();
  Pool::get().run(count, [&](unsigned index) {
    Worker &w = *all[index];
    w.index = index;
    prepareWorker(w);
    if (!w.stacks) {
      stop = true;
      sync.waits.fail();
      sync.waits.workerDone(index);
      return;
    }
    activeWorker = &w;
    w.kernel = &kernel;
    w.config = &config;
    w.params = params;
    w.threadCount = threadCount;
    w.sharedBytes = sharedBytes;
    size_t words = (sharedBytes + 7) / 8 + 1;
    if (w.sharedStorage.size() < words)
      w.sharedStorage.resize(words);
    if (w.shadow.size() < sharedBytes / 4 + 1)
      w.shadow.resize(sharedBytes / 4 + 1);
    w.shared = reinterpret_cast<char *>(w.sharedStorage.data());
    w.aborted = false;
    w.costLevel = settings().costs;
    w.cost = CostCounters();
    w.readSectors.clear();
    w.writeSectors.clear();
    w.l2Sectors.clear();
    while (!stop) {
      uint64_t b = next++;
      if (b >= blocks)
        break;
      w.dispatch = b;
      runBlock(w, order(b));
      flushSyncWrites(w);
      if (w.aborted) {
        stop = true;
        sync.waits.fail();
      }
    }
    sync.waits.workerDone(index);
    Counters &total = counters();
    total.globalAccesses += std::exchange(w.globalAccesses, 0);
    total.sharedAccesses += std::exchange(w.sharedAccesses, 0);
    total.warpCollectives += std::exchange(w.collectives, 0);
    total.mmas += std::exchange(w.mmas, 0);
    total.barriers += std::exchange(w.barriersOpened, 0);
    activeWorker = nullptr;
  });
  // The launch's costs: the workers' counters and sector sets together.
  CostCounters launch;
  launch.launches = 1;
  for (unsigned i = 0; i < count; ++i) {
    Worker &w = *all[i];
    launch.add(w.cost);
    if (i > 0) {
      all[0]->readSectors.merge(w.readSectors);
      all[0]->writeSectors.merge(w.writeSectors);
      all[0]->l2Sectors.merge(w.l2Sectors);
    }
  }
  if (count) {
    launch.dramReadSectors = all[0]->readSectors.count();
    launch.dramWriteSectors = all[0]->writeSectors.count();
    launch.l2ReadSectors = all[0]->l2Sectors.count();
  }
  for (unsigned i = 0; i < count; ++i) {
    all[i]->ownedReleases.clear();
    for (Thread &t : all[i]->threads)
      t.acquired.clear();
  }
  activeSync = nullptr;
  recordLaunchCosts(kernel, config, launch);
}

} // namespace emulator
} // namespace ssd
