//===- ScanModule.cpp - the module holding one scan op --------------------===//

#include "ssd/Execution/ScanModule.h"

#include "ssd/IR/SSDDialect.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Runner/HostOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

using namespace mlir;

namespace {

/// The MLIR element type of an OperandLayout's `elementType` ("f32", "bf16",
/// "i1", "ui32", ...).
Type elementType(MLIRContext &context, const std::string &name) {
  if (name == "f32")
    return Float32Type::get(&context);
  if (name == "f16")
    return Float16Type::get(&context);
  if (name == "bf16")
    return BFloat16Type::get(&context);
  if (name == "f8E4M3FN")
    return Float8E4M3FNType::get(&context);
  if (name == "i1")
    return IntegerType::get(&context, 1);
  if (name == "i8")
    return IntegerType::get(&context, 8);
  if (name == "i64")
    return IntegerType::get(&context, 64);
  if (name == "ui32")
    return IntegerType::get(&context, 32, IntegerType::Unsigned);
  assert(name == "i32" && "an element type operandLayouts does not give");
  return IntegerType::get(&context, 32);
}

/// Whether operand `o` of the tensor form is baked into the module as a
/// constant under `constantWeights` (the per-head weights a graph compiler
/// holds as constants).
bool isWeight(const ::ssd::OperandLayout &o) {
  return o.name == "A" || o.name == "D" || o.name == "dt_bias";
}

} // namespace

// Defined in the namespace: `ssd` alone would also name mlir::ssd here.
namespace ssd {

OwningOpRef<ModuleOp> buildScanModule(MLIRContext &context,
                                      const ScanProblem &p,
                                      const ScanModuleOptions &options) {
  context.loadDialect<mlir::ssd::SSDDialect, arith::ArithDialect,
                      func::FuncDialect, LLVM::LLVMDialect>();
  const bool tensors = options.tensorForm;
  auto typeOf = [&](const OperandLayout &o) -> ShapedType {
    // T and batch are the launch-dependent extents, and the pool's slot count
    // is the deployment's; every other extent is the model's and stays static.
    SmallVector<int64_t> shape(o.shape.begin(), o.shape.end());
    for (size_t i = 0; i < shape.size(); ++i) {
      bool tokenDim =
          (o.name == "x" || o.name == "dt" || o.name == "B" || o.name == "C" ||
           o.name == "outs" || o.name == "ssm_pool" ||
           o.name == "ssm_pool_scales" || o.name == "token_parents") &&
          i == 0;
      bool batchDim =
          o.name == "query_start_loc" || o.name == "has_initial_state" ||
          o.name == "update_state" || o.name == "checkpoint_offsets" ||
          (o.name == "checkpoint_slots" && i == 0) ||
          (o.name == "cache_indices" && i == shape.size() - 1);
      if (!options.staticShapes && (tokenDim || batchDim))
        shape[i] = ShapedType::kDynamic;
    }
    Type element = elementType(context, o.elementType);
    // The pool and its scales are memrefs in both forms: the op updates them
    // in place.
    if (tensors && o.name != "ssm_pool" && o.name != "ssm_pool_scales")
      return RankedTensorType::get(shape, element);
    return MemRefType::get(shape, element);
  };

  std::vector<OperandLayout> operands = operandLayouts(p);
  std::unique_ptr<HostOperands> weights;
  if (tensors && options.constantWeights)
    weights = std::make_unique<HostOperands>(p);
  SmallVector<Type> argumentTypes, resultTypes;
  for (const OperandLayout &o : operands) {
    if (tensors && o.name == "outs")
      resultTypes.push_back(typeOf(o));
    else if (!(weights && isWeight(o)))
      argumentTypes.push_back(typeOf(o));
  }

  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, loc, options.functionName,
                           b.getFunctionType(argumentTypes, resultTypes));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);

  // The value of each present operand, by its keyword.
  llvm::StringMap<Value> values;
  unsigned argument = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const OperandLayout &o = operands[i];
    if (tensors && o.name == "outs")
      continue;
    if (weights && isWeight(o)) {
      const std::vector<uint8_t> &bytes = weights->bytes(i);
      values[o.name] = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::getFromRawBuffer(
              typeOf(o),
              ArrayRef<char>(reinterpret_cast<const char *>(bytes.data()),
                             bytes.size())));
    } else {
      values[o.name] = body->getArgument(argument++);
    }
  }
  auto operand = [&](StringRef name) { return values.lookup(name); };
  IntegerAttr interval;
  if (operand("checkpoint_slots") || operand("checkpoint_offsets"))
    interval = b.getI64IntegerAttr(p.checkpointInterval);
  auto scan = mlir::ssd::ChunkScanVarlenOp::create(
      b, loc, tensors ? resultTypes.front() : Type(), operand("x"),
      operand("dt"), operand("A"), operand("B"), operand("C"), operand("D"),
      operand("dt_bias"), operand("ssm_pool"), operand("ssm_pool_scales"),
      operand("query_start_loc"), operand("has_initial_state"),
      operand("cache_indices"), operand("update_state"),
      operand("checkpoint_slots"), operand("checkpoint_offsets"),
      operand("token_parents"), operand("rounding_seed"), operand("outs"),
      /*form=*/nullptr,
      /*chunk_size=*/nullptr, interval, /*config=*/nullptr,
      p.poolRounding == PoolRounding::Stochastic
          ? mlir::ssd::PoolRoundingAttr::get(
                &context, mlir::ssd::PoolRounding::stochastic)
          : nullptr);
  func::ReturnOp::create(b, loc, scan->getResults());
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace ssd
