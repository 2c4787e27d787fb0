//===- ChunkedScanGPU.cpp - the chunked SSD scan as GPU launches ----------===//
//
// The decomposition of ChunkedScan.cpp (see there for the math). Sequence b
// is cut into chunks of at most L tokens; with d_t the processed dt, A_h the
// head's decay rate and cum_s = sum_{r <= s} d_r A_h within the chunk
// (s = 0 .. len-1), chunk k of head h (group g) contributes
//
//   dS_k[p, n]   = sum_s exp(cum_last - cum_s) d_s x[s, p] B[s, n]
//   G_k[i, j]    = sum_n C[i, n] B[j, n]                      (per group)
//   S_prev(k)    = state entering chunk k: the initial state for the first
//                  chunk, then S_prev(k+1) = exp(cum_last) S_prev(k) + dS_k
//   y[i, p]      = exp(cum_i) sum_n C[i, n] S_prev(k)[p, n]
//                + sum_{j <= i} G_k[i, j] exp(cum_i - cum_j) d_j x[j, p]
//                + D_h x[i, p]
//   final state  = exp(cum_last) S_prev(last chunk) + dS_last
//
// Three launches, ordered by the stream; every pool read happens in launch 2
// and every pool write in launch 3, so each sequence reads the pool as it
// was before the call, with no writer-order kernels:
//
//   1. the chunk kernel (ChunkKernel.cpp): block 0 maps chunks to
//      sequences (ChunkMap.cpp), the other blocks compute dS_k per (chunk,
//      head, state part) and G_k = C Bᵀ per (chunk, group, tile);
//   2. state passing (StatePassing.cpp): S_prev(k) and the final states;
//   3. the output kernel (OutputKernel.cpp): y, and the final states into
//      the pool.
//
// With fused state passing the chunk kernel's blocks chain through device
// memory instead of launch 2, and with the fused output they compute y
// too (FusedStatePassing.cpp). The tensor-core matmuls share one operand
// pipeline (MmaPipeline.cpp). The mixed launch, where only long sequences
// run chunked, is built in MixedScanGPU.cpp; the plan (tiles, shared
// memory, fused modes) in ChunkedPlan.cpp; the builders these files define
// are declared in ChunkedKernels.h.
//
// Every workspace comes from one device buffer per call
// (ssdGPUWorkspace), sized from T, batch and the chunk bound
// K = ceil(T / L) + batch (sum_b ceil(len_b / L) <= sum_b (len_b / L + 1)).
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

ChunkedContext::ChunkedContext(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                               const ChunkedPlan &plan, int64_t minSequence)
    : e(b, op, MathFlavor::NVVMApprox), checkpoints(b, op), plan(plan),
      x(plan.x), L(plan.chunkSize), minSequence(minSequence),
      async(plan.asyncCopies), fused(plan.fused), fusedOutput(plan.fusedOutput),
      loads(plan.fragmentLoads), op(op), codec(op) {
  modelType = cast<MemRefType>(op.getX().getType()).getElementType();
  mmaType = mmaElementType(b.getContext(), plan.element);
  // State checkpoints are written by launch 2 (emitChunkCheckpoints), or,
  // when all of them end chunks, where the fused chunk kernel publishes
  // (passState); the config's verifier refuses the fused modes otherwise.
  assert((!checkpoints || !fused ||
          Checkpoints::atChunkEndsOnly(op, plan.chunkSize)) &&
         "checkpoints inside chunks need state passing as a launch of its "
         "own");
}

void mlir::ssd::detail::emitChunkedLaunches(ImplicitLocOpBuilder &b,
                                            const ChunkedContext &context) {
  auto launches = [&](ImplicitLocOpBuilder &b) {
    if (context.fused) {
      // The ticket counter and the publication flags start at 0.
      gpu::MemsetOp::create(b, /*asyncToken=*/Type(), ValueRange{},
                            context.flags, ir::i32(b, 0));
    }
    ChunkKernelBuilder(context).emit(b);
    if (!context.fused)
      StatePassingBuilder(context).emit(b);
    OutputKernelBuilder(context).emit(b);
  };
  if (!context.minSequence)
    return launches(b);
  context.e.ifThen(b, ule(b, idx(b, context.minSequence), context.e.tokens),
                   launches);
}

/// Entries of `finals`: every sequence that runs chunked unfused (state
/// passing stores each final state there) or fused with an 8-bit pool
/// (every writer's, fusedStoresFinals); otherwise fused, only contested
/// writers use it, and a writer is contested only when another sequence
/// of the batch reads its slot, which needs an initial-state mask and two
/// sequences.
Value ChunkedContext::finalStates(ImplicitLocOpBuilder &b) {
  if (!fusedStoresFinals())
    return seqBound;
  if (!e.hasInitialState)
    return idx(b, 0);
  return select(b, ult(b, idx(b, 1), e.batch), seqBound, idx(b, 0));
}

void ChunkedContext::declareWorkspace(ImplicitLocOpBuilder &b,
                                      WorkspaceBuilder &w) {
  if (minSequence) {
    // At most T / minSequence sequences are that long; each has at most
    // ceil(len / L) <= len / L + 1 chunks.
    seqBound = minu(b, e.batch, divu(b, e.tokens, minSequence));
  } else {
    seqBound = e.batch;
  }
  maxChunks = add(b, ceilDiv(b, e.tokens, L), seqBound);
  chunkRows = minu(b, idx(b, L), e.tokens);
  paddedRows = mul(b, ceilDiv(b, chunkRows, 8), 8);
  rowTiles = ceilDiv(b, chunkRows, kRowTile);
  const int64_t dyn = ShapedType::kDynamic;
  Type f32t = b.getF32Type(), i32t = b.getI32Type();
  int64_t H = x.heads, P = x.headDim, N = x.dstate, G = x.groups;
  auto perToken = MemRefType::get({dyn, H, dyn}, f32t);
  auto prevType = MemRefType::get({dyn, H, P, N}, mmaType);
  auto stateType = MemRefType::get({dyn, H, P, N}, f32t);
  workspaceSlots = {
      w.add(MemRefType::get({dyn}, i32t), {add(b, e.batch, 1)}), // chunkBegin
      w.add(MemRefType::get({dyn}, i32t), {maxChunks}),          // chunkSeq
      // The fused output keeps cum, d and S_prev in the block.
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // cumHi
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // cumLo
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // dts
      // chunkDecay, for state passing as a launch of its own
      fused ? ~0u : w.add(MemRefType::get({dyn, H}, f32t), {maxChunks}),
      fused ? ~0u : w.add(stateType, {maxChunks}),      // states
      fusedOutput ? ~0u : w.add(prevType, {maxChunks}), // prevHigh
      plan.split ? w.add(prevType, {maxChunks}) : ~0u,  // prevLow
      w.add(stateType, {finalStates(b)}),               // finals
      // C Bᵀ (cbElementType); none where the state blocks compute it
      // (cb_in_block).
      !cbTiles() ? ~0u
                 : w.add(MemRefType::get({dyn, G, dyn, dyn}, cbElementType()),
                         {fusedOutput ? minu(b, maxChunks, idx(b, kCBRingSlots))
                                      : maxChunks,
                          chunkRows, paddedRows}), // cb
      minSequence ? w.add(MemRefType::get({dyn}, i32t), {add(b, seqBound, 1)})
                  : ~0u, // chunkedSeqs
      fused ? w.add(MemRefType::get({dyn}, i32t),
                    {add(b, mul(b, maxChunks, flagsPerChunk()), 1)})
            : ~0u,                                               // flags
      fused ? w.add(MemRefType::get({H, P, N}, f32t), {}) : ~0u, // chainState
  };
}

void ChunkedContext::bindWorkspace(ArrayRef<Value> views) {
  auto view = [&](unsigned i) {
    return workspaceSlots[i] == ~0u ? Value() : views[workspaceSlots[i]];
  };
  chunkBegin = view(0);
  chunkSeq = view(1);
  cumHi = view(2);
  cumLo = view(3);
  dts = view(4);
  chunkDecay = view(5);
  states = view(6);
  prevHigh = view(7);
  prevLow = view(8);
  finals = view(9);
  cb = view(10);
  chunkedSeqs = view(11);
  flags = view(12);
  chainState = view(13);
}

void mlir::ssd::detail::buildChunkedScanGPU(ImplicitLocOpBuilder &b,
                                            ChunkScanVarlenOp op,
                                            const ChunkedPlan &plan) {
  ChunkedContext chunked(b, op, plan, /*minSequence=*/0);
  WorkspaceBuilder w;
  chunked.declareWorkspace(b, w);
  chunked.bindWorkspace(w.allocate(b, op));
  emitChunkedLaunches(b, chunked);
}
