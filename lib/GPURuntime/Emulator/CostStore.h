//===- CostStore.h - per-kernel and per-launch cost counters ----*- C++ -*-===//
//
// The store that takeCosts and takeLaunchCosts (EmulatorReports.h) empty:
// the counters of each launch, summed per kernel. Above the executor: the
// mgpu* runtime and runLaunch add to it, nothing the executor's threads run
// reads it.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_COSTSTORE_H
#define SSD_LIB_GPURUNTIME_EMULATOR_COSTSTORE_H

#include "CostModel.h"

#include "ssd/GPURuntime/EmulatorReports.h"

#include <cstdint>

namespace ssd {
namespace emulator {

struct Kernel;
struct LaunchConfig;

/// Adds one launch's counters to the per-kernel and per-launch stores.
void recordLaunchCosts(const Kernel &kernel, const LaunchConfig &config,
                       const CostCounters &counters);

/// Adds a launch's warp entries per counted basic block of `kernel` (the
/// workers' Worker::issueProfile summed) to the issue profile, which is
/// written to Settings::issueProfile when the process exits: per kernel,
/// each block's entries and warp instructions per IssueClass, the blocks
/// that issued most first. Block b is the one named `issue.b` in the
/// kernel's rewritten IR (`--emulator-format llvm`).
void recordIssueProfile(const Kernel &kernel,
                        const std::vector<uint64_t> &warpEntries);

/// Adds a launch's memory instructions per call site of `kernel` (the
/// workers' Worker::accessProfile summed) to the access profile, written to
/// Settings::accessProfile when the process exits: per kernel and site, its
/// kind, warp-level instructions, bytes, and shared wavefronts or global
/// sectors, the sites with the most sectors or wavefronts first, each
/// described as the emulator's messages describe it (the instruction).
void recordAccessProfile(const Kernel &kernel,
                         const std::vector<SiteTraffic> &sites);

/// Adds a device memset of `bytes` (mgpuMemset32/16) under the name
/// "memset": on a GPU it is a small kernel on the stream, so it counts as
/// a launch whose bytes are DRAM writes.
void recordMemsetCosts(uint64_t bytes);

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_COSTSTORE_H
