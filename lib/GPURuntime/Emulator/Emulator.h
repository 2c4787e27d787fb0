//===- Emulator.h - internals of the GPU emulator runtime ------*- C++ -*-===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_EMULATOR_H
#define SSD_LIB_GPURUNTIME_EMULATOR_EMULATOR_H

#include "ssd/GPURuntime/EmulatorABI.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ssd {
namespace emulator {

//===----------------------------------------------------------------------===//
// The host-side API behind deviceRuntime() (DeviceRuntime.h; Runtime.cpp)
//===----------------------------------------------------------------------===//

/// Maps device memory and installs the fault handler. Idempotent; false
/// with a reason when the host cannot provide the memory.
bool initialize(std::string &error);

/// "GPU emulator (<threads> threads, <memory> device memory)".
std::string describeDevice();

void *allocate(size_t bytes, std::string &error);
void release(void *devicePointer);
bool copyToDevice(void *device, const void *host, size_t bytes,
                  std::string &error);
bool copyToHost(void *host, const void *device, size_t bytes,
                std::string &error);
bool copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                        std::string &error);
/// Launches run to completion when issued; this reports their errors.
bool synchronize(std::string &error);

/// The first error since the last call, or "". Taking it clears the sticky
/// state: later launches run again.
std::string takeError();

/// The mgpu* entry points with their symbol names, for hosts (such as a
/// JIT) that bind symbols explicitly.
std::vector<std::pair<const char *, void *>> runtimeSymbols();

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Records an error (the first one is kept for takeError) and prints it
/// unless the host asked not to. After an error, launches and copies are
/// skipped until the host takes it.
void reportError(const std::string &message);

/// DeviceRuntime::setWorkspace (Workspace.cpp).
void setCallerWorkspace(void *device, size_t bytes, int64_t *requested);
bool hasError();

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

/// One allocation, as kernels see it: [begin, end) in the device window.
struct DeviceRange {
  uintptr_t begin, end;
  uint64_t id;
};

/// Device memory: one memory file mapped twice. The device window, whose
/// addresses mgpuMemAlloc hands out, is mapped without access, so host code
/// that dereferences a device pointer faults (and the fault handler names
/// the allocation); the host window maps the same pages read-write at a
/// fixed distance and is what kernels and copies use after a bounds check.
/// Allocations are page-aligned, followed by an unmapped guard page, filled
/// with 0xff bytes (a NaN in every float type) like memory nobody wrote.
class DeviceMemory {
public:
  static DeviceMemory &get();
  bool initialize(std::string &error);
  uint64_t capacity() const { return size; }

  void *allocate(uint64_t bytes, std::string &error);
  /// False when `device` is not the start of a live allocation.
  bool release(void *device);

  bool inWindow(uintptr_t address) const { return address - deviceBase < size; }
  /// Offset of a device address in the window.
  uint64_t offsetOf(uintptr_t address) const { return address - deviceBase; }
  /// The host-window address of device [address, address + bytes) when it
  /// lies in one live allocation; else null with `why` set.
  char *translate(uintptr_t address, uint64_t bytes, std::string &why);
  /// The host-window address of a device address already checked.
  char *hostAddress(uintptr_t address) const {
    return reinterpret_cast<char *>(hostBase + (address - deviceBase));
  }
  /// The live allocation containing `address` (or ending at it), if any.
  const DeviceRange *find(uintptr_t address);

  /// Sorted live allocations; stable while no allocation changes (launches
  /// run while the host waits).
  const std::vector<DeviceRange> &ranges() const { return live; }
  /// Describes where `address` is relative to the allocations, for fault
  /// messages (async-signal-safe formatting into `buffer`).
  void describe(uintptr_t address, char *buffer, size_t length) const;

private:
  int fd = -1;
  uintptr_t deviceBase = 0, hostBase = 0;
  uint64_t size = 0, used = 0, limit = 0;
  uint64_t nextId = 1;
  std::mutex mutex;
  std::map<uint64_t, uint64_t> freeRanges; ///< offset -> bytes
  std::vector<DeviceRange> live;           ///< sorted by begin
  std::map<uintptr_t, uint64_t> mapped;    ///< begin -> mapped bytes
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

struct SharedBufferInfo {
  std::string name;
  uint64_t offset, bytes;
};

/// A kernel of a loaded object, as its __ssdemu_kinfo string describes it.
struct Kernel {
  std::string name;
  /// The kernel's name in cost reports: its gpu.module's name (unique in a
  /// program; outlined kernels all have the same function name), followed
  /// by "::" and the kernel's when the module has several kernels.
  std::string costName;
  void (*entry)(void **) = nullptr;
  std::vector<std::string> params; ///< "p", "i64", "f32", ...
  uint64_t staticShared = 0, dynamicOffset = 0;
  unsigned maxThreads[3] = {0, 0, 0};
  std::vector<SharedBufferInfo> buffers;
  int computeCapability = 0;
  const std::vector<std::string> *sites = nullptr;
  /// The module's __ssdemu_issue: per counted basic block kIssueClasses
  /// instruction counts (null, 0: none).
  const uint32_t *issueTable = nullptr;
  uint32_t issueBlocks = 0;
};

struct LaunchConfig {
  unsigned grid[3], block[3];
  uint64_t dynamicShared;
};

/// The runtime function a kernel object imports under `name`, or null.
void *importAddress(const std::string &name);

/// Whether `address` is in a guard page below an emulated thread's stack.
bool inFiberStackGuard(uintptr_t address);

/// For a fault handler: writes "kernel K block (x,y,z) thread (x,y,z)" for
/// the emulated GPU thread this OS thread is running (the thread left out
/// when none is current), with snprintf only; false outside any kernel.
bool describeRunningThread(char *buffer, size_t size);

/// Runs every block of a launch to completion (errors reported).
void runLaunch(const Kernel &kernel, const LaunchConfig &config, void **params);

/// Counters of Statistics (EmulatorReports.h).
struct Counters {
  std::atomic<uint64_t> launches{0}, blocks{0}, threads{0}, barriers{0},
      warpCollectives{0}, mmas{0}, globalAccesses{0}, sharedAccesses{0};
  /// mgpuMemAlloc calls, and (re)allocations of the per-call workspace.
  std::atomic<uint64_t> deviceAllocations{0}, workspaceAllocations{0};
};
Counters &counters();

enum class BlockOrder : uint8_t { Forward, Reverse, Random };
/// How much memory traffic the cost model counts (SSD_GPU_EMULATOR_COSTS):
/// none, the instructions' wavefronts and sectors, or also the distinct
/// DRAM and L2 sectors of each launch.
enum class CostLevel : uint8_t { Off, Counts, Full };

/// Settings read from the environment once.
struct Settings {
  unsigned threads = 1;
  bool raceCheck = true;
  uint64_t memory = uint64_t(16) << 30;
  CostLevel costs = CostLevel::Full;
  /// The order a launch starts its blocks in (SSD_GPU_EMULATOR_BLOCK_ORDER):
  /// `forward` (index order, the default), `reverse` (from the last one) or
  /// `random:SEED` (a permutation drawn from SEED and the launch's number).
  /// A kernel that relies on blocks starting in index order fails in the
  /// other two (a GPU promises no order).
  BlockOrder blockOrder = BlockOrder::Forward;
  uint64_t blockOrderSeed = 0;
  /// A value of SSD_GPU_EMULATOR_BLOCK_ORDER that is none of these (reported
  /// at the first launch, which then fails).
  std::string badBlockOrder;
  /// SSD_GPU_EMULATOR_ISSUE_PROFILE: a file that gets, at exit, each
  /// kernel's warp instructions per counted basic block (empty: none).
  std::string issueProfile;
  /// SSD_GPU_EMULATOR_ACCESS_PROFILE: a file that gets, at exit, each
  /// kernel's memory instructions, bytes and sectors per call site.
  std::string accessProfile;
};
const Settings &settings();

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_EMULATOR_H
