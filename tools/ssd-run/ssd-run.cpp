//===- ssd-run.cpp - run one chunk_scan_varlen op on .npy arrays ----------===//
//
//   ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]
//           [--pool-dtype f32|bf16] [--target cpu|cuda|gpu-emu|reference]
//           [--form auto|chunked|serial] [--chunk-size N] [--static-shapes]
//           [--print-ir] [--no-openmp] [--cpu NAME] [--chip sm_90a]
//           [--tensor-form [--constant-weights]] [--no-fused-output]
//           [--checkpoint-interval N]
//
// Reads the op's operands from DIR/*.npy, runs it on the chosen target and
// writes y.npy and ssm_pool.npy. Bad input ends with one line naming the file
// and the problem, a non-zero exit code, and nothing written. So do extents
// above the documented maxima (ssd/IR/SSDLimits.h) and, on the CPU, a launch
// whose workspace exceeds the machine's memory: both are checked before
// anything is compiled.
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/ScanKernel.h"
#include "ssd/GPURuntime/EmulatorReports.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

constexpr const char *kUsage =
    "usage: ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]\n"
    "               [--pool-dtype f32|bf16]\n"
    "               [--target cpu|cuda|gpu-emu|reference]\n"
    "               [--form auto|chunked|serial]\n"
    "               [--chunk-size N] [--static-shapes] [--print-ir] "
    "[--no-openmp]\n"
    "               [--cpu NAME] [--chip sm_80|sm_86|sm_89|sm_90|sm_90a]\n"
    "               [--tensor-form [--constant-weights]] [--emulator-costs]\n"
    "               [--no-fused-output] [--checkpoint-interval N]\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-run: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string inputs, outputs, target = "cpu";
  ssd::ModelDType dtype = ssd::ModelDType::F32;
  ssd::PoolDType poolDType = ssd::PoolDType::F32;
  /// How the op is compiled (its target follows `target`).
  ssd::CompileOptions compile;
  bool printIR = false;
  bool emulatorCosts = false; ///< print the emulator's cost counters
  /// I of checkpoint_slots.npy; 0 when not given.
  int64_t checkpointInterval = 0;
};

/// Parses the command line; false with a one-line message on any problem.
bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  // Parsed into `o` below, in the order their errors are reported.
  std::string dtype = "f32", poolDType = "f32", form = "auto",
              chip =
                  mlir::ssd::enumName(mlir::ssd::kGPUChipNames, o.compile.chip);
  const std::map<std::string, std::string *> valued = {
      {"--inputs", &o.inputs}, {"--outputs", &o.outputs},
      {"--dtype", &dtype},     {"--pool-dtype", &poolDType},
      {"--target", &o.target}, {"--form", &form},
      {"--chip", &chip},       {"--cpu", &o.compile.cpu}};
  std::string chunkSize, checkpointInterval;
  bool chunkSizeGiven = false, checkpointIntervalGiven = false;
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
        {"--static-shapes", &o.compile.staticShapes},
        {"--print-ir", &o.printIR},
        {"--no-openmp", &o.compile.openmp},
        {"--no-fused-output", &o.compile.fusedOutput},
        {"--tensor-form", &o.compile.tensorForm},
        {"--constant-weights", &o.compile.constantWeights},
        {"--emulator-costs", &o.emulatorCosts}};
    if (auto flag = flags.find(arg); flag != flags.end()) {
      if (inlineValue) {
        error = "flag '" + arg + "' takes no value";
        return false;
      }
      *flag->second = arg.rfind("--no-", 0) != 0;
      continue;
    }
    std::string *target = nullptr;
    if (auto it = valued.find(arg); it != valued.end())
      target = it->second;
    else if (arg == "--chunk-size") {
      target = &chunkSize;
      chunkSizeGiven = true;
    } else if (arg == "--checkpoint-interval") {
      target = &checkpointInterval;
      checkpointIntervalGiven = true;
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
    o.compile.chunkSize = v;
  }
  if (checkpointIntervalGiven) {
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(checkpointInterval.c_str(), &end, 10);
    if (checkpointInterval.empty() || *end != '\0' || errno == ERANGE ||
        v < 1) {
      error = "--checkpoint-interval must be an integer >= 1, got '" +
              checkpointInterval + "'";
      return false;
    }
    o.checkpointInterval = v;
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
  o.compile.target = o.target == "cuda"      ? ssd::Target::CUDA
                     : o.target == "gpu-emu" ? ssd::Target::GPUEmulator
                                             : ssd::Target::CPU;
  if (!mlir::ssd::parseEnumFlag(mlir::ssd::kGPUChipNames, "--chip", chip,
                                o.compile.chip, error))
    return false;
  if (o.compile.constantWeights && !o.compile.tensorForm) {
    error = "--constant-weights needs --tensor-form";
    return false;
  }
  if (!o.compile.cpu.empty() && o.target != "cpu") {
    error = "--cpu needs --target cpu (the GPU targets' host code is "
            "compiled for this host)";
    return false;
  }
  if (o.emulatorCosts && o.target != "gpu-emu") {
    error = "--emulator-costs needs --target gpu-emu";
    return false;
  }
  if (!o.compile.fusedOutput && o.target != "gpu-emu" && o.target != "cuda") {
    error = "--no-fused-output needs --target cuda or gpu-emu";
    return false;
  }
  return mlir::ssd::parseEnumFlag(mlir::ssd::kFormChoiceNames, "--form", form,
                                  o.compile.form, error) &&
         ssd::parseModelDTypeFlag("--dtype", dtype, o.dtype, error) &&
         ssd::parsePoolDTypeFlag("--pool-dtype", poolDType, o.poolDType, error);
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

  // loadProblem also rejects extents above the documented maxima.
  ssd::ScanProblem problem;
  if (!ssd::loadProblem(o.inputs, o.dtype, problem, error, o.poolDType,
                        o.checkpointInterval))
    return fail(error);

  // Both before anything is compiled.
  if (o.target == "cpu" && !o.printIR &&
      !ssd::checkCPUWorkspace(problem, o.compile, error))
    return fail(error);
  if (o.printIR) {
    std::string ir;
    if (!ssd::printScanModule(problem, o.compile, ir, error))
      return fail(error);
    std::fputs(ir.c_str(), stdout);
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
    auto kernel = ssd::ScanKernel::compile(problem, o.compile, error);
    if (!kernel)
      return fail("--target " + o.target + ": " + error);
    ssd::HostOperands operands(problem);
    if (o.emulatorCosts)
      ssd::emulator::takeCosts(); // only the run's launches
    if (!kernel->run(operands, seconds, error))
      return fail(error);
    operands.readOutputs(y, pool);
    // The form the compiled code ran for this launch.
    ran = o.target + " form=" +
          (ssd::runsChunked(problem, o.compile) ? "chunked" : "serial");
  }

  if (!ssd::writeOutputs(o.outputs, problem, y, pool, error))
    return fail(error);
  std::printf("ssd-run: %s dtype=%s%s T=%lld batch=%lld H=%lld P=%lld G=%lld "
              "N=%lld time=%.3f ms\n",
              ran.c_str(), ssd::toString(o.dtype),
              o.poolDType == ssd::PoolDType::BF16 ? " pool=bf16" : "",
              (long long)problem.T, (long long)problem.batch,
              (long long)problem.H, (long long)problem.P, (long long)problem.G,
              (long long)problem.N, seconds * 1e3);
  if (o.emulatorCosts)
    std::fputs(ssd::emulator::formatCosts(ssd::emulator::takeCosts()).c_str(),
               stdout);
  return 0;
}
