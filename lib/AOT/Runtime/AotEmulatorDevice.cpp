//===- AotEmulatorDevice.cpp - ahead-of-time executables on the emulator --===//
//
// libSSDAotEmulatorDevice.a: links the GPU emulator's runtime
// (libSSDGPUEmulatorRuntime.so) under an ahead-of-time main (AotDevice.h).
// The main reports kernel faults itself (one line), so the emulator's own
// printing is turned off, before the kernel objects' constructors load their
// modules (priority 123).
//
//===----------------------------------------------------------------------===//

#include "ssd/AOT/AotDevice.h"
#include "ssd/GPURuntime/EmulatorReports.h"

namespace {
__attribute__((constructor(101))) void quietEmulator() {
  ssd::emulator::setPrintErrors(false);
}
} // namespace

const ssd::DeviceRuntime &ssd::aot::deviceRuntime() {
  return ssd::emulator::deviceRuntime();
}

const char *ssd::aot::deviceLibrary() { return "libSSDAotEmulatorDevice.a"; }
