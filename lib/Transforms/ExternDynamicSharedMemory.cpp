//===- ExternDynamicSharedMemory.cpp - dynamic shared memory as PTX's extern =//
//
// convert-gpu-to-nvvm gives `gpu.dynamic_shared_memory` an internal
// zero-length array in address space 3. NVPTX prints such a definition as a
// one-byte static variable (`.shared .align 16 .b8 __dynamic_shmem__0;`), so
// every access past its first byte is out of the variable's bounds: ptxas
// says "Potential out of bound access" at each, and what it may assume about
// such accesses is undefined. PTX's own spelling of a launch-sized buffer is
// an external declaration of unknown size, which is what the NVPTX backend
// prints for an external zero-length array:
// `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDEXTERNDYNAMICSHAREDMEMORY
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;
using namespace mlir::ssd;

namespace {

/// A definition of a launch-sized shared buffer: a zero-length array in
/// the shared address space with nothing to initialize it.
bool isDynamicSharedDefinition(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return array && array.getNumElements() == 0 &&
         global.getAddrSpace() ==
             static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) &&
         global.getLinkage() != LLVM::Linkage::External &&
         !global.getValueOrNull() && global.getInitializerRegion().empty();
}

struct SSDExternDynamicSharedMemoryPass
    : public mlir::ssd::impl::SSDExternDynamicSharedMemoryBase<
          SSDExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (!isDynamicSharedDefinition(global))
        continue;
      global.setLinkage(LLVM::Linkage::External);
      // A declaration is resolved by the loader, not bound locally.
      global.setDsoLocal(false);
      ++numDeclared;
    }
  }
};

} // namespace
