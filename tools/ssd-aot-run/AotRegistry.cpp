//===- AotRegistry.cpp - functions registered by ssd-compile's objects ----===//

#include "AotRegistry.h"

std::map<std::string, ssd::aot::Variant> &ssd::aot::variants() {
  static std::map<std::string, Variant> table;
  return table;
}

const ssd::aot::Variant *ssd::aot::lookup(const std::string &key) {
  auto it = variants().find(key);
  return it == variants().end() ? nullptr : &it->second;
}

/// Called by the global constructors of ssd-compile's objects.
extern "C" void ssd_aot_register(const char *key, void *function,
                                 int operands) {
  ssd::aot::variants()[key] = {function, operands};
}
