//===- IssueCounts.cpp - instructions per basic block, for issue costs ----===//
//
// The cost model's instruction issue (docs/gpu.md, "Cost counters"): each
// basic block's instructions are counted per IssueClass from the LLVM IR the
// NVPTX backend would compile (before the rewrite adds runtime calls), the
// table goes into the object as __ssdemu_issue, and each block adds 1 to its
// thread's counter when entered; the runtime turns the lanes' counts into
// warp-level issues.
//
// The counts are of LLVM instructions, not of the SASS ptxas makes: moves,
// register shuffling of vector elements, predicate set-up and the
// instructions behind a 64-bit address are left out or approximated, as
// the comments below say. They are what a model of issue costs needs: the
// order of magnitude per class and where it comes from.
//
//===----------------------------------------------------------------------===//

#include "KernelRewriter.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;
using namespace mlir::ssd::emulator;
using ::ssd::emulator::IssueClass;
using ::ssd::emulator::kIssueClasses;

namespace {

using Counts = std::array<uint32_t, kIssueClasses>;

void add(Counts &counts, IssueClass c, uint64_t n) {
  counts[unsigned(c)] += uint32_t(std::min<uint64_t>(n, UINT32_MAX));
}

unsigned lanes(Type *type) {
  if (auto *vector = dyn_cast<FixedVectorType>(type))
    return vector->getNumElements();
  return 1;
}

/// Instructions of an element-wise float op on `type`: f32 one per element,
/// 16-bit types one per pair (HFMA2-style packed instructions), f64 two
/// (the FP64 pipe has half the FP32 lanes on an H100/H200 SM).
uint64_t floatOps(Type *type) {
  const unsigned n = lanes(type);
  Type *element = type->getScalarType();
  if (element->isHalfTy() || element->isBFloatTy())
    return (n + 1) / 2;
  if (element->isDoubleTy())
    return 2 * uint64_t(n);
  return n;
}

/// Instructions of an element-wise integer op: 64-bit ones are two 32-bit
/// halves.
uint64_t intOps(Type *type) {
  const unsigned n = lanes(type);
  Type *element = type->getScalarType();
  if (element->isIntegerTy() && element->getIntegerBitWidth() > 32)
    return 2 * uint64_t(n);
  return n;
}

/// Whether a 64-bit logic op combines a value zero-extended from 32 bits
/// or fewer with a constant (how a wgmma descriptor gets its upper word):
/// the upper half of the result is then the constant's, which needs no
/// instruction of its own per use, so the op is one 32-bit instruction.
bool halfConstantLogic(Instruction &inst) {
  auto *element = dyn_cast<IntegerType>(inst.getType()->getScalarType());
  if (!element || element->getBitWidth() != 64)
    return false;
  auto narrow = [](Value *v) {
    auto *zext = dyn_cast<ZExtInst>(v);
    return zext && zext->getSrcTy()->getScalarSizeInBits() <= 32;
  };
  Value *a = inst.getOperand(0), *b = inst.getOperand(1);
  return (narrow(a) && isa<Constant>(b)) || (narrow(b) && isa<Constant>(a));
}

/// One memory instruction moves at most 16 bytes per lane (ld.v4.b32).
uint64_t memoryOps(uint64_t bytes) {
  return std::max<uint64_t>(1, (bytes + 15) / 16);
}

IssueClass memoryClass(Value *pointer) {
  return pointer->getType()->getPointerAddressSpace() == kSharedAddressSpace
             ? IssueClass::Shared
             : IssueClass::Global;
}

void countNVVM(Counts &counts, StringRef name, Type *type) {
  if (name.starts_with("ex2.") || name.starts_with("lg2.") ||
      name.starts_with("rcp.") || name.starts_with("sqrt.approx") ||
      name.starts_with("rsqrt.") || name.starts_with("sin.") ||
      name.starts_with("cos.") || name.starts_with("tanh."))
    add(counts, IssueClass::Sfu, lanes(type));
  else if (name.starts_with("shfl.") || name.starts_with("vote."))
    add(counts, IssueClass::Shuffle, 1);
  else if (name.starts_with("barrier") || name.starts_with("bar.") ||
           name.starts_with("membar") || name.starts_with("fence") ||
           name.starts_with("cp.async.commit") ||
           name.starts_with("cp.async.wait"))
    add(counts, IssueClass::Barrier, 1);
  else if (name.starts_with("mma.") || name.starts_with("wgmma."))
    add(counts, IssueClass::Tensor, 1);
  else if (name.starts_with("ldmatrix.") || name.starts_with("cp.async."))
    add(counts, IssueClass::Shared, 1);
  else if (name.starts_with("fma.") || name.starts_with("fmin") ||
           name.starts_with("fmax") || name.starts_with("add.r") ||
           name.starts_with("mul.r") || name.starts_with("fabs"))
    add(counts, IssueClass::Fp32, floatOps(type));
  else if (name.contains("2bf16") || name.contains("2h") ||
           name.contains("2f") || name.contains("2i") || name.contains("2ui") ||
           name.contains("2ll") || name.contains("2ull") || name.contains("2d"))
    add(counts, IssueClass::Convert, 1);
  else // special registers (S2R), integer intrinsics
    add(counts, IssueClass::Int, 1);
}

void countCall(Counts &counts, CallBase &call) {
  if (auto *asmCall = dyn_cast<InlineAsm>(call.getCalledOperand())) {
    StringRef text = asmCall->getAsmString();
    if (text.contains("wgmma.mma_async") || text.contains("mma.sync"))
      add(counts, IssueClass::Tensor, 1);
    else if (text.contains("wgmma.") || text.contains("fence") ||
             text.contains("bar."))
      add(counts, IssueClass::Barrier, 1);
    else
      add(counts, IssueClass::Int, 1);
    return;
  }
  Function *callee = call.getCalledFunction();
  if (!callee) {
    add(counts, IssueClass::Branch, 1);
    return;
  }
  StringRef name = callee->getName();
  Type *type = call.getType();
  if (name.consume_front("llvm.nvvm.")) {
    countNVVM(counts, name, type);
    return;
  }
  if (auto *memory = dyn_cast<MemIntrinsic>(&call)) {
    uint64_t bytes = 16;
    if (auto *length = dyn_cast<ConstantInt>(memory->getLength()))
      bytes = length->getZExtValue();
    add(counts, memoryClass(memory->getDest()), memoryOps(bytes));
    if (auto *transfer = dyn_cast<MemTransferInst>(memory))
      add(counts, memoryClass(transfer->getSource()), memoryOps(bytes));
    return;
  }
  switch (callee->getIntrinsicID()) {
  case Intrinsic::not_intrinsic:
    // libdevice (__nv_expf, ...; declarations the rewrite turns into
    // runtime calls): a range reduction around one SFU approximation. A
    // function with a body counts its own blocks.
    if (name.starts_with("__nv_") && callee->isDeclaration()) {
      add(counts, IssueClass::Sfu, 1);
      add(counts, IssueClass::Fp32, 4);
    } else {
      add(counts, IssueClass::Branch, 1);
    }
    return;
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
  case Intrinsic::minnum:
  case Intrinsic::maxnum:
  case Intrinsic::minimum:
  case Intrinsic::maximum:
  case Intrinsic::fabs:
  case Intrinsic::copysign:
  case Intrinsic::floor:
  case Intrinsic::ceil:
  case Intrinsic::trunc:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
  case Intrinsic::round:
  case Intrinsic::roundeven:
    add(counts, IssueClass::Fp32, floatOps(type));
    return;
  case Intrinsic::exp2:
  case Intrinsic::log2:
  case Intrinsic::exp:
  case Intrinsic::log:
  case Intrinsic::sqrt:
  case Intrinsic::sin:
  case Intrinsic::cos:
    // ex2/lg2/sqrt.approx and a scaling multiply (NVPTX's lowering with
    // approximate functions allowed; the exact forms take more).
    add(counts, IssueClass::Sfu, lanes(type));
    add(counts, IssueClass::Fp32, floatOps(type));
    return;
  case Intrinsic::smin:
  case Intrinsic::smax:
  case Intrinsic::umin:
  case Intrinsic::umax:
  case Intrinsic::abs:
  case Intrinsic::ctpop:
  case Intrinsic::ctlz:
  case Intrinsic::cttz:
  case Intrinsic::fshl:
  case Intrinsic::fshr:
  case Intrinsic::bswap:
  case Intrinsic::uadd_with_overflow:
  case Intrinsic::usub_with_overflow:
    add(counts, IssueClass::Int,
        intOps(type->isStructTy() ? type->getStructElementType(0) : type));
    return;
  case Intrinsic::masked_load:
  case Intrinsic::masked_store: {
    Type *data = call.getIntrinsicID() == Intrinsic::masked_load
                     ? type
                     : call.getArgOperand(0)->getType();
    Value *pointer = call.getArgOperand(
        call.getIntrinsicID() == Intrinsic::masked_load ? 0 : 1);
    add(counts, memoryClass(pointer),
        memoryOps(call.getDataLayout().getTypeStoreSize(data)));
    return;
  }
  default:
    // lifetime markers, assumptions, noalias scopes...: no instruction.
    return;
  }
}

Counts countBlock(BasicBlock &block, const DataLayout &layout) {
  Counts counts{};
  for (Instruction &inst : block) {
    Type *type = inst.getType();
    switch (inst.getOpcode()) {
    case Instruction::FNeg:
    case Instruction::FAdd:
    case Instruction::FSub:
    case Instruction::FMul:
    case Instruction::FRem:
      add(counts, IssueClass::Fp32, floatOps(type));
      continue;
    case Instruction::FCmp:
      add(counts, IssueClass::Fp32, floatOps(inst.getOperand(0)->getType()));
      continue;
    case Instruction::FDiv:
      // A reciprocal approximation and its refinement.
      add(counts, IssueClass::Sfu, lanes(type));
      add(counts, IssueClass::Fp32, 4 * floatOps(type));
      continue;
    default:
      break;
    }
    switch (inst.getOpcode()) {
    case Instruction::Mul:
      add(counts, IssueClass::Imad, intOps(type));
      break;
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor:
      add(counts, IssueClass::Int,
          halfConstantLogic(inst) ? lanes(type) : intOps(type));
      break;
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
    case Instruction::Select:
      add(counts, IssueClass::Int, intOps(type));
      break;
    case Instruction::ICmp:
      add(counts, IssueClass::Int, intOps(inst.getOperand(0)->getType()));
      break;
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::URem:
    case Instruction::SRem: {
      // By a power of two: a shift or mask; by another constant: a
      // multiply-high and shifts; by a variable: a reciprocal and about a
      // dozen integer instructions.
      const auto *divisor = dyn_cast<ConstantInt>(inst.getOperand(1));
      if (divisor && divisor->getValue().isPowerOf2()) {
        add(counts, IssueClass::Int, intOps(type));
      } else if (divisor) {
        add(counts, IssueClass::Int, 3 * intOps(type));
      } else {
        add(counts, IssueClass::Sfu, lanes(type));
        add(counts, IssueClass::Int, 12 * intOps(type));
      }
      break;
    }
    case Instruction::GetElementPtr:
      // One multiply-add per variable index (IMAD.WIDE); constant offsets
      // fold into the address.
      for (Use &index : cast<GetElementPtrInst>(inst).indices())
        if (!isa<Constant>(index))
          add(counts, IssueClass::Imad, 1);
      break;
    case Instruction::SExt:
    case Instruction::AddrSpaceCast:
      add(counts, IssueClass::Int, lanes(type));
      break;
    case Instruction::FPExt:
      // bf16 -> f32 is a shift of the bits.
      add(counts,
          inst.getOperand(0)->getType()->getScalarType()->isBFloatTy()
              ? IssueClass::Int
              : IssueClass::Convert,
          lanes(type));
      break;
    case Instruction::FPTrunc:
      // To 16 bits: two elements per cvt.rn.{bf16x2,f16x2}.f32.
      add(counts, IssueClass::Convert,
          type->getScalarSizeInBits() == 16 ? (lanes(type) + 1) / 2
                                            : lanes(type));
      break;
    case Instruction::FPToSI:
    case Instruction::FPToUI:
    case Instruction::SIToFP:
    case Instruction::UIToFP:
      add(counts, IssueClass::Convert, lanes(type));
      break;
    case Instruction::Load:
      add(counts, memoryClass(cast<LoadInst>(inst).getPointerOperand()),
          memoryOps(layout.getTypeStoreSize(type)));
      break;
    case Instruction::Store: {
      auto &store = cast<StoreInst>(inst);
      add(counts, memoryClass(store.getPointerOperand()),
          memoryOps(
              layout.getTypeStoreSize(store.getValueOperand()->getType())));
      break;
    }
    case Instruction::AtomicRMW:
      add(counts, memoryClass(cast<AtomicRMWInst>(inst).getPointerOperand()),
          1);
      break;
    case Instruction::AtomicCmpXchg:
      add(counts,
          memoryClass(cast<AtomicCmpXchgInst>(inst).getPointerOperand()), 1);
      break;
    case Instruction::Fence:
      add(counts, IssueClass::Barrier, 1);
      break;
    case Instruction::Call:
      countCall(counts, cast<CallBase>(inst));
      break;
    case Instruction::Br:
      if (cast<BranchInst>(inst).isConditional())
        add(counts, IssueClass::Branch, 1);
      break;
    case Instruction::Switch:
      add(counts, IssueClass::Branch, cast<SwitchInst>(inst).getNumCases());
      break;
    default:
      // phi, bitcast, zext, trunc, vector element moves, ret: no
      // instruction of their own, or a move left out.
      break;
    }
  }
  return counts;
}

} // namespace

void KernelRewriter::countIssue() {
  for (Function &f : module) {
    if (f.isDeclaration())
      continue;
    for (BasicBlock &block : f) {
      Counts counts = countBlock(block, dataLayout);
      // The issue profile's name for the block (CostStore.h).
      block.setName("issue." + Twine(issueBlocks.size()));
      issueBlocks.push_back(&block);
      issueTable.append(counts.begin(), counts.end());
    }
  }
}

void KernelRewriter::instrumentIssue() {
  DenseMap<Function *, Value *> base;
  for (auto [index, block] : llvm::enumerate(issueBlocks)) {
    Function &f = *block->getParent();
    Value *&counters = base[&f];
    if (!counters) {
      IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
      counters = callRuntime(b, "issue_counts", {});
    }
    IRBuilder<> b(block == &f.getEntryBlock()
                      ? cast<Instruction>(counters)->getNextNode()
                      : &*block->getFirstInsertionPt());
    Value *slot = b.CreateConstInBoundsGEP1_64(
        i32, counters, uint64_t(index) * ::ssd::emulator::kIssueLanes);
    b.CreateStore(b.CreateAdd(b.CreateLoad(i32, slot), u32(1)), slot);
  }
  SmallVector<uint32_t> table;
  table.push_back(uint32_t(issueBlocks.size()));
  table.append(issueTable.begin(), issueTable.end());
  Constant *data = ConstantDataArray::get(context, table);
  auto *global = new GlobalVariable(module, data->getType(), true,
                                    GlobalValue::ExternalLinkage, data,
                                    ::ssd::emulator::kIssueSymbol);
  global->setVisibility(GlobalValue::DefaultVisibility);
}
