//===- ChunkedPlan.h - the chunked GPU kernels' plan -----------*- C++ -*-===//
//
// The chunked kernels' plan: from the static extents, the model type and the
// chunk size, the tiles, warp layouts, fused modes and shared-memory layout
// of every block role. The kernels, the shared-memory check of LowerToGPU
// and the form selection read the same plan, so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDPLAN_H
#define SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDPLAN_H

#include "GPUBuilders.h"

namespace mlir {
namespace ssd {
namespace detail {

/// Threads per block of launches 1 and 2, and of launch 3.
inline constexpr int64_t kChunkThreads = 256;
inline constexpr int64_t kOutputThreads = 128;
/// Rows of a chunk per C Bᵀ tile and per output block.
inline constexpr int64_t kRowTile = 64;
/// Extent of the reduction dimension staged per pipeline step.
inline constexpr int64_t kStep = 32;
/// Columns of a panel of a wgmma operand staged in panels: 64 16-bit values,
/// one 128-byte row of the 128-byte swizzle.
inline constexpr int64_t kPanelCols = 64;
/// Most f32 accumulators per thread in a matmul tile; wider chunk-state
/// tiles are split over several blocks (state parts).
inline constexpr int64_t kMaxAccumulators = 64;
/// State elements per thread in state passing and the final stores.
inline constexpr int64_t kStateVector = 4;

inline int64_t roundUp(int64_t v, int64_t m) {
  return llvm::divideCeil(v, m) * m;
}

/// The shared memory one kernel of a form needs, for diagnostics.
struct KernelSharedMemory {
  StringRef kernel;
  int64_t bytes;
};

/// The shared-memory layout of each block role; the kernels and the
/// shared-memory check both use it.
struct ChunkRoleShared {
  int64_t locateScratch, chunkedScratch, located, scanHi, scanLo, lastCum,
      scale;
  int64_t xHigh, xLow, bHigh, bLow;
  /// Fused output (0 without): per chunk token, [tokenSlots] f32 each, the
  /// compensated cum (hi, lo), d and exp(cum); the output's A stages (W,
  /// [outputRows x kStep]), over the dS operand tiles; then, resident,
  /// S_prev as the mma element [paddedP x reductionN] and the chunk's x
  /// [tokenSlots x paddedP], which the dS steps deposit as they stage x and
  /// the output reads as its B operand and for D x (x leaves L2 once).
  int64_t tokenSlots, cumHi, cumLo, dt, rowDecay;
  int64_t outA, sPrev, xResident;
  int64_t bytes;
};
struct CBRoleShared {
  int64_t locateScratch, located, cHigh, cLow, bHigh, bLow;
  /// With wgmma (cbWgmma) the tiles' offsets are congruent modulo
  /// kWgmmaTileAlignment and the kernel adds one shift, found at run time,
  /// that puts them on such a boundary of the shared window; `bytes`
  /// leaves room for it.
  int64_t bytes;
};
struct OutputRoleShared {
  int64_t rowHi, rowLo, rowDecay, aHigh, aLow, bHigh, bLow;
  int64_t bytes;
};

/// What the kernels derive from the static extents, the model type and the
/// chunk size.
struct ChunkedPlan {
  StaticExtents x;
  int64_t chunkSize;
  MmaElement element;
  bool split;         // f32 model: hi/lo operands
  int64_t paddedP;    // P rounded up to 16: rows of dS, columns of y
  int64_t reductionN; // N rounded up to kStep: k of C Bᵀ and C S_prevᵀ
  int64_t stateParts; // blocks per (chunk, head) for dS, each stateCols
  int64_t stateCols;  //   columns of N (a multiple of 16)
  WarpLayout stateWarps, cbWarps, outputWarps;
  /// C Bᵀ by wgmma (sm_90a): each of the block's warpgroups computes its
  /// share of the 64x64 tile's columns (32 of two, 16 of four).
  bool cbWgmma;
  /// dS by wgmma (sm_90a, P of 49 to 64 and a part of 128 state columns):
  /// each warpgroup computes a 64x64 half, from an x tile of 128-byte rows
  /// and a B tile staged as two 64-column panels. Its x and B tiles follow
  /// the alignment rule of the C Bᵀ role's (CBRoleShared).
  bool stateWgmma;
  /// The fused output's passes by wgmma (with stateWgmma, 128-row passes):
  /// each warpgroup computes 64 rows x P of y; S_prev is staged as
  /// 64-column panels, [n / 64][p][n % 64]; its tiles, the output's A
  /// stages and the resident x follow the same alignment rule.
  bool outputWgmma = false;
  int64_t tokensPerThread; // ceil(L / kChunkThreads) in the cumsum
  /// Heads per block of launch 1's state role: 2 (pair-heads, with
  /// outputWgmma and an even number of heads per group, where two heads'
  /// shared memory fits) or 1. Each head of a pair is a team of
  /// kChunkThreads threads running the one-head code in lockstep with the
  /// other (the same chunk, so the same loops and barriers), on its own
  /// copy of chunkShared at headStride bytes (a multiple of
  /// kWgmmaTileAlignment); the chunk's B stages (dS) and C stages (the
  /// output's C·S_prevᵀ) are the first copy's, staged once by the whole
  /// block. The C·Bᵀ and map roles run on the whole block.
  int64_t headsPerBlock = 1;
  int64_t headStride = 0;
  /// Threads per block of launch 1: kChunkThreads per head.
  int64_t chunkThreads = kChunkThreads;
  /// Fused state passing (16-bit models): launch 2 goes away. Fused output
  /// (with it, when one block holds a chunk's whole state and the shared
  /// memory fits): each (chunk, head) block also computes y, outputRows
  /// rows at a time, and launch 3 only stores final states.
  bool fused, fusedOutput;
  int64_t outputRows;
  WarpLayout fusedOutputWarps;
  ChunkRoleShared chunkShared;
  CBRoleShared cbShared;
  OutputRoleShared outputShared;
  int64_t launch1Bytes, launch3Bytes;
  /// Blocks of launch 1 that its code asks ptxas to fit on one SM
  /// (ssd.kernel_occupancy), 0 for no request. The fused chunk kernel is
  /// sized for two (16 warps per SM): its y passes take registers that
  /// ptxas, left alone, spends up to one block per SM. So is the f32 chunk
  /// kernel at up to 32 state accumulators per thread.
  int64_t launch1BlocksPerSM = 0;

  /// True when options.fusedOutput asked for the fused output and the
  /// shared memory could not hold it (launch 3 then computes y): the plan's
  /// readers record it rather than the kernels deciding alone.
  bool fusedOutputDoesNotFit = false;

  ChunkedPlan(const StaticExtents &x, Type modelType, int64_t chunkSize,
              const LowerToGPUOptions &options);

  /// Shared memory per block of each launch (launch 3's only when it
  /// computes y), as the kernels will request it.
  SmallVector<KernelSharedMemory> sharedMemory() const;
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDPLAN_H
