//===- EmulatorRuntime.h - the GPU emulator behind compiled host code -*- C++ -*-===//
//
// Host code produced by --ssd-to-gpu-emulator (or --ssd-gpu-lower-to-emulator)
// calls the same mgpu* C functions as the CUDA path. This library defines
// them on the host CPU: kernel objects (host shared objects made by the
// #ssd.gpu_emulator_target serializer) are opened from memory, and every
// launch runs each thread of each block as its own fiber, so barriers, warp
// shuffles and mma.sync synchronise real threads of execution. Device memory
// lives in a window that host code cannot touch (a host access faults with
// a message naming the allocation); kernels reach it only through checked
// accesses (bounds, host pointers, freed memory). Shared memory is checked
// for races between barriers and for reads of bytes no thread wrote.
//
// The first error is recorded, stops all later launches and copies (like a
// CUDA context after a fault) and is returned by takeError(). Unless a host
// took it, errors are also printed to stderr and make the process exit with
// status 1 (for programs run by mlir-runner).
//
// Environment: SSD_GPU_EMULATOR_THREADS (OS threads running blocks, default:
// all cores), SSD_GPU_EMULATOR_MEMORY (device memory size, e.g. 2G; default
// 16G), SSD_GPU_EMULATOR_RACECHECK=0 (skip the shared-memory race check).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_EMULATORRUNTIME_H
#define SSD_GPURUNTIME_EMULATORRUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssd {
namespace emulator {

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

/// Whether errors are also printed to stderr when they happen (default:
/// yes). A host that reports takeError() itself turns this off.
void setPrintErrors(bool print);

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
Statistics statistics();

/// The mgpu* entry points with their symbol names, for hosts (such as a
/// JIT) that bind symbols explicitly.
std::vector<std::pair<const char *, void *>> runtimeSymbols();

} // namespace emulator
} // namespace ssd

#endif // SSD_GPURUNTIME_EMULATORRUNTIME_H
