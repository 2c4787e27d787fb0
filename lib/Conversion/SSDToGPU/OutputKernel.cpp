//===- OutputKernel.cpp - launch 3: y and the final states ----------------===//
//
// Launch 3, the output kernel: 128 threads, two block roles:
//   - (chunk, head, 64 rows) blocks: y = (C S_prevᵀ) scaled by exp(cum_i)
//     per row, plus W X with W[i, j] = G[i, j] exp(cum_i - cum_j) d_j
//     (j <= i), plus D x; one accumulator tile on tensor cores, stored
//     from the fragments in pairs (emitOutputTile says why);
//   - (sequence, head, 512 state elements) blocks store the final state
//     of each writing sequence into its pool slot.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

void ChunkedScanGPUBuilder::emitOutputKernel(ImplicitLocOpBuilder &b) {
  const int64_t v = stateVector(), elements = x.headDim * x.dstate;
  const int64_t storeParts = llvm::divideCeil(elements, kOutputThreads * v);
  Value outputPerChunk = mul(b, rowTiles, x.heads);
  // With the fused output, the chunk kernel computed y: final states only.
  Value outputBlocks =
      fusedOutput ? idx(b, 0) : mul(b, maxChunks, outputPerChunk);
  Value storeBlocks = mul(b, seqBound, x.heads * storeParts);
  Value one = idx(b, 1);
  launchKernel(
      b, e, {add(b, outputBlocks, storeBlocks), one, one},
      {kOutputThreads, 1, 1},
      [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
        Value block = k.block.x;
        ImplicitLocOpBuilder f(b.getLoc(), b.getContext());
        if (fusedOutput) {
          f.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
        } else {
          auto ifOutput = scf::IfOp::create(b, TypeRange{},
                                            ult(b, block, outputBlocks), true);
          ImplicitLocOpBuilder o(b.getLoc(), b.getContext());
          o.setInsertionPoint(ifOutput.thenBlock()->getTerminator());
          Value chunk = divu(o, block, outputPerChunk);
          Value rest = arith::RemUIOp::create(o, block, outputPerChunk);
          Value head = divu(o, rest, rowTiles);
          Value rowTile = arith::RemUIOp::create(o, rest, rowTiles);
          Value used = toIndex(o, load(o, chunkBegin, {e.batch}));
          e.ifThen(o, ult(o, chunk, used), [&](ImplicitLocOpBuilder &o) {
            Value seq = toIndex(o, load(o, chunkSeq, {chunk}));
            Value j = sub(o, chunk, toIndex(o, load(o, chunkBegin, {seq})));
            Value begin = signedIndex(o, load(o, e.queryStartLoc, seq));
            Value end =
                signedIndex(o, load(o, e.queryStartLoc, add(o, seq, 1)));
            Value first = add(o, begin, mul(o, j, L));
            ChunkLocation c{seq, first, minu(o, idx(o, L), sub(o, end, first))};
            Value i0 = mul(o, rowTile, kRowTile);
            e.ifThen(o, ult(o, i0, c.len), [&](ImplicitLocOpBuilder &o) {
              emitOutputTile(o, k, outputKernelLayout(), chunk, head, c, i0);
            });
          });

          // The final states of writing sequences into their pool slots:
          // every pool read happened in launch 2.
          f.setInsertionPoint(ifOutput.elseBlock()->getTerminator());
        }
        Value linear = sub(f, block, outputBlocks);
        Value entry = divu(f, linear, x.heads * storeParts);
        Value rest2 = remu(f, linear, x.heads * storeParts);
        Value head2 = divu(f, rest2, storeParts);
        Value part = remu(f, rest2, storeParts);
        Value tid = k.thread.x;
        Value element = mul(f, add(f, mul(f, part, kOutputThreads), tid), v);
        forChunkedSequence(f, entry, [&](ImplicitLocOpBuilder &f, Value seq) {
          SequenceInfo s = e.sequence(f, seq);
          // Fused: the final state sits at the last chunk, unless the
          // chunk kernel stored it into the pool already (an uncontested
          // writer, the same vote as there); a sequence without chunks
          // keeps its initial state.
          Value begin, end, empty, stored = boolean(f, false);
          if (fused) {
            begin = toIndex(f, load(f, chunkBegin, {seq}));
            end = toIndex(f, load(f, chunkBegin, {add(f, seq, idx(f, 1))}));
            empty = eq(f, begin, end);
            Value contested = boolean(f, false);
            if (e.hasInitialState)
              contested = contestedWriter(
                  f, e, seq, tid, remu(f, tid, 32),
                  sharedView(f, k, 0, {kOutputThreads / 32}, f.getI32Type()),
                  kOutputThreads);
            stored =
                both(f, arith::XOrIOp::create(f, empty, boolean(f, true)),
                     arith::XOrIOp::create(f, contested, boolean(f, true)));
          }
          Value stores =
              both(f, both(f, s.writesState, ult(f, element, elements)),
                   arith::XOrIOp::create(f, stored, boolean(f, true)));
          e.ifThen(f, stores, [&](ImplicitLocOpBuilder &f) {
            Value p = divu(f, element, x.dstate);
            Value n = remu(f, element, x.dstate);
            Value final;
            if (fused) {
              final = ifValues(f, empty, [&](ImplicitLocOpBuilder &f) {
                        return ifValues(
                            f, s.readsInitial, [&](ImplicitLocOpBuilder &f) {
                              return SmallVector<Value>{loadStateVector(
                                  f, e.pool, {s.slot, head2, p, n})};
                            });
                      }).front();
              Value ended =
                  ifValues(f, arith::XOrIOp::create(f, empty, boolean(f, true)),
                           [&](ImplicitLocOpBuilder &f) {
                             return SmallVector<Value>{loadStateVector(
                                 f, finals, {entry, head2, p, n})};
                           })
                      .front();
              final = select(f, empty, final, ended);
            } else {
              final = loadStateVector(f, finals, {entry, head2, p, n});
            }
            storeStateVector(f, final, e.pool, {s.slot, head2, p, n});
          });
        });
      },
      // The final-state blocks' vote: a flag per warp.
      fusedOutput ? 4 * (kOutputThreads / 32) : plan.launch3Bytes);
}

ChunkedScanGPUBuilder::OutputTileLayout
ChunkedScanGPUBuilder::outputKernelLayout() const {
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

ChunkedScanGPUBuilder::OutputTileLayout
ChunkedScanGPUBuilder::fusedOutputLayout() const {
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
  return l;
}

// y for `layout.rows` rows of a chunk, from row i0, and one head: the
// inter-chunk term, scaled per row, plus the intra-chunk term, plus D x.
void ChunkedScanGPUBuilder::emitOutputTile(ImplicitLocOpBuilder &b,
                                           const KernelContext &k,
                                           const OutputTileLayout &layout,
                                           Value chunk, Value head,
                                           const ChunkLocation &c, Value i0) {
  OutputTile ot = beginOutputTile(b, k, layout, chunk, head, c, i0);
  SmallVector<Value> acc(ot.tile.accumulators(), f32(b, 0.0));
  addInterChunkTerm(b, ot, acc);
  scaleByRowDecay(b, ot, acc);
  addIntraChunkTerm(b, ot, acc);
  storeOutputRows(b, ot, acc);
}

/// The tile's position, its rows' cum and exp(cum), and its warps.
ChunkedScanGPUBuilder::OutputTile ChunkedScanGPUBuilder::beginOutputTile(
    ImplicitLocOpBuilder &b, const KernelContext &k,
    const OutputTileLayout &layout, Value chunk, Value head,
    const ChunkLocation &c, Value i0) {
  const int64_t threads = layout.threads, rows = layout.rows;
  Type f32t = b.getF32Type();
  Value tid = k.thread.x, lane = remu(b, tid, 32);
  Value group = groupOfHead(b, head);
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
  return OutputTile{k,     layout,   chunk,   head,        c,       i0,
                    tid,   lane,     group,   lastToken,   rowsEnd, rowHi,
                    rowLo, rowDecay, rowBase, mmaLaneInfo, tile};
}

Value ChunkedScanGPUBuilder::rowValue(ImplicitLocOpBuilder &b,
                                      const OutputTile &ot, Value array,
                                      Value r) {
  return load(b, array, {add(b, ot.rowBase, r)});
}

/// Inter-chunk term: acc[i, p] = sum_n C[i, n] S_prev[p, n]; A = C stored
/// [i][n], B = S_prev stored [p][n]: staged per k-step, or the block's
/// resident tile, read at the step's columns.
void ChunkedScanGPUBuilder::addInterChunkTerm(ImplicitLocOpBuilder &b,
                                              const OutputTile &ot,
                                              SmallVector<Value> &acc) {
  const KernelContext &k = ot.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  const ChunkLocation &c = ot.c;
  Value chunk = ot.chunk, head = ot.head, i0 = ot.i0, tid = ot.tid,
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
  MmaOperand cs = operand(b, cContext, layout.aHigh, layout.aLow, rows, kStep,
                          false, wgmma ? chunkTiles->shift : Value());
  MmaOperand ps;
  if (layout.inBlock) {
    ps.high = prevStateTile(b, k);
  } else {
    ps = operand(b, k, layout.bHigh, layout.bLow, plan.paddedP, kStep, false);
  }
  const bool rawC = copiesRaw(e.C, x.dstate);
  const bool rawPrev = x.dstate % 8 == 0;
  auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                   Value stage) -> SmallVector<Value> {
    SmallVector<Value> values;
    Value n0 = mul(b, step, kStep);
    SwizzledTile cStage = cs.high.stage(b, stage);
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
  auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value,
                     Value stage) {
    size_t next = 0;
    MmaOperand cStage = atStage(b, cs, stage);
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
        b, headTiles(b, k).address(b, layout.sPrev),
        arith::IndexCastUIOp::create(
            b, b.getI64Type(),
            mul(b, remu(b, step, kPanelCols / kStep), 2 * kStep)));
    SmallVector<WgmmaProduct> products;
    for (int64_t kByte = 0; kByte < 2 * kStep; kByte += 32)
      products.push_back({wgmmaDescriptor(b, cs.high.stage(b, stage),
                                          chunkTiles->address(b, layout.aHigh),
                                          groupRow, kByte),
                          wgmmaDescriptor(b, ps.high, prevAddress,
                                          mul(b, panel, plan.paddedP), kByte)});
    return warpgroupMatmul(b, plan.paddedP, products, WgmmaMajor::K,
                           WgmmaMajor::K, plan.element, acc);
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
void ChunkedScanGPUBuilder::scaleByRowDecay(ImplicitLocOpBuilder &b,
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
void ChunkedScanGPUBuilder::addIntraChunkTerm(ImplicitLocOpBuilder &b,
                                              const OutputTile &ot,
                                              SmallVector<Value> &acc) {
  const KernelContext &k = ot.k;
  const OutputTileLayout &layout = ot.layout;
  const int64_t threads = layout.threads, rows = layout.rows;
  Type f32t = b.getF32Type();
  const ChunkLocation &c = ot.c;
  Value chunk = ot.chunk, head = ot.head, i0 = ot.i0, tid = ot.tid,
        group = ot.group, lastToken = ot.lastToken, rowsEnd = ot.rowsEnd,
        rowHi = ot.rowHi, rowLo = ot.rowLo;
  const MmaLane &mmaLaneInfo = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  const bool wgmma = outputByWgmma(layout);
  MmaOperand ws = operand(b, k, layout.aHigh, layout.aLow, rows, kStep, false,
                          wgmma ? chunkTiles->shift : Value());
  // B = x: staged per k-step, or the chunk's resident tile (fused), read
  // from the step's rows.
  MmaOperand xs;
  if (layout.inBlock) {
    xs.high = residentXTile(b, k);
    xs.kRows = true;
  } else {
    xs = operand(b, k, layout.bHigh, layout.bLow, kStep, plan.paddedP, true);
  }
  const bool rawX = copiesRaw(e.x, x.headDim);
  // W pieces of kWCols columns: warp w fills rows [w R, (w + 1) R)
  // (R = rows per warp), lane l column piece l % 8 of rows
  // w R + l / 8 + 4 m. So each thread loads one set of column data
  // (cum hi, lo and d: one 16-byte load each, the quarter-warp reading
  // 128 contiguous bytes), keeps its rows' cum in registers, its rows
  // lie in one band of the mma warps' rows (skipped together, below),
  // and a store instruction writes 4 consecutive rows (no conflicts in
  // the swizzled tile).
  //
  // Paired heads (the same rows of the same chunk in both teams): team t
  // builds rows [R t, R (t + 1)) (R = rows / 2) of the pass's W for both
  // heads, each from its head's cum and d in that head's copy of the
  // layout, so that each C·Bᵀ piece leaves L2 once per pair.
  constexpr int64_t kWCols = 4, piecesPerRow = kStep / kWCols;
  const int64_t wHeads = layout.inBlock && k.team ? plan.headsPerBlock : 1;
  const int64_t rowsPerWarp = rows / wHeads / (threads / 32);
  const int64_t rowsPerStore = 32 / piecesPerRow;
  const int64_t wPerThread = rowsPerWarp / rowsPerStore;
  assert(wPerThread >= 1 && rowsPerWarp % rowsPerStore == 0 &&
         "whole W pieces per thread");
  Value wCol = mul(b, remu(b, tid, piecesPerRow), kWCols);
  Value wRow = add(b, mul(b, divu(b, tid, 32), rowsPerWarp),
                   divu(b, remu(b, tid, 32), piecesPerRow));
  if (wHeads > 1)
    wRow = add(b, wRow, mul(b, k.team, rows / wHeads));
  // Where head h's W stage, cum and d are: the team's own views, or with
  // paired heads copy h of the layout (constant offsets in the arena).
  KernelContext arena = wHeads > 1 ? wholeBlock(b, k) : k;
  auto copyOf = [&](int64_t h, int64_t offset) {
    return wHeads > 1 ? offset + h * plan.headStride : offset;
  };
  SmallVector<MmaOperand> wsOfHead;
  for (int64_t h = 0; h < wHeads; ++h)
    wsOfHead.push_back(wHeads > 1 ? operand(b, arena, copyOf(h, layout.aHigh),
                                            layout.aLow, rows, kStep, false,
                                            chunkTiles->shift)
                                  : ws);
  // Whether the warps owning tile row r multiply the step from column
  // j0: the same test as their causal skip below, so W pieces nobody
  // reads are neither computed nor stored.
  const int64_t band = wgmma ? kRowTile : 16 * tile.mTiles;
  auto readByItsWarps = [&](ImplicitLocOpBuilder &b, Value r, Value j0) {
    Value bandLast = add(b, mul(b, divu(b, r, band), band), band - 1);
    return ule(b, j0, add(b, i0, bandLast));
  };
  // A thread's rows all in one band: one test skips its whole share.
  const bool bandPerThread = band % rowsPerWarp == 0;
  SmallVector<int64_t> wRows;
  for (int64_t m = 0; m < wPerThread; ++m)
    wRows.push_back(m * rowsPerStore);
  auto f32xW = VectorType::get({kWCols}, f32t);
  // C Bᵀ pieces as stored (f32 or the mma element), widened when used.
  Type cbElement = cast<MemRefType>(cb.getType()).getElementType();
  auto cbPiece = VectorType::get({kWCols}, cbElement);
  const int64_t cbBytes = cbElement.getIntOrFloatBitWidth() / 8;
  // The cum of each W row this thread fills, loaded once for all steps;
  // or, in the fused chunk kernel's 128-row passes (4 rows a thread) on
  // mma.sync, read again each step: 8 registers it needs to stay at two
  // blocks per SM, for about 6% more shared-memory wavefronts. On wgmma
  // the kernel has them (120 registers with, 118 without; with paired
  // heads, two rows of each of two heads, 128 and no spills).
  const bool reloadRowCum = layout.inBlock && wPerThread > 2 && !wgmma;
  auto rowCum = [&](ImplicitLocOpBuilder &b, Value r, int64_t h = 0) {
    if (wHeads == 1)
      return std::pair<Value, Value>{rowValue(b, ot, rowHi, r),
                                     rowValue(b, ot, rowLo, r)};
    auto at = [&](int64_t offset) {
      return load(
          b, sharedView(b, arena, copyOf(h, offset), {layout.tokenSlots}, f32t),
          {add(b, ot.rowBase, r)});
    };
    return std::pair<Value, Value>{at(layout.cumHi), at(layout.cumLo)};
  };
  SmallVector<std::pair<Value, Value>> wRowCum;
  if (!reloadRowCum)
    for (int64_t h = 0; h < wHeads; ++h)
      for (int64_t dr : wRows)
        wRowCum.push_back(rowCum(b, add(b, wRow, dr), h));
  // cum and d of the columns jb.. (zeros past the chunk, never used).
  auto columnValues = [&](ImplicitLocOpBuilder &b, Value jb, int64_t h) {
    return ifValues(b, ult(b, jb, c.len), [&](ImplicitLocOpBuilder &b) {
      SmallVector<Value> v;
      if (layout.inBlock) {
        for (int64_t offset : {layout.cumHi, layout.cumLo, layout.dt})
          v.push_back(vectorLoad(b, f32xW,
                                 sharedView(b, arena, copyOf(h, offset),
                                            {layout.tokenSlots}, f32t),
                                 {jb}, 4 * kWCols));
        return v;
      }
      for (Value source : {cumHi, cumLo, dts})
        v.push_back(
            vectorLoad(b, f32xW, source, {chunk, head, jb}, 4 * kWCols));
      return v;
    });
  };

  auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                   Value stage) -> SmallVector<Value> {
    SmallVector<Value> values;
    Value j0 = mul(b, step, kStep);
    Value jb = add(b, j0, wCol);
    for (int64_t dr : wRows) {
      Value i = add(b, add(b, i0, wRow), dr);
      Value any = both(b, both(b, ult(b, i, c.len), ule(b, jb, i)),
                       readByItsWarps(b, add(b, wRow, dr), j0));
      Value row = minu(b, i, sub(b, c.len, idx(b, 1)));
      values.push_back(ifValues(b, any, [&](ImplicitLocOpBuilder &b) {
                         return SmallVector<Value>{
                             vectorLoad(b, cbPiece, cb,
                                        {cbSlotOf(b, chunk), group, row, jb},
                                        cbBytes * kWCols)};
                       }).front());
    }
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
    size_t next = 0;
    Value j0 = mul(b, step, kStep);
    Value jb = add(b, j0, wCol);
    SmallVector<Value> pieceValues(values.begin() + next,
                                   values.begin() + next + wPerThread);
    next += wPerThread;
    auto buildHeadPieces = [&](ImplicitLocOpBuilder &b, int64_t h) {
      MmaOperand wStage = atStage(b, wsOfHead[h], stage);
      size_t next = 0;
      ValueRange values = pieceValues;
      SmallVector<Value> column = columnValues(b, jb, h);
      for (auto [m, dr] : llvm::enumerate(wRows)) {
        Value r = add(b, wRow, dr);
        Value i = add(b, i0, r);
        // Named copies: a lambda cannot capture structured bindings in
        // C++17.
        auto [hiCum, loCum] =
            reloadRowCum ? rowCum(b, r, h) : wRowCum[h * wPerThread + m];
        Value hiI = hiCum, loI = loCum;
        Value g = values[next++];
        if (cbElement != f32t)
          g = arith::ExtFOp::create(b, f32xW, g);
        Value read =
            bandPerThread ? boolean(b, true) : readByItsWarps(b, r, j0);
        e.ifThen(b, read, [&](ImplicitLocOpBuilder &b) {
          SmallVector<Value> w;
          for (int64_t q = 0; q < kWCols; ++q) {
            auto at = [&](Value v) {
              return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q})
                  .getResult();
            };
            Value j = add(b, jb, q);
            Value valid = both(b, ult(b, i, c.len), ule(b, j, i));
            Value weight = fmul(
                b,
                fmul(b, at(g),
                     decayBetween(b, hiI, loI, at(column[0]), at(column[1]))),
                at(column[2]));
            w.push_back(select(b, valid, weight, f32(b, 0.0)));
          }
          Value piece = vector::FromElementsOp::create(b, f32xW, w);
          auto storePiece = [&](const SwizzledTile &t, Value v) {
            // A piece stays inside its 16-byte chunk, which the swizzle
            // moves as a whole.
            Value br = t.bufferRow(b, r);
            vectorStore(b, v, t.buffer, {br, t.physicalColumn(b, br, wCol)},
                        2 * kWCols);
          };
          storePiece(wStage.high, toMmaElement(b, piece, plan.element));
          if (wStage.split())
            storePiece(wStage.low, mmaLowPart(b, piece, plan.element));
        });
      }
    };
    auto buildPieces = [&](ImplicitLocOpBuilder &b) {
      for (int64_t h = 0; h < wHeads; ++h)
        buildHeadPieces(b, h);
    };
    if (bandPerThread)
      e.ifThen(b, readByItsWarps(b, wRow, j0), buildPieces);
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
          for (int64_t k16 = 0; k16 < kStep; k16 += 16)
            products.push_back(
                {wgmmaDescriptor(b, ws.high.stage(b, stage),
                                 headTiles(b, k).address(b, layout.aHigh),
                                 groupRow, 2 * k16),
                 wgmmaDescriptor(
                     b, xs.high,
                     headTiles(b, k).address(b, plan.chunkShared.xResident),
                     add(b, mul(b, step, kStep), k16), 0)});
          return warpgroupMatmul(b, plan.paddedP, products, WgmmaMajor::K,
                                 WgmmaMajor::MN, plan.element, acc);
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
          return warpStep(b, mmaLaneInfo, causal, ws, xs, stage, acc,
                          /*bStaged=*/false, mul(b, step, kStep));
        return warpStep(b, mmaLaneInfo, causal, ws, xs, stage, acc);
      },
      /*asyncProxyReads=*/wgmma);
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
void ChunkedScanGPUBuilder::storeOutputRows(ImplicitLocOpBuilder &b,
                                            const OutputTile &ot,
                                            ValueRange acc) {
  const ChunkLocation &c = ot.c;
  Value head = ot.head, i0 = ot.i0;
  const MmaLane &mmaLaneInfo = ot.mmaLaneInfo;
  const WarpTile &tile = ot.tile;
  Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
  std::optional<SwizzledTile> xResident;
  if (ot.layout.inBlock)
    xResident = residentXTile(b, ot.k);
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
void ChunkedScanGPUBuilder::storeOutputQuads(ImplicitLocOpBuilder &b,
                                             const OutputTile &ot,
                                             ValueRange acc, Value dSkip,
                                             const SwizzledTile &xResident) {
  const ChunkLocation &c = ot.c;
  Value head = ot.head, i0 = ot.i0;
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
SwizzledTile ChunkedScanGPUBuilder::residentXTile(ImplicitLocOpBuilder &b,
                                                  const KernelContext &k) {
  const ChunkRoleShared &sh = plan.chunkShared;
  return sharedTile(b, k, sh.xResident, sh.tokenSlots, plan.paddedP, mmaType, 1,
                    plan.outputWgmma ? chunkTiles->shift : Value());
}

SwizzledTile ChunkedScanGPUBuilder::prevStateTile(ImplicitLocOpBuilder &b,
                                                  const KernelContext &k) {
  const ChunkRoleShared &sh = plan.chunkShared;
  if (!plan.outputWgmma)
    return sharedTile(b, k, sh.sPrev, plan.paddedP, plan.reductionN, mmaType);
  return sharedTile(b, k, sh.sPrev, plan.reductionN / kPanelCols * plan.paddedP,
                    kPanelCols, mmaType, 1, chunkTiles->shift);
}

std::pair<Value, Value>
ChunkedScanGPUBuilder::prevStateAt(ImplicitLocOpBuilder &b, Value p, Value n) {
  if (!plan.outputWgmma)
    return {p, n};
  return {add(b, mul(b, divu(b, n, kPanelCols), plan.paddedP), p),
          remu(b, n, kPanelCols)};
}

/// x at (row, col) and (row, col + 1) of the resident tile, as f32; col is
/// even, so the pair never straddles a swizzled 16-byte chunk.
std::pair<Value, Value> ChunkedScanGPUBuilder::residentXPair(
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
