//===- ssd-run.cpp - run one chunk_scan_varlen op on .npy arrays ----------===//
//
//   ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]
//           [--pool-dtype f32|bf16] [--target cpu|cuda|gpu-emu|reference]
//           [--form auto|chunked|serial] [--chunk-size N] [--static-shapes]
//           [--print-ir] [--no-openmp] [--chip sm_90a]
//           [--tensor-form [--constant-weights]]
//
// Reads the op's operands from DIR/*.npy, runs it on the chosen target and
// writes y.npy and ssm_pool.npy. Bad input ends with one line naming the file
// and the problem, a non-zero exit code, and nothing written. So do extents
// above the documented maxima (ssd/IR/SSDLimits.h) and, on the CPU, a launch
// whose workspace exceeds the machine's memory: both are checked before
// anything is compiled.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "ssd/Execution/ScanKernel.h"
#include "ssd/GPURuntime/EmulatorRuntime.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"
#include "ssd/Transforms/FormSelection.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

constexpr const char *kUsage =
    "usage: ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]\n"
    "               [--pool-dtype f32|bf16]\n"
    "               [--target cpu|cuda|gpu-emu|reference]\n"
    "               [--form auto|chunked|serial]\n"
    "               [--chunk-size N] [--static-shapes] [--print-ir] "
    "[--no-openmp]\n"
    "               [--chip sm_80|sm_86|sm_89|sm_90|sm_90a]\n"
    "               [--tensor-form [--constant-weights]] [--emulator-costs]\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-run: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string inputs, outputs,
      dtype = "f32", poolDType = "f32", target = "cpu", form = "auto",
      chip = mlir::ssd::enumName(mlir::ssd::kGPUChipNames,
                                 mlir::ssd::kDefaultGPUChip)
                 .str();
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  bool staticShapes = false, printIR = false, openmp = true;
  bool tensorForm = false, constantWeights = false;
  bool emulatorCosts = false; ///< print the emulator's cost counters
};

/// Parses the command line; false with a one-line message on any problem.
bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  const std::map<std::string, std::string *> valued = {
      {"--inputs", &o.inputs}, {"--outputs", &o.outputs},
      {"--dtype", &o.dtype},   {"--pool-dtype", &o.poolDType},
      {"--target", &o.target}, {"--form", &o.form},
      {"--chip", &o.chip}};
  std::string chunkSize;
  bool chunkSizeGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool inlineValue = false;
    if (size_t eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inlineValue = true;
    }
    const std::map<std::string, bool *> flags = {
        {"--static-shapes", &o.staticShapes},
        {"--print-ir", &o.printIR},
        {"--no-openmp", &o.openmp},
        {"--tensor-form", &o.tensorForm},
        {"--constant-weights", &o.constantWeights},
        {"--emulator-costs", &o.emulatorCosts}};
    if (auto flag = flags.find(arg); flag != flags.end()) {
      if (inlineValue) {
        error = "flag '" + arg + "' takes no value";
        return false;
      }
      *flag->second = arg != "--no-openmp";
      continue;
    }
    std::string *target = nullptr;
    if (auto it = valued.find(arg); it != valued.end())
      target = it->second;
    else if (arg == "--chunk-size") {
      target = &chunkSize;
      chunkSizeGiven = true;
    } else {
      error = "unknown flag '" + std::string(argv[i]) + "'";
      return false;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        error = "flag '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
      // `--outputs --static-shapes` forgot the value: the next flag is not
      // a folder name. (A value that really starts with "--" can be given
      // as --outputs=--name.)
      if (value.rfind("--", 0) == 0) {
        error = "flag '" + arg + "' needs a value, got the flag '" + value +
                "' (write " + arg + "=" + value +
                " if that is really the value)";
        return false;
      }
    }
    *target = value;
  }
  if (chunkSizeGiven) {
    char *end = nullptr;
    long long v = std::strtoll(chunkSize.c_str(), &end, 10);
    if (chunkSize.empty() || *end != '\0' || v < 1 ||
        v > ::ssd::limits::kMaxChunkSize) {
      error = "--chunk-size must be an integer in [1, " +
              std::to_string(::ssd::limits::kMaxChunkSize) + "], got '" +
              chunkSize + "'";
      return false;
    }
    o.chunkSize = v;
  }
  if (o.inputs.empty()) {
    error = "--inputs DIR is required";
    return false;
  }
  if (o.outputs.empty() && !o.printIR) {
    error = "--outputs DIR is required";
    return false;
  }
  if (o.target != "cpu" && o.target != "cuda" && o.target != "gpu-emu" &&
      o.target != "reference") {
    error = "unknown --target '" + o.target +
            "' (expected cpu, cuda, gpu-emu or reference)";
    return false;
  }
  if (!mlir::ssd::parseEnumName(mlir::ssd::kGPUChipNames, o.chip)) {
    error = "unknown --chip '" + o.chip + "' (expected " +
            mlir::ssd::listEnumNames(mlir::ssd::kGPUChipNames) + ")";
    return false;
  }
  if (o.constantWeights && !o.tensorForm) {
    error = "--constant-weights needs --tensor-form";
    return false;
  }
  if (o.emulatorCosts && o.target != "gpu-emu") {
    error = "--emulator-costs needs --target gpu-emu";
    return false;
  }
  if (!mlir::ssd::parseEnumName(mlir::ssd::kFormChoiceNames, o.form)) {
    error = "unknown --form '" + o.form + "' (expected " +
            mlir::ssd::listEnumNames(mlir::ssd::kFormChoiceNames) + ")";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 &&
      (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error))
    return fail(error);
  ssd::ModelDType dtype;
  if (!ssd::parseModelDType(o.dtype, dtype))
    return fail("unknown --dtype '" + o.dtype +
                "' (expected f32, f16 or bf16)");

  ssd::PoolDType poolDType;
  if (!ssd::parsePoolDType(o.poolDType, poolDType))
    return fail("unknown --pool-dtype '" + o.poolDType +
                "' (expected f32 or bf16)");

  // loadProblem also rejects extents above the documented maxima.
  ssd::ScanProblem problem;
  if (!ssd::loadProblem(o.inputs, dtype, problem, error, poolDType))
    return fail(error);

  // The form the compiled code runs for this launch (the rule it applies at
  // run time under --form auto).
  mlir::ssd::FormThresholds thresholds =
      o.target == "cuda" || o.target == "gpu-emu"
          ? mlir::ssd::kGPUFormThresholds
          : mlir::ssd::kCPUFormThresholds;
  bool chunked =
      o.form == "chunked" ||
      (o.form == "auto" && thresholds.choosesChunked(problem.T, problem.batch));

  // The CPU loops allocate their workspace with malloc and cannot report
  // failure: refuse a launch that cannot fit before compiling it.
  if (o.target == "cpu" && !o.printIR) {
    int threads =
        o.openmp ? int(std::max(1u, std::thread::hardware_concurrency())) : 1;
    double need =
        ssd::cpuWorkspaceBytes(problem, chunked, o.chunkSize, threads);
    double have =
        double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (have > 0 && need > have) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "--target cpu: the %s form needs %.3g GiB of workspace "
                    "for this launch, more than this machine's %.3g GiB of "
                    "memory%s",
                    chunked ? "chunked" : "serial", need / 1073741824.0,
                    have / 1073741824.0, chunked ? " (try --form serial)" : "");
      return fail(text);
    }
  }

  if (o.printIR) {
    mlir::DialectRegistry registry;
    mlir::ssd::registerSSDPipelineDependencies(registry);
    mlir::MLIRContext context(registry);
    ssd::ScanModuleOptions text;
    text.staticShapes = o.staticShapes;
    text.tensorForm = o.tensorForm;
    text.constantWeights = o.constantWeights;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(
        ssd::buildScanModuleText(problem, text), &context);
    if (!module)
      return fail("internal error: the generated module does not parse");
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  std::vector<float> y, pool;
  std::string ran;
  double seconds = 0;
  if (o.target == "reference") {
    std::vector<double> yRef, poolRef;
    auto start = std::chrono::steady_clock::now();
    if (!ssd::referenceScan(problem, yRef, poolRef, &error))
      return fail(error);
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    ssd::roundOutputs(problem, yRef, poolRef, y, pool);
    ran = "reference";
  } else {
    ssd::CompileOptions compile;
    compile.target = o.target == "cuda"      ? ssd::Target::CUDA
                     : o.target == "gpu-emu" ? ssd::Target::GPUEmulator
                                             : ssd::Target::CPU;
    compile.chip = o.chip;
    compile.form = o.form;
    compile.chunkSize = o.chunkSize;
    compile.staticShapes = o.staticShapes;
    compile.tensorForm = o.tensorForm;
    compile.constantWeights = o.constantWeights;
    compile.openmp = o.openmp;
    auto kernel = ssd::ScanKernel::compile(problem, compile, error);
    if (!kernel)
      return fail("--target " + o.target + ": " + error);
    ssd::HostOperands operands(problem);
    if (o.emulatorCosts)
      ssd::emulator::takeCosts(); // only the run's launches
    if (!kernel->run(operands, seconds, error))
      return fail(error);
    operands.readOutputs(y, pool);
    ran = o.target + " form=" + (chunked ? "chunked" : "serial");
  }

  if (!ssd::writeOutputs(o.outputs, problem, y, pool, error))
    return fail(error);
  std::printf("ssd-run: %s dtype=%s%s T=%lld batch=%lld H=%lld P=%lld G=%lld "
              "N=%lld time=%.3f ms\n",
              ran.c_str(), ssd::toString(dtype),
              poolDType == ssd::PoolDType::BF16 ? " pool=bf16" : "",
              (long long)problem.T, (long long)problem.batch,
              (long long)problem.H, (long long)problem.P, (long long)problem.G,
              (long long)problem.N, seconds * 1e3);
  if (o.emulatorCosts)
    std::fputs(ssd::emulator::formatCosts(ssd::emulator::takeCosts()).c_str(),
               stdout);
  return 0;
}
