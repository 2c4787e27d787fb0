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
#include "ssd/Transforms/FormSelection.h"

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
/// State elements per thread in state passing and the final stores (the
/// rule of auto reads the same numbers: FormSelection.h).
inline constexpr int64_t kStateVector = kGPUChunkedStateVector;

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
  /// With C·Bᵀ in the block (outA then holds the pass's C, one slot per
  /// k-step of N): the W tile [outputRows x kStep] and the ring of B rows,
  /// [kStep x kStep] per k-step of N and stage.
  int64_t outW, outB;
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

/// What the kernels derive from the static extents, the model type, the
/// chunk size and the config's choices (#ssd.scan_config): tiles, warp
/// layouts and the shared-memory layout of every block role.
struct ChunkedPlan {
  StaticExtents x;
  int64_t chunkSize;
  /// The config's choices the layout follows.
  ChunkedKernelChoices choices;
  MmaElement element;
  bool split;         // f32 model: hi/lo operands
  int64_t paddedP;    // P rounded up to 16: rows of dS, columns of y
  int64_t reductionN; // N rounded up to kStep: k of C Bᵀ and C S_prevᵀ
  int64_t stateParts; // blocks per (chunk, head) for dS, each stateCols
  int64_t stateCols;  //   columns of N (a multiple of 16)
  WarpLayout stateWarps, cbWarps, outputWarps;
  /// C Bᵀ by wgmma (matmul = wgmma): each of the block's warpgroups
  /// computes its share of the 64x64 tile's columns (32 of two, 16 of four).
  bool cbWgmma;
  /// dS by wgmma (matmul = wgmma, P of 49 to 64 and a part of 128 state
  /// columns): each warpgroup computes a 64x64 half, from an x tile of
  /// 128-byte rows and a B tile staged as two 64-column panels. Its x and B
  /// tiles follow the alignment rule of the C Bᵀ role's (CBRoleShared).
  bool stateWgmma;
  /// The fused output's passes by wgmma (with stateWgmma, 128-row passes):
  /// each warpgroup computes 64 rows x P of y; S_prev is staged as
  /// 64-column panels, [n / 64][p][n % 64]; its tiles, the output's A
  /// stages and the resident x follow the same alignment rule.
  bool outputWgmma = false;
  /// C·Bᵀ in the block (cb_in_block, with outputWgmma and one head a block):
  /// each W step's C·Bᵀ is the warpgroup's m64n32 chain over N, from the
  /// pass's resident C and the step's B rows; launch 1 has no C·Bᵀ role.
  bool cbInBlock = false;
  int64_t tokensPerThread; // ceil(L / kChunkThreads) in the cumsum
  /// Heads per block of launch 1's state role (heads_per_block). Each head
  /// of a block of several is a team of kChunkThreads threads running the
  /// one-head code in lockstep with the others (the same chunk, so the same
  /// loops and barriers), on its own copy of chunkShared at headStride bytes
  /// (a multiple of kWgmmaTileAlignment); the chunk's B stages (dS) and C
  /// stages (the output's C·S_prevᵀ) are the first copy's, staged once by
  /// the whole block. The C·Bᵀ and map roles run on the whole block.
  int64_t headsPerBlock = 1;
  int64_t headStride = 0;
  /// Threads per block of launch 1: kChunkThreads per head.
  int64_t chunkThreads = kChunkThreads;
  /// Fused state passing (fusion = state, 16-bit models): launch 2 goes
  /// away. Fused output (fusion = state_and_output, one state part): each
  /// (chunk, head) block also computes y, outputRows rows at a time, and
  /// launch 3 only stores final states.
  bool fused, fusedOutput;
  int64_t outputRows;
  WarpLayout fusedOutputWarps;
  FragmentLoads fragmentLoads;
  bool asyncCopies; // staging = cp_async
  /// Shared-memory stages of every pipelined reduction's staged operands
  /// (pipeline_stages): the copies of a step are issued stages - 1 steps
  /// before it reads them (MmaPipeline.cpp, pipelinedReduction).
  int64_t stages;
  ChunkRoleShared chunkShared;
  CBRoleShared cbShared;
  OutputRoleShared outputShared;
  int64_t launch1Bytes, launch3Bytes;
  /// Blocks of launch 1 that its code asks ptxas to fit on one SM
  /// (ssd.kernel_occupancy, blocks_per_sm), 0 for no request.
  int64_t launch1BlocksPerSM = 0;

  ChunkedPlan(const StaticExtents &x, Type modelType, int64_t chunkSize,
              const ChunkedKernelChoices &choices);

  /// Why the kernels cannot honour the choices for these shapes (state
  /// parts that do not divide N's tiles or leave too many accumulators,
  /// several heads per block or C·Bᵀ in the block without the fused output
  /// on wgmma), as the one-line diagnostic of `owner`, or nothing.
  std::optional<std::string> whyNotHonoured(StringRef owner) const;

  /// Shared memory per block of each launch (launch 3's only when it
  /// computes y), as the kernels will request it.
  SmallVector<KernelSharedMemory> sharedMemory() const;
  /// The largest of them: the config's shared_memory.
  int64_t maxSharedMemory() const;

private:
  ChunkRoleShared placeChunkRole(bool withOutput, int64_t blockWarps) const;
  void placeCBRole(int64_t blockWarps);
  void placeOutputRole();
  /// An operand tile and, for f32 models, its low-half copy (0 without).
  std::pair<int64_t, int64_t> highLow(SharedLayout &l, int64_t bytes) const;
};

/// What ssd-plan-gpu-kernels' options ask of the chunked kernels.
struct ChunkedKernelRequest {
  bool fusedStatePassing = true, fusedOutput = true;
  int64_t headsPerBlock = 1;
  bool wgmma = false;
  FragmentLoads fragmentLoads = FragmentLoads::ldmatrix;
  Staging staging = Staging::cp_async;
  /// The most stages of a pipelined reduction (fewer where more would cost
  /// a resident block or not fit).
  int64_t pipelineStages = kDefaultPipelineStages;
  /// C·Bᵀ in the state blocks, where the fused output runs on wgmma with one
  /// head a block.
  bool cbInBlock = false;
  int64_t sharedMemoryLimit = 0;
};

/// The choices the planner makes for the chunked kernels of an op of these
/// shapes: what `request` asks, less what the shapes or the shared memory
/// do not allow. `fusedOutputDoesNotFit` is set when the fused output was
/// asked for and the shared memory could not hold it.
ChunkedKernelChoices chooseChunkedKernels(const StaticExtents &x,
                                          Type modelType, int64_t chunkSize,
                                          const ChunkedKernelRequest &request,
                                          bool &fusedOutputDoesNotFit);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDPLAN_H
