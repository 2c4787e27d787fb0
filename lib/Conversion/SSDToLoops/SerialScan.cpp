//===- SerialScan.cpp - the token-serial scan as loops --------------------===//
//
// The recurrence itself, one token at a time, for every (sequence, head,
// P-tile) in parallel. With d = processed dt, g = h / (H / G):
//
//   S      = has_initial_state[b] ? pool[slot, h, p-tile, :] : 0     (f32)
//   for t in tokens of b:
//     S[p, n]  = exp(d_t A_h) S[p, n] + (d_t x[t, h, p]) B[t, g, n]
//     y[t,h,p] = sum_n S[p, n] C[t, g, n]  (+ D_h x[t, h, p])
//   if writes: pool[slot, h, p-tile, :] = S
//
// Every reader sees the pool as it was before the op: a writer whose slot
// other sequences read runs in a second parallel loop, after all the others.
//
// Work is O(T H P N) with no redundant flops, and the state of a task is one
// P-tile x N block that stays in cache for the whole sequence: the right form
// when sequences are short (decode, speculative verify).
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "ssd/IR/SSDLimits.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

void mlir::ssd::detail::buildSerialScan(RewriterBase &rewriter,
                                        ChunkScanVarlenOp op, int64_t pTile) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ScanEmitter e(b, op);

  // A tile never needs more rows than head_dim has; hosts calling the
  // pattern directly get the pass's bounds too. A tile also holds at most
  // kMaxStateTileBytes (fewer rows for a large N), so that a task's heap
  // tile stays below the allocator's mmap threshold and is reused, not
  // faulted in afresh, by the next task.
  pTile = std::clamp<int64_t>(pTile, 1, ::ssd::limits::kMaxSerialPTile);
  int64_t staticHeadDim = cast<ShapedType>(op.getX().getType()).getDimSize(2);
  if (!ShapedType::isDynamic(staticHeadDim) && staticHeadDim >= 1)
    pTile = std::min(pTile, staticHeadDim);
  int64_t staticDState = cast<ShapedType>(op.getB().getType()).getDimSize(2);
  const int64_t maxTileElements = ::ssd::limits::kMaxStateTileBytes / 4;
  Value tile;
  if (!ShapedType::isDynamic(staticDState)) {
    pTile = std::clamp<int64_t>(maxTileElements / std::max<int64_t>(staticDState, 1),
                                1, pTile);
    tile = e.index(b, pTile);
  } else {
    // rows = clamp(maxTileElements / N, 1, pTile) at run time.
    Value rowsForN = arith::DivUIOp::create(
        b, e.index(b, maxTileElements),
        arith::MaxUIOp::create(b, e.dstate, e.index(b, 1)));
    tile = arith::MaxUIOp::create(
        b, e.index(b, 1),
        arith::MinUIOp::create(b, rowsForN, e.index(b, pTile)));
  }

  WriterOrder order = e.planWriterOrder(b);
  ActiveSequences active = buildActiveSequences(b, e, order);
  Value numTiles = arith::CeilDivUIOp::create(b, e.headDim, tile);

  auto emitTask = [&](ImplicitLocOpBuilder &b, Value seq, Value head,
                      Value tileIndex) {
    SequenceInfo s = e.sequence(b, seq);
    Value group = e.groupOf(b, head);
    Value a = e.loadF32(b, e.A, {head});
    Value p0 = arith::MulIOp::create(b, tileIndex, tile);
    Value rows = arith::MinUIOp::create(
        b, tile, arith::SubIOp::create(b, e.headDim, p0));
    Value zero = e.index(b, 0);

    // The state tile [P-tile, N]: on the stack when small and static
    // (scf.parallel is an allocation scope, so it is freed at the end of
    // each task), else on the heap, freed below: never a stack allocation
    // that grows with N.
    bool dynamicTile = ShapedType::isDynamic(staticDState);
    Scratch stateTile = allocateScratch(
        b, {dynamicTile ? ShapedType::kDynamic : pTile, staticDState},
        dynamicTile ? ValueRange{tile, e.dstate} : ValueRange{});
    Value state = stateTile.buffer;
    auto forEachStateElement =
        [&](ImplicitLocOpBuilder &b,
            function_ref<void(ImplicitLocOpBuilder &, Value, Value)> body) {
          e.loop(b, zero, rows, [&](ImplicitLocOpBuilder &b, Value p) {
            e.loop(b, zero, e.dstate,
                   [&](ImplicitLocOpBuilder &b, Value n) { body(b, p, n); });
          });
        };

    forEachStateElement(b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
      Value initial = e.ifElse(
          b, s.readsInitial, e.f32,
          [&](ImplicitLocOpBuilder &b) {
            Value row = arith::AddIOp::create(b, p0, p);
            return e.loadF32(b, e.pool, {s.slot, head, row, n});
          },
          [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); });
      memref::StoreOp::create(b, initial, state, ValueRange{p, n});
    });

    e.loop(b, s.begin, s.end, [&](ImplicitLocOpBuilder &b, Value t) {
      Value d = e.processedDt(b, t, head);
      // d A <= 0 for valid inputs; the decay is formed as in the reference.
      Value decay = e.exp(b, arith::MulFOp::create(b, d, a));
      e.loop(b, zero, rows, [&](ImplicitLocOpBuilder &b, Value p) {
        Value row = arith::AddIOp::create(b, p0, p);
        Value xv = e.loadF32(b, e.x, {t, head, row});
        Value dx = arith::MulFOp::create(b, d, xv);
        Value out = e.reduce(
            b, zero, e.dstate, e.f32Const(b, 0.0),
            [&](ImplicitLocOpBuilder &b, Value n, Value acc) -> Value {
              Value old = memref::LoadOp::create(b, state, ValueRange{p, n});
              Value bv = e.loadF32(b, e.B, {t, group, n});
              Value cv = e.loadF32(b, e.C, {t, group, n});
              Value updated =
                  arith::AddFOp::create(b, arith::MulFOp::create(b, decay, old),
                                        arith::MulFOp::create(b, dx, bv));
              memref::StoreOp::create(b, updated, state, ValueRange{p, n});
              return arith::AddFOp::create(
                  b, acc, arith::MulFOp::create(b, updated, cv));
            });
        if (e.D)
          out = arith::AddFOp::create(
              b, out, arith::MulFOp::create(b, e.loadF32(b, e.D, {head}), xv));
        e.storeRounded(b, out, e.y, {t, head, row});
      });
    });

    e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
      forEachStateElement(b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
        Value row = arith::AddIOp::create(b, p0, p);
        Value v = memref::LoadOp::create(b, state, ValueRange{p, n});
        e.storeRounded(b, v, e.pool, {s.slot, head, row, n});
      });
    });
    freeScratch(b, stateTile);
  };

  // Only sequences with tokens or a state to store get tasks; pass 1 holds
  // the writers whose slot other sequences read (see WriterOrder).
  for (unsigned pass : {0u, 1u})
    e.parallel(b, {active.count[pass], e.heads, numTiles},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 emitTask(b, activeSequence(b, e, active, pass, ivs[0]),
                          ivs[1], ivs[2]);
               });
  freeActiveSequences(b, active);
  e.freeWriterOrder(b, order);

  rewriter.eraseOp(op);
}
