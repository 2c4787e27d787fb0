//===- ssd-compile.cpp - ahead-of-time compilation of scan ops for GPUs ---===//
//
//   ssd-compile --inputs DIR [--inputs DIR ...] [--dtype f32|f16|bf16]
//               [--pool-dtype f32|bf16|f16|f8e4m3|i8]
//               [--pool-rounding nearest|stochastic]
//               [--forms auto,serial,chunked] [--chunk-size N]
//               [--checkpoint-interval N] [--heads-per-block N]
//               [--pipeline-stages N] [--cb-in-block] [--invariant]
//               [--target cuda|gpu-emu] [--chip sm_90a[,sm_80...]]
//               [--format isa|bin|fatbin] -o FILE.o
//   ssd-compile --module FILE.mlir [--forms F] [--chunk-size N]
//               [--heads-per-block N] [--pipeline-stages N] [--cb-in-block]
//               [--invariant]
//               [--target cuda|gpu-emu] [--chip sm_90a[,sm_80...]]
//               [--format isa|bin|fatbin] -o FILE.o
//
// Compiles the op for the signature of each input directory (dtype, H, P, G,
// N, optional operands, cache-index layout; T, batch and the slot count stay
// dynamic) in each requested form into one host object file: host code
// calling the mgpu* runtime, the kernels embedded in it, and a constructor
// per variant that registers it (with its target, chip and format) with the
// ahead-of-time runner.
//
// --chip takes a comma-separated list: every variant is compiled once per
// chip, as a complete function of its own (kernel plans follow the chip's
// shared-memory limit, so the host code differs), and the runner picks the
// one for the device by its compute capability: a chip whose cubin runs
// there (sm_80 on 8.x, sm_90a on 9.0 only), else one carrying PTX (isa,
// fatbin) for an older chip, else a one-line error (docs/gpu.md).
//
// --heads-per-block 2 lets a chunk-kernel block serve two heads where the
// shapes allow it (sm_90a, docs/gpu.md); the variants' keys end in
// `heads_per_block=2`, so one executable can hold both and compare them
// (`ssd-aot-run --heads-per-block 2`). --pipeline-stages N bounds the
// chunked kernels' pipeline stages likewise (3 unless told otherwise; keys
// with another bound end in `pipeline_stages=N`), so that a GPU can time a
// double buffer beside the default ring, and --cb-in-block lets the state
// blocks compute C·Bᵀ themselves where the planner can (keys end in
// ` cb_in_block`).
//
// --pool-dtype and --pool-rounding give every --inputs variant its pool
// type and rounding (the directories' pool files as ssd-run reads them for
// the same flags); both show in the keys (`ssd-aot-run --pool-dtype ...`).
// A stochastic variant takes its seed at each call (ssd-aot-run
// --rounding-seed N).
//
// --invariant compiles every op invariant (bit-identical results however it
// is batched, split or formed); the variants' keys end in ` invariant`
// (`ssd-aot-run --invariant`). It runs the serial kernel only, so it takes
// no --heads-per-block, --pipeline-stages or --cb-in-block.
//
// --target cuda (default) compiles through --ssd-to-nvvm: kernels embedded as
// PTX (isa, JIT-compiled by the driver), cubin (bin, needs ptxas) or a fat
// binary of both (fatbin, needs ptxas and fatbinary: the chip's cubin, and
// its PTX for newer devices). Linked with libSSDAotRunner.a,
// libSSDAotCudaDevice.a, libSSDCudaRuntime.a and libSSDRunner.a (see
// docs/gpu.md) it makes an executable that needs only the NVIDIA driver.
//
// --target gpu-emu compiles through --ssd-to-gpu-emulator: the same kernels,
// serialized into a host shared object for the GPU emulator (no --format;
// like a cubin, a chip's variant runs only where that chip's cubin would).
// Linked with libSSDAotRunner.a, libSSDAotEmulatorDevice.a,
// libSSDGPUEmulatorRuntime.so and libSSDRunner.a it runs them on the CPU.
//
// --module compiles a whole tensor/memref-level module instead (a graph
// compiler's function holding ssd ops, e.g. examples/mamba2-mixer/mixer.mlir)
// with one form: every public func.func gets a C interface
// (`_mlir_ciface_<name>`, `_mlir_ciface_<name>_<chip>` with several chips),
// registered under the key `module:<name>`. Its buffers live on the device;
// a returned memref is a device buffer that the caller frees.
//
//===----------------------------------------------------------------------===//

#include "ssd/AOT/AotCompiler.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Support/EnumOption.h"
#include "ssd/Support/OptionRange.h"
#include "ssd/Support/SettingRanges.h"
#include "ssd/Support/ToolOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

namespace {

/// The runtime the kernels are for.
enum class AotTarget { CUDA, GPUEmulator };

constexpr mlir::ssd::EnumName<AotTarget> kAotTargetNames[] = {
    {AotTarget::CUDA, "cuda", "the NVIDIA driver (--ssd-to-nvvm)"},
    {AotTarget::GPUEmulator, "gpu-emu",
     "the GPU emulator (--ssd-to-gpu-emulator)"},
};

cl::OptionCategory category("ssd-compile options");

cl::list<std::string>
    inputs("inputs",
           cl::desc("folder of .npy operands whose signature to compile "
                    "(repeatable)"),
           cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> module("module",
                            cl::desc("a whole module to compile instead"),
                            cl::value_desc("FILE.mlir"), cl::cat(category));
ssd::ToolEnum<ssd::ModelDType>
    dtype("dtype", cl::desc("model dtype"), cl::init(ssd::ModelDType::F32),
          mlir::ssd::EnumValues{ssd::kModelDTypeNames}, cl::cat(category));
cl::list<mlir::ssd::FormChoice, bool,
         ssd::ToolEnumParser<mlir::ssd::FormChoice>>
    forms("forms", cl::desc("comma-separated forms (default: auto)"),
          cl::CommaSeparated,
          mlir::ssd::EnumValues{mlir::ssd::kFormChoiceNames},
          cl::cat(category));
cl::list<mlir::ssd::GPUChip, bool, ssd::ToolEnumParser<mlir::ssd::GPUChip>>
    chips("chip", cl::desc("comma-separated GPUs (default: sm_90a)"),
          cl::CommaSeparated, mlir::ssd::EnumValues{mlir::ssd::kGPUChipNames},
          cl::cat(category));
ssd::ToolEnum<mlir::ssd::BinaryFormat>
    format("format", cl::desc("cuda: what the kernels are compiled into"),
           cl::init(mlir::ssd::BinaryFormat::Isa),
           mlir::ssd::EnumValues{mlir::ssd::kBinaryFormatNames},
           cl::cat(category));
ssd::ToolEnum<AotTarget> target("target", cl::desc("the kernels' runtime"),
                                cl::init(AotTarget::CUDA),
                                mlir::ssd::EnumValues{kAotTargetNames},
                                cl::cat(category));
cl::opt<std::string> output("o", cl::desc("the host object to write"),
                            cl::value_desc("FILE.o"), cl::cat(category));
ssd::ToolInt chunkSize("chunk-size",
                       cl::desc("tokens per chunk of the chunked form, 1 to "
                                "4096"),
                       cl::init(mlir::ssd::kChunkSizeDefault),
                       cl::value_desc("N"), cl::cat(category));
ssd::ToolInt
    headsPerBlock("heads-per-block",
                  cl::desc("the most heads of one group a chunk-kernel block "
                           "serves, 1 to 2"),
                  cl::init(mlir::ssd::kDefaultHeadsPerBlock),
                  cl::value_desc("N"), cl::cat(category));
ssd::ToolInt pipelineStages(
    "pipeline-stages",
    cl::desc("the most shared-memory stages of the chunked kernels' "
             "pipelined reductions, 2 to 4"),
    cl::init(mlir::ssd::kDefaultPipelineStages), cl::value_desc("N"),
    cl::cat(category));
cl::opt<bool> cbInBlock(
    "cb-in-block",
    cl::desc("C·Bᵀ computed in the chunk kernel's state blocks where the fused "
             "output runs on wgmma with one head a block"),
    cl::cat(category));
cl::opt<bool>
    invariant("invariant",
              cl::desc("invariant ops: bit-identical results however they are "
                       "batched, split or formed"),
              cl::cat(category));
ssd::ToolEnum<ssd::PoolDType>
    poolDType("pool-dtype", cl::desc("pool dtype of the --inputs variants"),
              cl::init(ssd::PoolDType::F32),
              mlir::ssd::EnumValues{ssd::kPoolDTypeNames}, cl::cat(category));
ssd::ToolEnum<ssd::PoolRounding> poolRounding(
    "pool-rounding", cl::desc("how states are rounded into a narrow pool"),
    cl::init(ssd::PoolRounding::NearestEven),
    mlir::ssd::EnumValues{ssd::kPoolRoundingNames}, cl::cat(category));
// For the input directories with checkpoint_slots.npy; the interval is part
// of their variants' keys.
ssd::ToolInt checkpointInterval(
    "checkpoint-interval",
    cl::desc("tokens between the checkpoints of checkpoint_slots.npy"),
    cl::value_desc("N"), cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-compile: %s\n", message.c_str());
  return 1;
}

using Options = ssd::aot::CompileRequest;

/// Checks the parsed flags and turns them into `o`, in the order their
/// errors are reported; false with a one-line message on any problem.
bool readOptions(Options &o, std::string &error) {
  o.inputs.assign(inputs.begin(), inputs.end());
  o.module = module;
  o.output = output;
  o.target = mlir::ssd::enumName(kAotTargetNames, target);
  o.chunkSize = chunkSize;
  o.headsPerBlock = headsPerBlock;
  o.pipelineStages = pipelineStages;
  o.cbInBlock = cbInBlock;
  o.invariant = invariant;
  if (!ssd::refuseChunkedChoices(
          invariant, {&headsPerBlock, &pipelineStages, &cbInBlock}, error))
    return false;
  if (std::optional<std::string> why = mlir::ssd::whyOutOfRange(
          "",
          {{"--chunk-size", chunkSize, mlir::ssd::kGPUChunkSizeRange},
           {"--heads-per-block", headsPerBlock, mlir::ssd::kHeadsPerBlockRange},
           {"--pipeline-stages", pipelineStages,
            mlir::ssd::kPipelineStagesRange}})) {
    error = *why;
    return false;
  }
  if (checkpointInterval.getNumOccurrences()) {
    if (checkpointInterval < 1) {
      error = "--checkpoint-interval must be at least 1, got " +
              std::to_string(checkpointInterval);
      return false;
    }
    o.checkpointInterval = checkpointInterval;
  }
  if (o.inputs.empty() == o.module.empty()) {
    error = o.inputs.empty()
                ? "at least one --inputs DIR or a --module FILE is required"
                : "--inputs and --module exclude each other";
    return false;
  }
  if (o.output.empty()) {
    error = "-o FILE.o is required";
    return false;
  }
  if (target == AotTarget::GPUEmulator && format.getNumOccurrences()) {
    error = "--format applies to --target cuda only (the GPU emulator's "
            "kernels are host shared objects)";
    return false;
  }
  o.chips.clear();
  for (mlir::ssd::GPUChip chip : chips) {
    if (llvm::is_contained(o.chips, chip)) {
      error = "--chip names " +
              mlir::ssd::enumName(mlir::ssd::kGPUChipNames, chip) + " twice";
      return false;
    }
    o.chips.push_back(chip);
  }
  if (o.chips.empty())
    o.chips = {mlir::ssd::kDefaultGPUChip};
  o.format = format;
  o.dtype = dtype;
  o.poolDType = poolDType;
  o.poolRounding = poolRounding;
  if (!o.module.empty() &&
      (poolDType.getNumOccurrences() || poolRounding.getNumOccurrences())) {
    error = "--pool-dtype and --pool-rounding apply to --inputs (a --module "
            "holds its own ops)";
    return false;
  }
  if (!ssd::checkPoolRoundingFlags(poolDType, poolRounding, error))
    return false;
  o.forms.clear();
  for (mlir::ssd::FormChoice f : forms)
    o.forms.push_back(mlir::ssd::enumName(mlir::ssd::kFormChoiceNames, f));
  if (o.forms.empty())
    o.forms = {"auto"};
  if (!o.module.empty() && o.forms.size() != 1) {
    error = "--module compiles one form; got --forms '" +
            llvm::join(o.forms, ",") + "'";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::parseToolCommandLine(
          argc, argv, category,
          "ahead-of-time compilation of ssd.chunk_scan_varlen ops for GPUs\n",
          error))
    return fail(error);
  Options o;
  if (!readOptions(o, error) || !ssd::aot::compileObject(o, error))
    return fail(error);
  return 0;
}
