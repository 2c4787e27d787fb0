//===- AotDevice.h - the runtime an ahead-of-time executable runs on -----===//
//
// The mains of ahead-of-time executables (AotRunner.cpp, the mixer's
// mixer-aot-main.cpp) reach the GPU only through the DeviceRuntime table
// returned by ssd::aot::deviceRuntime(). Which table is chosen at link time,
// by one of two tiny static libraries:
//
//   libSSDAotCudaDevice.a      the CUDA driver (with libSSDCudaRuntime.a)
//   libSSDAotEmulatorDevice.a  the GPU emulator (with
//                              libSSDGPUEmulatorRuntime.so)
//
// Linking neither leaves `ssd::aot::deviceRuntime()` undefined. The objects
// of `ssd-compile --target T` must match: their kernels are PTX/cubin for
// cuda and host shared objects for gpu-emu (matchesDevice).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_AOT_AOTDEVICE_H
#define SSD_AOT_AOTDEVICE_H

#include "ssd/GPURuntime/DeviceRuntime.h"

#include <string>

namespace ssd {
namespace aot {

/// The runtime this executable was linked with; its `name` is "cuda" or
/// "gpu-emu". Runtime errors are reported through takeError()/synchronize()
/// (the emulator's own printing is turned off).
const DeviceRuntime &deviceRuntime();

/// The library that selects it, for messages.
const char *deviceLibrary();

struct Variant;

/// False, with a message saying what to compile or link, when the function
/// registered under `key` was compiled for another target than the linked
/// runtime.
bool matchesDevice(const std::string &key, const Variant &v,
                   std::string &error);

} // namespace aot
} // namespace ssd

#endif // SSD_AOT_AOTDEVICE_H
