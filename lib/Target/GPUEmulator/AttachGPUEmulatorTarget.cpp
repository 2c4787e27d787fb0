//===- AttachGPUEmulatorTarget.cpp - retarget gpu.modules to the emulator -===//
//
// ssd-attach-gpu-emulator-target, beside the target it attaches
// (Target.cpp): the pass is declared with the other passes
// (ssd/Transforms/Passes.td), and defined here so that the emulator target
// and the one pass that selects it are read and changed together.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDDialect.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Transforms/GPUChip.h"

namespace mlir {
namespace ssd {
#define GEN_PASS_DEF_SSDATTACHGPUEMULATORTARGET
#include "ssd/Transforms/Passes.h.inc"
} // namespace ssd
} // namespace mlir

using namespace mlir;

namespace {

struct SSDAttachGPUEmulatorTargetPass
    : public mlir::ssd::impl::SSDAttachGPUEmulatorTargetBase<
          SSDAttachGPUEmulatorTargetPass> {
  using SSDAttachGPUEmulatorTargetBase::SSDAttachGPUEmulatorTargetBase;

  LogicalResult initialize(MLIRContext *context) override {
    return ssd::checkOptionRanges(context, "ssd-attach-gpu-emulator-target",
                                  {{"O", optLevel, ssd::kGPUOptLevelRange}});
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation()->walk([&](gpu::GPUModuleOp module) {
      SmallVector<Attribute> targets;
      if (ArrayAttr existing = module.getTargetsAttr()) {
        for (Attribute target : existing) {
          if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
            target = ssd::GPUEmulatorTargetAttr::get(
                context, nvvm.getO(), nvvm.getChip(), nvvm.getFeatures());
            ++numRetargeted;
          }
          targets.push_back(target);
        }
      }
      if (targets.empty())
        targets.push_back(ssd::GPUEmulatorTargetAttr::get(
            context, optLevel, ssd::enumName(ssd::kGPUChipNames, chip), ""));
      module.setTargetsAttr(ArrayAttr::get(context, targets));
    });
  }
};

} // namespace
