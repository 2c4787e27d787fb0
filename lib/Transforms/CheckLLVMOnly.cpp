//===- CheckLLVMOnly.cpp - fail on ops left unlowered ---------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDCHECKLLVMONLY
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

struct SSDCheckLLVMOnlyPass
    : public mlir::ssd::impl::SSDCheckLLVMOnlyBase<SSDCheckLLVMOnlyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult result = module->walk([&](Operation *op) {
      Dialect *dialect = op->getDialect();
      if (op == module.getOperation() ||
          isa_and_nonnull<LLVM::LLVMDialect, omp::OpenMPDialect>(dialect))
        return WalkResult::advance();
      op->emitOpError("was not lowered to the LLVM dialect");
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
