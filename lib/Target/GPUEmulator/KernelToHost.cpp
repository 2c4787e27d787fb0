//===- KernelToHost.cpp - NVVM kernels rewritten for the host CPU ---------===//
//
// The kernels arrive as the LLVM IR that the NVPTX backend would compile:
// NVVM intrinsics for special registers, barriers, shuffles, mma.sync,
// ldmatrix and cp.async,
// address space 3 for shared memory, generic or address space 1 pointers for
// global memory. Everything whose meaning depends on the GPU becomes a call
// into the emulator runtime, through a pointer slot per runtime function
// that the loader fills in, so that the object needs no symbol of the
// runtime from the dynamic linker. Plain arithmetic, control flow and
// target-independent intrinsics stay as they are and run natively: the
// emulator executes the very instructions the GPU would, only the
// GPU-specific parts are modelled.
//
// Anything the runtime does not model is an error here, so that a kernel
// never runs with an operation silently skipped.
//
//===----------------------------------------------------------------------===//

#include "KernelToHost.h"

#include "ssd/GPURuntime/EmulatorABI.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using ssd::emulator::AccessFlags;
using ssd::emulator::MathOp;
using ssd::emulator::MmaKind;
using ssd::emulator::ShuffleMode;
using ssd::emulator::SpecialRegister;
using ssd::emulator::VoteMode;

namespace {

constexpr unsigned kSharedAddressSpace = 3;

std::optional<SpecialRegister> specialRegister(StringRef name) {
  return StringSwitch<std::optional<SpecialRegister>>(name)
      .Case("tid.x", SpecialRegister::TidX)
      .Case("tid.y", SpecialRegister::TidY)
      .Case("tid.z", SpecialRegister::TidZ)
      .Case("ntid.x", SpecialRegister::NtidX)
      .Case("ntid.y", SpecialRegister::NtidY)
      .Case("ntid.z", SpecialRegister::NtidZ)
      .Case("ctaid.x", SpecialRegister::CtaidX)
      .Case("ctaid.y", SpecialRegister::CtaidY)
      .Case("ctaid.z", SpecialRegister::CtaidZ)
      .Case("nctaid.x", SpecialRegister::NctaidX)
      .Case("nctaid.y", SpecialRegister::NctaidY)
      .Case("nctaid.z", SpecialRegister::NctaidZ)
      .Case("laneid", SpecialRegister::LaneId)
      .Case("warpid", SpecialRegister::WarpId)
      .Case("nwarpid", SpecialRegister::NWarpId)
      .Case("warpsize", SpecialRegister::WarpSize)
      .Default(std::nullopt);
}

/// NVVM approximate math intrinsics, by name after "llvm.nvvm.".
std::optional<MathOp> approximateMath(StringRef name) {
  return StringSwitch<std::optional<MathOp>>(name)
      .Case("ex2.approx.f", MathOp::Ex2Approx)
      .Case("ex2.approx.f32", MathOp::Ex2Approx)
      .Case("ex2.approx.ftz.f", MathOp::Ex2ApproxFtz)
      .Case("ex2.approx.ftz.f32", MathOp::Ex2ApproxFtz)
      .Case("lg2.approx.f", MathOp::Lg2Approx)
      .Case("lg2.approx.ftz.f", MathOp::Lg2ApproxFtz)
      .Case("rcp.approx.f", MathOp::RcpApprox)
      .Case("rcp.approx.ftz.f", MathOp::RcpApproxFtz)
      .Case("sqrt.approx.f", MathOp::SqrtApprox)
      .Case("sqrt.approx.ftz.f", MathOp::SqrtApproxFtz)
      .Case("rsqrt.approx.f", MathOp::RsqrtApprox)
      .Case("rsqrt.approx.ftz.f", MathOp::RsqrtApproxFtz)
      .Case("sin.approx.f", MathOp::SinApprox)
      .Case("sin.approx.ftz.f", MathOp::SinApproxFtz)
      .Case("cos.approx.f", MathOp::CosApprox)
      .Case("cos.approx.ftz.f", MathOp::CosApproxFtz)
      .Case("tanh.approx.f32", MathOp::TanhApprox)
      .Default(std::nullopt);
}

/// libdevice functions, by name after "__nv_", without the "f" suffix of
/// the single-precision forms.
std::optional<MathOp> libdeviceMath(StringRef name) {
  return StringSwitch<std::optional<MathOp>>(name)
      .Case("exp", MathOp::Exp)
      .Case("exp2", MathOp::Exp2)
      .Case("expm1", MathOp::Expm1)
      .Case("log", MathOp::Log)
      .Case("log2", MathOp::Log2)
      .Case("log1p", MathOp::Log1p)
      .Case("sqrt", MathOp::Sqrt)
      .Case("rsqrt", MathOp::Rsqrt)
      .Case("tanh", MathOp::Tanh)
      .Case("sin", MathOp::Sin)
      .Case("cos", MathOp::Cos)
      .Case("erf", MathOp::Erf)
      .Case("fabs", MathOp::Fabs)
      .Case("floor", MathOp::Floor)
      .Case("ceil", MathOp::Ceil)
      .Case("trunc", MathOp::Trunc)
      .Case("round", MathOp::Round)
      .Default(std::nullopt);
}

struct MmaShape {
  MmaKind kind;
  unsigned aRegs, bRegs;
};

std::optional<MmaShape> mmaShape(StringRef name) {
  return StringSwitch<std::optional<MmaShape>>(name)
      .Case("mma.m16n8k16.row.col.bf16", MmaShape{MmaKind::M16N8K16BF16, 4, 2})
      .Case("mma.m16n8k16.row.col.f32.f32",
            MmaShape{MmaKind::M16N8K16F16, 4, 2})
      .Case("mma.m16n8k8.row.col.bf16", MmaShape{MmaKind::M16N8K8BF16, 2, 1})
      .Case("mma.m16n8k8.row.col.f32.f32", MmaShape{MmaKind::M16N8K8F16, 2, 1})
      .Default(std::nullopt);
}

/// Generic intrinsics that touch memory and are handled or harmless.
bool isHandledMemoryIntrinsic(Intrinsic::ID id) {
  switch (id) {
  case Intrinsic::memcpy:
  case Intrinsic::memcpy_inline:
  case Intrinsic::memmove:
  case Intrinsic::memset:
  case Intrinsic::memset_inline:
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::prefetch:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::invariant_start:
  case Intrinsic::invariant_end:
  case Intrinsic::trap:
  case Intrinsic::debugtrap:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
    return true;
  default:
    return false;
  }
}

class KernelRewriter {
public:
  KernelRewriter(Module &module, StringRef chip)
      : module(module), context(module.getContext()), chip(chip.str()),
        dataLayout(module.getDataLayout()) {
    i1 = Type::getInt1Ty(context);
    i8 = Type::getInt8Ty(context);
    i32 = Type::getInt32Ty(context);
    i64 = Type::getInt64Ty(context);
    f32 = Type::getFloatTy(context);
    f64 = Type::getDoubleTy(context);
    ptr = PointerType::get(context, 0);
  }

  bool run(std::string &message) {
    for (Function &f : module)
      if (!f.isDeclaration() && f.getCallingConv() == CallingConv::PTX_Kernel)
        kernels.push_back(&f);
    markEndlessLoops();
    if (!layOutSharedMemory() || !rewriteInstructions() || !finish())
      return fail(message);
    std::string verifierOutput;
    raw_string_ostream os(verifierOutput);
    if (verifyModule(module, &os)) {
      error = "internal error: the rewritten kernel module is invalid: " +
              verifierOutput.substr(0, verifierOutput.find('\n'));
      return fail(message);
    }
    return true;
  }

private:
  Module &module;
  LLVMContext &context;
  std::string chip;
  const DataLayout &dataLayout;
  Type *i1, *i8, *i32, *i64, *f32, *f64;
  PointerType *ptr;

  SmallVector<Function *> kernels;
  std::string error;
  std::string sites;
  unsigned siteCount = 0;
  StringMap<GlobalVariable *> importSlots;
  /// Barriers rewritten so far, per function.
  DenseMap<const Function *, unsigned> barrierCount;
  /// Calls into the runtime made here, not to be rewritten again.
  DenseSet<const Instruction *> runtimeCalls;

  struct SharedBuffer {
    std::string name;
    uint64_t offset, bytes;
  };
  SmallVector<SharedBuffer> sharedBuffers;
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedOffset = 0;
  DenseMap<Function *, Value *> sharedBase;

  bool fail(std::string &message) {
    message = error;
    return false;
  }
  bool setError(const Twine &text) {
    if (error.empty())
      error = text.str();
    return false;
  }

  //===------------------------------------------------------------------===//
  // Runtime calls
  //===------------------------------------------------------------------===//

  FunctionType *importType(StringRef name) {
    Type *voidTy = Type::getVoidTy(context);
    return StringSwitch<FunctionType *>(name)
        .Case("sreg", FunctionType::get(i32, {i32}, false))
        .Case("barrier", FunctionType::get(voidTy, {i32, i32, i32}, false))
        .Case("syncwarp", FunctionType::get(voidTy, {i32, i32}, false))
        .Case("shfl", FunctionType::get(
                          i32, {i32, i32, i32, i32, i32, i32, ptr}, false))
        .Case("vote", FunctionType::get(i32, {i32, i32, i32, i32}, false))
        .Case("mma",
              FunctionType::get(voidTy, {i32, i32, ptr, ptr, ptr, ptr}, false))
        .Case("global", FunctionType::get(ptr, {ptr, i64, i32, i32}, false))
        .Case("shared", FunctionType::get(ptr, {ptr, i64, i32, i32}, false))
        .Case("shared_base", FunctionType::get(ptr, {}, false))
        .Case("math_f32", FunctionType::get(f32, {i32, f32}, false))
        .Case("math_f64", FunctionType::get(f64, {i32, f64}, false))
        .Case("trap", FunctionType::get(voidTy, {i32}, false))
        .Case("ldmatrix",
              FunctionType::get(voidTy, {i32, i32, ptr, ptr}, false))
        .Case("cp_async",
              FunctionType::get(voidTy, {i32, ptr, ptr, i32, i32}, false))
        .Case("cp_async_commit", FunctionType::get(voidTy, {i32}, false))
        .Case("cp_async_wait", FunctionType::get(voidTy, {i32, i32}, false))
        .Case("fence", FunctionType::get(voidTy, {i32}, false))
        .Case("hang", FunctionType::get(voidTy, {i32}, false))
        .Default(nullptr);
  }

  /// Calls runtime function `name` through its import slot.
  Value *callRuntime(IRBuilder<> &b, StringRef name, ArrayRef<Value *> args) {
    GlobalVariable *&slot = importSlots[name];
    if (!slot) {
      slot = new GlobalVariable(
          module, ptr, /*isConstant=*/false, GlobalValue::ExternalLinkage,
          ConstantPointerNull::get(ptr),
          std::string(ssd::emulator::kImportPrefix) + name.str());
      slot->setVisibility(GlobalValue::DefaultVisibility);
    }
    Value *function = b.CreateLoad(ptr, slot, "ssdemu." + name);
    CallInst *call = b.CreateCall(importType(name), function, args);
    runtimeCalls.insert(call);
    return call;
  }

  /// A new call-site id, described for the runtime's messages.
  Value *site(Function &f, const Twine &what) {
    sites += (f.getName() + ": " + what + "\n").str();
    return ConstantInt::get(i32, siteCount++);
  }

  /// A barrier's site, numbered in code order within its function: every
  /// barrier instruction prints the same, and messages about threads at
  /// different barriers must tell them apart.
  Value *barrierSite(Function &f) {
    return site(f, "barrier #" + Twine(++barrierCount[&f]));
  }

  std::string describe(const Instruction &inst) {
    std::string text;
    raw_string_ostream os(text);
    inst.print(os);
    StringRef trimmed = StringRef(text).trim();
    if (trimmed.size() > 120)
      return (trimmed.take_front(117) + "...").str();
    return trimmed.str();
  }

  Value *u32(uint32_t v) { return ConstantInt::get(i32, v); }

  AllocaInst *entryAlloca(Function &f, Type *type, const Twine &name) {
    IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    return b.CreateAlloca(type, nullptr, name);
  }

  //===------------------------------------------------------------------===//
  // Loops without exit
  //===------------------------------------------------------------------===//

  /// Code from which no path leads out of its function loops forever: on a
  /// GPU the thread hangs, and the host would hang with it, the more so as
  /// such a loop often contains no runtime call at all (a wait on a plain
  /// load that the optimizer hoisted out of the loop, leaving `br` to
  /// itself). Where control enters such code, a runtime call reports it.
  void markEndlessLoops() {
    for (Function &f : module) {
      if (f.isDeclaration())
        continue;
      // Blocks with a path to a block without successors (ret, unreachable).
      DenseSet<const BasicBlock *> leaving;
      SmallVector<BasicBlock *> work;
      for (BasicBlock &block : f)
        if (succ_empty(&block) && leaving.insert(&block).second)
          work.push_back(&block);
      while (!work.empty())
        for (BasicBlock *pred : predecessors(work.pop_back_val()))
          if (leaving.insert(pred).second)
            work.push_back(pred);
      SmallVector<BasicBlock *> entered;
      for (BasicBlock &block : f)
        if (!leaving.contains(&block) &&
            (&block == &f.getEntryBlock() ||
             any_of(predecessors(&block),
                    [&](BasicBlock *pred) { return leaving.contains(pred); })))
          entered.push_back(&block);
      for (BasicBlock *block : entered) {
        IRBuilder<> b(&*block->getFirstInsertionPt());
        callRuntime(b, "hang",
                    {site(f, "a loop without exit, entered at " +
                                 describe(*block->getFirstNonPHIOrDbg()))});
      }
    }
  }

  //===------------------------------------------------------------------===//
  // Shared memory
  //===------------------------------------------------------------------===//

  /// Static shared variables get fixed offsets in the block's shared memory
  /// (in declaration order); dynamic shared memory (an external, unsized
  /// shared array) starts after them, 16-byte aligned, as in CUDA.
  bool layOutSharedMemory() {
    SmallVector<GlobalVariable *> shared;
    for (GlobalVariable &g : module.globals())
      if (g.getAddressSpace() == kSharedAddressSpace)
        shared.push_back(&g);
    SmallVector<std::pair<GlobalVariable *, uint64_t>> offsets;
    uint64_t end = 0;
    SmallVector<GlobalVariable *> dynamic;
    for (GlobalVariable *g : shared) {
      if (g->hasInitializer() && !isa<UndefValue>(g->getInitializer()))
        return setError("shared variable @" + g->getName() +
                        " has an initializer; shared memory cannot be "
                        "initialized");
      uint64_t bytes = dataLayout.getTypeAllocSize(g->getValueType());
      if (g->isDeclaration() || bytes == 0) {
        dynamic.push_back(g);
        continue;
      }
      uint64_t align =
          std::max<uint64_t>(4, g->getAlign().valueOrOne().value());
      uint64_t offset = alignTo(end, align);
      offsets.push_back({g, offset});
      sharedBuffers.push_back({g->getName().str(), offset, bytes});
      end = offset + bytes;
    }
    staticSharedBytes = end;
    if (staticSharedBytes > ssd::emulator::kStaticSharedLimit) {
      std::string names;
      for (Function *k : kernels)
        names += (names.empty() ? "" : ", ") + k->getName().str();
      return setError("kernel " + names + " uses " + Twine(staticSharedBytes) +
                      " bytes of static shared memory, more than the " +
                      Twine(ssd::emulator::kStaticSharedLimit) +
                      " that ptxas accepts (larger buffers must be dynamic "
                      "shared memory)");
    }
    dynamicSharedOffset = alignTo(end, 16);
    for (GlobalVariable *g : dynamic)
      offsets.push_back({g, dynamicSharedOffset});

    for (auto [g, offset] : offsets) {
      convertUsersOfConstantsToInstructions({g});
      SmallVector<Use *> uses;
      for (Use &use : g->uses())
        uses.push_back(&use);
      for (Use *use : uses) {
        auto *user = dyn_cast<Instruction>(use->getUser());
        if (!user)
          return setError("shared variable @" + g->getName() +
                          " is used outside any function");
        Function &f = *user->getFunction();
        IRBuilder<> b(cast<Instruction>(sharedBaseOf(f))->getNextNode());
        Value *address =
            b.CreateGEP(i8, sharedBaseOf(f), b.getInt64(offset), g->getName());
        use->set(b.CreateAddrSpaceCast(address, g->getType()));
      }
      g->eraseFromParent();
    }
    return true;
  }

  /// This block's shared memory, fetched once at the entry of `f`.
  Value *sharedBaseOf(Function &f) {
    Value *&base = sharedBase[&f];
    if (!base) {
      IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
      base = callRuntime(b, "shared_base", {});
    }
    return base;
  }

  //===------------------------------------------------------------------===//
  // Instructions
  //===------------------------------------------------------------------===//

  bool rewriteInstructions() {
    SmallVector<Instruction *> work;
    for (Function &f : module)
      if (!f.isDeclaration())
        for (BasicBlock &block : f)
          for (Instruction &inst : block)
            if (isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst,
                    FenceInst, CallBase>(inst) &&
                !runtimeCalls.contains(&inst))
              work.push_back(&inst);
    for (Instruction *inst : work) {
      bool ok = true;
      if (auto *call = dyn_cast<CallBase>(inst))
        ok = rewriteCall(*call);
      else if (auto *fence = dyn_cast<FenceInst>(inst))
        rewriteFence(*fence);
      else
        ok = instrumentAccess(*inst);
      if (!ok)
        return false;
    }
    return true;
  }

  /// The host address to use for an access of `bytes` at `address` that
  /// promises `alignment`, after the runtime checked it. Local (alloca) and
  /// module-global objects need no check; null when the access is left
  /// alone.
  Value *checkedAddress(IRBuilder<> &b, Instruction &inst, Value *address,
                        Value *bytes, uint32_t flags, Align alignment) {
    const Value *object = getUnderlyingObject(address, /*MaxLookup=*/0);
    if (isa<AllocaInst>(object) || isa<GlobalVariable>(object))
      return nullptr;
    unsigned space = address->getType()->getPointerAddressSpace();
    Function &f = *inst.getFunction();
    flags |= ssd::emulator::accessAlignFlags(alignment.value());
    if (space == kSharedAddressSpace)
      return callRuntime(b, "shared",
                         {b.CreateAddrSpaceCast(address, ptr), bytes,
                          u32(flags), site(f, describe(inst))});
    if (space == 0 || space == 1)
      return callRuntime(b, "global",
                         {b.CreateAddrSpaceCast(address, ptr), bytes,
                          u32(flags), site(f, describe(inst))});
    setError("kernel " + f.getName() + " accesses memory in address space " +
             Twine(space) +
             ", which the emulator does not model: " + describe(inst));
    return nullptr;
  }

  bool instrumentAccess(Instruction &inst) {
    IRBuilder<> b(&inst);
    Value *address = getLoadStorePointerOperand(&inst);
    Type *accessed = nullptr;
    uint32_t flags = AccessFlags::AccessRead;
    unsigned operand = 0;
    Align alignment;
    if (auto *load = dyn_cast<LoadInst>(&inst)) {
      accessed = load->getType();
      alignment = load->getAlign();
      operand = LoadInst::getPointerOperandIndex();
      // ld.acquire (and ld.volatile, which PTX polls are written with).
      if (isAcquireOrStronger(load->getOrdering()) || load->isVolatile())
        flags |= AccessFlags::AccessAcquire;
      // ld.relaxed / ld.volatile: strong, but ordering nothing by itself.
      if ((load->isAtomic() && !isAcquireOrStronger(load->getOrdering())) ||
          load->isVolatile())
        flags |= AccessFlags::AccessRelaxed;
    } else if (auto *store = dyn_cast<StoreInst>(&inst)) {
      accessed = store->getValueOperand()->getType();
      alignment = store->getAlign();
      flags = AccessFlags::AccessWrite;
      operand = StoreInst::getPointerOperandIndex();
      if (isReleaseOrStronger(store->getOrdering()))
        flags |= AccessFlags::AccessRelease;
      else if (store->isAtomic() || store->isVolatile())
        flags |= AccessFlags::AccessRelaxed;
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst)) {
      address = rmw->getPointerOperand();
      alignment = rmw->getAlign();
      accessed = rmw->getValOperand()->getType();
      // NVPTX emits every atomicrmw as a plain `atom` (relaxed), whatever
      // its LLVM ordering: no acquire or release of its own.
      flags = AccessFlags::AccessAtomic | AccessFlags::AccessWrite;
      operand = AtomicRMWInst::getPointerOperandIndex();
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&inst)) {
      address = cas->getPointerOperand();
      alignment = cas->getAlign();
      accessed = cas->getCompareOperand()->getType();
      // cmpxchg keeps its ordering in PTX: atom.{relaxed,acquire,release,
      // acq_rel}.cas, and seq_cst is fence.sc and atom.acquire.cas.
      flags = AccessFlags::AccessAtomic | AccessFlags::AccessWrite;
      AtomicOrdering ordering = cas->getSuccessOrdering();
      if (isAcquireOrStronger(ordering))
        flags |= AccessFlags::AccessAcquire;
      if (isReleaseOrStronger(ordering))
        flags |= AccessFlags::AccessRelease;
      operand = AtomicCmpXchgInst::getPointerOperandIndex();
    }
    Value *bytes = b.getInt64(dataLayout.getTypeStoreSize(accessed));
    Value *host = checkedAddress(b, inst, address, bytes, flags, alignment);
    if (!error.empty())
      return false;
    if (host)
      inst.setOperand(operand, host);
    return true;
  }

  bool rewriteMemoryIntrinsic(MemIntrinsic &mem) {
    IRBuilder<> b(&mem);
    Value *length = b.CreateZExtOrTrunc(mem.getLength(), i64);
    Value *dest =
        checkedAddress(b, mem, mem.getDest(), length, AccessFlags::AccessWrite,
                       mem.getDestAlign().valueOrOne());
    if (!error.empty())
      return false;
    Value *source = nullptr;
    auto *transfer = dyn_cast<MemTransferInst>(&mem);
    if (transfer) {
      source = checkedAddress(b, mem, transfer->getSource(), length,
                              AccessFlags::AccessRead,
                              transfer->getSourceAlign().valueOrOne());
      if (!error.empty())
        return false;
    }
    if (!dest && !source)
      return true;
    Value *newDest = dest ? dest : b.CreateAddrSpaceCast(mem.getDest(), ptr);
    if (auto *set = dyn_cast<MemSetInst>(&mem)) {
      b.CreateMemSet(newDest, set->getValue(), length, set->getDestAlign(),
                     set->isVolatile());
    } else {
      Value *newSource =
          source ? source : b.CreateAddrSpaceCast(transfer->getSource(), ptr);
      if (isa<MemMoveInst>(&mem))
        b.CreateMemMove(newDest, transfer->getDestAlign(), newSource,
                        transfer->getSourceAlign(), length,
                        transfer->isVolatile());
      else
        b.CreateMemCpy(newDest, transfer->getDestAlign(), newSource,
                       transfer->getSourceAlign(), length,
                       transfer->isVolatile());
    }
    mem.eraseFromParent();
    return true;
  }

  /// An LLVM fence of device or system scope becomes a runtime fence too
  /// (see membar.gl); the host fence stays.
  void rewriteFence(FenceInst &fence) {
    SmallVector<StringRef> scopes;
    context.getSyncScopeNames(scopes);
    StringRef scope = fence.getSyncScopeID() < scopes.size()
                          ? scopes[fence.getSyncScopeID()]
                          : StringRef();
    if (scope == "block" || scope == "singlethread" || scope == "wavefront")
      return;
    IRBuilder<> b(&fence);
    callRuntime(b, "fence", {site(*fence.getFunction(), describe(fence))});
  }

  bool rewriteCall(CallBase &call) {
    Function &f = *call.getFunction();
    if (call.isInlineAsm()) {
      auto *asmValue = cast<InlineAsm>(call.getCalledOperand());
      return setError("kernel " + f.getName() +
                      " contains inline PTX assembly, which the emulator "
                      "cannot execute: \"" +
                      asmValue->getAsmString() + "\"");
    }
    Function *callee = call.getCalledFunction();
    if (!callee)
      return setError("kernel " + f.getName() +
                      " makes an indirect call, which the emulator does not "
                      "support: " +
                      describe(call));
    StringRef name = callee->getName();
    if (name.consume_front("llvm.nvvm."))
      return rewriteNVVM(call, name);
    if (callee->isIntrinsic()) {
      if (auto *mem = dyn_cast<MemIntrinsic>(&call))
        return rewriteMemoryIntrinsic(*mem);
      Intrinsic::ID id = callee->getIntrinsicID();
      if (id == Intrinsic::trap || id == Intrinsic::debugtrap) {
        IRBuilder<> b(&call);
        callRuntime(b, "trap", {site(f, "trap")});
        call.eraseFromParent();
        return true;
      }
      if (id == Intrinsic::prefetch) {
        call.eraseFromParent();
        return true;
      }
      if (call.mayReadOrWriteMemory() && !isHandledMemoryIntrinsic(id))
        return setError("kernel " + f.getName() + " calls " +
                        callee->getName() +
                        ", a memory intrinsic the emulator does not check");
      return true;
    }
    if (!callee->isDeclaration())
      return true; // a device function of this module, rewritten itself
    if (name.consume_front("__nv_"))
      return rewriteLibdevice(call, name);
    return setError("kernel " + f.getName() + " calls external function @" +
                    callee->getName() +
                    ", which the emulator does not provide");
  }

  bool unsupportedNVVM(CallBase &call, StringRef name) {
    return setError("the GPU emulator does not implement NVVM intrinsic "
                    "llvm.nvvm." +
                    name + " (in kernel " + call.getFunction()->getName() +
                    ")");
  }

  bool rewriteNVVM(CallBase &call, StringRef name) {
    Function &f = *call.getFunction();
    IRBuilder<> b(&call);
    Value *result = nullptr;
    auto arg = [&](unsigned i) { return call.getArgOperand(i); };

    if (name.consume_front("read.ptx.sreg.")) {
      std::optional<SpecialRegister> reg = specialRegister(name);
      if (!reg)
        return unsupportedNVVM(call, ("read.ptx.sreg." + name).str());
      result = callRuntime(b, "sreg", {u32(static_cast<uint32_t>(*reg))});
      result = b.CreateZExtOrTrunc(result, call.getType());
    } else if (name == "barrier0") {
      callRuntime(b, "barrier", {barrierSite(f), u32(0), u32(0)});
    } else if (name == "barrier.cta.sync.aligned.all" ||
               name == "barrier.cta.sync.all" || name == "barrier.sync") {
      callRuntime(b, "barrier", {barrierSite(f), arg(0), u32(0)});
    } else if (name == "barrier.cta.sync.aligned.count" ||
               name == "barrier.cta.sync.count" || name == "barrier.sync.cnt") {
      callRuntime(b, "barrier", {barrierSite(f), arg(0), arg(1)});
    } else if (name == "bar.warp.sync") {
      callRuntime(b, "syncwarp", {site(f, "bar.warp.sync"), arg(0)});
    } else if (name == "membar.gl" || name == "membar.sys" ||
               name == "fence.sc.cluster") {
      // A fence beyond the block: the runtime's cross-block race check
      // needs it (a block's stores are published by a release only when
      // fenced); the host needs nothing (one block's threads run on one OS
      // thread, the publishing stores and polls are host atomics).
      callRuntime(b, "fence", {site(f, "llvm.nvvm." + name)});
    } else if (name.starts_with("membar.") || name.starts_with("fence.")) {
      // Block scope (membar.cta) and proxy fences order nothing here.
    } else if (name == "nanosleep") {
      // A spin loop's backoff: the runtime switches threads at the poll.
    } else if (name.consume_front("shfl.sync.")) {
      if (!rewriteShuffle(call, b, name, result))
        return false;
    } else if (name.consume_front("vote.")) {
      VoteMode mode;
      if (name == "all.sync")
        mode = VoteMode::All;
      else if (name == "any.sync")
        mode = VoteMode::Any;
      else if (name == "uni.sync")
        mode = VoteMode::Uni;
      else if (name == "ballot.sync")
        mode = VoteMode::Ballot;
      else
        return unsupportedNVVM(call, ("vote." + name).str());
      Value *vote = callRuntime(b, "vote",
                                {site(f, "vote." + name),
                                 u32(static_cast<uint32_t>(mode)), arg(0),
                                 b.CreateZExt(arg(1), i32)});
      result = mode == VoteMode::Ballot ? vote : b.CreateTrunc(vote, i1);
    } else if (name.starts_with("ldmatrix.")) {
      result = rewriteLdmatrix(call, b, name);
      if (!result)
        return false;
    } else if (name.starts_with("cp.async.")) {
      if (!rewriteCpAsync(call, b, name))
        return false;
    } else if (std::optional<MmaShape> shape = mmaShape(name)) {
      result = rewriteMma(call, b, *shape, name);
      if (!result)
        return false;
    } else if (std::optional<MathOp> op = approximateMath(name)) {
      if (!call.getType()->isFloatTy())
        return unsupportedNVVM(call, name);
      result =
          callRuntime(b, "math_f32", {u32(static_cast<uint32_t>(*op)), arg(0)});
    } else if (name == "fmin.f" || name == "fmax.f") {
      // PTX min/max return the other operand when one is NaN, like
      // minnum/maxnum.
      result = name == "fmin.f" ? b.CreateMinNum(arg(0), arg(1))
                                : b.CreateMaxNum(arg(0), arg(1));
    } else {
      return unsupportedNVVM(call, name);
    }
    if (result)
      call.replaceAllUsesWith(result);
    call.eraseFromParent();
    return true;
  }

  bool rewriteShuffle(CallBase &call, IRBuilder<> &b, StringRef name,
                      Value *&result) {
    // shfl.sync.<mode>.<i32|f32>[p](mask, value, lane or delta, clamp)
    StringRef mode, type;
    std::tie(mode, type) = name.split('.');
    std::optional<ShuffleMode> shuffle =
        StringSwitch<std::optional<ShuffleMode>>(mode)
            .Case("idx", ShuffleMode::Idx)
            .Case("up", ShuffleMode::Up)
            .Case("down", ShuffleMode::Down)
            .Case("bfly", ShuffleMode::Bfly)
            .Default(std::nullopt);
    bool withPredicate = type.consume_back("p");
    if (!shuffle || (type != "i32" && type != "f32"))
      return unsupportedNVVM(call, ("shfl.sync." + name).str());
    Function &f = *call.getFunction();
    Value *value = call.getArgOperand(1);
    Type *valueType = value->getType();
    AllocaInst *inRange = entryAlloca(f, i8, "ssdemu.shfl.pred");
    Value *shuffled = callRuntime(
        b, "shfl",
        {site(f, "shfl.sync." + name), u32(static_cast<uint32_t>(*shuffle)),
         call.getArgOperand(0), b.CreateBitCast(value, i32),
         call.getArgOperand(2), call.getArgOperand(3), inRange});
    shuffled = b.CreateBitCast(shuffled, valueType);
    if (!withPredicate) {
      result = shuffled;
      return true;
    }
    Value *predicate = b.CreateTrunc(b.CreateLoad(i8, inRange), i1);
    Value *pair = PoisonValue::get(call.getType());
    pair = b.CreateInsertValue(pair, shuffled, 0);
    result = b.CreateInsertValue(pair, predicate, 1);
    return true;
  }

  /// mma.sync: operands go to the runtime through stack arrays, since the
  /// warp's 32 lanes must all arrive before any result exists.
  Value *rewriteMma(CallBase &call, IRBuilder<> &b, const MmaShape &shape,
                    StringRef name) {
    Function &f = *call.getFunction();
    unsigned expected = shape.aRegs + shape.bRegs + 4;
    auto *resultType = dyn_cast<StructType>(call.getType());
    if (call.arg_size() != expected || !resultType ||
        resultType->getNumElements() != 4) {
      unsupportedNVVM(call, name);
      return nullptr;
    }
    auto *aArray = entryAlloca(f, ArrayType::get(i32, shape.aRegs), "ssdemu.a");
    auto *bArray = entryAlloca(f, ArrayType::get(i32, shape.bRegs), "ssdemu.b");
    auto *cArray = entryAlloca(f, ArrayType::get(f32, 4), "ssdemu.c");
    auto *dArray = entryAlloca(f, ArrayType::get(f32, 4), "ssdemu.d");
    for (unsigned i = 0; i < expected; ++i) {
      Value *operand = call.getArgOperand(i);
      if (i < shape.aRegs + shape.bRegs) {
        // bf16 operands arrive as i32, f16 ones as <2 x half>: same bits.
        operand = b.CreateBitCast(operand, i32);
        bool isA = i < shape.aRegs;
        unsigned index = isA ? i : i - shape.aRegs;
        b.CreateStore(operand, b.CreateConstInBoundsGEP1_32(
                                   i32, isA ? aArray : bArray, index));
      } else {
        if (!operand->getType()->isFloatTy()) {
          unsupportedNVVM(call, name);
          return nullptr;
        }
        b.CreateStore(operand, b.CreateConstInBoundsGEP1_32(
                                   f32, cArray, i - shape.aRegs - shape.bRegs));
      }
    }
    callRuntime(b, "mma",
                {site(f, describe(call)),
                 u32(static_cast<uint32_t>(shape.kind)), aArray, bArray, cArray,
                 dArray});
    Value *result = PoisonValue::get(resultType);
    for (unsigned i = 0; i < 4; ++i)
      result = b.CreateInsertValue(
          result,
          b.CreateLoad(f32, b.CreateConstInBoundsGEP1_32(f32, dArray, i)), i);
    return result;
  }

  /// ldmatrix.sync.aligned.m8n8.x<N>[.trans].b16.<p3|p0>(row address): a
  /// warp collective; the runtime writes the lane's N registers (one per
  /// matrix) to a stack array.
  Value *rewriteLdmatrix(CallBase &call, IRBuilder<> &b, StringRef name) {
    Function &f = *call.getFunction();
    StringRef rest = name;
    unsigned matrices = 0;
    bool trans = false;
    if (rest.consume_front("ldmatrix.sync.aligned.m8n8.x")) {
      if (rest.consume_front("1"))
        matrices = 1;
      else if (rest.consume_front("2"))
        matrices = 2;
      else if (rest.consume_front("4"))
        matrices = 4;
      trans = rest.consume_front(".trans");
      // The pointer overload: .p3 (shared) or .p0 (generic, into shared).
      if (!rest.consume_front(".b16") ||
          !(rest.empty() || rest == ".p3" || rest == ".p0"))
        matrices = 0;
    }
    Type *type = call.getType();
    auto *structType = dyn_cast<StructType>(type);
    unsigned results = structType ? structType->getNumElements() : 1;
    if (!matrices || call.arg_size() != 1 || results != matrices ||
        (structType ? !all_of(structType->elements(),
                              [&](Type *t) { return t == i32; })
                    : type != i32)) {
      unsupportedNVVM(call, name);
      return nullptr;
    }
    auto *registers =
        entryAlloca(f, ArrayType::get(i32, matrices), "ssdemu.ldmatrix");
    uint32_t mode = matrices | (trans ? ssd::emulator::kLdmatrixTrans : 0);
    callRuntime(b, "ldmatrix",
                {site(f, describe(call)), u32(mode),
                 b.CreateAddrSpaceCast(call.getArgOperand(0), ptr), registers});
    if (!structType)
      return b.CreateLoad(i32, registers);
    Value *result = PoisonValue::get(type);
    for (unsigned i = 0; i < matrices; ++i)
      result = b.CreateInsertValue(
          result,
          b.CreateLoad(i32, b.CreateConstInBoundsGEP1_32(i32, registers, i)),
          i);
    return result;
  }

  /// cp.async.{ca,cg}.shared.global.{4,8,16}[.s](dst, src[, src-size]),
  /// cp.async.commit.group, cp.async.wait.group(N), cp.async.wait.all.
  bool rewriteCpAsync(CallBase &call, IRBuilder<> &b, StringRef name) {
    Function &f = *call.getFunction();
    if (name == "cp.async.commit.group") {
      callRuntime(b, "cp_async_commit", {site(f, "cp.async.commit_group")});
      return true;
    }
    if (name == "cp.async.wait.group") {
      callRuntime(b, "cp_async_wait",
                  {site(f, describe(call)),
                   b.CreateZExtOrTrunc(call.getArgOperand(0), i32)});
      return true;
    }
    if (name == "cp.async.wait.all") {
      // PTX: cp.async.wait_all is cp.async.commit_group followed by
      // cp.async.wait_group 0.
      callRuntime(b, "cp_async_commit", {site(f, "cp.async.wait_all")});
      callRuntime(b, "cp_async_wait", {site(f, "cp.async.wait_all"), u32(0)});
      return true;
    }
    StringRef rest = name;
    unsigned bytes = 0;
    bool cg = false;
    if (rest.consume_front("cp.async.ca.shared.global.") ||
        (cg = rest.consume_front("cp.async.cg.shared.global."))) {
      bool withSize = rest.consume_back(".s");
      unsigned value = 0;
      if (!rest.getAsInteger(10, value) &&
          (value == 16 || (!cg && (value == 4 || value == 8))) &&
          call.arg_size() == (withSize ? 3u : 2u))
        bytes = value;
    }
    if (!bytes)
      return unsupportedNVVM(call, name);
    Value *srcBytes = call.arg_size() == 3
                          ? b.CreateZExtOrTrunc(call.getArgOperand(2), i32)
                          : u32(bytes);
    callRuntime(b, "cp_async",
                {site(f, describe(call)),
                 b.CreateAddrSpaceCast(call.getArgOperand(0), ptr),
                 b.CreateAddrSpaceCast(call.getArgOperand(1), ptr), u32(bytes),
                 srcBytes});
    return true;
  }

  bool rewriteLibdevice(CallBase &call, StringRef name) {
    Type *type = call.getType();
    bool single = type->isFloatTy();
    StringRef base = name;
    if (single && !base.consume_back("f"))
      base = "";
    std::optional<MathOp> op = libdeviceMath(base);
    if (!op || (!single && !type->isDoubleTy()) || call.arg_size() != 1)
      return setError("kernel " + call.getFunction()->getName() +
                      " calls libdevice function __nv_" + name +
                      ", which the emulator does not provide");
    IRBuilder<> b(&call);
    Value *result =
        callRuntime(b, single ? "math_f32" : "math_f64",
                    {u32(static_cast<uint32_t>(*op)), call.getArgOperand(0)});
    call.replaceAllUsesWith(result);
    call.eraseFromParent();
    return true;
  }

  //===------------------------------------------------------------------===//
  // Entry points and descriptions
  //===------------------------------------------------------------------===//

  static std::string parameterCode(Type *type, const DataLayout &layout) {
    if (type->isPointerTy())
      return "p";
    if (type->isIntegerTy())
      return "i" + std::to_string(type->getIntegerBitWidth());
    if (type->isFloatingPointTy())
      return "f" +
             std::to_string(layout.getTypeSizeInBits(type).getFixedValue());
    return "";
  }

  bool addEntryPoint(Function &kernel, std::string &info) {
    FunctionType *entryType =
        FunctionType::get(Type::getVoidTy(context), {ptr}, false);
    Function *entry = Function::Create(
        entryType, GlobalValue::ExternalLinkage,
        std::string(ssd::emulator::kEntryPrefix) + kernel.getName().str(),
        module);
    IRBuilder<> b(BasicBlock::Create(context, "entry", entry));
    Value *params = entry->getArg(0);
    SmallVector<Value *> args;
    std::string codes;
    for (Argument &arg : kernel.args()) {
      Type *type = arg.getType();
      std::string code = parameterCode(type, dataLayout);
      if (code.empty() || arg.hasByValAttr())
        return setError("kernel " + kernel.getName() + " has parameter #" +
                        Twine(arg.getArgNo()) +
                        " of a type the emulator cannot pass");
      codes += (codes.empty() ? "" : ",") + code;
      Value *slot = b.CreateLoad(
          ptr, b.CreateConstInBoundsGEP1_64(ptr, params, arg.getArgNo()));
      args.push_back(b.CreateLoad(type, slot));
    }
    b.CreateCall(&kernel, args);
    b.CreateRetVoid();

    std::string maxThreads = "0,0,0";
    if (Attribute attr = kernel.getFnAttribute("nvvm.maxntid");
        attr.isStringAttribute()) {
      maxThreads = attr.getValueAsString().str();
      // Fewer than three extents: the missing ones are 1.
      size_t commas = std::count(maxThreads.begin(), maxThreads.end(), ',');
      for (; commas < 2; ++commas)
        maxThreads += ",1";
    }
    std::string buffers;
    for (const SharedBuffer &buffer : sharedBuffers)
      buffers += (buffers.empty() ? "" : ",") + buffer.name + "@" +
                 std::to_string(buffer.offset) + "+" +
                 std::to_string(buffer.bytes);
    info = "params=" + codes + ";shared=" + std::to_string(staticSharedBytes) +
           ";dynamic=" + std::to_string(dynamicSharedOffset) +
           ";maxntid=" + maxThreads + ";buffers=" + buffers;
    return true;
  }

  void addString(StringRef name, StringRef text) {
    Constant *data = ConstantDataArray::getString(context, text, true);
    auto *global = new GlobalVariable(module, data->getType(), true,
                                      GlobalValue::ExternalLinkage, data, name);
    global->setVisibility(GlobalValue::DefaultVisibility);
  }

  bool finish() {
    std::string kernelNames;
    for (Function *kernel : kernels) {
      std::string info;
      if (!addEntryPoint(*kernel, info))
        return false;
      addString(std::string(ssd::emulator::kKernelInfoPrefix) +
                    kernel->getName().str(),
                info);
      kernelNames += (kernelNames.empty() ? "" : ",") + kernel->getName().str();
    }
    addString(ssd::emulator::kModuleInfoSymbol,
              "abi=" + std::to_string(ssd::emulator::kABIVersion) +
                  ";chip=" + chip + ";kernels=" + kernelNames +
                  ";module=" + module.getModuleIdentifier());
    addString(ssd::emulator::kSitesSymbol, sites);

    // The kernels become ordinary host functions, private to the object.
    for (Function &f : module) {
      f.setCallingConv(CallingConv::C);
      for (BasicBlock &block : f)
        for (Instruction &inst : block)
          if (auto *call = dyn_cast<CallBase>(&inst))
            call->setCallingConv(CallingConv::C);
      f.removeFnAttr("target-cpu");
      f.removeFnAttr("target-features");
      // Frames larger than a page touch each page on the way down, so that
      // a thread whose locals overflow its fiber's small stack faults in
      // the guard page below it (reported as such) instead of writing
      // into whatever lies further down.
      if (!f.isDeclaration())
        f.addFnAttr("probe-stack", "inline-asm");
      if (!f.isDeclaration() &&
          !f.getName().starts_with(ssd::emulator::kEntryPrefix))
        f.setLinkage(GlobalValue::InternalLinkage);
    }
    if (NamedMDNode *annotations = module.getNamedMetadata("nvvm.annotations"))
      module.eraseNamedMetadata(annotations);
    SmallVector<Function *> unused;
    for (Function &f : module)
      if (f.isDeclaration() && f.use_empty())
        unused.push_back(&f);
    for (Function *f : unused)
      f->eraseFromParent();
    return true;
  }
};

} // namespace

bool mlir::ssd::emulator::rewriteKernelsForHost(Module &module, StringRef chip,
                                                std::string &error) {
  KernelRewriter rewriter(module, chip);
  if (!rewriter.run(error))
    return false;
  return true;
}
