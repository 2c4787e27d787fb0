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
// This file holds the driver (KernelRewriter::run), the runtime-call
// helpers, loops without exit, the shared-memory layout and the entry
// points; MemoryAccesses.cpp checks every access to memory and dispatches
// calls, NVVMIntrinsics.cpp rewrites the NVVM intrinsics and libdevice.
//
//===----------------------------------------------------------------------===//

#include "KernelRewriter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlir::ssd::emulator;

bool KernelRewriter::run(std::string &message) {
  for (Function &f : module)
    if (!f.isDeclaration() && f.getCallingConv() == CallingConv::PTX_Kernel)
      kernels.push_back(&f);
  countIssue();
  markEndlessLoops();
  if (!layOutSharedMemory() || !rewriteInstructions())
    return fail(message);
  instrumentIssue();
  if (!finish())
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

FunctionType *KernelRewriter::importType(StringRef name) {
  Type *voidTy = Type::getVoidTy(context);
  return StringSwitch<FunctionType *>(name)
      .Case("sreg", FunctionType::get(i32, {i32}, false))
      .Case("barrier", FunctionType::get(voidTy, {i32, i32, i32}, false))
      .Case("syncwarp", FunctionType::get(voidTy, {i32, i32}, false))
      .Case("shfl",
            FunctionType::get(i32, {i32, i32, i32, i32, i32, i32, ptr}, false))
      .Case("vote", FunctionType::get(i32, {i32, i32, i32, i32}, false))
      .Case("mma",
            FunctionType::get(voidTy, {i32, i32, ptr, ptr, ptr, ptr}, false))
      .Case("global", FunctionType::get(ptr, {ptr, i64, i32, i32}, false))
      .Case("shared", FunctionType::get(ptr, {ptr, i64, i32, i32}, false))
      .Case("shared_base", FunctionType::get(ptr, {}, false))
      .Case("math_f32", FunctionType::get(f32, {i32, f32}, false))
      .Case("math_f64", FunctionType::get(f64, {i32, f64}, false))
      .Case("trap", FunctionType::get(voidTy, {i32}, false))
      .Case("ldmatrix", FunctionType::get(voidTy, {i32, i32, ptr, ptr}, false))
      .Case("cp_async",
            FunctionType::get(voidTy, {i32, ptr, ptr, i32, i32}, false))
      .Case("cp_async_commit", FunctionType::get(voidTy, {i32}, false))
      .Case("cp_async_wait", FunctionType::get(voidTy, {i32, i32}, false))
      .Case("fence", FunctionType::get(voidTy, {i32}, false))
      .Case("hang", FunctionType::get(voidTy, {i32}, false))
      .Case("wgmma",
            FunctionType::get(voidTy, {i32, i32, i64, i64, ptr, ptr}, false))
      .Case("wgmma_check", FunctionType::get(voidTy, {i32, i32}, false))
      .Case("proxy_fence", FunctionType::get(voidTy, {i32}, false))
      .Case("wgmma_fence", FunctionType::get(voidTy, {i32}, false))
      .Case("wgmma_commit", FunctionType::get(voidTy, {i32}, false))
      .Case("wgmma_wait", FunctionType::get(voidTy, {i32, i32}, false))
      .Case("issue_counts", FunctionType::get(ptr, {}, false))
      .Default(nullptr);
}

/// Calls runtime function `name` through its import slot.
Value *KernelRewriter::callRuntime(IRBuilder<> &b, StringRef name,
                                   ArrayRef<Value *> args) {
  GlobalVariable *&slot = importSlots[name];
  if (!slot) {
    slot = new GlobalVariable(
        module, ptr, /*isConstant=*/false, GlobalValue::ExternalLinkage,
        ConstantPointerNull::get(ptr),
        std::string(::ssd::emulator::kImportPrefix) + name.str());
    slot->setVisibility(GlobalValue::DefaultVisibility);
  }
  Value *function = b.CreateLoad(ptr, slot, "ssdemu." + name);
  CallInst *call = b.CreateCall(importType(name), function, args);
  runtimeCalls.insert(call);
  return call;
}

/// A new call-site id, described for the runtime's messages.
Value *KernelRewriter::site(Function &f, const Twine &what) {
  sites += (f.getName() + ": " + what + "\n").str();
  return ConstantInt::get(i32, siteCount++);
}

/// A barrier's site, numbered in code order within its function: every
/// barrier instruction prints the same, and messages about threads at
/// different barriers must tell them apart.
Value *KernelRewriter::barrierSite(Function &f) {
  return site(f, "barrier #" + Twine(++barrierCount[&f]));
}

std::string KernelRewriter::describe(const Instruction &inst) {
  std::string text;
  raw_string_ostream os(text);
  inst.print(os);
  StringRef trimmed = StringRef(text).trim();
  if (trimmed.size() > 120)
    return (trimmed.take_front(117) + "...").str();
  return trimmed.str();
}

AllocaInst *KernelRewriter::entryAlloca(Function &f, Type *type,
                                        const Twine &name) {
  IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
  return b.CreateAlloca(type, nullptr, name);
}

/// Code from which no path leads out of its function loops forever: on a
/// GPU the thread hangs, and the host would hang with it, the more so as
/// such a loop often contains no runtime call at all (a wait on a plain
/// load that the optimizer hoisted out of the loop, leaving `br` to
/// itself). Where control enters such code, a runtime call reports it.
void KernelRewriter::markEndlessLoops() {
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

/// Static shared variables get fixed offsets in the block's shared memory
/// (in declaration order); dynamic shared memory (an external, unsized
/// shared array) starts after them, 16-byte aligned, as in CUDA.
bool KernelRewriter::layOutSharedMemory() {
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
    uint64_t align = std::max<uint64_t>(4, g->getAlign().valueOrOne().value());
    uint64_t offset = alignTo(end, align);
    offsets.push_back({g, offset});
    sharedBuffers.push_back({g->getName().str(), offset, bytes});
    end = offset + bytes;
  }
  staticSharedBytes = end;
  if (staticSharedBytes > ::ssd::emulator::kStaticSharedLimit) {
    std::string names;
    for (Function *k : kernels)
      names += (names.empty() ? "" : ", ") + k->getName().str();
    return setError("kernel " + names + " uses " + Twine(staticSharedBytes) +
                    " bytes of static shared memory, more than the " +
                    Twine(::ssd::emulator::kStaticSharedLimit) +
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
Value *KernelRewriter::sharedBaseOf(Function &f) {
  Value *&base = sharedBase[&f];
  if (!base) {
    IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    base = callRuntime(b, "shared_base", {});
  }
  return base;
}

std::string KernelRewriter::parameterCode(Type *type,
                                          const DataLayout &layout) {
  if (type->isPointerTy())
    return "p";
  if (type->isIntegerTy())
    return "i" + std::to_string(type->getIntegerBitWidth());
  if (type->isFloatingPointTy())
    return "f" + std::to_string(layout.getTypeSizeInBits(type).getFixedValue());
  return "";
}

bool KernelRewriter::addEntryPoint(Function &kernel, std::string &info) {
  FunctionType *entryType =
      FunctionType::get(Type::getVoidTy(context), {ptr}, false);
  Function *entry = Function::Create(
      entryType, GlobalValue::ExternalLinkage,
      std::string(::ssd::emulator::kEntryPrefix) + kernel.getName().str(),
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

void KernelRewriter::addString(StringRef name, StringRef text) {
  Constant *data = ConstantDataArray::getString(context, text, true);
  auto *global = new GlobalVariable(module, data->getType(), true,
                                    GlobalValue::ExternalLinkage, data, name);
  global->setVisibility(GlobalValue::DefaultVisibility);
}

bool KernelRewriter::finish() {
  std::string kernelNames;
  for (Function *kernel : kernels) {
    std::string info;
    if (!addEntryPoint(*kernel, info))
      return false;
    addString(std::string(::ssd::emulator::kKernelInfoPrefix) +
                  kernel->getName().str(),
              info);
    kernelNames += (kernelNames.empty() ? "" : ",") + kernel->getName().str();
  }
  addString(::ssd::emulator::kModuleInfoSymbol,
            "abi=" + std::to_string(::ssd::emulator::kABIVersion) +
                ";chip=" + chip + ";kernels=" + kernelNames +
                ";module=" + module.getModuleIdentifier());
  addString(::ssd::emulator::kSitesSymbol, sites);

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
        !f.getName().starts_with(::ssd::emulator::kEntryPrefix))
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

bool mlir::ssd::emulator::rewriteKernelsForHost(Module &module, StringRef chip,
                                                std::string &error) {
  KernelRewriter rewriter(module, chip);
  if (!rewriter.run(error))
    return false;
  return true;
}
