//===- GlobalRaces.h - races between blocks in device memory ----*- C++ -*-===//
//
// The cross-block race check of the GPU emulator (docs/gpu.md, "The GPU
// emulator"): which block last wrote and read each 4-byte word of device
// memory in the running launch, and the happens-before between blocks that
// the launch's releases and acquires establish.
//
// Every plain access of a kernel thread is stamped with its launch, block
// (dispatch number: the order blocks start), thread and the thread's fence
// generation (how many fences and releases it executed before the access).
// A release by thread r of block A creates a release record whose
// coverage says, per thread k of A, below which generation k's accesses
// are published by it: all of r's own accesses so far, and those of
// another thread k that k fenced before a block barrier that came before
// the release. A block's knowledge is, per other block, the newest release
// record of it that reached it through acquires (transitively: a release
// carries what its block knew). An access of block B to a word that block
// A accessed in the same launch, one of them writing, is ordered when B
// knows a release of A whose coverage includes A's access; else it is a
// race.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_GLOBALRACES_H
#define SSD_LIB_GPURUNTIME_EMULATOR_GLOBALRACES_H

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ssd {
namespace emulator {

/// One access: [launch tag:12][dispatch:20][thread:10][bytes:4][gen:18];
/// bytes: which bytes of the word it touched (blocks may write different
/// bytes of one word: 16-bit elements); 0 (tag 0) is no access.
namespace stamp {
constexpr unsigned kTagBits = 12, kDispatchBits = 20, kThreadBits = 10,
                   kGenBits = 18;
constexpr uint64_t kMaxDispatch = (uint64_t(1) << kDispatchBits) - 1;
constexpr uint32_t kMaxGen = (uint32_t(1) << kGenBits) - 1;
inline uint64_t make(uint32_t tag, uint64_t dispatch, uint32_t thread,
                     uint32_t gen) {
  return uint64_t(tag) << 52 | dispatch << 32 | uint64_t(thread) << 22 | gen;
}
inline uint64_t withBytes(uint64_t s, uint32_t bytes) {
  return s | uint64_t(bytes) << kGenBits;
}
inline uint32_t tag(uint64_t s) { return uint32_t(s >> 52); }
inline uint32_t dispatch(uint64_t s) {
  return uint32_t(s >> 32) & uint32_t(kMaxDispatch);
}
inline uint32_t thread(uint64_t s) { return uint32_t(s >> 22) & 0x3ff; }
inline uint32_t bytes(uint64_t s) { return uint32_t(s >> kGenBits) & 0xf; }
inline uint32_t gen(uint64_t s) { return uint32_t(s) & kMaxGen; }
} // namespace stamp

/// Per 4-byte word of the device window: the last plain write and the last
/// plain read (by any block) as stamps. A table over the whole window,
/// mapped without reserve, so only the words kernels touch cost memory.
/// Entries of earlier launches carry an older tag: accesses before the
/// launch, which are never races.
class GlobalShadow {
public:
  static GlobalShadow &get();
  /// Starts a launch: a new tag (the table is cleared when tags wrap).
  /// False when the table cannot be mapped (the check is then off).
  bool beginLaunch();
  uint32_t tag() const { return currentTag; }
  /// Writer and reader stamps of the word at window offset `offset`.
  std::atomic<uint64_t> *word(uint64_t offset) const {
    return table + (offset / 4) * 2;
  }

private:
  std::atomic<uint64_t> *table = nullptr;
  uint64_t bytes = 0;
  uint32_t currentTag = 0;
  bool failed = false;
};

/// A release by a block: per thread of the block, the fence generation
/// below which its accesses are published. Records of a block form a list,
/// newest first, and never change once published (they live until the end
/// of the launch).
struct ReleaseRecord {
  uint32_t index; ///< 1, 2, ... within the block
  const ReleaseRecord *previous;
  std::vector<uint32_t> coverage;
};

/// What a block or thread knows of other blocks: per block (dispatch
/// number), the index of its newest release record known. Sorted by
/// dispatch number; immutable once shared.
struct Knowledge {
  std::vector<std::pair<uint32_t, uint32_t>> entries;

  uint32_t of(uint32_t dispatch) const {
    auto it = std::lower_bound(entries.begin(), entries.end(), dispatch,
                               [](const std::pair<uint32_t, uint32_t> &e,
                                  uint32_t d) { return e.first < d; });
    return it != entries.end() && it->first == dispatch ? it->second : 0;
  }
  /// Joins `other` into this (the newer release of each block).
  void join(const Knowledge &other);
  void set(uint32_t dispatch, uint32_t index);
};
using KnowledgeRef = std::shared_ptr<const Knowledge>;
/// Per thread of a block, the generation below which its accesses are
/// covered (GlobalSync.cpp and Scheduler.cpp: a barrier's or a fence's view of
/// the block).
using CoverageRef = std::shared_ptr<const std::vector<uint32_t>>;

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_GLOBALRACES_H
