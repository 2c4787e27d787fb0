//===- KernelUtils.cpp - launches and warp collectives for the scan -------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

FailureOr<StaticExtents> mlir::ssd::detail::getStaticExtents(ChunkScanVarlenOp op) {
  auto x = cast<MemRefType>(op.getX().getType());
  auto bType = cast<MemRefType>(op.getB().getType());
  StaticExtents s{x.getDimSize(1), x.getDimSize(2), bType.getDimSize(1),
                  bType.getDimSize(2)};
  if (ShapedType::isDynamic(s.heads) || ShapedType::isDynamic(s.headDim) ||
      ShapedType::isDynamic(s.groups) || ShapedType::isDynamic(s.dstate))
    return failure();
  return s;
}

/// Alignment of every workgroup buffer in dynamic shared memory. The NVVM
/// lowering of gpu.dynamic_shared_memory aligns the base to 16 bytes
/// (NVVM::kSharedMemoryAlignmentBit), so offsets that are multiples of 16
/// keep each buffer as aligned as a static one could be.
static constexpr int64_t kWorkgroupBufferAlignment = 16;

/// Byte offset of each buffer of `shapes` in one shared-memory block, and
/// the block's size.
static int64_t layOutWorkgroupBuffers(WorkgroupShapes shapes,
                                      SmallVectorImpl<int64_t> &offsets) {
  int64_t end = 0;
  for (ArrayRef<int64_t> shape : shapes) {
    offsets.push_back(llvm::alignTo(end, kWorkgroupBufferAlignment));
    int64_t elements = 1;
    for (int64_t extent : shape)
      elements *= extent;
    end = offsets.back() + elements * int64_t(sizeof(float));
  }
  return llvm::alignTo(end, kWorkgroupBufferAlignment);
}

int64_t mlir::ssd::detail::sharedMemoryPerBlock(WorkgroupShapes shapes) {
  SmallVector<int64_t> offsets;
  int64_t bytes = layOutWorkgroupBuffers(shapes, offsets);
  // The base of dynamic shared memory is a 1-byte static shared variable
  // (a zero-length internal global, 16-byte aligned); count its alignment.
  if (bytes > kMaxStaticSharedMemoryBytes)
    bytes += kWorkgroupBufferAlignment;
  return bytes;
}

void mlir::ssd::detail::launchKernel(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e,
                                     std::array<Value, 3> grid,
                                     std::array<int64_t, 3> block,
                                     KernelBodyFn body,
                                     WorkgroupShapes shared) {
  // An empty grid is an invalid launch in CUDA, and a host-side branch around
  // each launch would cut the chain of asynchronous launches into one
  // synchronisation per kernel. So launch at least one block per dimension
  // and let blocks beyond the real grid return at once.
  Value one = e.index(b, 1);
  std::array<Value, 3> launched;
  for (int i = 0; i < 3; ++i)
    launched[i] = arith::MaxUIOp::create(b, grid[i], one);
  SmallVector<Type> sharedTypes;
  for (ArrayRef<int64_t> shape : shared)
    sharedTypes.push_back(workgroupBufferType(b.getContext(), shape));

  // ptxas rejects more than 48 KiB of static shared memory, and the opt-in
  // to more (cuFuncSetAttribute, done by the runtime) covers only dynamic
  // shared memory. So larger buffers are carved out of a dynamic block.
  SmallVector<int64_t> offsets;
  int64_t sharedBytes = layOutWorkgroupBuffers(shared, offsets);
  bool dynamicShared = sharedBytes > kMaxStaticSharedMemoryBytes;
  Value dynamicSharedSize;
  if (dynamicShared)
    dynamicSharedSize =
        arith::ConstantOp::create(b, b.getI32IntegerAttr(sharedBytes));

  auto launch = gpu::LaunchOp::create(
      b, launched[0], launched[1], launched[2], e.index(b, block[0]),
      e.index(b, block[1]), e.index(b, block[2]), dynamicSharedSize,
      /*asyncTokenType=*/Type(), /*asyncDependencies=*/ValueRange{},
      /*workgroupAttributions=*/dynamicShared ? TypeRange()
                                              : TypeRange(sharedTypes));
  ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
  inner.setInsertionPointToStart(&launch.getBody().front());
  KernelContext context{launch.getBlockIds(), launch.getThreadIds(), {}};
  if (dynamicShared) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value base = gpu::DynamicSharedMemoryOp::create(
        inner, MemRefType::get({ShapedType::kDynamic}, inner.getI8Type(),
                               MemRefLayoutAttrInterface(), workgroup));
    for (auto [type, offset] : llvm::zip_equal(sharedTypes, offsets))
      context.shared.push_back(memref::ViewOp::create(
          inner, type, base, e.index(inner, offset), ValueRange{}));
  } else {
    for (BlockArgument buffer : launch.getWorkgroupAttributions())
      context.shared.push_back(buffer);
  }
  Value inGrid = arith::ConstantOp::create(inner, inner.getBoolAttr(true));
  Value ids[3] = {context.block.x, context.block.y, context.block.z};
  for (int i = 0; i < 3; ++i)
    inGrid = arith::AndIOp::create(
        inner, inGrid,
        arith::CmpIOp::create(inner, arith::CmpIPredicate::ult, ids[i], grid[i]));
  e.ifThen(inner, inGrid,
           [&](ImplicitLocOpBuilder &b) { body(b, context); });
  gpu::TerminatorOp::create(inner);
}

MemRefType mlir::ssd::detail::workgroupBufferType(MLIRContext *ctx,
                                                 ArrayRef<int64_t> shape) {
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get(shape, Float32Type::get(ctx), MemRefLayoutAttrInterface(),
                         space);
}

void mlir::ssd::detail::launchPerIndex(
    ImplicitLocOpBuilder &b, const ScanEmitter &e, Value count,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
  constexpr int64_t kThreads = 256;
  Value blocks = arith::CeilDivUIOp::create(b, count, e.index(b, kThreads));
  Value one = e.index(b, 1);
  launchKernel(b, e, {blocks, one, one}, {kThreads, 1, 1},
               [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
                 Value i = arith::AddIOp::create(
                     b, arith::MulIOp::create(b, k.block.x, e.index(b, kThreads)),
                     k.thread.x);
                 Value inRange =
                     arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i, count);
                 e.ifThen(b, inRange,
                          [&](ImplicitLocOpBuilder &b) { body(b, i); });
               });
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

WriterOrder mlir::ssd::detail::planWriterOrderOnDevice(ImplicitLocOpBuilder &b,
                                                      const ScanEmitter &e) {
  WriterOrder order;
  Type i32 = b.getI32Type();
  Value slots = memref::DimOp::create(b, e.pool, 0);
  auto dynamic1d = [&](Type t) {
    return MemRefType::get({ShapedType::kDynamic}, t);
  };
  order.readers = gpu::AllocOp::create(b, dynamic1d(i32), Type(), ValueRange{},
                                       ValueRange{slots}, ValueRange{})
                      .getMemref();
  order.secondPass =
      gpu::AllocOp::create(b, dynamic1d(b.getI1Type()), Type(), ValueRange{},
                           ValueRange{e.batch}, ValueRange{})
          .getMemref();

  launchPerIndex(b, e, slots, [&](ImplicitLocOpBuilder &b, Value slot) {
    Value zero = arith::ConstantOp::create(b, b.getI32IntegerAttr(0));
    memref::StoreOp::create(b, zero, order.readers, slot);
  });
  launchPerIndex(b, e, e.batch, [&](ImplicitLocOpBuilder &b, Value seq) {
    SequenceInfo s = e.sequence(b, seq);
    e.ifThen(b, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
      Value one = arith::ConstantOp::create(b, b.getI32IntegerAttr(1));
      memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, one,
                                  order.readers, ValueRange{s.slot});
    });
  });
  launchPerIndex(b, e, e.batch, [&](ImplicitLocOpBuilder &b, Value seq) {
    SequenceInfo s = e.sequence(b, seq);
    Value readByOthers = e.ifElse(
        b, s.writesState, b.getI1Type(),
        [&](ImplicitLocOpBuilder &b) -> Value {
          Value readers = memref::LoadOp::create(b, order.readers, s.slot);
          Value self = arith::ExtUIOp::create(b, i32, s.readsInitial);
          Value others = arith::SubIOp::create(b, readers, self);
          return arith::CmpIOp::create(
              b, arith::CmpIPredicate::sgt, others,
              arith::ConstantOp::create(b, b.getI32IntegerAttr(0)));
        },
        [&](ImplicitLocOpBuilder &b) -> Value {
          return arith::ConstantOp::create(b, b.getBoolAttr(false));
        });
    memref::StoreOp::create(b, readByOthers, order.secondPass, seq);
  });
  return order;
}

void mlir::ssd::detail::freeWriterOrderOnDevice(ImplicitLocOpBuilder &b,
                                                const WriterOrder &order) {
  gpu::DeallocOp::create(b, Type(), ValueRange{}, order.readers);
  gpu::DeallocOp::create(b, Type(), ValueRange{}, order.secondPass);
}
