//===- ssd-run.cpp - run one chunk_scan_varlen op on .npy arrays ----------===//
//
//   ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]
//           [--pool-dtype f32|bf16] [--target cpu|cuda|gpu-emu|reference]
//           [--form auto|chunked|serial] [--chunk-size N] [--static-shapes]
//           [--print-ir] [--no-openmp] [--cpu NAME] [--chip sm_90a]
//           [--tensor-form [--constant-weights]] [--no-fused-output]
//           [--no-pair-heads]
//           [--checkpoint-interval N]
//
// The flags are llvm::cl options (--help lists them); ssd::checkToolArguments
// keeps command-line mistakes one line in the tool's words.
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
#include "ssd/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

cl::OptionCategory category("ssd-run options");

cl::opt<std::string> inputs("inputs",
                            cl::desc("folder of the op's .npy operands"),
                            cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> outputs("outputs",
                             cl::desc("folder for y.npy and ssm_pool.npy"),
                             cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> dtype("dtype", cl::desc("model dtype: f32, f16 or bf16"),
                           cl::init("f32"), cl::cat(category));
cl::opt<std::string> poolDType("pool-dtype",
                               cl::desc("pool dtype: f32 or bf16"),
                               cl::init("f32"), cl::cat(category));
cl::opt<std::string> target("target",
                            cl::desc("cpu, cuda, gpu-emu or reference"),
                            cl::init("cpu"), cl::cat(category));
cl::opt<std::string> form("form", cl::desc("auto, chunked or serial"),
                          cl::init("auto"), cl::cat(category));
cl::opt<std::string> chunkSize("chunk-size",
                               cl::desc("tokens per chunk of the chunked form"),
                               cl::value_desc("N"), cl::cat(category));
cl::opt<bool> staticShapes("static-shapes",
                           cl::desc("compile for the inputs' T and batch"),
                           cl::cat(category));
cl::opt<bool> printIR("print-ir",
                      cl::desc("print the module before any pass; run nothing"),
                      cl::cat(category));
cl::opt<bool> noOpenMP("no-openmp",
                       cl::desc("CPU: run the outer loops on one core"),
                       cl::cat(category));
cl::opt<std::string>
    cpu("cpu", cl::desc("CPU: the LLVM CPU to compile for (default: the host)"),
        cl::value_desc("NAME"), cl::cat(category));
cl::opt<std::string>
    chip("chip", cl::desc("GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a"),
         cl::init(mlir::ssd::enumName(mlir::ssd::kGPUChipNames,
                                      mlir::ssd::kDefaultGPUChip)),
         cl::cat(category));
cl::opt<bool> tensorForm(
    "tensor-form",
    cl::desc("the op on tensors with y returned, as a graph compiler holds it"),
    cl::cat(category));
cl::opt<bool> constantWeights(
    "constant-weights",
    cl::desc("with --tensor-form: A, D and dt_bias as constants"),
    cl::cat(category));
cl::opt<bool>
    emulatorCosts("emulator-costs",
                  cl::desc("gpu-emu: print the emulator's cost counters"),
                  cl::cat(category));
cl::opt<bool> noFusedOutput(
    "no-fused-output",
    cl::desc("GPU: y in a kernel of its own, not in the chunk kernel"),
    cl::cat(category));
cl::opt<bool> noPairHeads(
    "no-pair-heads",
    cl::desc("GPU: one head per chunk-kernel block, also where two fit"),
    cl::cat(category));
cl::opt<std::string> checkpointInterval(
    "checkpoint-interval",
    cl::desc("tokens between the checkpoints of checkpoint_slots.npy"),
    cl::value_desc("N"), cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-run: %s\n", message.c_str());
  return 1;
}

struct Options {
  ssd::ModelDType dtype = ssd::ModelDType::F32;
  ssd::PoolDType poolDType = ssd::PoolDType::F32;
  /// How the op is compiled (its target follows `target`).
  ssd::CompileOptions compile;
  /// I of checkpoint_slots.npy; 0 when not given.
  int64_t checkpointInterval = 0;
};

/// Checks the parsed flags and turns them into `o`, in the order their
/// errors are reported; false with a one-line message on any problem.
bool readOptions(Options &o, std::string &error) {
  if (chunkSize.getNumOccurrences()) {
    char *end = nullptr;
    long long v = std::strtoll(chunkSize.c_str(), &end, 10);
    if (chunkSize.empty() || *end != '\0' || v < 1 ||
        v > mlir::ssd::limits::kMaxChunkSize) {
      error = "--chunk-size must be an integer in [1, " +
              std::to_string(mlir::ssd::limits::kMaxChunkSize) + "], got '" +
              chunkSize + "'";
      return false;
    }
    o.compile.chunkSize = v;
  }
  if (checkpointInterval.getNumOccurrences()) {
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
  if (inputs.empty()) {
    error = "--inputs DIR is required";
    return false;
  }
  if (outputs.empty() && !printIR) {
    error = "--outputs DIR is required";
    return false;
  }
  if (target != "cpu" && target != "cuda" && target != "gpu-emu" &&
      target != "reference") {
    error = "unknown --target '" + target +
            "' (expected cpu, cuda, gpu-emu or reference)";
    return false;
  }
  o.compile.target = target == "cuda"      ? ssd::Target::CUDA
                     : target == "gpu-emu" ? ssd::Target::GPUEmulator
                                           : ssd::Target::CPU;
  if (!mlir::ssd::parseEnumFlag(mlir::ssd::kGPUChipNames, "--chip", chip,
                                o.compile.chip, error))
    return false;
  o.compile.staticShapes = staticShapes;
  o.compile.openmp = !noOpenMP;
  o.compile.cpu = cpu;
  if (noFusedOutput)
    o.compile.fusedOutput = false;
  if (noPairHeads)
    o.compile.pairHeads = false;
  o.compile.tensorForm = tensorForm;
  o.compile.constantWeights = constantWeights;
  if (constantWeights && !tensorForm) {
    error = "--constant-weights needs --tensor-form";
    return false;
  }
  if (!cpu.empty() && target != "cpu") {
    error = "--cpu needs --target cpu (the GPU targets' host code is "
            "compiled for this host)";
    return false;
  }
  if (emulatorCosts && target != "gpu-emu") {
    error = "--emulator-costs needs --target gpu-emu";
    return false;
  }
  if (noFusedOutput && target != "gpu-emu" && target != "cuda") {
    error = "--no-fused-output needs --target cuda or gpu-emu";
    return false;
  }
  if (noPairHeads && target != "gpu-emu" && target != "cuda") {
    error = "--no-pair-heads needs --target cuda or gpu-emu";
    return false;
  }
  return mlir::ssd::parseEnumFlag(mlir::ssd::kFormChoiceNames, "--form", form,
                                  o.compile.form, error) &&
         ssd::parseModelDTypeFlag("--dtype", dtype, o.dtype, error) &&
         ssd::parsePoolDTypeFlag("--pool-dtype", poolDType, o.poolDType, error);
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::checkToolArguments(argc, argv, category, error))
    return fail(error);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "run one ssd.chunk_scan_varlen op on .npy arrays\n\n"
      "Reads the op's operands from --inputs DIR, runs the op on --target and\n"
      "writes y.npy and ssm_pool.npy to --outputs DIR.\n");
  Options o;
  if (!readOptions(o, error))
    return fail(error);

  // loadProblem also rejects extents above the documented maxima.
  ssd::ScanProblem problem;
  if (!ssd::loadProblem(inputs, o.dtype, problem, error, o.poolDType,
                        o.checkpointInterval))
    return fail(error);

  // Both before anything is compiled.
  if (target == "cpu" && !printIR &&
      !ssd::checkCPUWorkspace(problem, o.compile, error))
    return fail(error);
  if (printIR) {
    std::string ir;
    if (!ssd::printScanModule(problem, o.compile, ir, error))
      return fail(error);
    std::fputs(ir.c_str(), stdout);
    return 0;
  }

  std::vector<float> y, pool;
  std::string ran;
  double seconds = 0;
  if (target == "reference") {
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
      return fail("--target " + target + ": " + error);
    ssd::HostOperands operands(problem);
    if (emulatorCosts)
      ssd::emulator::takeCosts(); // only the run's launches
    if (!kernel->run(operands, seconds, error))
      return fail(error);
    operands.readOutputs(y, pool);
    // The form the compiled code ran for this launch.
    ran = target + " form=" +
          (ssd::runsChunked(problem, o.compile) ? "chunked" : "serial");
  }

  if (!ssd::writeOutputs(outputs, problem, y, pool, error))
    return fail(error);
  std::printf("ssd-run: %s dtype=%s%s T=%lld batch=%lld H=%lld P=%lld G=%lld "
              "N=%lld time=%.3f ms\n",
              ran.c_str(), ssd::toString(o.dtype),
              o.poolDType == ssd::PoolDType::BF16 ? " pool=bf16" : "",
              (long long)problem.T, (long long)problem.batch,
              (long long)problem.H, (long long)problem.P, (long long)problem.G,
              (long long)problem.N, seconds * 1e3);
  if (emulatorCosts)
    std::fputs(ssd::emulator::formatCosts(ssd::emulator::takeCosts()).c_str(),
               stdout);
  return 0;
}
