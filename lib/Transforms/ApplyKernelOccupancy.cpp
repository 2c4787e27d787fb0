//===- ApplyKernelOccupancy.cpp - occupancy requests to nvvm.minctasm -----===//

#include "ssd/IR/SSDOps.h"
#include "ssd/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDAPPLYKERNELOCCUPANCY
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

/// Drops the range analysis's state of values a rewrite erases, so that a
/// value created later at the same address does not inherit a range.
struct ForgetErasedRanges : public RewriterBase::Listener {
  explicit ForgetErasedRanges(DataFlowSolver &solver) : solver(solver) {}
  void notifyOperationErased(Operation *op) override {
    for (Value v : op->getResults())
      solver.eraseState(v);
  }
  void notifyOperationReplaced(Operation *op, ValueRange) override {
    for (Value v : op->getResults())
      solver.eraseState(v);
  }
  DataFlowSolver &solver;
};

/// Index arithmetic of `kernel` that integer range analysis proves to fit
/// 32 bits (thread and lane positions, offsets inside tiles, counters of
/// loops with static bounds) becomes i32 arithmetic; what derives from the
/// kernel's dynamic arguments (base offsets) stays 64-bit. Fewer 64-bit
/// registers: the fused chunk kernel meets its two blocks per SM only so.
LogicalResult narrowIndexArithmetic(gpu::GPUFuncOp kernel) {
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(kernel)))
    return failure();
  ForgetErasedRanges listener(solver);
  RewritePatternSet patterns(kernel.getContext());
  arith::populateIntRangeNarrowingPatterns(patterns, solver, {32});
  // Each rewrite is correct on its own: a driver that stops before a fixed
  // point leaves some arithmetic 64-bit, not a wrong kernel.
  (void)applyPatternsGreedily(kernel, std::move(patterns),
                              GreedyRewriteConfig().setListener(&listener));
  return success();
}

struct SSDApplyKernelOccupancyPass
    : public mlir::ssd::impl::SSDApplyKernelOccupancyBase<
          SSDApplyKernelOccupancyPass> {
  void runOnOperation() override {
    StringRef attrName = NVVM::NVVMDialect::getMinctasmAttrName();
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      SmallVector<KernelOccupancyOp> requests;
      func.walk([&](KernelOccupancyOp op) { requests.push_back(op); });
      if (requests.empty())
        continue;
      // The verifier put every request inside a kernel.
      IntegerAttr chosen = func->getAttrOfType<IntegerAttr>(attrName);
      KernelOccupancyOp first;
      for (KernelOccupancyOp op : requests) {
        uint32_t blocks = op.getMinBlocksPerSm();
        if (chosen && chosen.getInt() != blocks) {
          InFlightDiagnostic diag =
              op.emitOpError("asks for min_blocks_per_sm = ")
              << blocks << ", but kernel '" << func.getName() << "' ";
          if (first)
            diag << "also asks for " << chosen.getInt();
          else
            diag << "already has nvvm.minctasm = " << chosen.getInt();
          return signalPassFailure();
        }
        chosen = op.getMinBlocksPerSmAttr();
        if (!first)
          first = op;
      }
      func->setAttr(attrName, chosen);
      for (KernelOccupancyOp op : requests)
        op.erase();
      if (failed(narrowIndexArithmetic(func))) {
        func.emitError("ssd-apply-kernel-occupancy: integer range analysis "
                       "failed on the kernel");
        return signalPassFailure();
      }
      ++numKernels;
    }
  }
};

} // namespace
