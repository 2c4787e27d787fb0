// select-variant KEY CHIP:FORMAT...: registers a dummy gpu-emu function under
// KEY per CHIP:FORMAT, in order, as ssd-compile's objects would, then prints
// the chip ssd::aot::select picks for the emulator's pretended device
// (SSD_GPU_EMULATOR_COMPUTE_CAPABILITY), or its error. For
// test/aot/chips-select.test: the PTX fallback, which objects of the
// emulator (no PTX) cannot reach.
#include "ssd/AOT/AotRegistry.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: select-variant KEY CHIP:FORMAT...\n");
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    std::string spec = argv[i];
    size_t colon = spec.find(':');
    std::string chip = spec.substr(0, colon), format = spec.substr(colon + 1);
    ssd_aot_register_chip_variant(argv[1], reinterpret_cast<void *>(&main), 1,
                                  "gpu-emu", chip.c_str(), format.c_str());
  }
  std::string error;
  const ssd::aot::Variant *v = ssd::aot::select(argv[1], error);
  if (!v) {
    std::printf("error: %s\n", error.c_str());
    return 1;
  }
  std::printf("chip=%s %s\n", v->chip.c_str(), v->format.c_str());
  return 0;
}
