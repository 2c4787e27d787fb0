//===- ChunkedPlan.cpp - the chunked GPU kernels' plan --------------------===//

#include "ChunkedPlan.h"

#include "llvm/Support/FormatVariadic.h"

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

namespace {

/// Accumulators per thread of the fused output's tile up to which a pass
/// takes 128 rows: then each warp's tile is 32x32 like the dS tiles (2
/// fragment loads per mma; 64-row passes had 32x16 tiles, 3), and the
/// kernel fits 128 registers (two blocks per SM) with the occupancy request
/// and 32-bit index arithmetic (docs/gpu.md, "Registers and occupancy").
constexpr int64_t kOutputAccumulators = 32;

/// The fewest state parts (blocks per chunk and head over N) whose tile fits
/// kMaxAccumulators per thread.
int64_t fewestStateParts(int64_t paddedP, int64_t paddedN) {
  const int64_t chunkWarps = kChunkThreads / 32;
  int64_t stateParts = 1;
  for (int64_t parts = 1; parts <= paddedN / 16; ++parts) {
    if ((paddedN / 16) % parts)
      continue;
    stateParts = parts;
    if (chooseWarpLayout(paddedP, paddedN / parts, chunkWarps).accumulators() <=
        kMaxAccumulators)
      break;
  }
  return stateParts;
}

/// Rows of y per pass of the fused output: 128 where a thread's share of
/// the tile stays at kOutputAccumulators (P <= 64), else 64. x and S_prev
/// are resident in shared memory, so more passes read nothing more from L2
/// (only C rows, once each).
int64_t outputRowsFor(int64_t paddedP) {
  return chooseWarpLayout(2 * kRowTile, paddedP, kChunkThreads / 32)
                     .accumulators() > kOutputAccumulators
             ? kRowTile
             : 2 * kRowTile;
}

} // namespace

ChunkedPlan::ChunkedPlan(const StaticExtents &x, Type modelType,
                         int64_t chunkSize, const ChunkedKernelChoices &choices)
    : x(x), chunkSize(chunkSize), choices(choices) {
  split = modelType.isF32();
  element = modelType.isF16() ? MmaElement::F16 : MmaElement::BF16;
  paddedP = roundUp(x.headDim, 16);
  reductionN = roundUp(x.dstate, kStep);
  stateParts = choices.stateParts;
  stateCols = roundUp(x.dstate, 16) / stateParts;
  fused = choices.fusion != Fusion::none;
  fusedOutput = choices.fusion == Fusion::state_and_output;
  fragmentLoads = choices.fragmentLoads;
  asyncCopies = choices.staging == Staging::cp_async;
  stages = choices.pipelineStages;
  // Unfused 16-bit models: half the warps with twice the tile each, when
  // that fits the accumulator budget (1.5 instead of 2 fragment loads per
  // mma; f32 models, three mma per step, would not fit their registers).
  // The fused chunk kernel spreads dS over every warp instead: its
  // accumulators stay live across the look-back wait, and 32 rather than
  // 64 per thread is what lets it fit 128 registers, two blocks per SM.
  const int64_t chunkWarps = kChunkThreads / 32;
  stateWarps = chooseWarpLayout(paddedP, stateCols, chunkWarps / 2);
  if (split || fused || stateWarps.accumulators() > kMaxAccumulators)
    stateWarps = chooseWarpLayout(paddedP, stateCols, chunkWarps);
  cbWarps = chooseWarpLayout(kRowTile, kRowTile, chunkWarps);
  cbWgmma = choices.matmul == Matmul::wgmma;
  // A warpgroup's dS half is m64n64 (32 accumulators a thread, as many as
  // the mma.sync layout of these shapes has): P fills the 64 rows with
  // 128-byte rows of x (the 128-byte swizzle), and the part's 128 columns
  // are the two warpgroups' halves.
  stateWgmma =
      cbWgmma && paddedP == 64 && stateCols == 64 * (kChunkThreads / 128);
  outputWarps = chooseWarpLayout(kRowTile, paddedP, kOutputThreads / 32);
  tokensPerThread = llvm::divideCeil(chunkSize, kChunkThreads);
  outputRows = choices.outputRows;
  fusedOutputWarps = chooseWarpLayout(outputRows, paddedP, chunkWarps);
  // The fused output's passes by wgmma: two warpgroups of 64 rows x P =
  // 64 columns, S_prev [P][N] staged as 64-column panels (K-major, 128-byte
  // rows), x resident [s][P] (N-major).
  outputWgmma = fusedOutput && stateWgmma && outputRows == 2 * kRowTile &&
                reductionN % 64 == 0;
  headsPerBlock = choices.headsPerBlock;
  cbInBlock = choices.cbInBlock;
  chunkThreads = headsPerBlock * kChunkThreads;
  const int64_t blockWarps = chunkThreads / 32;
  chunkShared = placeChunkRole(fusedOutput, blockWarps);
  // Several heads per block: B and C leave L2 once per block. The heads'
  // copies of the one-head layout sit a multiple of the wgmma alignment
  // apart, so one run-time shift serves all.
  if (headsPerBlock > 1)
    headStride = llvm::alignTo(chunkShared.bytes, kWgmmaTileAlignment);
  placeCBRole(blockWarps);
  placeOutputRole();
  launch1Bytes = std::max(headStride * (headsPerBlock - 1) + chunkShared.bytes,
                          cbInBlock ? 0 : cbShared.bytes);
  launch3Bytes = outputShared.bytes;
  launch1BlocksPerSM = choices.blocksPerSM;
}

ChunkRoleShared ChunkedPlan::placeChunkRole(bool withOutput,
                                            int64_t blockWarps) const {
  const int64_t warps = kChunkThreads / 32;
  // `blockWarps`: the warps of the whole block, which the map role's scans
  // (on the same scratch) use.
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
  const int64_t xBytes = swizzledTileBytes(kStep, paddedP, stages);
  const int64_t bBytes = swizzledTileBytes(kStep, stateCols, stages);
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
  if (withOutput && outputWgmma) {
    // The output's A stages over the dS stages, then S_prev and x, all
    // wgmma tiles under the same shift. With C·Bᵀ in the block the A
    // operands are the pass's C, resident (one slot per k-step of N, which
    // C·S_prevᵀ fills and every W step reads), and one W tile, built and
    // read within its step; B's rows of a W step are staged in the ring, a
    // [kStep x kStep] tile per k-step of N.
    int64_t outEnd;
    if (cbInBlock) {
      const int64_t nSteps = reductionN / kStep;
      outEnd =
          placeWgmmaTiles(
              region,
              {{&s.outA, swizzledTileBytes(outputRows, kStep, nSteps)},
               {&s.outW, swizzledTileBytes(outputRows, kStep)},
               {&s.outB, swizzledTileBytes(kStep, kStep, stages * nSteps)}}) -
          (kWgmmaTileAlignment - kViewAlignment);
    } else {
      s.outA = region;
      outEnd =
          region + llvm::alignTo(swizzledTileBytes(outputRows, kStep, stages),
                                 kWgmmaTileAlignment);
    }
    int64_t after =
        std::max(s.bytes - (kWgmmaTileAlignment - kViewAlignment), outEnd);
    s.bytes = placeWgmmaTiles(
        after, {{&s.sPrev, swizzledTileBytes(paddedP, reductionN)},
                {&s.xResident, swizzledTileBytes(s.tokenSlots, paddedP)}});
  } else if (withOutput) {
    SharedLayout o;
    o.add(region);
    s.outA = o.add(swizzledTileBytes(outputRows, kStep, stages));
    int64_t end = std::max(s.bytes, o.size());
    s.sPrev = llvm::alignTo(end, kViewAlignment);
    s.xResident = llvm::alignTo(
        s.sPrev + swizzledTileBytes(paddedP, reductionN), kViewAlignment);
    s.bytes = llvm::alignTo(
        s.xResident + swizzledTileBytes(s.tokenSlots, paddedP), kViewAlignment);
  }
  return s;
}

std::pair<int64_t, int64_t> ChunkedPlan::highLow(SharedLayout &l,
                                                 int64_t bytes) const {
  int64_t high = l.add(bytes);
  return {high, split ? l.add(bytes) : 0};
}

void ChunkedPlan::placeCBRole(int64_t blockWarps) {
  SharedLayout l;
  CBRoleShared &s = cbShared;
  s.locateScratch = l.add(4 * blockWarps);
  s.located = l.add(8);
  const int64_t tileBytes = swizzledTileBytes(kRowTile, kStep, stages);
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

void ChunkedPlan::placeOutputRole() {
  SharedLayout l;
  OutputRoleShared &s = outputShared;
  s.rowHi = l.add(4 * kRowTile);
  s.rowLo = l.add(4 * kRowTile);
  s.rowDecay = l.add(4 * kRowTile);
  std::tie(s.aHigh, s.aLow) =
      highLow(l, swizzledTileBytes(kRowTile, kStep, stages));
  // The B tile is S_prev [P][k] in the first phase and x [k][P] in the
  // second: the same bytes, viewed two ways.
  int64_t bBytes = std::max(swizzledTileBytes(paddedP, kStep, stages),
                            swizzledTileBytes(kStep, paddedP, stages));
  std::tie(s.bHigh, s.bLow) = highLow(l, bBytes);
  s.bytes = l.size();
}

std::optional<std::string> ChunkedPlan::whyNotHonoured(StringRef owner) const {
  const int64_t tiles = roundUp(x.dstate, 16) / 16;
  if (stateParts > tiles || tiles % stateParts)
    return llvm::formatv("{0}: state_parts {1} does not divide dstate's {2} "
                         "16-column tiles (N = {3})",
                         owner, stateParts, tiles, x.dstate)
        .str();
  if (stateWarps.accumulators() > kMaxAccumulators)
    return llvm::formatv("{0}: state_parts {1} leaves {2} state "
                         "accumulators a thread, more than the {3} the "
                         "kernels hold (P = {4}, N = {5}); use more parts",
                         owner, stateParts, stateWarps.accumulators(),
                         kMaxAccumulators, x.headDim, x.dstate)
        .str();
  if (headsPerBlock > 1 && !outputWgmma)
    return llvm::formatv(
               "{0}: heads_per_block {1} needs the fused output on wgmma "
               "(head_dim 49 to 64, 128 state columns, output_rows 128), "
               "which these shapes and choices do not give (P = {2}, N = "
               "{3}, output_rows {4})",
               owner, headsPerBlock, x.headDim, x.dstate, outputRows)
        .str();
  if (cbInBlock && (!outputWgmma || headsPerBlock != 1))
    return llvm::formatv(
               "{0}: cb_in_block needs the fused output on wgmma (head_dim "
               "49 to 64, 128 state columns, output_rows 128) and one head a "
               "block, which these shapes and choices do not give (P = {1}, "
               "N = {2}, output_rows {3}, heads_per_block {4})",
               owner, x.headDim, x.dstate, outputRows, headsPerBlock)
        .str();
  if (headsPerBlock > 1 && (x.heads / x.groups) % headsPerBlock)
    return llvm::formatv("{0}: heads_per_block {1} needs a multiple of {1} "
                         "heads per group, got {2}",
                         owner, headsPerBlock, x.heads / x.groups)
        .str();
  return std::nullopt;
}

SmallVector<KernelSharedMemory> ChunkedPlan::sharedMemory() const {
  SmallVector<KernelSharedMemory> kernels{
      {"chunk states and C B^T", sharedMemoryPerBlock(launch1Bytes)}};
  if (!fusedOutput)
    kernels.push_back({"output", sharedMemoryPerBlock(launch3Bytes)});
  return kernels;
}

int64_t ChunkedPlan::maxSharedMemory() const {
  int64_t bytes = 0;
  for (KernelSharedMemory kernel : sharedMemory())
    bytes = std::max(bytes, kernel.bytes);
  return bytes;
}

ChunkedKernelChoices mlir::ssd::detail::chooseChunkedKernels(
    const StaticExtents &x, Type modelType, int64_t chunkSize,
    const ChunkedKernelRequest &request, bool &fusedOutputDoesNotFit) {
  fusedOutputDoesNotFit = false;
  const bool split = modelType.isF32();
  const int64_t paddedP = roundUp(x.headDim, 16);
  ChunkedKernelChoices c;
  c.stateParts = fewestStateParts(paddedP, roundUp(x.dstate, 16));
  c.outputRows = outputRowsFor(paddedP);
  c.matmul = request.wgmma ? Matmul::wgmma : Matmul::mma_sync;
  c.fragmentLoads = request.fragmentLoads;
  c.staging = request.staging;
  // f32 models (hi/lo operands) keep state passing as a launch of its
  // own: their chunk kernel sits at ptxas's 128-register budget on
  // sm_90a, and the fused one spilled there.
  c.fusion = request.fusedStatePassing && !split ? Fusion::state : Fusion::none;
  auto plan = [&] { return ChunkedPlan(x, modelType, chunkSize, c); };
  auto fits = [&](const ChunkedPlan &p) {
    return sharedMemoryPerBlock(p.headStride * (p.headsPerBlock - 1) +
                                p.chunkShared.bytes) <=
           request.sharedMemoryLimit;
  };
  if (c.fusion == Fusion::state && request.fusedOutput && c.stateParts == 1) {
    c.fusion = Fusion::state_and_output;
    // Where the fused output does not fit the chip, launch 3 computes y.
    if (!fits(plan())) {
      c.fusion = Fusion::state;
      fusedOutputDoesNotFit = true;
    }
  }
  // Several heads per block: B and C leave L2 once per block.
  if (request.headsPerBlock > 1 && (x.heads / x.groups) % 2 == 0 &&
      plan().outputWgmma) {
    c.headsPerBlock = 2;
    if (!fits(plan()))
      c.headsPerBlock = 1;
  }
  // C·Bᵀ in the block: no C·Bᵀ blocks, workspace or waits, for more
  // tensor and shared-memory work in each state block.
  if (request.cbInBlock && c.headsPerBlock == 1 && plan().outputWgmma) {
    c.cbInBlock = true;
    if (!fits(plan()))
      c.cbInBlock = false;
  }
  // Two blocks per SM (ssd.kernel_occupancy, 128 registers) for the fused
  // chunk kernel, which is sized for them, and for the f32 chunk kernel
  // where a thread's state tile is at most 32 accumulators (ptxas left
  // alone gives it 138 registers, one block; capped, 124-128 without
  // spills at the shapes ptxas-model-shapes.test assembles). With 64
  // accumulators (head_dim 128, dstate 256) the cap spilled 156 bytes on
  // sm_80 and sm_90a; ptxas alone gives that kernel 200 registers. A block
  // of several heads has the threads of several: one per SM, at the same
  // 128 registers a thread.
  ChunkedPlan chosen = plan();
  // An SM's shared memory is the per-block limit plus the 1 KB the
  // hardware reserves per resident block (sm_80 to sm_90).
  constexpr int64_t kReservedPerBlock = 1024;
  constexpr int64_t kTwoBlocksStateAccumulators = 32;
  bool twoBlocksFit =
      2 * (sharedMemoryPerBlock(chosen.launch1Bytes) + kReservedPerBlock) <=
      request.sharedMemoryLimit + kReservedPerBlock;
  if (twoBlocksFit &&
      (chosen.fusedOutput || (split && chosen.stateWarps.accumulators() <=
                                           kTwoBlocksStateAccumulators)))
    c.blocksPerSM = 2;
  if (c.headsPerBlock > 1)
    c.blocksPerSM = 1;
  // A deeper ring where it costs no resident block: the copies then run
  // further ahead of the steps that read them, which hides more of L2's
  // latency (the chunk kernel is latency-bound on an H200 at 16 warps per
  // SM, docs/performance.md). The blocks of either launch that fit an SM's
  // shared memory stay as many as with a double buffer. A block of several
  // heads keeps the double buffer: its 512 threads are at the 128-register
  // cap, and the ring's stage indices made ptxas spill 24 bytes there
  // (Granite-4, sm_90a). So does staging through registers, whose loads
  // are stored within the step that issues them: more stages would only
  // take shared memory.
  auto residentBlocks = [&](const ChunkedPlan &p) {
    return (request.sharedMemoryLimit + kReservedPerBlock) /
           (p.maxSharedMemory() + kReservedPerBlock);
  };
  const int64_t doubleBuffered = residentBlocks(plan());
  const bool deeperRing =
      c.headsPerBlock == 1 && c.staging == Staging::cp_async;
  for (int64_t stages = deeperRing ? request.pipelineStages : 0;
       stages > c.pipelineStages; --stages) {
    ChunkedKernelChoices deeper = c;
    deeper.pipelineStages = stages;
    ChunkedPlan p(x, modelType, chunkSize, deeper);
    if (fits(p) && residentBlocks(p) >= doubleBuffered) {
      c = deeper;
      break;
    }
  }
  c.sharedMemory = ChunkedPlan(x, modelType, chunkSize, c).maxSharedMemory();
  return c;
}
