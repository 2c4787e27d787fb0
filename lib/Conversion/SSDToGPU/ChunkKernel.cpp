//===- ChunkKernel.cpp - launch 1: cumsum, dS and C Bᵀ blocks -------------===//
//
// Launch 1, the chunk kernel: 256 threads, three block roles from
// blockIdx.x (a ticket with fused state passing, FusedStatePassing.cpp):
//   - block 0 maps chunks to sequences for launches 2 and 3
//     (chunkBegin[b], chunkSeq[k]; ChunkMap.cpp);
//   - (chunk, head, state part) blocks: locate the chunk, d and cum as a
//     parallel compensated scan, the decay weights exp(cum_last - cum_s)
//     d_s once per chunk in shared memory, then dS_k = Xwᵀ B on tensor
//     cores, stored (f32) to the workspace with cum, d and exp(cum_last);
//   - (chunk, group, 64x64 tile at or below the diagonal) blocks:
//     G_k = C Bᵀ, computed once per group rather than per head.
//
// The in-chunk log-decays cum_i - cum_j are differences of prefix sums that
// reach several hundred; in plain f32 the difference would keep the rounding
// error of every addition in between (the CPU form walks backwards instead,
// which a matmul tile cannot). So the prefix sums are compensated (TwoSum):
// cum = hi + lo, and hi_i - hi_j is exact for the nearby tokens whose decay
// matters (Sterbenz), with (lo_i - lo_j) restoring the rest. The parallel
// scan combines (hi, lo) pairs with TwoSum as well, so every partial sum
// keeps its rounding error in lo. Decays are exp(min(delta, 0)).
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "ssd/IR/SSDOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

/// TwoSum: (hi, lo) + step, keeping the rounding error of hi + step in lo.
std::pair<Value, Value>
ChunkKernelBuilder::addCompensated(ImplicitLocOpBuilder &b, Value hi, Value lo,
                                   Value step) {
  Value next = faddExact(b, hi, step);
  Value stepPart = fsubExact(b, next, hi);
  Value hiPart = fsubExact(b, next, stepPart);
  Value err =
      faddExact(b, fsubExact(b, hi, hiPart), fsubExact(b, step, stepPart));
  return {next, faddExact(b, lo, err)};
}

SmallVector<Value>
ChunkKernelBuilder::combineCompensated(ImplicitLocOpBuilder &b,
                                       ValueRange earlier, ValueRange later) {
  auto [hi, lo] = addCompensated(b, earlier[0], earlier[1], later[0]);
  return {hi, faddExact(b, lo, later[1])};
}

/// exp(min(cum_i - cum_j, 0)) from compensated sums.
Value ChunkedKernelParts::decayBetween(ImplicitLocOpBuilder &b, Value hiI,
                                       Value loI, Value hiJ, Value loJ) {
  return e.decay(b,
                 faddExact(b, fsubExact(b, hiI, hiJ), fsubExact(b, loI, loJ)));
}

void ChunkKernelBuilder::emit(ImplicitLocOpBuilder &b) {
  const int64_t stateBlocksPerChunk =
      x.heads * plan.stateParts / plan.headsPerBlock;
  // With C·Bᵀ in the block (cb_in_block) a chunk has only state blocks.
  Value tilePairs = mul(b, rowTiles, rowTiles);
  Value perChunk =
      cbTiles() ? add(b, mul(b, tilePairs, x.groups), stateBlocksPerChunk)
                : idx(b, stateBlocksPerChunk);
  Value blocks = add(b, mul(b, maxChunks, perChunk), 1);
  Value one = idx(b, 1);
  launchKernel(
      b, e, {blocks, one, one}, {plan.chunkThreads, 1, 1},
      [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
        if (plan.launch1BlocksPerSM)
          KernelOccupancyOp::create(b, plan.launch1BlocksPerSM);
        Value tid = k.thread.x, lane = remu(b, tid, 32);
        Value block = fused ? takeTicket(b, k, tid) : k.block.x;
        // Block 0 maps the chunks; then, per chunk, the C Bᵀ blocks of
        // every group (none with cb_in_block) and the state blocks of
        // every head, so that the
        // blocks reading one chunk's B run together (and, with the fused
        // output, a state block waits only for C Bᵀ blocks of smaller
        // tickets).
        auto ifMap =
            scf::IfOp::create(b, TypeRange{}, eq(b, block, idx(b, 0)), true);
        ImplicitLocOpBuilder m(b.getLoc(), b.getContext());
        m.setInsertionPoint(ifMap.thenBlock()->getTerminator());
        emitChunkMap(m, tid, lane, k.threads,
                     sharedView(m, k, plan.chunkShared.locateScratch,
                                {k.threads / 32}, m.getI32Type()),
                     sharedView(m, k, plan.chunkShared.chunkedScratch,
                                {k.threads / 32}, m.getI32Type()));

        ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
        t.setInsertionPoint(ifMap.elseBlock()->getTerminator());
        Value linear = sub(t, block, one);
        Value chunk = divu(t, linear, perChunk);
        Value role = arith::RemUIOp::create(t, linear, perChunk);
        if (!cbTiles()) {
          emitStateRole(t, k, chunk, role);
          return;
        }
        Value cbBlocks = mul(t, tilePairs, x.groups);
        auto ifCB =
            scf::IfOp::create(t, TypeRange{}, ult(t, role, cbBlocks), true);
        ImplicitLocOpBuilder s(t.getLoc(), t.getContext());
        s.setInsertionPoint(ifCB.elseBlock()->getTerminator());
        emitStateRole(s, k, chunk, sub(s, role, cbBlocks));

        ImplicitLocOpBuilder c(t.getLoc(), t.getContext());
        c.setInsertionPoint(ifCB.thenBlock()->getTerminator());
        Value cbRole = role;
        Value group = divu(c, cbRole, tilePairs);
        Value pair = arith::RemUIOp::create(c, cbRole, tilePairs);
        Value iTile = divu(c, pair, rowTiles);
        Value jTile = arith::RemUIOp::create(c, pair, rowTiles);
        e.ifThen(c, ule(c, jTile, iTile), [&](ImplicitLocOpBuilder &c) {
          emitChunkCBBlock(c, k, chunk, group, iTile, jTile);
        });
      },
      plan.launch1Bytes);
}

/// A state block of the chunk kernel: one head (`k` the whole block's), or
/// with paired heads one per team of kChunkThreads threads, each team's
/// threads numbered from 0 and its copy of the layout seen from 0.
void ChunkKernelBuilder::emitStateRole(ImplicitLocOpBuilder &b,
                                       const KernelContext &k, Value chunk,
                                       Value stateRole) {
  Value head = divu(b, stateRole, plan.stateParts);
  Value part = remu(b, stateRole, plan.stateParts);
  if (plan.headsPerBlock == 1)
    return emitChunkStateBlock(b, {k, head, Value(), std::nullopt}, chunk,
                               part);
  Value team = divu(b, k.thread.x, kChunkThreads);
  // The pair's group, from the block's pair index.
  Value pairGroup = divu(b, head, x.heads / x.groups / plan.headsPerBlock);
  head = add(b, mul(b, head, plan.headsPerBlock), team);
  KernelContext teamContext{
      k.block,  {remu(b, k.thread.x, kChunkThreads), k.thread.y, k.thread.z},
      k.shared, kChunkThreads,
      team,     plan.headStride};
  emitChunkStateBlock(b, {teamContext, head, pairGroup, std::nullopt}, chunk,
                      part);
}

/// d, the compensated cumsum and the decay weights of one chunk and head;
/// `scale[s]` = exp(cum_last - cum_s) d_s in shared memory when it
/// returns. Part 0 also stores cum and d for the output kernel (with the
/// fused output: in shared memory, with exp(cum)) and, without fused
/// state passing, exp(cum_last) for launch 2.
void ChunkKernelBuilder::emitChunkCumsum(ImplicitLocOpBuilder &b,
                                         const KernelContext &k, Value chunk,
                                         Value head, Value part,
                                         const ChunkLocation &c, Value tid,
                                         Value lane) {
  const ChunkRoleShared &sh = plan.chunkShared;
  const int64_t warps = k.threads / 32;
  Type f32t = b.getF32Type();
  Value scale = sharedView(b, k, sh.scale, {L}, f32t);
  Value scanHi = sharedView(b, k, sh.scanHi, {warps}, f32t);
  Value scanLo = sharedView(b, k, sh.scanLo, {warps}, f32t);
  Value lastCum = sharedView(b, k, sh.lastCum, {2}, f32t);
  Value a = e.loadF32(b, e.A, {head});
  Value zero = f32(b, 0.0);
  const int64_t q = plan.tokensPerThread;
  Value lo = minu(b, mul(b, tid, q), c.len);
  Value hi = minu(b, add(b, lo, q), c.len);
  Value writesWorkspace = eq(b, part, idx(b, 0));

  // Pass 1: d (kept in scale[] for now) and this thread's compensated sum.
  SmallVector<Value> local =
      forLoop(b, lo, hi, {zero, zero},
              [&](ImplicitLocOpBuilder &b, Value s, ValueRange sum) {
                Value d = e.processedDt(b, add(b, c.first, s), head);
                store(b, d, scale, {s});
                auto [h, l] =
                    addCompensated(b, sum[0], sum[1], fmulExact(b, d, a));
                return SmallVector<Value>{h, l};
              });
  BlockScanResult scan = blockExclusiveScan(
      b, tid, lane, k.threads, local, {zero, zero}, {scanHi, scanLo},
      [&](ImplicitLocOpBuilder &b, ValueRange l, ValueRange r) {
        return combineCompensated(b, l, r);
      });
  // Passes 2 and 3 repeat the same running sums, so both see the same
  // bits.
  auto runningSums = [&](ImplicitLocOpBuilder &b,
                         function_ref<void(ImplicitLocOpBuilder &, Value s,
                                           Value d, Value hi, Value lo)>
                             body) {
    forLoop(b, lo, hi, scan.exclusive,
            [&](ImplicitLocOpBuilder &b, Value s, ValueRange sum) {
              Value d = load(b, scale, {s});
              auto [h, l] =
                  addCompensated(b, sum[0], sum[1], fmulExact(b, d, a));
              body(b, s, d, h, l);
              return SmallVector<Value>{h, l};
            });
  };
  // Pass 2: cum and d to the workspace (with the fused output to shared
  // memory, with exp(cum), and zeros up to the last output row); the last
  // token's cum to shared.
  auto tokenArray = [&](int64_t offset) {
    return sharedView(b, k, offset, {sh.tokenSlots}, f32t);
  };
  SmallVector<Value> tokenArrays;
  if (fusedOutput) {
    tokenArrays = {tokenArray(sh.cumHi), tokenArray(sh.cumLo),
                   tokenArray(sh.dt), tokenArray(sh.rowDecay)};
    e.loop(b, maxu(b, mul(b, tid, q), c.len),
           minu(b, add(b, mul(b, tid, q), q), idx(b, sh.tokenSlots)),
           [&](ImplicitLocOpBuilder &b, Value s) {
             for (Value array : tokenArrays)
               store(b, zero, array, {s});
           });
  }
  runningSums(b,
              [&](ImplicitLocOpBuilder &b, Value s, Value d, Value h, Value l) {
                if (fusedOutput) {
                  store(b, h, tokenArrays[0], {s});
                  store(b, l, tokenArrays[1], {s});
                  store(b, d, tokenArrays[2], {s});
                  store(b, e.decay(b, faddExact(b, h, l)), tokenArrays[3], {s});
                } else {
                  e.ifThen(b, writesWorkspace, [&](ImplicitLocOpBuilder &b) {
                    store(b, h, cumHi, {chunk, head, s});
                    store(b, l, cumLo, {chunk, head, s});
                    store(b, d, dts, {chunk, head, s});
                  });
                }
                e.ifThen(b, eq(b, s, sub(b, c.len, idx(b, 1))),
                         [&](ImplicitLocOpBuilder &b) {
                           store(b, h, lastCum, {idx(b, 0)});
                           store(b, l, lastCum, {idx(b, 1)});
                         });
              });
  gpu::BarrierOp::create(b);
  Value lastHi = load(b, lastCum, {idx(b, 0)});
  Value lastLo = load(b, lastCum, {idx(b, 1)});
  // Pass 3: the decay weights, each thread over its own tokens.
  runningSums(
      b, [&](ImplicitLocOpBuilder &b, Value s, Value d, Value h, Value l) {
        store(b, fmul(b, decayBetween(b, lastHi, lastLo, h, l), d), scale, {s});
      });
  // The state-passing launch's decay per chunk (the fused one takes it
  // from lastCum in shared memory).
  if (!fused)
    e.ifThen(b, both(b, writesWorkspace, eq(b, tid, idx(b, 0))),
             [&](ImplicitLocOpBuilder &b) {
               store(b, e.decay(b, faddExact(b, lastHi, lastLo)), chunkDecay,
                     {chunk, head});
             });
  gpu::BarrierOp::create(b);
}

KernelContext ChunkedKernelParts::wholeBlock(ImplicitLocOpBuilder &b,
                                             const KernelContext &k) const {
  if (!k.team)
    return k;
  return {
      k.block,
      {add(b, k.thread.x, mul(b, k.team, k.threads)), k.thread.y, k.thread.z},
      k.shared,
      plan.chunkThreads};
}

WgmmaTiles ChunkedKernelParts::headTiles(ImplicitLocOpBuilder &b,
                                         const HeadTeam &team) const {
  WgmmaTiles t = *team.tiles;
  const KernelContext &k = team.k;
  if (!k.team)
    return t;
  t.firstAddress = arith::AddIOp::create(
      b, t.firstAddress,
      arith::IndexCastUIOp::create(b, b.getI64Type(),
                                   mul(b, k.team, k.teamStride)));
  return t;
}

// dS[p, n] = sum_s (scale_s x[s, p]) B[s, n] for n in this part's columns.
void ChunkKernelBuilder::emitChunkStateBlock(ImplicitLocOpBuilder &b,
                                             HeadTeam team, Value chunk,
                                             Value part) {
  const KernelContext &k = team.k;
  Value head = team.head;
  const ChunkRoleShared &sh = plan.chunkShared;
  Value tid = k.thread.x, lane = remu(b, tid, 32);
  locateChunkOfBlock(
      b, k, chunk, sh.locateScratch, sh.located,
      [&](ImplicitLocOpBuilder &b, ChunkLocation c, Value located) {
        emitChunkCumsum(b, k, chunk, head, part, c, tid, lane);
        Value group = groupOf(b, team);
        Value scale = sharedView(b, k, sh.scale, {L}, b.getF32Type());
        const int64_t cols = plan.stateCols;
        Value n0 = mul(b, part, cols);
        // A = Xwᵀ stored [s][p], B stored [s][n]: both with rows along k.
        // wgmma: the tiles on an alignment boundary (as in the C Bᵀ
        // blocks), and B staged as 64-column panels, [n / 64][s][n % 64],
        // so that each warpgroup's half is one M/N-major operand of
        // 128-byte rows.
        if (plan.stateWgmma)
          team.tiles = wgmmaTiles(b, k, sh.xHigh);
        // Paired heads: the whole block stages B once, into the first
        // head's copy, whose tiles are team.tiles (headTiles: the team's).
        KernelContext bContext = wholeBlock(b, k);
        Value bTid = bContext.thread.x;
        const int64_t bThreads = bContext.threads;
        const std::optional<WgmmaTiles> &tiles = team.tiles;
        Value shift = tiles ? tiles->shift : Value();
        const int64_t bPanels = plan.stateWgmma ? cols / kPanelCols : 1;
        MmaOperand xs =
            operand(b, k, sh.xHigh, sh.xLow, kStep, plan.paddedP, true, shift);
        MmaOperand bs = operand(b, bContext, sh.bHigh, sh.bLow, kStep * bPanels,
                                cols / bPanels, true, shift);
        // Where B's (row, column) of a stage lies in its tile.
        auto bTileAt = [&](ImplicitLocOpBuilder &b, Value r,
                           Value n) -> std::pair<Value, Value> {
          if (bPanels == 1)
            return {r, n};
          return {add(b, mul(b, divu(b, n, kPanelCols), kStep), r),
                  remu(b, n, kPanelCols)};
        };
        // With the fused output, x stays: the output's intra-chunk term and
        // D x read it here rather than from L2 again.
        std::optional<SwizzledTile> xResident;
        if (fusedOutput)
          xResident = residentXTile(b, team);
        const bool rawB = copiesRaw(e.B, x.dstate);
        // With a ring of three stages or more, x is copied as it is into its
        // resident tile (cp.async, stages - 2 steps ahead) and each step's
        // decay-weighted operand is built from there once the copies have
        // landed (pipelinedReduction's `prepare`); otherwise it is loaded
        // into registers one step ahead, as with a double buffer.
        const bool xCopied =
            async && xResident && copiesRaw(e.x, x.headDim) && plan.stages >= 3;
        Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
        Value lastRow = sub(b, c.len, idx(b, 1));

        auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                         Value stage) -> SmallVector<Value> {
          SmallVector<Value> values;
          Value s0 = mul(b, step, kStep);
          forEachChunk(
              b, tid, k.threads, kStep, plan.paddedP,
              [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                Value s = add(b, s0, r);
                Value valid = both(b, ult(b, s, c.len), ult(b, p, x.headDim));
                Value t = minu(b, add(b, c.first, s), lastToken);
                if (xCopied)
                  fetchRaw(b, e.x, {t, head, p}, valid, *xResident, s, p);
                else
                  values.push_back(
                      loadEight(b, e.x, {t, head, p}, x.headDim, valid));
              },
              &values);
          SwizzledTile bStage = bs.high.stage(b, stage);
          forEachChunk(
              b, bTid, bThreads, kStep, cols,
              [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                auto [tileRow, tileCol] = bTileAt(b, r, n);
                fetchStateOperand(b, e.B, rawB, c, group, add(b, s0, r),
                                  add(b, n0, n), bStage, tileRow, tileCol,
                                  values);
              },
              &values);
          return values;
        };
        // x ∘ the decay to the chunk's end, rows s0.. of the step, into the
        // A stage: `xAt(r, p)` gives row s0 + r's 8 values from column p.
        auto depositWeightedX =
            [&](ImplicitLocOpBuilder &b, Value s0, Value stage,
                function_ref<Value(ImplicitLocOpBuilder &, Value, Value)> xAt) {
              MmaOperand xStage = atStage(b, xs, stage);
              forEachChunk(
                  b, tid, k.threads, kStep, plan.paddedP,
                  [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                    // Rows past the chunk hold zeros; their weight is any
                    // written one.
                    Value s = minu(b, add(b, s0, r), lastRow);
                    Value w = vector::BroadcastOp::create(
                        b, VectorType::get({8}, b.getF32Type()),
                        load(b, scale, {s}));
                    depositConverted(b,
                                     arith::MulFOp::create(b, xAt(b, r, p), w),
                                     xStage, r, p);
                  });
            };
        auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values,
                           Value step, Value stage) {
          size_t next = 0;
          Value s0 = mul(b, step, kStep);
          if (!xCopied)
            depositWeightedX(
                b, s0, stage, [&](ImplicitLocOpBuilder &b, Value r, Value p) {
                  // x is of the model type: converting back is exact.
                  if (xResident)
                    xResident->storeChunk(
                        b, add(b, s0, r), p,
                        toMmaElement(b, values[next], plan.element));
                  return values[next++];
                });
          MmaOperand bStage = atStage(b, bs, stage);
          forEachChunk(b, bTid, bThreads, kStep, cols,
                       [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                         auto [tileRow, tileCol] = bTileAt(b, r, n);
                         if (!rawB)
                           depositConverted(b, values[next++], bStage, tileRow,
                                            tileCol);
                         else if (!async)
                           depositRaw(b, values.slice(next++, 1), bStage.high,
                                      tileRow, tileCol);
                       });
        };

        MmaLane mmaLaneInfo = mmaLane(b, lane);
        // wgmma: warpgroup w computes columns [64 w, 64 w + 64) of the part.
        Value panel = divu(b, tid, 128);
        WarpTile tile =
            plan.stateWgmma
                ? warpgroupTile(b, divu(b, tid, 32), idx(b, 0),
                                mul(b, panel, kPanelCols), kPanelCols)
                : warpTile(b, plan.stateWarps, plan.paddedP, cols,
                           divu(b, tid, 32));
        // One stage by the warpgroup's wgmma chain: k16 steps down the
        // stage's rows of x and of the warpgroup's B panel.
        auto wgmmaStep = [&](ImplicitLocOpBuilder &b, Value stage,
                             ValueRange acc) {
          auto descriptor = [&](const SwizzledTile &t, int64_t offset,
                                Value row, const WgmmaTiles &at) {
            return wgmmaDescriptor(b, t.stage(b, stage), at.address(b, offset),
                                   row);
          };
          SmallVector<WgmmaProduct> products;
          WgmmaTiles xTiles = headTiles(b, team), bTiles = *team.tiles;
          Value panelRow = mul(b, panel, kStep);
          // Each k16 step is 16 rows further down the same tiles.
          WgmmaDescriptor x[2] = {
              descriptor(xs.high, sh.xHigh, idx(b, 0), xTiles),
              plan.split ? descriptor(xs.low, sh.xLow, idx(b, 0), xTiles)
                         : WgmmaDescriptor()};
          WgmmaDescriptor bd[2] = {
              descriptor(bs.high, sh.bHigh, panelRow, bTiles),
              plan.split ? descriptor(bs.low, sh.bLow, panelRow, bTiles)
                         : WgmmaDescriptor()};
          for (int64_t k16 = 0; k16 < kStep; k16 += 16) {
            appendSplitProducts(
                products, plan.split,
                [&](bool low) { return x[low].rowsDown(b, k16); },
                [&](bool low) { return bd[low].rowsDown(b, k16); });
          }
          return warpgroupMatmul(b, kPanelCols, products, WgmmaMajor::MN,
                                 WgmmaMajor::MN, plan.element, acc,
                                 /*retire=*/false);
        };
        SmallVector<Value> zeros(tile.accumulators(), f32(b, 0.0));
        SmallVector<Value> acc = pipelinedReduction(
            b, ceilDiv(b, c.len, kStep), zeros, fetch, deposit,
            [&](ImplicitLocOpBuilder &b, Value, Value stage,
                ValueRange acc) -> SmallVector<Value> {
              if (plan.stateWgmma)
                return wgmmaStep(b, stage, acc);
              return warpStep(b, mmaLaneInfo, tile, xs, bs, stage, acc);
            },
            /*asyncProxyReads=*/plan.stateWgmma,
            xCopied ? PrepareFn([&](ImplicitLocOpBuilder &b, Value step,
                                    Value stage) {
              Value s0 = mul(b, step, kStep);
              depositWeightedX(b, s0, stage,
                               [&](ImplicitLocOpBuilder &b, Value r, Value p) {
                                 return arith::ExtFOp::create(
                                     b, VectorType::get({8}, b.getF32Type()),
                                     xResident->loadChunk(b, add(b, s0, r), p));
                               });
            })
                    : PrepareFn());
        if (fused)
          return passState(b, team, chunk, part, located, mmaLaneInfo, tile,
                           acc, n0);
        e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
          forEachAccumulatorPair(
              b, mmaLaneInfo, tile, acc,
              [&](ImplicitLocOpBuilder &b, Value p, Value n, Value v0,
                  Value v1) {
                e.ifThen(b, ult(b, p, x.headDim), [&](ImplicitLocOpBuilder &b) {
                  storePair(b, states, {chunk, head, p, add(b, n0, n)},
                            idx(b, x.dstate), v0, v1, x.dstate % 2 == 0);
                });
              });
        });
      });
}

// G[i, j] = sum_n C[i, n] B[j, n] for 64 rows i and 64 rows j (j <= i):
// on the 8 warps' mma.sync tiles, or (wgmma) as the block's W warpgroups'
// m64n(64 / W) parts (two halves; four quarters in a block of paired
// heads), j in [64 w / W, 64 (w + 1) / W) for warpgroup w, from the same
// staged tiles: C the A operand and B the B operand, both K-major.
void ChunkKernelBuilder::emitChunkCBBlock(ImplicitLocOpBuilder &b,
                                          const KernelContext &k, Value chunk,
                                          Value group, Value iTile,
                                          Value jTile) {
  const CBRoleShared &sh = plan.cbShared;
  Value tid = k.thread.x, lane = remu(b, tid, 32);
  locateChunkOfBlock(
      b, k, chunk, sh.locateScratch, sh.located,
      [&](ImplicitLocOpBuilder &b, ChunkLocation c, Value) {
        Value i0 = mul(b, iTile, kRowTile), j0 = mul(b, jTile, kRowTile);
        e.ifThen(b, ult(b, i0, c.len), [&](ImplicitLocOpBuilder &b) {
          // wgmma's tiles start at the next alignment boundary of the
          // shared window past the plan's offsets.
          std::optional<WgmmaTiles> tiles;
          if (plan.cbWgmma)
            tiles = wgmmaTiles(b, k, sh.cHigh);
          Value shift = tiles ? tiles->shift : Value();
          // A = C stored [i][n], B = B stored [j][n]: rows along m and n.
          MmaOperand cs =
              operand(b, k, sh.cHigh, sh.cLow, kRowTile, kStep, false, shift);
          MmaOperand bs =
              operand(b, k, sh.bHigh, sh.bLow, kRowTile, kStep, false, shift);
          const bool raw = copiesRaw(e.C, x.dstate);
          Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
          struct Side {
            Value source;
            Value firstRow;
            const MmaOperand *tile;
          };
          Side sides[2] = {{e.C, i0, &cs}, {e.B, j0, &bs}};

          auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                           Value stage) -> SmallVector<Value> {
            SmallVector<Value> values;
            Value n0 = mul(b, step, kStep);
            for (const Side &side : sides) {
              SwizzledTile tStage = side.tile->high.stage(b, stage);
              forEachChunk(
                  b, tid, k.threads, kRowTile, kStep,
                  [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                    Value i = add(b, side.firstRow, r);
                    Value col = add(b, n0, n);
                    Value valid =
                        both(b, ult(b, i, c.len), ult(b, col, x.dstate));
                    Value t = minu(b, add(b, c.first, i), lastToken);
                    if (raw)
                      llvm::append_range(values, fetchRaw(b, side.source,
                                                          {t, group, col},
                                                          valid, tStage, r, n));
                    else
                      values.push_back(loadEight(
                          b, side.source, {t, group, col}, x.dstate, valid));
                  },
                  &values);
            }
            return values;
          };
          auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value,
                             Value stage) {
            size_t next = 0;
            for (const Side &side : sides) {
              MmaOperand tStage = atStage(b, *side.tile, stage);
              forEachChunk(
                  b, tid, k.threads, kRowTile, kStep,
                  [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                    if (!raw)
                      depositConverted(b, values[next++], tStage, r, n);
                    else if (!async)
                      depositRaw(b, values.slice(next++, 1), tStage.high, r, n);
                  });
            }
          };
          MmaLane mmaLaneInfo = mmaLane(b, lane);
          // wgmma: each warpgroup computes 64 / W columns of the tile.
          const int64_t groupCols = kRowTile / (k.threads / 128);
          Value groupCol = mul(b, divu(b, tid, 128), groupCols);
          WarpTile tile = plan.cbWgmma
                              ? warpgroupTile(b, divu(b, tid, 32), idx(b, 0),
                                              groupCol, groupCols)
                              : warpTile(b, plan.cbWarps, kRowTile, kRowTile,
                                         divu(b, tid, 32));
          // One stage by the warpgroup's wgmma chain: two k16 per row of
          // the tiles, rows 0.. of C and the group's rows of B.
          auto wgmmaStep = [&](ImplicitLocOpBuilder &b, Value stage,
                               ValueRange acc) {
            auto descriptor = [&](const SwizzledTile &t, int64_t offset,
                                  Value row) {
              return wgmmaDescriptor(b, t.stage(b, stage),
                                     tiles->address(b, offset), row);
            };
            SmallVector<WgmmaProduct> products;
            // Each k16 step is 32 bytes further along the same rows.
            WgmmaDescriptor cd[2] = {
                descriptor(cs.high, sh.cHigh, idx(b, 0)),
                plan.split ? descriptor(cs.low, sh.cLow, idx(b, 0))
                           : WgmmaDescriptor()};
            WgmmaDescriptor bd[2] = {descriptor(bs.high, sh.bHigh, groupCol),
                                     plan.split
                                         ? descriptor(bs.low, sh.bLow, groupCol)
                                         : WgmmaDescriptor()};
            for (int64_t kByte = 0; kByte < 2 * kStep; kByte += 32) {
              appendSplitProducts(
                  products, plan.split,
                  [&](bool low) { return cd[low].at(b, kByte); },
                  [&](bool low) { return bd[low].at(b, kByte); });
            }
            return warpgroupMatmul(b, groupCols, products, WgmmaMajor::K,
                                   WgmmaMajor::K, plan.element, acc,
                                   /*retire=*/false);
          };
          SmallVector<Value> zeros(tile.accumulators(), f32(b, 0.0));
          SmallVector<Value> acc = pipelinedReduction(
              b, idx(b, plan.reductionN / kStep), zeros, fetch, deposit,
              [&](ImplicitLocOpBuilder &b, Value, Value stage,
                  ValueRange acc) -> SmallVector<Value> {
                if (plan.cbWgmma)
                  return wgmmaStep(b, stage, acc);
                return warpStep(b, mmaLaneInfo, tile, cs, bs, stage, acc);
              },
              /*asyncProxyReads=*/plan.cbWgmma);
          // A ring slot (fused output) is free once every head of the
          // group read the chunk that used it before: the wait comes after
          // the matmul, and those blocks hold smaller tickets.
          if (fusedOutput) {
            e.ifThen(b,
                     both(b, ule(b, idx(b, kCBRingSlots), chunk),
                          eq(b, tid, idx(b, 0))),
                     [&](ImplicitLocOpBuilder &b) {
                       waitForFlag(
                           b,
                           cbReadersOf(b, sub(b, chunk, idx(b, kCBRingSlots)),
                                       group),
                           i32(b, cbReadersPerGroup()));
                     });
            gpu::BarrierOp::create(b);
          }
          Value slot = cbSlotOf(b, chunk);
          e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
            forEachAccumulatorPair(
                b, mmaLaneInfo, tile, acc,
                [&](ImplicitLocOpBuilder &b, Value i, Value j, Value v0,
                    Value v1) {
                  Value row = add(b, i0, i);
                  e.ifThen(b, ult(b, row, c.len), [&](ImplicitLocOpBuilder &b) {
                    storePair(b, cb, {slot, group, row, add(b, j0, j)}, c.len,
                              v0, v1, /*pairs=*/true);
                  });
                });
          });
          if (!fusedOutput)
            return;
          // Count the tile in for the chunk's state blocks: every
          // thread's stores before the count, through the barrier and
          // thread 0's release fence.
          gpu::BarrierOp::create(b);
          countIn(b, tid, [&](ImplicitLocOpBuilder &b) {
            return cbCountOf(b, chunk, group);
          });
        });
      });
}
