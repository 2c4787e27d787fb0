//===- KernelUtils.cpp - launches, shared memory, block collectives -------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

FailureOr<StaticExtents>
mlir::ssd::detail::getStaticExtents(ChunkScanVarlenOp op) {
  auto x = cast<MemRefType>(op.getX().getType());
  auto bType = cast<MemRefType>(op.getB().getType());
  StaticExtents s{x.getDimSize(1), x.getDimSize(2), bType.getDimSize(1),
                  bType.getDimSize(2)};
  if (ShapedType::isDynamic(s.heads) || ShapedType::isDynamic(s.headDim) ||
      ShapedType::isDynamic(s.groups) || ShapedType::isDynamic(s.dstate))
    return failure();
  return s;
}

int64_t mlir::ssd::detail::sharedMemoryPerBlock(int64_t sharedBytes) {
  int64_t bytes = llvm::alignTo(sharedBytes, kViewAlignment);
  // The base of dynamic shared memory is a 1-byte static shared variable
  // (a zero-length internal global, 16-byte aligned); count its alignment.
  if (bytes > kMaxStaticSharedMemoryBytes)
    bytes += kViewAlignment;
  return bytes;
}

void mlir::ssd::detail::launchKernel(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e,
                                     std::array<Value, 3> grid,
                                     std::array<int64_t, 3> block,
                                     KernelBodyFn body, int64_t sharedBytes,
                                     StringRef kernelName) {
  // An empty grid is an invalid launch in CUDA, and a host-side branch around
  // each launch would cut the chain of asynchronous launches into one
  // synchronisation per kernel. So launch at least one block per dimension
  // and let blocks beyond the real grid return at once.
  Value one = e.index(b, 1);
  std::array<Value, 3> launched;
  for (int i = 0; i < 3; ++i)
    launched[i] = arith::MaxUIOp::create(b, grid[i], one);

  // ptxas rejects more than 48 KiB of static shared memory, and the opt-in
  // to more (cuFuncSetAttribute, done by the runtime) covers only dynamic
  // shared memory. So larger arenas come from dynamic shared memory.
  sharedBytes = llvm::alignTo(sharedBytes, kViewAlignment);
  bool dynamicShared = sharedBytes > kMaxStaticSharedMemoryBytes;
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Type> attributions;
  if (sharedBytes > 0 && !dynamicShared)
    attributions.push_back(MemRefType::get(
        {sharedBytes}, b.getI8Type(), MemRefLayoutAttrInterface(), workgroup));
  Value dynamicSharedSize;
  if (dynamicShared)
    dynamicSharedSize =
        arith::ConstantOp::create(b, b.getI32IntegerAttr(sharedBytes));

  auto launch = gpu::LaunchOp::create(
      b, launched[0], launched[1], launched[2], e.index(b, block[0]),
      e.index(b, block[1]), e.index(b, block[2]), dynamicSharedSize,
      /*asyncTokenType=*/Type(), /*asyncDependencies=*/ValueRange{},
      /*workgroupAttributions=*/TypeRange(attributions));
  if (!kernelName.empty())
    launch.setFunctionAttr(FlatSymbolRefAttr::get(b.getContext(), kernelName));
  ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
  inner.setInsertionPointToStart(&launch.getBody().front());
  KernelContext context{launch.getBlockIds(), launch.getThreadIds(), Value(),
                        block[0] * block[1] * block[2]};
  if (dynamicShared)
    context.shared = gpu::DynamicSharedMemoryOp::create(
        inner, MemRefType::get({ShapedType::kDynamic}, inner.getI8Type(),
                               MemRefLayoutAttrInterface(), workgroup));
  else if (sharedBytes > 0)
    context.shared = launch.getWorkgroupAttributions().front();
  Value inGrid = ir::boolean(inner, true);
  Value ids[3] = {context.block.x, context.block.y, context.block.z};
  for (int i = 0; i < 3; ++i)
    inGrid = ir::both(inner, inGrid, ir::ult(inner, ids[i], grid[i]));
  e.ifThen(inner, inGrid, [&](ImplicitLocOpBuilder &b) { body(b, context); });
  gpu::TerminatorOp::create(inner);
}

Value mlir::ssd::detail::sharedView(ImplicitLocOpBuilder &b,
                                    const KernelContext &k, int64_t offset,
                                    ArrayRef<int64_t> shape, Type elementType) {
  assert(k.shared && "kernel launched without shared memory");
  assert(offset % kViewAlignment == 0 && "unaligned shared view");
  return sharedView(b, k, ir::idx(b, offset), shape, elementType);
}

Value mlir::ssd::detail::sharedView(ImplicitLocOpBuilder &b,
                                    const KernelContext &k, Value offset,
                                    ArrayRef<int64_t> shape, Type elementType) {
  assert(k.shared && "kernel launched without shared memory");
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                              workgroup);
  Value view = memref::ViewOp::create(b, type, k.shared, offset, ValueRange{});
  if (!k.team)
    return view;
  const int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  assert(k.teamStride % elementBytes == 0 && "team copies apart by elements");
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  auto moved = MemRefType::get(
      shape, elementType,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
      workgroup);
  SmallVector<OpFoldResult> sizes, strideValues;
  for (auto [size, stride] : llvm::zip_equal(shape, strides)) {
    sizes.push_back(b.getIndexAttr(size));
    strideValues.push_back(b.getIndexAttr(stride));
  }
  return memref::ReinterpretCastOp::create(
      b, moved, view,
      OpFoldResult(ir::mul(b, k.team, k.teamStride / elementBytes)), sizes,
      strideValues);
}

Value mlir::ssd::detail::sharedWindowAddress(ImplicitLocOpBuilder &b,
                                             const KernelContext &k) {
  // The pointer of a workgroup memref is a shared-window address (what
  // ptrtoint of an addrspace(3) pointer gives), not a generic one.
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, k.shared);
  return arith::IndexCastUIOp::create(b, b.getI64Type(), pointer);
}

Value mlir::ssd::detail::warpSum(ImplicitLocOpBuilder &b, Value v) {
  for (int32_t offset : {16, 8, 4, 2, 1}) {
    Value other =
        gpu::ShuffleOp::create(b, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = arith::AddFOp::create(b, v, other);
  }
  return v;
}

Value mlir::ssd::detail::warpAny(ImplicitLocOpBuilder &b, Value predicate) {
  Value all = ir::i32(b, -1);
  Value ballot = NVVM::VoteSyncOp::create(b, b.getI32Type(), all, predicate,
                                          NVVM::VoteSyncKind::ballot);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, ballot,
                               ir::i32(b, 0));
}

BlockScanResult mlir::ssd::detail::blockExclusiveScan(
    ImplicitLocOpBuilder &b, Value tid, Value lane, int64_t threads,
    ValueRange values, ValueRange identity, ArrayRef<Value> scratch,
    ScanCombineFn combine) {
  assert(threads % 32 == 0 && values.size() == scratch.size());
  const int64_t warps = threads / 32;
  // Inclusive scan within the warp (Kogge-Stone over shfl.up): lanes below
  // the offset keep their value.
  SmallVector<Value> inclusive(values.begin(), values.end());
  for (int32_t offset = 1; offset < 32; offset *= 2) {
    SmallVector<Value> earlier;
    Value valid;
    for (Value v : inclusive) {
      auto shuffle =
          gpu::ShuffleOp::create(b, v, offset, 32, gpu::ShuffleMode::UP);
      earlier.push_back(shuffle.getShuffleResult());
      valid = shuffle.getValid();
    }
    SmallVector<Value> combined = combine(b, earlier, inclusive);
    for (size_t i = 0; i < inclusive.size(); ++i)
      inclusive[i] = ir::select(b, valid, combined[i], inclusive[i]);
  }
  // Exclusive within the warp: the inclusive value of the lane below.
  SmallVector<Value> exclusive;
  {
    Value first = ir::eq(b, lane, ir::idx(b, 0));
    for (auto [v, id] : llvm::zip_equal(inclusive, identity)) {
      Value below = gpu::ShuffleOp::create(b, v, 1, 32, gpu::ShuffleMode::UP)
                        .getShuffleResult();
      exclusive.push_back(ir::select(b, first, id, below));
    }
  }
  // The last lane publishes the warp total; every thread then combines the
  // totals of the warps before its own, in warp order.
  Value warp = ir::divu(b, tid, 32);
  Value last = ir::eq(b, lane, ir::idx(b, 31));
  gpu::BarrierOp::create(b); // earlier readers of the scratch are done
  scf::IfOp ifLast = scf::IfOp::create(b, TypeRange{}, last, false);
  {
    ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
    t.setInsertionPoint(ifLast.thenBlock()->getTerminator());
    for (auto [v, buffer] : llvm::zip_equal(inclusive, scratch))
      memref::StoreOp::create(t, v, buffer, ValueRange{warp});
  }
  gpu::BarrierOp::create(b);
  SmallVector<Value> before(identity.begin(), identity.end());
  SmallVector<Value> total(identity.begin(), identity.end());
  for (int64_t w = 0; w < warps; ++w) {
    SmallVector<Value> warpTotal;
    for (Value buffer : scratch)
      warpTotal.push_back(
          memref::LoadOp::create(b, buffer, ValueRange{ir::idx(b, w)}));
    Value earlierWarp = ir::ult(b, ir::idx(b, w), warp);
    SmallVector<Value> withWarp = combine(b, before, warpTotal);
    for (size_t i = 0; i < before.size(); ++i)
      before[i] = ir::select(b, earlierWarp, withWarp[i], before[i]);
    total = combine(b, total, warpTotal);
  }
  BlockScanResult result;
  result.exclusive = combine(b, before, exclusive);
  result.total = total;
  return result;
}

//===----------------------------------------------------------------------===//
// Workspace
//===----------------------------------------------------------------------===//

void mlir::ssd::detail::declareRuntimeFunction(Operation *op, StringRef name,
                                               FunctionType type,
                                               bool cInterface) {
  Operation *symbolTableOp = SymbolTable::getNearestSymbolTable(op);
  // The op sits in a function; the function's parent holds the symbols.
  if (symbolTableOp == op->getParentOfType<FunctionOpInterface>())
    symbolTableOp =
        SymbolTable::getNearestSymbolTable(symbolTableOp->getParentOp());
  if (SymbolTable::lookupSymbolIn(symbolTableOp, name))
    return;
  OpBuilder b(op->getContext());
  b.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
  auto func = func::FuncOp::create(b, op->getLoc(), name, type);
  func.setPrivate();
  if (cInterface)
    func->setAttr("llvm.emit_c_interface", UnitAttr::get(op->getContext()));
}

void mlir::ssd::detail::declareWorkspaceFunction(Operation *op) {
  MLIRContext *ctx = op->getContext();
  declareRuntimeFunction(
      op, kWorkspaceFunction,
      FunctionType::get(
          ctx, {IntegerType::get(ctx, 64)},
          {MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8))}),
      /*cInterface=*/true);
}

unsigned WorkspaceBuilder::add(MemRefType type, ValueRange dynamicSizes) {
  entries.push_back({type, SmallVector<Value>(dynamicSizes)});
  return entries.size() - 1;
}

SmallVector<Value> WorkspaceBuilder::allocate(ImplicitLocOpBuilder &b,
                                              Operation *op) {
  if (entries.empty())
    return {};
  // Every view starts at a multiple of 128 bytes (a cache line; at least the
  // 16 bytes that vector and cp.async accesses need).
  constexpr int64_t kAlign = 128;
  SmallVector<Value> offsets;
  Value end = ir::idx(b, 0);
  for (const Entry &entry : entries) {
    Value offset = ir::mul(b, ir::ceilDiv(b, end, kAlign), kAlign);
    offsets.push_back(offset);
    Value bytes = ir::idx(b, entry.type.getElementTypeBitWidth() / 8);
    unsigned dynamic = 0;
    for (int64_t extent : entry.type.getShape())
      bytes = ir::mul(b, bytes,
                      ShapedType::isDynamic(extent) ? entry.sizes[dynamic++]
                                                    : ir::idx(b, extent));
    end = ir::add(b, offset, bytes);
  }
  declareWorkspaceFunction(op);
  Value total = arith::IndexCastOp::create(b, b.getI64Type(), end);
  auto i8Buffer = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
  Value workspace = func::CallOp::create(b, kWorkspaceFunction,
                                         TypeRange{i8Buffer}, ValueRange{total})
                        .getResult(0);
  SmallVector<Value> views;
  for (auto [entry, offset] : llvm::zip_equal(entries, offsets))
    views.push_back(
        memref::ViewOp::create(b, entry.type, workspace, offset, entry.sizes));
  return views;
}

Value mlir::ssd::detail::contestedWriter(ImplicitLocOpBuilder &b,
                                         ScanEmitter &e, Value seq, Value tid,
                                         Value lane, Value warpFlags,
                                         int64_t threads) {
  using namespace ir;
  SequenceInfo s = e.sequence(b, seq);
  return e.ifElse(
      b, s.writesState, b.getI1Type(),
      [&](ImplicitLocOpBuilder &b) -> Value {
        Value slot = e.rawSlot(b, seq);
        // This thread's share of the batch: sequences tid, tid + threads...
        Value steps = ceilDiv(b, sub(b, maxu(b, e.batch, tid), tid), threads);
        Value found = e.reduce(
            b, idx(b, 0), steps, boolean(b, false),
            [&](ImplicitLocOpBuilder &b, Value i, Value acc) -> Value {
              Value other = add(b, tid, mul(b, i, threads));
              Value reads = e.ifElse(
                  b, eq(b, e.rawSlot(b, other), slot), b.getI1Type(),
                  [&](ImplicitLocOpBuilder &b) -> Value {
                    return memref::LoadOp::create(b, e.hasInitialState, other);
                  },
                  [&](ImplicitLocOpBuilder &b) -> Value {
                    return boolean(b, false);
                  });
              Value hit = both(b, reads,
                               arith::CmpIOp::create(
                                   b, arith::CmpIPredicate::ne, other, seq));
              return either(b, acc, hit);
            });
        Value warpFound = warpAny(b, found);
        Value warp = divu(b, tid, 32);
        e.ifThen(b, eq(b, lane, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
          memref::StoreOp::create(
              b, arith::ExtUIOp::create(b, b.getI32Type(), warpFound),
              warpFlags, ValueRange{warp});
        });
        gpu::BarrierOp::create(b);
        Value any = boolean(b, false);
        for (int64_t w = 0; w < threads / 32; ++w)
          any = either(
              b, any,
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::ne,
                  memref::LoadOp::create(b, warpFlags, ValueRange{idx(b, w)}),
                  i32(b, 0)));
        // Nobody rewrites the flags before every thread has read them.
        gpu::BarrierOp::create(b);
        return any;
      },
      [&](ImplicitLocOpBuilder &b) -> Value { return boolean(b, false); });
}

mlir::ssd::detail::Checkpoints::Sequence
mlir::ssd::detail::Checkpoints::sequence(ImplicitLocOpBuilder &b,
                                         const ScanEmitter &e,
                                         Value seq) const {
  return {seq, phase(b, seq), writes(b, e, seq)};
}

std::pair<Value, Value>
mlir::ssd::detail::Checkpoints::slotAfter(ImplicitLocOpBuilder &b,
                                          const ScanEmitter &e,
                                          const Sequence &s, Value j) const {
  using namespace ir;
  Value ends, k;
  std::tie(ends, k) = boundaryAfter(b, s.phase, j);
  Value boundary = both(b, both(b, ends, ult(b, k, columns)), s.writes);
  // The entry is loaded only inside [0, K).
  Value raw = e.ifElse(
      b, boundary, b.getI32Type(),
      [&](ImplicitLocOpBuilder &b) -> Value { return slotEntry(b, s.seq, k); },
      [&](ImplicitLocOpBuilder &b) -> Value { return i32(b, -1); });
  Value writes = both(b, boundary, isWritten(b, raw));
  return {writes, select(b, writes, toIndex(b, raw), idx(b, 0))};
}

Value mlir::ssd::detail::Checkpoints::walkLength(ImplicitLocOpBuilder &b,
                                                 const Sequence &s, Value first,
                                                 Value count) const {
  using namespace ir;
  const int64_t I = interval;
  // The boundaries among the tokens before the walk number kFirst, so
  // boundary kFirst is the walk's first: after its token sFirst, then one
  // every I tokens.
  Value kFirst = boundariesWithin(b, s.phase, first);
  Value sFirst = sub(b, boundaryEnd(b, Value(), s.phase, kFirst),
                     add(b, first, idx(b, 1)));
  Value any = both(b, s.writes, ult(b, sFirst, count));
  // Boundaries in range: floor((count - 1 - sFirst) / I) + 1, at most the
  // K - kFirst that are still written.
  Value inRange = add(
      b,
      divu(b, sub(b, maxu(b, count, add(b, sFirst, 1)), add(b, sFirst, 1)), I),
      1);
  Value written =
      select(b, ult(b, kFirst, columns), sub(b, columns, kFirst), idx(b, 0));
  Value boundaries = minu(b, inRange, written);
  any = both(b, any, ult(b, idx(b, 0), boundaries));
  Value length =
      add(b,
          add(b, sFirst,
              mul(b, sub(b, maxu(b, boundaries, idx(b, 1)), idx(b, 1)), I)),
          1);
  return select(b, any, length, idx(b, 0));
}

bool mlir::ssd::detail::Checkpoints::atChunkEndsOnly(ChunkScanVarlenOp op,
                                                     int64_t chunkSize) {
  return op.checkpointsEndChunks(chunkSize);
}
