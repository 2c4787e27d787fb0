//===- TorchOps.cpp - ssd.chunk_scan_varlen as a PyTorch op ---------------===//
//
// Registers torch.ops.ssd.chunk_scan_varlen_ (docs/python.md): checks every
// rule of the op on the tensors before anything is written, then runs the
// kernel compiled once per signature (ScanKernel) on the tensors' own memory.
// The op is those three steps, in this order and each in a section of its
// own: checkCall (every rule; its order is the order errors are reported
// in, which callers may see), KernelCache (signature -> compiled kernel) and
// Launch (the buffers, the call, y).
//
// Threads: the kernels are compiled without OpenMP. torch runs on libgomp and
// the CPU pipeline's parallel loops call LLVM's libomp (__kmpc_*); two OpenMP
// runtimes in one process would each start a pool of threads sized to the
// machine. Instead torch's own runtime, libgomp, runs one parallel region of
// torch.get_num_threads() threads, each making one single-threaded call on
// a range of sequences (ranges of about equal token counts): sequences are
// independent, except a sequence reading a slot another writes (reads see
// the pool before the call), so such a batch runs as one call.
// at::parallel_for cannot be used for this: its OpenMP backend is inline
// code with `#pragma omp parallel`, which clang would compile against
// LLVM's libomp (or, without -fopenmp, into a serial loop). The region is
// entered through libgomp's GOMP_parallel, what GCC emits for the pragma and
// what torch's own kernels call.
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/ScanKernel.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Support/SettingRanges.h"
#include "ssd/Transforms/FormSelection.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

// libgomp's entry points (torch links libgomp; the project's libomp is
// never loaded here, since every kernel is compiled without OpenMP).
extern "C" {
void GOMP_parallel(void (*fn)(void *), void *data, unsigned numThreads,
                   unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

using ssd::ModelDType;
using ssd::PoolDType;
using ssd::ScanProblem;

namespace {

[[noreturn]] void valueError(const std::string &message) {
  TORCH_CHECK_VALUE(false, message);
  __builtin_unreachable();
}

[[noreturn]] void runtimeError(const std::string &message) {
  TORCH_CHECK(false, message);
  __builtin_unreachable();
}

std::string shapeString(const at::Tensor &t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i)
    s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

// Worded as the runner's loader words them (lib/Runner/Problem.cpp).
void expectShape(const char *name, const at::Tensor &t,
                 const std::vector<int64_t> &shape, const char *spelled) {
  if (t.sizes().vec() != shape) {
    std::string want = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      want += (i ? ", " : "") + std::to_string(shape[i]);
    valueError(std::string(name) + ": shape " + shapeString(t) +
               " does not match " + spelled + " = " + want + "]");
  }
}

void expectRank(const char *name, const at::Tensor &t, int64_t rank,
                const char *spelled) {
  if (t.dim() != rank)
    valueError(std::string(name) + ": expected rank " + std::to_string(rank) +
               " " + spelled + ", got shape " + shapeString(t));
}

const char *typeName(at::ScalarType t) { return c10::toString(t); }

/// Autograd and torch's in-place checks see the pool as modified (the
/// dispatcher does not bump the version of a custom op's mutated argument).
void bumpVersion(at::Tensor &pool) {
  if (!pool.is_inference())
    pool.unsafeGetTensorImpl()->bump_version();
}

ModelDType modelDType(const char *name, const at::Tensor &t) {
  switch (t.scalar_type()) {
  case at::kFloat:
    return ModelDType::F32;
  case at::kHalf:
    return ModelDType::F16;
  case at::kBFloat16:
    return ModelDType::BF16;
  default:
    valueError(std::string(name) + ": dtype " + typeName(t.scalar_type()) +
               " is not float32, float16 or bfloat16");
  }
}

//===----------------------------------------------------------------------===//
// The op's arguments
//===----------------------------------------------------------------------===//

/// The op's arguments as the schema names them, held by reference for the
/// length of one call.
struct OpArguments {
  const at::Tensor &x, &dt, &A, &B, &C;
  at::Tensor &pool;
  const at::Tensor &qsl, &ci;
  const c10::optional<at::Tensor> &D, &dtBias, &hasInit, &update;
  c10::string_view formName;
  c10::optional<int64_t> chunkSize;
  c10::string_view deviceName;
  const c10::optional<at::Tensor> &ckSlots, &ckOffsets;
  c10::optional<int64_t> ckInterval;
  bool invariant;
  const c10::optional<at::Tensor> &tokenParents;
  /// Compressed pools: the 8-bit pools' scales (updated in place with the
  /// pool), the name that tells an f8E4M3FN pool from its uint8 tensor, and
  /// the rounding of every pool write.
  const c10::optional<at::Tensor> &poolScales;
  c10::optional<c10::string_view> poolDTypeName;
  c10::string_view poolRoundingName;
  c10::optional<int64_t> roundingSeed;

  /// The tensors given, by name, for the checks that treat all alike.
  std::vector<std::pair<const char *, const at::Tensor *>> named() const {
    std::vector<std::pair<const char *, const at::Tensor *>> all = {
        {"x", &x},
        {"dt", &dt},
        {"A", &A},
        {"B", &B},
        {"C", &C},
        {"ssm_pool", &pool},
        {"query_start_loc", &qsl},
        {"cache_indices", &ci}};
    if (D)
      all.push_back({"D", &*D});
    if (dtBias)
      all.push_back({"dt_bias", &*dtBias});
    if (hasInit)
      all.push_back({"has_initial_state", &*hasInit});
    if (update)
      all.push_back({"update_state", &*update});
    if (ckSlots)
      all.push_back({"checkpoint_slots", &*ckSlots});
    if (ckOffsets)
      all.push_back({"checkpoint_offsets", &*ckOffsets});
    if (tokenParents)
      all.push_back({"token_parents", &*tokenParents});
    if (poolScales)
      all.push_back({"ssm_pool_scales", &*poolScales});
    return all;
  }
};

/// The pool's storage type: its tensor's dtype, and for uint8 (f8E4M3FN
/// codes held as bytes, as engines hold fp8 caches) the name
/// `pool_dtype="f8e4m3"`; a name given must agree with the tensor.
PoolDType poolDType(const OpArguments &args) {
  const at::ScalarType t = args.pool.scalar_type();
  std::optional<PoolDType> fromTensor;
  if (t == at::kFloat)
    fromTensor = PoolDType::F32;
  else if (t == at::kBFloat16)
    fromTensor = PoolDType::BF16;
  else if (t == at::kHalf)
    fromTensor = PoolDType::F16;
  else if (t == at::kChar)
    fromTensor = PoolDType::I8;
  else if (t != at::kByte)
    valueError(std::string("ssm_pool: dtype ") + typeName(t) +
               " is not float32, bfloat16, float16, int8, or uint8 holding "
               "f8E4M3FN codes (pool_dtype=\"f8e4m3\")");
  if (!args.poolDTypeName) {
    if (!fromTensor)
      valueError("ssm_pool: a uint8 pool needs pool_dtype=\"f8e4m3\" (the "
                 "tensor holds f8E4M3FN codes)");
    return *fromTensor;
  }
  PoolDType named;
  if (!ssd::parsePoolDType(std::string(*args.poolDTypeName), named))
    valueError("pool_dtype: '" + std::string(*args.poolDTypeName) +
               "' is not f32, bf16, f16, f8e4m3 or i8");
  const bool agrees =
      fromTensor ? named == *fromTensor : named == PoolDType::F8E4M3FN;
  if (!agrees)
    valueError("pool_dtype: '" + std::string(*args.poolDTypeName) +
               "' does not match ssm_pool's dtype " + typeName(t));
  return named;
}

/// The call's own (non-tensor) choices.
struct CallSettings {
  mlir::ssd::FormChoice form;
  ssd::Target target;
  int64_t chunk;
  bool invariant;
  ssd::PoolRounding rounding;
  int64_t seed;
};

/// The index operands made row-major: the kernel reads their memory during
/// the launch, so they outlive the checks that read them.
struct IndexOperands {
  at::Tensor qsl, ci, hasInit, update, ckSlots, ckOffsets, tokenParents;
};

/// A call that passed every check: what the compile cache and the launch
/// need, and nothing has been written yet.
struct CheckedCall {
  ScanProblem problem;
  CallSettings settings;
  IndexOperands index;
};

//===----------------------------------------------------------------------===//
// Validation: every rule, in a fixed order (the first broken one is the one
// reported), each a one-line ValueError raised before the pool is written.
//===----------------------------------------------------------------------===//

/// The call's own arguments, before any tensor is looked at.
CallSettings parseSettings(c10::string_view formName,
                           c10::string_view deviceName,
                           c10::optional<int64_t> chunkSize, bool invariant,
                           c10::string_view roundingName,
                           c10::optional<int64_t> seed) {
  std::optional<mlir::ssd::FormChoice> form = mlir::ssd::parseEnumName(
      mlir::ssd::kFormChoiceNames, std::string(formName));
  if (!form)
    valueError("form: '" + std::string(formName) +
               "' is not auto, serial or chunked");
  ssd::Target target;
  if (deviceName == "cpu")
    target = ssd::Target::CPU;
  else if (deviceName == "gpu-emu")
    target = ssd::Target::GPUEmulator;
  else
    valueError("device: '" + std::string(deviceName) +
               "' is not cpu or gpu-emu");

  // The chunk size's range depends on the target (the GPU kernels cap it
  // below the CPU pipeline's limit).
  int64_t chunk = chunkSize.value_or(mlir::ssd::kChunkSizeDefault);
  if (mlir::ssd::SettingRange range =
          mlir::ssd::chunkSizeRange(target != ssd::Target::CPU);
      !range.contains(chunk))
    valueError("chunk_size: " + range.describe(chunk));

  std::optional<ssd::PoolRounding> rounding = mlir::ssd::parseEnumName(
      ssd::kPoolRoundingNames, std::string(roundingName));
  if (!rounding)
    valueError("pool_rounding: '" + std::string(roundingName) +
               "' is not nearest or stochastic");
  const bool stochastic = *rounding == ssd::PoolRounding::Stochastic;
  if (stochastic && !seed)
    valueError("rounding_seed: required with pool_rounding=\"stochastic\" "
               "(give each call its own seed)");
  if (!stochastic && seed)
    valueError("rounding_seed: given without pool_rounding=\"stochastic\"");
  return {*form, target, chunk, invariant, *rounding, seed.value_or(0)};
}

/// The interval and the offsets come with the slots.
void checkCheckpointArguments(const OpArguments &args) {
  if (args.ckOffsets && !args.ckSlots)
    valueError("checkpoint_offsets: given without checkpoint_slots (offsets "
               "only place checkpoints)");
  if (args.ckSlots && !args.ckInterval)
    valueError("checkpoint_interval: required with checkpoint_slots");
  if (!args.ckSlots && args.ckInterval)
    valueError("checkpoint_interval: given without checkpoint_slots");
  if (args.ckInterval && *args.ckInterval < 1)
    valueError("checkpoint_interval: " + std::to_string(*args.ckInterval) +
               " is not >= 1");
}

/// Each tensor exists, is on the CPU and is not asking for a gradient.
void checkEveryTensor(const OpArguments &args) {
  for (auto &[name, t] : args.named()) {
    if (!t->defined())
      valueError(std::string(name) + ": undefined tensor");
    if (!t->device().is_cpu())
      runtimeError(std::string(name) + ": tensors on " + t->device().str() +
                   " are not supported (CPU tensors only; CUDA tensors run "
                   "through a kernel library, device=\"aot\", "
                   "docs/python.md)");
    if (t->requires_grad() && at::GradMode::is_enabled())
      valueError(std::string(name) +
                 ": requires grad; chunk_scan_varlen_ is forward only (call "
                 "it under torch.no_grad() or pass detached tensors)");
  }
}

/// The model dtype (x's, shared by every model operand), the pool's, and the
/// index operands' and masks' fixed dtypes.
void readDTypes(const OpArguments &args, ScanProblem &p) {
  p.dtype = modelDType("x", args.x);
  for (auto &[name, t] : args.named()) {
    std::string n = name;
    if (n == "ssm_pool" || n == "query_start_loc" || n == "cache_indices" ||
        n == "has_initial_state" || n == "update_state" ||
        n == "checkpoint_slots" || n == "checkpoint_offsets" ||
        n == "token_parents" || n == "ssm_pool_scales" || n == "x")
      continue;
    if (t->scalar_type() != args.x.scalar_type())
      valueError(n + ": dtype " + typeName(t->scalar_type()) +
                 " differs from x's " + typeName(args.x.scalar_type()) +
                 " (one model dtype for x, dt, A, B, C, D, dt_bias)");
  }
  p.poolDType = poolDType(args);
  if (args.qsl.scalar_type() != at::kInt)
    valueError(std::string("query_start_loc: dtype ") +
               typeName(args.qsl.scalar_type()) + " is not int32");
  if (args.ci.scalar_type() != at::kInt)
    valueError(std::string("cache_indices: dtype ") +
               typeName(args.ci.scalar_type()) + " is not int32");
  for (auto [name, index] : {std::pair{"checkpoint_slots", &args.ckSlots},
                             std::pair{"checkpoint_offsets", &args.ckOffsets},
                             std::pair{"token_parents", &args.tokenParents}})
    if (*index && (*index)->scalar_type() != at::kInt)
      valueError(std::string(name) + ": dtype " +
                 typeName((*index)->scalar_type()) + " is not int32");
  for (const c10::optional<at::Tensor> *mask : {&args.hasInit, &args.update})
    if (*mask && (*mask)->scalar_type() != at::kBool)
      valueError(std::string(mask == &args.hasInit ? "has_initial_state"
                                                   : "update_state") +
                 ": dtype " + typeName((*mask)->scalar_type()) +
                 " is not bool");
}

/// The model operands' extents: T, H, P from x, G, N from B, as the runner's
/// loader takes them, within the limits the pipelines accept.
void readModelExtents(const OpArguments &args, ScanProblem &p) {
  expectRank("x", args.x, 3, "[T, H, P]");
  p.T = args.x.size(0);
  p.H = args.x.size(1);
  p.P = args.x.size(2);
  if (p.H < 1 || p.P < 1)
    valueError("x: H and P must be at least 1, got shape " +
               shapeString(args.x));
  expectShape("dt", args.dt, {p.T, p.H}, "[T, H]");
  expectShape("A", args.A, {p.H}, "[H]");
  expectRank("B", args.B, 3, "[T, G, N]");
  p.G = args.B.size(1);
  p.N = args.B.size(2);
  expectShape("B", args.B, {p.T, p.G, p.N}, "[T, G, N]");
  if (p.G < 1 || p.N < 1)
    valueError("B: G and N must be at least 1, got shape " +
               shapeString(args.B));
  std::string error;
  if (!ssd::checkLimits(p, error))
    valueError(error);
  if (p.H % p.G != 0)
    valueError("B: H = " + std::to_string(p.H) +
               " (from x) is not a multiple of G = " + std::to_string(p.G));
  expectShape("C", args.C, {p.T, p.G, p.N}, "[T, G, N]");
  p.hasD = args.D.has_value();
  p.hasDtBias = args.dtBias.has_value();
  if (p.hasD)
    expectShape("D", *args.D, {p.H}, "[H]");
  if (p.hasDtBias)
    expectShape("dt_bias", *args.dtBias, {p.H}, "[H]");
}

/// The pool's slot count S, and what writing it in place requires.
void readPool(const OpArguments &args, ScanProblem &p) {
  expectRank("ssm_pool", args.pool, 4, "[S, H, P, N]");
  p.S = args.pool.size(0);
  expectShape("ssm_pool", args.pool, {p.S, p.H, p.P, p.N}, "[S, H, P, N]");
  // The pool is written where it is: never copied, so it must be one
  // row-major block.
  if (!args.pool.is_contiguous())
    valueError("ssm_pool: not contiguous (the pool is updated in place; pass "
               "a contiguous pool, e.g. allocated with torch.zeros)");
  // As torch's own in-place ops: an inference tensor has no version counter
  // and may be updated only inside InferenceMode (checked here, not after
  // the pool was written).
  if (args.pool.is_inference() && !c10::InferenceMode::is_enabled())
    valueError("ssm_pool: an inference tensor cannot be updated in place "
               "outside torch.inference_mode()");

  // An 8-bit pool's scales are updated in place with it.
  const bool scaled = ssd::isScaledPool(p.poolDType);
  if (!scaled && args.poolScales)
    valueError(std::string("ssm_pool_scales: given for a ") +
               ssd::toString(p.poolDType) +
               " pool (only 8-bit pools, f8e4m3 and i8, have scales)");
  if (scaled && !args.poolScales)
    valueError(std::string("ssm_pool_scales: required for an ") +
               ssd::toString(p.poolDType) +
               " pool (float32 [S, H, P], one scale per row of N codes)");
  if (scaled) {
    const at::Tensor &scales = *args.poolScales;
    if (scales.scalar_type() != at::kFloat)
      valueError(std::string("ssm_pool_scales: dtype ") +
                 typeName(scales.scalar_type()) + " is not float32");
    expectShape("ssm_pool_scales", scales, {p.S, p.H, p.P}, "[S, H, P]");
    if (!scales.is_contiguous())
      valueError("ssm_pool_scales: not contiguous (updated in place with the "
                 "pool)");
    if (scales.is_inference() && !c10::InferenceMode::is_enabled())
      valueError("ssm_pool_scales: an inference tensor cannot be updated in "
                 "place outside torch.inference_mode()");
  }
  if (p.poolDType == PoolDType::F32 &&
      p.poolRounding == ssd::PoolRounding::Stochastic)
    valueError("pool_rounding: stochastic has nothing to round in a float32 "
               "pool");
}

/// The per-sequence operands' extents: batch from query_start_loc, K from
/// checkpoint_slots; and token_parents' (T, from x).
void readSequenceExtents(const OpArguments &args, ScanProblem &p) {
  expectRank("query_start_loc", args.qsl, 1, "[batch + 1]");
  if (args.qsl.size(0) < 1)
    valueError("query_start_loc: needs at least one offset (shape "
               "[batch + 1])");
  p.batch = args.qsl.size(0) - 1;
  if (args.ci.dim() == 2 && args.ci.size(0) == 1 && args.ci.size(1) == p.batch)
    p.cacheIndicesRow = true;
  else if (args.ci.dim() != 1 || args.ci.size(0) != p.batch)
    valueError("cache_indices: shape " + shapeString(args.ci) +
               " is neither [batch] = [" + std::to_string(p.batch) +
               "] nor [1, batch] = [1, " + std::to_string(p.batch) +
               "] (batch from query_start_loc)");
  p.hasInitialStatePresent = args.hasInit.has_value();
  p.updateStatePresent = args.update.has_value();
  if (p.hasInitialStatePresent)
    expectShape("has_initial_state", *args.hasInit, {p.batch}, "[batch]");
  if (p.updateStatePresent)
    expectShape("update_state", *args.update, {p.batch}, "[batch]");
  p.checkpointSlotsPresent = args.ckSlots.has_value();
  p.checkpointOffsetsPresent = args.ckOffsets.has_value();
  p.checkpointInterval = args.ckInterval.value_or(0);
  if (p.checkpointSlotsPresent) {
    expectRank("checkpoint_slots", *args.ckSlots, 2, "[batch, K]");
    p.checkpointK = args.ckSlots->size(1);
    expectShape("checkpoint_slots", *args.ckSlots, {p.batch, p.checkpointK},
                "[batch, K]");
  }
  if (p.checkpointOffsetsPresent)
    expectShape("checkpoint_offsets", *args.ckOffsets, {p.batch}, "[batch]");
  p.tokenParentsPresent = args.tokenParents.has_value();
  if (p.tokenParentsPresent)
    expectShape("token_parents", *args.tokenParents, {p.T}, "[T]");
}

/// Reads the index operands into the problem (their values are rules of
/// their own) and checks them with the runner's contract checks.
IndexOperands readIndexOperands(const OpArguments &args, ScanProblem &p) {
  // Inputs other than the pool may be copied to be row-major; the index
  // operands are read here, so they are made contiguous first.
  IndexOperands index;
  index.qsl = args.qsl.contiguous();
  index.ci = args.ci.contiguous();
  const int32_t *q = index.qsl.data_ptr<int32_t>();
  p.queryStartLoc.assign(q, q + p.batch + 1);
  const auto *slots =
      reinterpret_cast<const uint32_t *>(index.ci.data_ptr<int32_t>());
  p.cacheIndices.assign(slots, slots + p.batch);
  static_assert(sizeof(bool) == 1, "masks are read as bytes");
  if (p.hasInitialStatePresent) {
    index.hasInit = args.hasInit->contiguous();
    const auto *m =
        reinterpret_cast<const uint8_t *>(index.hasInit.data_ptr<bool>());
    p.hasInitialState.assign(m, m + p.batch);
  }
  if (p.updateStatePresent) {
    index.update = args.update->contiguous();
    const auto *m =
        reinterpret_cast<const uint8_t *>(index.update.data_ptr<bool>());
    p.updateState.assign(m, m + p.batch);
  }
  if (p.checkpointSlotsPresent) {
    index.ckSlots = args.ckSlots->contiguous();
    const auto *c =
        reinterpret_cast<const uint32_t *>(index.ckSlots.data_ptr<int32_t>());
    p.checkpointSlots.assign(c, c + p.batch * p.checkpointK);
  }
  if (p.checkpointOffsetsPresent) {
    index.ckOffsets = args.ckOffsets->contiguous();
    const int32_t *o = index.ckOffsets.data_ptr<int32_t>();
    p.checkpointOffsets.assign(o, o + p.batch);
  }
  if (p.tokenParentsPresent) {
    index.tokenParents = args.tokenParents->contiguous();
    const int32_t *t = index.tokenParents.data_ptr<int32_t>();
    p.tokenParents.assign(t, t + p.T);
  }
  std::string operand, error;
  if (!ssd::checkIndexContract(p, operand, error, "x") ||
      !ssd::checkCheckpointContract(p, operand, error))
    valueError(operand + ": " + error);
  if (!ssd::checkTreeContract(p, error))
    valueError("token_parents: " + error);
  return index;
}

/// Every rule of the op, in the order the errors are reported: the call's
/// own arguments, then each tensor's device and grad, dtypes, extents and
/// shapes, and last the values of the index operands.
CheckedCall checkCall(const OpArguments &args) {
  CheckedCall call;
  call.settings =
      parseSettings(args.formName, args.deviceName, args.chunkSize,
                    args.invariant, args.poolRoundingName, args.roundingSeed);
  checkCheckpointArguments(args);
  checkEveryTensor(args);
  ScanProblem &p = call.problem;
  p.poolRounding = call.settings.rounding;
  p.roundingSeed = call.settings.seed;
  readDTypes(args, p);
  readModelExtents(args, p);
  readPool(args, p);
  readSequenceExtents(args, p);
  call.index = readIndexOperands(args, p);
  return call;
}

/// The options to compile the call's kernel with, once a tree is known to
/// be asked of a form that serves it and the CPU workspace it needs to fit
/// (refused before compiling, not while running).
ssd::CompileOptions compileOptionsFor(const CheckedCall &call) {
  ssd::CompileOptions options;
  options.target = call.settings.target;
  options.form = call.settings.form;
  options.chunkSize = call.settings.chunk;
  options.invariant = call.settings.invariant;
  options.openmp = false;
  std::string error;
  // An argument the caller chose (form, invariant), so a ValueError.
  if (!ssd::checkTreeOptions(call.problem, options, error))
    valueError(error);
  if (options.target == ssd::Target::CPU &&
      !ssd::checkCPUWorkspace(call.problem, options, error))
    runtimeError("ssd.chunk_scan_varlen_: " + error);
  return options;
}

//===----------------------------------------------------------------------===//
// The compile cache: one kernel per signature, kept for the process
//===----------------------------------------------------------------------===//

class KernelCache {
public:
  /// Never destroyed: destroying the kernels at exit would tear down their
  /// JIT in no fixed order with LLVM's and torch's own statics.
  static KernelCache &get() {
    static auto *cache = new KernelCache();
    return *cache;
  }

  ssd::ScanKernel *kernelFor(const ScanProblem &p,
                             const ssd::CompileOptions &options) {
    std::lock_guard<std::mutex> lock(mutex);
    Key key = Key::of(p, options);
    auto it = kernels.find(key);
    if (it != kernels.end())
      return it->second.get();
    // Compiled under the lock: a second thread asking for the same kernel
    // waits for it instead of compiling it again.
    std::string error;
    std::unique_ptr<ssd::ScanKernel> kernel =
        ssd::ScanKernel::compile(p, options, error);
    if (!kernel)
      runtimeError("ssd.chunk_scan_varlen_: " + error);
    ++compileCount;
    return kernels.emplace(key, std::move(kernel)).first->second.get();
  }

  /// How many kernels this process compiled (the tests check the cache).
  int64_t compiled() {
    std::lock_guard<std::mutex> lock(mutex);
    return compileCount;
  }

private:
  /// What a compiled kernel is specialised to (ScanKernel compiles for
  /// dynamic T, batch and slot count).
  struct Key {
    ModelDType dtype;
    PoolDType pool;
    int64_t H, P, G, N;
    bool D, dtBias, hasInit, update, row;
    ssd::Target target;
    mlir::ssd::FormChoice form;
    int64_t chunk;
    /// Checkpoints: K (a static extent of the kernel; -1 without
    /// checkpoint_slots), offsets present, the interval (an attribute).
    int64_t checkpointK;
    bool checkpointOffsets;
    int64_t checkpointInterval;
    bool invariant;
    /// token_parents present (an operand of the kernel when it is).
    bool tokenParents;
    /// The op's pool_rounding (stochastic adds the seed operand).
    ssd::PoolRounding rounding;

    static Key of(const ScanProblem &p, const ssd::CompileOptions &options) {
      return {p.dtype,
              p.poolDType,
              p.H,
              p.P,
              p.G,
              p.N,
              p.hasD,
              p.hasDtBias,
              p.hasInitialStatePresent,
              p.updateStatePresent,
              p.cacheIndicesRow,
              options.target,
              options.form,
              options.chunkSize,
              p.checkpointSlotsPresent ? p.checkpointK : -1,
              p.checkpointOffsetsPresent,
              p.checkpointInterval,
              options.invariant,
              p.tokenParentsPresent,
              p.poolRounding};
    }
    auto tie() const {
      return std::tie(dtype, pool, H, P, G, N, D, dtBias, hasInit, update, row,
                      target, form, chunk, checkpointK, checkpointOffsets,
                      checkpointInterval, invariant, tokenParents, rounding);
    }
    bool operator<(const Key &o) const { return tie() < o.tie(); }
  };

  KernelCache() = default;

  std::mutex mutex;
  std::map<Key, std::unique_ptr<ssd::ScanKernel>> kernels;
  int64_t compileCount = 0;
};

//===----------------------------------------------------------------------===//
// The launch: the tensors' memory handed to the kernel, whole or in ranges
// of sequences on torch's threads
//===----------------------------------------------------------------------===//

/// Whether ranges of sequences may run as independent calls: only on the
/// CPU with several threads and sequences, and unless a sequence reads a
/// slot that another one writes.
bool runsInRanges(const ScanProblem &p, ssd::Target target) {
  bool split = target == ssd::Target::CPU && p.batch > 1 && p.T > 0 &&
               at::get_num_threads() > 1;
  if (!split || !p.hasInitialStatePresent)
    return split;
  std::vector<std::pair<uint32_t, int64_t>> writers;
  for (int64_t b = 0; b < p.batch; ++b)
    if (p.writesState(b))
      writers.push_back({p.cacheIndices[b], b});
  std::sort(writers.begin(), writers.end());
  for (int64_t b = 0; b < p.batch; ++b) {
    if (!p.readsState(b))
      continue;
    auto it =
        std::lower_bound(writers.begin(), writers.end(),
                         std::pair<uint32_t, int64_t>{p.cacheIndices[b], 0});
    if (it != writers.end() && it->first == p.cacheIndices[b] &&
        it->second != b)
      return false;
  }
  return true;
}

/// The problem of sequences [begin, end) alone: the extents and flags the
/// kernel specialises on, that range's batch and T. Its index operands come
/// as pointers, not in the problem.
ScanProblem rangeProblem(const ScanProblem &p, int64_t begin, int64_t end) {
  ScanProblem part;
  part.dtype = p.dtype;
  part.poolDType = p.poolDType;
  part.poolRounding = p.poolRounding;
  part.roundingSeed = p.roundingSeed;
  part.H = p.H, part.P = p.P, part.G = p.G, part.N = p.N, part.S = p.S;
  part.hasD = p.hasD, part.hasDtBias = p.hasDtBias;
  part.hasInitialStatePresent = p.hasInitialStatePresent;
  part.updateStatePresent = p.updateStatePresent;
  part.cacheIndicesRow = p.cacheIndicesRow;
  // Checkpoint slots are never read and all distinct, so ranges stay
  // independent with them.
  part.checkpointSlotsPresent = p.checkpointSlotsPresent;
  part.checkpointK = p.checkpointK;
  part.checkpointOffsetsPresent = p.checkpointOffsetsPresent;
  part.checkpointInterval = p.checkpointInterval;
  // Parents are local indices of their own sequence, so a range of whole
  // sequences takes its slice of token_parents as it is.
  part.tokenParentsPresent = p.tokenParentsPresent;
  part.batch = end - begin;
  part.T = p.queryStartLoc[end] - p.queryStartLoc[begin];
  return part;
}

/// One checked call's launch: holds the row-major copies of the model
/// operands and y while the kernel runs on them.
class Launch {
public:
  Launch(const OpArguments &args, const CheckedCall &call,
         ssd::ScanKernel &kernel)
      : p(call.problem), index(call.index), pool(args.pool),
        scales(args.poolScales ? *args.poolScales : at::Tensor()),
        seed(call.problem.roundingSeed), kernel(kernel), x(args.x.contiguous()),
        dt(args.dt.contiguous()), A(args.A.contiguous()),
        B(args.B.contiguous()), C(args.C.contiguous()),
        D(p.hasD ? args.D->contiguous() : at::Tensor()),
        dtBias(p.hasDtBias ? args.dtBias->contiguous() : at::Tensor()),
        y(at::empty({p.T, p.H, p.P}, x.options())) {}

  const at::Tensor &result() const { return y; }

  void runWhole() {
    std::string error;
    std::vector<void *> data = pointers(0, p.queryStartLoc.data());
    if (!kernel.runOnBuffers(p, data, error))
      runtimeError("ssd.chunk_scan_varlen_: " + error);
  }

  /// One parallel region on torch's libgomp (the file comment says why not
  /// at::parallel_for).
  void runInRanges() {
    GOMP_parallel(&runThreadsRange, this,
                  unsigned(std::min<int64_t>(at::get_num_threads(), p.batch)),
                  0);
  }

private:
  /// Thread k takes the sequences whose first token lies in
  /// [k T / n, (k + 1) T / n): ranges of about equal work for decode and
  /// prefill alike.
  static void runThreadsRange(void *data) {
    Launch &launch = *static_cast<Launch *>(data);
    const std::vector<int32_t> &q = launch.p.queryStartLoc;
    const int64_t n = omp_get_num_threads(), k = omp_get_thread_num();
    auto first = [&](int64_t part) -> int64_t {
      if (part == n)
        return launch.p.batch;
      const int64_t token = launch.p.T * part / n;
      // The first sequence starting at or after `token`.
      return std::lower_bound(q.begin(), q.end() - 1, token) - q.begin();
    };
    launch.runRange(first(k), first(k + 1));
  }

  void runRange(int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    ScanProblem part = rangeProblem(p, begin, end);
    const int32_t t0 = p.queryStartLoc[begin];
    std::vector<int32_t> offsets(size_t(part.batch + 1));
    for (int64_t b = begin; b <= end; ++b)
      offsets[size_t(b - begin)] = p.queryStartLoc[b] - t0;
    std::vector<void *> data = pointers(begin, offsets.data());
    std::string partError;
    // The CPU kernel reports no failure of its own; runOnBuffers returns
    // false only for device targets, which are never split.
    kernel.runOnBuffers(part, data, partError);
  }

  /// Operand pointers in operandLayouts order, for sequences from `begin`
  /// on: token-indexed operands start at that range's first token.
  std::vector<void *> pointers(int64_t begin, const int32_t *offsets) const {
    const int64_t t0 = p.queryStartLoc[begin];
    const int64_t modelBytes = p.dtype == ModelDType::F32 ? 4 : 2;
    auto offset = [&](const at::Tensor &t, int64_t elements) -> void * {
      return static_cast<char *>(t.data_ptr()) + elements * modelBytes;
    };
    std::vector<void *> data = {offset(x, t0 * p.H * p.P), offset(dt, t0 * p.H),
                                A.data_ptr(), offset(B, t0 * p.G * p.N),
                                offset(C, t0 * p.G * p.N)};
    if (p.hasD)
      data.push_back(D.data_ptr());
    if (p.hasDtBias)
      data.push_back(dtBias.data_ptr());
    data.push_back(pool.data_ptr());
    if (ssd::isScaledPool(p.poolDType))
      data.push_back(scales.data_ptr());
    data.push_back(const_cast<int32_t *>(offsets));
    if (p.hasInitialStatePresent)
      data.push_back(static_cast<bool *>(index.hasInit.data_ptr()) + begin);
    data.push_back(index.ci.data_ptr<int32_t>() + begin);
    if (p.updateStatePresent)
      data.push_back(static_cast<bool *>(index.update.data_ptr()) + begin);
    if (p.checkpointSlotsPresent)
      data.push_back(index.ckSlots.data_ptr<int32_t>() + begin * p.checkpointK);
    if (p.checkpointOffsetsPresent)
      data.push_back(index.ckOffsets.data_ptr<int32_t>() + begin);
    if (p.tokenParentsPresent)
      data.push_back(index.tokenParents.data_ptr<int32_t>() + t0);
    if (p.poolRounding == ssd::PoolRounding::Stochastic)
      data.push_back(const_cast<int64_t *>(&seed));
    data.push_back(offset(y, t0 * p.H * p.P));
    return data;
  }

  const ScanProblem &p;
  const IndexOperands &index;
  at::Tensor &pool;
  at::Tensor scales;
  /// The 0-d rounding_seed operand's memory.
  const int64_t seed;
  ssd::ScanKernel &kernel;
  at::Tensor x, dt, A, B, C, D, dtBias, y;
};

//===----------------------------------------------------------------------===//
// The op
//===----------------------------------------------------------------------===//

at::Tensor chunkScanVarlen(
    const at::Tensor &x, const at::Tensor &dt, const at::Tensor &A,
    const at::Tensor &B, const at::Tensor &C, at::Tensor &pool,
    const at::Tensor &qsl, const at::Tensor &ci,
    const c10::optional<at::Tensor> &D, const c10::optional<at::Tensor> &dtBias,
    const c10::optional<at::Tensor> &hasInit,
    const c10::optional<at::Tensor> &update, c10::string_view formName,
    c10::optional<int64_t> chunkSize, c10::string_view deviceName,
    const c10::optional<at::Tensor> &ckSlots,
    const c10::optional<at::Tensor> &ckOffsets,
    c10::optional<int64_t> ckInterval, bool invariant,
    const c10::optional<at::Tensor> &tokenParents,
    const c10::optional<at::Tensor> &poolScales,
    c10::optional<c10::string_view> poolDTypeName,
    c10::string_view poolRoundingName, c10::optional<int64_t> roundingSeed) {
  OpArguments args{x,
                   dt,
                   A,
                   B,
                   C,
                   pool,
                   qsl,
                   ci,
                   D,
                   dtBias,
                   hasInit,
                   update,
                   formName,
                   chunkSize,
                   deviceName,
                   ckSlots,
                   ckOffsets,
                   ckInterval,
                   invariant,
                   tokenParents,
                   poolScales,
                   poolDTypeName,
                   poolRoundingName,
                   roundingSeed};
  CheckedCall call = checkCall(args);
  ssd::CompileOptions options = compileOptionsFor(call);
  ssd::ScanKernel *kernel = KernelCache::get().kernelFor(call.problem, options);
  Launch launch(args, call, *kernel);
  if (runsInRanges(call.problem, call.settings.target))
    launch.runInRanges();
  else
    launch.runWhole();
  bumpVersion(pool);
  if (poolScales) {
    at::Tensor scales = *poolScales;
    bumpVersion(scales);
  }
  return launch.result();
}

int64_t compiledKernels() { return KernelCache::get().compiled(); }

} // namespace

TORCH_LIBRARY(ssd, m) {
  m.def("chunk_scan_varlen_(Tensor x, Tensor dt, Tensor A, Tensor B, "
        "Tensor C, Tensor(a!) ssm_pool, Tensor query_start_loc, "
        "Tensor cache_indices, Tensor? D=None, Tensor? dt_bias=None, "
        "Tensor? has_initial_state=None, Tensor? update_state=None, "
        "str form=\"auto\", int? chunk_size=None, str device=\"cpu\", "
        "Tensor? checkpoint_slots=None, Tensor? checkpoint_offsets=None, "
        "int? checkpoint_interval=None, bool invariant=False, "
        "Tensor? token_parents=None, Tensor(b!)? ssm_pool_scales=None, "
        "str? pool_dtype=None, str pool_rounding=\"nearest\", "
        "int? rounding_seed=None) -> Tensor",
        &chunkScanVarlen);
  // How many kernels this process compiled: the tests check the cache.
  m.def("compiled_kernels() -> int", &compiledKernels);
}
