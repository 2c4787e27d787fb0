//===- SharedRaces.cpp - shared-memory race checks ------------------------===//
//
// The checks of every access to a block's shared memory (Executor.h has the
// overview): bounds, races between barriers (a shadow word per 4 bytes),
// accesses to words a cp.async still writes, writes to words an in-flight
// wgmma still reads, and reads of words no thread
// wrote. Its own file because it is the executor's one per-word state
// machine for shared memory, read and changed nowhere else but at
// cp.async.wait_group (Imports.cpp).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

namespace ssd {
namespace emulator {

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

/// A write to a word that an in-flight wgmma.mma_async reads: the
/// instruction reads its operands asynchronously, until the
/// wgmma.wait_group that retires its group.
void reportWgmmaRace(Worker &w, const Thread &self, uint64_t offset,
                     uint32_t site) {
  if (w.raceReported)
    return;
  w.raceReported = true;
  const uint32_t word = uint32_t(offset / 4);
  std::string reader = "a warp";
  uint32_t readerSite = UINT32_MAX;
  for (unsigned warp = 0; warp < w.wgmmaWarps.size(); ++warp) {
    const WgmmaWarp &state = w.wgmmaWarps[warp];
    bool found = std::find(state.open.begin(), state.open.end(), word) !=
                 state.open.end();
    for (const std::vector<uint32_t> &group : state.committed)
      found =
          found || std::find(group.begin(), group.end(), word) != group.end();
    if (found) {
      reader = "warp " + std::to_string(warp);
      readerSite = state.lastSite;
      break;
    }
  }
  reportError(where(w) + ": shared-memory race on " +
              sharedLocation(w, offset) + ": " + threadName(self) +
              " writes it (" + siteText(*w.kernel, site) +
              ") while a wgmma.mma_async of " + reader +
              (readerSite == UINT32_MAX
                   ? std::string()
                   : " (" + siteText(*w.kernel, readerSite) + ")") +
              " that reads it is in flight: no wgmma.wait_group of that "
              "warp has retired it, " +
              intervalText(w));
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
    if (writing && s.wgmmaReaders && settings().raceCheck)
      reportWgmmaRace(w, who, word * 4, site);
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
      s.writeProxyFences = uint16_t(who.proxyFenceEpochs.size());
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

} // namespace emulator
} // namespace ssd
