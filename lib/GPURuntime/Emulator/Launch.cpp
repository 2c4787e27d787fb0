//===- Launch.cpp - running a launch --------------------------------------===//
//
// runLaunch, which the mgpu* runtime (Runtime.cpp) calls for each kernel
// launch: sets the launch's block order and synchronisation up, runs its
// blocks on the workers (Scheduler.cpp), and adds the workers' counters and
// costs together. Its own file because it is the executor's one entry
// point, where the settings, the per-launch state and the totals meet.
//
//===----------------------------------------------------------------------===//

#include "CostStore.h"
#include "Executor.h"

namespace ssd {
namespace emulator {

namespace {

std::vector<std::unique_ptr<Worker>> &workers() {
  static std::vector<std::unique_ptr<Worker>> all;
  return all;
}

} // namespace

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
    beginL2Window();
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
  installAlternateSignalStack();
  runOnWorkers(count, [&](unsigned index) {
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
    w.issueProfile.clear();
    w.accessProfile.clear();
    w.profileAccesses = !settings().accessProfile.empty();
    w.readSectors.clear();
    w.writeSectors.clear();
    w.l2Sectors.clear();
    while (!stop) {
      uint64_t b = next++;
      if (b >= blocks)
        break;
      w.dispatch = b;
      runBlock(w, order(b));
      if (!w.aborted && w.costLevel != CostLevel::Off)
        countIssue(w);
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
  if (!settings().issueProfile.empty() && count) {
    std::vector<uint64_t> entries(kernel.issueBlocks, 0);
    for (unsigned i = 0; i < count; ++i)
      for (size_t b = 0; b < all[i]->issueProfile.size(); ++b)
        entries[b] += all[i]->issueProfile[b];
    recordIssueProfile(kernel, entries);
  }
  if (!settings().accessProfile.empty() && count) {
    std::vector<SiteTraffic> sites;
    for (unsigned i = 0; i < count; ++i) {
      const std::vector<SiteTraffic> &mine = all[i]->accessProfile;
      if (sites.size() < mine.size())
        sites.resize(mine.size());
      for (size_t s = 0; s < mine.size(); ++s) {
        if (!mine[s].instructions)
          continue;
        sites[s].instructions += mine[s].instructions;
        sites[s].bytes += mine[s].bytes;
        sites[s].transactions += mine[s].transactions;
      }
    }
    recordAccessProfile(kernel, sites);
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
