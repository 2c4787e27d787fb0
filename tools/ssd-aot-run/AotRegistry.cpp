//===- AotRegistry.cpp - functions registered by ssd-compile's objects ----===//

#include "AotRegistry.h"
#include "AotDevice.h"

std::map<std::string, ssd::aot::Variant> &ssd::aot::variants() {
  static std::map<std::string, Variant> table;
  return table;
}

const ssd::aot::Variant *ssd::aot::lookup(const std::string &key) {
  auto it = variants().find(key);
  return it == variants().end() ? nullptr : &it->second;
}

/// Called by the global constructors of ssd-compile's objects.
extern "C" void ssd_aot_register_variant(const char *key, void *function,
                                         int operands, const char *target) {
  ssd::aot::variants()[key] = {function, operands, target};
}

bool ssd::aot::matchesDevice(const std::string &key, const Variant &v,
                             std::string &error) {
  const std::string linked = deviceRuntime().name;
  if (v.target == linked)
    return true;
  error = "'" + key + "' was compiled for --target " + v.target +
          " but this executable runs on " + linked + " (linked with " +
          deviceLibrary() + "): compile it with `ssd-compile --target " +
          linked + "` or link " +
          (v.target == "gpu-emu"
               ? "libSSDAotEmulatorDevice.a and libSSDGPUEmulatorRuntime.so"
               : "libSSDAotCudaDevice.a and libSSDCudaRuntime.a");
  return false;
}
