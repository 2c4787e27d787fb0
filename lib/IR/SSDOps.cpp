//===- SSDOps.cpp - ssd dialect operations --------------------------------===//

#include "ssd/IR/SSDOps.h"
#include "ssd/IR/SSDLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::ssd;

#define GET_OP_CLASSES
#include "ssd/IR/SSDOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

namespace {

/// One named operand with its expected rank and the extents its dimensions
/// carry, e.g. x = [T, H, P]. A null value means the operand is absent.
struct OperandSpec {
  StringRef name;
  Value value;
  SmallVector<StringRef, 4> dims;
};

/// Binds the op's extents (T, H, P, ...) to numbers. Dynamic dimensions are
/// free; the first static dimension naming an extent fixes it and every later
/// static one must agree, so that a message can name both operands involved.
class ExtentBinder {
public:
  explicit ExtentBinder(Operation *op) : op(op) {}

  LogicalResult bind(StringRef extent, int64_t size, const Twine &where) {
    if (ShapedType::isDynamic(size))
      return success();
    auto [it, inserted] = bound.try_emplace(extent, size, where.str());
    if (inserted || it->second.first == size)
      return success();
    return op->emitOpError()
           << where << " (" << size << ") does not match " << extent << " ("
           << it->second.first << ") given by " << it->second.second;
  }

  std::optional<int64_t> get(StringRef extent) const {
    auto it = bound.find(extent);
    if (it == bound.end())
      return std::nullopt;
    return it->second.first;
  }

  /// The operand dimension that fixed `extent` (bound extents only).
  StringRef where(StringRef extent) const {
    return bound.find(extent)->second.second;
  }

private:
  Operation *op;
  llvm::StringMap<std::pair<int64_t, std::string>> bound;
};

std::string describeDims(ArrayRef<StringRef> dims) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(dims, os);
  os << "]";
  return text;
}

bool isModelDType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

bool isPoolElementType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16() ||
         isa<Float8E4M3FNType>(type) || type.isSignlessInteger(8);
}

/// The scales that an 8-bit pool needs and no other has, and the seed that
/// stochastic rounding needs and nothing else takes.
LogicalResult verifyPoolCompression(ChunkScanVarlenOp op, Type poolType) {
  const bool eightBit = poolType.getIntOrFloatBitWidth() == 8;
  if (Value scales = op.getSsmPoolScales()) {
    if (!eightBit)
      return op.emitOpError()
             << "'ssm_pool_scales' is only for an 8-bit pool (f8E4M3FN or "
                "i8); the pool's element type is "
             << poolType;
    Type scaleType = getElementTypeOrSelf(scales.getType());
    if (!scaleType.isF32())
      return op.emitOpError()
             << "'ssm_pool_scales' element type must be f32, got " << scaleType;
  } else if (eightBit) {
    return op.emitOpError()
           << "an 8-bit pool (" << poolType
           << ") needs 'ssm_pool_scales' [S, H, P] f32: one scale per row "
              "of N codes";
  }
  const bool stochastic = op.getPoolRounding() == PoolRounding::stochastic;
  if (Value seed = op.getRoundingSeed()) {
    if (!stochastic)
      return op.emitOpError() << "'rounding_seed' is only for pool_rounding "
                                 "stochastic";
    Type seedType = getElementTypeOrSelf(seed.getType());
    if (!seedType.isSignlessInteger(64))
      return op.emitOpError()
             << "'rounding_seed' element type must be i64, got " << seedType;
  } else if (stochastic) {
    return op.emitOpError() << "pool_rounding stochastic needs the 0-d i64 "
                               "operand 'rounding_seed'";
  }
  if (stochastic && poolType.isF32())
    return op.emitOpError()
           << "pool_rounding stochastic has nothing to round in an f32 pool";
  return success();
}

/// Every operand but the pool and y of one container kind, the form's y,
/// and the checkpoint attribute with its operands.
LogicalResult verifyContainers(ChunkScanVarlenOp op) {
  const bool tensorForm = isa<RankedTensorType>(op.getX().getType());

  // Every operand other than the pool and y has the container kind of x: a
  // mixed op has no bufferization story and no lowering.
  SmallVector<std::pair<StringRef, Value>> formOperands = {
      {"dt", op.getDt()},
      {"A", op.getA()},
      {"B", op.getB()},
      {"C", op.getC()},
      {"D", op.getD()},
      {"dt_bias", op.getDtBias()},
      {"query_start_loc", op.getQueryStartLoc()},
      {"has_initial_state", op.getHasInitialState()},
      {"cache_indices", op.getCacheIndices()},
      {"update_state", op.getUpdateState()},
      {"checkpoint_slots", op.getCheckpointSlots()},
      {"checkpoint_offsets", op.getCheckpointOffsets()},
      {"token_parents", op.getTokenParents()},
      {"rounding_seed", op.getRoundingSeed()}};
  for (auto [name, value] : formOperands) {
    if (!value || isa<RankedTensorType>(value.getType()) == tensorForm)
      continue;
    return op.emitOpError()
           << "operand '" << name << "' is a "
           << (tensorForm ? "memref" : "tensor") << " but 'x' is a "
           << (tensorForm ? "tensor" : "memref")
           << ": every operand but ssm_pool must be a tensor "
              "(tensor form) or every one a memref (memref form)";
  }
  if (tensorForm && (op.getYOut() || op.getNumResults() != 1))
    return op.emitOpError()
           << "the tensor form returns y as its one result and "
              "takes no 'outs' buffer";
  if (!tensorForm && (!op.getYOut() || op.getNumResults() != 0))
    return op.emitOpError()
           << "the memref form takes y as an 'outs' memref and "
              "has no results";

  // The interval is what gives the slots a meaning, and offsets only shift
  // the boundaries of slots that exist.
  if (op.getCheckpointSlots() && !op.getCheckpointInterval())
    return op.emitOpError() << "'checkpoint_slots' requires the "
                               "'checkpoint_interval' attribute";
  if (!op.getCheckpointSlots() && op.getCheckpointInterval())
    return op.emitOpError() << "'checkpoint_interval' is only valid with "
                               "'checkpoint_slots'";
  if (!op.getCheckpointSlots() && op.getCheckpointOffsets())
    return op.emitOpError() << "'checkpoint_offsets' is only valid with "
                               "'checkpoint_slots'";

  return success();
}

/// What an op with token_parents (a draft tree) cannot be: its checkpoints
/// hold one state per node, and only the serial form follows parents.
LogicalResult verifyTree(ChunkScanVarlenOp op) {
  if (!op.getTokenParents())
    return success();
  if (std::optional<uint64_t> interval = op.getCheckpointInterval();
      interval && *interval != 1)
    return op.emitOpError()
           << "'token_parents' needs checkpoint_interval 1 (column j of "
              "checkpoint_slots holds the state of token j), got "
           << *interval;
  std::optional<Form> form = op.getForm();
  ScanConfigAttr config = op.getConfigAttr();
  if (config)
    form = config.getForm();
  if (form && *form == Form::chunked)
    return op.emitOpError()
           << "form chunked cannot serve 'token_parents': a chunk's closed "
              "form follows a chain of tokens, not a tree; use the serial "
              "form";
  if (config && config.getMixedMinTokens())
    return op.emitOpError()
           << "config mixed_min_tokens cannot serve 'token_parents': a mixed "
              "launch sends long sequences to the chunked kernels, which "
              "follow a chain of tokens, not a tree";
  if (op.getInvariant())
    return op.emitOpError()
           << "invariant cannot serve 'token_parents': the invariant "
              "kernels follow a chain of tokens, not a tree";
  return success();
}

/// Each operand with the extents of its dimensions.
SmallVector<OperandSpec> operandSpecs(ChunkScanVarlenOp op) {
  Value y = op.getYValue();
  auto cacheIndicesType = cast<ShapedType>(op.getCacheIndices().getType());
  bool cacheIndicesRow = cacheIndicesType.getRank() == 2;
  SmallVector<OperandSpec> specs = {
      {"x", op.getX(), {"T", "H", "P"}},
      {"dt", op.getDt(), {"T", "H"}},
      {"A", op.getA(), {"H"}},
      {"B", op.getB(), {"T", "G", "N"}},
      {"C", op.getC(), {"T", "G", "N"}},
      {"D", op.getD(), {"H"}},
      {"dt_bias", op.getDtBias(), {"H"}},
      {"ssm_pool", op.getSsmPool(), {"S", "H", "P", "N"}},
      {"ssm_pool_scales", op.getSsmPoolScales(), {"S", "H", "P"}},
      {"query_start_loc", op.getQueryStartLoc(), {"batch + 1"}},
      {"has_initial_state", op.getHasInitialState(), {"batch"}},
      {"cache_indices", op.getCacheIndices(),
       cacheIndicesRow ? SmallVector<StringRef, 4>{"1", "batch"}
                       : SmallVector<StringRef, 4>{"batch"}},
      {"update_state", op.getUpdateState(), {"batch"}},
      {"checkpoint_slots", op.getCheckpointSlots(), {"batch", "K"}},
      {"checkpoint_offsets", op.getCheckpointOffsets(), {"batch"}},
      {"token_parents", op.getTokenParents(), {"T"}},
      {"rounding_seed", op.getRoundingSeed(), {}},
      {"y", y, {"T", "H", "P"}}};

  return specs;
}

LogicalResult verifyRanks(ChunkScanVarlenOp op, ArrayRef<OperandSpec> specs) {
  for (const OperandSpec &spec : specs) {
    if (!spec.value)
      continue;
    int64_t rank = cast<ShapedType>(spec.value.getType()).getRank();
    if (spec.name == "cache_indices" && rank != 1 && rank != 2)
      return op.emitOpError()
             << "'cache_indices' must have rank 1 ([batch]) or 2 "
                "([1, batch]), got rank "
             << rank;
    if (rank != static_cast<int64_t>(spec.dims.size()))
      return op.emitOpError()
             << "'" << spec.name << "' must have rank " << spec.dims.size()
             << " (" << describeDims(spec.dims) << "), got rank " << rank;
  }

  return success();
}

LogicalResult verifyElementTypes(ChunkScanVarlenOp op,
                                 ArrayRef<OperandSpec> specs) {
  // Element types.
  Type modelType = getElementTypeOrSelf(op.getX().getType());
  if (!isModelDType(modelType))
    return op.emitOpError() << "'x' element type must be f32, f16 or bf16 (the "
                               "model dtype), got "
                            << modelType;
  for (StringRef name : {"dt", "A", "B", "C", "D", "dt_bias", "y"}) {
    auto it = llvm::find_if(
        specs, [&](const OperandSpec &s) { return s.name == name; });
    if (!it->value)
      continue;
    Type elementType = getElementTypeOrSelf(it->value.getType());
    if (elementType != modelType)
      return op.emitOpError()
             << "'" << name << "' element type " << elementType
             << " must match the model dtype " << modelType << " of 'x'";
  }
  Type poolType = getElementTypeOrSelf(op.getSsmPool().getType());
  if (!isPoolElementType(poolType))
    return op.emitOpError() << "'ssm_pool' element type must be f32, bf16, "
                               "f16, f8E4M3FN or i8, got "
                            << poolType;
  if (failed(verifyPoolCompression(op, poolType)))
    return failure();
  Type qslType = getElementTypeOrSelf(op.getQueryStartLoc().getType());
  if (!qslType.isSignlessInteger(32))
    return op.emitOpError()
           << "'query_start_loc' element type must be i32, got " << qslType;
  Type indexType = getElementTypeOrSelf(op.getCacheIndices().getType());
  if (!indexType.isSignlessInteger(32) && !indexType.isUnsignedInteger(32))
    return op.emitOpError()
           << "'cache_indices' element type must be i32 or ui32, got "
           << indexType;
  if (Value slots = op.getCheckpointSlots()) {
    Type slotType = getElementTypeOrSelf(slots.getType());
    if (!slotType.isSignlessInteger(32) && !slotType.isUnsignedInteger(32))
      return op.emitOpError()
             << "'checkpoint_slots' element type must be i32 or ui32, got "
             << slotType;
  }
  if (Value offsets = op.getCheckpointOffsets()) {
    Type offsetType = getElementTypeOrSelf(offsets.getType());
    if (!offsetType.isSignlessInteger(32))
      return op.emitOpError()
             << "'checkpoint_offsets' element type must be i32, got "
             << offsetType;
  }
  if (Value parents = op.getTokenParents()) {
    Type parentType = getElementTypeOrSelf(parents.getType());
    if (!parentType.isSignlessInteger(32))
      return op.emitOpError()
             << "'token_parents' element type must be i32, got " << parentType;
  }
  for (auto [name, value] : {std::pair<StringRef, Value>{
                                 "has_initial_state", op.getHasInitialState()},
                             {"update_state", op.getUpdateState()}}) {
    if (!value)
      continue;
    Type elementType = getElementTypeOrSelf(value.getType());
    if (!elementType.isSignlessInteger(1))
      return op.emitOpError()
             << "'" << name << "' element type must be i1, got " << elementType;
  }

  return success();
}

/// The extents operands share, each bound once, within the documented
/// maxima (ssd/IR/SSDLimits.h, docs/overview.md "Limits").
LogicalResult verifyExtents(ChunkScanVarlenOp op, ArrayRef<OperandSpec> specs,
                            ExtentBinder &extents) {
  // Extents shared between operands.
  for (const OperandSpec &spec : specs) {
    if (!spec.value)
      continue;
    ArrayRef<int64_t> shape = cast<ShapedType>(spec.value.getType()).getShape();
    for (auto [dim, extent] : llvm::enumerate(spec.dims)) {
      int64_t size = shape[dim];
      if (extent == "1") {
        if (!ShapedType::isDynamic(size) && size != 1)
          return op.emitOpError()
                 << "'cache_indices' of rank 2 must have shape "
                    "[1, batch], got leading dimension "
                 << size;
        continue;
      }
      if (extent == "batch + 1") {
        if (ShapedType::isDynamic(size))
          continue;
        if (size < 1)
          return op.emitOpError()
                 << "'query_start_loc' must hold batch + 1 >= 1 "
                    "offsets, got dimension "
                 << size;
        if (failed(extents.bind("batch", size - 1,
                                Twine("'query_start_loc' dim 0 minus one"))))
          return failure();
        continue;
      }
      if (failed(extents.bind(extent, size,
                              Twine("'") + spec.name + "' dim " + Twine(dim))))
        return failure();
    }
  }

  std::optional<int64_t> heads = extents.get("H");
  std::optional<int64_t> groups = extents.get("G");
  if (groups && *groups < 1)
    return op.emitOpError() << "ngroups (" << *groups << ") must be positive";
  if (heads && groups && *heads % *groups != 0)
    return op.emitOpError()
           << "nheads (" << *heads << ") must be a multiple of ngroups ("
           << *groups << ")";

  // The documented maxima (ssd/IR/SSDLimits.h, docs/overview.md "Limits").
  struct Limit {
    StringRef extent, name;
    int64_t max;
  };
  for (const Limit &limit : {Limit{"T", "total tokens T", limits::kMaxTokens},
                             Limit{"H", "nheads H", limits::kMaxHeads},
                             Limit{"P", "head_dim P", limits::kMaxHeadDim},
                             Limit{"G", "ngroups G", limits::kMaxGroups},
                             Limit{"N", "dstate N", limits::kMaxDState}}) {
    std::optional<int64_t> value = extents.get(limit.extent);
    if (value && *value > limit.max)
      return op.emitOpError()
             << limit.name << " (" << *value << ", "
             << extents.where(limit.extent)
             << ") exceeds the supported maximum " << limit.max;
  }
  return success();
}

/// The chunked GPU kernels' choices of `config` that `op` rules out: fused
/// state passing with an f32 model (its hi/lo chunk kernel has no registers
/// left for it) or with checkpoints that do not all end a chunk (the fused
/// kernels have no walk to a state inside one), several heads per block
/// over a group that does not hold a multiple of them.
LogicalResult verifyKernelChoices(ChunkScanVarlenOp op, ScanConfigAttr config,
                                  const ExtentBinder &extents) {
  std::optional<Fusion> fusion = config.getFusion();
  if (!fusion)
    return success();
  if (*fusion != Fusion::none) {
    Type modelType = getElementTypeOrSelf(op.getX().getType());
    if (modelType.isF32())
      return op.emitOpError()
             << "config fusion = " << stringifyFusion(*fusion)
             << " needs a 16-bit model (f16 or bf16), got f32: f32 models "
                "pass chunk states in a launch of their own (fusion = none)";
    if (op.getCheckpointSlots() &&
        !op.checkpointsEndChunks(config.getChunkSize()))
      return op.emitOpError()
             << "config fusion = " << stringifyFusion(*fusion)
             << " needs every checkpoint to end a chunk (no "
                "checkpoint_offsets, an interval that is a multiple of "
                "chunk_size "
             << config.getChunkSize()
             << "): checkpoints inside chunks are written by a state-passing "
                "launch of its own (fusion = none)";
  }
  std::optional<int64_t> heads = extents.get("H"), groups = extents.get("G");
  int64_t perBlock = *config.getHeadsPerBlock();
  if (perBlock > 1 && heads && groups && *groups > 0 &&
      (*heads / *groups) % perBlock)
    return op.emitOpError()
           << "config heads_per_block = " << perBlock << " needs a multiple of "
           << perBlock << " heads per group, got " << *heads / *groups
           << " (H = " << *heads << ", G = " << *groups << ")";
  return success();
}

/// The config against the op: the form and chunk size it names too, and
/// the GPU kernels' choices that the op's types and checkpoints rule out
/// (the attribute checks the rest on its own; the lowering what needs the
/// tiling).
LogicalResult verifyConfig(ChunkScanVarlenOp op, const ExtentBinder &extents) {
  if (std::optional<uint64_t> chunkSize = op.getChunkSize();
      chunkSize && *chunkSize > uint64_t(limits::kMaxChunkSize))
    return op.emitOpError()
           << "chunk_size (" << *chunkSize << ") exceeds the supported maximum "
           << limits::kMaxChunkSize;
  // The plan is the pass's reading of the request; where the op names a
  // form or chunk size too, a lowering must not see two answers.
  if (ScanConfigAttr config = op.getConfigAttr()) {
    if (op.getForm() && *op.getForm() != config.getForm())
      return op.emitOpError()
             << "form " << stringifyForm(*op.getForm())
             << " does not match the form " << stringifyForm(config.getForm())
             << " of its config";
    if (std::optional<uint64_t> chunkSize = op.getChunkSize();
        chunkSize && int64_t(*chunkSize) != config.getChunkSize())
      return op.emitOpError() << "chunk_size (" << *chunkSize
                              << ") does not match the chunk_size ("
                              << config.getChunkSize() << ") of its config";
    if (op.getInvariant() != config.getInvariant())
      return op.emitOpError()
             << (op.getInvariant() ? "is invariant but its config is not"
                                   : "is not invariant but its config is")
             << " (invariant = true): the lowerings read the config, so the "
                "two must agree";
    // An attribute is verified where it is parsed or built with getChecked;
    // a pass that builds one with get (a planner, a graph compiler) is
    // checked here, after it runs, before a lowering reads the choices.
    if (failed(ScanConfigAttr::verify(
            [&] { return op.emitOpError() << "config: "; }, config.getForm(),
            config.getChunkSize(), config.getMixedMinTokens(),
            config.getInvariant(), config.getChip(),
            config.getSerialRowsPerWarp(), config.getSerialWarpsPerBlock(),
            config.getFusion(), config.getOutputRows(), config.getStateParts(),
            config.getHeadsPerBlock(), config.getMatmul(),
            config.getFragmentLoads(), config.getStaging(),
            config.getPipelineStages(), config.getCbInBlock(),
            config.getBlocksPerSm(), config.getSharedMemory())))
      return failure();
    if (failed(verifyKernelChoices(op, config, extents)))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult ChunkScanVarlenOp::verify() {
  SmallVector<OperandSpec> specs = operandSpecs(*this);
  ExtentBinder extents(getOperation());
  if (failed(verifyContainers(*this)) || failed(verifyRanks(*this, specs)) ||
      failed(verifyElementTypes(*this, specs)) || failed(verifyTree(*this)) ||
      failed(verifyExtents(*this, specs, extents)))
    return failure();
  return verifyConfig(*this, extents);
}

bool ChunkScanVarlenOp::checkpointsEndChunks(int64_t chunkSize) {
  // Boundary after local token j: (j + 1) mod I = 0, so (j + 1) mod L = 0
  // when L divides I: the last token of a whole chunk.
  std::optional<uint64_t> interval = getCheckpointInterval();
  return interval && !getCheckpointOffsets() && chunkSize > 0 &&
         *interval % static_cast<uint64_t>(chunkSize) == 0;
}

//===----------------------------------------------------------------------===//
// Side effects
//===----------------------------------------------------------------------===//

void ChunkScanVarlenOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Only memref operands touch memory: the pool is read and updated in place,
  // the y buffer is written, every other buffer is read. Tensor operands are
  // values and have no effect.
  OpOperand &pool = getSsmPoolMutable();
  MutableOperandRange scales = getSsmPoolScalesMutable();
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    bool isScales = !scales.empty() && &operand == &scales[0];
    if (&operand == &pool || isScales) {
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
      continue;
    }
    bool isYOut = getYOut() && operand.getOperandNumber() ==
                                   getOperation()->getNumOperands() - 1;
    if (isYOut)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// KernelOccupancyOp
//===----------------------------------------------------------------------===//

LogicalResult KernelOccupancyOp::verify() {
  Operation *kernel = (*this)->getParentOp();
  while (kernel && !isa<gpu::LaunchOp, gpu::GPUFuncOp>(kernel))
    kernel = kernel->getParentOp();
  if (!kernel)
    return emitOpError("must be inside a gpu.launch body or a gpu.func: it "
                       "describes the kernel that encloses it");
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel); func && !func.isKernel())
    return emitOpError("must be inside a kernel: '")
           << func.getName() << "' is a gpu.func without the kernel attribute";
  return success();
}
