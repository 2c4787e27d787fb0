//===- OutputTile.cpp - y for some rows of a chunk and one head -----------===//
//
// The output tile, built by the output kernel's blocks (launch 3) and, with
// the fused output, by the chunk kernel's state blocks: y = (C S_prevᵀ)
// scaled by exp(cum_i) per row, plus W X with W[i, j] = G[i, j]
// exp(cum_i - cum_j) d_j (j <= i), plus D x; one accumulator tile on tensor
// cores, stored from the fragments in pairs (storeOutputRows says why).
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

OutputTileBuilder::OutputTileLayout
OutputTileBuilder::outputKernelLayout() const {
  const OutputRoleShared &sh = plan.outputShared;
  OutputTileLayout l;
  l.warps = plan.outputWarps;
  l.aHigh = sh.aHigh;
  l.aLow = sh.aLow;
  l.bHigh = sh.bHigh;
  l.bLow = sh.bLow;
  l.rowHi = sh.rowHi;
  l.rowLo = sh.rowLo;
  l.rowDecay = sh.rowDecay;
  return l;
}

OutputTileBuilder::OutputTileLayout
OutputTileBuilder::fusedOutputLayout() const {
  const ChunkRoleShared &sh = plan.chunkShared;
  OutputTileLayout l;
  l.threads = kChunkThreads;
  l.rows = plan.outputRows;
  l.warps = plan.fusedOutputWarps;
  l.aHigh = sh.outA;
  l.inBlock = true;
  l.cumHi = sh.cumHi;
  l.cumLo = sh.cumLo;
  l.dt = sh.dt;
  l.rowDecay = sh.rowDecay;
  l.tokenSlots = sh.tokenSlots;
  l.sPrev = sh.sPrev;
  l.cbInBlock = plan.cbInBlock;
  l.wTile = sh.outW;
  l.bRows = sh.outB;
  return l;
}

// y for `layout.rows` rows of a chunk, from row i0, and one head: the
// inter-chunk term, scaled per row, plus the intra-chunk term, plus D x.
void OutputTileBuilder::emitOutputTile(ImplicitLocOpBuilder &b,
                                       const HeadTeam &team,
                                       const OutputTileLayout &layout,
                                       Value chunk, const ChunkLocation &c,
                                       Value i0) {
  OutputTile ot = beginOutputTile(b, team, layout, chunk, c, i0);
  SmallVector<Value> acc(ot.tile.accumulators(), f32(b, 0.0));
  addInterChunkTerm(b, ot, acc);
  scaleByRowDecay(b, ot, acc);
  addIntraChunkTerm(b, ot, acc);
  storeOutputRows(b, ot, acc);
}

/// The tile's position, its rows' cum and exp(cum), and its warps.
OutputTileBuilder::OutputTile
OutputTileBuilder::beginOutputTile(ImplicitLocOpBuilder &b,
                                   const HeadTeam &team,
                                   const OutputTileLayout &layout, Value chunk,
                                   const ChunkLocation &c, Value i0) {
  const KernelContext &k = team.k;
  Value head = team.head;
  const int64_t threads = layout.threads, rows = layout.rows;
  Type f32t = b.getF32Type();
  Value tid = k.thread.x, lane = remu(b, tid, 32);
  Value group = groupOf(b, team);
  Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
  Value rowsEnd = minu(b, add(b, i0, rows), c.len);

  // Row r's cum (hi, lo) and exp(cum) (zeros past the chunk): staged per
  // tile from the workspace, or read from the chunk's arrays.
  Value rowHi, rowLo, rowDecay;
  Value rowBase = idx(b, 0);
  if (layout.inBlock) {
    rowHi = sharedView(b, k, layout.cumHi, {layout.tokenSlots}, f32t);
    rowLo = sharedView(b, k, layout.cumLo, {layout.tokenSlots}, f32t);
    rowDecay = sharedView(b, k, layout.rowDecay, {layout.tokenSlots}, f32t);
    rowBase = i0;
  } else {
    rowHi = sharedView(b, k, layout.rowHi, {rows}, f32t);
    rowLo = sharedView(b, k, layout.rowLo, {rows}, f32t);
    rowDecay = sharedView(b, k, layout.rowDecay, {rows}, f32t);
    for (int64_t base = 0; base < rows; base += threads) {
      Value r = add(b, tid, base);
      e.ifThen(b, ult(b, r, rows), [&](ImplicitLocOpBuilder &b) {
        Value i = add(b, i0, r);
        SmallVector<Value> cum =
            ifValues(b, ult(b, i, c.len), [&](ImplicitLocOpBuilder &b) {
              Value h = load(b, cumHi, {chunk, head, i});
              Value l = load(b, cumLo, {chunk, head, i});
              return SmallVector<Value>{h, l, e.decay(b, faddExact(b, h, l))};
            });
        store(b, cum[0], rowHi, {r});
        store(b, cum[1], rowLo, {r});
        store(b, cum[2], rowDecay, {r});
      });
    }
    gpu::BarrierOp::create(b);
  }

  MmaLane mmaLaneInfo = mmaLane(b, lane);
  // wgmma: warpgroup w computes rows [64 w, 64 w + 64) of the pass.
  WarpTile tile =
      outputByWgmma(layout)
          ? warpgroupTile(b, divu(b, tid, 32), mul(b, divu(b, tid, 128), 64),
                          idx(b, 0), plan.paddedP)
          : warpTile(b, layout.warps, rows, plan.paddedP, divu(b, tid, 32));
  return OutputTile{team,     layout,  chunk,       c,       i0,    tid,
                    lane,     group,   lastToken,   rowsEnd, rowHi, rowLo,
                    rowDecay, rowBase, mmaLaneInfo, tile};
}

Value OutputTileBuilder::rowValue(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                  Value array, Value r) {
  return load(b, array, {add(b, ot.rowBase, r)});
}

/// Inter-chunk term: acc[i, p] = sum_n C[i, n] S_prev[p, n]; A = C stored
/// [i][n], B = S_prev stored [p][n]: staged per k-step, or the block's
/// resident tile, read at the step's columns.
void OutputTileBuilder::addInterChunkTerm(ImplicitLocOpBuilder &b,
                                          const OutputTile &ot,
                                          SmallVector<Value> &acc) {
  const KernelContext &k = ot.team.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  const ChunkLocation &c = ot.c;
  Value chunk = ot.chunk, head = ot.team.head, i0 = ot.i0, tid = ot.tid,
        group = ot.group;
  const MmaLane &mmaLaneInfo = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  const bool wgmma = outputByWgmma(layout);
  // Paired heads (the same rows of the same chunk): the block stages the C
  // rows once, into the first head's copy of the layout.
  const bool sharedC = layout.inBlock && k.team;
  KernelContext cContext = sharedC ? wholeBlock(b, k) : k;
  Value cTid = sharedC ? cContext.thread.x : tid;
  const int64_t cThreads = sharedC ? plan.chunkThreads : threads;
  // With C·Bᵀ in the block the pass's C stays for the W steps: step s's
  // columns go to slot s, not to a stage of the ring.
  const int64_t cSlots = layout.cbInBlock ? plan.reductionN / kStep : 0;
  auto cSlot = [&](Value step, Value stage) {
    return layout.cbInBlock ? step : stage;
  };
  MmaOperand cs =
      operand(b, cContext, layout.aHigh, layout.aLow, rows, kStep, false,
              wgmma ? ot.team.tiles->shift : Value(), cSlots);
  MmaOperand ps;
  if (layout.inBlock) {
    ps.high = prevStateTile(b, ot.team);
  } else {
    ps = operand(b, k, layout.bHigh, layout.bLow, plan.paddedP, kStep, false);
  }
  const bool rawC = copiesRaw(e.C, x.dstate);
  const bool rawPrev = x.dstate % 8 == 0;
  auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                   Value stage) -> SmallVector<Value> {
    SmallVector<Value> values;
    Value n0 = mul(b, step, kStep);
    SwizzledTile cStage = cs.high.stage(b, cSlot(step, stage));
    forEachChunk(
        b, cTid, cThreads, rows, kStep,
        [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
          fetchStateOperand(b, e.C, rawC, c, group, add(b, i0, r),
                            add(b, n0, n), cStage, r, n, values);
        },
        &values);
    if (layout.inBlock)
      return values;
    MmaOperand pStage = atStage(b, ps, stage);
    forEachChunk(
        b, tid, threads, plan.paddedP, kStep,
        [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
          Value col = add(b, n0, n);
          Value valid = both(b, ult(b, p, x.headDim), ult(b, col, x.dstate));
          Value pc = minu(b, p, idx(b, x.headDim - 1));
          SmallVector<Value> at{chunk, head, pc, col};
          for (auto [source, t] : {std::pair{prevHigh, pStage.high},
                                   std::pair{prevLow, pStage.low}}) {
            if (!source)
              continue;
            if (rawPrev)
              llvm::append_range(values,
                                 fetchRaw(b, source, at, valid, t, p, n));
            else
              values.push_back(loadEight(b, source, at, x.dstate, valid));
          }
        },
        &values);
    return values;
  };
  auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value step,
                     Value stage) {
    size_t next = 0;
    MmaOperand cStage = atStage(b, cs, cSlot(step, stage));
    forEachChunk(b, cTid, cThreads, rows, kStep,
                 [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                   if (!rawC)
                     depositConverted(b, values[next++], cStage, r, n);
                   else if (!async)
                     depositRaw(b, values.slice(next++, 1), cStage.high, r, n);
                 });
    if (layout.inBlock)
      return;
    MmaOperand pStage = atStage(b, ps, stage);
    forEachChunk(b, tid, threads, plan.paddedP, kStep,
                 [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
                   for (auto [source, t] : {std::pair{prevHigh, pStage.high},
                                            std::pair{prevLow, pStage.low}}) {
                     if (!source)
                       continue;
                     if (!rawPrev)
                       t.storeChunk(
                           b, p, n,
                           toMmaElement(b, values[next++], plan.element));
                     else if (!async)
                       depositRaw(b, values.slice(next++, 1), t, p, n);
                   }
                 });
  };
  // wgmma: the warpgroup's 64 rows of the C stage (K-major, two k16 per
  // row) by S_prev's panel of the step's columns (K-major, 128-byte rows:
  // the step's 32 columns start 64 bytes in for odd steps).
  auto wgmmaStep = [&](ImplicitLocOpBuilder &b, Value step, Value stage,
                       ValueRange acc) {
    Value groupRow = mul(b, divu(b, tid, 128), 64);
    Value panel = divu(b, step, kPanelCols / kStep);
    Value prevAddress = arith::AddIOp::create(
        b, headTiles(b, ot.team).address(b, layout.sPrev),
        arith::IndexCastUIOp::create(
            b, b.getI64Type(),
            mul(b, remu(b, step, kPanelCols / kStep), 2 * kStep)));
    SmallVector<WgmmaProduct> products;
    // Each k16 step is 32 bytes further along the same rows.
    WgmmaDescriptor c =
        wgmmaDescriptor(b, cs.high.stage(b, cSlot(step, stage)),
                        ot.team.tiles->address(b, layout.aHigh), groupRow);
    WgmmaDescriptor prev =
        wgmmaDescriptor(b, ps.high, prevAddress, mul(b, panel, plan.paddedP));
    for (int64_t kByte = 0; kByte < 2 * kStep; kByte += 32)
      products.push_back({c.at(b, kByte), prev.at(b, kByte)});
    return warpgroupMatmul(b, plan.paddedP, products, WgmmaMajor::K,
                           WgmmaMajor::K, plan.element, acc,
                           /*retire=*/false);
  };
  acc = pipelinedReduction(
      b, idx(b, plan.reductionN / kStep), acc, fetch, deposit,
      [&](ImplicitLocOpBuilder &b, Value step, Value stage,
          ValueRange acc) -> SmallVector<Value> {
        if (wgmma)
          return wgmmaStep(b, step, stage, acc);
        if (layout.inBlock)
          return warpStep(b, mmaLaneInfo, tile, cs, ps, stage, acc,
                          /*bStaged=*/false, mul(b, step, kStep));
        return warpStep(b, mmaLaneInfo, tile, cs, ps, stage, acc);
      },
      /*asyncProxyReads=*/wgmma);
}

/// exp(cum_i) per row: the state enters row i decayed by the whole
/// prefix of the chunk up to i.
/// One load per row the lane holds (2 per 16-row mma tile), not per
/// accumulator.
void OutputTileBuilder::scaleByRowDecay(ImplicitLocOpBuilder &b,
                                        const OutputTile &ot,
                                        SmallVector<Value> &acc) {
  Value rowDecay = ot.rowDecay;
  const MmaLane &mmaLaneInfo = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  llvm::DenseMap<int64_t, Value> decayOfRow;
  forEachAccumulator(b, mmaLaneInfo, tile,
                     [&](ImplicitLocOpBuilder &b, Value row, Value, int64_t i) {
                       int64_t rowKey = i / (4 * tile.nTiles) * 2 + i % 4 / 2;
                       Value &decay = decayOfRow[rowKey];
                       if (!decay)
                         decay = rowValue(b, ot, rowDecay, row);
                       acc[i] = fmul(b, acc[i], decay);
                     });
}

/// Intra-chunk term: acc[i, p] += sum_{j <= i} W[i, j] x[j, p]; A = W
/// stored [i][j], B = x stored [j][p] (rows along k).
// W pieces of kWCols columns: warp w fills rows [w R, (w + 1) R)
// (R = rows per warp), lane l column piece l % 8 of rows w R + l / 8 + 4 m.
// So each thread loads one set of column data (cum hi, lo and d: one
// 16-byte load each, the quarter-warp reading 128 contiguous bytes), keeps
// its rows' cum in registers, its rows lie in one band of the mma warps'
// rows (skipped together, below), and a store instruction writes 4
// consecutive rows (no conflicts in the swizzled tile).
//
// Paired heads (the same rows of the same chunk in both teams): team t
// builds rows [R t, R (t + 1)) (R = rows / 2) of the pass's W for both
// heads, each from its head's cum and d in that head's copy of the layout,
// so that each C·Bᵀ piece leaves L2 once per pair.
OutputTileBuilder::WPieces
OutputTileBuilder::placeWPieces(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                const MmaOperand &ws) {
  const KernelContext &k = ot.team.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  const bool wgmma = outputByWgmma(layout);
  assert(!layout.cbInBlock && "with C·Bᵀ in the block there are no pieces");
  WPieces w;
  w.heads = layout.inBlock && k.team ? plan.headsPerBlock : 1;
  const int64_t rowsPerWarp = rows / w.heads / (threads / 32);
  const int64_t rowsPerStore = 32 / kWPiecesPerRow;
  const int64_t wPerThread = rowsPerWarp / rowsPerStore;
  assert(wPerThread >= 1 && rowsPerWarp % rowsPerStore == 0 &&
         "whole W pieces per thread");
  Value tid = ot.tid;
  w.col = mul(b, remu(b, tid, kWPiecesPerRow), kWCols);
  w.warpRow = mul(b, divu(b, tid, 32), rowsPerWarp);
  if (w.heads > 1)
    w.warpRow = add(b, w.warpRow, mul(b, k.team, rows / w.heads));
  w.row = add(b, w.warpRow, divu(b, remu(b, tid, 32), kWPiecesPerRow));
  // Where head h's W stage, cum and d are: the team's own views, or with
  // paired heads copy h of the layout (constant offsets in the arena).
  w.arena = w.heads > 1 ? wholeBlock(b, k) : k;
  for (int64_t h = 0; h < w.heads; ++h)
    w.stageOfHead.push_back(
        w.heads > 1
            ? operand(b, w.arena, w.copyOf(h, layout.aHigh, plan), layout.aLow,
                      rows, kStep, false, ot.team.tiles->shift)
            : ws);
  // Whether the warps owning tile row r multiply the step from column j0:
  // the same test as their causal skip (addIntraChunkTerm), so W pieces
  // nobody reads are neither computed nor stored.
  w.band = wgmma ? kRowTile : 16 * ot.tile.mTiles;
  // A thread's rows all in one band: one test skips its whole share.
  w.bandPerThread = w.band % rowsPerWarp == 0;
  for (int64_t m = 0; m < wPerThread; ++m)
    w.rows.push_back(m * rowsPerStore);
  // C Bᵀ pieces as stored (f32 or the mma element), widened when used.
  w.cbElement = cast<MemRefType>(cb.getType()).getElementType();
  // The factored W's row factors (storeWPieces) and the reference row's
  // cum, computed once for all steps; or again each step in the fused
  // chunk kernel's 128-row passes (4 rows a thread) on mma.sync, and with
  // paired heads: the registers they need to stay at two blocks per SM
  // (held, the paired wgmma kernel spills 8-16 bytes at its 128). The
  // rows' own cum is read in the steps on the diagonal, the only ones that
  // need it.
  w.reloadRowCum = layout.inBlock && wPerThread > 2 && !wgmma;
  if (!w.reloadRowCum && w.heads == 1) {
    w.refCum.push_back(refCum(b, ot, w, 0));
    for (int64_t dr : w.rows)
      w.rowScale.push_back(
          rowScale(b, ot, w, add(b, w.row, dr), 0, w.refCum.back()));
  }
  return w;
}

/// The reference row of the thread's factored W: its warp's first row, or
/// the chunk's last token where that row lies past the chunk (then every
/// row of the warp does, and its weights are zeros).
std::pair<Value, Value> OutputTileBuilder::refCum(ImplicitLocOpBuilder &b,
                                                  const OutputTile &ot,
                                                  const WPieces &w, int64_t h) {
  Value last = sub(b, sub(b, ot.c.len, idx(b, 1)), ot.i0);
  return rowCum(b, ot, w, minu(b, w.warpRow, last), h);
}

/// exp(cum_i - cum_ref) for row r (i = i0 + r at or after the reference),
/// 0 past the chunk (whose cum is not read: its weights must be zeros).
Value OutputTileBuilder::rowScale(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                  const WPieces &w, Value r, int64_t h,
                                  std::pair<Value, Value> ref) {
  Value i = add(b, ot.i0, r);
  auto [hiI, loI] = rowCum(b, ot, w, r, h);
  return select(b, ult(b, i, ot.c.len),
                decayBetween(b, hiI, loI, ref.first, ref.second), f32(b, 0.0));
}

std::pair<Value, Value> OutputTileBuilder::rowCum(ImplicitLocOpBuilder &b,
                                                  const OutputTile &ot,
                                                  const WPieces &w, Value r,
                                                  int64_t h) {
  if (w.heads == 1)
    return {rowValue(b, ot, ot.rowHi, r), rowValue(b, ot, ot.rowLo, r)};
  auto at = [&](int64_t offset) {
    return load(b,
                sharedView(b, w.arena, w.copyOf(h, offset, plan),
                           {ot.layout.tokenSlots}, b.getF32Type()),
                {add(b, ot.rowBase, r)});
  };
  return {at(ot.layout.cumHi), at(ot.layout.cumLo)};
}

Value OutputTileBuilder::readByItsWarps(ImplicitLocOpBuilder &b,
                                        const OutputTile &ot, const WPieces &w,
                                        Value r, Value j0) {
  Value bandLast = add(b, mul(b, divu(b, r, w.band), w.band), w.band - 1);
  return ule(b, j0, add(b, ot.i0, bandLast));
}

/// cum (hi, lo) and d of the columns jb.. of head h (zeros past the chunk,
/// never used).
SmallVector<Value> OutputTileBuilder::columnValues(ImplicitLocOpBuilder &b,
                                                   const OutputTile &ot,
                                                   const WPieces &w, Value jb,
                                                   int64_t h) {
  const OutputTileLayout &layout = ot.layout;
  auto f32xW = VectorType::get({kWCols}, b.getF32Type());
  return ifValues(b, ult(b, jb, ot.c.len), [&](ImplicitLocOpBuilder &b) {
    SmallVector<Value> v;
    if (layout.inBlock) {
      for (int64_t offset : {layout.cumHi, layout.cumLo, layout.dt})
        v.push_back(vectorLoad(b, f32xW,
                               sharedView(b, w.arena, w.copyOf(h, offset, plan),
                                          {layout.tokenSlots}, b.getF32Type()),
                               {jb}, 4 * kWCols));
      return v;
    }
    for (Value source : {cumHi, cumLo, dts})
      v.push_back(vectorLoad(b, f32xW, source, {ot.chunk, ot.team.head, jb},
                             4 * kWCols));
    return v;
  });
}

/// The step's C Bᵀ pieces of the thread's W rows (from column j0).
SmallVector<Value> OutputTileBuilder::fetchWPieces(ImplicitLocOpBuilder &b,
                                                   const OutputTile &ot,
                                                   const WPieces &w, Value j0) {
  const ChunkLocation &c = ot.c;
  Value jb = add(b, j0, w.col);
  auto cbPiece = VectorType::get({kWCols}, w.cbElement);
  const int64_t cbBytes = w.cbElement.getIntOrFloatBitWidth() / 8;
  SmallVector<Value> values;
  for (int64_t dr : w.rows) {
    Value i = add(b, add(b, ot.i0, w.row), dr);
    Value any = both(b, both(b, ult(b, i, c.len), ule(b, jb, i)),
                     readByItsWarps(b, ot, w, add(b, w.row, dr), j0));
    Value row = minu(b, i, sub(b, c.len, idx(b, 1)));
    values.push_back(ifValues(b, any, [&](ImplicitLocOpBuilder &b) {
                       return SmallVector<Value>{vectorLoad(
                           b, cbPiece, cb,
                           {cbSlotOf(b, ot.chunk), ot.group, row, jb},
                           cbBytes * kWCols)};
                     }).front());
  }
  return values;
}

Value OutputTileBuilder::wStepBelowWarp(ImplicitLocOpBuilder &b, Value i0,
                                        Value warpRow, Value j0) {
  return ule(b, add(b, j0, idx(b, kStep)), add(b, i0, warpRow));
}

Value OutputTileBuilder::wColumnFactor(ImplicitLocOpBuilder &b,
                                       std::pair<Value, Value> ref, Value hiJ,
                                       Value loJ, Value dJ) {
  return fmul(b, decayBetween(b, ref.first, ref.second, hiJ, loJ), dJ);
}

Value OutputTileBuilder::wExactElement(ImplicitLocOpBuilder &b, Value g,
                                       Value hiI, Value loI, Value hiJ,
                                       Value loJ, Value dJ) {
  return fmul(b, fmul(b, g, decayBetween(b, hiI, loI, hiJ, loJ)), dJ);
}

/// The step's W pieces of head h (columns from jb = j0 + the thread's
/// column) from the thread's C Bᵀ `pieces`: W[i, j] =
/// G[i, j] exp(cum_i - cum_j) d_j for j <= i, else 0, stored to the stage.
/// In a step whose columns all precede the warp's first row (ref), every
/// piece lies below the diagonal and W[i, j] = G[i, j] R_i K_j d_j with
/// R_i = exp(cum_i - cum_ref) per row (held across steps) and K_j =
/// exp(cum_ref - cum_j) per column: 4 exps a thread per step for its 4
/// columns instead of one per element, and no causal test. Both factors
/// are at most 1 (docs/gpu.md, "The decay mask, factored"). The steps on
/// the diagonal keep one exp per element and the j <= i test.
void OutputTileBuilder::storeWPieces(ImplicitLocOpBuilder &b,
                                     const OutputTile &ot, const WPieces &w,
                                     ValueRange pieces, Value stage, Value j0,
                                     Value jb, int64_t h) {
  Type f32t = b.getF32Type();
  auto f32xW = VectorType::get({kWCols}, f32t);
  MmaOperand wStage = atStage(b, w.stageOfHead[h], stage);
  SmallVector<Value> column = columnValues(b, ot, w, jb, h);
  auto at = [&](ImplicitLocOpBuilder &b, Value v, int64_t q) {
    return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q}).getResult();
  };
  auto piecesOf = [&](ImplicitLocOpBuilder &b, int64_t m) {
    Value g = pieces[m];
    if (w.cbElement != f32t)
      g = arith::ExtFOp::create(b, f32xW, g);
    return g;
  };
  // Row r's piece, if its warps read it, to the stage.
  auto storeRow = [&](ImplicitLocOpBuilder &b, Value r,
                      function_ref<Value(ImplicitLocOpBuilder &)> weights) {
    Value read =
        w.bandPerThread ? boolean(b, true) : readByItsWarps(b, ot, w, r, j0);
    e.ifThen(b, read, [&](ImplicitLocOpBuilder &b) {
      Value piece = weights(b);
      auto storePiece = [&](const SwizzledTile &t, Value v) {
        // A piece stays inside its 16-byte chunk, which the swizzle moves
        // as a whole.
        Value br = t.bufferRow(b, r);
        vectorStore(b, v, t.buffer, {br, t.physicalColumn(b, br, w.col)},
                    2 * kWCols);
      };
      storePiece(wStage.high, toMmaElement(b, piece, plan.element));
      if (wStage.split())
        storePiece(wStage.low, mmaLowPart(b, piece, plan.element));
    });
  };
  auto factored = [&](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
    std::pair<Value, Value> ref =
        w.refCum.empty() ? refCum(b, ot, w, h) : w.refCum[h];
    SmallVector<Value> kd;
    for (int64_t q = 0; q < kWCols; ++q)
      kd.push_back(wColumnFactor(b, ref, at(b, column[0], q),
                                 at(b, column[1], q), at(b, column[2], q)));
    Value columnFactor = vector::FromElementsOp::create(b, f32xW, kd);
    for (size_t m = 0; m < w.rows.size(); ++m) {
      Value r = add(b, w.row, w.rows[m]);
      Value scale =
          w.rowScale.empty() ? rowScale(b, ot, w, r, h, ref) : w.rowScale[m];
      storeRow(b, r, [&](ImplicitLocOpBuilder &b) {
        Value rowFactor = vector::BroadcastOp::create(b, f32xW, scale);
        return fmul(b, fmul(b, piecesOf(b, m), rowFactor), columnFactor);
      });
    }
    return {};
  };
  auto exact = [&](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
    for (size_t m = 0; m < w.rows.size(); ++m) {
      Value r = add(b, w.row, w.rows[m]);
      Value i = add(b, ot.i0, r);
      storeRow(b, r, [&](ImplicitLocOpBuilder &b) {
        auto [hiI, loI] = rowCum(b, ot, w, r, h);
        Value g = piecesOf(b, m);
        // Column jb + q is kept iff i < len and jb + q <= i, that is iff
        // q < the row's bound (i + 1, or 0 past the chunk) less jb: one
        // signed compare with a constant per element.
        Value kept = arith::SubIOp::create(
            b, select(b, ult(b, i, ot.c.len), add(b, i, 1), idx(b, 0)), jb);
        SmallVector<Value> weights;
        for (int64_t q = 0; q < kWCols; ++q) {
          Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                              idx(b, q), kept);
          Value weight =
              wExactElement(b, at(b, g, q), hiI, loI, at(b, column[0], q),
                            at(b, column[1], q), at(b, column[2], q));
          weights.push_back(select(b, valid, weight, f32(b, 0.0)));
        }
        return vector::FromElementsOp::create(b, f32xW, weights).getResult();
      });
    }
    return {};
  };
  Value below = wStepBelowWarp(b, ot.i0, w.warpRow, j0);
  e.ifElseValues(b, below, TypeRange{}, factored, exact);
}

/// Intra-chunk term: acc[i, p] += sum_{j <= i} W[i, j] x[j, p], W built per
/// k-step from the C Bᵀ tiles (placeWPieces), on mma.sync or, in the fused
/// output on wgmma, by the warpgroups.
void OutputTileBuilder::addIntraChunkTerm(ImplicitLocOpBuilder &b,
                                          const OutputTile &ot,
                                          SmallVector<Value> &acc) {
  if (ot.layout.cbInBlock)
    return addIntraChunkTermInBlock(b, ot, acc);
  const KernelContext &k = ot.team.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  const ChunkLocation &c = ot.c;
  Value head = ot.team.head, i0 = ot.i0, tid = ot.tid, lastToken = ot.lastToken,
        rowsEnd = ot.rowsEnd;
  const WarpTile &tile = ot.tile;
  const bool wgmma = outputByWgmma(layout);
  MmaOperand ws = operand(b, k, layout.aHigh, layout.aLow, rows, kStep, false,
                          wgmma ? ot.team.tiles->shift : Value());
  // B = x: staged per k-step, or the chunk's resident tile (fused), read
  // from the step's rows.
  MmaOperand xs;
  if (layout.inBlock) {
    xs.high = residentXTile(b, ot.team);
    xs.kRows = true;
  } else {
    xs = operand(b, k, layout.bHigh, layout.bLow, kStep, plan.paddedP, true);
  }
  const bool rawX = copiesRaw(e.x, x.headDim);
  WPieces w = placeWPieces(b, ot, ws);

  auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                   Value stage) -> SmallVector<Value> {
    Value j0 = mul(b, step, kStep);
    SmallVector<Value> values = fetchWPieces(b, ot, w, j0);
    if (layout.inBlock)
      return values;
    SwizzledTile xStage = xs.high.stage(b, stage);
    forEachChunk(
        b, tid, threads, kStep, plan.paddedP,
        [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
          Value jj = add(b, j0, r);
          Value valid = both(b, ult(b, jj, rowsEnd), ult(b, p, x.headDim));
          Value t = minu(b, add(b, c.first, jj), lastToken);
          if (rawX)
            llvm::append_range(
                values, fetchRaw(b, e.x, {t, head, p}, valid, xStage, r, p));
          else
            values.push_back(loadEight(b, e.x, {t, head, p}, x.headDim, valid));
        },
        &values);
    return values;
  };
  auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value step,
                     Value stage) {
    Value j0 = mul(b, step, kStep);
    Value jb = add(b, j0, w.col);
    ValueRange pieces = values.take_front(w.rows.size());
    size_t next = w.rows.size();
    auto buildPieces = [&](ImplicitLocOpBuilder &b) {
      for (int64_t h = 0; h < w.heads; ++h)
        storeWPieces(b, ot, w, pieces, stage, j0, jb, h);
    };
    if (w.bandPerThread)
      e.ifThen(b, readByItsWarps(b, ot, w, w.row, j0), buildPieces);
    else
      buildPieces(b);
    if (layout.inBlock)
      return;
    MmaOperand xStage = atStage(b, xs, stage);
    forEachChunk(b, tid, threads, kStep, plan.paddedP,
                 [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                   if (!rawX)
                     depositConverted(b, values[next++], xStage, r, p);
                   else if (!async)
                     depositRaw(b, values.slice(next++, 1), xStage.high, r, p);
                 });
  };
  // wgmma: the warpgroup's 64 rows of the W stage (K-major) by the
  // resident x's rows of the step (N-major, k16 16 rows apart); a
  // warpgroup whose rows all lie before the step's first column skips it,
  // all four warps together.
  auto wgmmaStep = [&](ImplicitLocOpBuilder &b, Value step, Value stage,
                       ValueRange acc) {
    Value groupRow = mul(b, divu(b, tid, 128), kRowTile);
    Value lastRow = add(b, add(b, i0, groupRow), kRowTile - 1);
    return ifValuesElse(
        b, ule(b, mul(b, step, kStep), lastRow), acc,
        [&](ImplicitLocOpBuilder &b) {
          SmallVector<WgmmaProduct> products;
          // Each k16 step is 32 bytes along W's rows and 16 rows down x.
          WgmmaDescriptor w = wgmmaDescriptor(
              b, ws.high.stage(b, stage),
              headTiles(b, ot.team).address(b, layout.aHigh), groupRow);
          WgmmaDescriptor x = wgmmaDescriptor(
              b, xs.high,
              headTiles(b, ot.team).address(b, plan.chunkShared.xResident),
              mul(b, step, kStep));
          for (int64_t k16 = 0; k16 < kStep; k16 += 16)
            products.push_back({w.at(b, 2 * k16), x.rowsDown(b, k16)});
          return warpgroupMatmul(b, plan.paddedP, products, WgmmaMajor::K,
                                 WgmmaMajor::MN, plan.element, acc,
                                 /*retire=*/false);
        });
  };
  acc = pipelinedReduction(
      b, ceilDiv(b, rowsEnd, kStep), acc, fetch, deposit,
      [&](ImplicitLocOpBuilder &b, Value step, Value stage,
          ValueRange acc) -> SmallVector<Value> {
        if (wgmma)
          return wgmmaStep(b, step, stage, acc);
        // A warp whose rows all lie before the step's first column has
        // only zeros of W there (j > i): it skips the step.
        WarpTile causal = tile;
        Value lastRow = add(b, add(b, i0, tile.mBase), 16 * tile.mTiles - 1);
        causal.active =
            both(b, tile.active, ule(b, mul(b, step, kStep), lastRow));
        if (layout.inBlock)
          return warpStep(b, ot.mmaLaneInfo, causal, ws, xs, stage, acc,
                          /*bStaged=*/false, mul(b, step, kStep));
        return warpStep(b, ot.mmaLaneInfo, causal, ws, xs, stage, acc);
      },
      /*asyncProxyReads=*/wgmma);
}

/// Intra-chunk term with C·Bᵀ in the block (cb_in_block), one k-step of 32
/// columns j0.. at a time, per warpgroup (its 64 rows i of the pass):
///
///   G[i, j] = sum_n C[i, n] B[j, n]     an m64n32 wgmma chain over N: A the
///                                       pass's C (resident, the slots
///                                       C·S_prevᵀ filled), B the step's B
///                                       rows (staged in the ring)
///   G = round(G)                        to the element C·Bᵀ tiles hold
///                                       (cbElementType), so W has the bits
///                                       it has when read from them
///   W[i, j] = G[i, j] exp(cum_i - cum_j) d_j   (j <= i, i in the chunk)
///   acc[i, p] += sum_j W[i, j] x[j, p]  W from the W tile, x resident
///
/// W is built from the chain's accumulators, two adjacent columns of a row
/// at a time, with the operations storeWPieces applies to a piece: in a
/// step whose columns all precede the warp's first row (ref), W = (G R_i)
/// K_j, R_i = exp(cum_i - cum_ref) per row (once per pass) and K_j =
/// exp(cum_ref - cum_j) d_j per column (both <= 1); on the diagonal one exp
/// per element and the causal test. The W tile is written after the step's
/// barrier (the previous step's W·x chain, its reader, is retired there),
/// fenced for the async proxy and read after a second barrier. No C·Bᵀ
/// tiles, blocks or waits; a step's B rows (kStep x N) come from L2 where
/// its C·Bᵀ pieces (rows x kStep) did, as many bytes at N = rows, and each
/// warpgroup spends an m64n32 chain over N on them (docs/performance.md,
/// "C·Bᵀ in the block", says what that costs).
void OutputTileBuilder::addIntraChunkTermInBlock(ImplicitLocOpBuilder &b,
                                                 const OutputTile &ot,
                                                 SmallVector<Value> &acc) {
  const KernelContext &k = ot.team.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  const int64_t nSteps = plan.reductionN / kStep;
  const ChunkLocation &c = ot.c;
  Value i0 = ot.i0, tid = ot.tid;
  Value shift = ot.team.tiles->shift;
  MmaOperand cs =
      operand(b, k, layout.aHigh, 0, rows, kStep, false, shift, nSteps);
  MmaOperand ws = operand(b, k, layout.wTile, 0, rows, kStep, false, shift, 1);
  MmaOperand bs = operand(b, k, layout.bRows, 0, kStep, kStep, false, shift,
                          plan.stages * nSteps);
  SwizzledTile xs = residentXTile(b, ot.team);
  const bool rawB = copiesRaw(e.B, x.dstate);
  // k-step q of N of the ring's stage `stage`.
  auto bSlot = [&](ImplicitLocOpBuilder &b, Value stage, int64_t q) {
    return add(b, mul(b, stage, nSteps), q);
  };
  auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                   Value stage) -> SmallVector<Value> {
    SmallVector<Value> values;
    Value j0 = mul(b, step, kStep);
    for (int64_t q = 0; q < nSteps; ++q) {
      SwizzledTile bStage = bs.high.stage(b, bSlot(b, stage, q));
      forEachChunk(
          b, tid, threads, kStep, kStep,
          [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
            fetchStateOperand(b, e.B, rawB, c, ot.group, add(b, j0, r),
                              add(b, n, q * kStep), bStage, r, n, values);
          },
          &values);
    }
    return values;
  };
  auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value,
                     Value stage) {
    size_t next = 0;
    for (int64_t q = 0; q < nSteps; ++q) {
      MmaOperand bStage = atStage(b, bs, bSlot(b, stage, q));
      forEachChunk(b, tid, threads, kStep, kStep,
                   [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                     if (!rawB)
                       depositConverted(b, values[next++], bStage, r, n);
                     else if (!async)
                       depositRaw(b, values.slice(next++, 1), bStage.high, r,
                                  n);
                   });
    }
  };

  // The thread's rows (two per warp tile: lane group and 8 below) and the
  // factored W's per-row factors, for every step of the pass.
  Value warp = divu(b, tid, 32);
  Value groupRow = mul(b, divu(b, tid, 128), kRowTile);
  WarpTile gTile = warpgroupTile(b, warp, groupRow, idx(b, 0), kStep);
  const MmaLane &lane = ot.mmaLaneInfo;
  WPieces w;
  w.heads = 1;
  w.warpRow = mul(b, warp, 16);
  w.arena = k;
  std::pair<Value, Value> ref = refCum(b, ot, w, 0);
  Value rowOf[2], rowScaleOf[2];
  for (int64_t half = 0; half < 2; ++half) {
    rowOf[half] = add(b, add(b, gTile.mBase, lane.group), 8 * half);
    rowScaleOf[half] = rowScale(b, ot, w, rowOf[half], 0, ref);
  }
  Type f32t = b.getF32Type();
  auto f32x2 = VectorType::get({2}, f32t);
  Type cbElement = cbElementType();
  auto pairAt = [&](ImplicitLocOpBuilder &b, int64_t offset, Value j) {
    return vectorLoad(
        b, f32x2, sharedView(b, k, offset, {layout.tokenSlots}, f32t), {j}, 8);
  };
  auto element = [&](ImplicitLocOpBuilder &b, Value v, int64_t q) {
    return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q}).getResult();
  };
  // W from G (the chain's m64n32 accumulators), to the W tile.
  auto storeW = [&](ImplicitLocOpBuilder &b, ValueRange g, Value j0) {
    SwizzledTile wTile = ws.high;
    Value below = wStepBelowWarp(b, i0, w.warpRow, j0);
    for (int64_t ni = 0; ni < kStep / 8; ++ni) {
      Value col = add(b, lane.pair, 8 * ni);
      Value j = add(b, j0, col);
      Value cumHiJ = pairAt(b, layout.cumHi, j);
      Value cumLoJ = pairAt(b, layout.cumLo, j);
      Value dJ = pairAt(b, layout.dt, j);
      // The thread's two rows' pairs of this n-tile, rounded as the C·Bᵀ
      // tiles hold them; then W, factored below the warp's first row, exact
      // on the diagonal (one branch for both rows).
      SmallVector<Value> gPair;
      for (int64_t half = 0; half < 2; ++half) {
        int64_t a = ni * 4 + 2 * half;
        Value pair = vector::FromElementsOp::create(b, f32x2,
                                                    ValueRange{g[a], g[a + 1]});
        if (cbElement != f32t)
          pair = arith::ExtFOp::create(
              b, f32x2,
              arith::TruncFOp::create(b, VectorType::get({2}, cbElement), pair)
                  .getResult());
        gPair.push_back(pair);
      }
      auto factored = [&](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
        SmallVector<Value> v(4);
        for (int64_t q = 0; q < 2; ++q) {
          Value columnFactor =
              wColumnFactor(b, ref, element(b, cumHiJ, q),
                            element(b, cumLoJ, q), element(b, dJ, q));
          for (int64_t half = 0; half < 2; ++half)
            v[2 * half + q] =
                fmul(b, fmul(b, element(b, gPair[half], q), rowScaleOf[half]),
                     columnFactor);
        }
        return v;
      };
      auto exact = [&](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
        SmallVector<Value> v(4);
        for (int64_t half = 0; half < 2; ++half) {
          Value i = add(b, i0, rowOf[half]);
          auto [hiI, loI] = rowCum(b, ot, w, rowOf[half], 0);
          Value inChunk = ult(b, i, c.len);
          for (int64_t q = 0; q < 2; ++q) {
            Value weight = wExactElement(
                b, element(b, gPair[half], q), hiI, loI, element(b, cumHiJ, q),
                element(b, cumLoJ, q), element(b, dJ, q));
            v[2 * half + q] =
                select(b, both(b, inChunk, ule(b, add(b, j, q), i)), weight,
                       f32(b, 0.0));
          }
        }
        return v;
      };
      SmallVector<Value> weights = e.ifElseValues(
          b, below, TypeRange{f32t, f32t, f32t, f32t}, factored, exact);
      for (int64_t half = 0; half < 2; ++half) {
        Value stored = toMmaElement(
            b,
            vector::FromElementsOp::create(
                b, f32x2, ValueRange{weights[2 * half], weights[2 * half + 1]}),
            plan.element);
        Value br = wTile.bufferRow(b, rowOf[half]);
        vectorStore(b, stored, wTile.buffer,
                    {br, wTile.physicalColumn(b, br, col)}, 4);
      }
    }
  };

  // A warpgroup whose rows all lie before the step's first column has only
  // zeros of W there: it skips the step, all four warps together.
  auto compute = [&](ImplicitLocOpBuilder &b, Value step, Value stage,
                     ValueRange acc) -> SmallVector<Value> {
    Value j0 = mul(b, step, kStep);
    Value lastRow = add(b, add(b, i0, groupRow), kRowTile - 1);
    Value active = ule(b, j0, lastRow);
    WgmmaTiles tiles = headTiles(b, ot.team);
    e.ifThen(b, active, [&](ImplicitLocOpBuilder &b) {
      SmallVector<WgmmaProduct> products;
      for (int64_t q = 0; q < nSteps; ++q) {
        // Each k16 step is 32 bytes further along the same rows.
        WgmmaDescriptor cq =
            wgmmaDescriptor(b, cs.high.stage(b, idx(b, q)),
                            tiles.address(b, layout.aHigh), groupRow);
        WgmmaDescriptor bq =
            wgmmaDescriptor(b, bs.high.stage(b, bSlot(b, stage, q)),
                            tiles.address(b, layout.bRows), idx(b, 0));
        for (int64_t kByte = 0; kByte < 2 * kStep; kByte += 32)
          products.push_back({cq.at(b, kByte), bq.at(b, kByte)});
      }
      SmallVector<Value> zeros(gTile.accumulators(), f32(b, 0.0));
      SmallVector<Value> g =
          warpgroupMatmul(b, kStep, products, WgmmaMajor::K, WgmmaMajor::K,
                          plan.element, zeros, /*retire=*/true);
      storeW(b, g, j0);
      NVVM::FenceProxyOp::create(
          b, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    });
    // Every warpgroup's W is in place.
    gpu::BarrierOp::create(b);
    return ifValuesElse(b, active, acc, [&](ImplicitLocOpBuilder &b) {
      WgmmaDescriptor wd =
          wgmmaDescriptor(b, ws.high, tiles.address(b, layout.wTile), groupRow);
      WgmmaDescriptor xd = wgmmaDescriptor(
          b, xs, tiles.address(b, plan.chunkShared.xResident), j0);
      SmallVector<WgmmaProduct> products;
      for (int64_t k16 = 0; k16 < kStep; k16 += 16)
        products.push_back({wd.at(b, 2 * k16), xd.rowsDown(b, k16)});
      return warpgroupMatmul(b, plan.paddedP, products, WgmmaMajor::K,
                             WgmmaMajor::MN, plan.element, acc,
                             /*retire=*/false);
    });
  };
  acc = pipelinedReduction(b, ceilDiv(b, ot.rowsEnd, kStep), acc, fetch,
                           deposit, compute, /*asyncProxyReads=*/true);
}

/// y = acc + D x, rounded once to the model type, stored straight from
/// the fragments: a lane's two adjacent columns as one pair (4 bytes for
/// 16-bit models). Staging the tile through shared memory for whole
/// 16-byte rows cost as many shared-memory wavefronts as a fifth of the
/// block's mma operand loads; the pairs' partial sectors merge in L2.
/// D x reads the pair from the resident x tile when the block has one
/// (the 8 rows of a fragment sit in 8 bank groups: no conflicts), else
/// from x in global memory. The fused output's warp tiles of 16-bit
/// models (an even number of 8-column n-tiles) store whole sectors
/// instead (storeOutputQuads).
void OutputTileBuilder::storeOutputRows(ImplicitLocOpBuilder &b,
                                        const OutputTile &ot, ValueRange acc) {
  const ChunkLocation &c = ot.c;
  Value head = ot.team.head, i0 = ot.i0;
  const MmaLane &mmaLaneInfo = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
  std::optional<SwizzledTile> xResident;
  if (ot.layout.inBlock)
    xResident = residentXTile(b, ot.team);
  Type yElement = cast<MemRefType>(e.y.getType()).getElementType();
  if (xResident && tile.nTiles % 2 == 0 && x.headDim % 16 == 0 &&
      yElement.getIntOrFloatBitWidth() == 16)
    return storeOutputQuads(b, ot, acc, dSkip, *xResident);
  e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
    forEachAccumulatorPair(
        b, mmaLaneInfo, tile, acc,
        [&](ImplicitLocOpBuilder &b, Value i, Value p, Value v0, Value v1) {
          Value row = add(b, i0, i);
          e.ifThen(b, ult(b, row, c.len), [&](ImplicitLocOpBuilder &b) {
            Value t = add(b, c.first, row);
            Value y0 = v0, y1 = v1;
            if (dSkip && xResident) {
              auto [x0, x1] = residentXPair(b, *xResident, row, p);
              y0 = fadd(b, y0, fmul(b, dSkip, x0));
              y1 = fadd(b, y1, fmul(b, dSkip, x1));
            } else if (dSkip) {
              auto [x0, x1] = loadPair(b, e.x, {t, head, p}, x.headDim);
              y0 = fadd(b, y0, fmul(b, dSkip, x0));
              y1 = fadd(b, y1, fmul(b, dSkip, x1));
            }
            storePair(b, e.y, {t, head, p}, idx(b, x.headDim), y0, y1,
                      x.headDim % 2 == 0);
          });
        });
  });
}

/// The fused output's y for a warp tile of an even number of n-tiles, in
/// whole 32-byte sectors, 16 columns (a pair of n-tiles) at a time. Lane q
/// of a quad (one row) holds the pair at columns 2q of the pair's n-tile 0
/// and 8 + 2q of its n-tile 1; after one xor shuffle
/// between lanes q and q ^ 1, an even lane holds its own n-tile 0 pair and
/// its partner's (columns 2q..2q+3) and an odd lane both n-tile 1 pairs
/// (columns 8 + 2(q - 1)..), each stored as one 8-byte vector. One store
/// instruction then writes 8 rows' 16 columns (8 full sectors), where the
/// pairs took two instructions touching each of those sectors half.
void OutputTileBuilder::storeOutputQuads(ImplicitLocOpBuilder &b,
                                         const OutputTile &ot, ValueRange acc,
                                         Value dSkip,
                                         const SwizzledTile &xResident) {
  const ChunkLocation &c = ot.c;
  Value head = ot.team.head, i0 = ot.i0;
  const MmaLane &lane = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  Type yElement = cast<MemRefType>(e.y.getType()).getElementType();
  Type i32t = b.getI32Type();
  Value odd = eq(b, remu(b, lane.lane, 2), idx(b, 1));
  // An even lane's 4 columns start at its own pair, an odd lane's 2
  // columns before its own n-tile 1 pair.
  Value column = add(b, tile.nBase,
                     select(b, odd, add(b, lane.pair, idx(b, 6)), lane.pair));
  e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
    for (int64_t mi = 0; mi < tile.mTiles; ++mi) {
      for (int64_t half = 0; half < 2; ++half) {
        Value row = add(
            b, i0, add(b, add(b, tile.mBase, lane.group), 16 * mi + 8 * half));
        // Rows past the chunk are not stored; their x rows may not have
        // been staged: D x reads the last row's instead.
        Value xRow = minu(b, row, sub(b, c.len, idx(b, 1)));
        // n-tiles 2 q and 2 q + 1: 16 columns, one 8-byte store a lane.
        for (int64_t q = 0; q < tile.nTiles / 2; ++q) {
          // This row's pair of each n-tile, with D x, rounded, as a word.
          SmallVector<Value, 2> words;
          for (int64_t ni = 2 * q; ni < 2 * q + 2; ++ni) {
            int64_t a = (mi * tile.nTiles + ni) * 4 + 2 * half;
            Value y0 = acc[a], y1 = acc[a + 1];
            if (dSkip) {
              Value col = add(b, add(b, tile.nBase, lane.pair), 8 * ni);
              auto [x0, x1] = residentXPair(b, xResident, xRow, col);
              y0 = fadd(b, y0, fmul(b, dSkip, x0));
              y1 = fadd(b, y1, fmul(b, dSkip, x1));
            }
            Value pair = arith::TruncFOp::create(
                b, VectorType::get({2}, yElement),
                vector::FromElementsOp::create(
                    b, VectorType::get({2}, b.getF32Type()),
                    ValueRange{y0, y1}));
            Value word =
                vector::BitCastOp::create(b, VectorType::get({1}, i32t), pair);
            words.push_back(
                vector::ExtractOp::create(b, word, ArrayRef<int64_t>{0}));
          }
          // Even lanes send their n-tile 1 pair and keep n-tile 0; odd lanes
          // the other way round.
          Value received =
              gpu::ShuffleOp::create(b, select(b, odd, words[0], words[1]), 1,
                                     32, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
          Value first = select(b, odd, received, words[0]);
          Value second = select(b, odd, words[1], received);
          Value four = vector::BitCastOp::create(
              b, VectorType::get({4}, yElement),
              vector::FromElementsOp::create(b, VectorType::get({2}, i32t),
                                             ValueRange{first, second}));
          e.ifThen(b, ult(b, row, c.len), [&](ImplicitLocOpBuilder &b) {
            vectorStore(b, four, e.y,
                        {add(b, c.first, row), head, add(b, column, 16 * q)},
                        8);
          });
        }
      }
    }
  });
}

/// The chunk's resident x tile of the fused chunk kernel ([tokenSlots x
/// paddedP], the mma element): the dS steps fill it, the output reads it.
SwizzledTile OutputTileBuilder::residentXTile(ImplicitLocOpBuilder &b,
                                              const HeadTeam &team) {
  const ChunkRoleShared &sh = plan.chunkShared;
  return sharedTile(b, team.k, sh.xResident, sh.tokenSlots, plan.paddedP,
                    mmaType, 1, plan.outputWgmma ? team.tiles->shift : Value());
}

SwizzledTile OutputTileBuilder::prevStateTile(ImplicitLocOpBuilder &b,
                                              const HeadTeam &team) {
  const ChunkRoleShared &sh = plan.chunkShared;
  if (!plan.outputWgmma)
    return sharedTile(b, team.k, sh.sPrev, plan.paddedP, plan.reductionN,
                      mmaType);
  return sharedTile(b, team.k, sh.sPrev,
                    plan.reductionN / kPanelCols * plan.paddedP, kPanelCols,
                    mmaType, 1, team.tiles->shift);
}

std::pair<Value, Value> OutputTileBuilder::prevStateAt(ImplicitLocOpBuilder &b,
                                                       Value p, Value n) {
  if (!plan.outputWgmma)
    return {p, n};
  return {add(b, mul(b, divu(b, n, kPanelCols), plan.paddedP), p),
          remu(b, n, kPanelCols)};
}

/// x at (row, col) and (row, col + 1) of the resident tile, as f32; col is
/// even, so the pair never straddles a swizzled 16-byte chunk.
std::pair<Value, Value> OutputTileBuilder::residentXPair(
    ImplicitLocOpBuilder &b, const SwizzledTile &tile, Value row, Value col) {
  Value pair = arith::ExtFOp::create(
      b, VectorType::get({2}, b.getF32Type()),
      vectorLoad(b, VectorType::get({2}, mmaType), tile.buffer,
                 {row, tile.physicalColumn(b, row, col)}, 4));
  auto at = [&](int64_t q) {
    return vector::ExtractOp::create(b, pair, ArrayRef<int64_t>{q}).getResult();
  };
  return {at(0), at(1)};
}
