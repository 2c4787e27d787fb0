//===- CudaRuntime.h - the CUDA driver behind host code --------*- C++ -*-===//
//
// Host code produced by --ssd-to-nvvm calls the mgpu* C functions (module
// loading, launches, streams, device memory) that MLIR's gpu-to-llvm
// emits. This library defines them on top of the CUDA driver API, opened
// with dlopen at run time: it builds without the CUDA toolkit, links into
// programs that need no LLVM or MLIR, and a machine without a driver or GPU
// gets a clear error instead of a failed load.
//
// The mgpu* functions cannot return errors to the compiled code; the first
// failure is recorded and reported by ssd::cuda::takeError().
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_CUDARUNTIME_H
#define SSD_GPURUNTIME_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssd {
namespace cuda {

/// Opens libcuda.so.1, initialises the driver and makes the primary context
/// of device 0 current. Idempotent. False with a one-line reason (no driver,
/// no device, driver error) otherwise.
bool initialize(std::string &error);

/// Name and compute capability of device 0, e.g. "NVIDIA H200 (sm_90)".
std::string describeDevice();

void *allocate(size_t bytes, std::string &error);
void release(void *devicePointer);
bool copyToDevice(void *device, const void *host, size_t bytes,
                  std::string &error);
bool copyToHost(void *host, const void *device, size_t bytes,
                std::string &error);
bool copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                        std::string &error);
bool synchronize(std::string &error);

/// Makes compiled functions called from this thread launch on `stream` (a
/// CUstream) and return without waiting for it: the caller synchronises.
/// Null restores the default, one stream per host thread that each call
/// waits for.
void setStream(void *stream);

/// The first error recorded by an mgpu* function since the last call, or "".
std::string takeError();

/// The mgpu* entry points with their symbol names, for hosts (such as a
/// JIT) that bind symbols explicitly.
std::vector<std::pair<const char *, void *>> runtimeSymbols();

} // namespace cuda
} // namespace ssd

#endif // SSD_GPURUNTIME_CUDARUNTIME_H
