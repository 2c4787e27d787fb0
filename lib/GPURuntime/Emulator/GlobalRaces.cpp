//===- GlobalRaces.cpp - races between blocks in device memory -----------===//

#include "GlobalRaces.h"
#include "Emulator.h"

#include <sys/mman.h>

#include <cstdio>

using namespace ssd::emulator;

GlobalShadow &GlobalShadow::get() {
  static GlobalShadow shadow;
  return shadow;
}

bool GlobalShadow::beginLaunch() {
  if (failed)
    return false;
  if (!table) {
    // Two 8-byte stamps per 4-byte word of the window: 4x its size in
    // address space, touched only where kernels access device memory.
    bytes = DeviceMemory::get().capacity() / 4 * 16;
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      // Run without the check rather than fail every launch.
      failed = true;
      std::fprintf(stderr, "ssd-gpu-emulator: warning: cannot map the shadow "
                           "memory of the cross-block race check; device "
                           "memory is not race-checked between blocks\n");
      return false;
    }
    table = static_cast<std::atomic<uint64_t> *>(p);
  }
  currentTag = currentTag % ((1u << stamp::kTagBits) - 1) + 1;
  if (currentTag == 1)
    madvise(table, bytes, MADV_DONTNEED); // tags start over
  return true;
}

void Knowledge::join(const Knowledge &other) {
  if (other.entries.empty())
    return;
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  merged.reserve(entries.size() + other.entries.size());
  auto a = entries.cbegin();
  auto b = other.entries.cbegin();
  while (a != entries.cend() || b != other.entries.cend()) {
    if (b == other.entries.cend() ||
        (a != entries.cend() && a->first < b->first)) {
      merged.push_back(*a++);
    } else if (a == entries.cend() || b->first < a->first) {
      merged.push_back(*b++);
    } else {
      merged.push_back({a->first, std::max(a->second, b->second)});
      ++a;
      ++b;
    }
  }
  entries = std::move(merged);
}

void Knowledge::set(uint32_t dispatch, uint32_t index) {
  auto it = std::lower_bound(entries.begin(), entries.end(), dispatch,
                             [](const std::pair<uint32_t, uint32_t> &e,
                                uint32_t d) { return e.first < d; });
  if (it != entries.end() && it->first == dispatch)
    it->second = std::max(it->second, index);
  else
    entries.insert(it, {dispatch, index});
}
