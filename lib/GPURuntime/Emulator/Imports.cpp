//===- Imports.cpp - the functions kernels import -------------------------===//
//
// The runtime functions an emulated kernel calls (EmulatorABI.h): special
// registers, barriers and warp collectives (handed to the scheduler), checked
// shared and device memory accesses, ldmatrix, cp.async, math, trap; and the
// table that binds their import names. Its own file because it is the
// executor's boundary with compiled kernel code: every call from a kernel
// enters here, on the kernel thread's fiber stack.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ssd {
namespace emulator {

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
  waitInWarp(w, WarpOp{WarpOpKind::SyncWarp,
                       0,
                       mask,
                       site,
                       0,
                       0,
                       0,
                       nullptr,
                       0,
                       false,
                       0,
                       {}});
}

uint32_t importShfl(uint32_t site, uint32_t mode, uint32_t mask, uint32_t value,
                    uint32_t laneOrDelta, uint32_t clamp, uint8_t *inRange) {
  Worker &w = worker();
  waitInWarp(w, WarpOp{WarpOpKind::Shuffle,
                       mode,
                       mask,
                       site,
                       value,
                       laneOrDelta,
                       clamp,
                       nullptr,
                       0,
                       false,
                       0,
                       {}});
  const WarpOp &done = w.current->op;
  *inRange = done.inRange;
  return done.result;
}

uint32_t importVote(uint32_t site, uint32_t mode, uint32_t mask,
                    uint32_t predicate) {
  Worker &w = worker();
  waitInWarp(w, WarpOp{WarpOpKind::Vote,
                       mode,
                       mask,
                       site,
                       predicate != 0,
                       0,
                       0,
                       nullptr,
                       0,
                       false,
                       0,
                       {}});
  return w.current->op.result;
}

/// A collective of the whole warp (.aligned: every lane, mask ~0).
WarpOp alignedOp(WarpOpKind kind, uint32_t site, uint32_t mode) {
  WarpOp op{};
  op.kind = kind;
  op.mode = mode;
  op.mask = ~0u;
  op.site = site;
  return op;
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
  waitInWarp(w, WarpOp{WarpOpKind::Mma,
                       kind,
                       ~0u,
                       site,
                       0,
                       0,
                       0,
                       &fragments,
                       0,
                       false,
                       0,
                       {}});
  std::memcpy(d, fragments.d, sizeof(fragments.d));
}

void importWgmma(uint32_t site, uint32_t mode, uint64_t descA, uint64_t descB,
                 const float *c, float *d) {
  Worker &w = worker();
  const uint32_t n = mode & kWgmmaNMask;
  if (n < 8 || n > 256 || n % 8)
    abortBlock(w, where(w) + ": wgmma.mma_async with N = " + std::to_string(n) +
                      " (" + siteText(*w.kernel, site) + ")");
  WarpOp op = alignedOp(WarpOpKind::Wgmma, site, mode);
  op.descA = descA;
  op.descB = descB;
  op.accumulators = c;
  op.results = d;
  waitInWarp(w, op);
}

void importWgmmaCheck(uint32_t site, uint32_t producer) {
  Worker &w = worker();
  if (!wgmmaResultsReady(w, *w.current, producer))
    abortBlock(w, where(w) + ": " + threadName(*w.current) +
                      " uses the results of " + siteText(*w.kernel, producer) +
                      " (" + siteText(*w.kernel, site) +
                      ") before a wgmma.wait_group of its warp retired the "
                      "instruction: they are undefined until then");
}

void importProxyFence(uint32_t) {
  Worker &w = worker();
  w.current->proxyFenceEpochs.push_back(w.epoch);
}

/// wgmma.fence, commit_group and wait_group: warp collectives too, since
/// their .sync.aligned forms need every lane (and every warp of the
/// warpgroup, which Wgmma.cpp checks).
void waitInWgmma(WarpOpKind kind, uint32_t site, uint32_t mode) {
  waitInWarp(worker(), alignedOp(kind, site, mode));
}
void importWgmmaFence(uint32_t site) {
  waitInWgmma(WarpOpKind::WgmmaFence, site, 0);
}
void importWgmmaCommit(uint32_t site) {
  waitInWgmma(WarpOpKind::WgmmaCommit, site, 0);
}
void importWgmmaWait(uint32_t site, uint32_t pendingGroups) {
  waitInWgmma(WarpOpKind::WgmmaWait, site, pendingGroups);
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
  WarpOp op = alignedOp(WarpOpKind::Ldmatrix, site, mode);
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
      s.writeProxyFences = uint16_t(t.proxyFenceEpochs.size());
      s.writer = uint16_t(t.index);
      s.writeSite = c.site;
      s.writeWarpEpoch = w.warpEpochs[warp];
      s.atomicWrite = 0;
    }
  }
  t.pending.resize(kept);
}

void *importSharedBase() { return worker().shared; }

uint32_t *importIssueCounts() {
  Worker &w = worker();
  const unsigned t = w.current->index;
  return w.issueCounts.data() +
         (size_t(t / kIssueLanes) * w.kernel->issueBlocks * kIssueLanes +
          t % kIssueLanes);
}

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

//===----------------------------------------------------------------------===//
// The import table (importAddress, Emulator.h: for the object loader)
//===----------------------------------------------------------------------===//

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
      {"issue_counts", reinterpret_cast<void *>(&importIssueCounts)},
      {"math_f32", reinterpret_cast<void *>(&importMathF32)},
      {"math_f64", reinterpret_cast<void *>(&importMathF64)},
      {"trap", reinterpret_cast<void *>(&importTrap)},
      {"ldmatrix", reinterpret_cast<void *>(&importLdmatrix)},
      {"wgmma", reinterpret_cast<void *>(&importWgmma)},
      {"wgmma_check", reinterpret_cast<void *>(&importWgmmaCheck)},
      {"proxy_fence", reinterpret_cast<void *>(&importProxyFence)},
      {"wgmma_fence", reinterpret_cast<void *>(&importWgmmaFence)},
      {"wgmma_commit", reinterpret_cast<void *>(&importWgmmaCommit)},
      {"wgmma_wait", reinterpret_cast<void *>(&importWgmmaWait)},
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

} // namespace emulator
} // namespace ssd
