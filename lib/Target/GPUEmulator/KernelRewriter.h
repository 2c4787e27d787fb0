//===- KernelRewriter.h - the NVVM-to-host kernel rewriter ------*- C++ -*-===//
//
// The rewriter behind rewriteKernelsForHost (KernelToHost.h), shared by the
// files that define it by job: KernelToHost.cpp (the driver, runtime calls,
// loops without exit, shared memory, entry points), MemoryAccesses.cpp
// (memory accesses, fences, the call dispatch) and NVVMIntrinsics.cpp (NVVM
// intrinsics and libdevice).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_TARGET_GPUEMULATOR_KERNELREWRITER_H
#define SSD_LIB_TARGET_GPUEMULATOR_KERNELREWRITER_H

#include "KernelToHost.h"

#include "ssd/GPURuntime/EmulatorABI.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <string>

namespace mlir {
namespace ssd {
namespace emulator {

// The rewriter reads and writes LLVM IR, and speaks the runtime's ABI.
using llvm::Align;
using llvm::AllocaInst;
using llvm::ArrayRef;
using llvm::CallBase;
using llvm::ConstantInt;
using llvm::DataLayout;
using llvm::DenseMap;
using llvm::DenseSet;
using llvm::FenceInst;
using llvm::Function;
using llvm::FunctionType;
using llvm::GlobalVariable;
using llvm::Instruction;
using llvm::IntrinsicInst;
using llvm::IRBuilder;
using llvm::LLVMContext;
using llvm::MemIntrinsic;
using llvm::Module;
using llvm::PointerType;
using llvm::SmallVector;
using llvm::StringMap;
using llvm::StringRef;
using llvm::Twine;
using llvm::Type;
using llvm::Value;
using ::ssd::emulator::AccessFlags;
using ::ssd::emulator::MathOp;
using ::ssd::emulator::MmaKind;
using ::ssd::emulator::ShuffleMode;
using ::ssd::emulator::SpecialRegister;
using ::ssd::emulator::VoteMode;

constexpr unsigned kSharedAddressSpace = 3;

struct MmaShape {
  MmaKind kind;
  unsigned aRegs, bRegs;
};

/// Rewrites one module's kernels for the host (rewriteKernelsForHost).
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

  bool run(std::string &message);

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
  /// The stack arrays through which rewritten wgmma.mma_async take their
  /// accumulators: a store into one chains results into the next.
  DenseSet<const Value *> wgmmaInputs;

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
  FunctionType *importType(StringRef name);
  Value *callRuntime(IRBuilder<> &b, StringRef name, ArrayRef<Value *> args);
  Value *site(Function &f, const Twine &what);
  Value *barrierSite(Function &f);
  std::string describe(const Instruction &inst);
  Value *u32(uint32_t v) { return ConstantInt::get(i32, v); }
  AllocaInst *entryAlloca(Function &f, Type *type, const Twine &name);

  //===------------------------------------------------------------------===//
  // Loops without exit, shared memory, entry points (KernelToHost.cpp)
  //===------------------------------------------------------------------===//

  void markEndlessLoops();
  bool layOutSharedMemory();
  Value *sharedBaseOf(Function &f);
  static std::string parameterCode(Type *type, const DataLayout &layout);
  bool addEntryPoint(Function &kernel, std::string &info);
  void addString(StringRef name, StringRef text);
  bool finish();

  //===------------------------------------------------------------------===//
  // Memory accesses and calls (MemoryAccesses.cpp)
  //===------------------------------------------------------------------===//

  bool rewriteInstructions();
  Value *checkedAddress(IRBuilder<> &b, Instruction &inst, Value *address,
                        Value *bytes, uint32_t flags, Align alignment);
  bool instrumentAccess(Instruction &inst);
  bool rewriteMemoryIntrinsic(MemIntrinsic &mem);
  bool rewriteMaskedAccess(IntrinsicInst &call);
  void rewriteFence(FenceInst &fence);
  bool rewriteCall(CallBase &call);
  void rewriteSharedPointerCast(Instruction &cast);

  //===------------------------------------------------------------------===//
  // NVVM intrinsics and libdevice (NVVMIntrinsics.cpp)
  //===------------------------------------------------------------------===//

  bool unsupportedNVVM(CallBase &call, StringRef name);
  bool rewriteNVVM(CallBase &call, StringRef name);
  bool rewriteShuffle(CallBase &call, IRBuilder<> &b, StringRef name,
                      Value *&result);
  Value *rewriteMma(CallBase &call, IRBuilder<> &b, const MmaShape &shape,
                    StringRef name);
  Value *rewriteLdmatrix(CallBase &call, IRBuilder<> &b, StringRef name);
  bool rewriteCpAsync(CallBase &call, IRBuilder<> &b, StringRef name);
  bool rewriteWgmmaAsm(CallBase &call, StringRef text);
  void checkAccumulatorUses(Value *results, Value *producer);
  bool rewriteLibdevice(CallBase &call, StringRef name);

  //===------------------------------------------------------------------===//
  // Instruction issue (IssueCounts.cpp)
  //===------------------------------------------------------------------===//

  /// The basic blocks of the module's functions, in order, and their
  /// instructions per IssueClass (kIssueClasses per block), counted before
  /// the rewrite.
  SmallVector<llvm::BasicBlock *> issueBlocks;
  SmallVector<uint32_t> issueTable;
  void countIssue();
  /// Adds the blocks' counter increments and the __ssdemu_issue table.
  void instrumentIssue();
};

} // namespace emulator
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_TARGET_GPUEMULATOR_KERNELREWRITER_H
