//===- SerialScanGPU.cpp - the token-serial scan as a GPU kernel ----------===//
//
// The recurrence of SerialScan.cpp, mapped onto the GPU:
//
//   grid  = (batch, H, ceil(P / (W R)))     block = (32 lanes, W warps)
//   (batch on x, whose limit is 2^31 - 1, not 65535)
//   warp w of block (b, h, z) owns rows p = z W R + w R + [0, R) of the
//   state of sequence b, head h; lane l owns the V consecutive columns
//   n = 32 V j + V l + [0, V), j < J = ceil(N / (32 V)), V = 4 (2, 1) when
//   N is a multiple of 128 (64, neither). The R x J x V state values live
//   in registers:
//
//   S[r][j] = has_initial_state ? pool[slot, h, p_r, n_j] : 0
//   for t in tokens of b:
//     S[r][j]    = exp(d_t A_h) S[r][j] + (d_t x[t, h, p_r]) B[t, g, n_j]
//     y[t,h,p_r] = warp_sum_l(sum_j S[r][j] C[t, g, n_j]) (+ D_h x[t, h, p_r])
//     if t ends a checkpoint boundary k (GPUBuilders.h, Checkpoints):
//       pool[checkpoint_slots[b, k], h, p_r, n_j] = S[r][j]
//   if writes: pool[slot, h, p_r, n_j] = S[r][j]
//
// Checkpoints cost one boundary test per token (uniform over the block, so
// no divergence) and, at a boundary, one more state write: the same
// coalesced rows as the final state, rounded the same way. Checkpoint
// slots are never read, so they are written from whichever launch scans
// the sequence.
//
// The update and the dot product are written as a * b + c with
// contraction allowed, so each is one fma. B and C rows are read once per
// token per warp, 32 V consecutive columns at a time, and the pool moves in
// the same coalesced rows (512 bytes per warp access at V = 4): decode (one
// token) reads and writes each state element exactly once.
//
// Every reader must see the pool as it was before the op. A writer whose
// slot another sequence reads (tree speculation: one writer, many readers
// of its slot) is "contested": it scans in a second launch, after every
// other sequence has read its initial state; nobody else writes its slot
// (one writer per slot), so its own read there still sees the old state.
// Each writer's block finds out in launch 1 with a block-wide pass over the
// batch (O(batch / threads) loads per block, no atomics, nothing to zero),
// and block (b, 0, 0) records the answer in a per-call workspace flag; the
// second launch is a small grid over (H, P-tiles) whose blocks walk the
// flags and scan only the contested writers. Without has_initial_state
// nobody reads the pool and there is one launch.
//
// In a mixed launch (makeSerialPart with a per-sequence threshold) the
// blocks of sequences of at least that many tokens return at once: the
// chunked kernels, launched between the two serial launches, run them. The
// contested-writer vote still counts readers of both forms.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

namespace {

class SerialScanGPUBuilder : public SerialPart {
public:
  SerialScanGPUBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                       const StaticExtents &x, const SerialTiling &tiling,
                       int64_t minChunkedSequence)
      : e(b, op, MathFlavor::NVVMApprox), checkpoints(b, op), x(x), op(op),
        rowsPerWarp(tiling.rowsPerWarp), warps(tiling.warpsPerBlock),
        minChunkedSequence(minChunkedSequence),
        mayShareSlots(static_cast<bool>(e.hasInitialState)) {
    vectorWidth = x.dstate % 128 == 0 ? 4 : x.dstate % 64 == 0 ? 2 : 1;
    columnGroups = llvm::divideCeil(x.dstate, 32 * vectorWidth);
  }

  void declareWorkspace(ImplicitLocOpBuilder &b, WorkspaceBuilder &w) override {
    if (mayShareSlots)
      flagSlot = w.add(MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
                       {e.batch});
  }
  void bindWorkspace(ArrayRef<Value> views) override {
    if (mayShareSlots)
      flags = views[flagSlot];
  }

  /// Every sequence but the contested writers (and, in a mixed launch, the
  /// chunked ones); contested writers are flagged for the second launch.
  void emitFirstLaunch(ImplicitLocOpBuilder &b) override {
    Value rowTiles = idx(b, llvm::divideCeil(x.headDim, rowsPerWarp * warps));
    launchKernel(
        b, e, {e.batch, idx(b, x.heads), rowTiles}, {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value seq = k.block.x;
          Value runsHere = runsSerially(b, seq);
          Value contested = boolean(b, false);
          if (mayShareSlots) {
            Value tid = add(b, mul(b, k.thread.y, 32), k.thread.x);
            Value warpFlags = sharedView(b, k, 0, {warps}, b.getI32Type());
            contested = both(b, runsHere,
                             contestedWriter(b, e, seq, tid, k.thread.x,
                                             warpFlags, 32 * warps));
            Value recorder = both(b,
                                  both(b, eq(b, k.block.y, idx(b, 0)),
                                       eq(b, k.block.z, idx(b, 0))),
                                  eq(b, tid, idx(b, 0)));
            e.ifThen(b, recorder, [&](ImplicitLocOpBuilder &b) {
              memref::StoreOp::create(
                  b, arith::ExtUIOp::create(b, b.getI32Type(), contested),
                  flags, ValueRange{seq});
            });
          }
          Value scans =
              both(b, runsHere,
                   arith::XOrIOp::create(b, contested, boolean(b, true)));
          e.ifThen(b, scans, [&](ImplicitLocOpBuilder &b) {
            emitScan(b, seq, k.block.y, k.block.z, k.thread.x, k.thread.y);
          });
        },
        mayShareSlots ? 4 * warps : 0);
  }

  /// The flagged (contested) writers, after every other sequence has read
  /// the pool: a grid over (heads, P-tiles) whose blocks walk the flags.
  void emitSecondLaunch(ImplicitLocOpBuilder &b) override {
    if (!mayShareSlots)
      return;
    Value rowTiles = idx(b, llvm::divideCeil(x.headDim, rowsPerWarp * warps));
    launchKernel(
        b, e, {idx(b, x.heads), rowTiles, idx(b, 1)}, {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          e.loop(b, idx(b, 0), e.batch,
                 [&](ImplicitLocOpBuilder &b, Value seq) {
                   Value flag = memref::LoadOp::create(b, flags, seq);
                   e.ifThen(b,
                            arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                                  flag, i32(b, 0)),
                            [&](ImplicitLocOpBuilder &b) {
                              emitScan(b, seq, k.block.x, k.block.y, k.thread.x,
                                       k.thread.y);
                            });
                 });
        });
  }

private:
  ScanEmitter e;
  Checkpoints checkpoints;
  StaticExtents x;
  ChunkScanVarlenOp op;
  int64_t rowsPerWarp, warps;
  int64_t minChunkedSequence; // > 0: longer sequences run chunked
  bool mayShareSlots;         // has_initial_state: someone may read a slot
  int64_t vectorWidth, columnGroups;
  unsigned flagSlot = 0;
  Value flags; // [batch] i32: contested writers, for the second launch

  /// Whether this form scans `seq` (in a mixed launch, its short sequences).
  Value runsSerially(ImplicitLocOpBuilder &b, Value seq) {
    if (!minChunkedSequence)
      return boolean(b, true);
    SequenceInfo s = e.sequence(b, seq);
    Value len = sub(b, arith::MaxSIOp::create(b, s.end, s.begin), s.begin);
    return ult(b, len, minChunkedSequence);
  }

  /// V consecutive values of `memref` at `indices` (the last one the first
  /// column) as vector<Vxf32>, or zeros where !valid (no access).
  Value loadColumns(ImplicitLocOpBuilder &b, Value valid, Value memref,
                    ValueRange indices, bool guarded) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto f32v = VectorType::get({vectorWidth}, b.getF32Type());
    auto loadIt = [&](ImplicitLocOpBuilder &b) -> Value {
      Value v = vector::LoadOp::create(
          b, VectorType::get({vectorWidth}, element), memref, indices,
          /*nontemporal=*/false,
          llvm::MaybeAlign(vectorWidth * element.getIntOrFloatBitWidth() / 8));
      if (!element.isF32())
        v = arith::ExtFOp::create(b, f32v, v);
      return v;
    };
    if (!guarded)
      return loadIt(b);
    return e.ifElse(b, valid, f32v, loadIt, [&](ImplicitLocOpBuilder &b) {
      return arith::ConstantOp::create(
                 b, f32v, DenseElementsAttr::get(f32v, b.getF32FloatAttr(0.0)))
          .getResult();
    });
  }

  void storeColumns(ImplicitLocOpBuilder &b, Value value, Value memref,
                    ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (!element.isF32())
      value = arith::TruncFOp::create(
          b, VectorType::get({vectorWidth}, element), value);
    vector::StoreOp::create(
        b, value, memref, indices, /*nontemporal=*/false,
        llvm::MaybeAlign(vectorWidth * element.getIntOrFloatBitWidth() / 8));
  }

  /// The recurrence of sequence `seq`, head `head`, rows of P-tile `tile`,
  /// for warp `warp`, lane `lane`.
  void emitScan(ImplicitLocOpBuilder &b, Value seq, Value head, Value tile,
                Value lane, Value warp) {
    const int64_t R = rowsPerWarp, J = columnGroups, V = vectorWidth;
    const bool rowsNeedGuard = x.headDim % (R * warps) != 0;
    const bool columnsNeedGuard = x.dstate % (32 * V) != 0;
    SequenceInfo s = e.sequence(b, seq);
    Value group = e.groupOf(b, head);
    Value a = e.loadF32(b, e.A, {head});
    Value trueV = boolean(b, true);
    Value firstRow = add(b, mul(b, tile, R * warps), mul(b, warp, R));

    SmallVector<Value> rows, rowValid, columns, columnValid;
    for (int64_t r = 0; r < R; ++r) {
      rows.push_back(add(b, firstRow, r));
      rowValid.push_back(rowsNeedGuard ? ult(b, rows.back(), x.headDim)
                                       : trueV);
    }
    for (int64_t j = 0; j < J; ++j) {
      columns.push_back(add(b, mul(b, lane, V), 32 * V * j));
      columnValid.push_back(columnsNeedGuard ? ult(b, columns.back(), x.dstate)
                                             : trueV);
    }

    SmallVector<Value> initial;
    for (int64_t r = 0; r < R; ++r)
      for (int64_t j = 0; j < J; ++j)
        initial.push_back(loadColumns(
            b, both(b, s.readsInitial, both(b, rowValid[r], columnValid[j])),
            e.pool, {s.slot, head, rows[r], columns[j]}, /*guarded=*/true));

    // Stores the state values (R x J vectors) into pool[slot]: the final
    // state and the checkpoints.
    auto storeState = [&](ImplicitLocOpBuilder &b, ValueRange values,
                          Value slot) {
      for (int64_t r = 0; r < R; ++r)
        for (int64_t j = 0; j < J; ++j) {
          Value value = values[r * J + j];
          auto store = [&](ImplicitLocOpBuilder &b) {
            storeColumns(b, value, e.pool, {slot, head, rows[r], columns[j]});
          };
          if (rowValid[r] == trueV && columnValid[j] == trueV)
            store(b);
          else
            e.ifThen(b, both(b, rowValid[r], columnValid[j]), store);
        }
    };
    std::optional<Checkpoints::Sequence> checkpointed;
    if (checkpoints)
      checkpointed = checkpoints.sequence(b, e, seq);

    Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
    auto vecType = VectorType::get({V}, b.getF32Type());
    auto splat = [&](ImplicitLocOpBuilder &b, Value v) -> Value {
      return vector::BroadcastOp::create(b, vecType, v);
    };
    auto tokenLoop = scf::ForOp::create(
        b, s.begin, s.end, idx(b, 1), initial,
        [&](OpBuilder &nested, Location loc, Value t, ValueRange state) {
          ImplicitLocOpBuilder b(loc, nested);
          Value d = e.processedDt(b, t, head);
          Value decay = splat(b, e.exp(b, fmul(b, d, a)));
          SmallVector<Value> bRow, cRow;
          for (int64_t j = 0; j < J; ++j) {
            bRow.push_back(loadColumns(b, columnValid[j], e.B,
                                       {t, group, columns[j]},
                                       columnsNeedGuard));
            cRow.push_back(loadColumns(b, columnValid[j], e.C,
                                       {t, group, columns[j]},
                                       columnsNeedGuard));
          }
          SmallVector<Value> next, totals;
          for (int64_t r = 0; r < R; ++r) {
            Value xv =
                rowValid[r] == trueV
                    ? e.loadF32(b, e.x, {t, head, rows[r]})
                    : e.ifElse(
                          b, rowValid[r], e.f32,
                          [&](ImplicitLocOpBuilder &b) {
                            return e.loadF32(b, e.x, {t, head, rows[r]});
                          },
                          [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); });
            Value dx = splat(b, fmul(b, d, xv));
            Value lanePartial;
            for (int64_t j = 0; j < J; ++j) {
              // S = decay S + dx B, then partial += S C, one element at a
              // time: fma each.
              Value updated = fadd(b, fmul(b, decay, state[r * J + j]),
                                   fmul(b, dx, bRow[j]));
              next.push_back(updated);
              for (int64_t q = 0; q < V; ++q) {
                auto at = [&](Value v) {
                  return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q})
                      .getResult();
                };
                Value product = fmul(b, at(updated), at(cRow[j]));
                lanePartial =
                    lanePartial ? fadd(b, lanePartial, product) : product;
              }
            }
            // N = 0: no columns, so C S is an empty sum.
            Value total = lanePartial ? warpSum(b, lanePartial) : f32(b, 0.0);
            if (dSkip)
              total = fadd(b, total, fmul(b, dSkip, xv));
            totals.push_back(total);
          }
          // Lane r stores row r: one store instruction per warp.
          Value mine = totals[0];
          for (int64_t r = 1; r < R; ++r)
            mine = select(b, eq(b, lane, idx(b, r)), totals[r], mine);
          Value lanesRow = add(b, firstRow, minu(b, lane, idx(b, R - 1)));
          Value stores = ult(b, lane, R);
          if (rowsNeedGuard)
            stores = both(b, stores, ult(b, lanesRow, x.headDim));
          e.ifThen(b, stores, [&](ImplicitLocOpBuilder &b) {
            e.storeRounded(b, mine, e.y, {t, head, lanesRow});
          });
          // A checkpoint boundary after token t: the state it leaves, as
          // the final state is stored (the same test in every thread).
          if (checkpointed) {
            Value writes, slot;
            std::tie(writes, slot) =
                checkpoints.slotAfter(b, e, *checkpointed, sub(b, t, s.begin));
            e.ifThen(b, writes, [&](ImplicitLocOpBuilder &b) {
              storeState(b, next, slot);
            });
          }
          scf::YieldOp::create(b, next);
        });

    e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
      storeState(b, tokenLoop.getResults(), s.slot);
    });
  }
};

} // namespace

std::unique_ptr<SerialPart> mlir::ssd::detail::makeSerialPart(
    ImplicitLocOpBuilder &b, ChunkScanVarlenOp op, const StaticExtents &extents,
    const SerialTiling &tiling, int64_t minChunkedSequence) {
  return std::make_unique<SerialScanGPUBuilder>(b, op, extents, tiling,
                                                minChunkedSequence);
}

void mlir::ssd::detail::buildSerialScanGPU(ImplicitLocOpBuilder &b,
                                           ChunkScanVarlenOp op,
                                           const StaticExtents &extents,
                                           const SerialTiling &tiling) {
  SerialScanGPUBuilder serial(b, op, extents, tiling, 0);
  WorkspaceBuilder w;
  serial.declareWorkspace(b, w);
  serial.bindWorkspace(w.allocate(b, op));
  serial.emitFirstLaunch(b);
  serial.emitSecondLaunch(b);
}
