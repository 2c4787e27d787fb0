//===- BufferizableOpInterfaceImpl.cpp - bufferization of the scan op -----===//
//
// The tensor form bufferizes to the memref form: every tensor operand is only
// read, y gets a fresh buffer (it aliases no operand), and the pool, already
// a memref (with its scales), passes through untouched so the in-place update
// survives.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "ssd/IR/SSDOps.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::ssd;

namespace {

struct ChunkScanVarlenOpInterface
    : public BufferizableOpInterface::ExternalModel<ChunkScanVarlenOpInterface,
                                                    ChunkScanVarlenOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto scan = cast<ChunkScanVarlenOp>(op);
    if (!scan.hasTensorSemantics())
      return success();
    Location loc = op->getLoc();

    // The buffer standing for each tensor operand; the pool and absent
    // optional operands pass through as they are.
    IRMapping buffers;
    for (Value operand : op->getOperands()) {
      if (!isa<TensorType>(operand.getType()))
        continue;
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.map(operand, *buffer);
    }
    auto bufferOf = [&](Value v) { return v ? buffers.lookupOrDefault(v) : v; };

    // y: a fresh [T, H, P] buffer whose dynamic extents come from x.
    auto yType = cast<RankedTensorType>(scan.getY().getType());
    Value xBuffer = bufferOf(scan.getX());
    SmallVector<Value> dynamicSizes;
    for (int64_t dim = 0; dim < yType.getRank(); ++dim)
      if (yType.isDynamicDim(dim))
        dynamicSizes.push_back(
            memref::DimOp::create(rewriter, loc, xBuffer, dim));
    auto yBufferType =
        MemRefType::get(yType.getShape(), yType.getElementType());
    FailureOr<Value> yBuffer =
        options.createAlloc(rewriter, loc, yBufferType, dynamicSizes);
    if (failed(yBuffer))
      return failure();

    ChunkScanVarlenOp::create(
        rewriter, loc, /*y=*/Type(), xBuffer, bufferOf(scan.getDt()),
        bufferOf(scan.getA()), bufferOf(scan.getB()), bufferOf(scan.getC()),
        bufferOf(scan.getD()), bufferOf(scan.getDtBias()), scan.getSsmPool(),
        scan.getSsmPoolScales(), bufferOf(scan.getQueryStartLoc()),
        bufferOf(scan.getHasInitialState()), bufferOf(scan.getCacheIndices()),
        bufferOf(scan.getUpdateState()), bufferOf(scan.getCheckpointSlots()),
        bufferOf(scan.getCheckpointOffsets()), bufferOf(scan.getTokenParents()),
        bufferOf(scan.getRoundingSeed()), *yBuffer, scan.getFormAttr(),
        scan.getChunkSizeAttr(), scan.getCheckpointIntervalAttr(),
        scan.getConfigAttr(), scan.getPoolRoundingAttr(),
        scan.getInvariantAttr());
    replaceOpWithBufferizedValues(rewriter, op, *yBuffer);
    return success();
  }
};

} // namespace

void mlir::ssd::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SSDDialect *) {
    ChunkScanVarlenOp::attachInterface<ChunkScanVarlenOpInterface>(*ctx);
  });
}
