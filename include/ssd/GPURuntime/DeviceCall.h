//===- DeviceCall.h - run a compiled op on device copies of its operands -===//

#ifndef SSD_GPURUNTIME_DEVICECALL_H
#define SSD_GPURUNTIME_DEVICECALL_H

#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/Runner/HostOperands.h"

#include <functional>
#include <string>
#include <vector>

namespace ssd {

/// Calls a compiled op with one memref descriptor pointer per operand.
using CompiledCall =
    std::function<bool(std::vector<void *> &descriptors, std::string &error)>;

/// Copies `operands` to the device of `runtime`, runs `call` on descriptors
/// of the device copies, waits for the GPU, and copies back what the call
/// writes (y, the pool and an 8-bit pool's scales).
/// `seconds` is the wall time of the call and the wait. Errors recorded by
/// the mgpu* runtime during the call are reported.
bool runOnDevice(const DeviceRuntime &runtime, HostOperands &operands,
                 const CompiledCall &call, double &seconds, std::string &error);

/// Calls the C interface (`_mlir_ciface_<name>`) of a compiled op: one
/// pointer argument per operand descriptor.
bool callCInterface(void *function, std::vector<void *> &descriptors,
                    std::string &error);

} // namespace ssd

#endif // SSD_GPURUNTIME_DEVICECALL_H
