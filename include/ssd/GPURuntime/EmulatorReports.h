//===- EmulatorReports.h - what the GPU emulator reports -------*- C++ -*-===//
//
// The GPU emulator's extras beside its DeviceRuntime table
// (ssd::emulator::deviceRuntime(), DeviceRuntime.h), which have no CUDA
// twin: whether errors are printed, statistics of the work emulated, and
// the cost counters of its launches.
//
// Host code produced by --ssd-to-gpu-emulator (or --ssd-gpu-lower-to-emulator)
// calls the same mgpu* C functions as the CUDA path (CudaRuntime.cpp). This
// library defines them on the host CPU: kernel objects (host shared objects
// made by the #ssd.gpu_emulator_target serializer) are opened from memory, and
// every launch runs each thread of each block as its own fiber, so barriers,
// warp shuffles and mma.sync synchronise real threads of execution. Device
// memory lives in a window that host code cannot touch (a host access faults
// with a message naming the allocation); kernels reach it only through checked
// accesses (bounds, alignment, host pointers, freed memory). Shared memory is
// checked for races between barriers and for reads of bytes no thread wrote.
//
// The first error is recorded, stops all later launches and copies (like a
// CUDA context after a fault) and is returned by the table's takeError(). A
// fault of a kernel's own code (SIGSEGV, SIGBUS, a trap, SIGFPE) cannot be
// recovered from: it prints one line naming the kernel and thread and exits
// with status 1. Unless a host took it, errors are also printed to stderr and
// make the process exit with status 1 (for programs run by mlir-runner).
//
// Every launch is also counted by a cost model (work per kernel: tensor-core
// ops, shared-memory wavefronts with bank conflicts, global sectors; see
// docs/gpu.md, "Cost counters"), retrieved with takeCosts().
//
// Environment: SSD_GPU_EMULATOR_THREADS (OS threads running blocks, default:
// all cores), SSD_GPU_EMULATOR_MEMORY (device memory size, e.g. 2G; default
// 16G), SSD_GPU_EMULATOR_RACECHECK=0 (skip the shared-memory race check),
// SSD_GPU_EMULATOR_COSTS=full|counts|off (the cost model: everything
// (default); without the distinct DRAM sectors; without any memory traffic,
// keeping the counts that cost nothing: launches, blocks, barriers,
// collectives, mma, ldmatrix and cp.async instructions).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_EMULATORREPORTS_H
#define SSD_GPURUNTIME_EMULATORREPORTS_H

#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/GPURuntime/EmulatorABI.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssd {
namespace emulator {

/// Whether errors are also printed to stderr when they happen (default:
/// yes). A host that reports takeError() itself turns this off.
SSD_RUNTIME_EXPORT void setPrintErrors(bool print);

/// Statistics of the work emulated since the process started.
struct Statistics {
  uint64_t launches = 0, blocks = 0, threads = 0;
  uint64_t barriers = 0, warpCollectives = 0, mmas = 0;
  uint64_t globalAccesses = 0, sharedAccesses = 0;
  /// mgpuMemAlloc calls (allocations made by compiled host code) and
  /// (re)allocations of the per-call workspace: a steady-state call makes
  /// neither.
  uint64_t deviceAllocations = 0, workspaceAllocations = 0;
};
SSD_RUNTIME_EXPORT Statistics statistics();

/// Memory traffic of one class of instructions, counted per warp-level
/// instruction (the accesses of a warp's lanes at one dynamic instruction).
struct MemoryTraffic {
  uint64_t instructions = 0; ///< warp-level instructions
  uint64_t bytes = 0;        ///< bytes the lanes requested
  /// Shared memory: wavefronts (one per bank-conflict-free 128-byte pass;
  /// bank conflicts add more). Global memory: 32-byte sectors requested,
  /// the distinct sectors of each warp-level instruction, summed.
  uint64_t transactions = 0;
  /// Shared memory: the wavefronts above one per 128-byte phase, i.e. the
  /// bank conflicts alone (0 for conflict-free code whatever the widths).
  uint64_t conflicts = 0;
  void add(const MemoryTraffic &o) {
    instructions += o.instructions;
    bytes += o.bytes;
    transactions += o.transactions;
    conflicts += o.conflicts;
  }
};

/// The work of one launch or, summed, of every launch of a kernel
/// (docs/gpu.md, "Cost counters").
struct CostCounters {
  uint64_t launches = 0, blocks = 0, threads = 0, warps = 0;
  uint64_t barriers = 0;        ///< block barriers completed (per block)
  uint64_t warpCollectives = 0; ///< shfl/vote/bar.warp.sync/mma/ldmatrix/wgmma
  uint64_t mma[4] = {};         ///< mma.sync per MmaKind (index kind - 1)
  uint64_t mmaFlops = 0;        ///< 2 m n k per mma.sync or wgmma
  uint64_t wgmma = 0;           ///< wgmma.mma_async per warpgroup
  uint64_t wgmmaFlops = 0;      ///< the part of mmaFlops that wgmma did
  uint64_t ldmatrix = 0;        ///< warp-level ldmatrix instructions
  uint64_t ldmatrixMatrices = 0;
  uint64_t cpAsync = 0;         ///< cp.async instructions (per thread)
  uint64_t cpAsyncZeroFill = 0; ///< bytes zero-filled (src-size < cp-size)
  MemoryTraffic sharedLoad, sharedStore, sharedAtomic, sharedLdmatrix,
      sharedCpAsync, sharedWgmma;
  MemoryTraffic globalLoad, globalStore, globalAtomic, globalCpAsync;
  /// Distinct 32-byte sectors of device memory each launch read (loads,
  /// cp.async sources) and wrote (stores, atomics), summed over launches:
  /// DRAM traffic with an L2 that never evicts. 0 unless
  /// SSD_GPU_EMULATOR_COSTS=full.
  uint64_t dramReadSectors = 0, dramWriteSectors = 0;
  /// Distinct sectors a launch read that it had written itself shortly
  /// before (less than the L2's 50 MiB of traffic earlier): L2 hits, not
  /// in dramReadSectors (docs/gpu.md, "Cost counters").
  uint64_t l2ReadSectors = 0;
  /// Times a lane buffered so many accesses without a warp or block
  /// synchronisation that its warp's accesses were grouped early (grouping
  /// is then exact only for convergent code).
  uint64_t earlyGroupings = 0;
  /// Warp-level instructions issued, per IssueClass: per warp and basic
  /// block, the most times any of its lanes ran the block, times the
  /// block's instructions of the class (0 from kernel objects without the
  /// table, or with SSD_GPU_EMULATOR_COSTS=off).
  uint64_t issue[kIssueClasses] = {};

  SSD_RUNTIME_EXPORT void add(const CostCounters &o);
};

/// Per kernel name, every launch since the last takeCosts(), in order of
/// first launch.
struct KernelCost {
  std::string kernel;
  CostCounters counters;
};
SSD_RUNTIME_EXPORT std::vector<KernelCost> takeCosts();

/// Per launch (the most recent 65536), since the last takeLaunchCosts().
struct LaunchCost {
  std::string kernel;
  unsigned grid[3], block[3];
  uint64_t sharedBytes;
  CostCounters counters;
};
SSD_RUNTIME_EXPORT std::vector<LaunchCost> takeLaunchCosts();

/// A per-kernel table of `costs`, one block of lines per kernel, with lower
/// bounds of the time on an H200 from its peak rates.
SSD_RUNTIME_EXPORT std::string
formatCosts(const std::vector<KernelCost> &costs);

} // namespace emulator
} // namespace ssd

#endif // SSD_GPURUNTIME_EMULATORREPORTS_H
