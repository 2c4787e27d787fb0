//===- AotCudaDevice.cpp - ahead-of-time executables on the CUDA driver ---===//
//
// libSSDAotCudaDevice.a: links the CUDA runtime (libSSDCudaRuntime.a) under
// an ahead-of-time main (AotDevice.h).
//
//===----------------------------------------------------------------------===//

#include "ssd/AOT/AotDevice.h"

const ssd::DeviceRuntime &ssd::aot::deviceRuntime() {
  return ssd::cuda::deviceRuntime();
}

const char *ssd::aot::deviceLibrary() { return "libSSDAotCudaDevice.a"; }
