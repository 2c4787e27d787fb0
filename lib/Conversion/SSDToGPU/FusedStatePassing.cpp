//===- FusedStatePassing.cpp - launch 1 chained across blocks -------------===//
//
// Fused state passing (option fused-state-passing, 16-bit models; f32
// models keep three launches, see the plan, ChunkedPlan.cpp): launch 2
// goes away. The host zeroes a ticket counter and one flag per (chunk, head,
// state part); every block of launch 1 takes a ticket (an atomic add by
// thread 0) and uses it instead of blockIdx.x, so blocks are numbered in the
// order they start and a block only ever waits for a smaller ticket, a block
// that is running or done: forward progress on a GPU that starts blocks in
// any order. A (chunk, head, part) block computes dS in registers, then (a
// decoupled look-back: the wait comes after its own matmul) waits for the
// flag of chunk k - 1 (ld.acquire.gpu poll by thread 0 with nanosleep
// backoff, barrier), takes S_prev from the chain's state (or the pool for a
// sequence's first chunk), stores S_prev for the output kernel and publishes
// S = exp(cum_last) S_prev + dS in its place (a writing sequence's last chunk
// to its pool slot, or for a contested writer or an 8-bit pool, whose row
// scales the output kernel takes, to its final-state slot):
// stores, barrier, one st.release.gpu of its flag (cumulative over what the
// barrier ordered before it). The update runs on the dS fragments, each lane
// reading and then overwriting its own pairs of adjacent state elements.
// Chunk k waits for chunk k - 1 even across sequences, so one [H, P, N] f32
// state serves the whole chain: chunk k reads it only after chunk k - 1
// published, and chunk k - 1 wrote it after its own read. It stays in L2
// instead of round-tripping DRAM. Pool reads move to launch 1, pool writes
// stay in the output kernel: the op's ordering holds.
//
// Fused output (option fused-output, with fused state passing, when one
// block holds a chunk's whole state): launch 3 keeps only its final-state
// blocks. Within a chunk the C Bᵀ blocks take their tickets before the
// (chunk, head) blocks and, once their tile is stored, add one to a count
// per (chunk, group). A (chunk, head) block keeps cum (hi, lo), d and
// exp(cum) per token and S_prev (as the mma element) in shared memory;
// after publishing its state it waits for that count to reach the chunk's
// T (T + 1) / 2 tiles (T = ceil(len / 64)) and computes y exactly as the
// output kernel does, up to 256 rows at a time (S_prev read from its
// resident tile at each k-step's columns). So S_prev never goes to DRAM and x
// is read by one block, shortly after the same block read it for dS.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <tuple>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

/// Fused state passing, after the block computed dS in `acc` (overlapping
/// the look-back wait with its own matmul): waits until the previous
/// chunk (any sequence: the chain's state is overwritten only after its
/// reader published) published its inclusive state, then S_prev = that
/// state, or the initial state for a sequence's first chunk; stores S_prev
/// for the output kernel; publishes S = exp(cum_last) S_prev + dS in its
/// place (or, at a writing sequence's last chunk, as its final state in its
/// pool slot, or for a contested writer in `finals`).
void ChunkKernelBuilder::passState(ImplicitLocOpBuilder &b,
                                   const HeadTeam &team, Value chunk,
                                   Value part, Value located,
                                   const MmaLane &lane, const WarpTile &tile,
                                   ValueRange acc, Value n0) {
  const KernelContext &k = team.k;
  Value head = team.head;
  Value tid = k.thread.x;
  Value column = add(b, mul(b, head, plan.stateParts), part);
  auto flagOf = [&](ImplicitLocOpBuilder &b, Value chunk) {
    return add(b, add(b, mul(b, chunk, flagsPerChunk()), column), idx(b, 1));
  };
  e.ifThen(b, both(b, ult(b, idx(b, 0), chunk), eq(b, tid, idx(b, 0))),
           [&](ImplicitLocOpBuilder &b) {
             waitForFlag(b, flagOf(b, sub(b, chunk, idx(b, 1))));
           });
  gpu::BarrierOp::create(b);
  Value lastCum =
      sharedView(b, k, plan.chunkShared.lastCum, {2}, b.getF32Type());
  Value decay = e.decay(b, faddExact(b, load(b, lastCum, {idx(b, 0)}),
                                     load(b, lastCum, {idx(b, 1)})));
  // The chunk's sequence and index in it, reloaded from where
  // locateChunk left them rather than kept in registers across the
  // matmul (which, for f32 models on sm_90a, made ptxas spill).
  Value seq = toIndex(b, load(b, located, {idx(b, 0)}));
  Value j = toIndex(b, load(b, located, {idx(b, 1)}));
  SequenceInfo s = e.sequence(b, seq);
  Value isFirst = eq(b, j, idx(b, 0));
  Value isLast =
      ule(b, sub(b, s.end, add(b, s.begin, mul(b, j, L))), idx(b, L));
  // A writing sequence's last chunk stores its final state straight into
  // its pool slot when no other sequence reads that slot (its own first
  // chunk read it before the chain reached this block); a contested
  // writer leaves it to the last launch, after every pool read. So does
  // every writer of an 8-bit pool (fusedStoresFinals): the last launch
  // holds each row in one warp for its scale.
  Value direct = fusedStoresFinals() ? isLast : boolean(b, false);
  if (fusedStoresFinals() && e.hasInitialState) {
    direct = e.ifElse(
        b, isLast, b.getI1Type(),
        [&](ImplicitLocOpBuilder &b) -> Value {
          Value contested =
              contestedWriter(b, e, seq, tid, remu(b, tid, 32),
                              sharedView(b, k, plan.chunkShared.locateScratch,
                                         {k.threads / 32}, b.getI32Type()),
                              k.threads);
          return arith::XOrIOp::create(b, contested, boolean(b, true));
        },
        [&](ImplicitLocOpBuilder &b) -> Value { return boolean(b, false); });
  }
  // A contested writer's (or an 8-bit pool's writer's) final state waits
  // in `finals` for the last launch, at the sequence's entry among those
  // that run chunked.
  Value finalEntry = seq;
  if (minSequence)
    finalEntry = e.ifElse(
        b, both(b, isLast, arith::XOrIOp::create(b, direct, boolean(b, true))),
        b.getIndexType(),
        [&](ImplicitLocOpBuilder &b) -> Value {
          return chunkedSequencesBefore(
              b, seq, tid, remu(b, tid, 32), k.threads,
              sharedView(b, k, plan.chunkShared.locateScratch, {k.threads / 32},
                         b.getI32Type()));
        },
        [&](ImplicitLocOpBuilder &b) -> Value { return idx(b, 0); });
  // A checkpoint at the chunk's last token (every boundary is one here,
  // the config's verifier): the state this block publishes, one more store.
  // Stochastic rounding's counters (null otherwise): the final state holds
  // o + len tokens, the checkpoint after local token `last` o + last + 1.
  Value before = tokensBefore(b, seq);
  Value finalHeld = before && fusedStoresFinals()
                        ? add(b, before, sub(b, s.end, s.begin))
                        : Value();
  Value checkpointWrites, checkpointSlot, checkpointHeld;
  assert((!checkpoints || !codec.scaled()) &&
         "an 8-bit pool's checkpoints are stored unfused (readGPUPlan)");
  if (checkpoints) {
    Value first = mul(b, j, L);
    Value last =
        sub(b, minu(b, sub(b, s.end, s.begin), add(b, first, L)), idx(b, 1));
    std::tie(checkpointWrites, checkpointSlot) =
        checkpoints.slotAfter(b, e, checkpoints.sequence(b, e, seq), last);
    if (before)
      checkpointHeld = add(b, add(b, before, last), 1);
  }
  // The update runs on the fragments: each lane takes its accumulator
  // pairs (two adjacent state columns) and moves their S_prev, chain and
  // pool values as 8-byte pairs, 8 rows x 32 bytes per warp access (whole
  // sectors). The same operations per element as the unfused state pass,
  // so the same bits; staging dS through shared memory for 16-byte rows
  // cost more shared-memory wavefronts than it saved.
  assert(!plan.split && "fused state passing is for 16-bit models");
  // The fused output's S_prev tile: the pairs below fill P x N of it; the
  // padding the mma reads (rows past P, columns past N) must be zeros.
  SwizzledTile prevTile;
  if (fusedOutput) {
    prevTile = prevStateTile(b, team);
    const int64_t cols = swizzledColumns(plan.reductionN);
    if (plan.paddedP != x.headDim || cols != x.dstate) {
      forEachChunk(b, tid, k.threads, plan.paddedP, cols,
                   [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
                     auto [row, col] = prevStateAt(b, p, n);
                     prevTile.storeChunk(
                         b, row, col, zeroOf(b, VectorType::get({8}, mmaType)));
                   });
      gpu::BarrierOp::create(b);
    }
  }
  const int64_t N = x.dstate;
  e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
    forEachAccumulatorPair(
        b, lane, tile, acc,
        [&](ImplicitLocOpBuilder &b, Value p, Value n, Value dS0, Value dS1) {
          Value col = add(b, n0, n);
          Value inside = both(b, ult(b, p, x.headDim), ult(b, col, N));
          e.ifThen(b, inside, [&](ImplicitLocOpBuilder &b) {
            SmallVector<Value> at{chunk, head, p, col};
            auto pairOf = [](std::pair<Value, Value> v) {
              return SmallVector<Value>{v.first, v.second};
            };
            // S_prev: the initial state (or zeros) at a sequence's first
            // chunk, else what the previous chunk published.
            Type f32t = b.getF32Type();
            auto ifFirst = scf::IfOp::create(b, TypeRange{f32t, f32t}, isFirst,
                                             /*withElse=*/true);
            {
              ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
              t.setInsertionPointToStart(ifFirst.thenBlock());
              scf::YieldOp::create(
                  t, ifValues(t, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
                    return pairOf(loadPoolPair(b, {s.slot, head, p, col}, N));
                  }));
              t.setInsertionPointToStart(ifFirst.elseBlock());
              scf::YieldOp::create(
                  t, pairOf(loadPair(t, chainState, {head, p, col}, N)));
            }
            SmallVector<Value> state(ifFirst.getResults());
            if (fusedOutput) {
              // Past N the pair's second value is 0: the padding.
              Value prev = toMmaElement(
                  b,
                  vector::FromElementsOp::create(
                      b, VectorType::get({2}, b.getF32Type()), state),
                  plan.element);
              auto [row, column] = prevStateAt(b, p, col);
              vectorStore(b, prev, prevTile.buffer,
                          {row, prevTile.physicalColumn(b, row, column)}, 4);
            } else {
              storePair(b, prevHigh, at, idx(b, N), state[0], state[1],
                        N % 2 == 0);
            }
            Value u0 = fadd(b, fmul(b, decay, state[0]), dS0);
            Value u1 = fadd(b, fmul(b, decay, state[1]), dS1);
            auto storeTo = [&](ImplicitLocOpBuilder &b, Value memref,
                               SmallVector<Value> indices,
                               Value held = Value()) {
              storePair(b, memref, indices, idx(b, N), u0, u1, N % 2 == 0,
                        held);
            };
            e.ifThen(
                b, both(b, isLast, s.writesState),
                [&](ImplicitLocOpBuilder &b) {
                  if (!fusedStoresFinals())
                    return storeTo(b, finals, {finalEntry, head, p, col});
                  auto ifDirect = scf::IfOp::create(b, direct, true);
                  ImplicitLocOpBuilder d(b.getLoc(), b.getContext());
                  d.setInsertionPoint(ifDirect.thenBlock()->getTerminator());
                  storeTo(d, e.pool, {s.slot, head, p, col}, finalHeld);
                  d.setInsertionPoint(ifDirect.elseBlock()->getTerminator());
                  storeTo(d, finals, {finalEntry, head, p, col});
                });
            e.ifThen(b, arith::XOrIOp::create(b, isLast, boolean(b, true)),
                     [&](ImplicitLocOpBuilder &b) {
                       storeTo(b, chainState, {head, p, col});
                     });
            if (checkpoints)
              e.ifThen(b, checkpointWrites, [&](ImplicitLocOpBuilder &b) {
                storeTo(b, e.pool, {checkpointSlot, head, p, col},
                        checkpointHeld);
              });
          });
        });
  });
  // Every thread's stores before the flag, for every later reader: the
  // barrier orders them before thread 0's st.release.gpu, which is
  // cumulative (one release, not a fence in each of 256 threads).
  gpu::BarrierOp::create(b);
  e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
    storeRelease(b, i32(b, 1), flags, {flagOf(b, chunk)});
  });
  if (fusedOutput)
    emitFusedOutput(b, team, chunk, located);
}

/// Fused output: y for every row of the chunk, outputRows rows at a time,
/// once the chunk's C Bᵀ tiles are stored (each C Bᵀ block counts itself
/// in when done; they hold smaller tickets), or at once where the block
/// computes C Bᵀ itself (cb_in_block). S_prev, cum, d and exp(cum) are in
/// this block's shared memory already.
void ChunkKernelBuilder::emitFusedOutput(ImplicitLocOpBuilder &b,
                                         const HeadTeam &team, Value chunk,
                                         Value located) {
  Value tid = team.k.thread.x;
  Value seq = toIndex(b, load(b, located, {idx(b, 0)}));
  Value j = toIndex(b, load(b, located, {idx(b, 1)}));
  SequenceInfo s = e.sequence(b, seq);
  Value first = add(b, s.begin, mul(b, j, L));
  ChunkLocation c{seq, first, minu(b, idx(b, L), sub(b, s.end, first))};
  Value group = groupOf(b, team);
  if (cbTiles()) {
    Value tiles = ceilDiv(b, c.len, kRowTile);
    Value expected = toI32(b, divu(b, mul(b, tiles, add(b, tiles, 1)), 2));
    e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      waitForFlag(b, cbCountOf(b, chunk, group), expected);
    });
    gpu::BarrierOp::create(b);
  }
  OutputTileLayout layout = fusedOutputLayout();
  scf::ForOp::create(
      b, idx(b, 0), c.len, idx(b, plan.outputRows), ValueRange{},
      [&](OpBuilder &nested, Location loc, Value i0, ValueRange) {
        ImplicitLocOpBuilder inner(loc, nested);
        emitOutputTile(inner, team, layout, chunk, c, i0);
        // The next pass reuses the staging tiles.
        gpu::BarrierOp::create(inner);
        scf::YieldOp::create(inner);
      });
  if (!cbTiles())
    return;
  // Every thread's C Bᵀ reads are done (the last pass's barrier): the
  // chunk's ring slot may be written again once every head of the group
  // counted itself out.
  countIn(b, tid, [&](ImplicitLocOpBuilder &b) {
    return cbReadersOf(b, chunk, group);
  });
}
