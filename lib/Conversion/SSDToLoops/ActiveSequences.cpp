//===- ActiveSequences.cpp - work lists and scratch buffers of the loops --===//
//
// What both CPU forms use to keep their cost proportional to the launch's
// actual work (tokens and written slots), whatever extents it declares.
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "ssd/IR/SSDLimits.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

ActiveSequences mlir::ssd::detail::buildActiveSequences(
    ImplicitLocOpBuilder &b, const ScanEmitter &e, const WriterOrder &order) {
  ActiveSequences active;
  Value zero = e.index(b, 0), one = e.index(b, 1);
  active.list = memref::AllocOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getIndexType()),
      ValueRange{e.batch});
  Value last = arith::SubIOp::create(b, e.batch, one);
  auto loop = scf::ForOp::create(
      b, zero, e.batch, one, ValueRange{zero, zero},
      [&](OpBuilder &nested, Location loc, Value seq, ValueRange counts) {
        ImplicitLocOpBuilder b(loc, nested);
        SequenceInfo s = e.sequence(b, seq);
        Value hasTokens =
            arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, s.end, s.begin);
        Value works = arith::OrIOp::create(b, hasTokens, s.writesState);
        Value second = e.inPass(b, order, seq, 1);
        Value first = e.inPass(b, order, seq, 0);
        SmallVector<Value, 2> next;
        for (unsigned pass : {0u, 1u}) {
          Value in = arith::AndIOp::create(b, works, pass ? second : first);
          Value count = counts[pass];
          e.ifThen(b, in, [&](ImplicitLocOpBuilder &b) {
            Value slot = pass
                             ? arith::SubIOp::create(b, last, count).getResult()
                             : count;
            memref::StoreOp::create(b, seq, active.list, slot);
          });
          next.push_back(arith::SelectOp::create(
              b, in, arith::AddIOp::create(b, count, one), count));
        }
        scf::YieldOp::create(b, next);
      });
  active.count[0] = loop.getResult(0);
  active.count[1] = loop.getResult(1);
  return active;
}

Value mlir::ssd::detail::activeSequence(ImplicitLocOpBuilder &b,
                                        const ScanEmitter &e,
                                        const ActiveSequences &active,
                                        unsigned pass, Value i) {
  Value slot = i;
  if (pass == 1)
    slot = arith::SubIOp::create(
        b, arith::SubIOp::create(b, e.batch, e.index(b, 1)), i);
  return memref::LoadOp::create(b, active.list, slot);
}

void mlir::ssd::detail::freeActiveSequences(ImplicitLocOpBuilder &b,
                                            const ActiveSequences &active) {
  memref::DeallocOp::create(b, active.list);
}

Value mlir::ssd::detail::priorTokens(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e, Value seq) {
  Value offsets = ChunkScanVarlenOp(e.op).getCheckpointOffsets();
  if (!offsets)
    return e.index(b, 0);
  // Offsets are >= 0 (the op's contract); zero-extended as the checkpoint
  // arithmetic reads them.
  return arith::IndexCastUIOp::create(b, b.getIndexType(),
                                      memref::LoadOp::create(b, offsets, seq));
}

Value mlir::ssd::detail::tokensHeld(ImplicitLocOpBuilder &b, Value prior,
                                    Value begin, Value end) {
  return arith::AddIOp::create(b, prior, arith::SubIOp::create(b, end, begin));
}

Scratch mlir::ssd::detail::allocateScratch(ImplicitLocOpBuilder &b,
                                           ArrayRef<int64_t> shape,
                                           ValueRange dynamicSizes) {
  auto type = MemRefType::get(shape, b.getF32Type());
  Scratch scratch;
  scratch.heap = !type.hasStaticShape() ||
                 type.getNumElements() * 4 > limits::kMaxStackTileBytes;
  // Rows are read and written as whole vectors: a tile that starts off a
  // cache line splits every 64-byte access in two (on Zen 4, the bf16
  // prefill's stack tiles ran 1.3x slower so).
  IntegerAttr alignment = b.getI64IntegerAttr(kScratchAlignment);
  if (scratch.heap)
    scratch.buffer = memref::AllocOp::create(b, type, dynamicSizes, alignment);
  else
    scratch.buffer = memref::AllocaOp::create(b, type, ValueRange{}, alignment);
  return scratch;
}

void mlir::ssd::detail::freeScratch(ImplicitLocOpBuilder &b,
                                    const Scratch &scratch) {
  if (scratch.heap)
    memref::DeallocOp::create(b, scratch.buffer);
}

int64_t mlir::ssd::detail::staticTileRows(ChunkScanVarlenOp op, int64_t pTile,
                                          int64_t staticDState) {
  const int64_t maxTileElements = limits::kMaxStateTileBytes / 4;
  pTile = std::clamp<int64_t>(pTile, 1, limits::kMaxSerialPTile);
  int64_t staticHeadDim = cast<ShapedType>(op.getX().getType()).getDimSize(2);
  if (!ShapedType::isDynamic(staticHeadDim) && staticHeadDim >= 1)
    pTile = std::min(pTile, staticHeadDim);
  if (!ShapedType::isDynamic(staticDState))
    pTile = std::clamp<int64_t>(
        maxTileElements / std::max<int64_t>(staticDState, 1), 1, pTile);
  return pTile;
}

Value mlir::ssd::detail::emitTileRows(ImplicitLocOpBuilder &b,
                                      const ScanEmitter &e,
                                      int64_t staticDState, int64_t pTile) {
  if (!ShapedType::isDynamic(staticDState))
    return e.index(b, pTile);
  Value rowsForN = arith::DivUIOp::create(
      b, e.index(b, limits::kMaxStateTileBytes / 4),
      arith::MaxUIOp::create(b, e.dstate, e.index(b, 1)));
  return arith::MaxUIOp::create(
      b, e.index(b, 1), arith::MinUIOp::create(b, rowsForN, e.index(b, pTile)));
}

void mlir::ssd::detail::forEachSerialTask(
    ImplicitLocOpBuilder &b, const ScanEmitter &e, Value tileRows,
    function_ref<void(ImplicitLocOpBuilder &, Value, Value, Value)> emitTask) {
  WriterOrder order = e.planWriterOrder(b);
  ActiveSequences active = buildActiveSequences(b, e, order);
  Value numTiles = arith::CeilDivUIOp::create(b, e.headDim, tileRows);
  for (unsigned pass : {0u, 1u})
    e.parallel(b, {e.heads, numTiles, active.count[pass]},
               [&](ImplicitLocOpBuilder &b, ValueRange ivs) {
                 emitTask(b, activeSequence(b, e, active, pass, ivs[2]), ivs[0],
                          ivs[1]);
               });
  freeActiveSequences(b, active);
  e.freeWriterOrder(b, order);
}
