//===- Contraction.cpp - the multiply-adds NVPTX fuses, as exact fmas -----===//
//
// The NVPTX backend fuses a multiply and an add into one fma.rn (a single
// rounding) where LLVM allows it: with the default target options that
// gpu-module-to-binary uses (fp-contract "on"), an fadd or fsub and the
// fmul feeding it when both carry the `contract` flag (the kernel builders
// put it on their f32 arithmetic), and every llvm.fmuladd. Its instruction
// selector does this per basic block (a selection DAG), preferring, of two
// multiplies, the one with fewer uses, and fusing a multiply with several
// users into each of them (NVPTX enables aggressive fusion).
//
// The host compiler would fuse nothing (its generic CPU has no FMA), so the
// emulator would round twice where the GPU rounds once. Here the same
// pairs become llvm.fma, which the host lowers to an FMA instruction or to
// libm's fma/fmaf, both exact: the result does not depend on the host CPU.
// Afterwards no floating-point operation keeps `contract`, so that the host
// backend can fuse nothing else.
//
// f16 and bf16 multiply-adds are left alone: the host has no exact fused
// operation for them (an f32 fma rounded to f16 rounds twice).
//
// The count of fused pairs per function is the proof the invariant mode
// needs: its kernels (named ssd_scan_invariant, Target.h) build every fma as
// llvm.fma and every other product and sum unflagged, so NVPTX must find
// nothing to fuse in them; the target refuses to build one in which it would.
//
//===----------------------------------------------------------------------===//

#include "KernelToHost.h"

#include "ssd/Target/GPUEmulator/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

bool fusableType(Type *type) {
  Type *scalar = type->getScalarType();
  return scalar->isFloatTy() || scalar->isDoubleTy();
}

/// An fmul that may fuse into `user`: marked contract, in the same block.
BinaryOperator *contractableMultiply(Value *value, Instruction &user) {
  auto *mul = dyn_cast<BinaryOperator>(value);
  if (!mul || mul->getOpcode() != Instruction::FMul ||
      !mul->hasAllowContract() || mul->getParent() != user.getParent())
    return nullptr;
  return mul;
}

Value *fma(IRBuilder<> &b, Value *x, Value *y, Value *z) {
  return b.CreateIntrinsic(Intrinsic::fma, {x->getType()}, {x, y, z});
}

/// `add` (an fadd or fsub marked contract) as an fma, or null.
Value *contract(BinaryOperator &add) {
  Value *lhs = add.getOperand(0), *rhs = add.getOperand(1);
  BinaryOperator *left = contractableMultiply(lhs, add);
  BinaryOperator *right = contractableMultiply(rhs, add);
  if (!left && !right)
    return nullptr;
  // Of two multiplies, the one with fewer uses (DAGCombiner).
  bool useLeft = left && !(right && left->getNumUses() > right->getNumUses());
  IRBuilder<> b(&add);
  b.setFastMathFlags(add.getFastMathFlags());
  if (add.getOpcode() == Instruction::FAdd)
    return useLeft ? fma(b, left->getOperand(0), left->getOperand(1), rhs)
                   : fma(b, right->getOperand(0), right->getOperand(1), lhs);
  // x*y - z = fma(x, y, -z); z - x*y = fma(-x, y, z).
  return useLeft ? fma(b, left->getOperand(0), left->getOperand(1),
                       b.CreateFNeg(rhs))
                 : fma(b, b.CreateFNeg(right->getOperand(0)),
                       right->getOperand(1), lhs);
}

} // namespace

std::vector<mlir::ssd::emulator::FunctionFusions>
mlir::ssd::emulator::contractLikeNVPTX(Module &module) {
  std::vector<FunctionFusions> fusions;
  for (Function &f : module) {
    unsigned fused = 0;
    for (BasicBlock &block : f) {
      SmallVector<Instruction *> work;
      for (Instruction &inst : block)
        work.push_back(&inst);
      for (Instruction *inst : work) {
        Value *fusedValue = nullptr;
        if (auto *op = dyn_cast<BinaryOperator>(inst)) {
          if ((op->getOpcode() == Instruction::FAdd ||
               op->getOpcode() == Instruction::FSub) &&
              op->hasAllowContract() && fusableType(op->getType()))
            fusedValue = contract(*op);
        } else if (auto *call = dyn_cast<IntrinsicInst>(inst)) {
          if (call->getIntrinsicID() == Intrinsic::fmuladd &&
              fusableType(call->getType())) {
            IRBuilder<> b(call);
            fusedValue = fma(b, call->getArgOperand(0), call->getArgOperand(1),
                             call->getArgOperand(2));
          }
        }
        if (!fusedValue)
          continue;
        ++fused;
        fusedValue->takeName(inst);
        inst->replaceAllUsesWith(fusedValue);
        inst->eraseFromParent();
      }
      // Multiplies whose every user fused them are dead now.
      for (Instruction &inst : make_early_inc_range(block))
        if (inst.getOpcode() == Instruction::FMul && inst.use_empty())
          inst.eraseFromParent();
    }
    for (BasicBlock &block : f)
      for (Instruction &inst : block)
        if (isa<FPMathOperator>(inst) && inst.getType()->isFPOrFPVectorTy())
          inst.setHasAllowContract(false);
    if (fused)
      fusions.push_back({f.getName().str(), fused});
  }
  return fusions;
}

std::optional<std::string> mlir::ssd::emulator::whyInvariantKernelsFuse(
    const std::vector<FunctionFusions> &fusions) {
  for (const FunctionFusions &f : fusions)
    if (StringRef(f.function).starts_with(mlir::ssd::kInvariantKernelPrefix))
      return "invariant kernel '" + f.function + "' has " +
             std::to_string(f.count) +
             " contractable multiply-add(s), which NVPTX would fuse into fma "
             "(the invariant arithmetic rounds each product as written)";
  return std::nullopt;
}
