//===- SerialScanGPU.cpp - the token-serial scan as a GPU kernel ----------===//
//
// The recurrence of SerialScan.cpp, mapped onto the GPU:
//
//   grid  = (batch, H, ceil(P / (W R)))     block = (32 lanes, W warps)
//   (batch on x, whose limit is 2^31 - 1, not 65535)
//   warp w of block (b, h, z) owns rows p = z W R + w R + [0, R) of the
//   state of sequence b, head h; lane l owns columns n = l + 32 j, j < J,
//   J = ceil(N / 32). The R x J state values live in registers:
//
//   S[r][j] = has_initial_state ? pool[slot, h, p_r, n_j] : 0
//   for t in tokens of b:
//     S[r][j]  = exp(d_t A_h) S[r][j] + (d_t x[t, h, p_r]) B[t, g, n_j]
//     y[t,h,p_r] = warp_sum_l(sum_j S[r][j] C[t, g, n_j]) (+ D_h x[t, h, p_r])
//   if writes: pool[slot, h, p_r, n_j] = S[r][j]
//
// B and C rows are read once per token per warp, 32 consecutive columns at
// a time, and the pool moves in the same coalesced 128-byte rows. Decode
// (one token) is one load, one update and one store of the state.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

void mlir::ssd::detail::buildSerialScanGPU(RewriterBase &rewriter,
                                           ChunkScanVarlenOp op,
                                           const StaticExtents &extents,
                                           const LowerToGPUOptions &options) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ScanEmitter e(b, op, MathFlavor::NVVMApprox);
  const int64_t rowsPerWarp = options.serialRowsPerWarp;
  const int64_t warps = options.serialWarpsPerBlock;
  const int64_t rowsPerBlock = rowsPerWarp * warps;
  const int64_t columnsPerLane = llvm::divideCeil(extents.dstate, 32);
  // Guards are emitted only where the tiling does not divide the extent.
  const bool rowsNeedGuard = extents.headDim % rowsPerBlock != 0;
  const bool columnsNeedGuard = extents.dstate % 32 != 0;

  WriterOrder order = planWriterOrderOnDevice(b, e);
  Value rowTiles = e.index(b, llvm::divideCeil(extents.headDim, rowsPerBlock));

  auto kernel = [&](ImplicitLocOpBuilder &b, const KernelContext &k,
                    unsigned pass) {
    const gpu::KernelDim3 &block = k.block;
    Value seq = block.x, head = block.y, lane = k.thread.x, warp = k.thread.y;
    e.ifThen(b, e.inPass(b, order, seq, pass), [&](ImplicitLocOpBuilder &b) {
      SequenceInfo s = e.sequence(b, seq);
      Value group = e.groupOf(b, head);
      Value a = e.loadF32(b, e.A, {head});
      Value zeroF = e.f32Const(b, 0.0);
      Value trueV = arith::ConstantOp::create(b, b.getBoolAttr(true));
      Value firstRow = arith::AddIOp::create(
          b, arith::MulIOp::create(b, block.z, e.index(b, rowsPerBlock)),
          arith::MulIOp::create(b, warp, e.index(b, rowsPerWarp)));

      SmallVector<Value> rows, rowValid, columns, columnValid;
      for (int64_t r = 0; r < rowsPerWarp; ++r) {
        rows.push_back(arith::AddIOp::create(b, firstRow, e.index(b, r)));
        rowValid.push_back(rowsNeedGuard
                               ? arith::CmpIOp::create(
                                     b, arith::CmpIPredicate::ult, rows.back(),
                                     e.index(b, extents.headDim))
                               : trueV);
      }
      for (int64_t j = 0; j < columnsPerLane; ++j) {
        columns.push_back(arith::AddIOp::create(b, lane, e.index(b, 32 * j)));
        columnValid.push_back(columnsNeedGuard
                                  ? arith::CmpIOp::create(
                                        b, arith::CmpIPredicate::ult,
                                        columns.back(), e.index(b, extents.dstate))
                                  : trueV);
      }
      // A load that yields 0 where `valid` is false, never touching memory
      // out of bounds.
      auto guardedLoad = [&](ImplicitLocOpBuilder &b, Value valid, Value memref,
                             ValueRange indices) {
        if (valid == trueV)
          return e.loadF32(b, memref, indices);
        return e.ifElse(
            b, valid, e.f32,
            [&](ImplicitLocOpBuilder &b) { return e.loadF32(b, memref, indices); },
            [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); });
      };

      SmallVector<Value> initial;
      for (int64_t r = 0; r < rowsPerWarp; ++r)
        for (int64_t j = 0; j < columnsPerLane; ++j) {
          Value valid = arith::AndIOp::create(
              b, s.readsInitial,
              arith::AndIOp::create(b, rowValid[r], columnValid[j]));
          initial.push_back(e.ifElse(
              b, valid, e.f32,
              [&](ImplicitLocOpBuilder &b) {
                return e.loadF32(b, e.pool, {s.slot, head, rows[r], columns[j]});
              },
              [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); }));
        }

      Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
      auto tokenLoop = scf::ForOp::create(
          b, s.begin, s.end, e.index(b, 1), initial,
          [&](OpBuilder &nested, Location loc, Value t, ValueRange state) {
            ImplicitLocOpBuilder b(loc, nested);
            Value d = e.processedDt(b, t, head);
            Value decay = e.exp(b, arith::MulFOp::create(b, d, a));
            SmallVector<Value> bRow, cRow;
            for (int64_t j = 0; j < columnsPerLane; ++j) {
              bRow.push_back(guardedLoad(b, columnValid[j], e.B,
                                         {t, group, columns[j]}));
              cRow.push_back(guardedLoad(b, columnValid[j], e.C,
                                         {t, group, columns[j]}));
            }
            SmallVector<Value> next;
            for (int64_t r = 0; r < rowsPerWarp; ++r) {
              Value xv = guardedLoad(b, rowValid[r], e.x, {t, head, rows[r]});
              Value dx = arith::MulFOp::create(b, d, xv);
              Value partial = zeroF;
              for (int64_t j = 0; j < columnsPerLane; ++j) {
                Value updated = arith::AddFOp::create(
                    b, arith::MulFOp::create(b, decay, state[r * columnsPerLane + j]),
                    arith::MulFOp::create(b, dx, bRow[j]));
                next.push_back(updated);
                partial = arith::AddFOp::create(
                    b, partial, arith::MulFOp::create(b, updated, cRow[j]));
              }
              Value total = warpSum(b, partial);
              if (dSkip)
                total = arith::AddFOp::create(b, total,
                                              arith::MulFOp::create(b, dSkip, xv));
              Value leader = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                                   lane, e.index(b, 0));
              e.ifThen(b, arith::AndIOp::create(b, leader, rowValid[r]),
                       [&](ImplicitLocOpBuilder &b) {
                         e.storeRounded(b, total, e.y, {t, head, rows[r]});
                       });
            }
            scf::YieldOp::create(b, next);
          });

      e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
        for (int64_t r = 0; r < rowsPerWarp; ++r)
          for (int64_t j = 0; j < columnsPerLane; ++j) {
            Value value = tokenLoop.getResult(r * columnsPerLane + j);
            auto store = [&](ImplicitLocOpBuilder &b) {
              e.storeRounded(b, value, e.pool,
                             {s.slot, head, rows[r], columns[j]});
            };
            if (rowValid[r] == trueV && columnValid[j] == trueV)
              store(b);
            else
              e.ifThen(b, arith::AndIOp::create(b, rowValid[r], columnValid[j]),
                       store);
          }
      });
    });
  };

  for (unsigned pass : {0u, 1u})
    launchKernel(b, e, {e.batch, e.index(b, extents.heads), rowTiles},
                 {32, warps, 1},
                 [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
                   kernel(b, k, pass);
                 });
  freeWriterOrderOnDevice(b, order);
  rewriter.eraseOp(op);
}
