//===- InvariantScan.cpp - the invariant mode's scan as loops -------------===//
//
// Ops marked `invariant` promise the same bits for every token however they
// are scheduled, so they get one loop nest on the CPU whatever their form:
// the token-serial recurrence with the canonical per-token arithmetic of
// ScanEmitter/CanonicalMath.h, the state kept unscaled. (The serial form's
// scaled state S = s S' cannot serve: where s is folded back depends on where
// the sequence starts, so a split call would round differently.) With k =
// h / (H / G) the group of head h and S the state, for every (head, P-tile,
// sequence) in parallel:
//
//   S = has_initial_state[b] ? pool[slot, h, p-tile, :] : +0        (f32)
//   for t in tokens of b:
//     d = processedDt(dt[t, h], dt_bias[h])
//     g = decay(d, A[h])
//     for p in the tile:
//       w = stepWeight(d, x[t, h, p])
//       a = +0                                          vector<32xf32>
//       for column blocks j = 0, 1, ...:  (n = 32 j + l, lane l)
//         S[p, n] = update(g, S[p, n], w, B[t, k, n])
//         a_l     = accumulate(S[p, n], C[t, k, n], a_l)    only n < N
//       y[t, h, p] = storedValue(finishY(tree32(a), D[h], x[t, h, p]))
//   after each written checkpoint boundary:
//     pool[checkpoint slot, h, p-tile, :] = storedValue(S)
//   if writes: pool[slot, h, p-tile, :] = storedValue(S)
//
// all rounded to the stored type. Lane l of the accumulator takes columns
// n = l, l + 32, ... in increasing order, which is what the GPU's lane l
// does; the columns of a tail block at and past N leave their lanes
// unchanged (a select, not an fma with zero: the lanes past N hold no
// state, and an infinite or NaN lane times zero would leak a NaN). The vectors
// are vector<32xf32> on every CPU level: LLVM splits them lane by lane into the
// target's registers, so x86-64, x86-64-v3 and the host run the same roundings.
// Nothing carries fast-math flags and nothing reassociates: no
// vector.reduction, no math ops.
//
// The pool's storage formats (ScanEmitter/PoolCodec.h) are exact integer and
// f32 arithmetic, so they keep the invariant: f32, bf16 and f16 pools with
// nearest rounding store storedValue(S); 8-bit rows take the row maximum
// over the whole and tail blocks (masked lanes read +0), their scale, and
// the codes; stochastic bf16 and f16 values keep storedValue's quiet NaN.
//
// Tokens go through the tile in pairs, each state block loaded and stored
// once for both (a remainder token, and a decode, alone): every element
// still sees the same operations in the same order, however its tokens are
// grouped. A task copies (f16/bf16: widens) each token's B and C rows once
// into zero-padded f32 row pairs, so the column loops read them as whole
// vectors; the state tile is N wide like the pool rows, its tail block read
// and written under the lane mask. The task structure is the serial form's:
// writer order in two passes (WriterOrder), only active sequences, and a
// one-token sequence with an f32 pool (decode) goes from pool to pool in one
// pass over its rows, with the same arithmetic. Decode and prefill of the same
// token produce the same bits by construction: every element sees the same
// operations whatever state it was carried in.
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "ScanEmitter/CanonicalMath.h"
#include "ScanEmitter/Checkpoints.h"
#include "ScanEmitter/PoolCodec.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "ssd/IR/SSDLimits.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace canonical = mlir::ssd::detail::canonical;

/// Lanes of every vector: the canonical partial count.
static constexpr int64_t kLanes = canonical::kPartials;

/// Rows that share each column block of B and C, their accumulators
/// independent FMA chains: kRowsAtOnce row-tokens (a row times a token of
/// the pass) keep a weight and a vector<32xf32> accumulator each.
static constexpr int64_t kRowsAtOnce = 4;

/// Tokens that one pass over the state tile serves, as in the serial form:
/// each state block is loaded and stored once for both tokens' updates (the
/// elementwise operations and their order do not change).
static constexpr int64_t kTokensPerPass = 2;

/// N rounded up to whole column blocks (dynamic stays dynamic).
static int64_t paddedColumns(int64_t n) {
  if (ShapedType::isDynamic(n))
    return n;
  return llvm::divideCeil(std::max<int64_t>(n, 1), kLanes) * kLanes;
}

namespace {

/// Where a pass over the rows reads the state from and writes it to: the
/// tile for both, unless a decode goes from pool to pool. Indices are
/// [row of the tile, column].
struct StatePass {
  Value source, sink;
};

/// What every step of one task (a sequence, a head, a P-tile) reads.
struct Task {
  Value seq, head;
  SequenceInfo s;
  CheckpointRange range; // only with checkpoints
  Value group;           // index: the group head reads B and C from
  Value a;               // f32: A_h
  Value dHead;           // f32: D_h, or null
  Value prior;           // index: checkpoint offset o, only if stochastic
  Value p0, rows;        // index: the tile's first row of P and its rows
  Value zero;            // index 0
  Scratch stateTile;     // [tile, N] f32: S
  Scratch rowPair;       // [2 kTokensPerPass, padded N] f32: B and C rows

  Value state() const { return stateTile.buffer; }
};

/// One token's values shared by all rows; its B and C rows are rows
/// 2 slot and 2 slot + 1 of the task's row pairs.
struct Token {
  Value t, d, decay; // decay: g broadcast to a vector
  int64_t slot;
};

class InvariantScanBuilder {
public:
  InvariantScanBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                       int64_t maxTileRows)
      : e(b, op), checkpoints(b, e), codec(op),
        staticDState(cast<ShapedType>(op.getB().getType()).getDimSize(2)),
        pTile(staticTileRows(op, maxTileRows, staticDState)),
        vecType(VectorType::get({kLanes}, e.f32)),
        maskType(VectorType::get({kLanes}, b.getI1Type())),
        f32Pool(cast<MemRefType>(e.pool.getType()).getElementType() == e.f32) {
    Value lanes = e.index(b, kLanes);
    fullEnd = arith::SubIOp::create(b, e.dstate,
                                    arith::RemUIOp::create(b, e.dstate, lanes));
    padded = arith::MulIOp::create(
        b, arith::CeilDivUIOp::create(b, e.dstate, lanes), lanes);
    tile = emitTileRows(b, e, staticDState, pTile);
  }

  void build(ImplicitLocOpBuilder &b) {
    // The serial form's tasks (heads and tiles outermost, writers whose slot
    // others read in the second pass).
    forEachSerialTask(
        b, e, tile,
        [&](ImplicitLocOpBuilder &b, Value seq, Value head, Value tileIndex) {
          emitTask(b, seq, head, tileIndex);
        });
  }

private:
  ScanEmitter e;
  CheckpointEmitter checkpoints;
  PoolCodec codec;
  int64_t staticDState;
  int64_t pTile; // rows of a static tile; an upper bound for a dynamic N
  VectorType vecType, maskType;
  bool f32Pool;  // decode can update the pool in place
  Value fullEnd; // index: N rounded down to whole blocks
  Value padded;  // index: N rounded up to whole blocks
  Value tile;    // index: rows of a tile

  Value splat(ImplicitLocOpBuilder &b, Value scalar) {
    return vector::BroadcastOp::create(b, vecType, scalar);
  }

  Value zeros(ImplicitLocOpBuilder &b) { return splat(b, e.f32Const(b, 0.0)); }

  /// Lanes n + l < N of the tail block at n.
  Value tailMask(ImplicitLocOpBuilder &b, Value n) {
    return vector::CreateMaskOp::create(
        b, maskType, ValueRange{arith::SubIOp::create(b, e.dstate, n)});
  }

  /// memref[indices ..] as f32 lanes: a whole block, or with `mask` the
  /// lanes below N and +0 past it.
  Value loadBlock(ImplicitLocOpBuilder &b, Value memref, ValueRange indices,
                  Value mask) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto type = VectorType::get({kLanes}, element);
    Value v;
    if (mask)
      v = vector::MaskedLoadOp::create(
          b, type, memref, indices, mask,
          arith::ConstantOp::create(
              b, DenseElementsAttr::get(
                     type, b.getFloatAttr(element, 0.0).getValue())));
    else
      v = vector::LoadOp::create(b, type, memref, indices);
    return element == e.f32 ? v : arith::ExtFOp::create(b, vecType, v);
  }

  /// Stores f32 lanes into memref[indices ..], rounded to its element type:
  /// a whole block, or with `mask` the lanes below N only.
  /// With `canonical`, as CanonicalMath.h stores results (NaN canonical).
  void storeBlock(ImplicitLocOpBuilder &b, Value v, Value memref,
                  ValueRange indices, Value mask, bool canonical = false) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (canonical)
      v = canonical::storedValue(b, v, element);
    else if (element != e.f32)
      v = arith::TruncFOp::create(b, VectorType::get({kLanes}, element), v);
    if (mask)
      vector::MaskedStoreOp::create(b, memref, indices, mask, v);
    else
      vector::StoreOp::create(b, v, memref, indices);
  }

  /// Calls `body` for the whole column blocks (mask null) and then for the
  /// tail block past them, if N has one (its lane mask), threading `carried`
  /// through both; returns the values after the last block.
  SmallVector<Value>
  forEachBlock(ImplicitLocOpBuilder &b, ValueRange carried,
               function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, Value n,
                                               Value mask, ValueRange)>
                   body) {
    Value step = e.index(b, kLanes);
    auto blocks = [&](Value lower, Value upper, ValueRange init, bool tail) {
      return scf::ForOp::create(
          b, lower, upper, step, init,
          [&](OpBuilder &nested, Location loc, Value n, ValueRange values) {
            ImplicitLocOpBuilder inner(loc, nested);
            SmallVector<Value> next =
                body(inner, n, tail ? tailMask(inner, n) : Value(), values);
            scf::YieldOp::create(inner, next);
          });
    };
    scf::ForOp whole = blocks(e.index(b, 0), fullEnd, carried, /*tail=*/false);
    // At most one iteration: [N rounded down, N).
    scf::ForOp tail =
        blocks(fullEnd, e.dstate, whole.getResults(), /*tail=*/true);
    return SmallVector<Value>(tail.getResults());
  }

  /// Calls `body` for every block of every row of the tile.
  void forEachStateBlock(
      ImplicitLocOpBuilder &b, const Task &task,
      function_ref<void(ImplicitLocOpBuilder &, Value p, Value n, Value mask)>
          body) {
    e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      forEachBlock(b, ValueRange{},
                   [&](ImplicitLocOpBuilder &b, Value n, Value mask,
                       ValueRange) -> SmallVector<Value> {
                     body(b, p, n, mask);
                     return {};
                   });
    });
  }

  // One task: its tile, the pool traffic around the tokens.

  void emitTask(ImplicitLocOpBuilder &b, Value seq, Value head,
                Value tileIndex) {
    Task task = startTask(b, seq, head, tileIndex);
    emitZeroState(b, task);
    if (!f32Pool) {
      emitSequence(b, task);
    } else {
      scf::IfOp::create(
          b, emitTakesDecode(b, task),
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitDecode(inner, task);
            scf::YieldOp::create(inner);
          },
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitSequence(inner, task);
            scf::YieldOp::create(inner);
          });
    }
    freeScratch(b, task.rowPair);
    freeScratch(b, task.stateTile);
  }

  Task startTask(ImplicitLocOpBuilder &b, Value seq, Value head,
                 Value tileIndex) {
    Task task;
    task.seq = seq;
    task.head = head;
    task.s = e.sequence(b, seq);
    if (checkpoints)
      task.range = checkpoints.range(b, seq, task.s);
    task.group = e.groupOf(b, head);
    task.a = e.loadF32(b, e.A, {head});
    if (e.D)
      task.dHead = e.loadF32(b, e.D, {head});
    if (codec.stochastic)
      task.prior = priorTokens(b, e, seq);
    task.p0 = arith::MulIOp::create(b, tileIndex, tile);
    task.rows = arith::MinUIOp::create(
        b, tile, arith::SubIOp::create(b, e.headDim, task.p0));
    task.zero = e.index(b, 0);
    bool dynamicN = ShapedType::isDynamic(staticDState);
    // The state tile has N columns, like the pool rows a decode reads and
    // writes in its place; the row pair is padded to whole blocks.
    task.stateTile = allocateScratch(
        b, {dynamicN ? ShapedType::kDynamic : pTile, staticDState},
        dynamicN ? ValueRange{tile, e.dstate} : ValueRange{});
    task.rowPair =
        allocateScratch(b, {2 * kTokensPerPass, paddedColumns(staticDState)},
                        dynamicN ? ValueRange{padded} : ValueRange{});
    return task;
  }

  /// S = +0 for a sequence without an initial state. Zeroed ahead of the
  /// decode test: the pool-to-pool pass reads the tile then.
  void emitZeroState(ImplicitLocOpBuilder &b, const Task &task) {
    Value startsEmpty = arith::XOrIOp::create(
        b, task.s.readsInitial, arith::ConstantIntOp::create(b, 1, 1));
    e.ifThen(b, startsEmpty, [&](ImplicitLocOpBuilder &b) {
      forEachStateBlock(
          b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n, Value mask) {
            storeBlock(b, zeros(b), task.state(), {p, n}, mask);
          });
    });
  }

  /// Stored elements of the pool as f32 lanes, decoded (`scale`: the row's,
  /// 8-bit pools only); with `mask`, lanes past N read a zero code.
  Value loadPoolBlock(ImplicitLocOpBuilder &b, ValueRange indices, Value mask,
                      Value scale) {
    if (!codec.narrow() || codec.storage == PoolStorage::BF16 ||
        codec.storage == PoolStorage::F16)
      return loadBlock(b, e.pool, indices, mask);
    auto type = VectorType::get({kLanes}, codec.element);
    Value v;
    if (mask)
      v = vector::MaskedLoadOp::create(
          b, type, e.pool, indices, mask,
          arith::ConstantOp::create(b, cast<TypedAttr>(b.getZeroAttr(type))));
    else
      v = vector::LoadOp::create(b, type, e.pool, indices);
    return codec.decode(b, v, scale);
  }

  /// S = pool[slot, h, p-tile, :], decoded, an 8-bit row's scale read once
  /// per row.
  void emitLoadInitialState(ImplicitLocOpBuilder &b, const Task &task) {
    e.ifThen(b, task.s.readsInitial, [&](ImplicitLocOpBuilder &b) {
      if (!codec.scaled()) {
        forEachStateBlock(
            b, task,
            [&](ImplicitLocOpBuilder &b, Value p, Value n, Value mask) {
              Value row = arith::AddIOp::create(b, task.p0, p);
              storeBlock(b,
                         loadPoolBlock(b, {task.s.slot, task.head, row, n},
                                       mask, Value()),
                         task.state(), {p, n}, mask);
            });
        return;
      }
      e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
        Value row = arith::AddIOp::create(b, task.p0, p);
        Value scale = codec.loadScale(b, task.s.slot, task.head, row);
        forEachBlock(b, ValueRange{},
                     [&](ImplicitLocOpBuilder &b, Value n, Value mask,
                         ValueRange) -> SmallVector<Value> {
                       storeBlock(
                           b,
                           loadPoolBlock(b, {task.s.slot, task.head, row, n},
                                         mask, scale),
                           task.state(), {p, n}, mask);
                       return {};
                     });
      });
    });
  }

  /// pool[slot, h, p-tile, :] = S, rounded to the pool's type: storedValue
  /// to nearest f32, bf16 and f16; otherwise the codec, whose 8-bit rows
  /// first take their maximum over all N columns for the scale, and whose
  /// stochastic bf16 and f16 values keep storedValue's quiet NaN. `held`:
  /// the tokens the state holds (stochastic rounding only).
  void emitStoreState(ImplicitLocOpBuilder &b, const Task &task, Value slot,
                      Value held) {
    if (!codec.scaled() && !codec.stochastic) {
      forEachStateBlock(
          b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n, Value mask) {
            Value row = arith::AddIOp::create(b, task.p0, p);
            Value v = loadBlock(b, task.state(), {p, n}, mask);
            storeBlock(b, v, e.pool, {slot, task.head, row, n}, mask,
                       /*canonical=*/true);
          });
      return;
    }
    e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      Value row = arith::AddIOp::create(b, task.p0, p);
      PoolCodec::RowScale r;
      if (codec.scaled()) {
        // Lanes past N load +0 and leave the maximum as it is.
        SmallVector<Value> maxAbs =
            forEachBlock(b, ValueRange{e.f32Const(b, 0.0)},
                         [&](ImplicitLocOpBuilder &b, Value n, Value mask,
                             ValueRange acc) -> SmallVector<Value> {
                           Value v = loadBlock(b, task.state(), {p, n}, mask);
                           return {codec.absMax(b, acc.front(), v)};
                         });
        r = codec.rowScale(b, maxAbs.front());
        codec.storeScale(b, r.scale, slot, task.head, row);
      }
      forEachBlock(
          b, ValueRange{},
          [&](ImplicitLocOpBuilder &b, Value n, Value mask,
              ValueRange) -> SmallVector<Value> {
            Value v = loadBlock(b, task.state(), {p, n}, mask);
            PoolWriteSite site{slot, task.head, row, n, held};
            Value stored = codec.encode(b, v, r.inverse, site);
            if (!codec.scaled()) {
              auto type = cast<VectorType>(stored.getType());
              Value isNaN =
                  arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
              Value quiet = arith::ConstantOp::create(
                  b, DenseElementsAttr::get(
                         type, APFloat::getQNaN(cast<FloatType>(codec.element)
                                                    .getFloatSemantics())));
              stored = arith::SelectOp::create(b, isNaN, quiet, stored);
            }
            SmallVector<Value> at{slot, task.head, row, n};
            if (mask)
              vector::MaskedStoreOp::create(b, e.pool, at, mask, stored);
            else
              vector::StoreOp::create(b, stored, e.pool, at);
            return {};
          });
    });
  }

  /// index: the tokens a state written after the token before `end`
  /// holds, for stochastic rounding's counter; null otherwise.
  Value held(ImplicitLocOpBuilder &b, const Task &task, Value end) {
    if (!codec.stochastic)
      return Value();
    return tokensHeld(b, task.prior, task.s.begin, end);
  }

  // One token.

  /// Token t's d and g, and its B and C rows copied into row pair `slot`.
  Token emitToken(ImplicitLocOpBuilder &b, const Task &task, Value t,
                  int64_t slot) {
    Value dtBias = e.dtBias ? e.loadF32(b, e.dtBias, {task.head}) : Value();
    Value d =
        canonical::processedDt(b, e.loadF32(b, e.dt, {t, task.head}), dtBias);
    emitRowPair(b, task, t, slot);
    return {t, d, splat(b, canonical::decay(b, d, task.a)), slot};
  }

  /// Token t's B and C rows into rows 2 slot and 2 slot + 1 of the row
  /// pairs, widened to f32, the padding columns +0.
  void emitRowPair(ImplicitLocOpBuilder &b, const Task &task, Value t,
                   int64_t slot) {
    forEachBlock(
        b, ValueRange{},
        [&](ImplicitLocOpBuilder &b, Value n, Value mask,
            ValueRange) -> SmallVector<Value> {
          for (int which : {0, 1})
            vector::StoreOp::create(
                b, loadBlock(b, which ? e.C : e.B, {t, task.group, n}, mask),
                task.rowPair.buffer,
                ValueRange{e.index(b, 2 * slot + which), n});
          return {};
        });
  }

  /// Rows p .. p + count - 1 of the tile through the pass's tokens: per row
  /// and token the state update and the 32 partials of y's dot product, then
  /// y. Each state block is loaded and stored once for all tokens.
  /// `storeCanonical` applies canonicalNaN to the state as it is stored (the
  /// decode pass, whose sink may be the pool).
  void emitRows(ImplicitLocOpBuilder &b, const Task &task,
                ArrayRef<Token> tokens, const StatePass &pass,
                bool storeCanonical, Value p, int64_t count) {
    // Row-token i = k count + r: token k, row r.
    SmallVector<Value> rowIndex, xs, weights;
    SmallVector<Value> accs(tokens.size() * count, zeros(b));
    for (int64_t r = 0; r < count; ++r)
      rowIndex.push_back(arith::AddIOp::create(b, p, e.index(b, r)));
    for (const Token &token : tokens)
      for (int64_t r = 0; r < count; ++r) {
        Value row = arith::AddIOp::create(b, task.p0, rowIndex[r]);
        xs.push_back(e.loadF32(b, e.x, {token.t, task.head, row}));
        weights.push_back(
            splat(b, canonical::stepWeight(b, token.d, xs.back())));
      }
    SmallVector<Value> sums = forEachBlock(
        b, accs,
        [&](ImplicitLocOpBuilder &b, Value n, Value mask,
            ValueRange acc) -> SmallVector<Value> {
          SmallVector<Value> bRows, cRows;
          for (const Token &token : tokens)
            for (int which : {0, 1})
              (which ? cRows : bRows)
                  .push_back(vector::LoadOp::create(
                      b, vecType, task.rowPair.buffer,
                      ValueRange{e.index(b, 2 * token.slot + which), n}));
          SmallVector<Value> next(acc.begin(), acc.end());
          for (int64_t r = 0; r < count; ++r) {
            SmallVector<Value, 2> at{rowIndex[r], n};
            Value h = mask ? vector::MaskedLoadOp::create(
                                 b, vecType, pass.source, at, mask, zeros(b))
                           : vector::LoadOp::create(b, vecType, pass.source, at)
                                 .getResult();
            for (auto [k, token] : llvm::enumerate(tokens)) {
              size_t i = k * count + r;
              h = canonical::update(b, token.decay, h, weights[i], bRows[k]);
              Value term = canonical::accumulate(b, h, cRows[k], acc[i]);
              // Columns past N leave their partial as it was: their lanes
              // of h hold no state, and an fma with the zero padding would
              // turn an infinite or NaN one into a NaN partial.
              next[i] = mask ? arith::SelectOp::create(b, mask, term, acc[i])
                                   .getResult()
                             : term;
            }
            if (storeCanonical)
              h = canonical::canonicalNaN(b, h);
            if (mask)
              vector::MaskedStoreOp::create(b, pass.sink, at, mask, h);
            else
              vector::StoreOp::create(b, h, pass.sink, at);
          }
          return next;
        });
    for (auto [k, token] : llvm::enumerate(tokens))
      for (int64_t r = 0; r < count; ++r) {
        size_t i = k * count + r;
        Value y = canonical::finishY(b, canonical::tree32(b, sums[i]),
                                     task.dHead, xs[i]);
        Value row = arith::AddIOp::create(b, task.p0, rowIndex[r]);
        Type element = cast<MemRefType>(e.y.getType()).getElementType();
        memref::StoreOp::create(b, canonical::storedValue(b, y, element), e.y,
                                ValueRange{token.t, task.head, row});
      }
  }

  /// The whole tile through the pass's tokens, in blocks of rows that keep
  /// kRowsAtOnce row-tokens in registers, the remainder one row at a time.
  void emitTile(ImplicitLocOpBuilder &b, const Task &task,
                ArrayRef<Token> tokens, const StatePass &pass,
                bool storeCanonical) {
    const int64_t block =
        std::max<int64_t>(1, kRowsAtOnce / int64_t(tokens.size()));
    Value blockedRows = arith::SubIOp::create(
        b, task.rows, arith::RemUIOp::create(b, task.rows, e.index(b, block)));
    scf::ForOp::create(
        b, task.zero, blockedRows, e.index(b, block), ValueRange{},
        [&](OpBuilder &nested, Location loc, Value p, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          emitRows(inner, task, tokens, pass, storeCanonical, p, block);
          scf::YieldOp::create(inner);
        });
    if (block > 1)
      e.loop(b, blockedRows, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
        emitRows(b, task, tokens, pass, storeCanonical, p, 1);
      });
  }

  /// Tokens [first, last) through the tile, kTokensPerPass per pass and the
  /// remainder one at a time; the bits do not depend on the grouping.
  void emitTokens(ImplicitLocOpBuilder &b, const Task &task, Value first,
                  Value last) {
    auto pass = [&](ImplicitLocOpBuilder &b, Value t, int64_t count) {
      SmallVector<Token> tokens;
      for (int64_t k = 0; k < count; ++k)
        tokens.push_back(emitToken(
            b, task, k ? arith::AddIOp::create(b, t, e.index(b, k)) : t, k));
      emitTile(b, task, tokens, {task.state(), task.state()},
               /*storeCanonical=*/false);
    };
    Value tokenCount = arith::SubIOp::create(b, last, first);
    Value groupedEnd = arith::SubIOp::create(
        b, last,
        arith::RemUIOp::create(b, tokenCount, e.index(b, kTokensPerPass)));
    scf::ForOp::create(
        b, first, groupedEnd, e.index(b, kTokensPerPass), ValueRange{},
        [&](OpBuilder &nested, Location loc, Value t, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          pass(inner, t, kTokensPerPass);
          scf::YieldOp::create(inner);
        });
    e.loop(b, groupedEnd, last,
           [&](ImplicitLocOpBuilder &b, Value t) { pass(b, t, 1); });
  }

  /// Checkpoints split the tokens into segments that end at the written
  /// boundaries (segment k < W ends after boundary k's token) and a last one
  /// up to the end; after segment k the tile is the state to store.
  void emitCheckpointSegments(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Value written = checkpoints.writtenWithin(
        b, task.range, arith::SubIOp::create(b, s.end, s.begin));
    scf::ForOp::create(
        b, task.zero, arith::AddIOp::create(b, written, e.index(b, 1)),
        e.index(b, 1), ValueRange{s.begin},
        [&](OpBuilder &nested, Location loc, Value k, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value isBoundary =
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, k, written);
          Value segmentEnd = arith::SelectOp::create(
              b, isBoundary, checkpoints.boundaryEnd(b, task.range, k), s.end);
          emitTokens(b, task, carried[0], segmentEnd);
          e.ifThen(b, isBoundary, [&](ImplicitLocOpBuilder &b) {
            checkpoints.ifSlot(
                b, task.seq, k, [&](ImplicitLocOpBuilder &b, Value slot) {
                  emitStoreState(b, task, slot, held(b, task, segmentEnd));
                });
          });
          scf::YieldOp::create(b, ValueRange{segmentEnd});
        });
  }

  /// The general case: the pool's state into the tile, the tokens, the tile
  /// into the pool.
  void emitSequence(ImplicitLocOpBuilder &b, const Task &task) {
    emitLoadInitialState(b, task);
    if (!checkpoints)
      emitTokens(b, task, task.s.begin, task.s.end);
    else
      emitCheckpointSegments(b, task);
    e.ifThen(b, task.s.writesState, [&](ImplicitLocOpBuilder &b) {
      emitStoreState(b, task, task.s.slot, held(b, task, task.s.end));
    });
  }

  // Decode: one token from pool to pool.

  /// i1: the sequence has one token, which writes no checkpoint (the
  /// pool-to-pool pass has no tile to store one from).
  Value emitTakesDecode(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Value oneToken = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arith::SubIOp::create(b, s.end, s.begin),
        e.index(b, 1));
    if (!checkpoints)
      return oneToken;
    Value written = checkpoints.writtenWithin(b, task.range, e.index(b, 1));
    return arith::AndIOp::create(b, oneToken,
                                 arith::CmpIOp::create(b,
                                                       arith::CmpIPredicate::eq,
                                                       written, e.index(b, 0)));
  }

  /// A one-token sequence with an f32 pool: each state block is read,
  /// updated and written back once, kRowsAtOnce rows sharing each block of
  /// B and C (one thread, 16 sequences of Mamba2-2.7B: 1.6 ms against 1.8 to
  /// 2.6 ms one row at a time, on a loaded machine). It
  /// reads the zeroed tile without an initial state and writes the tile
  /// without a state to store; the state it stores is canonicalised like
  /// emitStoreState's, so decode and prefill store the same bits.
  void emitDecode(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Token token = emitToken(b, task, s.begin, /*slot=*/0);
    SmallVector<OpFoldResult> offsets{s.slot, task.head, task.p0, task.zero},
        sizes{b.getIndexAttr(1), b.getIndexAttr(1), task.rows, e.dstate},
        strides(4, b.getIndexAttr(1));
    auto rowsType = memref::SubViewOp::inferRankReducedResultType(
        {ShapedType::kDynamic, ShapedType::kDynamic},
        cast<MemRefType>(e.pool.getType()), offsets, sizes, strides);
    Value poolRows =
        memref::SubViewOp::create(b, rowsType, e.pool, offsets, sizes, strides);
    Value tileRows = memref::CastOp::create(b, rowsType, task.state());
    emitTile(b, task, token,
             {arith::SelectOp::create(b, s.readsInitial, poolRows, tileRows),
              arith::SelectOp::create(b, s.writesState, poolRows, tileRows)},
             /*storeCanonical=*/true);
  }
};

} // namespace

void mlir::ssd::detail::buildInvariantScan(RewriterBase &rewriter,
                                           ChunkScanVarlenOp op,
                                           int64_t pTile) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  InvariantScanBuilder(b, op, pTile).build(b);
  rewriter.eraseOp(op);
}
