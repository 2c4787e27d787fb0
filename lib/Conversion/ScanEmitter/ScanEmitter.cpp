//===- ScanEmitter.cpp - shared pieces of the scan loop builders ----------===//

#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

ScanEmitter::ScanEmitter(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                         MathFlavor flavor)
    : op(op), x(op.getX()), dt(op.getDt()), A(op.getA()), B(op.getB()),
      C(op.getC()), D(op.getD()), dtBias(op.getDtBias()), pool(op.getSsmPool()),
      queryStartLoc(op.getQueryStartLoc()),
      hasInitialState(op.getHasInitialState()),
      cacheIndices(op.getCacheIndices()), updateState(op.getUpdateState()),
      y(op.getYOut()), f32(b.getF32Type()), flavor(flavor) {
  // ui32 and i32 indices share their bits; arith works on signless integers,
  // so view an unsigned index buffer as signless once, here.
  auto indexType = cast<MemRefType>(cacheIndices.getType());
  if (indexType.getElementType().isUnsignedInteger()) {
    auto signless = indexType.clone(b.getI32Type());
    cacheIndices = UnrealizedConversionCastOp::create(b, signless, cacheIndices)
                       .getResult(0);
  }
  tokens = memref::DimOp::create(b, x, 0);
  heads = memref::DimOp::create(b, x, 1);
  headDim = memref::DimOp::create(b, x, 2);
  groups = memref::DimOp::create(b, B, 1);
  dstate = memref::DimOp::create(b, B, 2);
  Value offsets = memref::DimOp::create(b, queryStartLoc, 0);
  batch = arith::SubIOp::create(b, offsets, index(b, 1));
  headsPerGroup = arith::DivUIOp::create(b, heads, groups);
}

Value ScanEmitter::index(ImplicitLocOpBuilder &b, int64_t v) const {
  return arith::ConstantIndexOp::create(b, v);
}

Value ScanEmitter::f32Const(ImplicitLocOpBuilder &b, double v) const {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}

Value ScanEmitter::loadF32(ImplicitLocOpBuilder &b, Value memref,
                           ValueRange indices) const {
  Value v = memref::LoadOp::create(b, memref, indices);
  if (v.getType() == f32)
    return v;
  return arith::ExtFOp::create(b, f32, v);
}

void ScanEmitter::storeRounded(ImplicitLocOpBuilder &b, Value value,
                               Value memref, ValueRange indices) const {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  if (elementType != f32)
    value = arith::TruncFOp::create(b, elementType, value);
  memref::StoreOp::create(b, value, memref, indices);
}

Value ScanEmitter::groupOf(ImplicitLocOpBuilder &b, Value head) const {
  return arith::DivUIOp::create(b, head, headsPerGroup);
}

Value ScanEmitter::processedDt(ImplicitLocOpBuilder &b, Value token,
                               Value head) const {
  Value d = loadF32(b, dt, {token, head});
  if (!dtBias)
    return d;
  // softplus(v) = v for v > 20, else log1p(exp(v)); exp of a large v may
  // overflow to inf in the untaken lane, which select discards.
  Value v = arith::AddFOp::create(b, d, loadF32(b, dtBias, {head}));
  Value soft = log1p(b, exp(b, v));
  Value large =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, v, f32Const(b, 20.0));
  return arith::SelectOp::create(b, large, v, soft);
}

Value ScanEmitter::decay(ImplicitLocOpBuilder &b, Value delta) const {
  Value clamped = arith::MinimumFOp::create(b, delta, f32Const(b, 0.0));
  return exp(b, clamped);
}

Value ScanEmitter::exp(ImplicitLocOpBuilder &b, Value v) const {
  if (flavor == MathFlavor::Exact)
    return math::ExpOp::create(b, v);
  // exp(v) = 2^(v log2(e)).
  Value scaled = arith::MulFOp::create(b, v, f32Const(b, 1.4426950408889634));
  return LLVM::CallIntrinsicOp::create(
             b, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
             ValueRange{scaled})
      .getResult(0);
}

Value ScanEmitter::log1p(ImplicitLocOpBuilder &b, Value v) const {
  if (flavor == MathFlavor::Exact)
    return math::Log1pOp::create(b, v);
  // log1p(v) = log(u) * v / (u - 1) with u = 1 + v rounded: the ratio
  // cancels the rounding of u; u == 1 means log1p(v) = v to working
  // precision. lg2.approx has an absolute error near 2^-22, which near u = 1
  // is a large relative error, so below v = 1/16 the Taylor series (error
  // under v^6 / 6 < 2^-26) takes over.
  Value one = f32Const(b, 1.0);
  Value u = arith::AddFOp::create(b, one, v);
  Value log2u =
      LLVM::CallIntrinsicOp::create(
          b, f32, b.getStringAttr("llvm.nvvm.lg2.approx.f"), ValueRange{u})
          .getResult(0);
  Value logU = arith::MulFOp::create(b, log2u, f32Const(b, 0.6931471805599453));
  Value ratio = arith::DivFOp::create(b, v, arith::SubFOp::create(b, u, one));
  Value exactlyOne =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, u, one);
  Value viaLog = arith::SelectOp::create(b, exactlyOne, v,
                                         arith::MulFOp::create(b, logU, ratio));
  // v - v^2/2 + v^3/3 - v^4/4 + v^5/5, in Horner form.
  Value series = f32Const(b, 1.0 / 5.0);
  for (double c : {-1.0 / 4.0, 1.0 / 3.0, -1.0 / 2.0, 1.0})
    series = arith::AddFOp::create(b, f32Const(b, c),
                                   arith::MulFOp::create(b, v, series));
  series = arith::MulFOp::create(b, v, series);
  // |v| < 1/16 without math.absf, which convert-gpu-to-nvvm would turn into
  // a libdevice call.
  Value small =
      arith::AndIOp::create(b,
                            arith::CmpFOp::create(b, arith::CmpFPredicate::OLT,
                                                  v, f32Const(b, 1.0 / 16.0)),
                            arith::CmpFOp::create(b, arith::CmpFPredicate::OGT,
                                                  v, f32Const(b, -1.0 / 16.0)));
  return arith::SelectOp::create(b, small, series, viaLog);
}

Value ScanEmitter::rawSlot(ImplicitLocOpBuilder &b, Value seq) const {
  SmallVector<Value, 2> indices;
  if (cast<MemRefType>(cacheIndices.getType()).getRank() == 2)
    indices.push_back(index(b, 0));
  indices.push_back(seq);
  return memref::LoadOp::create(b, cacheIndices, indices);
}

SequenceInfo ScanEmitter::sequence(ImplicitLocOpBuilder &b, Value seq) const {
  SequenceInfo info;
  auto offset = [&](Value i) {
    Value v = memref::LoadOp::create(b, queryStartLoc, i);
    return arith::IndexCastOp::create(b, b.getIndexType(), v).getResult();
  };
  info.begin = offset(seq);
  info.end = offset(arith::AddIOp::create(b, seq, index(b, 1)));

  Value raw = rawSlot(b, seq);
  // Slots are unsigned: zero-extend, so that indices >= 2^31 stay positive.
  info.slot = arith::IndexCastUIOp::create(b, b.getIndexType(), raw);
  Value padding = arith::ConstantOp::create(b, b.getI32IntegerAttr(-1));
  Value isPadding =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, raw, padding);
  Value notPadding = arith::XOrIOp::create(
      b, isPadding, arith::ConstantOp::create(b, b.getBoolAttr(true)));

  // Absent has_initial_state: every sequence starts from zero.
  info.readsInitial = arith::ConstantOp::create(b, b.getBoolAttr(false));
  if (hasInitialState)
    info.readsInitial = arith::AndIOp::create(
        b, notPadding, memref::LoadOp::create(b, hasInitialState, seq));
  // Absent update_state: every (non-padding) sequence writes its state.
  info.writesState = notPadding;
  if (updateState)
    info.writesState = arith::AndIOp::create(
        b, notPadding, memref::LoadOp::create(b, updateState, seq));
  return info;
}

void ScanEmitter::parallel(ImplicitLocOpBuilder &b, ValueRange upperBounds,
                           BodyFn body) const {
  SmallVector<Value> zeros(upperBounds.size(), index(b, 0));
  SmallVector<Value> ones(upperBounds.size(), index(b, 1));
  scf::ParallelOp::create(b, zeros, upperBounds, ones,
                          [&](OpBuilder &nested, Location loc, ValueRange ivs) {
                            ImplicitLocOpBuilder inner(loc, nested);
                            body(inner, ivs);
                          });
}

void ScanEmitter::loop(ImplicitLocOpBuilder &b, Value lower, Value upper,
                       IndexBodyFn body) const {
  scf::ForOp::create(
      b, lower, upper, index(b, 1), ValueRange{},
      [&](OpBuilder &nested, Location loc, Value iv, ValueRange) {
        ImplicitLocOpBuilder inner(loc, nested);
        body(inner, iv);
        scf::YieldOp::create(inner);
      });
}

Value ScanEmitter::reduce(ImplicitLocOpBuilder &b, Value lower, Value upper,
                          Value init, ReduceBodyFn body) const {
  auto forOp = scf::ForOp::create(
      b, lower, upper, index(b, 1), ValueRange{init},
      [&](OpBuilder &nested, Location loc, Value iv, ValueRange args) {
        ImplicitLocOpBuilder inner(loc, nested);
        scf::YieldOp::create(inner, body(inner, iv, args.front()));
      });
  return forOp.getResult(0);
}

void ScanEmitter::ifThen(
    ImplicitLocOpBuilder &b, Value cond,
    function_ref<void(ImplicitLocOpBuilder &)> body) const {
  auto ifOp = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/false);
  ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
  inner.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(inner);
}

Value ScanEmitter::ifElse(
    ImplicitLocOpBuilder &b, Value cond, Type type,
    function_ref<Value(ImplicitLocOpBuilder &)> thenValue,
    function_ref<Value(ImplicitLocOpBuilder &)> elseValue) const {
  auto ifOp =
      scf::IfOp::create(b, TypeRange{type}, cond, /*withElseRegion=*/true);
  ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
  inner.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(inner, thenValue(inner));
  inner.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(inner, elseValue(inner));
  return ifOp.getResult(0);
}

SmallVector<Value> ScanEmitter::ifElseValues(
    ImplicitLocOpBuilder &b, Value cond, TypeRange types,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> thenValues,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> elseValues) const {
  auto ifOp = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
  for (auto [block, values] : {std::pair(ifOp.thenBlock(), thenValues),
                               std::pair(ifOp.elseBlock(), elseValues)}) {
    // Without results the builder has already terminated the blocks.
    if (!block->empty())
      block->getTerminator()->erase();
    inner.setInsertionPointToStart(block);
    scf::YieldOp::create(inner, values(inner));
  }
  return SmallVector<Value>(ifOp.getResults());
}

WriterOrder ScanEmitter::planWriterOrder(ImplicitLocOpBuilder &b) const {
  WriterOrder order;
  Type i32 = b.getI32Type();
  Value zero = index(b, 0);
  Value slots = memref::DimOp::create(b, pool, 0);
  auto dynamic1d = [&](Type t) {
    return MemRefType::get({ShapedType::kDynamic}, t);
  };
  order.readers = memref::AllocOp::create(b, dynamic1d(i32), ValueRange{slots});
  Value i32Zero = arith::ConstantOp::create(b, b.getI32IntegerAttr(0));
  Value i32One = arith::ConstantOp::create(b, b.getI32IntegerAttr(1));
  loop(b, zero, slots, [&](ImplicitLocOpBuilder &b, Value slot) {
    memref::StoreOp::create(b, i32Zero, order.readers, slot);
  });
  loop(b, zero, batch, [&](ImplicitLocOpBuilder &b, Value seq) {
    SequenceInfo s = sequence(b, seq);
    ifThen(b, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
      Value n = memref::LoadOp::create(b, order.readers, s.slot);
      memref::StoreOp::create(b, arith::AddIOp::create(b, n, i32One),
                              order.readers, s.slot);
    });
  });

  order.secondPass =
      memref::AllocOp::create(b, dynamic1d(b.getI1Type()), ValueRange{batch});
  loop(b, zero, batch, [&](ImplicitLocOpBuilder &b, Value seq) {
    SequenceInfo s = sequence(b, seq);
    // Only a writer's slot is a valid index here (padding slots are not).
    Value readByOthers = ifElse(
        b, s.writesState, b.getI1Type(),
        [&](ImplicitLocOpBuilder &b) -> Value {
          Value readers = memref::LoadOp::create(b, order.readers, s.slot);
          Value self = arith::ExtUIOp::create(b, i32, s.readsInitial);
          Value others = arith::SubIOp::create(b, readers, self);
          return arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, others,
                                       i32Zero);
        },
        [&](ImplicitLocOpBuilder &b) -> Value {
          return arith::ConstantOp::create(b, b.getBoolAttr(false));
        });
    memref::StoreOp::create(b, readByOthers, order.secondPass, seq);
  });
  return order;
}

Value ScanEmitter::inPass(ImplicitLocOpBuilder &b, const WriterOrder &order,
                          Value seq, unsigned pass) const {
  Value second = memref::LoadOp::create(b, order.secondPass, seq);
  if (pass == 1)
    return second;
  return arith::XOrIOp::create(
      b, second, arith::ConstantOp::create(b, b.getBoolAttr(true)));
}

void ScanEmitter::freeWriterOrder(ImplicitLocOpBuilder &b,
                                  const WriterOrder &order) const {
  memref::DeallocOp::create(b, order.readers);
  memref::DeallocOp::create(b, order.secondPass);
}

Value ScanEmitter::maxChunkCount(ImplicitLocOpBuilder &b,
                                 int64_t chunkSize) const {
  Value chunks = arith::CeilDivUIOp::create(b, tokens, index(b, chunkSize));
  return arith::AddIOp::create(b, chunks, batch);
}

Value ScanEmitter::fillChunkWorkList(ImplicitLocOpBuilder &b,
                                     const ChunkWorkList &list,
                                     int64_t chunkSize) const {
  Value zero = index(b, 0), L = index(b, chunkSize);
  auto store = [&](ImplicitLocOpBuilder &b, Value v, Value memref, Value i) {
    memref::StoreOp::create(b, v, memref, i);
  };
  Value count = reduce(
      b, zero, batch, zero,
      [&](ImplicitLocOpBuilder &b, Value seq, Value next) -> Value {
        store(b, next, list.begin, seq);
        SequenceInfo s = sequence(b, seq);
        Value len = arith::SubIOp::create(
            b, arith::MaxSIOp::create(b, s.end, s.begin), s.begin);
        Value chunks = arith::MinUIOp::create(
            b, arith::CeilDivUIOp::create(b, len, L),
            arith::SubIOp::create(b, list.maxChunks, next));
        loop(b, zero, chunks, [&](ImplicitLocOpBuilder &b, Value c) {
          Value k = arith::AddIOp::create(b, next, c);
          Value first =
              arith::AddIOp::create(b, s.begin, arith::MulIOp::create(b, c, L));
          store(b, seq, list.seq, k);
          store(b, first, list.first, k);
          store(b,
                arith::MinUIOp::create(b, L,
                                       arith::SubIOp::create(b, s.end, first)),
                list.len, k);
        });
        return arith::AddIOp::create(b, next, chunks);
      });
  store(b, count, list.begin, batch);
  return count;
}

ChunkInfo ScanEmitter::chunkAt(ImplicitLocOpBuilder &b,
                               const ChunkWorkList &list, Value k) const {
  ChunkInfo c;
  c.seq = memref::LoadOp::create(b, list.seq, k);
  c.first = memref::LoadOp::create(b, list.first, k);
  c.len = memref::LoadOp::create(b, list.len, k);
  c.last = arith::SubIOp::create(b, arith::AddIOp::create(b, c.first, c.len),
                                 index(b, 1));
  return c;
}
