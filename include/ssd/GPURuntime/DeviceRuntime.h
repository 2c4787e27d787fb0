//===- DeviceRuntime.h - the host side of a GPU runtime --------*- C++ -*-===//
//
// What code that runs compiled ops on a GPU needs from the runtime under the
// mgpu* functions, as a table, so that one caller (ssd-run, ssd-runner, the
// ahead-of-time runner) drives the CUDA driver (lib/GPURuntime/CudaRuntime.cpp)
// or the GPU emulator (lib/GPURuntime/Emulator; its extras without a CUDA
// twin, such as cost counters, in EmulatorReports.h) the same way. It is the
// one interface of both runtimes: callers go through the table.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_DEVICERUNTIME_H
#define SSD_GPURUNTIME_DEVICERUNTIME_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

/// Marks what a runtime built as a shared library with hidden visibility
/// (the GPU emulator's) exports: the functions host code and callers reach
/// by name. Everything else stays inside the library.
#define SSD_RUNTIME_EXPORT __attribute__((visibility("default")))

/// The mgpu* C functions that host code from MLIR's gpu-to-llvm calls
/// (MLIR 22), which every runtime defines.
#define SSD_MGPU_FUNCTIONS(X)                                                  \
  X(mgpuModuleLoad)                                                            \
  X(mgpuModuleLoadJIT)                                                         \
  X(mgpuModuleUnload)                                                          \
  X(mgpuModuleGetFunction)                                                     \
  X(mgpuLaunchKernel)                                                          \
  X(mgpuStreamCreate)                                                          \
  X(mgpuStreamDestroy)                                                         \
  X(mgpuStreamSynchronize)                                                     \
  X(mgpuStreamWaitEvent)                                                       \
  X(mgpuEventCreate)                                                           \
  X(mgpuEventDestroy)                                                          \
  X(mgpuEventSynchronize)                                                      \
  X(mgpuEventRecord)                                                           \
  X(mgpuMemAlloc)                                                              \
  X(mgpuMemFree)                                                               \
  X(mgpuMemcpy)                                                                \
  X(mgpuMemset32)                                                              \
  X(mgpuMemset16)                                                              \
  X(_mlir_ciface_ssdGPUWorkspace)                                              \
  X(ssdGPUMisalignedOperand)

/// The per-call workspace of the ssd GPU kernels, which host code from
/// ssd-lower-to-gpu requests (`func.func private @ssdGPUWorkspace(i64) ->
/// memref<?xi8> attributes {llvm.emit_c_interface}`): fills `result`, a
/// StridedMemRefType<int8_t, 1>, with a device buffer of at least `bytes`
/// that the runtime caches per host thread and stream.
extern "C" SSD_RUNTIME_EXPORT void _mlir_ciface_ssdGPUWorkspace(void *result,
                                                                int64_t bytes);

/// The layout check of host code from ssd-lower-to-gpu, before the first
/// launch of a call (`func.func private @ssdGPUMisalignedOperand(i32, i32,
/// i64, i64)`): operand `operand` (an index into ssd::kScanOperandNames)
/// starts at device address `value` (dim -1; its aligned pointer plus
/// offset times element bytes), or has a stride of `value` bytes in
/// dimension `dim`, that is not a multiple of the `alignment` bytes its
/// kernels access it with. Records the runtime's error (describeMisaligned
/// below); the host code launches nothing of the call.
extern "C" SSD_RUNTIME_EXPORT void ssdGPUMisalignedOperand(int32_t operand,
                                                           int32_t dim,
                                                           int64_t value,
                                                           int64_t alignment);

/// {"name", address} for one mgpu* function, in a runtimeSymbols() list.
#define SSD_MGPU_SYMBOL(NAME) {#NAME, reinterpret_cast<void *>(&NAME)},

namespace ssd {

/// The memref operands of ssd.chunk_scan_varlen as ssdGPUMisalignedOperand
/// numbers them.
inline constexpr const char *kScanOperandNames[] = {"x",
                                                    "dt",
                                                    "A",
                                                    "B",
                                                    "C",
                                                    "D",
                                                    "dt_bias",
                                                    "ssm_pool",
                                                    "query_start_loc",
                                                    "has_initial_state",
                                                    "cache_indices",
                                                    "update_state",
                                                    "y"};

/// The one-line error of ssdGPUMisalignedOperand, for both runtimes.
inline std::string describeMisaligned(int32_t operand, int32_t dim,
                                      int64_t value, int64_t alignment) {
  std::string name =
      operand >= 0 && size_t(operand) < std::size(kScanOperandNames)
          ? std::string("'") + kScanOperandNames[operand] + "'"
          : "#" + std::to_string(operand);
  std::string what;
  if (dim < 0) {
    char address[32];
    std::snprintf(address, sizeof(address), "0x%llx",
                  static_cast<unsigned long long>(value));
    what = "starts at device address " + std::string(address) +
           " (aligned pointer + offset x element bytes), not " +
           std::to_string(alignment) + "-byte aligned";
  } else {
    what = "has a stride of " + std::to_string(value) + " bytes in dimension " +
           std::to_string(dim) + ", not a multiple of " +
           std::to_string(alignment) + " bytes";
  }
  return "ssd-lower-to-gpu layout check: operand " + name + " " + what +
         " as its GPU kernels access it; no kernel of the call ran";
}

struct DeviceRuntime {
  const char *name; ///< "cuda" or "gpu-emu"
  bool (*initialize)(std::string &error);
  std::string (*describeDevice)();
  void *(*allocate)(size_t bytes, std::string &error);
  void (*release)(void *device);
  bool (*copyToDevice)(void *device, const void *host, size_t bytes,
                       std::string &error);
  bool (*copyToHost)(void *host, const void *device, size_t bytes,
                     std::string &error);
  bool (*copyDeviceToDevice)(void *dst, const void *src, size_t bytes,
                             std::string &error);
  /// Waits for the device; false with the first error of the mgpu* calls.
  bool (*synchronize)(std::string &error);
  /// The first error recorded by the mgpu* calls since the last call.
  std::string (*takeError)();
  /// The mgpu* entry points, for a JIT that binds symbols explicitly.
  std::vector<std::pair<const char *, void *>> (*runtimeSymbols)();
  /// Launch compiled calls from this thread on `stream` (null: the
  /// runtime's own stream per thread, waited for at the end of each call).
  void (*setStream)(void *stream);
  /// The device's compute capability as major * 10 + minor (90 for an
  /// H100/H200), 0 if unknown (no device): what ahead-of-time executables
  /// choose a chip's compiled variant by. The GPU emulator pretends to be
  /// the device SSD_GPU_EMULATOR_COMPUTE_CAPABILITY names (docs/gpu.md).
  int (*computeCapability)();
  /// Calls from this thread take their workspace from the caller's device
  /// buffer `device` of `bytes` instead of the runtime's per-stream cache,
  /// and store each request's size in `*requested` (the largest of the
  /// call's requests): an embedder that owns its memory (the torch op's
  /// kernel libraries, whose buffer comes from torch's allocator) and must
  /// not allocate or wait inside a call (CUDA graph capture). A request
  /// above `bytes` records an error and the call launches, copies and sets
  /// nothing; the caller grows its buffer to `*requested` and calls again.
  /// Null `device` and `requested` restore the cache.
  void (*setWorkspace)(void *device, size_t bytes, int64_t *requested);
};

/// The error a runtime records for a workspace request above the caller's
/// buffer (setWorkspace).
inline std::string describeWorkspaceTooSmall(int64_t requested, size_t bytes) {
  return "workspace: the call needs " + std::to_string(requested) +
         " bytes, the caller's buffer holds " + std::to_string(bytes) +
         "; no kernel of the call ran";
}

namespace cuda {
const DeviceRuntime &deviceRuntime();
} // namespace cuda

namespace emulator {
SSD_RUNTIME_EXPORT const DeviceRuntime &deviceRuntime();
} // namespace emulator

} // namespace ssd

#endif // SSD_GPURUNTIME_DEVICERUNTIME_H
