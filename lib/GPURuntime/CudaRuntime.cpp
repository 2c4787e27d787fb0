//===- CudaRuntime.cpp - mgpu* on the CUDA driver API, opened at run time -===//
//
// Host code produced by --ssd-to-nvvm calls the mgpu* C functions (module
// loading, launches, streams, device memory) that MLIR's gpu-to-llvm
// emits. This library defines them on top of the CUDA driver API, opened
// with dlopen at run time: it builds without the CUDA toolkit, links into
// programs that need no LLVM or MLIR, and a machine without a driver or GPU
// gets a clear error instead of a failed load.
//
// The mgpu* functions cannot return errors to the compiled code; the first
// failure is recorded and reported by the takeError() of
// ssd::cuda::deviceRuntime() (DeviceRuntime.h), the one interface callers
// use.
//
//===----------------------------------------------------------------------===//

#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/Transforms/GPUChip.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ssd {
namespace cuda {
namespace {
// The table's functions (Host-side API below), which the mgpu* functions
// use too.
bool initialize(std::string &error);
std::string takeError();
} // namespace
} // namespace cuda
} // namespace ssd

namespace {

// The few driver API types and constants used here (cuda.h is not needed to
// build: the ABI below is stable across CUDA 11-13).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 1;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
};

struct State {
  std::once_flag once;
  bool ready = false;
  std::string initError;
  Driver driver{};
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::mutex errorMutex;
  std::string firstError;
  /// The first failed module load. Objects of `ssd-compile --chip A,B` load
  /// every chip's kernels at start-up, and those for another chip fail
  /// (cubin of another architecture, sm_90a PTX on sm_80): that is no error
  /// until a call asks for a kernel of such a module (mgpuModuleGetFunction).
  std::string failedLoad;
};

State &state() {
  static State s;
  return s;
}

/// What a host thread launches on. Compiled functions ask for a stream at
/// entry and wait for it at exit (mgpuStreamCreate / Synchronize /
/// Destroy); they get the stream the caller set (launches are then ordered
/// on it and the caller synchronises), else one stream per host thread,
/// created once. Workspaces are cached per stream: calls on one stream run
/// in order, so a workspace is free again when the next call's kernels run.
struct ThreadStreams {
  CUstream caller = nullptr;
  CUstream own = nullptr;
  std::map<CUstream, std::pair<CUdeviceptr, size_t>> workspaces;
  /// The caller's workspace (DeviceRuntime::setWorkspace), used instead of
  /// `workspaces` while `requested` is set.
  CUdeviceptr callerWorkspace = 0;
  size_t callerWorkspaceBytes = 0;
  int64_t *requested = nullptr;
};
thread_local ThreadStreams threadStreams;

CUstream currentStream();

std::string describe(CUresult result) {
  const char *text = nullptr;
  if (state().driver.cuGetErrorString)
    state().driver.cuGetErrorString(result, &text);
  return text ? std::string(text) : "CUDA error " + std::to_string(result);
}

void recordError(const std::string &what) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  if (s.firstError.empty())
    s.firstError = what;
}

bool errorRecorded() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  return !s.firstError.empty();
}

/// Records a failed driver call made by an mgpu* function.
bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  recordError(std::string(call) + ": " + describe(result));
  return false;
}

template <typename F> bool bind(void *library, F &slot, const char *name) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  return slot != nullptr;
}

void initializeOnce() {
  State &s = state();
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    s.initError = "no CUDA driver: libcuda.so.1 cannot be loaded (is this a "
                  "machine with an NVIDIA GPU and driver?)";
    return;
  }
  Driver &d = s.driver;
  // The first driver entry point missing, if any.
  const char *missing = nullptr;
  auto need = [&](auto &slot, const char *name) {
    if (!missing && !bind(library, slot, name))
      missing = name;
  };
  need(d.cuInit, "cuInit");
  need(d.cuDeviceGetCount, "cuDeviceGetCount");
  need(d.cuDeviceGet, "cuDeviceGet");
  need(d.cuDeviceGetName, "cuDeviceGetName");
  need(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  need(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  need(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  need(d.cuCtxSynchronize, "cuCtxSynchronize");
  need(d.cuGetErrorString, "cuGetErrorString");
  need(d.cuModuleLoadData, "cuModuleLoadData");
  need(d.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  need(d.cuModuleUnload, "cuModuleUnload");
  need(d.cuModuleGetFunction, "cuModuleGetFunction");
  need(d.cuFuncSetAttribute, "cuFuncSetAttribute");
  need(d.cuLaunchKernel, "cuLaunchKernel");
  need(d.cuStreamCreate, "cuStreamCreate");
  need(d.cuStreamDestroy, "cuStreamDestroy_v2");
  need(d.cuStreamSynchronize, "cuStreamSynchronize");
  need(d.cuStreamWaitEvent, "cuStreamWaitEvent");
  need(d.cuEventCreate, "cuEventCreate");
  need(d.cuEventDestroy, "cuEventDestroy_v2");
  need(d.cuEventSynchronize, "cuEventSynchronize");
  need(d.cuEventRecord, "cuEventRecord");
  need(d.cuMemAlloc, "cuMemAlloc_v2");
  need(d.cuMemAllocManaged, "cuMemAllocManaged");
  need(d.cuMemFree, "cuMemFree_v2");
  need(d.cuMemcpyAsync, "cuMemcpyAsync");
  need(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  need(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  need(d.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  need(d.cuMemsetD32Async, "cuMemsetD32Async");
  need(d.cuMemsetD16Async, "cuMemsetD16Async");
  if (missing) {
    s.initError =
        std::string("the CUDA driver lacks ") + missing + " (driver too old?)";
    return;
  }
  CUresult result = d.cuInit(0);
  if (result != CUDA_SUCCESS) {
    s.initError = "cannot initialise the CUDA driver: " + describe(result);
    return;
  }
  int count = 0;
  if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    s.initError = "no CUDA device found";
    return;
  }
  // SSD_CUDA_DEVICE picks the device (an ordinal, as torch's cuda:N counts
  // them): modules load at start-up, into this device's primary context,
  // the one the CUDA runtime (torch) uses too.
  int ordinal = 0;
  if (const char *v = std::getenv("SSD_CUDA_DEVICE"); v && *v) {
    char *end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end || n < 0 || n >= count) {
      s.initError = "SSD_CUDA_DEVICE='" + std::string(v) +
                    "' is not a device ordinal below " + std::to_string(count);
      return;
    }
    ordinal = int(n);
  }
  if ((result = d.cuDeviceGet(&s.device, ordinal)) != CUDA_SUCCESS ||
      (result = d.cuDevicePrimaryCtxRetain(&s.context, s.device)) !=
          CUDA_SUCCESS ||
      (result = d.cuCtxSetCurrent(s.context)) != CUDA_SUCCESS) {
    s.initError = "cannot create a CUDA context: " + describe(result);
    return;
  }
  s.ready = true;
}

/// A module load failed: recorded as an error only when a kernel of it is
/// needed (State::failedLoad).
void deferLoadError(const std::string &what) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  if (s.failedLoad.empty())
    s.failedLoad = what;
}

/// For the mgpu* functions: initialise on first use (compiled modules load
/// their kernels from global constructors, before main) and make the
/// context current on this thread.
bool ready() {
  std::string error;
  if (ssd::cuda::initialize(error))
    return true;
  recordError(error);
  return false;
}

CUdeviceptr devicePointer(const void *p) {
  return reinterpret_cast<CUdeviceptr>(p);
}

} // namespace

//===----------------------------------------------------------------------===//
// The functions MLIR's gpu-to-llvm host code calls (MLIR 22 signatures).
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  CUmodule module = nullptr;
  if (!ready())
    return nullptr;
  CUresult result = state().driver.cuModuleLoadData(&module, data);
  if (result != CUDA_SUCCESS)
    deferLoadError("cuModuleLoadData: " + describe(result));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  if (!ready())
    return nullptr;
  char log[8192] = {0};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result =
      state().driver.cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS)
    deferLoadError("cuModuleLoadDataEx (PTX JIT): " + describe(result) + ": " +
                   std::string(log));
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module && ready())
    check(state().driver.cuModuleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  if (!module && ready()) {
    State &s = state();
    std::string failed;
    {
      std::lock_guard<std::mutex> lock(s.errorMutex);
      failed = s.failedLoad;
    }
    recordError("the module of kernel " + std::string(name) +
                " is not loaded (the first module load that failed: " +
                (failed.empty() ? std::string("none") : failed) + ")");
  }
  if (module && ready())
    check(state().driver.cuModuleGetFunction(&function, module, name),
          "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void ** /*extra*/,
                      size_t /*paramsCount*/) {
  // After a recorded failure (a module that did not load, an allocation that
  // returned null) no kernel may run: it would see a null or stale pointer.
  if (!function || !ready() || errorRecorded())
    return;
  Driver &d = state().driver;
  if (smem > mlir::ssd::kStaticSharedMemoryLimit &&
      !check(
          d.cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
          "cuFuncSetAttribute"))
    return;
  check(d.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                         smem, stream, params, nullptr),
        "cuLaunchKernel");
}

void *mgpuStreamCreate() { return ready() ? currentStream() : nullptr; }

void mgpuStreamDestroy(void *stream) {
  // The thread's streams live as long as the thread; others are destroyed.
  ThreadStreams &t = threadStreams;
  if (stream == t.caller || stream == t.own || !ready())
    return;
  check(state().driver.cuStreamDestroy(stream), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  // On the caller's stream the caller synchronises: the compiled function
  // returns with its work queued.
  if (stream == threadStreams.caller || !ready())
    return;
  check(state().driver.cuStreamSynchronize(stream), "cuStreamSynchronize");
}

/// The workspace of a compiled call (ssd-lower-to-gpu carves every
/// temporary buffer of the scan out of it): a device buffer of at least
/// `bytes`, cached per host thread and stream and grown when a call needs
/// more, so that steady-state calls allocate nothing.
void _mlir_ciface_ssdGPUWorkspace(void *result, int64_t bytes) {
  auto *descriptor = static_cast<int64_t *>(result);
  std::fill(descriptor, descriptor + 5, 0);
  if (!ready())
    return;
  ThreadStreams &t = threadStreams;
  if (t.requested) {
    int64_t want = bytes < 0 ? 0 : bytes;
    *t.requested = std::max(*t.requested, want);
    if (size_t(want) > t.callerWorkspaceBytes) {
      recordError(ssd::describeWorkspaceTooSmall(want, t.callerWorkspaceBytes));
      return;
    }
    descriptor[0] = descriptor[1] = static_cast<int64_t>(t.callerWorkspace);
    descriptor[3] = want;
    descriptor[4] = 1;
    return;
  }
  CUstream stream = currentStream();
  auto &[pointer, size] = t.workspaces[stream];
  size_t needed = std::max<size_t>(bytes < 0 ? 0 : size_t(bytes), 256);
  if (size < needed) {
    Driver &d = state().driver;
    // The previous call's kernels may still use the old buffer.
    if (pointer &&
        (!check(d.cuStreamSynchronize(stream), "cuStreamSynchronize") ||
         !check(d.cuMemFree(pointer), "cuMemFree")))
      return;
    pointer = 0;
    size = 0;
    if (!check(d.cuMemAlloc(&pointer, needed), "cuMemAlloc (workspace)"))
      return;
    size = needed;
  }
  // StridedMemRefType<int8_t, 1>: allocated, aligned, offset, size, stride.
  descriptor[0] = descriptor[1] = static_cast<int64_t>(pointer);
  descriptor[3] = bytes < 0 ? 0 : bytes;
  descriptor[4] = 1;
}

/// Host code's layout check failed (DeviceRuntime.h): the call launches
/// nothing, and its caller gets the error.
void ssdGPUMisalignedOperand(int32_t operand, int32_t dim, int64_t value,
                             int64_t alignment) {
  recordError(ssd::describeMisaligned(operand, dim, value, alignment));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (ready())
    check(state().driver.cuStreamWaitEvent(stream, event, 0),
          "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  CUevent event = nullptr;
  if (ready())
    check(state().driver.cuEventCreate(&event, /*CU_EVENT_DISABLE_TIMING=*/2),
          "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (ready())
    check(state().driver.cuEventDestroy(event), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (ready())
    check(state().driver.cuEventSynchronize(event), "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (ready())
    check(state().driver.cuEventRecord(event, stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  CUdeviceptr pointer = 0;
  if (!ready() || sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    check(state().driver.cuMemAllocManaged(&pointer, sizeBytes,
                                           CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged");
  else
    check(state().driver.cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *ptr, void *stream) {
  // The free is ordered on `stream` after the kernels that use the buffer;
  // cuMemFree is not stream-ordered, so wait for them first.
  if (!ptr || !ready())
    return;
  if (stream &&
      !check(state().driver.cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return;
  check(state().driver.cuMemFree(devicePointer(ptr)), "cuMemFree");
}

// After a recorded failure (a workspace request the caller's buffer cannot
// hold, a layout check) copies and sets are skipped like launches: their
// addresses may be a null workspace.
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (sizeBytes && ready() && !errorRecorded())
    check(state().driver.cuMemcpyAsync(devicePointer(dst), devicePointer(src),
                                       sizeBytes, stream),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (count && ready() && !errorRecorded())
    check(state().driver.cuMemsetD32Async(devicePointer(dst), value, count,
                                          stream),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (count && ready() && !errorRecorded())
    check(state().driver.cuMemsetD16Async(devicePointer(dst), value, count,
                                          stream),
          "cuMemsetD16Async");
}

} // extern "C"

namespace {
CUstream currentStream() {
  ThreadStreams &t = threadStreams;
  if (t.caller)
    return t.caller;
  if (!t.own)
    check(state().driver.cuStreamCreate(&t.own, /*CU_STREAM_DEFAULT=*/0),
          "cuStreamCreate");
  return t.own;
}
} // namespace

//===----------------------------------------------------------------------===//
// Host-side API
//===----------------------------------------------------------------------===//

namespace ssd {
namespace cuda {

namespace {

/// Opens libcuda.so.1, initialises the driver and makes the primary context
/// of device 0 current. Idempotent. False with a one-line reason (no driver,
/// no device, driver error) otherwise.
bool initialize(std::string &error) {
  State &s = state();
  std::call_once(s.once, initializeOnce);
  if (!s.ready) {
    error = s.initError;
    return false;
  }
  // Contexts are per thread; the primary context is shared.
  s.driver.cuCtxSetCurrent(s.context);
  return true;
}

std::string describeDevice() {
  State &s = state();
  if (!s.ready)
    return "no device";
  char name[256] = {0};
  int major = 0, minor = 0;
  s.driver.cuDeviceGetName(name, sizeof(name), s.device);
  s.driver.cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.device);
  s.driver.cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s.device);
  return std::string(name) + " (sm_" + std::to_string(major) +
         std::to_string(minor) + ")";
}

int computeCapability() {
  std::string error;
  if (!initialize(error))
    return 0;
  State &s = state();
  int major = 0, minor = 0;
  if (s.driver.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.device) !=
          CUDA_SUCCESS ||
      s.driver.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s.device) !=
          CUDA_SUCCESS)
    return 0;
  return major * 10 + minor;
}

bool result(CUresult r, const char *what, std::string &error) {
  if (r == CUDA_SUCCESS)
    return true;
  error = std::string(what) + ": " + describe(r);
  return false;
}

void *allocate(size_t bytes, std::string &error) {
  if (!initialize(error))
    return nullptr;
  CUdeviceptr pointer = 0;
  // Zero-byte arrays still get a distinct valid pointer.
  if (!result(state().driver.cuMemAlloc(&pointer, bytes ? bytes : 4),
              "cuMemAlloc", error))
    return nullptr;
  return reinterpret_cast<void *>(pointer);
}

void release(void *device) {
  if (device && state().ready)
    state().driver.cuMemFree(devicePointer(device));
}

bool copyToDevice(void *device, const void *host, size_t bytes,
                  std::string &error) {
  return !bytes ||
         result(state().driver.cuMemcpyHtoD(devicePointer(device), host, bytes),
                "cuMemcpyHtoD", error);
}

bool copyToHost(void *host, const void *device, size_t bytes,
                std::string &error) {
  return !bytes ||
         result(state().driver.cuMemcpyDtoH(host, devicePointer(device), bytes),
                "cuMemcpyDtoH", error);
}

bool copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                        std::string &error) {
  return !bytes || result(state().driver.cuMemcpyDtoD(
                              devicePointer(dst), devicePointer(src), bytes),
                          "cuMemcpyDtoD", error);
}

void setStream(void *stream) {
  threadStreams.caller = static_cast<CUstream>(stream);
}

void setWorkspace(void *device, size_t bytes, int64_t *requested) {
  ThreadStreams &t = threadStreams;
  t.callerWorkspace = devicePointer(device);
  t.callerWorkspaceBytes = requested ? bytes : 0;
  t.requested = requested;
}

bool synchronize(std::string &error) {
  if (!initialize(error))
    return false;
  if (!result(state().driver.cuCtxSynchronize(), "cuCtxSynchronize", error))
    return false;
  error = takeError();
  return error.empty();
}

std::string takeError() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  std::string e;
  std::swap(e, s.firstError);
  return e;
}

std::vector<std::pair<const char *, void *>> runtimeSymbols() {
  return {SSD_MGPU_FUNCTIONS(SSD_MGPU_SYMBOL)};
}

} // namespace

const DeviceRuntime &deviceRuntime() {
  static const DeviceRuntime runtime{
      "cuda",         initialize, describeDevice,     allocate,    release,
      copyToDevice,   copyToHost, copyDeviceToDevice, synchronize, takeError,
      runtimeSymbols, setStream,  computeCapability,  setWorkspace};
  return runtime;
}

} // namespace cuda
} // namespace ssd
