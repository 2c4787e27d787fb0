//===- ssd-run.cpp - run one chunk_scan_varlen op on .npy arrays ----------===//
//
//   ssd-run --inputs DIR --outputs DIR [--dtype f32|f16|bf16]
//           [--pool-dtype f32|bf16|f16|f8e4m3|i8]
//           [--pool-rounding nearest|stochastic --rounding-seed N]
//           [--target cpu|cuda|gpu-emu|reference]
//           [--form auto|chunked|serial] [--chunk-size N] [--static-shapes]
//           [--print-ir] [--no-openmp] [--cpu NAME] [--chip sm_90a]
//           [--tensor-form [--constant-weights]] [--no-fused-output]
//           [--no-fused-state-passing]
//           [--heads-per-block N] [--pipeline-stages N] [--cb-in-block]
//           [--checkpoint-interval N] [--invariant]
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
#include "ssd/Support/EnumOption.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Support/SettingRanges.h"
#include "ssd/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

/// Where the op runs.
enum class RunTarget { CPU, CUDA, GPUEmulator, Reference };

constexpr mlir::ssd::EnumName<RunTarget> kRunTargetNames[] = {
    {RunTarget::CPU, "cpu", "the JIT through --ssd-to-cpu"},
    {RunTarget::CUDA, "cuda", "the GPU through --ssd-to-nvvm"},
    {RunTarget::GPUEmulator, "gpu-emu",
     "the same GPU kernels on the emulator (--ssd-to-gpu-emulator)"},
    {RunTarget::Reference, "reference",
     "the plain C++ double-precision recurrence"},
};

cl::OptionCategory category("ssd-run options");

cl::opt<std::string> inputs("inputs",
                            cl::desc("folder of the op's .npy operands"),
                            cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> outputs("outputs",
                             cl::desc("folder for y.npy and ssm_pool.npy"),
                             cl::value_desc("DIR"), cl::cat(category));
ssd::ToolEnum<ssd::ModelDType>
    dtype("dtype", cl::desc("model dtype"), cl::init(ssd::ModelDType::F32),
          mlir::ssd::EnumValues{ssd::kModelDTypeNames}, cl::cat(category));
ssd::ToolEnum<ssd::PoolDType>
    poolDType("pool-dtype", cl::desc("pool dtype"),
              cl::init(ssd::PoolDType::F32),
              mlir::ssd::EnumValues{ssd::kPoolDTypeNames}, cl::cat(category));
ssd::ToolEnum<ssd::PoolRounding> poolRounding(
    "pool-rounding", cl::desc("how states are rounded into a narrow pool"),
    cl::init(ssd::PoolRounding::NearestEven),
    mlir::ssd::EnumValues{ssd::kPoolRoundingNames}, cl::cat(category));
ssd::ToolInt roundingSeed(
    "rounding-seed",
    cl::desc("with --pool-rounding stochastic (required then): the op's "
             "rounding_seed, a signed 64-bit integer"),
    cl::value_desc("N"), cl::cat(category));
ssd::ToolEnum<RunTarget> target("target", cl::desc("where the op runs"),
                                cl::init(RunTarget::CPU),
                                mlir::ssd::EnumValues{kRunTargetNames},
                                cl::cat(category));
ssd::ToolEnum<mlir::ssd::FormChoice>
    form("form", cl::desc("the form"), cl::init(mlir::ssd::FormChoice::Auto),
         mlir::ssd::EnumValues{mlir::ssd::kFormChoiceNames}, cl::cat(category));
ssd::ToolInt chunkSize("chunk-size",
                       cl::desc("tokens per chunk of the chunked form (1 to "
                                "65536; 1 to 4096 on the GPU targets)"),
                       cl::init(mlir::ssd::kChunkSizeDefault),
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
ssd::ToolEnum<mlir::ssd::GPUChip>
    chip("chip", cl::desc("GPU: the chip to compile for"),
         cl::init(mlir::ssd::kDefaultGPUChip),
         mlir::ssd::EnumValues{mlir::ssd::kGPUChipNames}, cl::cat(category));
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
cl::opt<bool> noFusedStatePassing(
    "no-fused-state-passing",
    cl::desc("GPU: chunk states passed by a launch of their own (three "
             "launches), as f32 models always are"),
    cl::cat(category));
cl::opt<bool> noFusedOutput(
    "no-fused-output",
    cl::desc("GPU: y in a kernel of its own, not in the chunk kernel"),
    cl::cat(category));
ssd::ToolInt
    headsPerBlock("heads-per-block",
                  cl::desc("GPU: the most heads of one group a chunk-kernel "
                           "block serves, 1 to 2"),
                  cl::init(mlir::ssd::kDefaultHeadsPerBlock),
                  cl::value_desc("N"), cl::cat(category));
ssd::ToolInt pipelineStages(
    "pipeline-stages",
    cl::desc("GPU: the most shared-memory stages of the chunked kernels' "
             "pipelined reductions, 2 to 4"),
    cl::init(mlir::ssd::kDefaultPipelineStages), cl::value_desc("N"),
    cl::cat(category));
cl::opt<bool> cbInBlock(
    "cb-in-block",
    cl::desc("GPU: C·Bᵀ computed in the chunk kernel's state blocks, where "
             "the fused output runs on wgmma with one head a block"),
    cl::cat(category));
ssd::ToolInt checkpointInterval(
    "checkpoint-interval",
    cl::desc("tokens between the checkpoints of checkpoint_slots.npy"),
    cl::value_desc("N"), cl::cat(category));
cl::opt<bool> invariant(
    "invariant",
    cl::desc("an invariant op: bit-identical results however it is batched, "
             "split, formed or targeted"),
    cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-run: %s\n", message.c_str());
  return 1;
}

struct Options {
  ssd::ModelDType dtype = ssd::ModelDType::F32;
  ssd::PoolDType poolDType = ssd::PoolDType::F32;
  ssd::PoolRounding poolRounding = ssd::PoolRounding::NearestEven;
  int64_t roundingSeed = 0;
  /// How the op is compiled (its target follows `target`).
  ssd::CompileOptions compile;
  /// I of checkpoint_slots.npy; 0 when not given.
  int64_t checkpointInterval = 0;
};

/// A flag that only the GPU targets take, given with another: its error.
bool needsGPUTarget(const cl::Option &flag, std::string &error) {
  if (!flag.getNumOccurrences() || target == RunTarget::CUDA ||
      target == RunTarget::GPUEmulator)
    return true;
  error = "--" + flag.ArgStr.str() + " needs --target cuda or gpu-emu";
  return false;
}

/// Checks the parsed flags and turns them into `o`, in the order their
/// errors are reported; false with a one-line message on any problem.
bool readOptions(Options &o, std::string &error) {
  const bool gpu =
      target == RunTarget::CUDA || target == RunTarget::GPUEmulator;
  // The GPU targets' chunked kernels take shorter chunks than the op.
  if (std::string why = mlir::ssd::whyOutOfRange(
          "", "--chunk-size", mlir::ssd::chunkSizeRange(gpu), chunkSize);
      !why.empty()) {
    error = why + (gpu ? " (the GPU chunked kernels' cap)" : "");
    return false;
  }
  o.compile.chunkSize = chunkSize;
  if (checkpointInterval.getNumOccurrences()) {
    if (checkpointInterval < 1) {
      error = "--checkpoint-interval must be at least 1, got " +
              std::to_string(checkpointInterval);
      return false;
    }
    o.checkpointInterval = checkpointInterval;
  }
  if (inputs.empty()) {
    error = "--inputs DIR is required";
    return false;
  }
  if (outputs.empty() && !printIR) {
    error = "--outputs DIR is required";
    return false;
  }
  o.compile.target = target == RunTarget::CUDA ? ssd::Target::CUDA
                     : target == RunTarget::GPUEmulator
                         ? ssd::Target::GPUEmulator
                         : ssd::Target::CPU;
  o.compile.chip = chip;
  o.compile.form = form;
  o.compile.staticShapes = staticShapes;
  o.compile.openmp = !noOpenMP;
  o.compile.cpu = cpu;
  o.compile.fusedStatePassing = !noFusedStatePassing;
  o.compile.fusedOutput = !noFusedOutput;
  o.compile.headsPerBlock = headsPerBlock;
  o.compile.pipelineStages = pipelineStages;
  o.compile.cbInBlock = cbInBlock;
  o.compile.tensorForm = tensorForm;
  o.compile.constantWeights = constantWeights;
  o.compile.invariant = invariant;
  o.dtype = dtype;
  o.poolDType = poolDType;
  o.poolRounding = poolRounding;
  // No default seed: a fixed one would draw the same bits on every call,
  // which is exactly what stochastic rounding must not do to a slot
  // rewritten call after call.
  if (!ssd::checkPoolRoundingFlags(poolDType, poolRounding, error))
    return false;
  if (poolRounding == ssd::PoolRounding::Stochastic) {
    if (!roundingSeed.getNumOccurrences()) {
      error = "--pool-rounding stochastic needs --rounding-seed N (the op's "
              "rounding_seed; give each call its own)";
      return false;
    }
    o.roundingSeed = roundingSeed;
  } else if (roundingSeed.getNumOccurrences()) {
    error = "--rounding-seed needs --pool-rounding stochastic";
    return false;
  }
  if (constantWeights && !tensorForm) {
    error = "--constant-weights needs --tensor-form";
    return false;
  }
  if (!cpu.empty() && target != RunTarget::CPU) {
    error = "--cpu needs --target cpu (the GPU targets' host code is "
            "compiled for this host)";
    return false;
  }
  if (emulatorCosts && target != RunTarget::GPUEmulator) {
    error = "--emulator-costs needs --target gpu-emu";
    return false;
  }
  if (!needsGPUTarget(noFusedOutput, error) ||
      !needsGPUTarget(noFusedStatePassing, error) ||
      !needsGPUTarget(headsPerBlock, error) ||
      !needsGPUTarget(pipelineStages, error) ||
      !needsGPUTarget(cbInBlock, error))
    return false;
  if (!ssd::refuseChunkedChoices(invariant,
                                 {&noFusedOutput, &noFusedStatePassing,
                                  &headsPerBlock, &pipelineStages, &cbInBlock},
                                 error))
    return false;
  if (std::optional<std::string> why = mlir::ssd::whyOutOfRange(
          "",
          {{"--heads-per-block", headsPerBlock, mlir::ssd::kHeadsPerBlockRange},
           {"--pipeline-stages", pipelineStages,
            mlir::ssd::kPipelineStagesRange}})) {
    error = *why;
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::parseToolCommandLine(
          argc, argv, category,
          "run one ssd.chunk_scan_varlen op on .npy arrays\n\n"
          "Reads the op's operands from --inputs DIR, runs the op on --target "
          "and\nwrites y.npy and ssm_pool.npy to --outputs DIR.\n",
          error))
    return fail(error);
  Options o;
  if (!readOptions(o, error))
    return fail(error);

  // loadProblem also rejects extents above the documented maxima.
  ssd::ScanProblem problem;
  if (!ssd::loadProblem(inputs, o.dtype, problem, error, o.poolDType,
                        o.checkpointInterval))
    return fail(error);
  problem.poolRounding = o.poolRounding;
  problem.roundingSeed = o.roundingSeed;

  // All before anything is compiled.
  if (target != RunTarget::Reference &&
      !ssd::checkTreeOptions(problem, o.compile, error))
    return fail(error);
  if (target == RunTarget::CPU && !printIR &&
      !ssd::checkCPUWorkspace(problem, o.compile, error))
    return fail(error);
  if (printIR) {
    std::string ir;
    if (!ssd::printScanModule(problem, o.compile, ir, error))
      return fail(error);
    std::fputs(ir.c_str(), stdout);
    return 0;
  }

  std::vector<float> y;
  ssd::PoolContents pool;
  std::string ran;
  double seconds = 0;
  const std::string targetName = mlir::ssd::enumName(kRunTargetNames, target);
  if (target == RunTarget::Reference) {
    std::vector<double> yRef;
    auto start = std::chrono::steady_clock::now();
    if (!ssd::referenceScan(problem, yRef, pool, &error))
      return fail(error);
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    y.resize(yRef.size());
    for (size_t i = 0; i < yRef.size(); ++i)
      y[i] = ssd::roundDoubleToModelDType(yRef[i], problem.dtype);
    ran = "reference";
  } else {
    auto kernel = ssd::ScanKernel::compile(problem, o.compile, error);
    if (!kernel)
      return fail("--target " + targetName + ": " + error);
    ssd::HostOperands operands(problem);
    if (emulatorCosts)
      ssd::emulator::takeCosts(); // only the run's launches
    if (!kernel->run(operands, seconds, error))
      return fail(error);
    operands.readOutputs(y, pool);
    // The form the compiled code ran for this launch.
    ran =
        targetName + " form=" +
        mlir::ssd::stringifyForm(ssd::formThatRuns(problem, o.compile)).str() +
        (invariant ? " invariant" : "");
  }

  if (!ssd::writeOutputs(outputs, problem, y, pool, error))
    return fail(error);
  std::string poolText;
  if (o.poolDType != ssd::PoolDType::F32)
    poolText = std::string(" pool=") + ssd::toString(o.poolDType);
  if (o.poolRounding == ssd::PoolRounding::Stochastic)
    poolText += " rounding=stochastic seed=" + std::to_string(o.roundingSeed);
  std::printf("ssd-run: %s dtype=%s%s T=%lld batch=%lld H=%lld P=%lld G=%lld "
              "N=%lld time=%.3f ms\n",
              ran.c_str(), ssd::toString(o.dtype), poolText.c_str(),
              (long long)problem.T, (long long)problem.batch,
              (long long)problem.H, (long long)problem.P, (long long)problem.G,
              (long long)problem.N, seconds * 1e3);
  if (emulatorCosts)
    std::fputs(ssd::emulator::formatCosts(ssd::emulator::takeCosts()).c_str(),
               stdout);
  return 0;
}
