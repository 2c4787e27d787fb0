//===- MemoryAccesses.cpp - every memory access through the runtime -------===//
//
// Loads, stores, atomics and memory intrinsics on global or shared memory
// go through the runtime, which checks them (bounds, races, alignment);
// fences of device scope become runtime fences; calls go to
// NVVMIntrinsics.cpp or are refused, so that a kernel never runs with an
// operation silently skipped.
//
//===----------------------------------------------------------------------===//

#include "KernelRewriter.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;
using namespace mlir::ssd::emulator;

namespace {

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

} // namespace

bool KernelRewriter::rewriteInstructions() {
  SmallVector<Instruction *> work;
  for (Function &f : module)
    if (!f.isDeclaration())
      for (BasicBlock &block : f)
        for (Instruction &inst : block)
          if (isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst,
                  FenceInst, CallBase, PtrToIntInst, IntToPtrInst>(inst) &&
              !runtimeCalls.contains(&inst))
            work.push_back(&inst);
  for (Instruction *inst : work) {
    bool ok = true;
    if (auto *call = dyn_cast<CallBase>(inst))
      ok = rewriteCall(*call);
    else if (auto *fence = dyn_cast<FenceInst>(inst))
      rewriteFence(*fence);
    else if (isa<PtrToIntInst, IntToPtrInst>(inst))
      rewriteSharedPointerCast(*inst);
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
Value *KernelRewriter::checkedAddress(IRBuilder<> &b, Instruction &inst,
                                      Value *address, Value *bytes,
                                      uint32_t flags, Align alignment) {
  const Value *object = getUnderlyingObject(address, /*MaxLookup=*/0);
  if (isa<AllocaInst>(object) || isa<GlobalVariable>(object))
    return nullptr;
  unsigned space = address->getType()->getPointerAddressSpace();
  Function &f = *inst.getFunction();
  flags |= ::ssd::emulator::accessAlignFlags(alignment.value());
  if (space == kSharedAddressSpace)
    return callRuntime(b, "shared",
                       {b.CreateAddrSpaceCast(address, ptr), bytes, u32(flags),
                        site(f, describe(inst))});
  if (space == 0 || space == 1)
    return callRuntime(b, "global",
                       {b.CreateAddrSpaceCast(address, ptr), bytes, u32(flags),
                        site(f, describe(inst))});
  setError("kernel " + f.getName() + " accesses memory in address space " +
           Twine(space) +
           ", which the emulator does not model: " + describe(inst));
  return nullptr;
}

bool KernelRewriter::instrumentAccess(Instruction &inst) {
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
  // NVPTX splits an access promising less alignment than its size into
  // pieces of that alignment (a <4 x float> at align 4 is four ld.b32);
  // here it stays one access of the promised alignment: the same words
  // and alignment are checked, and the cost counters see one instruction
  // where the GPU issues several over the same sectors, which they would
  // count again where L1 serves them (docs/gpu.md, "Cost counters").
  Value *bytes = b.getInt64(dataLayout.getTypeStoreSize(accessed));
  Value *host = checkedAddress(b, inst, address, bytes, flags, alignment);
  if (!error.empty())
    return false;
  if (host)
    inst.setOperand(operand, host);
  return true;
}

bool KernelRewriter::rewriteMemoryIntrinsic(MemIntrinsic &mem) {
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

/// A masked load or store with a constant mask: what NVPTX's load-store
/// vectorizer makes of accesses with gaps (three floats read as a v4 with
/// the last lane unused, or words 0, 1 and 3 of one), which the GPU runs
/// as one vector access. Each run of enabled lanes is checked as an access
/// of its own (the first at the vector's alignment), so words no lane uses
/// are neither bounds-checked nor reported in races, as on the GPU, which
/// reads them and drops them; the cost counters see one access per run.
/// The host then makes the same masked access at the host address.
bool KernelRewriter::rewriteMaskedAccess(IntrinsicInst &call) {
  Function &f = *call.getFunction();
  const bool isLoad = call.getIntrinsicID() == Intrinsic::masked_load;
  const unsigned pointerIndex = isLoad ? 0 : 1, maskIndex = isLoad ? 1 : 2;
  auto *vector = cast<FixedVectorType>(
      isLoad ? call.getType() : call.getArgOperand(0)->getType());
  const uint64_t elementBits =
      dataLayout.getTypeSizeInBits(vector->getElementType());
  auto *mask = dyn_cast<Constant>(call.getArgOperand(maskIndex));
  SmallVector<bool> enabled;
  for (unsigned i = 0; mask && i < vector->getNumElements(); ++i) {
    Constant *lane = mask->getAggregateElement(i);
    if (lane && isa<UndefValue>(lane)) {
      enabled.push_back(true); // may be either: checked
      continue;
    }
    auto *bit = dyn_cast_or_null<ConstantInt>(lane);
    if (!bit) {
      mask = nullptr;
      break;
    }
    enabled.push_back(bit->isOne());
  }
  if (!mask)
    return setError("kernel " + f.getName() + " calls " +
                    call.getCalledFunction()->getName() +
                    " with a mask that is not a constant, which the emulator "
                    "does not check: " +
                    describe(call));
  if (elementBits % 8 != 0)
    return setError(
        "kernel " + f.getName() + " calls " +
        call.getCalledFunction()->getName() + " on elements of " +
        Twine(elementBits) +
        " bits, which the emulator does not check: " + describe(call));
  const uint64_t elementBytes = elementBits / 8;
  IRBuilder<> b(&call);
  Value *address = call.getArgOperand(pointerIndex);
  Align alignment = call.getParamAlign(pointerIndex).valueOrOne();
  const uint32_t flags =
      isLoad ? AccessFlags::AccessRead : AccessFlags::AccessWrite;
  Value *vectorHost = nullptr;
  bool checkedAny = false;
  for (unsigned first = 0; first < enabled.size();) {
    if (!enabled[first]) {
      ++first;
      continue;
    }
    unsigned last = first;
    while (last + 1 < enabled.size() && enabled[last + 1])
      ++last;
    const uint64_t offset = first * elementBytes;
    Value *at = offset == 0 ? address
                            : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(),
                                                           address, offset);
    Value *host = checkedAddress(b, call, at,
                                 b.getInt64((last - first + 1) * elementBytes),
                                 flags, commonAlignment(alignment, offset));
    if (!error.empty())
      return false;
    if (host && !checkedAny)
      vectorHost = offset == 0 ? host
                               : b.CreateConstGEP1_64(b.getInt8Ty(), host,
                                                      -int64_t(offset));
    checkedAny = true;
    first = last + 1;
  }
  if (!checkedAny) {
    if (isLoad)
      call.replaceAllUsesWith(call.getArgOperand(2));
    call.eraseFromParent();
    return true;
  }
  if (!vectorHost)
    return true;
  Instruction *hostAccess =
      isLoad ? b.CreateMaskedLoad(vector, vectorHost, alignment,
                                  call.getArgOperand(maskIndex),
                                  call.getArgOperand(2))
             : b.CreateMaskedStore(call.getArgOperand(0), vectorHost, alignment,
                                   call.getArgOperand(maskIndex));
  if (isLoad)
    call.replaceAllUsesWith(hostAccess);
  call.eraseFromParent();
  return true;
}

/// An LLVM fence of device or system scope becomes a runtime fence too
/// (see membar.gl); the host fence stays.
void KernelRewriter::rewriteFence(FenceInst &fence) {
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

/// A shared-memory address as an integer is, on the GPU, an offset in the
/// shared window (a 32-bit `.shared` address, the first byte of the block's
/// shared memory at 0): what a wgmma matrix descriptor holds. On the host a
/// shared pointer is an address in the block's arena, so the conversions
/// subtract and add the arena's base.
void KernelRewriter::rewriteSharedPointerCast(Instruction &cast) {
  Function &f = *cast.getFunction();
  if (auto *toInt = dyn_cast<PtrToIntInst>(&cast)) {
    if (toInt->getPointerAddressSpace() != kSharedAddressSpace)
      return;
    IRBuilder<> b(toInt);
    Value *offset =
        b.CreateSub(b.CreatePtrToInt(toInt->getPointerOperand(), i64),
                    b.CreatePtrToInt(sharedBaseOf(f), i64));
    toInt->replaceAllUsesWith(b.CreateZExtOrTrunc(offset, toInt->getType()));
    toInt->eraseFromParent();
    return;
  }
  auto *toPointer = llvm::cast<IntToPtrInst>(&cast);
  if (toPointer->getAddressSpace() != kSharedAddressSpace)
    return;
  IRBuilder<> b(toPointer);
  Value *address = b.CreateGEP(
      i8, sharedBaseOf(f), b.CreateZExtOrTrunc(toPointer->getOperand(0), i64));
  toPointer->replaceAllUsesWith(
      b.CreateAddrSpaceCast(address, toPointer->getType()));
  toPointer->eraseFromParent();
}

bool KernelRewriter::rewriteCall(CallBase &call) {
  Function &f = *call.getFunction();
  if (call.isInlineAsm()) {
    auto *asmValue = cast<InlineAsm>(call.getCalledOperand());
    StringRef text = asmValue->getAsmString();
    if (text.contains("wgmma.mma_async."))
      return rewriteWgmmaAsm(call, text);
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
    if (id == Intrinsic::masked_load || id == Intrinsic::masked_store)
      return rewriteMaskedAccess(cast<IntrinsicInst>(call));
    if (id == Intrinsic::prefetch) {
      call.eraseFromParent();
      return true;
    }
    if (call.mayReadOrWriteMemory() && !isHandledMemoryIntrinsic(id))
      return setError("kernel " + f.getName() + " calls " + callee->getName() +
                      ", a memory intrinsic the emulator does not check");
    return true;
  }
  if (!callee->isDeclaration())
    return true; // a device function of this module, rewritten itself
  if (name.consume_front("__nv_"))
    return rewriteLibdevice(call, name);
  return setError("kernel " + f.getName() + " calls external function @" +
                  callee->getName() + ", which the emulator does not provide");
}
