//===- TorchOps.cpp - ssd.chunk_scan_varlen as a PyTorch op ---------------===//
//
// Registers torch.ops.ssd.chunk_scan_varlen_ (docs/python.md): checks every
// rule of the op on the tensors before anything is written, then runs the
// kernel compiled once per signature (ScanKernel) on the tensors' own memory.
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

/// What a compiled kernel is specialised to (ScanKernel compiles for
/// dynamic T, batch and slot count).
struct KernelKey {
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
  auto tie() const {
    return std::tie(dtype, pool, H, P, G, N, D, dtBias, hasInit, update, row,
                    target, form, chunk, checkpointK, checkpointOffsets,
                    checkpointInterval);
  }
  bool operator<(const KernelKey &o) const { return tie() < o.tie(); }
};

std::mutex &cacheMutex() {
  static std::mutex m;
  return m;
}
std::map<KernelKey, std::unique_ptr<ssd::ScanKernel>> &kernelCache() {
  static auto *cache =
      new std::map<KernelKey, std::unique_ptr<ssd::ScanKernel>>();
  return *cache;
}
int64_t &compileCount() {
  static int64_t count = 0;
  return count;
}

ssd::ScanKernel *kernelFor(const ScanProblem &p, const KernelKey &key,
                           const ssd::CompileOptions &options) {
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto &cache = kernelCache();
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second.get();
  // Compiled under the lock: a second thread asking for the same kernel
  // waits for it instead of compiling it again.
  std::string error;
  std::unique_ptr<ssd::ScanKernel> kernel =
      ssd::ScanKernel::compile(p, options, error);
  if (!kernel)
    runtimeError("ssd.chunk_scan_varlen_: " + error);
  ++compileCount();
  return cache.emplace(key, std::move(kernel)).first->second.get();
}

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

at::Tensor chunkScanVarlen(const at::Tensor &xIn, const at::Tensor &dtIn,
                           const at::Tensor &AIn, const at::Tensor &BIn,
                           const at::Tensor &CIn, at::Tensor &pool,
                           const at::Tensor &qslIn, const at::Tensor &ciIn,
                           const c10::optional<at::Tensor> &DIn,
                           const c10::optional<at::Tensor> &dtBiasIn,
                           const c10::optional<at::Tensor> &hasInitIn,
                           const c10::optional<at::Tensor> &updateIn,
                           c10::string_view formName,
                           c10::optional<int64_t> chunkSize,
                           c10::string_view deviceName,
                           const c10::optional<at::Tensor> &ckSlotsIn,
                           const c10::optional<at::Tensor> &ckOffsetsIn,
                           c10::optional<int64_t> ckInterval) {
  // Which tensors there are, by name, for the checks that treat all alike.
  std::vector<std::pair<const char *, const at::Tensor *>> all = {
      {"x", &xIn},
      {"dt", &dtIn},
      {"A", &AIn},
      {"B", &BIn},
      {"C", &CIn},
      {"ssm_pool", &pool},
      {"query_start_loc", &qslIn},
      {"cache_indices", &ciIn}};
  if (DIn)
    all.push_back({"D", &*DIn});
  if (dtBiasIn)
    all.push_back({"dt_bias", &*dtBiasIn});
  if (hasInitIn)
    all.push_back({"has_initial_state", &*hasInitIn});
  if (updateIn)
    all.push_back({"update_state", &*updateIn});
  if (ckSlotsIn)
    all.push_back({"checkpoint_slots", &*ckSlotsIn});
  if (ckOffsetsIn)
    all.push_back({"checkpoint_offsets", &*ckOffsetsIn});

  // Arguments of the call itself.
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
  int64_t chunk = chunkSize.value_or(mlir::ssd::kChunkSizeDefault);
  if (mlir::ssd::SettingRange range =
          mlir::ssd::chunkSizeRange(target != ssd::Target::CPU);
      !range.contains(chunk))
    valueError("chunk_size: " + range.describe(chunk));
  // The interval and the offsets come with the slots.
  if (ckOffsetsIn && !ckSlotsIn)
    valueError("checkpoint_offsets: given without checkpoint_slots (offsets "
               "only place checkpoints)");
  if (ckSlotsIn && !ckInterval)
    valueError("checkpoint_interval: required with checkpoint_slots");
  if (!ckSlotsIn && ckInterval)
    valueError("checkpoint_interval: given without checkpoint_slots");
  if (ckInterval && *ckInterval < 1)
    valueError("checkpoint_interval: " + std::to_string(*ckInterval) +
               " is not >= 1");

  for (auto &[name, t] : all) {
    if (!t->defined())
      valueError(std::string(name) + ": undefined tensor");
    if (!t->device().is_cpu())
      runtimeError(std::string(name) + ": tensors on " + t->device().str() +
                   " are not supported (CPU tensors only; the CUDA path is "
                   "not built, docs/python.md)");
    if (t->requires_grad() && at::GradMode::is_enabled())
      valueError(std::string(name) +
                 ": requires grad; chunk_scan_varlen_ is forward only (call "
                 "it under torch.no_grad() or pass detached tensors)");
  }

  // dtypes.
  ScanProblem p;
  p.dtype = modelDType("x", xIn);
  for (auto &[name, t] : all) {
    std::string n = name;
    if (n == "ssm_pool" || n == "query_start_loc" || n == "cache_indices" ||
        n == "has_initial_state" || n == "update_state" ||
        n == "checkpoint_slots" || n == "checkpoint_offsets" || n == "x")
      continue;
    if (t->scalar_type() != xIn.scalar_type())
      valueError(n + ": dtype " + typeName(t->scalar_type()) +
                 " differs from x's " + typeName(xIn.scalar_type()) +
                 " (one model dtype for x, dt, A, B, C, D, dt_bias)");
  }
  if (pool.scalar_type() == at::kFloat)
    p.poolDType = PoolDType::F32;
  else if (pool.scalar_type() == at::kBFloat16)
    p.poolDType = PoolDType::BF16;
  else
    valueError(std::string("ssm_pool: dtype ") + typeName(pool.scalar_type()) +
               " is not float32 or bfloat16");
  if (qslIn.scalar_type() != at::kInt)
    valueError(std::string("query_start_loc: dtype ") +
               typeName(qslIn.scalar_type()) + " is not int32");
  if (ciIn.scalar_type() != at::kInt)
    valueError(std::string("cache_indices: dtype ") +
               typeName(ciIn.scalar_type()) + " is not int32");
  for (const c10::optional<at::Tensor> *index : {&ckSlotsIn, &ckOffsetsIn})
    if (*index && (*index)->scalar_type() != at::kInt)
      valueError(std::string(index == &ckSlotsIn ? "checkpoint_slots"
                                                 : "checkpoint_offsets") +
                 ": dtype " + typeName((*index)->scalar_type()) +
                 " is not int32");
  for (const c10::optional<at::Tensor> *mask : {&hasInitIn, &updateIn})
    if (*mask && (*mask)->scalar_type() != at::kBool)
      valueError(std::string(mask == &hasInitIn ? "has_initial_state"
                                                : "update_state") +
                 ": dtype " + typeName((*mask)->scalar_type()) +
                 " is not bool");

  // Shapes: extents from x (T, H, P), B (G, N), the pool (S) and
  // query_start_loc (batch), as the runner's loader takes them.
  expectRank("x", xIn, 3, "[T, H, P]");
  p.T = xIn.size(0);
  p.H = xIn.size(1);
  p.P = xIn.size(2);
  if (p.H < 1 || p.P < 1)
    valueError("x: H and P must be at least 1, got shape " + shapeString(xIn));
  expectShape("dt", dtIn, {p.T, p.H}, "[T, H]");
  expectShape("A", AIn, {p.H}, "[H]");
  expectRank("B", BIn, 3, "[T, G, N]");
  p.G = BIn.size(1);
  p.N = BIn.size(2);
  expectShape("B", BIn, {p.T, p.G, p.N}, "[T, G, N]");
  if (p.G < 1 || p.N < 1)
    valueError("B: G and N must be at least 1, got shape " + shapeString(BIn));
  std::string error;
  if (!ssd::checkLimits(p, error))
    valueError(error);
  if (p.H % p.G != 0)
    valueError("B: H = " + std::to_string(p.H) +
               " (from x) is not a multiple of G = " + std::to_string(p.G));
  expectShape("C", CIn, {p.T, p.G, p.N}, "[T, G, N]");
  p.hasD = DIn.has_value();
  p.hasDtBias = dtBiasIn.has_value();
  if (p.hasD)
    expectShape("D", *DIn, {p.H}, "[H]");
  if (p.hasDtBias)
    expectShape("dt_bias", *dtBiasIn, {p.H}, "[H]");
  expectRank("ssm_pool", pool, 4, "[S, H, P, N]");
  p.S = pool.size(0);
  expectShape("ssm_pool", pool, {p.S, p.H, p.P, p.N}, "[S, H, P, N]");
  // The pool is written where it is: never copied, so it must be one
  // row-major block.
  if (!pool.is_contiguous())
    valueError("ssm_pool: not contiguous (the pool is updated in place; pass "
               "a contiguous pool, e.g. allocated with torch.zeros)");
  // As torch's own in-place ops: an inference tensor has no version counter
  // and may be updated only inside InferenceMode (checked here, not after
  // the pool was written).
  if (pool.is_inference() && !c10::InferenceMode::is_enabled())
    valueError("ssm_pool: an inference tensor cannot be updated in place "
               "outside torch.inference_mode()");
  expectRank("query_start_loc", qslIn, 1, "[batch + 1]");
  if (qslIn.size(0) < 1)
    valueError("query_start_loc: needs at least one offset (shape "
               "[batch + 1])");
  p.batch = qslIn.size(0) - 1;
  if (ciIn.dim() == 2 && ciIn.size(0) == 1 && ciIn.size(1) == p.batch)
    p.cacheIndicesRow = true;
  else if (ciIn.dim() != 1 || ciIn.size(0) != p.batch)
    valueError("cache_indices: shape " + shapeString(ciIn) +
               " is neither [batch] = [" + std::to_string(p.batch) +
               "] nor [1, batch] = [1, " + std::to_string(p.batch) +
               "] (batch from query_start_loc)");
  p.hasInitialStatePresent = hasInitIn.has_value();
  p.updateStatePresent = updateIn.has_value();
  if (p.hasInitialStatePresent)
    expectShape("has_initial_state", *hasInitIn, {p.batch}, "[batch]");
  if (p.updateStatePresent)
    expectShape("update_state", *updateIn, {p.batch}, "[batch]");
  p.checkpointSlotsPresent = ckSlotsIn.has_value();
  p.checkpointOffsetsPresent = ckOffsetsIn.has_value();
  p.checkpointInterval = ckInterval.value_or(0);
  if (p.checkpointSlotsPresent) {
    expectRank("checkpoint_slots", *ckSlotsIn, 2, "[batch, K]");
    p.checkpointK = ckSlotsIn->size(1);
    expectShape("checkpoint_slots", *ckSlotsIn, {p.batch, p.checkpointK},
                "[batch, K]");
  }
  if (p.checkpointOffsetsPresent)
    expectShape("checkpoint_offsets", *ckOffsetsIn, {p.batch}, "[batch]");

  // Inputs other than the pool may be copied to be row-major; the index
  // operands are read here, so they are made contiguous first.
  at::Tensor qsl = qslIn.contiguous(), ci = ciIn.contiguous();
  at::Tensor hasInit, update, ckSlots, ckOffsets;
  const int32_t *q = qsl.data_ptr<int32_t>();
  p.queryStartLoc.assign(q, q + p.batch + 1);
  const auto *slots =
      reinterpret_cast<const uint32_t *>(ci.data_ptr<int32_t>());
  p.cacheIndices.assign(slots, slots + p.batch);
  static_assert(sizeof(bool) == 1, "masks are read as bytes");
  if (p.hasInitialStatePresent) {
    hasInit = hasInitIn->contiguous();
    const auto *m = reinterpret_cast<const uint8_t *>(hasInit.data_ptr<bool>());
    p.hasInitialState.assign(m, m + p.batch);
  }
  if (p.updateStatePresent) {
    update = updateIn->contiguous();
    const auto *m = reinterpret_cast<const uint8_t *>(update.data_ptr<bool>());
    p.updateState.assign(m, m + p.batch);
  }
  if (p.checkpointSlotsPresent) {
    ckSlots = ckSlotsIn->contiguous();
    const auto *c =
        reinterpret_cast<const uint32_t *>(ckSlots.data_ptr<int32_t>());
    p.checkpointSlots.assign(c, c + p.batch * p.checkpointK);
  }
  if (p.checkpointOffsetsPresent) {
    ckOffsets = ckOffsetsIn->contiguous();
    const int32_t *o = ckOffsets.data_ptr<int32_t>();
    p.checkpointOffsets.assign(o, o + p.batch);
  }
  std::string operand;
  if (!ssd::checkIndexContract(p, operand, error, "x") ||
      !ssd::checkCheckpointContract(p, operand, error))
    valueError(operand + ": " + error);

  ssd::CompileOptions options;
  options.target = target;
  options.form = *form;
  options.chunkSize = chunk;
  options.openmp = false;
  if (target == ssd::Target::CPU && !ssd::checkCPUWorkspace(p, options, error))
    runtimeError("ssd.chunk_scan_varlen_: " + error);

  KernelKey key{p.dtype,
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
                target,
                *form,
                chunk,
                p.checkpointSlotsPresent ? p.checkpointK : -1,
                p.checkpointOffsetsPresent,
                p.checkpointInterval};
  ssd::ScanKernel *kernel = kernelFor(p, key, options);

  at::Tensor x = xIn.contiguous(), dt = dtIn.contiguous(), A = AIn.contiguous(),
             B = BIn.contiguous(), C = CIn.contiguous();
  at::Tensor D = p.hasD ? DIn->contiguous() : at::Tensor();
  at::Tensor dtBias = p.hasDtBias ? dtBiasIn->contiguous() : at::Tensor();
  at::Tensor y = at::empty({p.T, p.H, p.P}, x.options());

  // Operand pointers in operandLayouts order, for sequences [begin, end):
  // token-indexed operands start at that range's first token.
  const int64_t modelBytes = p.dtype == ModelDType::F32 ? 4 : 2;
  auto pointers = [&](int64_t begin, const int32_t *offsets) {
    const int64_t t0 = p.queryStartLoc[begin];
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
    data.push_back(const_cast<int32_t *>(offsets));
    if (p.hasInitialStatePresent)
      data.push_back(static_cast<bool *>(hasInit.data_ptr()) + begin);
    data.push_back(ci.data_ptr<int32_t>() + begin);
    if (p.updateStatePresent)
      data.push_back(static_cast<bool *>(update.data_ptr()) + begin);
    if (p.checkpointSlotsPresent)
      data.push_back(ckSlots.data_ptr<int32_t>() + begin * p.checkpointK);
    if (p.checkpointOffsetsPresent)
      data.push_back(ckOffsets.data_ptr<int32_t>() + begin);
    data.push_back(offset(y, t0 * p.H * p.P));
    return data;
  };

  // Ranges of sequences run as independent calls unless a sequence reads a
  // slot that another one writes.
  bool split = target == ssd::Target::CPU && p.batch > 1 && p.T > 0 &&
               at::get_num_threads() > 1;
  if (split && p.hasInitialStatePresent) {
    std::vector<std::pair<uint32_t, int64_t>> writers;
    for (int64_t b = 0; b < p.batch; ++b)
      if (p.writesState(b))
        writers.push_back({p.cacheIndices[b], b});
    std::sort(writers.begin(), writers.end());
    for (int64_t b = 0; b < p.batch && split; ++b) {
      if (!p.readsState(b))
        continue;
      auto it =
          std::lower_bound(writers.begin(), writers.end(),
                           std::pair<uint32_t, int64_t>{p.cacheIndices[b], 0});
      if (it != writers.end() && it->first == p.cacheIndices[b] &&
          it->second != b)
        split = false;
    }
  }
  if (!split) {
    std::vector<void *> data = pointers(0, p.queryStartLoc.data());
    if (!kernel->runOnBuffers(p, data, error))
      runtimeError("ssd.chunk_scan_varlen_: " + error);
    bumpVersion(pool);
    return y;
  }
  // Thread k takes the sequences whose first token lies in
  // [k T / n, (k + 1) T / n): ranges of about equal work for decode and
  // prefill alike.
  auto runRange = [&](int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    ScanProblem part;
    part.dtype = p.dtype;
    part.poolDType = p.poolDType;
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
    part.batch = end - begin;
    const int32_t t0 = p.queryStartLoc[begin];
    part.T = p.queryStartLoc[end] - t0;
    std::vector<int32_t> offsets(size_t(part.batch + 1));
    for (int64_t b = begin; b <= end; ++b)
      offsets[size_t(b - begin)] = p.queryStartLoc[b] - t0;
    std::vector<void *> data = pointers(begin, offsets.data());
    std::string partError;
    // The CPU kernel reports no failure of its own; runOnBuffers returns
    // false only for device targets, which are never split.
    kernel->runOnBuffers(part, data, partError);
  };
  struct Region {
    const ScanProblem *p;
    const decltype(runRange) *run;
  } region{&p, &runRange};
  GOMP_parallel(
      [](void *data) {
        const Region &r = *static_cast<Region *>(data);
        const std::vector<int32_t> &q = r.p->queryStartLoc;
        const int64_t n = omp_get_num_threads(), k = omp_get_thread_num();
        auto first = [&](int64_t part) -> int64_t {
          if (part == n)
            return r.p->batch;
          const int64_t token = r.p->T * part / n;
          // The first sequence starting at or after `token`.
          return std::lower_bound(q.begin(), q.end() - 1, token) - q.begin();
        };
        (*r.run)(first(k), first(k + 1));
      },
      &region, unsigned(std::min<int64_t>(at::get_num_threads(), p.batch)), 0);
  bumpVersion(pool);
  return y;
}

int64_t compiledKernels() {
  std::lock_guard<std::mutex> lock(cacheMutex());
  return compileCount();
}

} // namespace

TORCH_LIBRARY(ssd, m) {
  m.def("chunk_scan_varlen_(Tensor x, Tensor dt, Tensor A, Tensor B, "
        "Tensor C, Tensor(a!) ssm_pool, Tensor query_start_loc, "
        "Tensor cache_indices, Tensor? D=None, Tensor? dt_bias=None, "
        "Tensor? has_initial_state=None, Tensor? update_state=None, "
        "str form=\"auto\", int? chunk_size=None, str device=\"cpu\", "
        "Tensor? checkpoint_slots=None, Tensor? checkpoint_offsets=None, "
        "int? checkpoint_interval=None) -> Tensor",
        &chunkScanVarlen);
  // How many kernels this process compiled: the tests check the cache.
  m.def("compiled_kernels() -> int", &compiledKernels);
}
