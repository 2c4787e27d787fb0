//===- Checkpoints.cpp - where a scan writes its state checkpoints --------===//

#include "ScanEmitter/Checkpoints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

static Value indexConst(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}

CheckpointOperands::CheckpointOperands(ImplicitLocOpBuilder &b,
                                       ChunkScanVarlenOp op) {
  slots = op.getCheckpointSlots();
  if (!slots)
    return;
  interval = static_cast<int64_t>(op.getCheckpointInterval().value_or(1));
  offsets = op.getCheckpointOffsets();
  // ui32 and i32 entries share their bits (-1 is 0xFFFFFFFF): arith works
  // on signless integers, so view unsigned ones as signless once, here.
  auto type = cast<MemRefType>(slots.getType());
  if (type.getElementType().isUnsignedInteger())
    slots =
        UnrealizedConversionCastOp::create(b, type.clone(b.getI32Type()), slots)
            .getResult(0);
  columns = memref::DimOp::create(b, slots, 1);
}

Value CheckpointOperands::phase(ImplicitLocOpBuilder &b, Value seq) const {
  if (!offsets || interval == 1)
    return indexConst(b, 0);
  // Offsets are >= 0 (the op's contract): zero-extend like slots.
  Value o = arith::IndexCastUIOp::create(
      b, b.getIndexType(), memref::LoadOp::create(b, offsets, seq));
  return arith::RemUIOp::create(b, o, indexConst(b, interval));
}

Value CheckpointOperands::writes(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                                 Value seq) const {
  return isWritten(b, e.rawSlot(b, seq));
}

Value CheckpointOperands::boundariesWithin(ImplicitLocOpBuilder &b, Value phase,
                                           Value localTokens) const {
  Value reach = arith::AddIOp::create(b, phase, localTokens);
  if (interval == 1)
    return reach;
  return arith::DivUIOp::create(b, reach, indexConst(b, interval));
}

Value CheckpointOperands::boundaryEnd(ImplicitLocOpBuilder &b, Value from,
                                      Value phase, Value k) const {
  Value next = arith::AddIOp::create(b, k, indexConst(b, 1));
  Value held =
      interval == 1
          ? next
          : arith::MulIOp::create(b, next, indexConst(b, interval)).getResult();
  if (from)
    held = arith::AddIOp::create(b, from, held);
  return arith::SubIOp::create(b, held, phase);
}

std::pair<Value, Value>
CheckpointOperands::boundaryAfter(ImplicitLocOpBuilder &b, Value phase,
                                  Value j) const {
  Value u = arith::AddIOp::create(b, arith::AddIOp::create(b, phase, j),
                                  indexConst(b, 1));
  Value boundaries =
      interval == 1
          ? u
          : arith::DivUIOp::create(b, u, indexConst(b, interval)).getResult();
  Value k = arith::SubIOp::create(b, boundaries, indexConst(b, 1));
  Value ends = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, u, indexConst(b, interval)), indexConst(b, 0));
  return {ends, k};
}

Value CheckpointOperands::slotEntry(ImplicitLocOpBuilder &b, Value seq,
                                    Value k) const {
  return memref::LoadOp::create(b, slots, ValueRange{seq, k});
}

Value CheckpointOperands::isWritten(ImplicitLocOpBuilder &b,
                                    Value entry) const {
  return arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne, entry,
      arith::ConstantOp::create(b, b.getI32IntegerAttr(-1)));
}

CheckpointEmitter::CheckpointEmitter(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e)
    : CheckpointOperands(b, e.op), e(e) {}

CheckpointRange CheckpointEmitter::range(ImplicitLocOpBuilder &b, Value seq,
                                         const SequenceInfo &s) const {
  CheckpointRange r;
  r.begin = s.begin;
  r.phase = phase(b, seq);
  // Padding sequences write no checkpoints.
  Value written = writes(b, e, seq);
  r.limit = arith::SelectOp::create(b, written, columns, e.index(b, 0));
  return r;
}

Value CheckpointEmitter::boundariesWithin(ImplicitLocOpBuilder &b,
                                          const CheckpointRange &r,
                                          Value localTokens) const {
  return CheckpointOperands::boundariesWithin(b, r.phase, localTokens);
}

Value CheckpointEmitter::writtenWithin(ImplicitLocOpBuilder &b,
                                       const CheckpointRange &r,
                                       Value localTokens) const {
  return arith::MinUIOp::create(b, boundariesWithin(b, r, localTokens),
                                r.limit);
}

Value CheckpointEmitter::boundaryEnd(ImplicitLocOpBuilder &b,
                                     const CheckpointRange &r, Value k) const {
  return CheckpointOperands::boundaryEnd(b, r.begin, r.phase, k);
}

void CheckpointEmitter::ifSlot(
    ImplicitLocOpBuilder &b, Value seq, Value k,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) const {
  Value raw = slotEntry(b, seq, k);
  e.ifThen(b, isWritten(b, raw), [&](ImplicitLocOpBuilder &b) {
    // Zero-extended: slots at or above 2^31 stay positive.
    body(b, arith::IndexCastUIOp::create(b, b.getIndexType(), raw));
  });
}
