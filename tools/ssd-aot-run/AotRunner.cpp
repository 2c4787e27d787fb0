//===- AotRunner.cpp - main of ahead-of-time compiled scan executables ----===//
//
// Linked with objects from ssd-compile (which register their variants through
// ssd_aot_register_chip_variant from global constructors), a device selection
// library and its runtime, and libSSDRunner.a, this is a program that runs
// the op without LLVM or MLIR (AotDevice.h):
//
//   kernels.o libSSDAotRunner.a libSSDAotCudaDevice.a libSSDCudaRuntime.a
//       libSSDRunner.a -ldl            on a GPU, needing only the NVIDIA driver
//   kernels.o libSSDAotRunner.a libSSDAotEmulatorDevice.a
//       libSSDGPUEmulatorRuntime.so libSSDRunner.a
//                                      on the GPU emulator (objects of
//                                      `ssd-compile --target gpu-emu`)
//
//   RUNNER --list
//   RUNNER --inputs DIR --outputs DIR [--dtype D]
//          [--target cuda|gpu-emu|reference] [--form auto|serial|chunked]
//          [--chunk-size N] [--checkpoint-interval N] [--heads-per-block N]
//          [--pipeline-stages N] [--cb-in-block] [--invariant] [--pool-dtype
//          f32|bf16|f16|f8e4m3|i8]
//          [--pool-rounding nearest|stochastic --rounding-seed N]
//   RUNNER --bench prefill|decode --like DIR [--dtype D] [--form F]
//          [--chunk-size N] [--reps N] [--max-tokens N] [--heads-per-block N]
//          [--pipeline-stages N] [--cb-in-block] [--invariant]
//   RUNNER --call module:NAME --input FILE --output FILE --output-bytes N
//   RUNNER --cases FILE
//
// --target defaults to the linked runtime; naming the other one is an error.
// Every summary line names the runtime that ran (`ssd-aot-run: gpu-emu
// form=serial ...`) and, on a device, the chip of the variant chosen for it
// (`chip=sm_90a`: objects of `ssd-compile --chip sm_80,sm_90a` hold one per
// chip; AotRegistry.h's select picks by the device's compute capability).
//
// --heads-per-block N picks the variants compiled with `ssd-compile
// --heads-per-block N` (1: one head per chunk-kernel block), and
// --pipeline-stages N those compiled with `ssd-compile --pipeline-stages N`
// (3 unless told otherwise), and --cb-in-block those compiled with
// `ssd-compile --cb-in-block`.
//
// --pool-dtype and --pool-rounding pick the variants compiled with the same
// flags of ssd-compile (their keys name them); the seed is an operand, so
// one variant serves every --rounding-seed. The pool files are ssd-run's.
//
// --invariant picks the variants compiled with `ssd-compile --invariant`
// (their keys end in ` invariant`); it takes no --heads-per-block,
// --pipeline-stages or --cb-in-block.
//
// --cases runs many launches in one process (kernels are loaded once, at
// start-up): each line of FILE is the flags of one run, e.g.
// `--inputs a --outputs b --dtype bf16 --form serial`; each prints its
// summary line or its error, and the exit code counts failures.
//
// --call runs a function of `ssd-compile --module` whose signature is
// `(memref<?xi32> in, memref<?xi32> out)` (the GPU check's probes): FILE's
// bytes are copied to a device buffer `in`, `out` is a device buffer of N
// bytes (initially 0xff bytes), and its bytes are written raw to the output
// file.
//
// Input handling, errors and outputs are those of ssd-run.
//
//===----------------------------------------------------------------------===//

#include "AotDevice.h"
#include "AotRegistry.h"
#include "ssd/GPURuntime/DeviceCall.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"
#include "ssd/Runner/Synthetic.h"
#include "ssd/Transforms/FormSelection.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using ssd::aot::Variant;
using ssd::aot::variants;

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-aot-run: %s\n", message.c_str());
  return 1;
}

const ssd::DeviceRuntime &device() { return ssd::aot::deviceRuntime(); }

struct Options {
  std::string inputs, outputs, like, bench, cases, call, input, output,
      dtype = "f32", target, poolDType = "f32", poolRounding = "nearest",
      roundingSeed;
  int64_t reps = 5, maxTokens = 65536, outputBytes = 0, checkpointInterval = 0;
  bool list = false;
  /// Which compiled variant to run: --form, --chunk-size, --heads-per-block,
  /// --pipeline-stages, --cb-in-block and --invariant, as ssd-compile built
  /// it.
  ssd::VariantChoices variant;
  /// The chunked kernels' choice given on the command line, if any.
  std::string chunkedChoiceGiven;
};

/// Parses the command line by hand, unlike the other tools' llvm::cl: an
/// ahead-of-time executable links neither LLVM nor MLIR (it needs only the
/// NVIDIA driver), and llvm::cl would make LLVM a dependency of each.
bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--list") {
      o.list = true;
      continue;
    }
    if (arg == "--invariant") {
      o.variant.invariant = true;
      continue;
    }
    if (arg == "--heads-per-block" || arg == "--pipeline-stages" ||
        arg == "--cb-in-block")
      o.chunkedChoiceGiven = arg;
    if (arg == "--cb-in-block") {
      o.variant.cbInBlock = true;
      continue;
    }
    std::map<std::string, std::string *> text = {
        {"--inputs", &o.inputs},
        {"--outputs", &o.outputs},
        {"--like", &o.like},
        {"--bench", &o.bench},
        {"--dtype", &o.dtype},
        {"--target", &o.target},
        {"--form", &o.variant.form},
        {"--cases", &o.cases},
        {"--call", &o.call},
        {"--input", &o.input},
        {"--output", &o.output},
        {"--pool-dtype", &o.poolDType},
        {"--pool-rounding", &o.poolRounding},
        {"--rounding-seed", &o.roundingSeed}};
    std::map<std::string, int64_t *> numbers = {
        {"--chunk-size", &o.variant.chunkSize},
        {"--reps", &o.reps},
        {"--max-tokens", &o.maxTokens},
        {"--output-bytes", &o.outputBytes},
        {"--checkpoint-interval", &o.checkpointInterval},
        {"--heads-per-block", &o.variant.headsPerBlock},
        {"--pipeline-stages", &o.variant.pipelineStages}};
    if (i + 1 >= argc || (!text.count(arg) && !numbers.count(arg))) {
      error = text.count(arg) || numbers.count(arg)
                  ? "flag '" + arg + "' needs a value"
                  : "unknown flag '" + arg + "'";
      return false;
    }
    std::string value = argv[++i];
    if (text.count(arg)) {
      *text[arg] = value;
      continue;
    }
    char *end = nullptr;
    long long n = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || n < 1) {
      error = arg + " must be a positive integer, got '" + value + "'";
      return false;
    }
    *numbers[arg] = n;
  }
  if (o.roundingSeed.empty() != (o.poolRounding != "stochastic")) {
    error = o.roundingSeed.empty() ? "--pool-rounding stochastic needs "
                                     "--rounding-seed N"
                                   : "--rounding-seed needs --pool-rounding "
                                     "stochastic";
    return false;
  }
  if (o.variant.invariant && !o.chunkedChoiceGiven.empty()) {
    error =
        "--invariant runs the serial GPU kernel only: " + o.chunkedChoiceGiven +
        " (a chunked kernel's choice) does not apply";
    return false;
  }
  // The same ranges as the compiler's (one table, SettingRanges.h).
  error = mlir::ssd::whyOutOfRange(
      "", "--chunk-size", mlir::ssd::kGPUChunkSizeRange, o.variant.chunkSize);
  if (error.empty())
    error = mlir::ssd::whyOutOfRange("", "--heads-per-block",
                                     mlir::ssd::kHeadsPerBlockRange,
                                     o.variant.headsPerBlock);
  if (error.empty())
    error = mlir::ssd::whyOutOfRange("", "--pipeline-stages",
                                     mlir::ssd::kPipelineStagesRange,
                                     o.variant.pipelineStages);
  return error.empty();
}

/// --pool-dtype, --pool-rounding and --rounding-seed, checked as ssd-run
/// checks them.
bool poolOptions(const Options &o, ssd::PoolDType &poolDType,
                 ssd::PoolRounding &rounding, int64_t &seed,
                 std::string &error) {
  if (!ssd::parsePoolDTypeFlag("--pool-dtype", o.poolDType, poolDType, error))
    return false;
  std::optional<ssd::PoolRounding> parsed =
      mlir::ssd::parseEnumName(ssd::kPoolRoundingNames, o.poolRounding);
  if (!parsed) {
    error = "unknown --pool-rounding '" + o.poolRounding +
            "' (expected nearest or stochastic)";
    return false;
  }
  rounding = *parsed;
  seed = 0;
  if (rounding != ssd::PoolRounding::Stochastic)
    return true;
  if (!ssd::checkPoolRoundingFlags(poolDType, rounding, error))
    return false;
  errno = 0;
  char *end = nullptr;
  long long n = std::strtoll(o.roundingSeed.c_str(), &end, 10);
  if (o.roundingSeed.empty() || *end || errno == ERANGE) {
    error = "--rounding-seed must be an integer, got '" + o.roundingSeed + "'";
    return false;
  }
  seed = n;
  return true;
}

std::string variantKey(const ssd::ScanProblem &p, const Options &o) {
  return ssd::variantKey(p, o.variant);
}

const Variant *findVariant(const ssd::ScanProblem &p, const Options &o,
                           std::string &error) {
  std::string key = variantKey(p, o);
  if (!ssd::aot::lookup(key)) {
    error = "no kernel compiled for '" + key +
            "' (see --list; compile it with ssd-compile)";
    return nullptr;
  }
  return ssd::aot::select(key, error);
}

bool runVariant(const Variant &v, ssd::HostOperands &operands, double &seconds,
                std::string &error) {
  bool ok = ssd::runOnDevice(
      device(), operands,
      [&](std::vector<void *> &d, std::string &error) {
        return ssd::callCInterface(v.function, d, error);
      },
      seconds, error);
  if (!ok)
    device().takeError(); // the next run of --cases starts clean
  return ok;
}

/// Best-of-reps device-to-device copy bandwidth in bytes/s over `bytes`.
bool copyBandwidth(size_t bytes, int reps, double &bandwidth,
                   std::string &error) {
  const ssd::DeviceRuntime &rt = device();
  void *a = rt.allocate(bytes, error),
       *b = a ? rt.allocate(bytes, error) : nullptr;
  if (!a || !b) {
    if (a)
      rt.release(a);
    return false;
  }
  double best = 1e30;
  for (int r = 0; r < reps + 1; ++r) {
    if (!rt.synchronize(error))
      return false;
    auto start = std::chrono::steady_clock::now();
    if (!rt.copyDeviceToDevice(b, a, bytes, error) || !rt.synchronize(error))
      return false;
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (r)
      best = std::min(best, s);
  }
  rt.release(a);
  rt.release(b);
  // A copy reads and writes every byte.
  bandwidth = 2.0 * bytes / best;
  return true;
}

int bench(const Options &o, ssd::ModelDType dtype) {
  std::string error;
  if (o.poolDType != "f32" || o.poolRounding != "nearest")
    return fail("--bench runs f32 pools; --pool-dtype and --pool-rounding "
                "apply to --inputs runs");
  // The benchmark's launches are synthetic, without checkpoints.
  if (std::string path = ssd::checkpointSlotsPath(o.like); !path.empty())
    return fail(path + ": --bench runs launches without checkpoints; give "
                       "--like a directory without checkpoint_slots.npy");
  ssd::ScanProblem like;
  if (!ssd::loadProblem(o.like, dtype, like, error))
    return fail(error);
  const Variant *v = findVariant(like, o, error);
  if (!v)
    return fail(error);
  if (!device().initialize(error))
    return fail(error);
  double copyBW = 0;
  if (!copyBandwidth(size_t(1) << 30, 5, copyBW, error))
    return fail(error);
  // bf16 tensor-core peak measured on an H200 (docs/performance.md); the
  // roofline takes the slower of compute and memory at the measured copy
  // bandwidth.
  const double peakFlops = 790e12;
  std::printf("ssd-aot-run bench %s: %s on %s, chip=%s\n", o.bench.c_str(),
              variantKey(like, o).c_str(), device().describeDevice().c_str(),
              v->chip.c_str());
  std::printf("device-to-device copy: %.1f GB/s\n", copyBW / 1e9);

  struct Case {
    int64_t batch, length;
  };
  std::vector<Case> cases;
  if (o.bench == "prefill") {
    for (int64_t batch : {1, 8})
      for (int64_t tokens = 8192; tokens <= o.maxTokens; tokens *= 2)
        cases.push_back({batch, tokens / batch});
    std::printf("%8s %6s %10s %12s %9s %9s\n", "T", "batch", "ms", "Mtok/s",
                "TFLOP/s", "roofline");
  } else if (o.bench == "decode") {
    for (int64_t batch : {1, 8, 32, 64, 128, 256})
      cases.push_back({batch, 1});
    std::printf("%8s %6s %10s %9s %12s\n", "T", "batch", "ms", "GB/s",
                "vs copy");
  } else {
    return fail("unknown --bench '" + o.bench +
                "' (expected prefill or decode)");
  }
  for (const Case &c : cases) {
    ssd::ScanProblem p = ssd::makeSyntheticProblem(like, c.batch, c.length, 7);
    double best = 1e30;
    for (int64_t r = 0; r < o.reps + 1; ++r) {
      ssd::HostOperands operands(p);
      double seconds;
      if (!runVariant(*v, operands, seconds, error))
        return fail(error);
      if (r) // the first call warms up (module JIT, caches)
        best = std::min(best, seconds);
    }
    double bytes = ssd::minimumBytesMoved(p);
    if (o.bench == "prefill") {
      double flops = ssd::chunkedFlops(p, o.variant.chunkSize);
      double roofline = std::max(flops / peakFlops, bytes / copyBW);
      std::printf("%8lld %6lld %10.3f %12.2f %9.1f %8.1f%%\n", (long long)p.T,
                  (long long)p.batch, best * 1e3, p.T / best / 1e6,
                  flops / best / 1e12, 100.0 * roofline / best);
    } else {
      std::printf("%8lld %6lld %10.4f %9.1f %11.1f%%\n", (long long)p.T,
                  (long long)p.batch, best * 1e3, bytes / best / 1e9,
                  100.0 * (bytes / best) / copyBW);
    }
    std::fflush(stdout);
  }
  return 0;
}

int runOne(const Options &o);

/// --call: a `(memref<?xi32> in, memref<?xi32> out)` function of a --module.
int call(const Options &o) {
  if (o.input.empty() || o.output.empty() || o.outputBytes <= 0 ||
      o.outputBytes % 4)
    return fail("--call needs --input FILE, --output FILE and --output-bytes "
                "N (a positive multiple of 4)");
  std::string error;
  if (!ssd::aot::lookup(o.call))
    return fail("no function registered as '" + o.call +
                "' (see --list; compile it with ssd-compile --module)");
  const Variant *v = ssd::aot::select(o.call, error);
  if (!v)
    return fail(error);
  if (v->operands != 2)
    return fail(o.call + " takes " + std::to_string(v->operands) +
                " operands; --call runs (memref<?xi32> in, memref<?xi32> out)");
  std::ifstream in(o.input, std::ios::binary);
  if (!in)
    return fail(o.input + ": cannot read");
  std::vector<char> input((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  if (input.empty() || input.size() % 4)
    return fail(o.input + ": expected a non-empty multiple of 4 bytes, got " +
                std::to_string(input.size()));
  std::vector<char> output(size_t(o.outputBytes), char(0xff));

  const ssd::DeviceRuntime &rt = device();
  if (!rt.initialize(error))
    return fail("--target " + std::string(rt.name) + ": " + error);
  void *dIn = rt.allocate(input.size(), error);
  void *dOut = dIn ? rt.allocate(output.size(), error) : nullptr;
  struct Release {
    const ssd::DeviceRuntime &rt;
    void *a, *b;
    ~Release() {
      if (a)
        rt.release(a);
      if (b)
        rt.release(b);
    }
  } release{rt, dIn, dOut};
  if (!dIn || !dOut ||
      !rt.copyToDevice(dIn, input.data(), input.size(), error) ||
      !rt.copyToDevice(dOut, output.data(), output.size(), error))
    return fail(error);
  // Rank-1 descriptors: allocated, aligned, offset, size, stride.
  std::vector<int64_t> inDesc = {int64_t(dIn), int64_t(dIn), 0,
                                 int64_t(input.size() / 4), 1};
  std::vector<int64_t> outDesc = {int64_t(dOut), int64_t(dOut), 0,
                                  int64_t(output.size() / 4), 1};
  rt.takeError(); // start from a clean slate
  reinterpret_cast<void (*)(void *, void *)>(v->function)(inDesc.data(),
                                                          outDesc.data());
  if (!rt.synchronize(error))
    return fail("the kernels failed: " + error);
  std::string late = rt.takeError();
  if (!late.empty())
    return fail("the call failed: " + late);
  if (!rt.copyToHost(output.data(), dOut, output.size(), error))
    return fail(error);
  std::ofstream out(o.output, std::ios::binary);
  if (!out.write(output.data(), std::streamsize(output.size())) || !out.flush())
    return fail(o.output + ": cannot write");
  std::printf("ssd-aot-run: %s call %s: %zu bytes in, %zu bytes out, chip=%s\n",
              rt.name, o.call.c_str(), input.size(), output.size(),
              v->chip.c_str());
  return 0;
}

/// Splits a line of a --cases file into flags (no quoting: paths without
/// spaces).
std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> result;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t start = i;
    while (i < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i > start)
      result.push_back(line.substr(start, i - start));
  }
  return result;
}

int runCases(const std::string &file) {
  FILE *f = std::fopen(file.c_str(), "r");
  if (!f)
    return fail(file + ": cannot open the cases file");
  int failures = 0, total = 0;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), f)) {
    std::vector<std::string> flags = words(buffer);
    if (flags.empty() || flags[0][0] == '#')
      continue;
    std::vector<char *> argv = {const_cast<char *>("ssd-aot-run")};
    for (std::string &w : flags)
      argv.push_back(w.data());
    Options o;
    std::string error;
    ++total;
    if (!parseArgs(static_cast<int>(argv.size()), argv.data(), o, error)) {
      fail(error);
      ++failures;
      continue;
    }
    failures += runOne(o) != 0;
  }
  std::fclose(f);
  std::printf("ssd-aot-run: %d cases, %d failed\n", total, failures);
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error))
    return fail(error);
  if (o.list) {
    std::printf("ssd-aot-run: runs on %s (%s)\n", device().name,
                ssd::aot::deviceLibrary());
    for (auto &[key, list] : variants())
      for (const Variant &v : list)
        std::printf("%s (%d operands, %s, %s %s)\n", key.c_str(), v.operands,
                    v.target.c_str(), v.chip.c_str(), v.format.c_str());
    return 0;
  }
  if (!o.cases.empty())
    return runCases(o.cases);
  if (!o.call.empty())
    return call(o);
  return runOne(o);
}

namespace {
int runOne(const Options &o) {
  std::string error;
  ssd::ModelDType dtype;
  mlir::ssd::FormChoice form;
  if (!ssd::parseModelDTypeFlag("--dtype", o.dtype, dtype, error) ||
      !mlir::ssd::parseEnumFlag(mlir::ssd::kFormChoiceNames, "--form",
                                o.variant.form, form, error))
    return fail(error);
  if (!o.bench.empty())
    return bench(o, dtype);
  if (o.inputs.empty() || o.outputs.empty())
    return fail("--inputs DIR and --outputs DIR are required");
  const std::string linked = device().name;
  const std::string target = o.target.empty() ? linked : o.target;
  if (target != "cuda" && target != "gpu-emu" && target != "reference")
    return fail("unknown --target '" + target +
                "' (expected cuda, gpu-emu or reference)");
  if (target != "reference" && target != linked)
    return fail("--target " + target + ": this executable runs on " + linked +
                " (linked with " + ssd::aot::deviceLibrary() + ")");
  const bool defaultHeads =
      o.variant.headsPerBlock == mlir::ssd::kDefaultHeadsPerBlock;
  const bool defaultStages =
      o.variant.pipelineStages == mlir::ssd::kDefaultPipelineStages;
  if (target == "reference" && !defaultHeads)
    return fail("--heads-per-block needs --target cuda or gpu-emu");
  if (target == "reference" && !defaultStages)
    return fail("--pipeline-stages needs --target cuda or gpu-emu");
  if (target == "reference" && o.variant.cbInBlock)
    return fail("--cb-in-block needs --target cuda or gpu-emu");

  ssd::PoolDType poolDType;
  ssd::PoolRounding rounding;
  int64_t seed;
  if (!poolOptions(o, poolDType, rounding, seed, error))
    return fail(error);
  ssd::ScanProblem problem;
  if (!ssd::loadProblem(o.inputs, dtype, problem, error, poolDType,
                        o.checkpointInterval))
    return fail(error);
  problem.poolRounding = rounding;
  problem.roundingSeed = seed;
  std::vector<float> y;
  ssd::PoolContents pool;
  double seconds = 0;
  std::string chip; // the variant's, on a device
  if (target == "reference") {
    std::vector<double> yRef;
    if (!ssd::referenceScan(problem, yRef, pool, &error))
      return fail(error);
    y.resize(yRef.size());
    for (size_t i = 0; i < yRef.size(); ++i)
      y[i] = ssd::roundDoubleToModelDType(yRef[i], problem.dtype);
  } else {
    const Variant *v = findVariant(problem, o, error);
    if (!v)
      return fail(error);
    chip = " chip=" + v->chip;
    ssd::HostOperands operands(problem);
    if (!runVariant(*v, operands, seconds, error))
      return fail("--target " + target + ": " + error);
    operands.readOutputs(y, pool);
  }
  if (!ssd::writeOutputs(o.outputs, problem, y, pool, error))
    return fail(error);
  std::string chunkedChoices;
  if (!defaultHeads)
    chunkedChoices +=
        " heads_per_block=" + std::to_string(o.variant.headsPerBlock);
  if (!defaultStages)
    chunkedChoices +=
        " pipeline_stages=" + std::to_string(o.variant.pipelineStages);
  if (o.variant.cbInBlock)
    chunkedChoices += " cb_in_block";
  std::printf(
      "ssd-aot-run: %s form=%s%s%s dtype=%s%s T=%lld batch=%lld%s time=%.3f "
      "ms\n",
      target.c_str(), o.variant.form.c_str(), chunkedChoices.c_str(),
      o.variant.invariant ? " invariant" : "", ssd::toString(dtype),
      poolDType == ssd::PoolDType::F32
          ? ""
          : (std::string(" pool=") + ssd::toString(poolDType) +
             (rounding == ssd::PoolRounding::Stochastic
                  ? " rounding=stochastic seed=" + std::to_string(seed)
                  : ""))
                .c_str(),
      (long long)problem.T, (long long)problem.batch, chip.c_str(),
      seconds * 1e3);
  std::fflush(stdout);
  return 0;
}
} // namespace
