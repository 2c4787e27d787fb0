//===- Executor.h - the executor's shared state -----------------*- C++ -*-===//
//
// The state of the emulator's executor, shared by the files that run a
// launch (one job each):
//
//   Scheduler.cpp       fibers, warp collectives, barriers, the worker pool
//   AccessGrouping.cpp  the cost model's side: lanes' accesses grouped into
//                       warp-level instructions and counted, the L2 window
//   SharedRaces.cpp     shared-memory race and initialisation checks
//   GlobalSync.cpp      races between blocks: acquire, release, fences, waits
//   Wgmma.cpp           wgmma.mma_async, its fences, commits and waits
//   Imports.cpp         the functions emulated kernels import (EmulatorABI.h)
//   Launch.cpp          runLaunch: a launch's blocks over the workers
//
//===----------------------------------------------------------------------===//
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
// wgmma.mma_async is a warp collective (each warp computes its 16 rows of
// the warpgroup's 64) that reads its operands when issued; until a
// wgmma.wait_group retires its group, the words it read are marked in
// flight and a write to them is a race (Wgmma.cpp).
//
// Device memory between blocks (GlobalRaces.h): plain accesses are stamped
// per 4-byte word; an access that conflicts with another block's in the
// same launch is a race unless a release of that block, acquired by this
// thread (or by its block before a barrier), covers it.
//
// Cost model: each lane appends its memory accesses to a buffer; when its
// warp synchronises (a collective of all its live lanes, a barrier, the end
// of the block, or a full buffer in every lane) the lanes' accesses are
// grouped into warp-level instructions and counted (CostModel.h).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_EXECUTOR_H
#define SSD_LIB_GPURUNTIME_EMULATOR_EXECUTOR_H

#include "Collectives.h"
#include "CostModel.h"
#include "Emulator.h"
#include "GlobalRaces.h"
#include "Waits.h"
#include "ssd/GPURuntime/EmulatorReports.h"

#include <boost/context/detail/fcontext.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ssd {
namespace emulator {

namespace fiber = boost::context::detail;

constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned kMaxThreadsPerBlock = 1024;
/// Accesses a lane buffers for the cost model before it lets the other
/// lanes of its warp catch up (so that they can be grouped and dropped).
constexpr size_t kRecordLimit = 1024;

enum class ThreadState : uint8_t { Runnable, AtBarrier, AtWarp, Exited };
enum class WarpOpKind : uint8_t {
  Shuffle,
  Vote,
  Mma,
  SyncWarp,
  Ldmatrix,
  Wgmma,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
};

struct WarpOp {
  WarpOpKind kind;
  uint32_t mode, mask, site;
  uint32_t value, b, c; ///< shfl operands; vote: value is the predicate
  MmaFragments *fragments;
  uint32_t result;
  bool inRange;
  uintptr_t address;     ///< ldmatrix: this lane's row address
  uint32_t registers[4]; ///< ldmatrix: this lane's results
  /// wgmma: the descriptors and the lane's accumulators (N / 2 each).
  uint64_t descA = 0, descB = 0;
  const float *accumulators = nullptr;
  float *results = nullptr;
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
  /// The barrier interval (Worker::epoch) of each fence.proxy.async the
  /// thread executed in this block, in order (Wgmma.cpp).
  std::vector<uint32_t> proxyFenceEpochs;
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
inline LaunchSync *activeSync = nullptr;

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
  /// In-flight wgmma.mma_async that read this word (Wgmma.cpp): no thread
  /// may write it until they are retired.
  uint8_t wgmmaReaders;
  /// The writer's fence.proxy.async count at the write (Wgmma.cpp).
  uint16_t writeProxyFences;
};
static_assert(sizeof(Shadow) == 48, "one shadow word per 4 bytes");

/// wgmma.mma_async state of one warp: the shadow words its in-flight
/// instructions read, per group (`open`: since its last commit_group), and
/// what it issued (the warpgroup's four warps must agree).
struct WgmmaWarp {
  std::vector<uint32_t> open;
  std::deque<std::vector<uint32_t>> committed;
  uint64_t issued = 0;
  uint32_t lastSite = UINT32_MAX;
  bool fenced = false; ///< a wgmma.fence since its last wait_group
  /// wgmma.mma_async issued (numbered from 1), where each committed group
  /// ends, and how many are retired (a prefix: groups retire in order).
  uint64_t multiplies = 0, retired = 0;
  std::deque<uint64_t> committedEnds;
  /// Per call site, the number of its latest wgmma.mma_async.
  std::unordered_map<uint32_t, uint64_t> latestOfSite;
};

/// A wgmma instruction as a warpgroup's first warp to reach it issued it.
struct WgmmaIssue {
  uint64_t descA, descB;
  uint32_t mode, site;
  unsigned warp;
  uint8_t kind; ///< WarpOpKind
};

/// The instructions of one warpgroup that not all its warps issued yet.
struct WgmmaLog {
  uint64_t first = 0; ///< the number of records[0]
  std::deque<WgmmaIssue> records;
};

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
  /// Instruction issue: per warp, per counted basic block of the kernel,
  /// per lane, the times the lane entered the block (issue_counts).
  std::vector<uint32_t> issueCounts;
  /// With an issue profile: per counted basic block, the warp entries of
  /// this worker's blocks in the running launch.
  std::vector<uint64_t> issueProfile;
  /// With an access profile (profileAccesses, set per launch from
  /// settings(), as costLevel is): per call site and kind, this worker's
  /// memory instructions in the running launch.
  bool profileAccesses = false;
  std::vector<SiteTraffic> accessProfile;
  DivergentScratch divergent;
  /// wgmma.mma_async (Wgmma.cpp): per warp and per warpgroup, sized when a
  /// block first uses it.
  std::vector<WgmmaWarp> wgmmaWarps;
  std::vector<WgmmaLog> wgmmaLogs;
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
inline thread_local Worker *activeWorker
    __attribute__((tls_model("initial-exec"))) = nullptr;

inline Worker &worker() {
  if (!activeWorker)
    abort(); // a runtime function called outside a kernel
  return *activeWorker;
}

//===----------------------------------------------------------------------===//
// Messages (Scheduler.cpp)
//===----------------------------------------------------------------------===//

std::string siteText(const Kernel &kernel, uint32_t site);
std::string tuple(const unsigned v[3]);
/// "kernel K block (x,y,z)".
std::string where(const Worker &w);
std::string threadName(const Thread &t);
/// Names the shared buffer and offset of a shared-memory offset.
std::string sharedLocation(const Worker &w, uint64_t offset);
/// The barrier interval the block is in.
std::string intervalText(const Worker &w);

//===----------------------------------------------------------------------===//
// Fibers, collectives, blocks and workers (Scheduler.cpp)
//===----------------------------------------------------------------------===//

void switchTo(fiber::fcontext_t target, fiber::fcontext_t *save);
void suspend(Worker &w);
void markExited(Worker &w, Thread &t);
[[noreturn]] void abortBlock(Worker &w, const std::string &message);
/// Maps the worker's fiber stacks and access buffers once (errors
/// reported; `w.stacks` stays null).
void prepareWorker(Worker &w);
/// .aligned collectives: every lane of the warp takes part.
bool wholeWarp(WarpOpKind kind);
uint32_t members(const Worker &w, unsigned warp, const WarpOp &op);
bool resolveWarp(Worker &w, unsigned warp);
/// Runs the block `linearBlock` of the launch on `w` to its end or error.
void runBlock(Worker &w, uint64_t linearBlock);
/// Runs `job(0)` .. `job(count - 1)` on the worker pool's OS threads, the
/// calling thread being worker 0, and returns when all are done.
void runOnWorkers(unsigned count, const std::function<void(unsigned)> &job);
/// An alternate signal stack for this OS thread (the fault handler runs on
/// it when a fiber's stack overflows).
void installAlternateSignalStack();

//===----------------------------------------------------------------------===//
// The cost model's grouping (AccessGrouping.cpp)
//===----------------------------------------------------------------------===//

void groupWarpAccesses(Worker &w, unsigned warp);
void groupAllAccesses(Worker &w);
void park(Worker &w, Thread &t);
/// Sizes and clears the block's issue counters (issue_counts).
void resetIssueCounts(Worker &w);
/// Adds the finished block's warp-level instructions per IssueClass to the
/// worker's costs.
void countIssue(Worker &w);
/// Starts the L2 window of a launch (SSD_GPU_EMULATOR_COSTS=full).
void beginL2Window();

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

//===----------------------------------------------------------------------===//
// Shared-memory checks (SharedRaces.cpp)
//===----------------------------------------------------------------------===//

void checkShared(Worker &w, Thread &who, uint64_t offset, uint64_t bytes,
                 uint32_t flags, uint32_t site);
void judgeUnwrittenReads(Worker &w);

//===----------------------------------------------------------------------===//
// wgmma (Wgmma.cpp)
//===----------------------------------------------------------------------===//

/// The warp collectives of wgmma.mma_async, fence, commit_group and
/// wait_group, computed when the warp's 32 lanes arrived. False after an
/// error (reported, the block aborted).
bool computeWgmma(Worker &w, unsigned warp, Thread *lanes, const WarpOp &op);
/// The state of a new block, and the checks at its end: every warp of a
/// warpgroup issued the same instructions and none is still in flight.
void resetWgmma(Worker &w);
bool finishWgmma(Worker &w);
/// Whether thread t's warp retired the latest wgmma.mma_async of call site
/// `producer` (or never issued one), so that its results are defined.
bool wgmmaResultsReady(const Worker &w, const Thread &t, uint32_t producer);

//===----------------------------------------------------------------------===//
// Synchronisation between blocks (GlobalSync.cpp)
//===----------------------------------------------------------------------===//

void resolveAcquire(Thread &t);
void raceAccess(Worker &w, Thread &t, uintptr_t a, uint64_t bytes,
                uint32_t flags, uint32_t site);
void poll(Worker &w, Thread &t, uintptr_t a, uint64_t bytes, const char *host,
          uint32_t site);
void importFence(uint32_t);

//===----------------------------------------------------------------------===//
// Imports (Imports.cpp)
//===----------------------------------------------------------------------===//

/// Notes the strong writes of the worker's threads that have run since
/// (Waits.h).
void flushSyncWrites(Worker &w);

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_EXECUTOR_H
