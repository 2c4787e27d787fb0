//===- AotRegistry.cpp - functions registered by ssd-compile's objects ----===//

#include "ssd/AOT/AotRegistry.h"
#include "ssd/AOT/AotDevice.h"

#include <cstdlib>

std::map<std::string, std::vector<ssd::aot::Variant>> &ssd::aot::variants() {
  static std::map<std::string, std::vector<Variant>> table;
  return table;
}

const std::vector<ssd::aot::Variant> *ssd::aot::lookup(const std::string &key) {
  auto it = variants().find(key);
  return it == variants().end() ? nullptr : &it->second;
}

/// Called by the global constructors of ssd-compile's objects. A second
/// registration of the same key and chip (the same object linked twice)
/// replaces the first, as one key did before chips.
extern "C" void ssd_aot_register_chip_variant(const char *key, void *function,
                                              int operands, const char *target,
                                              const char *chip,
                                              const char *format) {
  std::vector<ssd::aot::Variant> &list = ssd::aot::variants()[key];
  ssd::aot::Variant v{function, operands, target, chip, format};
  for (ssd::aot::Variant &old : list)
    if (old.chip == v.chip && old.target == v.target) {
      old = v;
      return;
    }
  list.push_back(v);
}

namespace {

/// "sm_90a" -> 90 and architecture-specific; 0 if it is no sm_ chip.
int chipCapability(const std::string &chip, bool &archSpecific) {
  archSpecific = !chip.empty() && chip.back() == 'a';
  if (chip.rfind("sm_", 0) != 0)
    return 0;
  return std::atoi(chip.c_str() + 3);
}

std::string describeCapability(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

} // namespace

// The CUDA binary-compatibility rule: a cubin runs on the same major
// version with an equal or higher minor; sm_XYa code only on X.Y itself.
bool ssd::aot::cubinRunsOn(const std::string &chip, int cc) {
  bool archSpecific;
  int own = chipCapability(chip, archSpecific);
  if (!own)
    return false;
  return archSpecific ? cc == own : cc / 10 == own / 10 && cc >= own;
}

// The driver JIT-compiles PTX for any newer device, except
// architecture-specific PTX (.target sm_90a), which only X.Y accepts.
bool ssd::aot::ptxRunsOn(const std::string &chip, int cc) {
  bool archSpecific;
  int own = chipCapability(chip, archSpecific);
  if (!own)
    return false;
  return archSpecific ? cc == own : cc >= own;
}

const ssd::aot::Variant *ssd::aot::select(const std::string &key,
                                          std::string &error) {
  const std::vector<Variant> *list = lookup(key);
  if (!list || list->empty()) {
    error = "no function registered as '" + key + "'";
    return nullptr;
  }
  // Only the linked runtime's variants; none: say what to compile or link.
  std::vector<const Variant *> mine;
  for (const Variant &v : *list)
    if (v.target == deviceRuntime().name)
      mine.push_back(&v);
  if (mine.empty()) {
    matchesDevice(key, list->front(), error);
    return nullptr;
  }
  // Newest chip first; of equal capability, the architecture-specific one
  // (its code may use sm_90a-only instructions).
  auto newer = [](const Variant *a, const Variant *b) {
    bool aSpecific, bSpecific;
    int ca = chipCapability(a->chip, aSpecific),
        cb = chipCapability(b->chip, bSpecific);
    return ca != cb ? ca > cb : aSpecific && !bSpecific;
  };
  const Variant *best = nullptr;
  int cc = deviceRuntime().computeCapability();
  if (cc == 0) {
    for (const Variant *v : mine)
      if (!best || newer(v, best))
        best = v;
    return best;
  }
  for (const Variant *v : mine)
    if (cubinRunsOn(v->chip, cc) && (!best || newer(v, best)))
      best = v;
  if (best)
    return best;
  for (const Variant *v : mine)
    if ((v->format == "isa" || v->format == "fatbin") &&
        ptxRunsOn(v->chip, cc) && (!best || newer(v, best)))
      best = v;
  if (best)
    return best;
  std::string chips;
  for (const Variant *v : mine)
    chips += (chips.empty() ? "" : ", ") + v->chip + " (" + v->format + ")";
  // The emulator has no PTX to fall back on: only its chip helps there.
  const bool cuda = std::string(deviceRuntime().name) == "cuda";
  error = "no variant of '" + key + "' runs on this " + deviceRuntime().name +
          " device of compute capability " + describeCapability(cc) +
          ": compiled for " + chips +
          "; compile it with `ssd-compile --chip` naming this device's chip" +
          (cuda ? " (or an older one with --format isa or fatbin)" : "");
  return nullptr;
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
