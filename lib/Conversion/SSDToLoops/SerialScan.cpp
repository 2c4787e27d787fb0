//===- SerialScan.cpp - the token-serial scan as loops --------------------===//
//
// The recurrence itself, one token at a time, for every (head, P-tile,
// sequence) in parallel. With d = processed dt, g = h / (H / G):
//
//   S      = has_initial_state[b] ? pool[slot, h, p-tile, :] : 0     (f32)
//   for t in tokens of b:
//     S[p, n]  = exp(d_t A_h) S[p, n] + (d_t x[t, h, p]) B[t, g, n]
//     y[t,h,p] = sum_n S[p, n] C[t, g, n]  (+ D_h x[t, h, p])
//   if writes: pool[slot, h, p-tile, :] = S
//
// What is emitted keeps the tile scaled, S = s S', with one scalar s per
// task (the decays since the last rescale):
//
//   s_t       = s_{t-1} exp(d_t A_h)
//   S'[p, :] += (d_t x[t, h, p] / s_t) B[t, g, :]      one FMA per element
//   y[t,h,p]  = s_t (S'[p, :] . C[t, g, :])            one FMA per element
//
// so a state element costs two vector FMAs per token instead of a multiply
// and two FMAs. Tokens go through the tile in pairs: each state vector is
// loaded, takes both tokens' updates and dot products, and is stored once. When
// s_t leaves [2^-32, 2^32] (or is not finite) it is folded back first, S' = s_t
// S' and s_t = 1. Then S' = S / s and each update d x B / s stay below f32's
// 2^128 while the state and d x B stay below 2^96 (at [2^-48, 2^48] a state
// of 2^79 with inputs of its size already overflowed; a fold costs one pass
// over the tile per ~22 / |d A| tokens, nothing next to two FMAs per element
// and token); a decay that underflows to zero is then applied exactly as in
// the plain recurrence. A pair whose scales would leave the range runs one
// token at a time, so every token sees the same operations whichever way it is
// grouped. Rows are vectors of `lanes` columns (the widest power of two up to
// the target's width that divides N); B and C rows of an f16/bf16 model are
// widened once per token into an f32 row pair shared by the tile's rows, and y
// is reduced from a vector accumulator.
//
// Every reader sees the pool as it was before the op: a writer whose slot
// other sequences read runs in a second parallel loop, after all the others.
//
// State checkpoints (see ScanEmitter/Checkpoints.h) split a sequence's tokens
// into segments that end after the boundary tokens written; after each, the
// task stores s S' of its tile into the checkpoint's slot, rounded like the
// final state. Checkpoint slots are never read, so storing them mid-scan
// changes no reader's view of the pool. A checkpoint costs one pass over the
// tile, and a segment that ends after an odd token runs that token alone.
//
// Work is O(T H P N) with no redundant flops, and the state of a task is one
// P-tile x N block that stays in cache for the whole sequence: the right form
// when sequences are short (decode, speculative verify), and on a CPU for
// long prefills too.
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "ScanEmitter/Checkpoints.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "ssd/IR/SSDLimits.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

/// Tokens ahead of the current one whose x and y rows a task prefetches.
/// One token's work (64 rows, N = 128) already outlasts a miss; 2 and 4 ran
/// alike, 4 leaves room for smaller tiles.
static constexpr int64_t kPrefetchTokens = 4;

/// Tokens that one pass over the state tile serves. Each state vector is
/// loaded and stored once per pass: with one token, those two accesses per
/// FMA pair bound the loop (65% of the FMA peak on Zen 4); with two, the
/// rows of a block halve (a weight and an accumulator per row and token stay
/// in registers) and prefill ran 1.35x faster; three and four did not gain.
static constexpr int64_t kTokensPerPass = 2;

/// The scale s of the tile is folded back into it outside [2^-32, 2^32].
static constexpr double kMinScale = 0x1p-32;
static constexpr double kMaxScale = 0x1p+32;

/// Rows updated together per column block: B and C are loaded once for all
/// of them, which leaves the state's own load and store per FMA pair, and
/// their accumulators are independent FMA chains. A row holds a weight and
/// an accumulator in registers, so the block follows the register file:
/// 16 rows with 16 lanes (AVX-512: 32 registers), 8 with 8 (AVX2: 16),
/// 4 below. On Zen 4, 16 rows ran prefill 1.6x faster than 4.
static int64_t rowBlock(int64_t lanes) {
  return std::clamp<int64_t>(lanes, 4, 16);
}

/// The widest power of two up to `vectorWidth` lanes dividing a static N;
/// one lane for a dynamic N.
static int64_t laneCount(int64_t vectorWidth, int64_t staticDState) {
  if (ShapedType::isDynamic(staticDState) || staticDState < 1)
    return 1;
  int64_t lanes = 1;
  while (lanes * 2 <= vectorWidth && staticDState % (lanes * 2) == 0)
    lanes *= 2;
  return lanes;
}

void mlir::ssd::detail::buildSerialScan(RewriterBase &rewriter,
                                        ChunkScanVarlenOp op, int64_t pTile,
                                        int64_t vectorWidth) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ScanEmitter e(b, op);
  CheckpointEmitter checkpoints(b, e);

  // A tile never needs more rows than head_dim has; hosts calling the
  // pattern directly get the pass's bounds too. A tile also holds at most
  // kMaxStateTileBytes (fewer rows for a large N), so that a task's heap
  // tile stays below the allocator's mmap threshold and is reused, not
  // faulted in afresh, by the next task.
  pTile = std::clamp<int64_t>(pTile, 1, limits::kMaxSerialPTile);
  int64_t staticHeadDim = cast<ShapedType>(op.getX().getType()).getDimSize(2);
  if (!ShapedType::isDynamic(staticHeadDim) && staticHeadDim >= 1)
    pTile = std::min(pTile, staticHeadDim);
  int64_t staticDState = cast<ShapedType>(op.getB().getType()).getDimSize(2);
  const int64_t maxTileElements = limits::kMaxStateTileBytes / 4;
  Value tile;
  if (!ShapedType::isDynamic(staticDState)) {
    pTile = std::clamp<int64_t>(
        maxTileElements / std::max<int64_t>(staticDState, 1), 1, pTile);
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
  const int64_t lanes = laneCount(vectorWidth, staticDState);
  auto vecType = VectorType::get({lanes}, e.f32);
  Value laneStep = e.index(b, lanes);
  const int64_t rowsPerBlock = rowBlock(lanes);

  // Vector reads widen to f32 and writes round back, like loadF32 and
  // storeRounded for scalars.
  auto loadVector = [&](ImplicitLocOpBuilder &b, Value memref,
                        ValueRange indices) -> Value {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    Value v = vector::LoadOp::create(b, VectorType::get({lanes}, element),
                                     memref, indices);
    return element == e.f32 ? v : arith::ExtFOp::create(b, vecType, v);
  };
  auto storeVector = [&](ImplicitLocOpBuilder &b, Value v, Value memref,
                         ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (element != e.f32)
      v = arith::TruncFOp::create(b, VectorType::get({lanes}, element), v);
    vector::StoreOp::create(b, v, memref, indices);
  };
  auto splat = [&](ImplicitLocOpBuilder &b, Value scalar) -> Value {
    return vector::BroadcastOp::create(b, vecType, scalar);
  };

  WriterOrder order = e.planWriterOrder(b);
  ActiveSequences active = buildActiveSequences(b, e, order);
  Value numTiles = arith::CeilDivUIOp::create(b, e.headDim, tile);
  bool f32Model =
      cast<MemRefType>(op.getB().getType()).getElementType() == e.f32;

  auto emitTask = [&](ImplicitLocOpBuilder &b, Value seq, Value head,
                      Value tileIndex) {
    SequenceInfo s = e.sequence(b, seq);
    CheckpointRange range;
    if (checkpoints)
      range = checkpoints.range(b, seq, s);
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
    // f16/bf16 B and C rows of up to two tokens, widened once per token
    // for all rows.
    Scratch widenedRows;
    if (!f32Model)
      widenedRows =
          allocateScratch(b, {2 * kTokensPerPass, staticDState},
                          dynamicTile ? ValueRange{e.dstate} : ValueRange{});
    auto forEachStateVector =
        [&](ImplicitLocOpBuilder &b,
            function_ref<void(ImplicitLocOpBuilder &, Value, Value)> body) {
          e.loop(b, zero, rows, [&](ImplicitLocOpBuilder &b, Value p) {
            scf::ForOp::create(
                b, zero, e.dstate, laneStep, ValueRange{},
                [&](OpBuilder &nested, Location loc, Value n, ValueRange) {
                  ImplicitLocOpBuilder inner(loc, nested);
                  body(inner, p, n);
                  scf::YieldOp::create(inner);
                });
          });
        };

    Value startsEmpty = arith::XOrIOp::create(
        b, s.readsInitial, arith::ConstantIntOp::create(b, 1, 1));
    e.ifThen(b, startsEmpty, [&](ImplicitLocOpBuilder &b) {
      Value zeros = splat(b, e.f32Const(b, 0.0));
      forEachStateVector(b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
        vector::StoreOp::create(b, zeros, state, ValueRange{p, n});
      });
    });

    Value lastToken = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, s.end, e.index(b, 1)), e.index(b, 1));

    // One token of a pass over the tile: its dt, the tile's scale after its
    // decay and 1 / that scale, and where its B and C rows are read from
    // (row slot of the widened rows for f16/bf16 models).
    struct TokenStep {
      Value t, d, scale, inverseScale;
      int64_t rowSlot;
    };
    // d_t and the scale after token t's decay: s exp(d_t A_h), the decay
    // formed as in the reference (d A <= 0 for valid inputs).
    struct Decayed {
      Value d, scale;
    };
    auto decayScale = [&](ImplicitLocOpBuilder &b, Value t,
                          Value scale) -> Decayed {
      Value d = e.processedDt(b, t, head);
      Value decay = e.exp(b, arith::MulFOp::create(b, d, a));
      return {d, arith::MulFOp::create(b, scale, decay)};
    };
    auto outOfRange = [&](ImplicitLocOpBuilder &b, Value scale) -> Value {
      return arith::OrIOp::create(
          b,
          arith::CmpFOp::create(b, arith::CmpFPredicate::ULT, scale,
                                e.f32Const(b, kMinScale)),
          arith::CmpFOp::create(b, arith::CmpFPredicate::UGT, scale,
                                e.f32Const(b, kMaxScale)));
    };
    auto inverse = [&](ImplicitLocOpBuilder &b, Value scale) -> Value {
      return arith::DivFOp::create(b, e.f32Const(b, 1.0), scale);
    };
    // f16/bf16 B and C rows of token t, widened once for all rows of the
    // tile into rows 2 slot and 2 slot + 1 of the row buffer.
    auto widenRows = [&](ImplicitLocOpBuilder &b, Value t, int64_t slot) {
      if (f32Model)
        return;
      scf::ForOp::create(
          b, zero, e.dstate, laneStep, ValueRange{},
          [&](OpBuilder &nested, Location loc, Value n, ValueRange) {
            ImplicitLocOpBuilder inner(loc, nested);
            for (int which : {0, 1})
              vector::StoreOp::create(
                  inner, loadVector(inner, which ? e.C : e.B, {t, group, n}),
                  widenedRows.buffer,
                  ValueRange{e.index(inner, 2 * slot + which), n});
            scf::YieldOp::create(inner);
          });
    };
    // Column block n of B (which = 0) or C (1) at a step's token.
    auto rowVector = [&](ImplicitLocOpBuilder &b, const TokenStep &step,
                         int which, Value n) -> Value {
      if (f32Model)
        return vector::LoadOp::create(b, vecType, which ? e.C : e.B,
                                      ValueRange{step.t, group, n});
      return vector::LoadOp::create(
          b, vecType, widenedRows.buffer,
          ValueRange{e.index(b, 2 * step.rowSlot + which), n});
    };

    // Where a pass reads the state rows from and writes them to: the tile
    // for both, unless a one-token sequence goes straight from pool to pool;
    // with `storeScale`, rows are stored times it (the final state, s S').
    // `rowsAtOnce` rows share each column block of B and C; 0 takes as many
    // as the registers hold.
    struct TilePass {
      Value source, sink, storeScale;
      int64_t rowsAtOnce = 0;
    };
    const TilePass inTile{state, state, Value()};

    // Rows p .. p + count - 1 through the steps' tokens in one pass: each
    // state vector is loaded and stored once for all steps, each column
    // block of B and C is loaded once for all rows, and the accumulators
    // (a row and step each) are independent FMA chains.
    auto emitRows = [&](ImplicitLocOpBuilder &b, ArrayRef<TokenStep> steps,
                        const TilePass &pass, Value p, int64_t count) {
      // A task walks x and y down the token axis, one H P row apart: a new
      // page every token, which the hardware prefetchers do not follow. Ask
      // for this block's x and y kPrefetchTokens ahead.
      Value blockRow = arith::AddIOp::create(b, p0, p);
      for (const TokenStep &step : steps) {
        Value ahead = arith::MinUIOp::create(
            b, arith::AddIOp::create(b, step.t, e.index(b, kPrefetchTokens)),
            lastToken);
        for (auto [memref, write] :
             {std::pair(e.x, false), std::pair(e.y, true)})
          memref::PrefetchOp::create(
              b, memref, ValueRange{ahead, head, blockRow},
              b.getBoolAttr(write), b.getI32IntegerAttr(3),
              b.getBoolAttr(true));
      }
      // xs, weights and accumulators are indexed [step * count + r].
      SmallVector<Value> rowIndex, xs, weights, zeros;
      for (int64_t r = 0; r < count; ++r)
        rowIndex.push_back(arith::AddIOp::create(b, p, e.index(b, r)));
      for (const TokenStep &step : steps)
        for (int64_t r = 0; r < count; ++r) {
          Value row = arith::AddIOp::create(b, p0, rowIndex[r]);
          xs.push_back(e.loadF32(b, e.x, {step.t, head, row}));
          Value dx = arith::MulFOp::create(b, step.d, xs.back());
          weights.push_back(
              splat(b, arith::MulFOp::create(b, dx, step.inverseScale)));
          zeros.push_back(splat(b, e.f32Const(b, 0.0)));
        }
      Value storeFactor = pass.storeScale ? splat(b, pass.storeScale) : Value();
      auto columns = scf::ForOp::create(
          b, zero, e.dstate, laneStep, zeros,
          [&](OpBuilder &nested, Location loc, Value n, ValueRange acc) {
            ImplicitLocOpBuilder b(loc, nested);
            SmallVector<Value> bv, cv;
            for (const TokenStep &step : steps) {
              bv.push_back(rowVector(b, step, 0, n));
              cv.push_back(rowVector(b, step, 1, n));
            }
            SmallVector<Value> next(acc.begin(), acc.end());
            for (int64_t r = 0; r < count; ++r) {
              SmallVector<Value, 2> at{rowIndex[r], n};
              Value v = vector::LoadOp::create(b, vecType, pass.source, at);
              for (size_t k = 0; k < steps.size(); ++k) {
                size_t i = k * count + r;
                v = vector::FMAOp::create(b, weights[i], bv[k], v);
                next[i] = vector::FMAOp::create(b, v, cv[k], acc[i]);
              }
              vector::StoreOp::create(
                  b, storeFactor ? arith::MulFOp::create(b, storeFactor, v) : v,
                  pass.sink, at);
            }
            scf::YieldOp::create(b, next);
          });
      for (auto [k, step] : llvm::enumerate(steps))
        for (int64_t r = 0; r < count; ++r) {
          size_t i = k * count + r;
          Value dot = vector::ReductionOp::create(
              b, vector::CombiningKind::ADD, columns.getResult(i),
              arith::FastMathFlags::reassoc);
          Value out = arith::MulFOp::create(b, step.scale, dot);
          if (e.D)
            out = arith::AddFOp::create(
                b, out,
                arith::MulFOp::create(b, e.loadF32(b, e.D, {head}), xs[i]));
          Value row = arith::AddIOp::create(b, p0, rowIndex[r]);
          e.storeRounded(b, out, e.y, {step.t, head, row});
        }
    };
    // The whole tile through the steps' tokens, in blocks of rows that keep
    // a weight and an accumulator per row and step in registers.
    auto emitTile = [&](ImplicitLocOpBuilder &b, ArrayRef<TokenStep> steps,
                        const TilePass &pass) {
      const int64_t block =
          pass.rowsAtOnce
              ? pass.rowsAtOnce
              : std::max<int64_t>(1, rowsPerBlock / int64_t(steps.size()));
      Value blockedRows = arith::SubIOp::create(
          b, rows, arith::RemUIOp::create(b, rows, e.index(b, block)));
      scf::ForOp::create(
          b, zero, blockedRows, e.index(b, block), ValueRange{},
          [&](OpBuilder &nested, Location loc, Value p, ValueRange) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitRows(inner, steps, pass, p, block);
            scf::YieldOp::create(inner);
          });
      e.loop(b, blockedRows, rows, [&](ImplicitLocOpBuilder &b, Value p) {
        emitRows(b, steps, pass, p, 1);
      });
    };

    // Tokens [first, last) one at a time, folding the scale into the tile
    // whenever it leaves the range; returns the scale after them.
    auto emitSingleTokens = [&](ImplicitLocOpBuilder &b, Value first,
                                Value last, Value scale) -> Value {
      auto loop = scf::ForOp::create(
          b, first, last, e.index(b, 1), ValueRange{scale},
          [&](OpBuilder &nested, Location loc, Value t, ValueRange carried) {
            ImplicitLocOpBuilder b(loc, nested);
            Decayed step = decayScale(b, t, carried.front());
            Value d = step.d, decayed = step.scale;
            Value scale = e.ifElse(
                b, outOfRange(b, decayed), e.f32,
                [&](ImplicitLocOpBuilder &b) {
                  Value factor = splat(b, decayed);
                  forEachStateVector(b, [&](ImplicitLocOpBuilder &b, Value p,
                                            Value n) {
                    Value v = vector::LoadOp::create(b, vecType, state,
                                                     ValueRange{p, n});
                    vector::StoreOp::create(b,
                                            arith::MulFOp::create(b, factor, v),
                                            state, ValueRange{p, n});
                  });
                  return e.f32Const(b, 1.0);
                },
                [&](ImplicitLocOpBuilder &) { return decayed; });
            widenRows(b, t, 0);
            emitTile(b, {TokenStep{t, d, scale, inverse(b, scale), 0}}, inTile);
            scf::YieldOp::create(b, ValueRange{scale});
          });
      return loop.getResult(0);
    };

    // The general case: the pool's state into the tile, the tokens, the
    // tile (scaled back) into the pool.
    auto emitSequence = [&](ImplicitLocOpBuilder &b) {
      e.ifThen(b, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
        forEachStateVector(b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
          Value row = arith::AddIOp::create(b, p0, p);
          vector::StoreOp::create(b,
                                  loadVector(b, e.pool, {s.slot, head, row, n}),
                                  state, ValueRange{p, n});
        });
      });
      // Tokens [first, last) in groups of kTokensPerPass: one pass over the
      // tile serves the group (its FMA pairs per state load and store; the
      // loads and stores bound a single-token pass), with the same operations
      // per token as one at a time. A group whose scales leave the range runs
      // token by token instead, so results do not depend on the grouping
      // (nor on where checkpoints split the tokens). Returns the scale after
      // them.
      auto emitTokens = [&](ImplicitLocOpBuilder &b, Value first, Value last,
                            Value scale) -> Value {
        Value tokenCount = arith::SubIOp::create(b, last, first);
        Value groupedEnd = arith::AddIOp::create(
            b, first,
            arith::SubIOp::create(
                b, tokenCount,
                arith::RemUIOp::create(b, tokenCount,
                                       e.index(b, kTokensPerPass))));
        auto groupLoop = scf::ForOp::create(
            b, first, groupedEnd, e.index(b, kTokensPerPass), ValueRange{scale},
            [&](OpBuilder &nested, Location loc, Value t, ValueRange carried) {
              ImplicitLocOpBuilder b(loc, nested);
              SmallVector<Value> tokens;
              SmallVector<Decayed> decayed;
              Value ungrouped;
              for (int64_t k = 0; k < kTokensPerPass; ++k) {
                tokens.push_back(arith::AddIOp::create(b, t, e.index(b, k)));
                decayed.push_back(
                    decayScale(b, tokens.back(),
                               k ? decayed.back().scale : carried.front()));
                Value out = outOfRange(b, decayed.back().scale);
                ungrouped = k ? arith::OrIOp::create(b, ungrouped, out) : out;
              }
              Value scale = e.ifElse(
                  b, ungrouped, e.f32,
                  [&](ImplicitLocOpBuilder &b) {
                    return emitSingleTokens(
                        b, t,
                        arith::AddIOp::create(b, t, e.index(b, kTokensPerPass)),
                        carried.front());
                  },
                  [&](ImplicitLocOpBuilder &b) {
                    SmallVector<TokenStep> steps;
                    for (int64_t k = 0; k < kTokensPerPass; ++k) {
                      widenRows(b, tokens[k], k);
                      steps.push_back(
                          TokenStep{tokens[k], decayed[k].d, decayed[k].scale,
                                    inverse(b, decayed[k].scale), k});
                    }
                    emitTile(b, steps, inTile);
                    return decayed.back().scale;
                  });
              scf::YieldOp::create(b, ValueRange{scale});
            });
        return emitSingleTokens(b, groupedEnd, last, groupLoop.getResult(0));
      };

      Value scale = e.f32Const(b, 1.0);
      if (!checkpoints) {
        scale = emitTokens(b, s.begin, s.end, scale);
      } else {
        // Checkpoints split the tokens into segments that end at the written
        // boundaries (segment k < W ends after boundary k's token) and a last
        // one up to the end; after segment k the tile times its scale is the
        // state to store, rounded like the final state. One segment loop, so
        // the token loops are emitted once.
        Value written = checkpoints.writtenWithin(
            b, range, arith::SubIOp::create(b, s.end, s.begin));
        auto segments = scf::ForOp::create(
            b, zero, arith::AddIOp::create(b, written, e.index(b, 1)),
            e.index(b, 1), ValueRange{scale, s.begin},
            [&](OpBuilder &nested, Location loc, Value k, ValueRange carried) {
              ImplicitLocOpBuilder b(loc, nested);
              Value isBoundary = arith::CmpIOp::create(
                  b, arith::CmpIPredicate::ult, k, written);
              Value segmentEnd = arith::SelectOp::create(
                  b, isBoundary, checkpoints.boundaryEnd(b, range, k), s.end);
              Value scale = emitTokens(b, carried[1], segmentEnd, carried[0]);
              e.ifThen(b, isBoundary, [&](ImplicitLocOpBuilder &b) {
                checkpoints.ifSlot(
                    b, seq, k, [&](ImplicitLocOpBuilder &b, Value slot) {
                      Value factor = splat(b, scale);
                      forEachStateVector(
                          b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
                            Value row = arith::AddIOp::create(b, p0, p);
                            Value v = vector::LoadOp::create(b, vecType, state,
                                                             ValueRange{p, n});
                            storeVector(b, arith::MulFOp::create(b, factor, v),
                                        e.pool, {slot, head, row, n});
                          });
                    });
              });
              scf::YieldOp::create(b, ValueRange{scale, segmentEnd});
            });
        scale = segments.getResult(0);
      }
      Value finalScale = splat(b, scale);

      e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
        forEachStateVector(b, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
          Value row = arith::AddIOp::create(b, p0, p);
          Value v = vector::LoadOp::create(b, vecType, state, ValueRange{p, n});
          storeVector(b, arith::MulFOp::create(b, finalScale, v), e.pool,
                      {s.slot, head, row, n});
        });
      });
    };

    // A one-token sequence (decode) with an f32 pool goes from pool to pool
    // in one pass: each state vector is read, updated, and written back
    // (times the token's decay, the scale) once, instead of three passes
    // through the tile. Without an initial state it reads the zeroed tile;
    // without a write it writes the tile. A decay out of range takes the
    // general path. Decode is a copy of the state rows, so they go one row
    // at a time, in address order, for the hardware prefetchers: 16-row
    // blocks ran decode 1.3x slower (Zen 4, 16 sequences).
    auto emitDecode = [&](ImplicitLocOpBuilder &b) {
      Decayed step = decayScale(b, s.begin, e.f32Const(b, 1.0));
      SmallVector<OpFoldResult> offsets{s.slot, head, p0, zero},
          sizes{b.getIndexAttr(1), b.getIndexAttr(1), rows, e.dstate},
          strides(4, b.getIndexAttr(1));
      auto rowsType = memref::SubViewOp::inferRankReducedResultType(
          {ShapedType::kDynamic, ShapedType::kDynamic},
          cast<MemRefType>(e.pool.getType()), offsets, sizes, strides);
      Value poolRows = memref::SubViewOp::create(b, rowsType, e.pool, offsets,
                                                 sizes, strides);
      Value tileRows = memref::CastOp::create(b, rowsType, state);
      widenRows(b, s.begin, 0);
      emitTile(
          b,
          {TokenStep{s.begin, step.d, step.scale, inverse(b, step.scale), 0}},
          TilePass{
              arith::SelectOp::create(b, s.readsInitial, poolRows, tileRows),
              arith::SelectOp::create(b, s.writesState, poolRows, tileRows),
              step.scale, /*rowsAtOnce=*/1});
    };
    bool f32Pool = cast<MemRefType>(e.pool.getType()).getElementType() == e.f32;
    if (!f32Pool) {
      emitSequence(b);
    } else {
      Value oneToken = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, arith::SubIOp::create(b, s.end, s.begin),
          e.index(b, 1));
      // A token that writes a checkpoint takes the general path (the pool to
      // pool pass has no tile to store it from).
      if (checkpoints) {
        Value written = checkpoints.writtenWithin(b, range, e.index(b, 1));
        oneToken = arith::AndIOp::create(
            b, oneToken,
            arith::CmpIOp::create(b, arith::CmpIPredicate::eq, written,
                                  e.index(b, 0)));
      }
      Value decode = e.ifElse(
          b, oneToken, b.getI1Type(),
          [&](ImplicitLocOpBuilder &b) {
            Value decayed = decayScale(b, s.begin, e.f32Const(b, 1.0)).scale;
            return arith::XOrIOp::create(b, outOfRange(b, decayed),
                                         arith::ConstantIntOp::create(b, 1, 1));
          },
          [&](ImplicitLocOpBuilder &b) {
            return arith::ConstantIntOp::create(b, 0, 1);
          });
      scf::IfOp::create(
          b, decode,
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitDecode(inner);
            scf::YieldOp::create(inner);
          },
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitSequence(inner);
            scf::YieldOp::create(inner);
          });
    }
    if (!f32Model)
      freeScratch(b, widenedRows);
    freeScratch(b, stateTile);
  };

  // Only sequences with tokens or a state to store get tasks; pass 1 holds
  // the writers whose slot other sequences read (see WriterOrder). Heads
  // and tiles outermost: OpenMP's static schedule gives each thread a
  // contiguous block of tasks, and this way every block holds its share of
  // each sequence, so one long sequence among short ones is split evenly.
  for (unsigned pass : {0u, 1u})
    e.parallel(b, {e.heads, numTiles, active.count[pass]},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 emitTask(b, activeSequence(b, e, active, pass, ivs[2]), ivs[0],
                          ivs[1]);
               });
  freeActiveSequences(b, active);
  e.freeWriterOrder(b, order);

  rewriter.eraseOp(op);
}
