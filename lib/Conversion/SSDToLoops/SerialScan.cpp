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

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

void mlir::ssd::detail::buildSerialScan(RewriterBase &rewriter,
                                        ChunkScanVarlenOp op, int64_t pTile) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ScanEmitter e(b, op);

  WriterOrder order = e.planWriterOrder(b);
  Value tile = e.index(b, pTile);
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

    // The state tile; scf.parallel is an allocation scope, so it is freed
    // at the end of each task.
    auto stateType = MemRefType::get({pTile, ShapedType::kDynamic}, e.f32);
    Value state = memref::AllocaOp::create(b, stateType, ValueRange{e.dstate});
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
  };

  for (unsigned pass : {0u, 1u})
    e.parallel(b, {e.batch, e.heads, numTiles},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 e.ifThen(b, e.inPass(b, order, ivs[0], pass),
                          [&](ImplicitLocOpBuilder &b) {
                            emitTask(b, ivs[0], ivs[1], ivs[2]);
                          });
               });
  e.freeWriterOrder(b, order);

  rewriter.eraseOp(op);
}
