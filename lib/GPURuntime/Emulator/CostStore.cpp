//===- CostStore.cpp - the per-kernel and per-launch cost counters --------===//
//
// What runLaunch and the device memsets add (CostStore.h) and what
// takeCosts and takeLaunchCosts (EmulatorReports.h) hand out.
//
//===----------------------------------------------------------------------===//

#include "CostStore.h"

#include "Emulator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>

using namespace ssd::emulator;

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
  for (unsigned i = 0; i < kIssueClasses; ++i)
    issue[i] += o.issue[i];
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

namespace {

/// The issue and access profiles: per kernel (its cost name and block or
/// site count, as two programs may hold kernels of one name), each counted
/// basic block's warp entries over the run and its instructions per class,
/// and each call site's memory traffic and description, copied from the
/// object (which may be unloaded before the process exits).
struct Profiles {
  struct Issue {
    std::vector<uint32_t> perClass;
    std::vector<uint64_t> warpEntries;
  };
  struct Access {
    std::vector<SiteTraffic> sites;
    std::vector<std::string> names;
  };
  std::mutex mutex;
  std::map<std::pair<std::string, uint32_t>, Issue> issue;
  std::map<std::pair<std::string, size_t>, Access> access;

  ~Profiles() {
    if (!settings().issueProfile.empty())
      writeIssue(settings().issueProfile);
    if (!settings().accessProfile.empty())
      writeAccess(settings().accessProfile);
  }

  static std::FILE *open(const std::string &path) {
    std::FILE *out = std::fopen(path.c_str(), "w");
    if (!out)
      std::fprintf(stderr, "gpu emulator: cannot write the profile %s\n",
                   path.c_str());
    return out;
  }

  /// The indices of `key`, largest key first, ties in index order.
  static std::vector<size_t> byDescending(const std::vector<uint64_t> &key) {
    std::vector<size_t> order(key.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return key[a] != key[b] ? key[a] > key[b] : a < b;
    });
    return order;
  }

  void writeIssue(const std::string &path) const {
    std::FILE *out = open(path);
    if (!out)
      return;
    std::fprintf(out, "# kernel\tblock\twarp-entries\ttotal");
    for (const char *name : kIssueClassNames)
      std::fprintf(out, "\t%s", name);
    std::fprintf(out, "\n");
    for (const auto &[key, entry] : issue) {
      const size_t blocks = entry.warpEntries.size();
      std::vector<uint64_t> total(blocks, 0);
      for (size_t b = 0; b < blocks; ++b)
        for (unsigned c = 0; c < kIssueClasses; ++c)
          total[b] +=
              entry.warpEntries[b] * entry.perClass[b * kIssueClasses + c];
      for (size_t b : byDescending(total)) {
        if (!entry.warpEntries[b])
          continue;
        std::fprintf(out, "%s\tissue.%zu\t%" PRIu64 "\t%" PRIu64,
                     key.first.c_str(), b, entry.warpEntries[b], total[b]);
        for (unsigned c = 0; c < kIssueClasses; ++c)
          std::fprintf(out, "\t%" PRIu64,
                       entry.warpEntries[b] *
                           entry.perClass[b * kIssueClasses + c]);
        std::fprintf(out, "\n");
      }
    }
    std::fclose(out);
  }

  void writeAccess(const std::string &path) const {
    static const char *const kinds[kAccessKinds] = {
        "shared.load", "shared.store", "shared.atomic", "shared.cp.async",
        "global.load", "global.store", "global.atomic", "global.cp.async"};
    std::FILE *out = open(path);
    if (!out)
      return;
    std::fprintf(out, "# kernel\tsite\tkind\tinstructions\tbytes\t"
                      "sectors-or-wavefronts\tinstruction\n");
    for (const auto &[key, entry] : access) {
      std::vector<uint64_t> transactions;
      for (const SiteTraffic &t : entry.sites)
        transactions.push_back(t.transactions);
      for (size_t slot : byDescending(transactions)) {
        const SiteTraffic &t = entry.sites[slot];
        if (!t.instructions)
          continue;
        const size_t site = slot / kAccessKinds;
        std::fprintf(
            out, "%s\t%zu\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
            key.first.c_str(), site, kinds[slot % kAccessKinds], t.instructions,
            t.bytes, t.transactions,
            site < entry.names.size() ? entry.names[site].c_str() : "");
      }
    }
    std::fclose(out);
  }
};

/// Made after settings() (both callers read it first), so destroyed, and
/// written, before it.
Profiles &profiles() {
  static Profiles p;
  return p;
}

} // namespace

void ssd::emulator::recordIssueProfile(
    const Kernel &kernel, const std::vector<uint64_t> &warpEntries) {
  if (!kernel.issueTable || settings().issueProfile.empty())
    return;
  Profiles &p = profiles();
  std::lock_guard<std::mutex> lock(p.mutex);
  Profiles::Issue &entry = p.issue[{kernel.costName, kernel.issueBlocks}];
  if (entry.warpEntries.empty()) {
    entry.warpEntries.assign(kernel.issueBlocks, 0);
    entry.perClass.assign(kernel.issueTable,
                          kernel.issueTable +
                              size_t(kernel.issueBlocks) * kIssueClasses);
  }
  for (size_t b = 0; b < warpEntries.size() && b < kernel.issueBlocks; ++b)
    entry.warpEntries[b] += warpEntries[b];
}

void ssd::emulator::recordAccessProfile(const Kernel &kernel,
                                        const std::vector<SiteTraffic> &sites) {
  if (settings().accessProfile.empty())
    return;
  Profiles &p = profiles();
  std::lock_guard<std::mutex> lock(p.mutex);
  const size_t named = kernel.sites ? kernel.sites->size() : 0;
  Profiles::Access &entry = p.access[{kernel.costName, named}];
  if (entry.names.empty() && kernel.sites)
    entry.names = *kernel.sites;
  if (entry.sites.size() < sites.size())
    entry.sites.resize(sites.size());
  for (size_t s = 0; s < sites.size(); ++s) {
    if (!sites[s].instructions)
      continue;
    entry.sites[s].instructions += sites[s].instructions;
    entry.sites[s].bytes += sites[s].bytes;
    entry.sites[s].transactions += sites[s].transactions;
  }
}
