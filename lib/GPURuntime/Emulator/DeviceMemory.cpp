//===- DeviceMemory.cpp - device memory the host cannot touch -------------===//

#include "Emulator.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace ssd::emulator;

namespace {

uint64_t pageSize() {
  static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
  return size;
}

uint64_t roundUp(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }

std::string formatBytes(uint64_t bytes) {
  char text[64];
  if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
    std::snprintf(text, sizeof(text), "%" PRIu64 " GiB", bytes >> 30);
  else
    std::snprintf(text, sizeof(text), "%" PRIu64 " bytes", bytes);
  return text;
}

} // namespace

DeviceMemory &DeviceMemory::get() {
  static DeviceMemory memory;
  return memory;
}

bool DeviceMemory::initialize(std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  if (fd >= 0)
    return true;
  size = roundUp(settings().memory, pageSize());
  limit = size;
  int file = memfd_create("ssd-gpu-emulator-device-memory", MFD_CLOEXEC);
  if (file < 0 || ftruncate(file, off_t(size)) != 0) {
    error = std::string("cannot create the emulated device memory: ") +
            std::strerror(errno);
    if (file >= 0)
      close(file);
    return false;
  }
  // Both windows start inaccessible; allocations open their pages in the
  // host window only.
  void *device =
      mmap(nullptr, size, PROT_NONE, MAP_SHARED | MAP_NORESERVE, file, 0);
  void *host =
      mmap(nullptr, size, PROT_NONE, MAP_SHARED | MAP_NORESERVE, file, 0);
  if (device == MAP_FAILED || host == MAP_FAILED) {
    error = "cannot map " + formatBytes(size) +
            " of emulated device memory (set SSD_GPU_EMULATOR_MEMORY lower)";
    close(file);
    return false;
  }
  fd = file;
  deviceBase = reinterpret_cast<uintptr_t>(device);
  hostBase = reinterpret_cast<uintptr_t>(host);
  freeRanges[0] = size;
  return true;
}

void *DeviceMemory::allocate(uint64_t bytes, std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes == 0)
    return nullptr;
  const uint64_t pages = roundUp(bytes, pageSize());
  const uint64_t needed = pages + pageSize(); // guard page after it
  if (used + pages > limit) {
    error = "out of device memory: " + std::to_string(bytes) +
            " bytes requested, " + std::to_string(used) + " of " +
            formatBytes(limit) + " in use";
    return nullptr;
  }
  auto it = std::find_if(freeRanges.begin(), freeRanges.end(),
                         [&](const auto &r) { return r.second >= needed; });
  if (it == freeRanges.end()) {
    error = "out of device memory: no free range of " + std::to_string(needed) +
            " bytes (fragmented)";
    return nullptr;
  }
  uint64_t offset = it->first, rest = it->second - needed;
  freeRanges.erase(it);
  if (rest)
    freeRanges[offset + needed] = rest;
  char *host = reinterpret_cast<char *>(hostBase + offset);
  if (mprotect(host, pages, PROT_READ | PROT_WRITE) != 0) {
    error = std::string("cannot map device memory: ") + std::strerror(errno);
    freeRanges[offset] = needed;
    return nullptr;
  }
  std::memset(host, 0xff, pages);
  used += pages;
  DeviceRange range{deviceBase + offset, deviceBase + offset + bytes, nextId++};
  live.insert(std::upper_bound(live.begin(), live.end(), range,
                               [](const DeviceRange &a, const DeviceRange &b) {
                                 return a.begin < b.begin;
                               }),
              range);
  mapped[range.begin] = pages;
  return reinterpret_cast<void *>(range.begin);
}

bool DeviceMemory::release(void *device) {
  std::lock_guard<std::mutex> lock(mutex);
  uintptr_t begin = reinterpret_cast<uintptr_t>(device);
  auto it = std::find_if(live.begin(), live.end(), [&](const DeviceRange &r) {
    return r.begin == begin;
  });
  if (it == live.end())
    return false;
  live.erase(it);
  uint64_t pages = mapped[begin];
  mapped.erase(begin);
  uint64_t offset = begin - deviceBase;
  char *host = reinterpret_cast<char *>(hostBase + offset);
  mprotect(host, pages, PROT_NONE);
  // Give the pages back to the system; the next allocation here starts from
  // fresh zero pages (then filled with 0xff).
  fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset),
            off_t(pages));
  used -= pages;
  uint64_t bytes = pages + pageSize();
  auto next = freeRanges.lower_bound(offset);
  if (next != freeRanges.end() && next->first == offset + bytes) {
    bytes += next->second;
    freeRanges.erase(next);
  }
  auto previous = freeRanges.lower_bound(offset);
  if (previous != freeRanges.begin()) {
    --previous;
    if (previous->first + previous->second == offset) {
      previous->second += bytes;
      return true;
    }
  }
  freeRanges[offset] = bytes;
  return true;
}

const DeviceRange *DeviceMemory::find(uintptr_t address) {
  auto it = std::upper_bound(
      live.begin(), live.end(), address,
      [](uintptr_t a, const DeviceRange &r) { return a < r.begin; });
  if (it == live.begin())
    return nullptr;
  --it;
  return address <= it->end ? &*it : nullptr;
}

char *DeviceMemory::translate(uintptr_t address, uint64_t bytes,
                              std::string &why) {
  // An access that starts right at the end of an allocation (one element
  // past it) is reported against that allocation, with its size.
  const DeviceRange *range = find(address);
  if (!range) {
    why = "is not in any live allocation (freed, or never allocated)";
    return nullptr;
  }
  if (bytes > range->end - address) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "runs %" PRIu64 " bytes past the end of a %" PRIu64
                  "-byte allocation (offset %" PRIu64 ")",
                  address + bytes - range->end, range->end - range->begin,
                  address - range->begin);
    why = text;
    return nullptr;
  }
  return reinterpret_cast<char *>(hostBase + (address - deviceBase));
}

void DeviceMemory::describe(uintptr_t address, char *buffer,
                            size_t length) const {
  for (const DeviceRange &r : live)
    if (address >= r.begin && address < r.end) {
      std::snprintf(buffer, length,
                    "offset %" PRIu64 " of a %" PRIu64 "-byte allocation",
                    uint64_t(address - r.begin), uint64_t(r.end - r.begin));
      return;
    }
  std::snprintf(buffer, length, "not in any live allocation");
}
