//===- ChunkedScan.cpp - the chunked SSD scan as loops --------------------===//
//
// The SSD block decomposition. Each sequence is cut into chunks of at most
// L = chunk_size tokens that never cross a sequence boundary. Within chunk k
// of sequence b, head h (group g), with d_t the processed dt and
// a_t = d_t A_h, let cum_t = sum_{r = first..t} a_r (inclusive) and
// seg(s, t) = sum_{r = s+1..t} a_r, the log-decay from token s to token t:
//
//   1. cumsum:  d_t and cum_t                          per (chunk, head)
//   2. state:   dS_k[p, n] = sum_s exp(seg(s, last)) d_s x[s, p] B[s, n]
//               = Xwᵀ B, an (P x L)(L x N) matmul      per (chunk, head)
//   3. CBᵀ:     G_k[i, j] = sum_n C[i, n] B[j, n], j <= i
//               an (L x N)(N x L) matmul               per (chunk, group)
//   4. passing: S_prev(k) = state entering chunk k:
//               S_prev(first) = initial, S_prev(k+1) = exp(cum_last) S_prev(k)
//               + dS_k serial over the chunks of a sequence, then pool[slot] =
//               final S
//                                                      per (sequence, head, p)
//   5. output:  y[i, p] = exp(cum_i) sum_n C[i, n] S_prev[p, n]      (L x N)(N
//   x P)
//                       + sum_{j <= i} G[i, j] exp(seg(j, i)) d_j x[j, p]  (L x
//                       L)(L x P)
//                       + D_h x[i, p]                  per (chunk, head, row)
//
// seg is accumulated from the later token backwards instead of formed as a
// difference of cumsums: a difference of two large sums loses the digits
// that matter for recent tokens. Every decay is exp(min(., 0)), so a masked
// or out-of-order lane cannot overflow into inf * 0 = NaN.
//
// State checkpoints (see ScanEmitter/Checkpoints.h) are written by phase 4.
// A boundary at the end of chunk k needs exactly the state it computes
// anyway, S after chunk k = exp(cum_last) S_prev(k) + dS_k, so chunk-end
// checkpoints are free. A boundary after token j inside chunk k needs the
// state there, which no phase forms: the task walks the plain recurrence
//
//   S <- exp(d_t A_h) S + d_t x[t, p] B[t, n]     for t = first(k) .. j
//
// from S_prev(k), storing at each intra-chunk boundary on the way, and stops
// at the chunk's last one. It is the same recurrence the reference runs,
// started from the chunked S_prev(k), so each checkpoint is as exact as a
// final state; the walk's result is not fed into later chunks, which carry on
// from the chunked S_prev(k + 1) as without checkpoints. Its cost is a serial
// walk of O(N) per token per row p over the chunk up to its last boundary,
// as much work as phase 2 again when every chunk has a boundary near its end:
// chunk-end checkpoints are free, intra-chunk ones are not, and with interval
// 1 every chunk is walked nearly whole, which is why interval 1 (speculative
// verify) prefers the serial form. Phase 1 stores each token's decay
// exp(d_t A_h) for the walk ([T, H] f32, only with checkpoints), so it forms
// no exp per element: 1.4x faster walks (Mamba2-2.7B prefill of 2048 tokens,
// L = I = 256, a boundary mid-chunk: 4.9 s, then 3.5 s, against 1.0 s
// without checkpoints, one thread).
//
// Phase 4 reads and writes the pool through ScanEmitter/PoolCodec.h. It forms
// a row's values one element at a time (n outermost, the chunks inside), so
// an 8-bit pool, whose codes need the maximum of the whole row, keeps the
// rows it writes in f32 (the final state's [N] and the [W, N] of the W
// boundaries written) and encodes them once the row is done: (W + 1) N f32
// more per task (allocateScratch). Other formats are encoded element by
// element.
//
// The work list (chunk -> sequence, first token, length) makes every phase a
// flat parallel loop over chunks with data-independent structure; phases 3
// and 5 run rows up to min(L, T) with a guard, the shape the GPU mapping
// needs.
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "ScanEmitter/Checkpoints.h"
#include "ScanEmitter/PoolCodec.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

/// Buffers the chunked form allocates for one op and frees after it.
struct ChunkWorkspace {
  ChunkWorkList list;
  Value numChunks; // index: K, the number of chunks in use
  Value dts;       // [T, H] f32: processed dt
  Value cums;      // [T, H] f32: in-chunk inclusive cumsum of d A
  Value states;    // [Kmax, H, P, N] f32: dS_k, then S_prev(k)
  Value cb;        // [Kmax, G, R, R] f32: C Bᵀ per chunk and group
  Value decays;    // [T, H] f32: exp(d A) per token, only with checkpoints

  SmallVector<Value> all() const {
    SmallVector<Value> buffers{list.begin, list.seq, list.first, list.len,
                               dts,        cums,     states,     cb};
    if (decays)
      buffers.push_back(decays);
    return buffers;
  }
};

class ChunkedScanBuilder {
public:
  ChunkedScanBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                     int64_t chunkSize)
      : e(b, op), checkpoints(b, e), codec(op), chunkSize(chunkSize),
        staticDState(cast<ShapedType>(op.getB().getType()).getDimSize(2)) {}

  void build(ImplicitLocOpBuilder &b) {
    allocate(b);
    buildWorkList(b);
    emitCumsum(b);
    emitChunkStates(b);
    emitChunkCB(b);
    WriterOrder order = e.planWriterOrder(b);
    ActiveSequences active = buildActiveSequences(b, e, order);
    emitStatePassing(b, active, 0);
    emitStatePassing(b, active, 1);
    freeActiveSequences(b, active);
    e.freeWriterOrder(b, order);
    emitOutput(b);
    for (Value buffer : ws.all())
      memref::DeallocOp::create(b, buffer);
  }

private:
  ScanEmitter e;
  CheckpointEmitter checkpoints;
  PoolCodec codec;
  int64_t chunkSize;
  int64_t staticDState;
  ChunkWorkspace ws;
  Value maxChunks;
  // R = min(L, T): no chunk is longer, so C Bᵀ and the row loops need no
  // more, however large the requested chunk size.
  Value maxChunkRows;

  Value add(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::AddIOp::create(b, l, r);
  }
  Value sub(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::SubIOp::create(b, l, r);
  }
  Value fadd(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::AddFOp::create(b, l, r);
  }
  Value fmul(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::MulFOp::create(b, l, r);
  }
  Value load(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  void store(ImplicitLocOpBuilder &b, Value v, Value memref,
             ValueRange indices) {
    memref::StoreOp::create(b, v, memref, indices);
  }
  Value alloc(ImplicitLocOpBuilder &b, ArrayRef<Value> sizes,
              Type elementType) {
    SmallVector<int64_t> shape(sizes.size(), ShapedType::kDynamic);
    return memref::AllocOp::create(b, MemRefType::get(shape, elementType),
                                   sizes);
  }

  ChunkInfo chunk(ImplicitLocOpBuilder &b, Value k) {
    return e.chunkAt(b, ws.list, k);
  }

  void allocate(ImplicitLocOpBuilder &b) {
    Value L = e.index(b, chunkSize);
    // ceil(T / L) + min(batch, T): only sequences with tokens have chunks,
    // and each has at most one partial chunk, so a launch of empty
    // sequences allocates no [K, H, P, N] states at all (ceil(T / L) +
    // batch, the bound the GPU form uses, would grow with batch).
    maxChunks =
        arith::AddIOp::create(b, arith::CeilDivUIOp::create(b, e.tokens, L),
                              arith::MinUIOp::create(b, e.batch, e.tokens));
    maxChunkRows = arith::MinUIOp::create(b, L, e.tokens);
    Type index = b.getIndexType();
    ws.list.maxChunks = maxChunks;
    ws.list.begin = alloc(b, {add(b, e.batch, e.index(b, 1))}, index);
    ws.list.seq = alloc(b, {maxChunks}, index);
    ws.list.first = alloc(b, {maxChunks}, index);
    ws.list.len = alloc(b, {maxChunks}, index);
    ws.dts = alloc(b, {e.tokens, e.heads}, e.f32);
    ws.cums = alloc(b, {e.tokens, e.heads}, e.f32);
    ws.states = alloc(b, {maxChunks, e.heads, e.headDim, e.dstate}, e.f32);
    ws.cb = alloc(b, {maxChunks, e.groups, maxChunkRows, maxChunkRows}, e.f32);
    if (checkpoints)
      ws.decays = alloc(b, {e.tokens, e.heads}, e.f32);
  }

  // Serial over sequences; cheap (batch + K stores) next to any phase below.
  void buildWorkList(ImplicitLocOpBuilder &b) {
    ws.numChunks = e.fillChunkWorkList(b, ws.list, chunkSize);
  }

  // Phase 1: d_t and cum_t for every token of every chunk and head.
  void emitCumsum(ImplicitLocOpBuilder &b) {
    e.parallel(b, {ws.numChunks, e.heads},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 Value head = ivs[1];
                 ChunkInfo c = chunk(b, ivs[0]);
                 Value a = e.loadF32(b, e.A, {head});
                 e.reduce(
                     b, c.first, add(b, c.first, c.len), e.f32Const(b, 0.0),
                     [&](ImplicitLocOpBuilder &b, Value t, Value cum) -> Value {
                       Value d = e.processedDt(b, t, head);
                       store(b, d, ws.dts, {t, head});
                       if (ws.decays)
                         store(b, e.decay(b, fmul(b, d, a)), ws.decays,
                               {t, head});
                       Value next = fadd(b, cum, fmul(b, d, a));
                       store(b, next, ws.cums, {t, head});
                       return next;
                     });
               });
  }

  // Phase 2: dS_k[p, :] = sum_s exp(seg(s, last)) d_s x[s, p] B[s, :],
  // walking s from the chunk's last token back so seg is a running sum.
  void emitChunkStates(ImplicitLocOpBuilder &b) {
    e.parallel(
        b, {ws.numChunks, e.heads, e.headDim},
        [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
          Value k = ivs[0], head = ivs[1], p = ivs[2];
          ChunkInfo c = chunk(b, k);
          Value group = e.groupOf(b, head);
          Value a = e.loadF32(b, e.A, {head});
          Value zero = e.index(b, 0);
          e.loop(b, zero, e.dstate, [&](ImplicitLocOpBuilder &b, Value n) {
            store(b, e.f32Const(b, 0.0), ws.states, {k, head, p, n});
          });
          e.reduce(
              b, zero, c.len, e.f32Const(b, 0.0),
              [&](ImplicitLocOpBuilder &b, Value back, Value seg) -> Value {
                Value s = sub(b, c.last, back);
                Value d = load(b, ws.dts, {s, head});
                Value weight = fmul(b, fmul(b, e.decay(b, seg), d),
                                    e.loadF32(b, e.x, {s, head, p}));
                e.loop(b, zero, e.dstate,
                       [&](ImplicitLocOpBuilder &b, Value n) {
                         Value acc = load(b, ws.states, {k, head, p, n});
                         Value bv = e.loadF32(b, e.B, {s, group, n});
                         store(b, fadd(b, acc, fmul(b, weight, bv)), ws.states,
                               {k, head, p, n});
                       });
                return fadd(b, seg, fmul(b, d, a));
              });
        });
  }

  // Phase 3: G_k = C Bᵀ (lower triangle) per chunk and group, shared by the
  // H / G heads of the group.
  void emitChunkCB(ImplicitLocOpBuilder &b) {
    e.parallel(b, {ws.numChunks, e.groups, maxChunkRows},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 Value k = ivs[0], group = ivs[1], i = ivs[2];
                 ChunkInfo c = chunk(b, k);
                 Value inChunk = arith::CmpIOp::create(
                     b, arith::CmpIPredicate::ult, i, c.len);
                 e.ifThen(b, inChunk, [&](ImplicitLocOpBuilder &b) {
                   Value ti = add(b, c.first, i);
                   Value zero = e.index(b, 0);
                   e.loop(b, zero, add(b, i, e.index(b, 1)),
                          [&](ImplicitLocOpBuilder &b, Value j) {
                            Value tj = add(b, c.first, j);
                            Value dot = e.reduce(
                                b, zero, e.dstate, e.f32Const(b, 0.0),
                                [&](ImplicitLocOpBuilder &b, Value n,
                                    Value acc) -> Value {
                                  return fadd(
                                      b, acc,
                                      fmul(b, e.loadF32(b, e.C, {ti, group, n}),
                                           e.loadF32(b, e.B, {tj, group, n})));
                                });
                            store(b, dot, ws.cb, {k, group, i, j});
                          });
                 });
               });
  }

  // Phase 4: carry the state across each sequence's chunks. Element (p, n)
  // of the state evolves independently, so each task owns a row p and walks
  // the chunks in order, leaving S_prev(k) where dS_k was.
  // Runs for the sequences of one pass (see WriterOrder) that have tokens
  // or a state to store.
  void emitStatePassing(ImplicitLocOpBuilder &b, const ActiveSequences &active,
                        unsigned pass) {
    e.parallel(
        b, {active.count[pass], e.heads, e.headDim},
        [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
          Value seq = activeSequence(b, e, active, pass, ivs[0]);
          Value head = ivs[1], p = ivs[2];
          SequenceInfo s = e.sequence(b, seq);
          Value firstChunk = load(b, ws.list.begin, seq);
          Value endChunk = load(b, ws.list.begin, add(b, seq, e.index(b, 1)));
          PassingRow row;
          row.seq = seq;
          row.head = head;
          row.p = p;
          row.s = s;
          if (checkpoints)
            row.range = checkpoints.range(b, seq, s);
          if (codec.stochastic)
            row.prior = priorTokens(b, e, seq);
          // The row's scale, read once (an 8-bit pool only).
          Value readScale;
          if (codec.scaled())
            readScale = e.ifElse(
                b, s.readsInitial, e.f32,
                [&](ImplicitLocOpBuilder &b) {
                  return codec.loadScale(b, s.slot, head, p);
                },
                [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); });
          allocateStaging(b, row);
          e.loop(b, e.index(b, 0), e.dstate,
                 [&](ImplicitLocOpBuilder &b, Value n) {
                   Value initial = e.ifElse(
                       b, s.readsInitial, e.f32,
                       [&](ImplicitLocOpBuilder &b) {
                         return codec.decode(
                             b,
                             memref::LoadOp::create(
                                 b, e.pool, ValueRange{s.slot, head, p, n}),
                             readScale);
                       },
                       [&](ImplicitLocOpBuilder &b) {
                         return e.f32Const(b, 0.0);
                       });
                   Value final = e.reduce(
                       b, firstChunk, endChunk, initial,
                       [&](ImplicitLocOpBuilder &b, Value k,
                           Value state) -> Value {
                         ChunkInfo c = chunk(b, k);
                         Value chunkDecay =
                             e.decay(b, load(b, ws.cums, {c.last, head}));
                         Value contribution =
                             load(b, ws.states, {k, head, p, n});
                         store(b, state, ws.states, {k, head, p, n});
                         Value next =
                             fadd(b, fmul(b, chunkDecay, state), contribution);
                         if (checkpoints)
                           emitChunkCheckpoints(b, row, c, n, state, next);
                         return next;
                       });
                   e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
                     storeState(b, row, /*checkpoint=*/Value(), s.slot, n,
                                final, s.end);
                   });
                 });
          if (codec.scaled())
            emitScaledRows(b, row);
        });
  }

  /// One (sequence, head, p) task of phase 4, and where an 8-bit pool's rows
  /// wait for their scale.
  struct PassingRow {
    Value seq, head, p;
    SequenceInfo s;
    CheckpointRange range; // only with checkpoints
    Value prior;           // index: o, only with stochastic rounding
    // 8-bit pools only: an element's code needs the maximum over its whole
    // row, and phase 4 forms the row one element at a time (n outermost, the
    // chunks inside), so the rows written (the final state, [N]; the
    // boundaries written, [W, N]) are kept in f32 until the row is done.
    Scratch finalRow, checkpointRows;
    Value written; // index: W, the boundaries written (with checkpoints)
  };

  void allocateStaging(ImplicitLocOpBuilder &b, PassingRow &row) {
    if (!codec.scaled())
      return;
    bool dynamicN = ShapedType::isDynamic(staticDState);
    row.finalRow = allocateScratch(
        b, {staticDState}, dynamicN ? ValueRange{e.dstate} : ValueRange{});
    if (!checkpoints)
      return;
    row.written =
        checkpoints.writtenWithin(b, row.range, sub(b, row.s.end, row.s.begin));
    SmallVector<Value> sizes{row.written};
    if (dynamicN)
      sizes.push_back(e.dstate);
    row.checkpointRows =
        allocateScratch(b, {ShapedType::kDynamic, staticDState}, sizes);
  }

  /// index: the tokens held by a state written after the token before
  /// `end`, for stochastic rounding; null otherwise.
  Value held(ImplicitLocOpBuilder &b, const PassingRow &row, Value end) {
    if (!codec.stochastic)
      return Value();
    return tokensHeld(b, row.prior, row.s.begin, end);
  }

  /// Element n of the final state (checkpoint null) or of boundary
  /// `checkpoint`'s state, which ends before `end` (read with stochastic
  /// rounding only), into `slot`: encoded now, or for an 8-bit pool kept
  /// until its row is done (emitScaledRows).
  void storeState(ImplicitLocOpBuilder &b, const PassingRow &row,
                  Value checkpoint, Value slot, Value n, Value value,
                  Value end) {
    if (codec.scaled()) {
      if (checkpoint)
        store(b, value, row.checkpointRows.buffer, {checkpoint, n});
      else
        store(b, value, row.finalRow.buffer, {n});
      return;
    }
    PoolWriteSite site{slot, row.head, row.p, n, held(b, row, end)};
    store(b, codec.encode(b, value, Value(), site), e.pool,
          {slot, row.head, row.p, n});
  }

  /// An 8-bit pool's rows kept by storeState, each with its maximum, scale
  /// and codes.
  void emitScaledRows(ImplicitLocOpBuilder &b, const PassingRow &row) {
    const SequenceInfo &s = row.s;
    e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
      emitScaledRow(b, row, row.finalRow.buffer, {}, s.slot, s.end);
    });
    freeScratch(b, row.finalRow);
    if (!checkpoints)
      return;
    e.loop(b, e.index(b, 0), row.written,
           [&](ImplicitLocOpBuilder &b, Value k) {
             checkpoints.ifSlot(
                 b, row.seq, k, [&](ImplicitLocOpBuilder &b, Value slot) {
                   emitScaledRow(b, row, row.checkpointRows.buffer, {k}, slot,
                                 checkpoints.boundaryEnd(b, row.range, k));
                 });
           });
    freeScratch(b, row.checkpointRows);
  }

  void emitScaledRow(ImplicitLocOpBuilder &b, const PassingRow &row,
                     Value buffer, ValueRange prefix, Value slot, Value end) {
    Value zero = e.index(b, 0);
    auto at = [&](Value n) {
      SmallVector<Value> indices(prefix.begin(), prefix.end());
      indices.push_back(n);
      return indices;
    };
    Value maxAbs =
        e.reduce(b, zero, e.dstate, e.f32Const(b, 0.0),
                 [&](ImplicitLocOpBuilder &b, Value n, Value acc) -> Value {
                   return codec.absMax(b, acc, load(b, buffer, at(n)));
                 });
    PoolCodec::RowScale r = codec.rowScale(b, maxAbs);
    codec.storeScale(b, r.scale, slot, row.head, row.p);
    Value tokens = held(b, row, end);
    e.loop(b, zero, e.dstate, [&](ImplicitLocOpBuilder &b, Value n) {
      PoolWriteSite site{slot, row.head, row.p, n, tokens};
      store(b, codec.encode(b, load(b, buffer, at(n)), r.inverse, site), e.pool,
            {slot, row.head, row.p, n});
    });
  }

  // Phase 4's checkpoints of chunk c at element (p, n), given the state
  // entering the chunk and the one leaving it (see the file comment).
  void emitChunkCheckpoints(ImplicitLocOpBuilder &b, const PassingRow &row,
                            const ChunkInfo &c, Value n, Value entering,
                            Value leaving) {
    Value seq = row.seq, head = row.head, p = row.p;
    const SequenceInfo &s = row.s;
    const CheckpointRange &range = row.range;
    Value one = e.index(b, 1);
    // Boundaries before the chunk, and up to its end: those in between are
    // this chunk's, the last at its end when the end is a boundary.
    Value before = sub(b, c.first, s.begin);
    Value after = add(b, before, c.len);
    Value firstBoundary = checkpoints.boundariesWithin(b, range, before);
    Value endBoundaries = checkpoints.boundariesWithin(b, range, after);
    // The chunk's last token is a boundary when phase + after is a multiple
    // of I (after >= 1: chunks are never empty).
    Value endIsBoundary = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, add(b, range.phase, after),
                               e.index(b, checkpoints.interval)),
        e.index(b, 0));
    Value intraEnd = arith::MinUIOp::create(
        b,
        sub(b, endBoundaries,
            arith::IndexCastUIOp::create(b, b.getIndexType(), endIsBoundary)),
        range.limit);

    // Intra-chunk boundaries [firstBoundary, intraEnd): the serial walk from
    // the entering state, one segment of tokens per boundary.
    Value group = e.groupOf(b, head);
    scf::ForOp::create(
        b, firstBoundary, arith::MaxUIOp::create(b, firstBoundary, intraEnd),
        one, ValueRange{entering, c.first},
        [&](OpBuilder &nested, Location loc, Value k, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value segmentEnd = checkpoints.boundaryEnd(b, range, k);
          Value state = e.reduce(
              b, carried[1], segmentEnd, carried[0],
              [&](ImplicitLocOpBuilder &b, Value t, Value state) -> Value {
                Value d = load(b, ws.dts, {t, head});
                Value input =
                    fmul(b, fmul(b, d, e.loadF32(b, e.x, {t, head, p})),
                         e.loadF32(b, e.B, {t, group, n}));
                return fadd(b, fmul(b, load(b, ws.decays, {t, head}), state),
                            input);
              });
          checkpoints.ifSlot(
              b, seq, k, [&](ImplicitLocOpBuilder &b, Value slot) {
                storeState(b, row, k, slot, n, state, segmentEnd);
              });
          scf::YieldOp::create(b, ValueRange{state, segmentEnd});
        });

    // The chunk-end boundary: the state phase 4 carries on with.
    Value last = sub(b, endBoundaries, one);
    Value endWritten = arith::AndIOp::create(
        b, endIsBoundary,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, last, range.limit));
    e.ifThen(b, endWritten, [&](ImplicitLocOpBuilder &b) {
      checkpoints.ifSlot(
          b, seq, last, [&](ImplicitLocOpBuilder &b, Value slot) {
            Value end = codec.stochastic ? add(b, c.first, c.len) : Value();
            storeState(b, row, last, slot, n, leaving, end);
          });
    });
  }

  // Phase 5: y for row i of chunk k and head h, accumulated over p in a
  // small buffer so each decay weight is formed once per (i, j), not per p.
  void emitOutput(ImplicitLocOpBuilder &b) {
    e.parallel(
        b, {ws.numChunks, e.heads, maxChunkRows},
        [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
          Value k = ivs[0], head = ivs[1], i = ivs[2];
          ChunkInfo c = chunk(b, k);
          Value inChunk =
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i, c.len);
          e.ifThen(b, inChunk, [&](ImplicitLocOpBuilder &b) {
            Value zero = e.index(b, 0);
            Value t = add(b, c.first, i);
            Value group = e.groupOf(b, head);
            Value a = e.loadF32(b, e.A, {head});
            // [P] f32 on the stack only when P is static and small.
            int64_t staticHeadDim =
                cast<ShapedType>(e.x.getType()).getDimSize(2);
            Scratch accBuffer = allocateScratch(
                b, {staticHeadDim},
                ShapedType::isDynamic(staticHeadDim) ? ValueRange{e.headDim}
                                                     : ValueRange{});
            Value acc = accBuffer.buffer;

            // Inter-chunk term (+ skip): exp(cum_i) C_i · S_prev[p, :] + D x.
            Value inter = e.decay(b, load(b, ws.cums, {t, head}));
            e.loop(b, zero, e.headDim, [&](ImplicitLocOpBuilder &b, Value p) {
              Value dot = e.reduce(
                  b, zero, e.dstate, e.f32Const(b, 0.0),
                  [&](ImplicitLocOpBuilder &b, Value n, Value sum) -> Value {
                    return fadd(b, sum,
                                fmul(b, e.loadF32(b, e.C, {t, group, n}),
                                     load(b, ws.states, {k, head, p, n})));
                  });
              Value v = fmul(b, inter, dot);
              if (e.D)
                v = fadd(b, v,
                         fmul(b, e.loadF32(b, e.D, {head}),
                              e.loadF32(b, e.x, {t, head, p})));
              store(b, v, acc, p);
            });

            // Intra-chunk term, j from i down to the chunk's first row.
            e.reduce(
                b, zero, add(b, i, e.index(b, 1)), e.f32Const(b, 0.0),
                [&](ImplicitLocOpBuilder &b, Value back, Value seg) -> Value {
                  Value j = sub(b, i, back);
                  Value s = add(b, c.first, j);
                  Value d = load(b, ws.dts, {s, head});
                  Value weight = fmul(b,
                                      fmul(b, load(b, ws.cb, {k, group, i, j}),
                                           e.decay(b, seg)),
                                      d);
                  e.loop(b, zero, e.headDim,
                         [&](ImplicitLocOpBuilder &b, Value p) {
                           Value term =
                               fmul(b, weight, e.loadF32(b, e.x, {s, head, p}));
                           store(b, fadd(b, load(b, acc, p), term), acc, p);
                         });
                  return fadd(b, seg, fmul(b, d, a));
                });

            e.loop(b, zero, e.headDim, [&](ImplicitLocOpBuilder &b, Value p) {
              e.storeRounded(b, load(b, acc, p), e.y, {t, head, p});
            });
            freeScratch(b, accBuffer);
          });
        });
  }
};

} // namespace

void mlir::ssd::detail::buildChunkedScan(RewriterBase &rewriter,
                                         ChunkScanVarlenOp op,
                                         int64_t chunkSize) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ChunkedScanBuilder(b, op, chunkSize).build(b);
  rewriter.eraseOp(op);
}
