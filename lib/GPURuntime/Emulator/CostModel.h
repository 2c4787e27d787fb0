//===- CostModel.h - the emulator's cost model ------------------*- C++ -*-===//
//
// What one warp-level memory instruction costs, as plain functions of the
// lanes' addresses (no threads, no state), and the access records they are
// computed from. The executor buffers each lane's accesses, groups them into
// warp-level instructions at the next warp or block synchronisation and
// calls these (AccessGrouping.cpp); the per-kernel and per-launch store of
// the counters is above the executor (CostStore.h).
//
// Rules (docs/gpu.md, "Cost counters"):
//  - shared memory has 32 banks of 4-byte words; a warp-level access is
//    served in phases of 128 bytes: all 32 lanes for accesses of up to 4
//    bytes, half-warps (lanes 0-15, 16-31) for 8 bytes, quarter-warps for 16
//    bytes; a phase takes as many wavefronts as the largest number of
//    distinct words any one bank holds among the lanes' words (lanes reading
//    one word share it: a broadcast costs nothing more); wider accesses
//    (memcpy) are cut into 16-byte pieces, each its own access;
//  - an ldmatrix reads each 8x8 matrix (8 rows of 16 bytes) in one phase;
//  - global memory: the distinct 32-byte sectors the lanes' bytes touch.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_COSTMODEL_H
#define SSD_LIB_GPURUNTIME_EMULATOR_COSTMODEL_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssd {
namespace emulator {

/// What a buffered access was, for grouping and counting.
enum class AccessKind : uint8_t {
  SharedLoad,
  SharedStore,
  SharedAtomic,
  SharedCpAsync, ///< the shared destination of a cp.async
  GlobalLoad,
  GlobalStore,
  GlobalAtomic,
  GlobalCpAsync, ///< the global source of a cp.async (0 bytes: none read)
};
constexpr unsigned kAccessKinds = 8;

inline bool isShared(AccessKind kind) {
  return kind <= AccessKind::SharedCpAsync;
}

/// The access profile's counts of one call site and AccessKind (at
/// site * kAccessKinds + kind): warp-level instructions, bytes requested,
/// and shared wavefronts or global sectors.
struct SiteTraffic {
  uint64_t instructions = 0, bytes = 0, transactions = 0;
};

/// One lane's access, buffered until its warp's next synchronisation.
/// Shared addresses are offsets in the block's shared memory, global ones
/// device addresses.
struct AccessRecord {
  uint64_t address;
  uint32_t site;
  uint32_t bytes : 24;
  uint32_t kind : 8;
};

/// One lane's part of a warp-level instruction.
struct LaneAccess {
  uint64_t address;
  uint32_t bytes;
  uint32_t lane;
};

/// Wavefronts of a shared-memory access by the lanes in `accesses` (in
/// increasing lane order), under the rules above; adds the phases it was
/// served in (the wavefronts without bank conflicts) to `phases`.
uint64_t sharedWavefronts(const LaneAccess *accesses, size_t count,
                          uint64_t &phases);

/// Wavefronts of an ldmatrix: `rows` holds the byte offsets of the 8 rows of
/// each of `matrices` matrices.
uint64_t ldmatrixWavefronts(const uint64_t *rows, unsigned matrices);

/// Set of 32-byte sectors of device memory (an open-addressing hash table of
/// 64-sector bitmaps).
class SectorSet {
public:
  void insert(uint64_t sector);
  /// Sectors first..last.
  void insertRange(uint64_t first, uint64_t last);
  void merge(const SectorSet &other);
  uint64_t count() const;
  void clear();
  bool empty() const { return used == 0; }

private:
  struct Entry {
    uint64_t key; ///< (sector / 64) + 1; 0: empty
    uint64_t bits;
  };
  std::vector<Entry> table;
  size_t used = 0;
  Entry *last_ = nullptr; ///< the entry of the previous insert
  Entry &find(uint64_t key);
  void grow();
};

/// Distinct 32-byte sectors of the lanes' global accesses; adds them to
/// `sectors` when it is not null.
uint64_t globalSectors(const LaneAccess *accesses, size_t count,
                       SectorSet *sectors);

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_COSTMODEL_H
