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
// Draft trees (token_parents): local token j of a sequence has parent p,
// 0 <= p < j or -1 (the initial state), and
//
//   S_j = exp(d_j A_h) S_p + (d_j x[j, h, :]) B[j, g, :],  S_{-1} = initial
//
// with y_j from S_j as above; the final state is the last token's. A token
// whose parent is the token before (p = j - 1; p = -1 at j = 0) continues the
// tile: runs of such tokens go through the chain's token loops unchanged (pairs
// only within a run, so a pair's second token is its first's child), and a
// chain given as explicit parents gives the bits of the op without them. Any
// other token first recomputes its parent's state in the tile: it restarts from
// the initial state (pool[slot] re-read, or zeros) at s = 1 and replays the
// updates of p's ancestors root .. p in forward order, one token at a time
// through the chain's single-token step (decay, fold when out of range, update;
// no y, no checkpoint). Every node's (s, S') is thus the same sequence of
// operations from the initial state whichever way it is reached, continued or
// replayed (pairs or single tokens, as below), so it has the same bits either
// way. The path is found without memory: p's depth d by walking parents up (a
// walk stops at -1 or at a parent not below its child, so a table that breaks
// the contract never reads outside its sequence), then the i-th ancestor from
// the root d - 1 - i parents up from p, O(d^2) index loads. The cost: nothing
// in memory; one index load per token for the run test, and for each token
// whose parent is not the token before, a pass over the tile to reload the
// initial state and depth(p) update-only passes (one FMA per state element
// each). With checkpoints (interval 1, as the verifier requires for trees)
// every written boundary ends a segment of one token and runs stop at segment
// ends, so column j receives s S' of node j. The re-read pool slot still holds
// the initial state: only this task writes its rows of its slot, after its last
// token; writers whose slot other sequences read run after them (above); and
// checkpoint slots differ from every slot a call reads or writes.
//
// State checkpoints (see ScanEmitter/Checkpoints.h) split a sequence's tokens
// into segments that end after the boundary tokens written; after each, the
// task stores s S' of its tile into the checkpoint's slot, rounded like the
// final state. Checkpoint slots are never read, so storing them mid-scan
// changes no reader's view of the pool. A checkpoint costs one pass over the
// tile, and a segment that ends after an odd token runs that token alone.
//
// The pool may hold any of its storage formats (ScanEmitter/PoolCodec.h):
// reads decode each state vector (an 8-bit row's scale loaded once per row),
// and every write of s S' (final state, checkpoint) goes through the codec,
// an 8-bit row in two passes over its columns, the first for the row's
// maximum (its scale) and the second for the codes, with one branch per row
// for rows that have no usable scale (all codes 0). With stochastic
// rounding an element's bits count the tokens the written state holds,
// o + (its end - the sequence's begin), o = checkpoint_offsets[b]. Decode
// goes from pool to pool in one pass over the stored row (an 8-bit row's
// codes in a second pass over its row of the tile, which is still in L1),
// the same values as the general path.
//
// Work is O(T H P N) with no redundant flops (for a chain; a tree adds the
// replays above), and the state of a task is one P-tile x N block that stays in
// cache for the whole sequence: the right form when sequences are short
// (decode, speculative verify), and on a CPU for long prefills too.
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

/// Rows that emitNarrowDecode takes side by side. One row at a time is a
/// chain of dependent FMAs, maxima and two divisions per row; with several
/// the core overlaps them: 2 rows decoded an i8 pool 7% faster than 1, 4
/// another 5% (Zen 4, AVX-512, 8 sequences in cache).
static constexpr int64_t kDecodeRows = 4;

/// Reduces each of `vectors` (one row each, all of one type) with `kind`
/// and returns the results side by side, row r in lane r. Each row follows
/// the tree LLVM expands a reassociable vector.reduction into (lane i with
/// lane i + w/2 of the remaining width w, halving to one), so its result
/// has the bits of that reduction; the rows share the shuffles and the
/// combining instructions: about 4 per row for 4 rows of 16 lanes against
/// 8. Row count and lanes must be powers of two, rows <= lanes.
static Value reduceSideBySide(ImplicitLocOpBuilder &b,
                              vector::CombiningKind kind, ValueRange vectors) {
  auto combine = [&](Value lhs, Value rhs) -> Value {
    if (kind == vector::CombiningKind::ADD)
      return arith::AddFOp::create(b, lhs, rhs);
    assert(kind == vector::CombiningKind::MAXUI && "add or maxui only");
    return arith::MaxUIOp::create(b, lhs, rhs);
  };
  // Every vector holds `rows` segments (one per row) of `segment` lanes.
  SmallVector<Value> pending(vectors.begin(), vectors.end());
  int64_t rows = 1;
  int64_t segment = cast<VectorType>(pending.front().getType()).getShape()[0];
  while (segment > 1) {
    const int64_t half = segment / 2;
    // The first halves of each segment of `lhs` then of `rhs` (lanes of rhs
    // count from lhs's width), and their second halves likewise.
    auto halves = [&](Value lhs, Value rhs, int64_t width) {
      SmallVector<int64_t> first, second;
      for (int64_t operand = 0; operand < (lhs == rhs ? 1 : 2); ++operand)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < half; ++i) {
            first.push_back(operand * width + r * segment + i);
            second.push_back(operand * width + r * segment + half + i);
          }
      return combine(vector::ShuffleOp::create(b, lhs, rhs, first),
                     vector::ShuffleOp::create(b, lhs, rhs, second));
    };
    const int64_t width = rows * segment;
    SmallVector<Value> next;
    if (pending.size() > 1) {
      // Pairs of vectors: same width, twice the segments.
      for (size_t i = 0; i < pending.size(); i += 2)
        next.push_back(halves(pending[i], pending[i + 1], width));
      rows *= 2;
    } else {
      // One vector left: half the width.
      next.push_back(halves(pending.front(), pending.front(), width));
    }
    pending = std::move(next);
    segment = half;
  }
  assert(pending.size() == 1 && "more rows than lanes");
  return pending.front();
}

/// The vectors of `blocks` (of one type) end to end, as one vector.
static Value concatenate(ImplicitLocOpBuilder &b, ArrayRef<Value> blocks) {
  SmallVector<Value> parts(blocks.begin(), blocks.end());
  while (parts.size() > 1) {
    SmallVector<Value> joined;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      const int64_t width =
          cast<VectorType>(parts[i].getType()).getShape()[0] +
          cast<VectorType>(parts[i + 1].getType()).getShape()[0];
      SmallVector<int64_t> mask;
      for (int64_t k = 0; k < width; ++k)
        mask.push_back(k);
      joined.push_back(
          vector::ShuffleOp::create(b, parts[i], parts[i + 1], mask));
    }
    if (parts.size() % 2)
      joined.push_back(parts.back());
    parts = std::move(joined);
  }
  return parts.front();
}

/// True when reduceSideBySide takes `count` rows of `lanes`.
static bool reducesSideBySide(int64_t count, int64_t lanes) {
  return count > 1 && count <= lanes && llvm::isPowerOf2_64(count) &&
         llvm::isPowerOf2_64(lanes);
}

/// Column blocks an 8-bit row's stochastic codes are encoded together in:
/// a Philox call serves four columns, so four blocks of the vector width
/// make one call of the full width.
static constexpr int64_t kStochasticBlocks = 4;

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

namespace {

/// One token of a pass over the tile: its dt, the tile's scale after its
/// decay and 1 / that scale, and where its B and C rows are read from
/// (row slot of the widened rows for f16/bf16 models).
struct TokenStep {
  Value t, d, scale, inverseScale;
  int64_t rowSlot;
};

/// d_t and the scale after token t's decay.
struct Decayed {
  Value d, scale;
};

/// Where a pass reads the state rows from and writes them to: the tile for
/// both, unless a one-token sequence goes straight from pool to pool; with
/// `storeScale`, rows are stored times it (the final state, s S').
/// `rowsAtOnce` rows share each column block of B and C; 0 takes as many as
/// the registers hold. An `updateOnly` pass (a tree's replay) updates the
/// rows and writes no y.
struct TilePass {
  Value source, sink, storeScale;
  int64_t rowsAtOnce = 0;
  bool updateOnly = false;
};

/// What every step of one task (a sequence, a head, a P-tile) reads: they
/// are the task's, not the op's, so they travel as an argument.
struct Task {
  Value seq, head;
  SequenceInfo s;
  CheckpointRange range; // only with checkpoints
  Value group;           // index: the group head reads B and C from
  Value a;               // f32: A_h
  Value p0, rows;        // index: the tile's first row of P and its rows
  Value zero;            // index 0
  Value lastToken;       // index: the sequence's last token (or 0)
  Value prior;           // index: checkpoint offset o, only if stochastic
  Scratch stateTile;     // [tile, N] f32: S'
  Scratch widenedRows;   // [2 kTokensPerPass, N] f32, f16/bf16 B and C only

  Value state() const { return stateTile.buffer; }
  TilePass inTile() const { return {state(), state(), Value()}; }
  TilePass replayInTile() const {
    return {state(), state(), Value(), 0, /*updateOnly=*/true};
  }
};

/// The per-row values of a block of rows through a pass's tokens, indexed
/// [step * count + r] (rowIndex by r alone).
struct BlockRows {
  SmallVector<Value> rowIndex, xs, weights, zeros;
};

/// Emits the serial scan of the file header for one op. Per task:
///
///   S' = has_initial_state ? pool[slot] : 0,  s = 1
///   for tokens t in pairs (one at a time when s leaves the range):
///     s_t = s_{t-1} exp(d_t A_h)
///     if s_t leaves [2^-32, 2^32]: S' = s_t S', s_t = 1
///     S'[p, :] += (d_t x[t, h, p] / s_t) B[t, g, :]
///     y[t,h,p]  = s_t (S'[p, :] . C[t, g, :]) (+ D_h x[t, h, p])
///   after each written checkpoint boundary: pool[checkpoint slot] = s S'
///   if writes: pool[slot] = s S'
///
/// and a one-token sequence (decode) from pool to pool in one pass. emitTask
/// and emitSequence follow the first lines, emitTokens and emitSingleTokens the
/// scale, emitTile and emitRows the two FMAs. With token_parents,
/// emitTreeTokens splits the tokens into runs of children of the token before,
/// each started by emitReplay unless its first token continues the tile.
class SerialScanBuilder {
public:
  SerialScanBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                    int64_t maxTileRows, int64_t vectorWidth)
      : e(b, op), checkpoints(b, e), codec(op),
        staticDState(cast<ShapedType>(op.getB().getType()).getDimSize(2)),
        pTile(staticTileRows(op, maxTileRows, staticDState)),
        lanes(laneCount(vectorWidth, staticDState)),
        rowsPerBlock(rowBlock(lanes)), vecType(VectorType::get({lanes}, e.f32)),
        f32Model(cast<MemRefType>(op.getB().getType()).getElementType() ==
                 e.f32),
        f32Pool(cast<MemRefType>(e.pool.getType()).getElementType() == e.f32) {
    tile = emitTileRows(b, e, staticDState, pTile);
    laneStep = e.index(b, lanes);
    parents = op.getTokenParents();
  }

  void build(ImplicitLocOpBuilder &b) {
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
  int64_t lanes;
  int64_t rowsPerBlock;
  VectorType vecType;
  bool f32Model; // B and C need no widening
  bool f32Pool;  // decode can update the pool in place
  Value tile;    // index: rows of a tile
  Value laneStep;
  Value parents; // [T] i32 memref: token_parents, or null (a chain)

  /// A vector of `lanes` f32 from an f32, f16 or bf16 model operand (B, C),
  /// widened like loadF32. The pool goes through the codec instead.
  Value loadVector(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    Value v = vector::LoadOp::create(b, VectorType::get({lanes}, element),
                                     memref, indices);
    return element == e.f32 ? v : arith::ExtFOp::create(b, vecType, v);
  }

  Value splat(ImplicitLocOpBuilder &b, Value scalar) {
    return vector::BroadcastOp::create(b, vecType, scalar);
  }

  // One task: its tile, the pool traffic around the tokens.

  void emitTask(ImplicitLocOpBuilder &b, Value seq, Value head,
                Value tileIndex) {
    Task task = startTask(b, seq, head, tileIndex);
    emitZeroState(b, task);
    task.lastToken = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, task.s.end, e.index(b, 1)), e.index(b, 1));
    {
      scf::IfOp::create(
          b, emitTakesDecode(b, task),
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            if (f32Pool)
              emitDecode(inner, task);
            else
              emitNarrowDecode(inner, task);
            scf::YieldOp::create(inner);
          },
          [&](OpBuilder &nested, Location loc) {
            ImplicitLocOpBuilder inner(loc, nested);
            emitSequence(inner, task);
            scf::YieldOp::create(inner);
          });
    }
    if (!f32Model)
      freeScratch(b, task.widenedRows);
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
    if (codec.stochastic)
      task.prior = priorTokens(b, e, seq);
    task.p0 = arith::MulIOp::create(b, tileIndex, tile);
    task.rows = arith::MinUIOp::create(
        b, tile, arith::SubIOp::create(b, e.headDim, task.p0));
    task.zero = e.index(b, 0);

    // The state tile [P-tile, N]: on the stack when small and static
    // (scf.parallel is an allocation scope, so it is freed at the end of
    // each task), else on the heap, freed by emitTask: never a stack
    // allocation that grows with N.
    bool dynamicTile = ShapedType::isDynamic(staticDState);
    task.stateTile = allocateScratch(
        b, {dynamicTile ? ShapedType::kDynamic : pTile, staticDState},
        dynamicTile ? ValueRange{tile, e.dstate} : ValueRange{});
    // f16/bf16 B and C rows of up to two tokens, widened once per token for
    // all rows.
    if (!f32Model)
      task.widenedRows =
          allocateScratch(b, {2 * kTokensPerPass, staticDState},
                          dynamicTile ? ValueRange{e.dstate} : ValueRange{});
    return task;
  }

  void forEachStateVector(
      ImplicitLocOpBuilder &b, const Task &task,
      function_ref<void(ImplicitLocOpBuilder &, Value, Value)> body) {
    e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      forEachColumn(b, task,
                    [&](ImplicitLocOpBuilder &b, Value n) { body(b, p, n); });
    });
  }

  /// The column blocks n = 0, lanes, ... of one row.
  void forEachColumn(ImplicitLocOpBuilder &b, const Task &task,
                     function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
    scf::ForOp::create(
        b, task.zero, e.dstate, laneStep, ValueRange{},
        [&](OpBuilder &nested, Location loc, Value n, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          body(inner, n);
          scf::YieldOp::create(inner);
        });
  }

  /// S' = 0 for a sequence without an initial state. Zeroed ahead of the
  /// decode test, since the pool-to-pool pass reads the tile then.
  void emitZeroState(ImplicitLocOpBuilder &b, const Task &task) {
    Value startsEmpty = arith::XOrIOp::create(
        b, task.s.readsInitial, arith::ConstantIntOp::create(b, 1, 1));
    e.ifThen(b, startsEmpty, [&](ImplicitLocOpBuilder &b) {
      Value zeros = splat(b, e.f32Const(b, 0.0));
      forEachStateVector(
          b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
            vector::StoreOp::create(b, zeros, task.state(), ValueRange{p, n});
          });
    });
  }

  /// Stored elements pool[slot, h, row, n ..] as f32 lanes (`scale`: the
  /// row's, 8-bit pools only).
  Value loadPoolVector(ImplicitLocOpBuilder &b, ValueRange indices,
                       Value scale) {
    Value v = vector::LoadOp::create(b, VectorType::get({lanes}, codec.element),
                                     e.pool, indices);
    return codec.decode(b, v, scale);
  }

  /// S' = pool[slot, h, p-tile, :] (s = 1), an 8-bit row's scale read once
  /// per row.
  void emitLoadInitialState(ImplicitLocOpBuilder &b, const Task &task) {
    e.ifThen(b, task.s.readsInitial, [&](ImplicitLocOpBuilder &b) {
      if (!codec.scaled()) {
        forEachStateVector(
            b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
              Value row = arith::AddIOp::create(b, task.p0, p);
              vector::StoreOp::create(
                  b,
                  loadPoolVector(b, {task.s.slot, task.head, row, n}, Value()),
                  task.state(), ValueRange{p, n});
            });
        return;
      }
      e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
        Value row = arith::AddIOp::create(b, task.p0, p);
        Value scale = codec.loadScale(b, task.s.slot, task.head, row);
        forEachColumn(b, task, [&](ImplicitLocOpBuilder &b, Value n) {
          vector::StoreOp::create(
              b, loadPoolVector(b, {task.s.slot, task.head, row, n}, scale),
              task.state(), ValueRange{p, n});
        });
      });
    });
  }

  /// pool[slot, h, p-tile, :] = scale S', rounded to the pool's type; an
  /// 8-bit row first takes its maximum over all N columns for its scale.
  /// `held`: the tokens the state holds (stochastic rounding only).
  void emitStoreScaledState(ImplicitLocOpBuilder &b, const Task &task,
                            Value scale, Value slot, Value held) {
    Value factor = splat(b, scale);
    auto scaledRow = [&](ImplicitLocOpBuilder &b, Value p, Value n) -> Value {
      Value v =
          vector::LoadOp::create(b, vecType, task.state(), ValueRange{p, n});
      return arith::MulFOp::create(b, factor, v);
    };
    if (!codec.scaled()) {
      forEachStateVector(
          b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
            Value row = arith::AddIOp::create(b, task.p0, p);
            PoolWriteSite site{slot, task.head, row, n, held};
            vector::StoreOp::create(
                b, codec.encode(b, scaledRow(b, p, n), Value(), site), e.pool,
                ValueRange{slot, task.head, row, n});
          });
      return;
    }
    e.loop(b, task.zero, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      // The maximum lane by lane, reduced once the row is done.
      auto maxLoop = scf::ForOp::create(
          b, task.zero, e.dstate, laneStep,
          ValueRange{splat(b, e.f32Const(b, 0.0))},
          [&](OpBuilder &nested, Location loc, Value n, ValueRange acc) {
            ImplicitLocOpBuilder b(loc, nested);
            Value v = vector::LoadOp::create(b, vecType, task.state(),
                                             ValueRange{p, n});
            scf::YieldOp::create(b,
                                 ValueRange{codec.absMax(b, acc.front(), v)});
          });
      Value maximum = arith::MulFOp::create(
          b, scale, codec.rowMaximum(b, maxLoop.getResult(0)));
      emitEncodeRow(b, task, codec.rowScale(b, maximum), slot, p, held,
                    scaledRow);
    });
  }

  /// Row p of the tile into an 8-bit pool's slot: its scale `r` (formed by
  /// the caller from s times the maximum of |S'| over the row), then
  /// `values(p, n)` (s S' of column block n) as codes. The maximum is taken
  /// before the scaling: rounding is monotone and odd, so max |fl(s v)| =
  /// fl(s max |v|) for the tile's scale s > 0. One branch per row replaces
  /// encode's guard of every element.
  void emitEncodeRow(
      ImplicitLocOpBuilder &b, const Task &task, const PoolCodec::RowScale &r,
      Value slot, Value p, Value held,
      function_ref<Value(ImplicitLocOpBuilder &, Value, Value)> values) {
    Value row = arith::AddIOp::create(b, task.p0, p);
    codec.storeScale(b, r.scale, slot, task.head, row);
    const int64_t blocks = stochasticBlocks();
    auto codesType = VectorType::get({blocks * lanes}, e.f32);
    auto storeCodes = [&](bool inRange) {
      return [&, inRange](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
        scf::ForOp::create(
            b, task.zero, e.dstate, e.index(b, blocks * lanes), ValueRange{},
            [&](OpBuilder &nested, Location loc, Value n, ValueRange) {
              ImplicitLocOpBuilder b(loc, nested);
              PoolWriteSite site{slot, task.head, row, n, held};
              Value codes;
              if (inRange) {
                SmallVector<Value> columns;
                for (int64_t k = 0; k < blocks; ++k)
                  columns.push_back(values(
                      b, p,
                      k ? arith::AddIOp::create(b, n, e.index(b, k * lanes))
                              .getResult()
                        : n));
                codes = codec.encodeInRange(b, concatenate(b, columns),
                                            r.inverse, site);
              } else {
                codes = codec.zeroCodes(b, codesType);
              }
              vector::StoreOp::create(b, codes, e.pool,
                                      ValueRange{slot, task.head, row, n});
              scf::YieldOp::create(b);
            });
        return {};
      };
    };
    e.ifElseValues(b, r.inRange, TypeRange{}, storeCodes(true),
                   storeCodes(false));
  }

  /// Column blocks a stochastic pool write encodes as one vector: a Philox
  /// call serves four columns, so kStochasticBlocks blocks make full-width
  /// calls (AVX-512 forms a 32x32->64 product lane pair by lane pair);
  /// one block without stochastic rounding or where N is not a multiple.
  int64_t stochasticBlocks() const {
    return codec.stochastic && staticDState > 0 &&
                   staticDState % (kStochasticBlocks * lanes) == 0
               ? kStochasticBlocks
               : 1;
  }

  /// index: the tokens a state written after the token before `end`
  /// holds, for stochastic rounding's counter; null otherwise.
  Value held(ImplicitLocOpBuilder &b, const Task &task, Value end) {
    if (!codec.stochastic)
      return Value();
    return tokensHeld(b, task.prior, task.s.begin, end);
  }

  /// S' = scale S'; returns the new scale, 1.
  Value emitScaleFold(ImplicitLocOpBuilder &b, const Task &task, Value scale) {
    Value factor = splat(b, scale);
    forEachStateVector(b, task, [&](ImplicitLocOpBuilder &b, Value p, Value n) {
      Value v =
          vector::LoadOp::create(b, vecType, task.state(), ValueRange{p, n});
      vector::StoreOp::create(b, arith::MulFOp::create(b, factor, v),
                              task.state(), ValueRange{p, n});
    });
    return e.f32Const(b, 1.0);
  }

  // One token's scale and rows.

  /// d_t and s exp(d_t A_h), the decay formed as in the reference (d A <= 0
  /// for valid inputs).
  Decayed emitDecay(ImplicitLocOpBuilder &b, const Task &task, Value t,
                    Value scale) {
    Value d = e.processedDt(b, t, task.head);
    Value decay = e.exp(b, arith::MulFOp::create(b, d, task.a));
    return {d, arith::MulFOp::create(b, scale, decay)};
  }

  /// i1: the scale must be folded into the tile (unordered, so a NaN is too).
  Value outOfRange(ImplicitLocOpBuilder &b, Value scale) {
    return arith::OrIOp::create(
        b,
        arith::CmpFOp::create(b, arith::CmpFPredicate::ULT, scale,
                              e.f32Const(b, kMinScale)),
        arith::CmpFOp::create(b, arith::CmpFPredicate::UGT, scale,
                              e.f32Const(b, kMaxScale)));
  }

  Value inverse(ImplicitLocOpBuilder &b, Value scale) {
    return arith::DivFOp::create(b, e.f32Const(b, 1.0), scale);
  }

  /// f16/bf16 B and C rows of token t, widened once for all rows of the tile
  /// into rows 2 slot and 2 slot + 1 of the row buffer.
  void emitWidenRows(ImplicitLocOpBuilder &b, const Task &task, Value t,
                     int64_t slot, bool withC = true) {
    if (f32Model)
      return;
    scf::ForOp::create(
        b, task.zero, e.dstate, laneStep, ValueRange{},
        [&](OpBuilder &nested, Location loc, Value n, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          for (int which = 0; which < (withC ? 2 : 1); ++which)
            vector::StoreOp::create(
                inner, loadVector(inner, which ? e.C : e.B, {t, task.group, n}),
                task.widenedRows.buffer,
                ValueRange{e.index(inner, 2 * slot + which), n});
          scf::YieldOp::create(inner);
        });
  }

  /// Column block n of B (which = 0) or C (1) at a step's token.
  Value rowVector(ImplicitLocOpBuilder &b, const Task &task,
                  const TokenStep &step, int which, Value n) {
    if (f32Model)
      return vector::LoadOp::create(b, vecType, which ? e.C : e.B,
                                    ValueRange{step.t, task.group, n});
    return vector::LoadOp::create(
        b, vecType, task.widenedRows.buffer,
        ValueRange{e.index(b, 2 * step.rowSlot + which), n});
  }

  // The tile through a pass's tokens: the two FMAs per state element.

  /// A task walks x and y down the token axis, one H P row apart: a new page
  /// every token, which the hardware prefetchers do not follow. Asks for this
  /// block's x and y kPrefetchTokens ahead.
  void emitPrefetches(ImplicitLocOpBuilder &b, const Task &task,
                      ArrayRef<TokenStep> steps, Value p) {
    Value blockRow = arith::AddIOp::create(b, task.p0, p);
    for (const TokenStep &step : steps) {
      Value ahead = arith::MinUIOp::create(
          b, arith::AddIOp::create(b, step.t, e.index(b, kPrefetchTokens)),
          task.lastToken);
      for (auto [memref, write] : {std::pair(e.x, false), std::pair(e.y, true)})
        memref::PrefetchOp::create(
            b, memref, ValueRange{ahead, task.head, blockRow},
            b.getBoolAttr(write), b.getI32IntegerAttr(3), b.getBoolAttr(true));
    }
  }

  /// Rows p .. p + count - 1 of the block, their x per step, the weights
  /// d_t x / s_t of the update and zeroed accumulators of the dot products.
  BlockRows emitBlockRows(ImplicitLocOpBuilder &b, const Task &task,
                          ArrayRef<TokenStep> steps, Value p, int64_t count,
                          bool updateOnly) {
    BlockRows block;
    for (int64_t r = 0; r < count; ++r)
      block.rowIndex.push_back(arith::AddIOp::create(b, p, e.index(b, r)));
    for (const TokenStep &step : steps)
      for (int64_t r = 0; r < count; ++r) {
        Value row = arith::AddIOp::create(b, task.p0, block.rowIndex[r]);
        block.xs.push_back(e.loadF32(b, e.x, {step.t, task.head, row}));
        Value dx = arith::MulFOp::create(b, step.d, block.xs.back());
        block.weights.push_back(
            splat(b, arith::MulFOp::create(b, dx, step.inverseScale)));
        if (!updateOnly)
          block.zeros.push_back(splat(b, e.f32Const(b, 0.0)));
      }
    return block;
  }

  /// The loop over column blocks: per row, S' += w_k B_k then acc_k += S' C_k
  /// for each step k, the state vector loaded and stored once for all steps.
  /// Its results are the accumulators.
  scf::ForOp emitColumns(ImplicitLocOpBuilder &b, const Task &task,
                         ArrayRef<TokenStep> steps, const TilePass &pass,
                         const BlockRows &block, int64_t count) {
    Value storeFactor = pass.storeScale ? splat(b, pass.storeScale) : Value();
    return scf::ForOp::create(
        b, task.zero, e.dstate, laneStep, block.zeros,
        [&](OpBuilder &nested, Location loc, Value n, ValueRange acc) {
          ImplicitLocOpBuilder b(loc, nested);
          SmallVector<Value> bv, cv;
          for (const TokenStep &step : steps) {
            bv.push_back(rowVector(b, task, step, 0, n));
            if (!pass.updateOnly)
              cv.push_back(rowVector(b, task, step, 1, n));
          }
          SmallVector<Value> next(acc.begin(), acc.end());
          for (int64_t r = 0; r < count; ++r) {
            SmallVector<Value, 2> at{block.rowIndex[r], n};
            Value v = vector::LoadOp::create(b, vecType, pass.source, at);
            for (size_t k = 0; k < steps.size(); ++k) {
              size_t i = k * count + r;
              v = vector::FMAOp::create(b, block.weights[i], bv[k], v);
              if (!pass.updateOnly)
                next[i] = vector::FMAOp::create(b, v, cv[k], acc[i]);
            }
            vector::StoreOp::create(
                b, storeFactor ? arith::MulFOp::create(b, storeFactor, v) : v,
                pass.sink, at);
          }
          scf::YieldOp::create(b, next);
        });
  }

  /// y[t, h, p] = s_t (S'[p, :] . C[t, g, :]) (+ D_h x[t, h, p]) from the
  /// accumulators.
  void emitOutputs(ImplicitLocOpBuilder &b, const Task &task,
                   ArrayRef<TokenStep> steps, const BlockRows &block,
                   ValueRange dots, int64_t count) {
    const bool sideBySide = reducesSideBySide(count, lanes);
    for (auto [k, step] : llvm::enumerate(steps)) {
      Value sums = sideBySide ? reduceSideBySide(b, vector::CombiningKind::ADD,
                                                 dots.slice(k * count, count))
                              : Value();
      for (int64_t r = 0; r < count; ++r) {
        size_t i = k * count + r;
        Value dot =
            sideBySide
                ? vector::ExtractOp::create(b, sums, ArrayRef<int64_t>{r})
                      .getResult()
                : vector::ReductionOp::create(b, vector::CombiningKind::ADD,
                                              dots[i],
                                              arith::FastMathFlags::reassoc)
                      .getResult();
        Value out = arith::MulFOp::create(b, step.scale, dot);
        if (e.D)
          out = arith::AddFOp::create(
              b, out,
              arith::MulFOp::create(b, e.loadF32(b, e.D, {task.head}),
                                    block.xs[i]));
        Value row = arith::AddIOp::create(b, task.p0, block.rowIndex[r]);
        e.storeRounded(b, out, e.y, {step.t, task.head, row});
      }
    }
  }

  /// Rows p .. p + count - 1 through the steps' tokens in one pass: each
  /// state vector is loaded and stored once for all steps, each column block
  /// of B and C is loaded once for all rows, and the accumulators (a row and
  /// step each) are independent FMA chains.
  void emitRows(ImplicitLocOpBuilder &b, const Task &task,
                ArrayRef<TokenStep> steps, const TilePass &pass, Value p,
                int64_t count) {
    if (pass.updateOnly) {
      BlockRows block = emitBlockRows(b, task, steps, p, count, true);
      emitColumns(b, task, steps, pass, block, count);
      return;
    }
    emitPrefetches(b, task, steps, p);
    BlockRows block = emitBlockRows(b, task, steps, p, count, false);
    scf::ForOp columns = emitColumns(b, task, steps, pass, block, count);
    emitOutputs(b, task, steps, block, columns.getResults(), count);
  }

  /// The whole tile through the steps' tokens, in blocks of rows that keep a
  /// weight and an accumulator per row and step in registers.
  void emitTile(ImplicitLocOpBuilder &b, const Task &task,
                ArrayRef<TokenStep> steps, const TilePass &pass) {
    const int64_t block =
        pass.rowsAtOnce
            ? pass.rowsAtOnce
            : std::max<int64_t>(1, rowsPerBlock / int64_t(steps.size()));
    Value blockedRows = arith::SubIOp::create(
        b, task.rows, arith::RemUIOp::create(b, task.rows, e.index(b, block)));
    scf::ForOp::create(
        b, task.zero, blockedRows, e.index(b, block), ValueRange{},
        [&](OpBuilder &nested, Location loc, Value p, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          emitRows(inner, task, steps, pass, p, block);
          scf::YieldOp::create(inner);
        });
    e.loop(b, blockedRows, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      emitRows(b, task, steps, pass, p, 1);
    });
  }

  // The tokens of a sequence.

  /// Token t alone through the tile, the scale folded into the tile first
  /// if it leaves the range; returns the scale after it. The one update of
  /// a token that a tree's replay shares, so that a node's (s, S') has the
  /// same bits however it is reached.
  Value emitSingleToken(ImplicitLocOpBuilder &b, const Task &task, Value t,
                        Value scale, const TilePass &pass) {
    Decayed step = emitDecay(b, task, t, scale);
    Value d = step.d, decayed = step.scale;
    Value folded = e.ifElse(
        b, outOfRange(b, decayed), e.f32,
        [&](ImplicitLocOpBuilder &b) {
          return emitScaleFold(b, task, decayed);
        },
        [&](ImplicitLocOpBuilder &) { return decayed; });
    emitWidenRows(b, task, t, 0, /*withC=*/!pass.updateOnly);
    emitTile(b, task, {TokenStep{t, d, folded, inverse(b, folded), 0}}, pass);
    return folded;
  }

  /// Tokens [first, last) one at a time, folding the scale into the tile
  /// whenever it leaves the range; returns the scale after them.
  Value emitSingleTokens(ImplicitLocOpBuilder &b, const Task &task, Value first,
                         Value last, Value scale) {
    auto loop = scf::ForOp::create(
        b, first, last, e.index(b, 1), ValueRange{scale},
        [&](OpBuilder &nested, Location loc, Value t, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value scale =
              emitSingleToken(b, task, t, carried.front(), task.inTile());
          scf::YieldOp::create(b, ValueRange{scale});
        });
    return loop.getResult(0);
  }

  /// kTokensPerPass tokens from t in one pass over the tile, or one at a time
  /// when a scale among them leaves the range, so that every token sees the
  /// same operations whichever way it is grouped. Returns the scale after
  /// them.
  Value emitTokenGroup(ImplicitLocOpBuilder &b, const Task &task, Value t,
                       Value scale) {
    SmallVector<Value> tokens;
    SmallVector<Decayed> decayed;
    Value ungrouped;
    for (int64_t k = 0; k < kTokensPerPass; ++k) {
      tokens.push_back(arith::AddIOp::create(b, t, e.index(b, k)));
      decayed.push_back(
          emitDecay(b, task, tokens.back(), k ? decayed.back().scale : scale));
      Value out = outOfRange(b, decayed.back().scale);
      ungrouped = k ? arith::OrIOp::create(b, ungrouped, out) : out;
    }
    return e.ifElse(
        b, ungrouped, e.f32,
        [&](ImplicitLocOpBuilder &b) {
          return emitSingleTokens(
              b, task, t,
              arith::AddIOp::create(b, t, e.index(b, kTokensPerPass)), scale);
        },
        [&](ImplicitLocOpBuilder &b) {
          SmallVector<TokenStep> steps;
          for (int64_t k = 0; k < kTokensPerPass; ++k) {
            emitWidenRows(b, task, tokens[k], k);
            steps.push_back(TokenStep{tokens[k], decayed[k].d, decayed[k].scale,
                                      inverse(b, decayed[k].scale), k});
          }
          emitTile(b, task, steps, task.inTile());
          return decayed.back().scale;
        });
  }

  /// Tokens [first, last) in groups of kTokensPerPass: one pass over the tile
  /// serves the group (its FMA pairs per state load and store; the loads and
  /// stores bound a single-token pass), and the remainder one at a time.
  /// Results do not depend on the grouping, nor on where checkpoints split
  /// the tokens. Returns the scale after them.
  Value emitTokens(ImplicitLocOpBuilder &b, const Task &task, Value first,
                   Value last, Value scale) {
    Value tokenCount = arith::SubIOp::create(b, last, first);
    Value groupedEnd = arith::AddIOp::create(
        b, first,
        arith::SubIOp::create(
            b, tokenCount,
            arith::RemUIOp::create(b, tokenCount, e.index(b, kTokensPerPass))));
    auto groupLoop = scf::ForOp::create(
        b, first, groupedEnd, e.index(b, kTokensPerPass), ValueRange{scale},
        [&](OpBuilder &nested, Location loc, Value t, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value scale = emitTokenGroup(b, task, t, carried.front());
          scf::YieldOp::create(b, ValueRange{scale});
        });
    return emitSingleTokens(b, task, groupedEnd, last, groupLoop.getResult(0));
  }

  // Draft trees (token_parents).

  /// index: token t's parent as a local index, sign-extended (-1: the
  /// initial state).
  Value parentOf(ImplicitLocOpBuilder &b, Value t) {
    return arith::IndexCastOp::create(b, b.getIndexType(),
                                      memref::LoadOp::create(b, parents, t));
  }

  /// i1: local token j's parent p continues the state the tile holds, i.e.
  /// p = j - 1 (for j = 0, p = -1).
  Value continues(ImplicitLocOpBuilder &b, Value j, Value p) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, p,
                                 arith::SubIOp::create(b, j, e.index(b, 1)));
  }

  /// The end of the run of tokens from `from` (> first token of the run)
  /// whose parent is the token before: the first token in [from, last)
  /// that does not continue, or last. Reads one parent per token.
  Value emitRunEnd(ImplicitLocOpBuilder &b, const Task &task, Value from,
                   Value last) {
    Value lastIn = arith::SubIOp::create(b, last, e.index(b, 1));
    auto loop = scf::WhileOp::create(
        b, TypeRange{b.getIndexType()}, ValueRange{from},
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          Value k = args.front();
          Value inRange =
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, k, last);
          // Clamped so that the load stays inside the run's tokens; the
          // result is ignored past them.
          Value at = arith::MinUIOp::create(b, k, lastIn);
          Value j = arith::SubIOp::create(b, k, task.s.begin);
          Value goesOn = arith::AndIOp::create(
              b, inRange, continues(b, j, parentOf(b, at)));
          scf::ConditionOp::create(b, goesOn, ValueRange{k});
        },
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          scf::YieldOp::create(b, ValueRange{arith::AddIOp::create(
                                      b, args.front(), e.index(b, 1))});
        });
    return loop.getResult(0);
  }

  /// The state of local node p into the tile: the sequence's initial state
  /// at scale 1, then the updates of p's ancestors root .. p in forward
  /// order, one token at a time through emitSingleToken (no y). The i-th of
  /// the depth d ancestors is found by walking d - 1 - i parents up from p:
  /// O(d^2) index loads and no scratch. A walk stops at -1 or at a parent
  /// that is not below its child, so a table that breaks the contract
  /// (0 <= p < j or -1) reads as a shorter path, never out of the
  /// sequence. Returns the scale of p's state.
  Value emitReplay(ImplicitLocOpBuilder &b, const Task &task, Value j,
                   Value p) {
    emitZeroState(b, task);
    emitLoadInitialState(b, task);
    Type indexType = b.getIndexType();
    auto depthLoop = scf::WhileOp::create(
        b, TypeRange{indexType, indexType, indexType},
        ValueRange{p, j, task.zero},
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          Value node = args[0], child = args[1];
          Value onPath = arith::AndIOp::create(
              b,
              arith::CmpIOp::create(b, arith::CmpIPredicate::sge, node,
                                    task.zero),
              arith::CmpIOp::create(b, arith::CmpIPredicate::slt, node, child));
          scf::ConditionOp::create(b, onPath, args);
        },
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          Value node = args[0];
          Value up = parentOf(b, arith::AddIOp::create(b, task.s.begin, node));
          scf::YieldOp::create(
              b, ValueRange{up, node,
                            arith::AddIOp::create(b, args[2], e.index(b, 1))});
        });
    Value depth = depthLoop.getResult(2);
    auto path = scf::ForOp::create(
        b, task.zero, depth, e.index(b, 1), ValueRange{e.f32Const(b, 1.0)},
        [&](OpBuilder &nested, Location loc, Value i, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value steps = arith::SubIOp::create(
              b, arith::SubIOp::create(b, depth, i), e.index(b, 1));
          auto walk = scf::ForOp::create(
              b, task.zero, steps, e.index(b, 1), ValueRange{p},
              [&](OpBuilder &nested, Location loc, Value, ValueRange node) {
                ImplicitLocOpBuilder b(loc, nested);
                scf::YieldOp::create(
                    b, ValueRange{
                           parentOf(b, arith::AddIOp::create(b, task.s.begin,
                                                             node.front()))});
              });
          Value t = arith::AddIOp::create(b, task.s.begin, walk.getResult(0));
          Value scale =
              emitSingleToken(b, task, t, carried.front(), task.replayInTile());
          scf::YieldOp::create(b, ValueRange{scale});
        });
    return path.getResult(0);
  }

  /// Tokens [first, last) of a tree: runs of tokens whose parent is the
  /// token before go through emitTokens exactly as a chain does (pairs only
  /// within a run, so a pair's second token is the first's child); a token
  /// whose parent is not the one before starts a run after emitReplay has
  /// put its parent's state into the tile. Returns the scale after them.
  Value emitTreeTokens(ImplicitLocOpBuilder &b, const Task &task, Value first,
                       Value last, Value scale) {
    Type indexType = b.getIndexType();
    auto runs = scf::WhileOp::create(
        b, TypeRange{indexType, e.f32}, ValueRange{first, scale},
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          scf::ConditionOp::create(
              b,
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, args[0],
                                    last),
              args);
        },
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          Value t = args[0];
          Value j = arith::SubIOp::create(b, t, task.s.begin);
          Value p = parentOf(b, t);
          Value start = e.ifElse(
              b, continues(b, j, p), e.f32,
              [&](ImplicitLocOpBuilder &) { return args[1]; },
              [&](ImplicitLocOpBuilder &b) {
                return emitReplay(b, task, j, p);
              });
          Value runEnd = emitRunEnd(
              b, task, arith::AddIOp::create(b, t, e.index(b, 1)), last);
          Value after = emitTokens(b, task, t, runEnd, start);
          scf::YieldOp::create(b, ValueRange{runEnd, after});
        });
    return runs.getResult(1);
  }

  /// Tokens [first, last): the chain of emitTokens, or, with token_parents,
  /// the tree's runs.
  Value emitSpan(ImplicitLocOpBuilder &b, const Task &task, Value first,
                 Value last, Value scale) {
    if (!parents)
      return emitTokens(b, task, first, last, scale);
    return emitTreeTokens(b, task, first, last, scale);
  }

  /// Checkpoints split the tokens into segments that end at the written
  /// boundaries (segment k < W ends after boundary k's token) and a last one
  /// up to the end; after segment k the tile times its scale is the state to
  /// store, rounded like the final state. One segment loop, so the token
  /// loops are emitted once. Returns the scale after the sequence.
  Value emitCheckpointSegments(ImplicitLocOpBuilder &b, const Task &task,
                               Value scale) {
    const SequenceInfo &s = task.s;
    Value written = checkpoints.writtenWithin(
        b, task.range, arith::SubIOp::create(b, s.end, s.begin));
    auto segments = scf::ForOp::create(
        b, task.zero, arith::AddIOp::create(b, written, e.index(b, 1)),
        e.index(b, 1), ValueRange{scale, s.begin},
        [&](OpBuilder &nested, Location loc, Value k, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          Value isBoundary =
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, k, written);
          Value segmentEnd = arith::SelectOp::create(
              b, isBoundary, checkpoints.boundaryEnd(b, task.range, k), s.end);
          Value scale = emitSpan(b, task, carried[1], segmentEnd, carried[0]);
          e.ifThen(b, isBoundary, [&](ImplicitLocOpBuilder &b) {
            checkpoints.ifSlot(
                b, task.seq, k, [&](ImplicitLocOpBuilder &b, Value slot) {
                  emitStoreScaledState(b, task, scale, slot,
                                       held(b, task, segmentEnd));
                });
          });
          scf::YieldOp::create(b, ValueRange{scale, segmentEnd});
        });
    return segments.getResult(0);
  }

  /// The general case: the pool's state into the tile, the tokens, the tile
  /// (scaled back) into the pool.
  void emitSequence(ImplicitLocOpBuilder &b, const Task &task) {
    emitLoadInitialState(b, task);
    Value scale = e.f32Const(b, 1.0);
    if (!checkpoints)
      scale = emitSpan(b, task, task.s.begin, task.s.end, scale);
    else
      scale = emitCheckpointSegments(b, task, scale);
    e.ifThen(b, task.s.writesState, [&](ImplicitLocOpBuilder &b) {
      emitStoreScaledState(b, task, scale, task.s.slot,
                           held(b, task, task.s.end));
    });
  }

  // Decode: one token from pool to pool.

  /// i1: the sequence takes emitDecode. It has one token, which writes no
  /// checkpoint (the pool-to-pool pass has no tile to store one from), and
  /// whose decay stays in range (one pass leaves no room for a fold).
  Value emitTakesDecode(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Value oneToken = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, arith::SubIOp::create(b, s.end, s.begin),
        e.index(b, 1));
    if (checkpoints) {
      Value written = checkpoints.writtenWithin(b, task.range, e.index(b, 1));
      oneToken = arith::AndIOp::create(
          b, oneToken,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, written,
                                e.index(b, 0)));
    }
    return e.ifElse(
        b, oneToken, b.getI1Type(),
        [&](ImplicitLocOpBuilder &b) {
          Value decayed = emitDecay(b, task, s.begin, e.f32Const(b, 1.0)).scale;
          return arith::XOrIOp::create(b, outOfRange(b, decayed),
                                       arith::ConstantIntOp::create(b, 1, 1));
        },
        [&](ImplicitLocOpBuilder &b) {
          return arith::ConstantIntOp::create(b, 0, 1);
        });
  }

  /// A one-token sequence (decode) with an f32 pool goes from pool to pool in
  /// one pass: each state vector is read, updated, and written back (times
  /// the token's decay, the scale) once, instead of three passes through the
  /// tile. Without an initial state it reads the zeroed tile; without a write
  /// it writes the tile. Decode is a copy of the state rows, so they go one
  /// row at a time, in address order, for the hardware prefetchers: 16-row
  /// blocks ran decode 1.3x slower (Zen 4, 16 sequences).
  void emitDecode(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Decayed step = emitDecay(b, task, s.begin, e.f32Const(b, 1.0));
    SmallVector<OpFoldResult> offsets{s.slot, task.head, task.p0, task.zero},
        sizes{b.getIndexAttr(1), b.getIndexAttr(1), task.rows, e.dstate},
        strides(4, b.getIndexAttr(1));
    auto rowsType = memref::SubViewOp::inferRankReducedResultType(
        {ShapedType::kDynamic, ShapedType::kDynamic},
        cast<MemRefType>(e.pool.getType()), offsets, sizes, strides);
    Value poolRows =
        memref::SubViewOp::create(b, rowsType, e.pool, offsets, sizes, strides);
    Value tileRows = memref::CastOp::create(b, rowsType, task.state());
    emitWidenRows(b, task, s.begin, 0);
    emitTile(
        b, task,
        {TokenStep{s.begin, step.d, step.scale, inverse(b, step.scale), 0}},
        TilePass{arith::SelectOp::create(b, s.readsInitial, poolRows, tileRows),
                 arith::SelectOp::create(b, s.writesState, poolRows, tileRows),
                 step.scale, /*rowsAtOnce=*/1});
  }

  /// A one-token sequence (decode) with a narrow pool, kDecodeRows rows at
  /// a time in address order: one pass over the rows' stored elements
  /// decodes each vector, updates it and takes its dot product with C. bf16
  /// and f16 vectors are encoded and stored back in the same pass; an 8-bit
  /// row keeps S' in its row of the tile (L1) and the lane by lane maxima of
  /// |S'|, then its scale is formed and a second pass over the tile row
  /// writes the codes. Every value is the one emitSequence computes: the
  /// same decode, the same two FMAs in the same order, the same rounding of
  /// s S'.
  void emitNarrowDecode(ImplicitLocOpBuilder &b, const Task &task) {
    const SequenceInfo &s = task.s;
    Decayed decayed = emitDecay(b, task, s.begin, e.f32Const(b, 1.0));
    TokenStep step{s.begin, decayed.d, decayed.scale, inverse(b, decayed.scale),
                   0};
    emitWidenRows(b, task, s.begin, 0);
    NarrowDecode decode{step, splat(b, step.scale), held(b, task, s.end),
                        splat(b, e.f32Const(b, 0.0))};
    Value blockedRows = arith::SubIOp::create(
        b, task.rows,
        arith::RemUIOp::create(b, task.rows, e.index(b, kDecodeRows)));
    scf::ForOp::create(
        b, task.zero, blockedRows, e.index(b, kDecodeRows), ValueRange{},
        [&](OpBuilder &nested, Location loc, Value p, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          emitNarrowDecodeRows(inner, task, decode, p, kDecodeRows);
          scf::YieldOp::create(inner);
        });
    e.loop(b, blockedRows, task.rows, [&](ImplicitLocOpBuilder &b, Value p) {
      emitNarrowDecodeRows(b, task, decode, p, 1);
    });
  }

  /// What every row of emitNarrowDecode shares.
  struct NarrowDecode {
    TokenStep step;
    Value factor; // s, splat
    Value held;   // tokens the state holds (stochastic rounding only)
    Value zeros;  // f32 vector
  };

  /// Rows p .. p + count - 1 of emitNarrowDecode. Each row's dot product
  /// and maximum are FMA and max chains through its column blocks; rows
  /// side by side give the core independent chains to overlap.
  void emitNarrowDecodeRows(ImplicitLocOpBuilder &b, const Task &task,
                            const NarrowDecode &decode, Value p,
                            int64_t count) {
    const SequenceInfo &s = task.s;
    const TokenStep &step = decode.step;
    bool scaled = codec.scaled();
    BlockRows block = emitBlockRows(b, task, {step}, p, count, false);
    SmallVector<Value> rows;
    for (int64_t r = 0; r < count; ++r)
      rows.push_back(arith::AddIOp::create(b, task.p0, block.rowIndex[r]));
    // Carried: count dot products, then (8-bit) count lane maxima.
    SmallVector<Type> carried(scaled ? 2 * count : count, vecType);
    // One column pass: S' from the stored rows (fromPool) or zeros, and
    // s S' into the pool (toPool: bf16, f16) or into the tile.
    auto columnPass = [&](bool fromPool, bool toPool) {
      return [&, fromPool, toPool](ImplicitLocOpBuilder &b) {
        SmallVector<Value> rowScales(count);
        if (fromPool && scaled)
          for (int64_t r = 0; r < count; ++r)
            rowScales[r] = codec.loadScale(b, s.slot, task.head, rows[r]);
        SmallVector<Value> init(carried.size(), decode.zeros);
        // Stores into the pool take stochasticBlocks() blocks a step,
        // encoded as one vector.
        const int64_t blocks = toPool ? stochasticBlocks() : 1;
        auto columns = scf::ForOp::create(
            b, task.zero, e.dstate, e.index(b, blocks * lanes), init,
            [&](OpBuilder &nested, Location loc, Value n, ValueRange acc) {
              ImplicitLocOpBuilder b(loc, nested);
              SmallVector<Value> next(acc.begin(), acc.end());
              SmallVector<SmallVector<Value>> stored(count);
              for (int64_t k = 0; k < blocks; ++k) {
                Value nk =
                    k ? arith::AddIOp::create(b, n, e.index(b, k * lanes))
                            .getResult()
                      : n;
                Value bv = rowVector(b, task, step, 0, nk);
                Value cv = rowVector(b, task, step, 1, nk);
                for (int64_t r = 0; r < count; ++r) {
                  SmallVector<Value, 4> at{s.slot, task.head, rows[r], nk};
                  Value v = fromPool ? loadPoolVector(b, at, rowScales[r])
                                     : decode.zeros;
                  v = vector::FMAOp::create(b, block.weights[r], bv, v);
                  next[r] = vector::FMAOp::create(b, v, cv, next[r]);
                  if (toPool) {
                    stored[r].push_back(
                        arith::MulFOp::create(b, decode.factor, v));
                  } else if (scaled) {
                    vector::StoreOp::create(b, v, task.state(),
                                            ValueRange{block.rowIndex[r], nk});
                    next[count + r] = codec.absMax(b, next[count + r], v);
                  }
                }
              }
              if (toPool)
                for (int64_t r = 0; r < count; ++r) {
                  PoolWriteSite site{s.slot, task.head, rows[r], n,
                                     decode.held};
                  vector::StoreOp::create(
                      b,
                      codec.encode(b, concatenate(b, stored[r]), Value(), site),
                      e.pool, ValueRange{s.slot, task.head, rows[r], n});
                }
              scf::YieldOp::create(b, next);
            });
        return SmallVector<Value>(columns.getResults());
      };
    };
    auto fromSource = [&](bool fromPool) {
      return [&, fromPool](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
        if (scaled)
          return columnPass(fromPool, false)(b);
        return e.ifElseValues(b, s.writesState, carried,
                              columnPass(fromPool, true),
                              columnPass(fromPool, false));
      };
    };
    SmallVector<Value> results = e.ifElseValues(
        b, s.readsInitial, carried, fromSource(true), fromSource(false));
    emitOutputs(b, task, {step}, block, ValueRange(results).take_front(count),
                count);
    if (!scaled)
      return;
    e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
      // The rows' scales side by side where their maxima reduce so: one
      // vector division each way for all of them.
      ValueRange magnitudes = ValueRange(results).drop_front(count);
      std::optional<PoolCodec::RowScale> scales;
      if (reducesSideBySide(count, lanes)) {
        auto bits = VectorType::get({lanes}, b.getI32Type());
        SmallVector<Value> rowBits;
        for (Value m : magnitudes)
          rowBits.push_back(arith::BitcastOp::create(b, bits, m));
        Value maxima = arith::BitcastOp::create(
            b, VectorType::get({count}, e.f32),
            reduceSideBySide(b, vector::CombiningKind::MAXUI, rowBits));
        scales = codec.rowScale(
            b,
            arith::MulFOp::create(
                b, vector::BroadcastOp::create(b, maxima.getType(), step.scale),
                maxima));
      }
      for (int64_t r = 0; r < count; ++r) {
        PoolCodec::RowScale rowScale;
        if (scales) {
          auto lane = [&](Value v) -> Value {
            return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{r});
          };
          rowScale = {lane(scales->scale), lane(scales->inverse),
                      lane(scales->inRange)};
        } else {
          rowScale = codec.rowScale(
              b, arith::MulFOp::create(b, step.scale,
                                       codec.rowMaximum(b, magnitudes[r])));
        }
        emitEncodeRow(b, task, rowScale, s.slot, block.rowIndex[r], decode.held,
                      [&](ImplicitLocOpBuilder &b, Value p, Value n) -> Value {
                        Value v = vector::LoadOp::create(
                            b, vecType, task.state(), ValueRange{p, n});
                        return arith::MulFOp::create(b, decode.factor, v);
                      });
      }
    });
  }
};

} // namespace

void mlir::ssd::detail::buildSerialScan(RewriterBase &rewriter,
                                        ChunkScanVarlenOp op, int64_t pTile,
                                        int64_t vectorWidth) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  SerialScanBuilder(b, op, pTile, vectorWidth).build(b);
  rewriter.eraseOp(op);
}
