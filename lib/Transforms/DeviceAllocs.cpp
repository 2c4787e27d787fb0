//===- DeviceAllocs.cpp - host allocations become device allocations ------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDDEVICEALLOCS
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

bool insideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUFuncOp>();
}

struct SSDDeviceAllocsPass
    : public mlir::ssd::impl::SSDDeviceAllocsBase<SSDDeviceAllocsPass> {
  using SSDDeviceAllocsBase::SSDDeviceAllocsBase;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](Operation *op) {
      if (insideKernel(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
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
  }
};

} // namespace
