//===- NVVMIntrinsics.cpp - NVVM intrinsics as runtime calls --------------===//
//
// Special registers, barriers, warp collectives, mma.sync, ldmatrix,
// wgmma, cp.async, approximate math and libdevice become calls into the
// emulator runtime (ssd/GPURuntime/EmulatorABI.h); an intrinsic the runtime
// does not model is an error.
//
//===----------------------------------------------------------------------===//

#include "KernelRewriter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <cctype>
#include <cstring>

using namespace llvm;
using namespace mlir::ssd::emulator;

namespace {

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

std::optional<MmaShape> mmaShape(StringRef name) {
  return StringSwitch<std::optional<MmaShape>>(name)
      .Case("mma.m16n8k16.row.col.bf16", MmaShape{MmaKind::M16N8K16BF16, 4, 2})
      .Case("mma.m16n8k16.row.col.f32.f32",
            MmaShape{MmaKind::M16N8K16F16, 4, 2})
      .Case("mma.m16n8k8.row.col.bf16", MmaShape{MmaKind::M16N8K8BF16, 2, 1})
      .Case("mma.m16n8k8.row.col.f32.f32", MmaShape{MmaKind::M16N8K8F16, 2, 1})
      .Default(std::nullopt);
}

} // namespace

bool KernelRewriter::unsupportedNVVM(CallBase &call, StringRef name) {
  return setError("the GPU emulator does not implement NVVM intrinsic "
                  "llvm.nvvm." +
                  name + " (in kernel " + call.getFunction()->getName() + ")");
}

bool KernelRewriter::rewriteNVVM(CallBase &call, StringRef name) {
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
  } else if (name.starts_with("fence.proxy.async") &&
             !name.contains("global")) {
    // Shared-memory writes a later wgmma may read (the async proxy): the
    // runtime checks that a fence of the writer separates them.
    callRuntime(b, "proxy_fence", {site(f, "llvm.nvvm." + name)});
  } else if (name.starts_with("membar.") || name.starts_with("fence.")) {
    // Block scope (membar.cta) and other proxy fences order nothing here.
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
    Value *vote =
        callRuntime(b, "vote",
                    {site(f, "vote." + name), u32(static_cast<uint32_t>(mode)),
                     arg(0), b.CreateZExt(arg(1), i32)});
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
  } else if (name == "wgmma.fence.sync.aligned") {
    callRuntime(b, "wgmma_fence", {site(f, describe(call))});
  } else if (name == "wgmma.commit_group.sync.aligned") {
    callRuntime(b, "wgmma_commit", {site(f, describe(call))});
  } else if (name == "wgmma.wait_group.sync.aligned") {
    callRuntime(b, "wgmma_wait",
                {site(f, describe(call)), b.CreateTrunc(arg(0), i32)});
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

bool KernelRewriter::rewriteShuffle(CallBase &call, IRBuilder<> &b,
                                    StringRef name, Value *&result) {
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
Value *KernelRewriter::rewriteMma(CallBase &call, IRBuilder<> &b,
                                  const MmaShape &shape, StringRef name) {
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
              {site(f, describe(call)), u32(static_cast<uint32_t>(shape.kind)),
               aArray, bArray, cArray, dArray});
  Value *result = PoisonValue::get(resultType);
  for (unsigned i = 0; i < 4; ++i)
    result = b.CreateInsertValue(
        result, b.CreateLoad(f32, b.CreateConstInBoundsGEP1_32(f32, dArray, i)),
        i);
  return result;
}

/// ldmatrix.sync.aligned.m8n8.x<N>[.trans].b16.<p3|p0>(row address): a
/// warp collective; the runtime writes the lane's N registers (one per
/// matrix) to a stack array.
Value *KernelRewriter::rewriteLdmatrix(CallBase &call, IRBuilder<> &b,
                                       StringRef name) {
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
      (structType
           ? !all_of(structType->elements(), [&](Type *t) { return t == i32; })
           : type != i32)) {
    unsupportedNVVM(call, name);
    return nullptr;
  }
  auto *registers =
      entryAlloca(f, ArrayType::get(i32, matrices), "ssdemu.ldmatrix");
  uint32_t mode =
      matrices | (trans ? uint32_t(::ssd::emulator::kLdmatrixTrans) : 0u);
  callRuntime(b, "ldmatrix",
              {site(f, describe(call)), u32(mode),
               b.CreateAddrSpaceCast(call.getArgOperand(0), ptr), registers});
  if (!structType)
    return b.CreateLoad(i32, registers);
  Value *result = PoisonValue::get(type);
  for (unsigned i = 0; i < matrices; ++i)
    result = b.CreateInsertValue(
        result,
        b.CreateLoad(i32, b.CreateConstInBoundsGEP1_32(i32, registers, i)), i);
  return result;
}

/// cp.async.{ca,cg}.shared.global.{4,8,16}[.s](dst, src[, src-size]),
/// cp.async.commit.group, cp.async.wait.group(N), cp.async.wait.all.
bool KernelRewriter::rewriteCpAsync(CallBase &call, IRBuilder<> &b,
                                    StringRef name) {
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

bool KernelRewriter::rewriteLibdevice(CallBase &call, StringRef name) {
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

/// wgmma.mma_async reaches LLVM IR as inline PTX (NVVM's op builds it with
/// BasicPtxBuilderOpInterface): recognised here only in the exact form that
/// builder writes for m64nNk16 with an f32 accumulator and both operands in
/// shared memory,
///   {.reg .pred p; setp.ne.b32 p, $S, 0;
///    wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {$0, ..}, $A, $B, p,
///    $sa, $sb, $ta, $tb;}
/// with the N / 2 results, their tied inputs, the two descriptors and the
/// five immediates (scale-d, scale-a, scale-b, trans-a, trans-b) as
/// operands. Anything else is an error, never a guess.
bool KernelRewriter::rewriteWgmmaAsm(CallBase &call, StringRef text) {
  Function &f = *call.getFunction();
  auto unsupported = [&](const Twine &why) {
    return setError("kernel " + f.getName() +
                    " contains inline PTX the emulator does not run (" + why +
                    "): \"" + text + "\"");
  };
  std::string compact;
  for (char c : text)
    if (!isspace(static_cast<unsigned char>(c)))
      compact += c;
  StringRef rest = compact;
  unsigned n = 0;
  if (!rest.consume_front("{.reg.predp;setp.ne.b32p,$"))
    return unsupported("not the NVVM dialect's wgmma.mma_async");
  size_t shape = rest.find("wgmma.mma_async.sync.aligned.m64n");
  if (shape == StringRef::npos)
    return unsupported("not wgmma.mma_async.sync.aligned.m64nNk16");
  StringRef tail =
      rest.substr(shape + strlen("wgmma.mma_async.sync.aligned.m64n"));
  if (tail.consumeInteger(10, n) || n < 8 || n > 256 || n % 8)
    return unsupported("an N the instruction does not have");
  uint32_t mode = n;
  if (tail.consume_front("k16.f32.bf16.bf16"))
    ;
  else if (tail.consume_front("k16.f32.f16.f16"))
    mode |= ::ssd::emulator::kWgmmaF16;
  else
    return unsupported("the emulator runs k16 with f32 accumulators and bf16 "
                       "or f16 operands only");
  const unsigned results = n / 2;
  std::string expected =
      "{.reg.predp;setp.ne.b32p,$" + std::to_string(2 * results + 2) + ",0;";
  expected += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
              ((mode & ::ssd::emulator::kWgmmaF16) ? "k16.f32.f16.f16{"
                                                   : "k16.f32.bf16.bf16{");
  for (unsigned i = 0; i < results; ++i)
    expected += (i ? ",$" : "$") + std::to_string(i);
  expected += "},$" + std::to_string(2 * results) + ",$" +
              std::to_string(2 * results + 1) + ",p";
  for (unsigned i = 3; i < 7; ++i)
    expected += ",$" + std::to_string(2 * results + i);
  expected += ";}";
  if (compact != expected)
    return unsupported("operands not in the order NVVM's builder writes");
  auto *resultType = dyn_cast<llvm::StructType>(call.getType());
  if (call.arg_size() != results + 7 || !resultType ||
      resultType->getNumElements() != results)
    return unsupported("operand count");
  auto immediate = [&](unsigned i) -> std::optional<int64_t> {
    if (auto *c = dyn_cast<ConstantInt>(call.getArgOperand(results + i)))
      return c->getSExtValue();
    return std::nullopt;
  };
  std::optional<int64_t> scaleD = immediate(2), scaleA = immediate(3),
                         scaleB = immediate(4), transA = immediate(5),
                         transB = immediate(6);
  if (!scaleD || !scaleA || !scaleB || !transA || !transB ||
      (*scaleA != 1 && *scaleA != -1) || (*scaleB != 1 && *scaleB != -1) ||
      (*transA != 0 && *transA != 1) || (*transB != 0 && *transB != 1))
    return unsupported("immediates");
  if (*scaleD)
    mode |= ::ssd::emulator::kWgmmaScaleD;
  if (*scaleA == -1)
    mode |= ::ssd::emulator::kWgmmaNegateA;
  if (*scaleB == -1)
    mode |= ::ssd::emulator::kWgmmaNegateB;
  if (*transA)
    mode |= ::ssd::emulator::kWgmmaTransposeA;
  if (*transB)
    mode |= ::ssd::emulator::kWgmmaTransposeB;
  for (unsigned i = 0; i < results; ++i)
    if (!call.getArgOperand(i)->getType()->isFloatTy() ||
        resultType->getElementType(i) != f32)
      return unsupported("accumulators not f32");
  Value *descA = call.getArgOperand(results);
  Value *descB = call.getArgOperand(results + 1);
  if (descA->getType() != i64 || descB->getType() != i64)
    return unsupported("descriptors not 64-bit");

  IRBuilder<> b(&call);
  auto *accumulatorType = llvm::ArrayType::get(f32, results);
  AllocaInst *in = entryAlloca(f, accumulatorType, "ssdemu.wgmma.c");
  AllocaInst *out = entryAlloca(f, accumulatorType, "ssdemu.wgmma.d");
  wgmmaInputs.insert(in);
  for (unsigned i = 0; i < results; ++i)
    b.CreateStore(call.getArgOperand(i),
                  b.CreateConstInBoundsGEP1_32(f32, in, i));
  Value *producer = site(f, "wgmma.mma_async.m64n" + Twine(n) + "k16");
  callRuntime(b, "wgmma", {producer, u32(mode), descA, descB, in, out});
  Value *result = PoisonValue::get(resultType);
  for (unsigned i = 0; i < results; ++i)
    result = b.CreateInsertValue(
        result, b.CreateLoad(f32, b.CreateConstInBoundsGEP1_32(f32, out, i)),
        i);
  call.replaceAllUsesWith(result);
  call.eraseFromParent();
  checkAccumulatorUses(result, producer);
  return true;
}

/// The accumulators of a wgmma.mma_async are undefined until a
/// wgmma.wait_group retires it; only the next wgmma.mma_async may take them
/// before that (as its accumulators). The emulator computes them at issue,
/// so each other use is preceded by a runtime check that the thread's warp
/// retired the latest instruction of this call site. Results are followed
/// through the values that carry them (extractvalue, insertvalue, phi,
/// select, freeze) to their uses.
void KernelRewriter::checkAccumulatorUses(Value *results, Value *producer) {
  SmallVector<Value *> work{results};
  DenseSet<Value *> seen;
  SmallVector<Instruction *> uses;
  while (!work.empty()) {
    Value *v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (llvm::User *user : v->users()) {
      auto *inst = dyn_cast<Instruction>(user);
      if (!inst)
        continue;
      if (isa<llvm::ExtractValueInst, llvm::InsertValueInst, llvm::PHINode,
              llvm::SelectInst, llvm::FreezeInst>(inst)) {
        work.push_back(inst);
        continue;
      }
      if (auto *store = dyn_cast<llvm::StoreInst>(inst))
        if (store->getValueOperand() == v &&
            wgmmaInputs.contains(
                llvm::getUnderlyingObject(store->getPointerOperand())))
          continue;
      if (auto *next = dyn_cast<CallBase>(inst))
        if (next->isInlineAsm() &&
            cast<llvm::InlineAsm>(next->getCalledOperand())
                    ->getAsmString()
                    .find("wgmma.mma_async.") != std::string::npos)
          continue;
      uses.push_back(inst);
    }
  }
  for (Instruction *use : uses) {
    IRBuilder<> b(use);
    callRuntime(b, "wgmma_check",
                {site(*use->getFunction(), describe(*use)), producer});
  }
}
