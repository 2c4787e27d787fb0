//===- mixer-run.cpp - compile the Mamba-2 mixer example and check it -----===//
//
// Compiles examples/mamba2-mixer/mixer.mlir the way a graph compiler would
// (its own one-shot-bufferize and linalg lowering, then the ssd CPU
// pipeline), JITs it, runs one mixed prefill/decode launch on seeded random
// inputs in model ranges, and checks the output and the updated pool against
// an independent computation: the projection split on the host, the
// double-precision reference scan (ssd::referenceScan), and the D skip and
// SiLU gate in double. Prints the errors and PASS or FAIL (exit code 1)
// against the SPEC section 4 tolerances.
//
//   mixer-run mixer.mlir [--dtype f32|f16|bf16] [--form auto|serial|chunked]
//       [--chunk-size N] [--seqlens 1,40,...] [--seed N] [--no-openmp]
//       [--print-ir] [--wrong-expected]
//
// --wrong-expected leaves the D skip out of the expected output: a test that
// the check fails when the numbers are wrong.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "ssd/InitSSD.h"
#include "ssd/Runner/Npy.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

using namespace mlir;

namespace {

struct Options {
  std::string file;
  ::ssd::ModelDType dtype = ::ssd::ModelDType::BF16;
  std::string form = "auto";
  int64_t chunkSize = 256;
  std::vector<int32_t> seqlens = {1, 40, 1, 0, 23, 1, 7};
  uint64_t seed = 1;
  bool openmp = true;
  bool printIR = false;
  bool wrongExpected = false;
};

int usage(const char *message) {
  std::fprintf(stderr,
               "mixer-run: %s\nusage: mixer-run FILE.mlir [--dtype "
               "f32|f16|bf16] [--form auto|serial|chunked] [--chunk-size N] "
               "[--seqlens L0,L1,...] [--seed N] [--no-openmp] [--print-ir] "
               "[--wrong-expected]\n",
               message);
  return 2;
}

bool parseSeqlens(const std::string &text, std::vector<int32_t> &out) {
  out.clear();
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 0 || v > (1 << 20))
      return false;
    out.push_back(static_cast<int32_t>(v));
  }
  return !out.empty();
}

/// The file at the requested dtype: mixer.mlir is written for bf16 with
/// `!model = bf16` and `!compute = f32`; f32 computes the tail in f64 since
/// arith.extf must widen.
bool instantiate(std::string &text, ::ssd::ModelDType dtype, std::string &error) {
  std::regex model(R"(^!model = \w+$)", std::regex::multiline);
  std::regex compute(R"(^!compute = \w+$)", std::regex::multiline);
  if (!std::regex_search(text, model) || !std::regex_search(text, compute)) {
    error = "the file must define the aliases `!model = ...` and "
            "`!compute = ...` on lines of their own";
    return false;
  }
  text = std::regex_replace(text, model,
                            std::string("!model = ") + ::ssd::toString(dtype));
  text = std::regex_replace(text, compute,
                            dtype == ::ssd::ModelDType::F32 ? "!compute = f64"
                                                          : "!compute = f32");
  return true;
}

/// A host array in the layout the compiled code reads, with its memref
/// descriptor (allocated and aligned pointers, offset, sizes, row-major
/// strides).
struct HostArray {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape;
  std::vector<int64_t> descriptor;

  void *describe() {
    descriptor.clear();
    auto pointer = reinterpret_cast<int64_t>(bytes.data());
    descriptor = {pointer, pointer, 0};
    descriptor.insert(descriptor.end(), shape.begin(), shape.end());
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    descriptor.insert(descriptor.end(), strides.begin(), strides.end());
    return descriptor.data();
  }
};

HostArray modelArray(const std::vector<float> &v, std::vector<int64_t> shape,
                     ::ssd::ModelDType t) {
  HostArray a;
  a.shape = std::move(shape);
  if (t == ::ssd::ModelDType::F32) {
    a.bytes.resize(v.size() * 4);
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    return a;
  }
  a.bytes.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t bits = t == ::ssd::ModelDType::F16 ? ::ssd::floatToHalfBits(v[i])
                                              : ::ssd::floatToBF16Bits(v[i]);
    std::memcpy(a.bytes.data() + 2 * i, &bits, 2);
  }
  return a;
}

template <typename T>
HostArray rawArray(const std::vector<T> &v, std::vector<int64_t> shape) {
  HostArray a;
  a.shape = std::move(shape);
  a.bytes.resize(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

float readModel(const uint8_t *p, ::ssd::ModelDType t) {
  if (t == ::ssd::ModelDType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return t == ::ssd::ModelDType::F16 ? ::ssd::halfBitsToFloat(bits)
                                   : ::ssd::bf16BitsToFloat(bits);
}

double tolerance(::ssd::ModelDType t) {
  switch (t) {
  case ::ssd::ModelDType::F32:
    return 5e-4;
  case ::ssd::ModelDType::F16:
    return 1e-2;
  case ::ssd::ModelDType::BF16:
    return 3e-2;
  }
  return 0;
}

/// Model shapes read off the function's signature:
/// (zxbcdt [?, DIN], A [H], D [H], dt_bias [H], pool [?, H, P, N],
///  query_start_loc [?], has_initial_state [?], cache_indices [?]).
struct Shapes {
  int64_t H = 0, P = 0, N = 0, G = 0, dInProj = 0;
};

bool readShapes(func::FuncOp func, Shapes &s, std::string &error) {
  FunctionType type = func.getFunctionType();
  auto shapeOf = [&](unsigned i) -> ArrayRef<int64_t> {
    return cast<ShapedType>(type.getInput(i)).getShape();
  };
  if (type.getNumInputs() != 8 || type.getNumResults() != 1 ||
      !llvm::all_of(type.getInputs(),
                    [](Type t) { return isa<ShapedType>(t); }) ||
      shapeOf(0).size() != 2 || shapeOf(1).size() != 1 ||
      shapeOf(4).size() != 4) {
    error = "expected @" + func.getName().str() +
            "(zxbcdt, A, D, dt_bias, ssm_pool, query_start_loc, "
            "has_initial_state, cache_indices) -> out";
    return false;
  }
  s.dInProj = shapeOf(0)[1];
  s.H = shapeOf(1)[0];
  s.P = shapeOf(4)[2];
  s.N = shapeOf(4)[3];
  int64_t rest = s.dInProj - 2 * s.H * s.P - s.H;
  if (s.N <= 0 || rest <= 0 || rest % (2 * s.N) != 0) {
    error = "zxbcdt width " + std::to_string(s.dInProj) +
            " is not 2*H*P + 2*G*N + H";
    return false;
  }
  s.G = rest / (2 * s.N);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--dtype") {
      if (!value(v) || !::ssd::parseModelDType(v, o.dtype))
        return usage("--dtype takes f32, f16 or bf16");
    } else if (arg == "--form") {
      if (!value(o.form) ||
          (o.form != "auto" && o.form != "serial" && o.form != "chunked"))
        return usage("--form takes auto, serial or chunked");
    } else if (arg == "--chunk-size") {
      if (!value(v) || (o.chunkSize = std::atoll(v.c_str())) <= 0)
        return usage("--chunk-size takes a positive number");
    } else if (arg == "--seqlens") {
      if (!value(v) || !parseSeqlens(v, o.seqlens))
        return usage("--seqlens takes a comma-separated list of lengths");
    } else if (arg == "--seed") {
      if (!value(v))
        return usage("--seed takes a number");
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (arg == "--no-openmp") {
      o.openmp = false;
    } else if (arg == "--print-ir") {
      o.printIR = true;
    } else if (arg == "--wrong-expected") {
      o.wrongExpected = true;
    } else if (!arg.empty() && arg[0] != '-' && o.file.empty()) {
      o.file = arg;
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (o.file.empty())
    return usage("no input file");

  std::ifstream in(o.file);
  if (!in) {
    std::fprintf(stderr, "mixer-run: cannot read %s\n", o.file.c_str());
    return 1;
  }
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  std::string error;
  if (!instantiate(text, o.dtype, error)) {
    std::fprintf(stderr, "mixer-run: %s: %s\n", o.file.c_str(), error.c_str());
    return 1;
  }

  // What a host compiler registers: its own dialects and their bufferization
  // models (here linalg), plus ssd's dialect and pipeline dependencies.
  DialectRegistry registry;
  registry.insert<linalg::LinalgDialect>();
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::ssd::registerSSDDialect(registry);
  mlir::ssd::registerSSDDependencies(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context), o.file);
  if (!module)
    return 1;
  auto funcs = module->getOps<func::FuncOp>();
  if (funcs.empty()) {
    std::fprintf(stderr, "mixer-run: %s holds no func.func\n", o.file.c_str());
    return 1;
  }
  func::FuncOp func = *funcs.begin();
  std::string name = func.getName().str();
  Shapes s;
  if (!readShapes(func, s, error)) {
    std::fprintf(stderr, "mixer-run: %s: %s\n", o.file.c_str(), error.c_str());
    return 1;
  }
  if (o.printIR) {
    module->print(llvm::outs());
    return 0;
  }
  func->setAttr("llvm.emit_c_interface",
                UnitAttr::get(&context));

  // The host's part: bufferize everything (the ssd op bufferizes through its
  // external model) and lower its own linalg ops; then the ssd pipeline
  // chooses the form, lowers the scan and everything else to LLVM.
  bool openmp = o.openmp && std::strlen(SSD_OPENMP_LIBRARY) > 0;
  PassManager pm(&context);
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  mlir::ssd::SSDToCPUPipelineOptions cpu;
  cpu.form = o.form;
  cpu.chunkSize = o.chunkSize;
  cpu.openmp = openmp;
  mlir::ssd::buildSSDToCPUPipeline(pm, cpu);
  if (failed(pm.run(*module))) {
    std::fprintf(stderr, "mixer-run: compilation failed\n");
    return 1;
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto transformer = makeOptimizingTransformer(3, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  llvm::SmallVector<llvm::StringRef, 1> libraries;
  if (openmp)
    libraries.push_back(SSD_OPENMP_LIBRARY);
  engineOptions.sharedLibPaths = libraries;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    std::fprintf(stderr, "mixer-run: JIT compilation failed: %s\n",
                 llvm::toString(engine.takeError()).c_str());
    return 1;
  }
  (*engine)->initialize();

  //===--------------------------------------------------------------------===//
  // Inputs: one launch, seeded, in the ranges models use (SPEC section 4).
  //===--------------------------------------------------------------------===//
  const ::ssd::ModelDType dt = o.dtype;
  const int64_t H = s.H, P = s.P, N = s.N, G = s.G, dInner = H * P;
  const int64_t batch = static_cast<int64_t>(o.seqlens.size());
  const int64_t S = batch + 2; // two slots no sequence names
  std::vector<int32_t> qsl = {0};
  for (int32_t len : o.seqlens)
    qsl.push_back(qsl.back() + len);
  const int64_t T = qsl.back();

  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto model = [&](double v) { return ::ssd::roundDoubleToModelDType(v, dt); };

  // zxbcdt: z, x, B, C ~ N(0, 1); raw dt in [-0.5, 0.5], so that
  // softplus(dt + dt_bias) stays within about [1e-3, 1e-1].
  std::vector<float> zxbcdt(static_cast<size_t>(T * s.dInProj));
  const int64_t dtColumn = 2 * dInner + 2 * G * N;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < s.dInProj; ++c)
      zxbcdt[t * s.dInProj + c] =
          model(c < dtColumn ? normal(rng) : uniform(-0.5, 0.5));
  std::vector<float> A(H), D(H), dtBias(H);
  for (int64_t h = 0; h < H; ++h) {
    A[h] = model(uniform(-16.0, -1.0));
    D[h] = model(uniform(0.5, 1.5));
    double dt0 = std::exp(uniform(std::log(2e-3), std::log(5e-2)));
    dtBias[h] = model(std::log(std::expm1(dt0))); // softplus^-1(dt0)
  }
  std::vector<float> pool(static_cast<size_t>(S * H * P * N));
  for (float &v : pool)
    v = 0.25f * normal(rng);
  // Slots: a shuffled permutation; the second to last sequence is padding
  // (index -1); every third sequence starts from zero.
  std::vector<int32_t> slots(S);
  for (int64_t i = 0; i < S; ++i)
    slots[i] = static_cast<int32_t>(i);
  std::shuffle(slots.begin(), slots.end(), rng);
  std::vector<int32_t> cacheIndices(batch);
  std::vector<uint8_t> hasInitialState(batch);
  for (int64_t b = 0; b < batch; ++b) {
    cacheIndices[b] = (batch >= 3 && b == batch - 2) ? -1 : slots[b];
    hasInitialState[b] = b % 3 != 1;
  }

  //===--------------------------------------------------------------------===//
  // Run.
  //===--------------------------------------------------------------------===//
  std::vector<HostArray> arrays;
  arrays.push_back(modelArray(zxbcdt, {T, s.dInProj}, dt));
  arrays.push_back(modelArray(A, {H}, dt));
  arrays.push_back(modelArray(D, {H}, dt));
  arrays.push_back(modelArray(dtBias, {H}, dt));
  arrays.push_back(rawArray(pool, {S, H, P, N}));
  arrays.push_back(rawArray(qsl, {batch + 1}));
  arrays.push_back(rawArray(hasInitialState, {batch}));
  arrays.push_back(rawArray(cacheIndices, {batch}));
  // The result comes back as a rank-2 descriptor of a buffer the function
  // allocated (with malloc) and the caller frees.
  std::vector<int64_t> result(7, 0);
  std::vector<void *> descriptors = {result.data()};
  for (HostArray &a : arrays)
    descriptors.push_back(a.describe());
  std::vector<void *> args;
  for (void *&d : descriptors)
    args.push_back(&d);
  if (llvm::Error e = (*engine)->invokePacked("_mlir_ciface_" + name, args)) {
    std::fprintf(stderr, "mixer-run: call failed: %s\n",
                 llvm::toString(std::move(e)).c_str());
    return 1;
  }
  if (result[3] != T || result[4] != dInner) {
    std::fprintf(stderr, "mixer-run: result has shape [%lld, %lld], expected "
                 "[%lld, %lld]\n", (long long)result[3], (long long)result[4],
                 (long long)T, (long long)dInner);
    return 1;
  }
  const size_t itemSize = dt == ::ssd::ModelDType::F32 ? 4 : 2;
  const auto *outBase = reinterpret_cast<const uint8_t *>(result[1]) +
                        result[2] * itemSize;
  std::vector<float> out(static_cast<size_t>(T * dInner));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < dInner; ++c)
      out[t * dInner + c] = readModel(
          outBase + (t * result[5] + c * result[6]) * itemSize, dt);
  std::free(reinterpret_cast<void *>(result[0]));
  std::vector<float> poolOut(pool.size());
  std::memcpy(poolOut.data(), arrays[4].bytes.data(), arrays[4].bytes.size());

  //===--------------------------------------------------------------------===//
  // Expected: split on the host, reference scan in double, skip and gate in
  // double.
  //===--------------------------------------------------------------------===//
  ::ssd::ScanProblem p;
  p.T = T, p.H = H, p.P = P, p.G = G, p.N = N, p.S = S, p.batch = batch;
  p.dtype = dt;
  p.x.resize(T * H * P), p.dt.resize(T * H), p.B.resize(T * G * N),
      p.C.resize(T * G * N);
  std::vector<float> z(static_cast<size_t>(T * dInner));
  for (int64_t t = 0; t < T; ++t) {
    const float *row = &zxbcdt[t * s.dInProj];
    std::copy(row, row + dInner, &z[t * dInner]);
    std::copy(row + dInner, row + 2 * dInner, &p.x[t * dInner]);
    std::copy(row + 2 * dInner, row + 2 * dInner + G * N, &p.B[t * G * N]);
    std::copy(row + 2 * dInner + G * N, row + dtColumn, &p.C[t * G * N]);
    std::copy(row + dtColumn, row + dtColumn + H, &p.dt[t * H]);
  }
  p.A = A;
  p.hasDtBias = true;
  p.dtBias = dtBias;
  p.pool = pool;
  p.queryStartLoc = qsl;
  for (int32_t c : cacheIndices)
    p.cacheIndices.push_back(static_cast<uint32_t>(c));
  p.hasInitialStatePresent = true;
  p.hasInitialState = hasInitialState;
  std::vector<double> yRef, poolRef;
  ::ssd::referenceScan(p, yRef, poolRef);

  double outErr = 0, outMax = 0;
  bool finite = true;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t q = 0; q < P; ++q) {
        int64_t i = (t * H + h) * P + q;
        double zv = z[i];
        double skip = o.wrongExpected ? 0.0 : double(D[h]) * double(p.x[i]);
        double expected = (yRef[i] + skip) * zv / (1.0 + std::exp(-zv));
        finite = finite && std::isfinite(out[i]);
        outErr = std::max(outErr, std::fabs(double(out[i]) - expected));
        outMax = std::max(outMax, std::fabs(expected));
      }

  std::vector<bool> written(S, false);
  for (int64_t b = 0; b < batch; ++b)
    if (p.writesState(b))
      written[p.cacheIndices[b]] = true;
  double poolErr = 0, poolMax = 0;
  int64_t writtenSlots = 0, untouchedSlots = 0;
  bool untouchedIdentical = true;
  const int64_t slotSize = H * P * N;
  for (int64_t slot = 0; slot < S; ++slot) {
    const float *got = &poolOut[slot * slotSize];
    if (!written[slot]) {
      ++untouchedSlots;
      untouchedIdentical = untouchedIdentical &&
                           !std::memcmp(got, &pool[slot * slotSize],
                                        slotSize * sizeof(float));
      continue;
    }
    ++writtenSlots;
    for (int64_t i = 0; i < slotSize; ++i) {
      double expected = poolRef[slot * slotSize + i];
      finite = finite && std::isfinite(got[i]);
      poolErr = std::max(poolErr, std::fabs(double(got[i]) - expected));
      poolMax = std::max(poolMax, std::fabs(expected));
    }
  }

  double tol = tolerance(dt);
  double outRel = outMax > 0 ? outErr / outMax : outErr;
  double poolRel = poolMax > 0 ? poolErr / poolMax : poolErr;
  bool pass = finite && untouchedIdentical && outRel <= tol && poolRel <= tol;
  std::printf("mamba2 mixer %s: dtype=%s form=%s T=%lld batch=%lld H=%lld "
              "P=%lld N=%lld G=%lld slots=%lld\n",
              name.c_str(), ::ssd::toString(dt), o.form.c_str(), (long long)T,
              (long long)batch, (long long)H, (long long)P, (long long)N,
              (long long)G, (long long)S);
  std::printf("  out:  max|out-ref|/max|ref| = %.3e (tolerance %.0e)\n",
              outRel, tol);
  std::printf("  pool: max|out-ref|/max|ref| = %.3e over %lld written slots; "
              "%lld other slots %s\n",
              poolRel, (long long)writtenSlots, (long long)untouchedSlots,
              untouchedIdentical ? "bit-identical" : "CHANGED");
  if (!finite)
    std::printf("  non-finite values in the output\n");
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
