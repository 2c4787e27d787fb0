//===- mixer-run.cpp - compile the Mamba-2 mixer example and check it -----===//
//
// Compiles examples/mamba2-mixer/mixer.mlir the way a graph compiler would
// (its own one-shot-bufferize and linalg lowering, then the ssd CPU
// pipeline), JITs it, runs one mixed prefill/decode launch on seeded random
// inputs in model ranges, and checks the output and the updated pool against
// an independent computation: the projection split on the host, the
// double-precision reference scan (ssd::referenceScan), and the D skip and
// SiLU gate in double. Prints the errors and PASS or FAIL (exit code 1)
// against the tolerances of docs/overview.md (Accuracy).
//
//   mixer-run mixer.mlir [--dtype f32|f16|bf16] [--form auto|serial|chunked]
//       [--chunk-size N] [--seqlens 1,40,...] [--seed N] [--no-openmp]
//       [--print-ir] [--wrong-expected]
//
// --wrong-expected leaves the D skip out of the expected output: a test that
// the check fails when the numbers are wrong.
//
// Inputs and the check are MixerHarness.cpp's (plain C++), shared with the
// GPU runner mixer-aot-main.cpp.
//
//===----------------------------------------------------------------------===//

#include "MixerHarness.h"
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
#include "ssd/Execution/JITTarget.h"
#include "ssd/InitSSD.h"
#include "ssd/Runner/Problem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>

using namespace mlir;

namespace {

struct Options {
  std::string file;
  ::ssd::ModelDType dtype = ::ssd::ModelDType::BF16;
  std::string form = "auto";
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  std::vector<int32_t> seqlens = {1, 40, 1, 0, 23, 1, 7};
  uint64_t seed = 1;
  bool openmp = true;
  bool printIR = false;
  bool wrongExpected = false;
  std::string cpu; ///< the LLVM CPU to JIT-compile for; empty: the host
};

int usage(const char *message) {
  std::fprintf(stderr,
               "mixer-run: %s\nusage: mixer-run FILE.mlir [--dtype "
               "f32|f16|bf16] [--form auto|serial|chunked] [--chunk-size N] "
               "[--seqlens L0,L1,...] [--seed N] [--no-openmp] [--print-ir] "
               "[--cpu NAME] [--wrong-expected]\n",
               message);
  return 2;
}

/// The file at the requested dtype: mixer.mlir is written for bf16 with
/// `!model = bf16` and `!compute = f32`; f32 computes the tail in f64 since
/// arith.extf must widen.
bool instantiate(std::string &text, ::ssd::ModelDType dtype,
                 std::string &error) {
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

/// Model shapes read off the function's signature (see ::ssd::mixer::Shapes).
bool readShapes(func::FuncOp func, ::ssd::mixer::Shapes &s,
                std::string &error) {
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
          !mlir::ssd::parseEnumName(mlir::ssd::kFormChoiceNames, o.form))
        return usage(("--form takes " +
                      mlir::ssd::listEnumNames(mlir::ssd::kFormChoiceNames))
                         .c_str());
    } else if (arg == "--chunk-size") {
      if (!value(v) || (o.chunkSize = std::atoll(v.c_str())) <= 0)
        return usage("--chunk-size takes a positive number");
    } else if (arg == "--seqlens") {
      if (!value(v) || !::ssd::mixer::parseSeqlens(v, o.seqlens))
        return usage("--seqlens takes a comma-separated list of lengths");
    } else if (arg == "--seed") {
      if (!value(v))
        return usage("--seed takes a number");
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (arg == "--no-openmp") {
      o.openmp = false;
    } else if (arg == "--print-ir") {
      o.printIR = true;
    } else if (arg == "--cpu") {
      if (!value(o.cpu) || o.cpu.empty())
        return usage("--cpu takes an LLVM CPU name (x86-64, x86-64-v3, ...)");
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
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context), o.file);
  if (!module)
    return 1;
  auto funcs = module->getOps<func::FuncOp>();
  if (funcs.empty()) {
    std::fprintf(stderr, "mixer-run: %s holds no func.func\n", o.file.c_str());
    return 1;
  }
  func::FuncOp func = *funcs.begin();
  std::string name = func.getName().str();
  ::ssd::mixer::Shapes s;
  if (!readShapes(func, s, error)) {
    std::fprintf(stderr, "mixer-run: %s: %s\n", o.file.c_str(), error.c_str());
    return 1;
  }
  if (o.printIR) {
    module->print(llvm::outs());
    return 0;
  }
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));

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
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string machineError;
  std::unique_ptr<llvm::TargetMachine> machine =
      ::ssd::createJITTargetMachine(o.cpu, machineError);
  if (!machine) {
    std::fprintf(stderr, "mixer-run: %s\n", machineError.c_str());
    return 1;
  }
  mlir::ssd::SSDToCPUPipelineOptions cpu;
  cpu.form = *mlir::ssd::parseEnumName(mlir::ssd::kFormChoiceNames, o.form);
  cpu.chunkSize = o.chunkSize;
  cpu.openmp = openmp;
  cpu.vectorWidth = ::ssd::f32VectorWidth(*machine);
  mlir::ssd::buildSSDToCPUPipeline(pm, cpu);
  if (failed(pm.run(*module))) {
    std::fprintf(stderr, "mixer-run: compilation failed\n");
    return 1;
  }

  auto transformer = makeOptimizingTransformer(3, 0, machine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  llvm::SmallVector<llvm::StringRef, 1> libraries;
  if (openmp)
    libraries.push_back(SSD_OPENMP_LIBRARY);
  engineOptions.sharedLibPaths = libraries;
  auto engine =
      ExecutionEngine::create(*module, engineOptions, std::move(machine));
  if (!engine) {
    std::fprintf(stderr, "mixer-run: JIT compilation failed: %s\n",
                 llvm::toString(engine.takeError()).c_str());
    return 1;
  }
  (*engine)->initialize();

  //===--------------------------------------------------------------------===//
  // Inputs: one launch, seeded, in the ranges models use (docs/overview.md,
  // Accuracy).
  //===--------------------------------------------------------------------===//
  const ::ssd::ModelDType dt = o.dtype;
  ::ssd::mixer::Inputs inputs =
      ::ssd::mixer::makeInputs(s, dt, o.seqlens, o.seed);
  const int64_t T = inputs.T, dInner = s.H * s.P;

  //===--------------------------------------------------------------------===//
  // Run.
  //===--------------------------------------------------------------------===//
  std::vector<::ssd::mixer::HostArray> arrays =
      ::ssd::mixer::operandArrays(s, inputs, dt);
  // The result comes back as a rank-2 descriptor of a buffer the function
  // allocated (with malloc) and the caller frees.
  std::vector<int64_t> result(7, 0);
  std::vector<void *> descriptors = {result.data()};
  for (::ssd::mixer::HostArray &a : arrays)
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
    std::fprintf(stderr,
                 "mixer-run: result has shape [%lld, %lld], expected "
                 "[%lld, %lld]\n",
                 (long long)result[3], (long long)result[4], (long long)T,
                 (long long)dInner);
    return 1;
  }
  std::vector<float> out =
      ::ssd::mixer::readOutput(reinterpret_cast<const uint8_t *>(result[1]),
                               result.data(), s, inputs, dt);
  std::free(reinterpret_cast<void *>(result[0]));
  std::vector<float> poolOut(inputs.pool.size());
  std::memcpy(poolOut.data(), arrays[4].bytes.data(), arrays[4].bytes.size());

  // Expected: split on the host, reference scan in double, skip and gate in
  // double.
  bool pass = ::ssd::mixer::check(s, inputs, dt, out, poolOut, name,
                                  "form=" + o.form, o.wrongExpected);
  return pass ? 0 : 1;
}
