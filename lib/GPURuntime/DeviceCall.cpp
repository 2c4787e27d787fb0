//===- DeviceCall.cpp - run a compiled op on device copies of its operands ===//

#include "ssd/GPURuntime/DeviceCall.h"

#include <chrono>

using namespace ssd;

bool ssd::runOnDevice(const DeviceRuntime &runtime, HostOperands &operands,
                      const CompiledCall &call, double &seconds,
                      std::string &error) {
  if (!runtime.initialize(error))
    return false;
  std::vector<void *> device;
  struct Release {
    const DeviceRuntime &runtime;
    std::vector<void *> &buffers;
    ~Release() {
      for (void *p : buffers)
        runtime.release(p);
    }
  } releaseAll{runtime, device};
  for (size_t i = 0; i < operands.size(); ++i) {
    void *p = runtime.allocate(operands.bytes(i).size(), error);
    if (!p)
      return false;
    device.push_back(p);
    if (!runtime.copyToDevice(p, operands.bytes(i).data(),
                              operands.bytes(i).size(), error))
      return false;
  }
  std::vector<std::vector<int64_t>> descriptors = operands.descriptors(device);
  std::vector<void *> pointers;
  for (std::vector<int64_t> &d : descriptors)
    pointers.push_back(d.data());

  runtime.takeError(); // start from a clean slate
  auto start = std::chrono::steady_clock::now();
  bool called = call(pointers, error);
  std::string syncError;
  bool synced = runtime.synchronize(syncError);
  seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!called)
    return false;
  if (!synced) {
    error = "the kernels failed: " + syncError;
    return false;
  }
  for (size_t i : operands.writtenIndices())
    if (!runtime.copyToHost(operands.bytes(i).data(), device[i],
                            operands.bytes(i).size(), error))
      return false;
  return true;
}

bool ssd::callCInterface(void *function, std::vector<void *> &d,
                         std::string &error) {
  // Every argument is a pointer to a descriptor; the arity is the number of
  // operands present (8 required + y, up to 9 optional: D, dt_bias,
  // ssm_pool_scales, has_initial_state, update_state, checkpoint_slots,
  // checkpoint_offsets, token_parents, rounding_seed).
  using P = void *;
  switch (d.size()) {
  case 9:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]);
    return true;
  case 10:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9]);
    return true;
  case 11:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10]);
    return true;
  case 12:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10],
        d[11]);
    return true;
  case 13:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10],
        d[11], d[12]);
    return true;
  case 14:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(
        function)(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
                  d[10], d[11], d[12], d[13]);
    return true;
  case 15:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(
        function)(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
                  d[10], d[11], d[12], d[13], d[14]);
    return true;
  case 16:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(
        function)(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
                  d[10], d[11], d[12], d[13], d[14], d[15]);
    return true;
  case 17:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
                              P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10],
        d[11], d[12], d[13], d[14], d[15], d[16]);
    return true;
  case 18:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
                              P)>(function)(
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10],
        d[11], d[12], d[13], d[14], d[15], d[16], d[17]);
    return true;
  default:
    error = "internal error: a compiled op takes 9 to 18 operands, got " +
            std::to_string(d.size());
    return false;
  }
}
