//===- Scheduler.cpp - fibers, collectives, barriers, workers -------------===//
//
// The scheduler of the executor (Executor.h has the overview): each GPU
// thread of a block is a fiber, a worker resumes them in turn, completes warp
// collectives whose lanes have all arrived, opens barriers, and reports a
// block that can never finish; a pool of OS threads (workers) runs a
// launch's blocks. Its own file because it alone decides which fiber runs
// next and when a block is stuck; the checks and the cost model it calls are
// in files of their own.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

namespace ssd {
namespace emulator {

namespace {

/// The guard pages below fiber stacks, for the fault handler's message.
std::mutex stackRegistryMutex;
std::vector<std::pair<uintptr_t, uintptr_t>> stackRegions;

} // namespace

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
  case WarpOpKind::Wgmma:
    return "wgmma.mma_async";
  case WarpOpKind::WgmmaFence:
    return "wgmma.fence";
  case WarpOpKind::WgmmaCommit:
    return "wgmma.commit_group";
  case WarpOpKind::WgmmaWait:
    return "wgmma.wait_group";
  }
  return "?";
}

/// .aligned collectives: every lane of the warp takes part.
bool wholeWarp(WarpOpKind kind) {
  return kind != WarpOpKind::Shuffle && kind != WarpOpKind::Vote &&
         kind != WarpOpKind::SyncWarp;
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
  case WarpOpKind::Wgmma:
  case WarpOpKind::WgmmaFence:
  case WarpOpKind::WgmmaCommit:
  case WarpOpKind::WgmmaWait:
    if (!computeWgmma(w, warp, lanes, op))
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
    if (!finishWgmma(w))
      return false;
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
  resetWgmma(w);
  resetIssueCounts(w);
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
    t.proxyFenceEpochs.clear();
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

namespace {

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

} // namespace

void runOnWorkers(unsigned count, const std::function<void(unsigned)> &job) {
  Pool::get().run(count, job);
}

void installAlternateSignalStack() { Pool::installAlternateSignalStack(); }

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

} // namespace emulator
} // namespace ssd
