//===- DeviceAllocs.cpp - host buffers become device buffers --------------===//
//
// After bufferization, and once the loops around the scan are GPU kernels,
// the host side of a function only allocates, frees, copies and hands
// buffers to kernels. This pass makes each of those act on device memory,
// so that no buffer the function uses is ever touched by the host:
//
//   memref.alloc / dealloc  ->  gpu.alloc / gpu.dealloc
//   memref.copy             ->  gpu.memcpy when both sides are dense from
//                               offset 0, else a copy kernel
//   memref.get_global       ->  a device copy of the global, made at the
//                               start of the function, freed at its returns
//
// Ops inside kernels (gpu.launch bodies, gpu.module) are left alone.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDDEVICEALLOCS
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

/// Threads per block of the copy kernel.
constexpr int64_t kCopyThreads = 256;

bool insideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUFuncOp>() ||
         op->getParentOfType<gpu::GPUModuleOp>();
}

/// The identity-layout type with the shape, element type and memory space
/// of `type`: what gpu.memcpy lowers (gpu-to-llvm takes only those).
MemRefType identityLayoutType(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// Whether every buffer of `type` is dense row-major from its base pointer
/// (offset 0): the identity layout, or a strided layout that provably
/// equals it.
bool isDenseFromBase(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0)
    return false;
  // Walk from the innermost dimension; unit dimensions may have any stride.
  std::optional<int64_t> expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    if (size == 1)
      continue;
    if (!expected || strides[d] != *expected)
      return false;
    expected = ShapedType::isDynamic(size)
                   ? std::nullopt
                   : std::optional<int64_t>(*expected * size);
  }
  return true;
}

/// Whether `value` is known to be dense from its base, from its type or from
/// where it comes from: a memref.cast of such a buffer, or an scf.if result
/// for which every branch yields one (what bufferization makes of a scan
/// whose form is chosen at run time).
bool isDenseFromBase(Value value) {
  if (isDenseFromBase(cast<MemRefType>(value.getType())))
    return true;
  if (auto castOp = value.getDefiningOp<memref::CastOp>())
    return isa<MemRefType>(castOp.getSource().getType()) &&
           isDenseFromBase(castOp.getSource());
  if (auto ifOp = value.getDefiningOp<scf::IfOp>()) {
    unsigned i = cast<OpResult>(value).getResultNumber();
    return isDenseFromBase(ifOp.thenYield().getOperand(i)) &&
           isDenseFromBase(ifOp.elseYield().getOperand(i));
  }
  return false;
}

/// `value` as its identity-layout type, for a buffer proved dense from its
/// base. A memref.reinterpret_cast rather than a memref.cast: canonicalize
/// folds a memref.cast into the gpu.memcpy that uses it, and gpu-to-llvm
/// leaves a gpu.memcpy on a non-identity layout unconverted.
Value asIdentityLayout(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  if (type.getLayout().isIdentity())
    return value;
  auto constantIndex = [&](OpFoldResult v) -> Value {
    if (auto value = dyn_cast<Value>(v))
      return value;
    return arith::ConstantIndexOp::create(
        b, loc, cast<IntegerAttr>(cast<Attribute>(v)).getInt());
  };
  // Row-major strides: each the product of the sizes inside it, folded
  // while they are static.
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes(rank), strides(rank);
  OpFoldResult inner = b.getIndexAttr(1);
  std::optional<int64_t> staticInner = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    sizes[d] = ShapedType::isDynamic(size)
                   ? OpFoldResult(memref::DimOp::create(b, loc, value, d))
                   : OpFoldResult(b.getIndexAttr(size));
    strides[d] = inner;
    if (d == 0)
      break;
    if (staticInner && !ShapedType::isDynamic(size)) {
      staticInner = *staticInner * size;
      inner = b.getIndexAttr(*staticInner);
    } else {
      staticInner = std::nullopt;
      inner = OpFoldResult(arith::MulIOp::create(b, loc, constantIndex(inner),
                                                 constantIndex(sizes[d])));
    }
  }
  return memref::ReinterpretCastOp::create(b, loc, identityLayoutType(type),
                                           value, b.getIndexAttr(0), sizes,
                                           strides);
}

/// dst[i...] = src[i...] for every element, one thread per element, with
/// the element's indices delinearized from its thread's linear id. For
/// copies whose sides are strided views that no single memcpy covers.
void emitCopyKernel(OpBuilder &b, Location loc, Value src, Value dst) {
  auto type = cast<MemRefType>(src.getType());
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> extents;
  Value elements;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    extents.push_back(memref::DimOp::create(b, loc, src, d));
    elements = elements ? arith::MulIOp::create(b, loc, elements, extents[d])
                        : extents[d];
  }
  if (!elements) // rank 0: one element
    elements = index(1);
  Value one = index(1), threads = index(kCopyThreads);
  // At least one block: CUDA rejects an empty grid.
  Value blocks = arith::MaxUIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, elements, threads), one);
  auto launch =
      gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, threads),
      launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        linear, elements);
  auto ifInRange = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  gpu::TerminatorOp::create(b, loc);

  b.setInsertionPoint(ifInRange.thenBlock()->getTerminator());
  SmallVector<Value> indices(type.getRank());
  Value rest = linear;
  for (int64_t d = type.getRank() - 1; d > 0; --d) {
    indices[d] = arith::RemUIOp::create(b, loc, rest, extents[d]);
    rest = arith::DivUIOp::create(b, loc, rest, extents[d]);
  }
  if (type.getRank() > 0) // below the element count: in range
    indices[0] = rest;
  Value element = memref::LoadOp::create(b, loc, src, indices);
  memref::StoreOp::create(b, loc, element, dst, indices);
}

/// Whether a buffer derived from `root` may be returned by `func`, so that
/// freeing it at the returns would hand the caller a freed buffer. Aliases
/// are followed conservatively: any memref an op using it produces (views,
/// casts, calls), results of region ops it is yielded from, block arguments
/// of regions it is passed into.
bool mayEscapeThroughReturn(Value root, FunctionOpInterface func) {
  SmallVector<Value> worklist{root};
  DenseSet<Value> seen;
  auto pushMemRefs = [&](auto values) {
    for (Value v : values)
      if (isa<BaseMemRefType>(v.getType()))
        worklist.push_back(v);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      Operation *parent = user->getParentOp();
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        // A return, or a branch to another block of the function that this
        // walk does not follow.
        if (parent == func.getOperation())
          return true;
        pushMemRefs(parent->getResults());
        continue;
      }
      pushMemRefs(user->getResults());
      for (Region &region : user->getRegions())
        for (Block &block : region)
          pushMemRefs(block.getArguments());
    }
  }
  return false;
}

struct SSDDeviceAllocsPass
    : public mlir::ssd::impl::SSDDeviceAllocsBase<SSDDeviceAllocsPass> {
  using SSDDeviceAllocsBase::SSDDeviceAllocsBase;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::CopyOp> copies;
    SmallVector<memref::GetGlobalOp> globals;
    getOperation()->walk([&](Operation *op) {
      if (insideKernel(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
      else if (auto global = dyn_cast<memref::GetGlobalOp>(op))
        globals.push_back(global);
    });
    for (memref::AllocOp alloc : allocs) {
      OpBuilder b(alloc);
      auto device = gpu::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          ValueRange{}, alloc.getDynamicSizes(), alloc.getSymbolOperands());
      alloc.replaceAllUsesWith(device.getMemref());
      alloc.erase();
      ++numMoved;
    }
    for (memref::DeallocOp dealloc : deallocs) {
      OpBuilder b(dealloc);
      gpu::DeallocOp::create(b, dealloc.getLoc(), /*asyncToken=*/Type(),
                             ValueRange{}, dealloc.getMemref());
      dealloc.erase();
    }
    // Globals first: a copy out of a global then reads its device copy.
    if (failed(placeGlobalsOnDevice(globals)))
      return signalPassFailure();
    for (memref::CopyOp copy : copies)
      if (failed(copyOnDevice(copy)))
        return signalPassFailure();
  }

  /// Replaces `copy` by a gpu.memcpy when both sides are dense from their
  /// base (a memcpy of the element count), else by a copy kernel.
  LogicalResult copyOnDevice(memref::CopyOp copy) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    Value src = copy.getSource(), dst = copy.getTarget();
    if (!isa<MemRefType>(src.getType()) || !isa<MemRefType>(dst.getType()))
      return copy.emitError("ssd-device-allocs: cannot copy an unranked "
                            "memref on the device (its rank fixes the copy)");
    if (isDenseFromBase(src) && isDenseFromBase(dst)) {
      gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                            asIdentityLayout(b, loc, dst),
                            asIdentityLayout(b, loc, src));
      ++numMemcpys;
    } else {
      emitCopyKernel(b, loc, src, dst);
      ++numCopyKernels;
    }
    copy.erase();
    return success();
  }

  /// One device buffer per global and function that uses it, allocated and
  /// filled from the host global at the start of the entry block (so that it
  /// dominates every use), and freed before each return.
  LogicalResult placeGlobalsOnDevice(ArrayRef<memref::GetGlobalOp> gets) {
    struct DeviceGlobal {
      memref::GetGlobalOp host; // the host global, read at entry
      Value device;
    };
    using Key = std::pair<Operation *, StringAttr>;
    llvm::MapVector<Key, DeviceGlobal> deviceGlobals;
    DenseMap<Operation *, Operation *> lastPrologueOp;

    for (memref::GetGlobalOp get : gets) {
      if (get->use_empty())
        continue;
      auto func = get->getParentOfType<FunctionOpInterface>();
      if (!func)
        continue;
      MemRefType type = get.getType();
      if (!type.getLayout().isIdentity())
        return get.emitError() << "ssd-device-allocs: cannot place global @"
                               << get.getName() << " on the device: its type "
                               << type << " has a non-identity layout";
      DeviceGlobal &global =
          deviceGlobals[{func.getOperation(), get.getNameAttr().getAttr()}];
      if (!global.device) {
        OpBuilder b(func.getContext());
        Block &entry = func.getFunctionBody().front();
        if (Operation *last = lastPrologueOp.lookup(func.getOperation()))
          b.setInsertionPointAfter(last);
        else
          b.setInsertionPointToStart(&entry);
        Location loc = get.getLoc();
        global.host =
            memref::GetGlobalOp::create(b, loc, type, get.getNameAttr());
        global.device =
            gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                                 ValueRange{}, ValueRange{}, ValueRange{})
                .getMemref();
        auto fill =
            gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                                  global.device, global.host.getResult());
        lastPrologueOp[func.getOperation()] = fill;
        ++numGlobals;
      }
      get.replaceAllUsesWith(global.device);
      get.erase();
    }

    for (auto &[key, global] : deviceGlobals) {
      auto func = cast<FunctionOpInterface>(key.first);
      // A function may write a mutable global; its host copy then gets the
      // device contents back at each return.
      auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          func, global.host.getNameAttr());
      bool writeBack = !symbol || !symbol.getConstant();
      // A device copy that the function returns must outlive it: it is not
      // freed here, and the caller owns it.
      bool escapes = mayEscapeThroughReturn(global.device, func);
      for (Block &block : func.getFunctionBody()) {
        if (block.empty() || !block.back().hasTrait<OpTrait::ReturnLike>())
          continue;
        Operation *terminator = &block.back();
        OpBuilder b(terminator);
        Location loc = terminator->getLoc();
        if (writeBack)
          gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                                global.host.getResult(), global.device);
        if (!escapes)
          gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                                 global.device);
      }
    }
    return success();
  }
};

} // namespace
