//===- DeviceRuntime.h - the host side of a GPU runtime --------*- C++ -*-===//
//
// What code that runs compiled ops on a GPU needs from the runtime under the
// mgpu* functions, as a table, so that one caller (ssd-run, ssd-runner, the
// ahead-of-time runner) drives the CUDA driver (CudaRuntime.h) or the GPU
// emulator (EmulatorRuntime.h) the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_DEVICERUNTIME_H
#define SSD_GPURUNTIME_DEVICERUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
  X(_mlir_ciface_ssdGPUWorkspace)

/// The per-call workspace of the ssd GPU kernels, which host code from
/// ssd-lower-to-gpu requests (`func.func private @ssdGPUWorkspace(i64) ->
/// memref<?xi8> attributes {llvm.emit_c_interface}`): fills `result`, a
/// StridedMemRefType<int8_t, 1>, with a device buffer of at least `bytes`
/// that the runtime caches per host thread and stream.
extern "C" void _mlir_ciface_ssdGPUWorkspace(void *result, int64_t bytes);

/// {"name", address} for one mgpu* function, in a runtimeSymbols() list.
#define SSD_MGPU_SYMBOL(NAME) {#NAME, reinterpret_cast<void *>(&NAME)},

namespace ssd {

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
};

namespace cuda {
const DeviceRuntime &deviceRuntime();
} // namespace cuda

namespace emulator {
const DeviceRuntime &deviceRuntime();
} // namespace emulator

} // namespace ssd

#endif // SSD_GPURUNTIME_DEVICERUNTIME_H
