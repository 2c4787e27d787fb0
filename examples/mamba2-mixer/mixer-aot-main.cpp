//===- mixer-aot-main.cpp - the Mamba-2 mixer on the GPU, ahead of time ---===//
//
// The main of the mixer's ahead-of-time GPU executable (libSSDMixerAotMain.a):
// linked with the object that `ssd-compile --module mixer.mlir [--target T]`
// writes, a device selection library with its runtime
// (ssd/AOT/AotDevice.h) and libSSDRunner.a, it runs the compiled
// mixer with no LLVM or MLIR and checks it like mixer-run does on the CPU
// (MixerHarness.cpp):
//
//   mixer.o libSSDMixerAotMain.a libSSDAotCudaDevice.a libSSDCudaRuntime.a
//       libSSDRunner.a -ldl              on a GPU (the NVIDIA driver only)
//   mixer.o libSSDMixerAotMain.a libSSDAotEmulatorDevice.a
//       libSSDGPUEmulatorRuntime.so libSSDRunner.a
//                                        on the GPU emulator
//
//   mixer-aot [--dtype bf16|f16|f32] [--seqlens 1,40,...] [--seed N]
//             [--wrong-expected]
//
// It uploads the inputs, calls `module:mamba2_mixer_ssm` through its C
// interface, whose first argument is the descriptor of the returned memref:
// a device buffer the function allocated, which this copies back and frees.
// The pool is updated in place on the device and copied back. Prints the
// errors and PASS or FAIL (exit code 1). --dtype must be the model dtype the
// module was compiled at (bf16 for mixer.mlir as written; mixer-run's
// instantiation with `!model = f16`, or `!model = f32` and
// `!compute = f64`, for the others): the object does not record it.
//
//===----------------------------------------------------------------------===//

#include "MixerHarness.h"
#include "ssd/AOT/AotDevice.h"
#include "ssd/AOT/AotRegistry.h"
#include "ssd/GPURuntime/DeviceCall.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *const kFunction = "mamba2_mixer_ssm";

int fail(const std::string &message) {
  std::fprintf(stderr, "mixer-aot: %s\n", message.c_str());
  return 1;
}

/// Device buffers freed on every path.
struct DeviceBuffers {
  const ssd::DeviceRuntime &runtime;
  std::vector<void *> pointers;
  ~DeviceBuffers() {
    for (void *p : pointers)
      runtime.release(p);
  }
};

} // namespace

int main(int argc, char **argv) {
  std::vector<int32_t> seqlens = {1, 40, 1, 0, 23, 1, 7};
  uint64_t seed = 1;
  bool wrongExpected = false;
  ssd::ModelDType dt = ssd::ModelDType::BF16;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--seqlens" && i + 1 < argc) {
      if (!ssd::mixer::parseSeqlens(argv[++i], seqlens))
        return fail("--seqlens takes a comma-separated list of lengths");
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--dtype" && i + 1 < argc) {
      if (!ssd::parseModelDType(argv[++i], dt))
        return fail("--dtype takes f32, f16 or bf16");
    } else if (arg == "--wrong-expected") {
      wrongExpected = true;
    } else {
      return fail("unknown argument " + arg +
                  "\nusage: mixer-aot [--dtype bf16|f16|f32] "
                  "[--seqlens L0,L1,...] [--seed N] [--wrong-expected]");
    }
  }
  const std::string key = std::string("module:") + kFunction;
  if (!ssd::aot::lookup(key))
    return fail("no function registered as '" + key +
                "' (link the object of `ssd-compile --module mixer.mlir`)");
  std::string error;
  // The variant for this device's chip (one per --chip of ssd-compile).
  const ssd::aot::Variant *v = ssd::aot::select(key, error);
  if (!v)
    return fail(error);
  if (v->operands != 9)
    return fail(key + " takes " + std::to_string(v->operands) +
                " operands, expected 9 (result and 8 arguments)");

  const ssd::mixer::Shapes s = ssd::mixer::mamba2Shapes();
  ssd::mixer::Inputs inputs = ssd::mixer::makeInputs(s, dt, seqlens, seed);
  std::vector<ssd::mixer::HostArray> arrays =
      ssd::mixer::operandArrays(s, inputs, dt);

  const ssd::DeviceRuntime &rt = ssd::aot::deviceRuntime();
  if (!rt.initialize(error))
    return fail(error);
  DeviceBuffers device{rt, {}};
  std::vector<int64_t> result(7, 0);
  std::vector<void *> descriptors = {result.data()};
  for (ssd::mixer::HostArray &a : arrays) {
    // Never a null base: an empty operand still gets a (1-byte) buffer.
    void *p = rt.allocate(a.bytes.empty() ? 1 : a.bytes.size(), error);
    if (!p)
      return fail(error);
    device.pointers.push_back(p);
    if (!a.bytes.empty() &&
        !rt.copyToDevice(p, a.bytes.data(), a.bytes.size(), error))
      return fail(error);
    descriptors.push_back(a.describe(p));
  }

  rt.takeError(); // start from a clean slate
  if (!ssd::callCInterface(v->function, descriptors, error))
    return fail(error);
  if (!rt.synchronize(error))
    return fail("the kernels failed: " + error);
  std::string runtimeError = rt.takeError();
  if (!runtimeError.empty())
    return fail("the call failed: " + runtimeError);
  if (result[0])
    device.pointers.push_back(reinterpret_cast<void *>(result[0]));

  const int64_t dInner = s.H * s.P;
  if (result[3] != inputs.T || result[4] != dInner)
    return fail("result has shape [" + std::to_string(result[3]) + ", " +
                std::to_string(result[4]) + "], expected [" +
                std::to_string(inputs.T) + ", " + std::to_string(dInner) + "]");
  std::vector<uint8_t> outBytes(ssd::mixer::outputExtent(result.data(), dt));
  if (!outBytes.empty() &&
      !rt.copyToHost(outBytes.data(), reinterpret_cast<const void *>(result[1]),
                     outBytes.size(), error))
    return fail(error);
  std::vector<float> out =
      ssd::mixer::readOutput(outBytes.data(), result.data(), s, inputs, dt);
  std::vector<float> poolOut(inputs.pool.size());
  if (!rt.copyToHost(poolOut.data(), device.pointers[4],
                     poolOut.size() * sizeof(float), error))
    return fail(error);

  std::printf("mixer-aot: %s on %s, chip=%s\n", key.c_str(),
              rt.describeDevice().c_str(), v->chip.c_str());
  bool pass =
      ssd::mixer::check(s, inputs, dt, out, poolOut, kFunction,
                        std::string("target=") + rt.name, wrongExpected);
  return pass ? 0 : 1;
}
