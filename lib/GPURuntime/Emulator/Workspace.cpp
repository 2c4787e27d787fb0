//===- Workspace.cpp - the per-call workspace and streams on the emulator -===//
//
// The emulator's side of the contract in DeviceRuntime.h: a workspace
// buffer per host thread, grown when a call needs more. Launches complete
// when they are issued, so a stream is only a handle here and the caller's
// stream (setStream) changes nothing but what mgpuStreamCreate returns.
//
//===----------------------------------------------------------------------===//

#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/GPURuntime/EmulatorReports.h"

#include "Emulator.h"

#include <algorithm>

using namespace ssd::emulator;

namespace {

struct ThreadWorkspace {
  void *pointer = nullptr;
  uint64_t bytes = 0;
  /// The caller's buffer (DeviceRuntime::setWorkspace), used instead while
  /// `requested` is set.
  void *caller = nullptr;
  uint64_t callerBytes = 0;
  int64_t *requested = nullptr;
};
thread_local ThreadWorkspace workspace;

} // namespace

extern "C" void _mlir_ciface_ssdGPUWorkspace(void *result, int64_t bytes) {
  auto *descriptor = static_cast<int64_t *>(result);
  std::fill(descriptor, descriptor + 5, 0);
  std::string error;
  if (!initialize(error)) {
    reportError(error);
    return;
  }
  if (workspace.requested) {
    int64_t want = bytes < 0 ? 0 : bytes;
    *workspace.requested = std::max(*workspace.requested, want);
    if (uint64_t(want) > workspace.callerBytes) {
      reportError(ssd::describeWorkspaceTooSmall(want, workspace.callerBytes));
      return;
    }
    descriptor[0] = descriptor[1] = reinterpret_cast<int64_t>(workspace.caller);
    descriptor[3] = want;
    descriptor[4] = 1;
    return;
  }
  uint64_t needed = std::max<uint64_t>(bytes < 0 ? 0 : uint64_t(bytes), 256);
  if (workspace.bytes < needed) {
    // Every earlier launch has completed: the old buffer is free.
    if (workspace.pointer)
      DeviceMemory::get().release(workspace.pointer);
    workspace = {};
    void *pointer = DeviceMemory::get().allocate(needed, error);
    if (!pointer) {
      reportError("workspace of " + std::to_string(needed) +
                  " bytes: " + error);
      return;
    }
    workspace = {pointer, needed};
    counters().workspaceAllocations++;
  }
  // StridedMemRefType<int8_t, 1>: allocated, aligned, offset, size, stride.
  descriptor[0] = descriptor[1] = reinterpret_cast<int64_t>(workspace.pointer);
  descriptor[3] = bytes < 0 ? 0 : bytes;
  descriptor[4] = 1;
}

extern "C" void ssdGPUMisalignedOperand(int32_t operand, int32_t dim,
                                        int64_t value, int64_t alignment) {
  reportError(ssd::describeMisaligned(operand, dim, value, alignment));
}

void ssd::emulator::setCallerWorkspace(void *device, size_t bytes,
                                       int64_t *requested) {
  workspace.caller = device;
  workspace.callerBytes = requested ? bytes : 0;
  workspace.requested = requested;
}
