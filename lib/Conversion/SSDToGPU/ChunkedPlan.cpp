//===- ChunkedPlan.cpp - the chunked GPU kernels' plan --------------------===//

#include "ChunkedPlan.h"

#include <tuple>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

/// Places wgmma operand tiles from byte `first` on: offsets congruent
/// modulo kWgmmaTileAlignment (each tile's bytes rounded up to it), a null
/// entry for a tile that is not there (offset 0), then room for the
/// kernel's run-time shift onto such a boundary (the arena is only
/// kViewAlignment-aligned). Returns the end.
static int64_t placeWgmmaTiles(int64_t first,
                               ArrayRef<std::pair<int64_t *, int64_t>> tiles) {
  int64_t next = first;
  for (auto [offset, bytes] : tiles) {
    *offset = 0;
    if (!bytes)
      continue;
    *offset = next;
    next += llvm::alignTo(bytes, kWgmmaTileAlignment);
  }
  return next + kWgmmaTileAlignment - kViewAlignment;
}

ChunkedPlan::ChunkedPlan(const StaticExtents &x, Type modelType,
                         int64_t chunkSize, const LowerToGPUOptions &options)
    : x(x), chunkSize(chunkSize) {
  split = modelType.isF32();
  element = modelType.isF16() ? MmaElement::F16 : MmaElement::BF16;
  paddedP = roundUp(x.headDim, 16);
  int64_t paddedN = roundUp(x.dstate, 16);
  reductionN = roundUp(x.dstate, kStep);
  // The fewest parts whose tile fits kMaxAccumulators per thread.
  const int64_t chunkWarps = kChunkThreads / 32;
  stateParts = 1;
  for (int64_t parts = 1; parts <= paddedN / 16; ++parts) {
    if ((paddedN / 16) % parts)
      continue;
    stateParts = parts;
    if (chooseWarpLayout(paddedP, paddedN / parts, chunkWarps).accumulators() <=
        kMaxAccumulators)
      break;
  }
  stateCols = paddedN / stateParts;
  // f32 models (hi/lo operands) keep state passing as a launch of its
  // own: their chunk kernel sits at ptxas's 128-register budget on
  // sm_90a, and the fused one spilled there.
  fused = options.fusedStatePassing && !split;
  // Unfused 16-bit models: half the warps with twice the tile each, when
  // that fits the accumulator budget (1.5 instead of 2 fragment loads per
  // mma; f32 models, three mma per step, would not fit their registers).
  // The fused chunk kernel spreads dS over every warp instead: its
  // accumulators stay live across the look-back wait, and 32 rather than
  // 64 per thread is what lets it fit 128 registers, two blocks per SM.
  stateWarps = chooseWarpLayout(paddedP, stateCols, chunkWarps / 2);
  if (split || fused || stateWarps.accumulators() > kMaxAccumulators)
    stateWarps = chooseWarpLayout(paddedP, stateCols, chunkWarps);
  cbWarps = chooseWarpLayout(kRowTile, kRowTile, chunkWarps);
  cbWgmma = options.wgmma;
  // A warpgroup's dS half is m64n64 (32 accumulators a thread, as many as
  // the mma.sync layout of these shapes has): P fills the 64 rows with
  // 128-byte rows of x (the 128-byte swizzle), and the part's 128 columns
  // are the two warpgroups' halves.
  stateWgmma =
      options.wgmma && paddedP == 64 && stateCols == 64 * (kChunkThreads / 128);
  outputWarps = chooseWarpLayout(kRowTile, paddedP, kOutputThreads / 32);
  tokensPerThread = llvm::divideCeil(chunkSize, kChunkThreads);
  // Rows of y per pass of the fused output: 128 where a thread's share of
  // the tile stays at 32 accumulators (P <= 64), so that each warp's tile
  // is 32x32 like the dS tiles (2 fragment loads per mma; 64-row passes
  // had 32x16 tiles, 3), else 64. x and S_prev are resident in shared
  // memory, so more passes read nothing more from L2 (only C rows, once
  // each). At 32 accumulators the kernel fits 128 registers (two blocks
  // per SM) with launch1BlocksPerSM's request and 32-bit index arithmetic
  // (docs/gpu.md, "Registers and occupancy").
  constexpr int64_t kOutputAccumulators = 32;
  outputRows = 2 * kRowTile;
  if (chooseWarpLayout(outputRows, paddedP, chunkWarps).accumulators() >
      kOutputAccumulators)
    outputRows = kRowTile;
  fusedOutputWarps = chooseWarpLayout(outputRows, paddedP, chunkWarps);

  const int64_t warps = chunkWarps;
  // An operand tile and, for f32 models, its low-half copy (0 without).
  auto highLow = [&](SharedLayout &l, int64_t bytes) {
    int64_t high = l.add(bytes);
    return std::pair<int64_t, int64_t>(high, split ? l.add(bytes) : 0);
  };
  // The fused output's passes by wgmma: two warpgroups of 64 rows x P =
  // 64 columns, S_prev [P][N] staged as 64-column panels (K-major, 128-byte
  // rows), x resident [s][P] (N-major).
  const bool outputWgmmaFits =
      stateWgmma && outputRows == 2 * kRowTile && reductionN % 64 == 0;
  // `blockWarps`: the warps of the whole block, which the map role's scans
  // (on the same scratch) use.
  auto chunkRole = [&](bool withOutput, int64_t blockWarps) {
    SharedLayout l;
    ChunkRoleShared s{};
    s.locateScratch = l.add(4 * blockWarps);
    s.chunkedScratch = l.add(4 * blockWarps);
    s.located = l.add(8);
    s.scanHi = l.add(4 * warps);
    s.scanLo = l.add(4 * warps);
    s.lastCum = l.add(8);
    s.scale = l.add(4 * chunkSize);
    if (withOutput) {
      s.tokenSlots = roundUp(chunkSize, outputRows);
      s.cumHi = l.add(4 * s.tokenSlots);
      s.cumLo = l.add(4 * s.tokenSlots);
      s.dt = l.add(4 * s.tokenSlots);
      s.rowDecay = l.add(4 * s.tokenSlots);
    }
    int64_t region = l.size();
    const int64_t xBytes = swizzledTileBytes(kStep, paddedP, 2);
    const int64_t bBytes = swizzledTileBytes(kStep, stateCols, 2);
    if (stateWgmma) {
      s.bytes = placeWgmmaTiles(region, {{&s.xHigh, xBytes},
                                         {&s.xLow, split ? xBytes : 0},
                                         {&s.bHigh, bBytes},
                                         {&s.bLow, split ? bBytes : 0}});
    } else {
      std::tie(s.xHigh, s.xLow) = highLow(l, xBytes);
      std::tie(s.bHigh, s.bLow) = highLow(l, bBytes);
      s.bytes = l.size();
    }
    if (withOutput && outputWgmmaFits) {
      // The output's A stages over the dS stages, then S_prev and x, all
      // wgmma tiles under the same shift.
      s.outA = region;
      const int64_t outABytes = swizzledTileBytes(outputRows, kStep, 2);
      int64_t after = std::max(
          s.bytes - (kWgmmaTileAlignment - kViewAlignment),
          int64_t(region + llvm::alignTo(outABytes, kWgmmaTileAlignment)));
      s.bytes = placeWgmmaTiles(
          after, {{&s.sPrev, swizzledTileBytes(paddedP, reductionN)},
                  {&s.xResident, swizzledTileBytes(s.tokenSlots, paddedP)}});
    } else if (withOutput) {
      SharedLayout o;
      o.add(region);
      s.outA = o.add(swizzledTileBytes(outputRows, kStep, 2));
      int64_t end = std::max(s.bytes, o.size());
      s.sPrev = llvm::alignTo(end, kViewAlignment);
      s.xResident = llvm::alignTo(
          s.sPrev + swizzledTileBytes(paddedP, reductionN), kViewAlignment);
      s.bytes =
          llvm::alignTo(s.xResident + swizzledTileBytes(s.tokenSlots, paddedP),
                        kViewAlignment);
    }
    return s;
  };
  fusedOutput = fused && options.fusedOutput && stateParts == 1;
  if (fusedOutput) {
    chunkShared = chunkRole(true, warps);
    // Where the fused output does not fit the chip, launch 3 computes y.
    if (sharedMemoryPerBlock(chunkShared.bytes) > options.sharedMemoryLimit) {
      fusedOutput = false;
      fusedOutputDoesNotFit = true;
    }
  }
  if (!fusedOutput)
    chunkShared = chunkRole(false, warps);
  outputWgmma = fusedOutput && outputWgmmaFits;
  // Two heads per block: B and C leave L2 once per pair. Their copies of
  // the one-head layout sit a multiple of the wgmma alignment apart, so
  // one run-time shift serves both.
  if (options.pairHeads && outputWgmma && (x.heads / x.groups) % 2 == 0) {
    ChunkRoleShared paired = chunkRole(true, 2 * warps);
    int64_t stride = llvm::alignTo(paired.bytes, kWgmmaTileAlignment);
    if (sharedMemoryPerBlock(stride + paired.bytes) <=
        options.sharedMemoryLimit) {
      chunkShared = paired;
      headsPerBlock = 2;
      headStride = stride;
      chunkThreads = 2 * kChunkThreads;
    }
  }
  const int64_t blockWarps = chunkThreads / 32;
  {
    SharedLayout l;
    CBRoleShared &s = cbShared;
    s.locateScratch = l.add(4 * blockWarps);
    s.located = l.add(8);
    const int64_t tileBytes = swizzledTileBytes(kRowTile, kStep, 2);
    if (cbWgmma) {
      const int64_t lowBytes = split ? tileBytes : 0;
      s.bytes = placeWgmmaTiles(l.size(), {{&s.cHigh, tileBytes},
                                           {&s.cLow, lowBytes},
                                           {&s.bHigh, tileBytes},
                                           {&s.bLow, lowBytes}});
    } else {
      std::tie(s.cHigh, s.cLow) = highLow(l, tileBytes);
      std::tie(s.bHigh, s.bLow) = highLow(l, tileBytes);
      s.bytes = l.size();
    }
  }
  {
    SharedLayout l;
    OutputRoleShared &s = outputShared;
    s.rowHi = l.add(4 * kRowTile);
    s.rowLo = l.add(4 * kRowTile);
    s.rowDecay = l.add(4 * kRowTile);
    std::tie(s.aHigh, s.aLow) =
        highLow(l, swizzledTileBytes(kRowTile, kStep, 2));
    // The B tile is S_prev [P][k] in the first phase and x [k][P] in the
    // second: the same bytes, viewed two ways.
    int64_t bBytes = std::max(swizzledTileBytes(paddedP, kStep, 2),
                              swizzledTileBytes(kStep, paddedP, 2));
    std::tie(s.bHigh, s.bLow) = highLow(l, bBytes);
    s.bytes = l.size();
  }
  launch1Bytes = std::max(headStride * (headsPerBlock - 1) + chunkShared.bytes,
                          cbShared.bytes);
  // An SM's shared memory is the per-block limit plus the 1 KB the
  // hardware reserves per resident block (sm_80 to sm_90).
  constexpr int64_t kReservedPerBlock = 1024;
  // Two blocks per SM (ssd.kernel_occupancy, 128 registers) for the fused
  // chunk kernel, which is sized for them, and for the f32 chunk kernel
  // where a thread's state tile is at most 32 accumulators (ptxas left
  // alone gives it 138 registers, one block; capped, 124-128 without
  // spills at the shapes ptxas-model-shapes.test assembles). With 64
  // accumulators (head_dim 128, dstate 256) the cap spilled 156 bytes on
  // sm_80 and sm_90a; ptxas alone gives that kernel 200 registers.
  constexpr int64_t kTwoBlocksStateAccumulators = 32;
  bool twoBlocksFit =
      2 * (sharedMemoryPerBlock(launch1Bytes) + kReservedPerBlock) <=
      options.sharedMemoryLimit + kReservedPerBlock;
  if (twoBlocksFit &&
      (fusedOutput ||
       (split && stateWarps.accumulators() <= kTwoBlocksStateAccumulators)))
    launch1BlocksPerSM = 2;
  // A block of paired heads has the threads of two: one per SM, at the
  // same 128 registers a thread.
  if (headsPerBlock > 1)
    launch1BlocksPerSM = 1;
  launch3Bytes = outputShared.bytes;
}

SmallVector<KernelSharedMemory> ChunkedPlan::sharedMemory() const {
  SmallVector<KernelSharedMemory> kernels{
      {"chunk states and C B^T", sharedMemoryPerBlock(launch1Bytes)}};
  if (!fusedOutput)
    kernels.push_back({"output", sharedMemoryPerBlock(launch3Bytes)});
  return kernels;
}
