//===- Checkpoints.cpp - where a scan writes its state checkpoints --------===//

#include "ScanEmitter/Checkpoints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

CheckpointEmitter::CheckpointEmitter(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e)
    : e(e) {
  ChunkScanVarlenOp op = e.op;
  slots = op.getCheckpointSlots();
  if (!slots)
    return;
  // As for cache_indices: ui32 and i32 share their bits, arith wants
  // signless.
  auto slotsType = cast<MemRefType>(slots.getType());
  if (slotsType.getElementType().isUnsignedInteger())
    slots = UnrealizedConversionCastOp::create(
                b, slotsType.clone(b.getI32Type()), slots)
                .getResult(0);
  offsets = op.getCheckpointOffsets();
  count = memref::DimOp::create(b, slots, 1);
  interval = static_cast<int64_t>(op.getCheckpointInterval().value_or(1));
}

CheckpointRange CheckpointEmitter::range(ImplicitLocOpBuilder &b, Value seq,
                                         const SequenceInfo &s) const {
  CheckpointRange r;
  r.begin = s.begin;
  r.phase = e.index(b, 0);
  if (offsets && interval > 1) {
    Value o = arith::IndexCastUIOp::create(
        b, b.getIndexType(), memref::LoadOp::create(b, offsets, seq));
    r.phase = arith::RemUIOp::create(b, o, e.index(b, interval));
  }
  // Padding sequences write no checkpoints.
  SmallVector<Value, 2> indices;
  if (cast<MemRefType>(e.cacheIndices.getType()).getRank() == 2)
    indices.push_back(e.index(b, 0));
  indices.push_back(seq);
  Value rawSlot = memref::LoadOp::create(b, e.cacheIndices, indices);
  Value padding = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq, rawSlot,
      arith::ConstantOp::create(b, b.getI32IntegerAttr(-1)));
  r.limit = arith::SelectOp::create(b, padding, e.index(b, 0), count);
  return r;
}

Value CheckpointEmitter::boundariesWithin(ImplicitLocOpBuilder &b,
                                          const CheckpointRange &r,
                                          Value localTokens) const {
  Value reach = arith::AddIOp::create(b, r.phase, localTokens);
  if (interval == 1)
    return reach;
  return arith::DivUIOp::create(b, reach, e.index(b, interval));
}

Value CheckpointEmitter::writtenWithin(ImplicitLocOpBuilder &b,
                                       const CheckpointRange &r,
                                       Value localTokens) const {
  return arith::MinUIOp::create(b, boundariesWithin(b, r, localTokens),
                                r.limit);
}

Value CheckpointEmitter::boundaryEnd(ImplicitLocOpBuilder &b,
                                     const CheckpointRange &r, Value k) const {
  Value next = arith::AddIOp::create(b, k, e.index(b, 1));
  Value held =
      interval == 1
          ? next
          : arith::MulIOp::create(b, next, e.index(b, interval)).getResult();
  return arith::SubIOp::create(b, arith::AddIOp::create(b, r.begin, held),
                               r.phase);
}

void CheckpointEmitter::ifSlot(
    ImplicitLocOpBuilder &b, Value seq, Value k,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) const {
  Value raw = memref::LoadOp::create(b, slots, ValueRange{seq, k});
  Value used = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne, raw,
      arith::ConstantOp::create(b, b.getI32IntegerAttr(-1)));
  e.ifThen(b, used, [&](ImplicitLocOpBuilder &b) {
    // Zero-extended: slots at or above 2^31 stay positive.
    body(b, arith::IndexCastUIOp::create(b, b.getIndexType(), raw));
  });
}
