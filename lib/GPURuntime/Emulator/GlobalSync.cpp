//===- GlobalSync.cpp - races and waits between blocks --------------------===//
//
// Synchronisation between the blocks of a launch in device memory
// (Executor.h has the overview, GlobalRaces.h the rules): what releases
// publish and acquires learn, fences, the race check of device-memory
// accesses, and strong loads that may wait for another block (Waits.h).
// Its own file because it is the memory model of device memory, the one
// part of the executor that spans blocks and workers.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <cinttypes>
#include <cstdio>

namespace ssd {
namespace emulator {

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

} // namespace emulator
} // namespace ssd
