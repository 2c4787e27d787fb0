//===- StatePassing.cpp - launch 2: the chain over chunks -----------------===//
//
// Launch 2, state passing: 256 threads, a block per (sequence, head, 1024
// state elements): each thread owns 4 consecutive state elements and walks
// the sequence's chunks in order (coalesced, the next chunk's loads issued
// before the current update), reading the initial state from the pool and
// writing S_prev(k) (as the mma element type, hi/lo for f32 models) and the
// final state (f32) to the workspace.
//
// State checkpoints (checkpoint_slots): when every boundary ends a chunk
// (no offsets, the interval a multiple of L) the fused chunk kernel stores
// each with the state it publishes (passState). Otherwise the plan keeps
// both fused modes off, and launch 2 writes them. A boundary at a chunk's
// last token stores the S_prev(k+1) that state passing computes anyway (one
// more state write); boundaries inside a chunk need states the decomposition
// never forms, so the thread walks the chunk's tokens serially from S_prev(k)
// up to its last such boundary, S <- exp(d_t A) S + d_t x_t B_tᵀ for its own
// elements, storing at each (emitChunkCheckpoints: the math and its cost).
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

Value ChunkedKernelParts::loadStateVector(ImplicitLocOpBuilder &b, Value memref,
                                          ValueRange indices) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  int64_t v = stateVector();
  Value loaded = vectorLoad(b, VectorType::get({v}, element), memref, indices,
                            v * element.getIntOrFloatBitWidth() / 8);
  if (!element.isF32())
    loaded =
        arith::ExtFOp::create(b, VectorType::get({v}, b.getF32Type()), loaded);
  return loaded;
}

void ChunkedKernelParts::storeStateVector(ImplicitLocOpBuilder &b, Value value,
                                          Value memref, ValueRange indices) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  int64_t v = stateVector();
  if (!element.isF32())
    value = arith::TruncFOp::create(b, VectorType::get({v}, element), value);
  vectorStore(b, value, memref, indices,
              v * element.getIntOrFloatBitWidth() / 8);
}

void ChunkedKernelParts::storePoolVector(ImplicitLocOpBuilder &b, Value value,
                                         ValueRange indices, Value tokensHeld) {
  if (!codec.stochastic && !codec.scaled())
    return storeStateVector(b, value, e.pool, indices);
  PoolWriteSite site{indices[0], indices[1], indices[2], indices[3],
                     tokensHeld};
  Value inverse;
  if (codec.scaled()) {
    // The row's maximum: this thread's v values, then the row's other
    // threads, aligned lanes of this warp (an xor butterfly within them).
    // The shuffles name only the row's lanes: a warp's last rows may be
    // all its active lanes (the kernels' threads past P x N return).
    const int64_t v = stateVector(), lanes = chunkedRowLanes(x);
    assert(lanes && "refused by readGPUPlan");
    Value m = f32(b, 0.0);
    for (int64_t q = 0; q < v; ++q)
      m = codec.absMax(
          b, m, vector::ExtractOp::create(b, value, ArrayRef<int64_t>{q}));
    Value lane = arith::AndIOp::create(
        b, toI32(b, gpu::ThreadIdOp::create(b, gpu::Dimension::x)), i32(b, 31));
    Value first = arith::AndIOp::create(b, lane, i32(b, ~int32_t(lanes - 1)));
    Value rowMask = arith::ShLIOp::create(
        b, i32(b, static_cast<int32_t>((uint64_t(1) << lanes) - 1)), first);
    for (int32_t offset = lanes / 2; offset >= 1; offset /= 2)
      m = codec.combineAbsMax(
          b, m,
          NVVM::ShflOp::create(
              b, b.getF32Type(), rowMask, m, i32(b, offset), i32(b, 0x1f),
              NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
              UnitAttr()));
    PoolCodec::RowScale row = codec.rowScale(b, m);
    inverse = row.inverse;
    e.ifThen(b, eq(b, site.n, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      codec.storeScale(b, row.scale, site.slot, site.head, site.p);
    });
  }
  Value stored = codec.encode(b, value, inverse, site);
  vectorStore(b, stored, e.pool, indices,
              stateVector() * codec.element.getIntOrFloatBitWidth() / 8);
}

Value ChunkedKernelParts::loadPoolVector(ImplicitLocOpBuilder &b,
                                         ValueRange indices) {
  if (!codec.scaled())
    return loadStateVector(b, e.pool, indices);
  const int64_t v = stateVector();
  Value scale = codec.loadScale(b, indices[0], indices[1], indices[2]);
  Value codes =
      vectorLoad(b, VectorType::get({v}, codec.element), e.pool, indices, v);
  return codec.decode(b, codes, scale);
}

int64_t mlir::ssd::detail::chunkedStateVector(const StaticExtents &x,
                                              bool wholeRows) {
  return gpuChunkedStateVector(x.dstate, wholeRows);
}

int64_t mlir::ssd::detail::chunkedRowLanes(const StaticExtents &x) {
  return gpuChunkedRowLanes(x.dstate);
}

Value ChunkedKernelParts::tokensBefore(ImplicitLocOpBuilder &b, Value seq) {
  if (!codec.stochastic)
    return Value();
  Value offsets = op.getCheckpointOffsets();
  if (!offsets)
    return idx(b, 0);
  return toIndex(b, load(b, offsets, {seq}));
}

StatePassingBuilder::CheckpointedSequence
StatePassingBuilder::checkpointedSequence(ImplicitLocOpBuilder &b, Value seq,
                                          const SequenceInfo &s, Value head) {
  CheckpointedSequence c;
  c.boundaries = checkpoints.sequence(b, e, seq);
  c.begin = s.begin;
  c.len = sequenceLength(b, seq);
  c.firstChunk = toIndex(b, load(b, chunkBegin, {seq}));
  c.a = e.loadF32(b, e.A, {head});
  c.group = e.groupOf(b, head);
  c.tokensBefore = tokensBefore(b, seq);
  return c;
}

/// The checkpoints of chunk `chunk` of sequence `c`, for the thread's
/// state elements (row p, columns n..n+v-1): S_prev(k) = `prev` enters
/// the chunk, S_prev(k+1) = `next` leaves it.
///
/// A boundary at the chunk's last token takes `next`, the state that
/// state passing computes anyway: one more state write. A boundary
/// inside the chunk (token s < len - 1) needs the state after token s,
/// which the chunked decomposition never forms; the thread rebuilds it
/// for its own elements from S_prev(k) with the serial recurrence
///
///   S <- exp(d_t A_h) S + (d_t x[t, h, p]) B[t, g, n]
///
/// over the chunk's tokens up to its last boundary that is written (d_t
/// as launch 1 stored it in the workspace), storing S at each boundary.
/// That walk costs per token one d, one x and v B loads and v fma per
/// thread, at most L - 1 tokens per chunk: a serial scan of the chunk
/// (as the serial kernel does it, without its C S dot product), only
/// over chunks that hold such boundaries (at interval I >= L, at most
/// one per chunk), and only here, off the matmul launches. The chunk's
/// own S_prev(k+1) still comes from the chunked decomposition, so the
/// walk changes nothing else.
void StatePassingBuilder::emitChunkCheckpoints(ImplicitLocOpBuilder &b,
                                               const CheckpointedSequence &c,
                                               Value chunk, Value head, Value p,
                                               Value n, Value prev,
                                               Value next) {
  const int64_t v = stateVector();
  auto vecType = VectorType::get({v}, b.getF32Type());
  auto splat = [&](ImplicitLocOpBuilder &b, Value s) -> Value {
    return vector::BroadcastOp::create(b, vecType, s);
  };
  auto storeCheckpoint = [&](ImplicitLocOpBuilder &b, Value j, Value state) {
    Value writes, slot;
    std::tie(writes, slot) = checkpoints.slotAfter(b, e, c.boundaries, j);
    e.ifThen(b, writes, [&](ImplicitLocOpBuilder &b) {
      // After local token j the state holds o + j + 1 tokens.
      Value held =
          c.tokensBefore ? add(b, add(b, c.tokensBefore, j), 1) : Value();
      storePoolVector(b, state, {slot, head, p, n}, held);
    });
  };
  // The chunk's tokens: local j = jFirst .. jFirst + len - 1.
  Value jFirst = mul(b, sub(b, chunk, c.firstChunk), L);
  Value len = minu(b, idx(b, L), sub(b, c.len, jFirst));
  Value walk =
      checkpoints.walkLength(b, c.boundaries, jFirst, sub(b, len, idx(b, 1)));
  forLoop(b, idx(b, 0), walk, {prev},
          [&](ImplicitLocOpBuilder &b, Value s, ValueRange carried) {
            Value t = add(b, c.begin, add(b, jFirst, s));
            Value d = load(b, dts, {chunk, head, s});
            Value decay = splat(b, e.exp(b, fmul(b, d, c.a)));
            Value dx = splat(b, fmul(b, d, e.loadF32(b, e.x, {t, head, p})));
            SmallVector<Value> bValues;
            for (int64_t q = 0; q < v; ++q)
              bValues.push_back(e.loadF32(b, e.B, {t, c.group, add(b, n, q)}));
            Value bRow = vector::FromElementsOp::create(b, vecType, bValues);
            Value state =
                fadd(b, fmul(b, decay, carried[0]), fmul(b, dx, bRow));
            storeCheckpoint(b, add(b, jFirst, s), state);
            return SmallVector<Value>{state};
          });
  storeCheckpoint(b, add(b, jFirst, sub(b, len, idx(b, 1))), next);
}

void StatePassingBuilder::emit(ImplicitLocOpBuilder &b) {
  const int64_t v = stateVector(), elements = x.headDim * x.dstate;
  const int64_t parts = llvm::divideCeil(elements, kChunkThreads * v);
  launchKernel(
      b, e, {seqBound, idx(b, x.heads), idx(b, parts)}, {kChunkThreads, 1, 1},
      [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
        // An 8-bit pool's checkpoints (row maxima, codes): left to itself
        // ptxas gave this kernel 80 registers and spilled 4 bytes (i8,
        // Mamba2-2.7B shapes with checkpoints, sm_90a); 2 blocks per SM
        // allow 128.
        if (codec.scaled())
          KernelOccupancyOp::create(b, 2);
        Value entry = k.block.x, head = k.block.y;
        Value element =
            mul(b, add(b, mul(b, k.block.z, kChunkThreads), k.thread.x), v);
        e.ifThen(b, ult(b, element, elements), [&](ImplicitLocOpBuilder &b) {
          forChunkedSequence(b, entry, [&](ImplicitLocOpBuilder &b, Value seq) {
            Value p = divu(b, element, x.dstate);
            Value n = remu(b, element, x.dstate);
            SequenceInfo s = e.sequence(b, seq);
            std::optional<CheckpointedSequence> checkpointed;
            if (checkpoints)
              checkpointed = checkpointedSequence(b, seq, s, head);
            auto vecType = VectorType::get({v}, b.getF32Type());
            Value initial =
                ifValues(b, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
                  return SmallVector<Value>{
                      loadPoolVector(b, {s.slot, head, p, n})};
                }).front();
            Value firstChunk = toIndex(b, load(b, chunkBegin, {seq}));
            Value endChunk = toIndex(b, load(b, chunkBegin, {add(b, seq, 1)}));
            // The chain S <- exp(cum_last) S + dS is serial in the
            // chunks; each iteration loads the next chunk's operands
            // before it stores and updates, so the loads are in flight
            // one iteration ahead instead of on the chain.
            auto operandsOf = [&](ImplicitLocOpBuilder &b, Value chunk) {
              Value decay = vector::BroadcastOp::create(
                  b, vecType, load(b, chunkDecay, {chunk, head}));
              return SmallVector<Value>{
                  decay, loadStateVector(b, states, {chunk, head, p, n})};
            };
            SmallVector<Value> init{initial};
            llvm::append_range(init, ifValues(b, ult(b, firstChunk, endChunk),
                                              [&](ImplicitLocOpBuilder &b) {
                                                return operandsOf(b,
                                                                  firstChunk);
                                              }));
            Value lastChunk = sub(b, maxu(b, endChunk, idx(b, 1)), idx(b, 1));
            Value final =
                forLoop(b, firstChunk, endChunk, init,
                        [&](ImplicitLocOpBuilder &b, Value chunk,
                            ValueRange carried) {
                          Value state = carried[0];
                          SmallVector<Value> next = operandsOf(
                              b, minu(b, add(b, chunk, 1), lastChunk));
                          SmallVector<Value> at{chunk, head, p, n};
                          vectorStore(b, toMmaElement(b, state, plan.element),
                                      prevHigh, at, 2 * v);
                          if (plan.split)
                            vectorStore(b, mmaLowPart(b, state, plan.element),
                                        prevLow, at, 2 * v);
                          Value updated =
                              fadd(b, fmul(b, carried[1], state), carried[2]);
                          if (checkpoints)
                            emitChunkCheckpoints(b, *checkpointed, chunk, head,
                                                 p, n, state, updated);
                          return SmallVector<Value>{updated, next[0], next[1]};
                        })
                    .front();
            e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
              storeStateVector(b, final, finals, {entry, head, p, n});
            });
          });
        });
      });
}
