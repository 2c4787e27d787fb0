//===- ssd-compile.cpp - ahead-of-time compilation of scan ops for GPUs ---===//
//
//   ssd-compile --inputs DIR [--inputs DIR ...] [--dtype f32|f16|bf16]
//               [--forms auto,serial,chunked] [--chunk-size N]
//               [--checkpoint-interval N] [--no-pair-heads]
//               [--target cuda|gpu-emu] [--chip sm_90a[,sm_80...]]
//               [--format isa|bin|fatbin] -o FILE.o
//   ssd-compile --module FILE.mlir [--forms F] [--chunk-size N]
//               [--no-pair-heads]
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
// --no-pair-heads keeps one head per chunk-kernel block where the lowering
// would put two (sm_90a, docs/gpu.md); the variants' keys end in
// `pair_heads=0`, so one executable can hold both and compare them
// (`ssd-aot-run --no-pair-heads`).
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
#include "ssd/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

namespace {

cl::OptionCategory category("ssd-compile options");

cl::list<std::string>
    inputs("inputs",
           cl::desc("folder of .npy operands whose signature to compile "
                    "(repeatable)"),
           cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> module("module",
                            cl::desc("a whole module to compile instead"),
                            cl::value_desc("FILE.mlir"), cl::cat(category));
cl::opt<std::string> dtype("dtype", cl::desc("model dtype: f32, f16 or bf16"),
                           cl::init("f32"), cl::cat(category));
cl::opt<std::string>
    forms("forms", cl::desc("comma-separated forms: auto, serial, chunked"),
          cl::init("auto"), cl::cat(category));
cl::opt<std::string>
    chips("chip", cl::desc("comma-separated GPUs: sm_80, ..., sm_90a"),
          cl::init(mlir::ssd::enumName(mlir::ssd::kGPUChipNames,
                                       mlir::ssd::kDefaultGPUChip)),
          cl::cat(category));
cl::opt<std::string>
    format("format", cl::desc("cuda: kernels as isa (PTX), bin or fatbin"),
           cl::init("isa"), cl::cat(category));
cl::opt<std::string> target("target", cl::desc("cuda or gpu-emu"),
                            cl::init("cuda"), cl::cat(category));
cl::opt<std::string> output("o", cl::desc("the host object to write"),
                            cl::value_desc("FILE.o"), cl::cat(category));
cl::opt<std::string> chunkSize("chunk-size",
                               cl::desc("tokens per chunk of the chunked form"),
                               cl::value_desc("N"), cl::cat(category));
cl::opt<bool>
    noPairHeads("no-pair-heads",
                cl::desc("one head per chunk-kernel block, also where two fit"),
                cl::cat(category));
// For the input directories with checkpoint_slots.npy; the interval is part
// of their variants' keys.
cl::opt<std::string> checkpointInterval(
    "checkpoint-interval",
    cl::desc("tokens between the checkpoints of checkpoint_slots.npy"),
    cl::value_desc("N"), cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-compile: %s\n", message.c_str());
  return 1;
}

using Options = ssd::aot::CompileRequest;

std::vector<std::string> split(const std::string &s);

/// Checks the parsed flags and turns them into `o`, in the order their
/// errors are reported; false with a one-line message on any problem.
bool readOptions(Options &o, std::string &error) {
  o.inputs.assign(inputs.begin(), inputs.end());
  o.module = module;
  o.output = output;
  o.target = target;
  o.pairHeads = !noPairHeads;
  if (chunkSize.getNumOccurrences()) {
    char *end = nullptr;
    o.chunkSize = std::strtoll(chunkSize.c_str(), &end, 10);
    if (chunkSize.empty() || *end || o.chunkSize < 1 ||
        o.chunkSize > mlir::ssd::kGPUChunkSizeMax) {
      error = "--chunk-size must be an integer in [1, " +
              std::to_string(mlir::ssd::kGPUChunkSizeMax) + "], got '" +
              chunkSize + "'";
      return false;
    }
  }
  if (checkpointInterval.getNumOccurrences()) {
    char *end = nullptr;
    errno = 0;
    o.checkpointInterval = std::strtoll(checkpointInterval.c_str(), &end, 10);
    if (checkpointInterval.empty() || *end || errno == ERANGE ||
        o.checkpointInterval < 1) {
      error = "--checkpoint-interval must be an integer >= 1, got '" +
              checkpointInterval + "'";
      return false;
    }
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
  if (o.target != "cuda" && o.target != "gpu-emu") {
    error = "unknown --target '" + o.target + "' (expected cuda or gpu-emu)";
    return false;
  }
  if (o.target == "gpu-emu" && format.getNumOccurrences()) {
    error = "--format applies to --target cuda only (the GPU emulator's "
            "kernels are host shared objects)";
    return false;
  }
  o.chips.clear();
  for (const std::string &chip : split(chips)) {
    mlir::ssd::GPUChip parsed;
    if (!mlir::ssd::parseEnumFlag(mlir::ssd::kGPUChipNames, "--chip", chip,
                                  parsed, error))
      return false;
    if (std::find(o.chips.begin(), o.chips.end(), parsed) != o.chips.end()) {
      error = "--chip names " + chip + " twice";
      return false;
    }
    o.chips.push_back(parsed);
  }
  if (format != "isa" && format != "bin" && format != "fatbin") {
    error = "unknown --format '" + format + "' (expected isa, bin or fatbin)";
    return false;
  }
  o.format = *mlir::ssd::parseEnumName(mlir::ssd::kBinaryFormatNames, format);
  if (!ssd::parseModelDTypeFlag("--dtype", dtype, o.dtype, error))
    return false;
  o.forms = split(forms);
  for (const std::string &f : o.forms)
    if (!mlir::ssd::parseEnumName(mlir::ssd::kFormChoiceNames, f)) {
      error = "unknown form '" + f +
              "' in --forms (expected auto, serial, chunked)";
      return false;
    }
  if (!o.module.empty() && o.forms.size() != 1) {
    error = "--module compiles one form; got --forms '" + forms + "'";
    return false;
  }
  return true;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos)
      end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::checkToolArguments(argc, argv, category, error))
    return fail(error);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "ahead-of-time compilation of ssd.chunk_scan_varlen ops for GPUs\n");
  Options o;
  if (!readOptions(o, error) || !ssd::aot::compileObject(o, error))
    return fail(error);
  return 0;
}
