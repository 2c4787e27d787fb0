//===- ScopeParallelAllocas.cpp - stack per loop iteration ----------------===//
//
// scf.parallel frees a body's allocas after every iteration (it is an
// automatic allocation scope), but its sequential lowering (scf-to-cf) does
// not: without OpenMP the serial form's per-task tiles stayed on the stack
// for the whole loop and overflowed it. Saving the stack pointer at the top
// of the body and restoring it at the bottom states the lifetime in a form
// every later lowering keeps.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDSCOPEPARALLELALLOCAS
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `body` allocates on the stack of its own iteration: an alloca
/// that no nested allocation scope (a nested scf.parallel, an alloca_scope)
/// already releases.
bool allocatesPerIteration(Block &body) {
  for (Operation &op : body) {
    WalkResult result = op.walk<WalkOrder::PreOrder>([](Operation *nested) {
      if (isa<memref::AllocaOp>(nested))
        return WalkResult::interrupt();
      if (nested->hasTrait<OpTrait::AutomaticAllocationScope>())
        return WalkResult::skip();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

struct SSDScopeParallelAllocasPass
    : public mlir::ssd::impl::SSDScopeParallelAllocasBase<
          SSDScopeParallelAllocasPass> {
  void runOnOperation() override {
    // The order of the walk does not matter: a nested scf.parallel is a
    // scope of its own, so each loop only looks at the allocas outside
    // nested ones.
    getOperation()->walk([&](scf::ParallelOp loop) {
      Block &body = *loop.getBody();
      if (!allocatesPerIteration(body))
        return;
      // What memref.alloca_scope lowers to, without its region: a scope
      // would have to hold the body's loops, which scf-to-cf later turns
      // into blocks, and a scope's region holds one block.
      OpBuilder builder(loop.getContext());
      builder.setInsertionPointToStart(&body);
      auto pointer = LLVM::LLVMPointerType::get(loop.getContext());
      Value stack = LLVM::StackSaveOp::create(builder, loop.getLoc(), pointer);
      builder.setInsertionPoint(body.getTerminator());
      LLVM::StackRestoreOp::create(builder, loop.getLoc(), stack);
      ++numScoped;
    });
  }
};

} // namespace
