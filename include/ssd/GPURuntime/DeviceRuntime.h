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
#include <string>
#include <utility>
#include <vector>

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
};

namespace cuda {
const DeviceRuntime &deviceRuntime();
} // namespace cuda

namespace emulator {
const DeviceRuntime &deviceRuntime();
} // namespace emulator

} // namespace ssd

#endif // SSD_GPURUNTIME_DEVICERUNTIME_H
