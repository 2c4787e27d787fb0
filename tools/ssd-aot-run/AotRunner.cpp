//===- AotRunner.cpp - main of ahead-of-time compiled scan executables ----===//
//
// Linked with objects from ssd-compile (which register their variants through
// ssd_aot_register from global constructors), libSSDCudaRuntime.a and
// libSSDRunner.a, this is a program that runs the op on a GPU with nothing
// but the NVIDIA driver: no LLVM, no MLIR.
//
//   RUNNER --list
//   RUNNER --inputs DIR --outputs DIR [--dtype D] [--target cuda|reference]
//          [--form auto|serial|chunked] [--chunk-size N]
//   RUNNER --bench prefill|decode --like DIR [--dtype D] [--form F]
//          [--chunk-size N] [--reps N] [--max-tokens N]
//   RUNNER --cases FILE
//
// --cases runs many launches in one process (kernels are loaded once, at
// start-up): each line of FILE is the flags of one run, e.g.
// `--inputs a --outputs b --dtype bf16 --target cuda --form serial`; each
// prints its summary line or its error, and the exit code counts failures.
//
// Input handling, errors and outputs are those of ssd-run.
//
//===----------------------------------------------------------------------===//

#include "AotRegistry.h"
#include "ssd/GPURuntime/CudaRuntime.h"
#include "ssd/GPURuntime/DeviceCall.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"
#include "ssd/Runner/Synthetic.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using ssd::aot::Variant;
using ssd::aot::variants;

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-aot-run: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string inputs, outputs, like, bench, cases, dtype = "f32",
                                                      target = "cuda",
                                                      form = "auto";
  int64_t chunkSize = 256, reps = 5, maxTokens = 65536;
  bool list = false;
};

bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--list") {
      o.list = true;
      continue;
    }
    std::map<std::string, std::string *> text = {
        {"--inputs", &o.inputs}, {"--outputs", &o.outputs},
        {"--like", &o.like},     {"--bench", &o.bench},
        {"--dtype", &o.dtype},   {"--target", &o.target},
        {"--form", &o.form},     {"--cases", &o.cases}};
    std::map<std::string, int64_t *> numbers = {{"--chunk-size", &o.chunkSize},
                                                {"--reps", &o.reps},
                                                {"--max-tokens", &o.maxTokens}};
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
  return true;
}

std::string variantKey(const ssd::ScanProblem &p, const Options &o) {
  return ssd::signatureKey(p) + " form=" + o.form +
         " chunk=" + std::to_string(o.chunkSize);
}

const Variant *findVariant(const ssd::ScanProblem &p, const Options &o,
                           std::string &error) {
  const Variant *v = ssd::aot::lookup(variantKey(p, o));
  if (!v)
    error = "no kernel compiled for '" + variantKey(p, o) +
            "' (see --list; compile it with ssd-compile)";
  return v;
}

bool runVariant(const Variant &v, ssd::HostOperands &operands, double &seconds,
                std::string &error) {
  return ssd::runOnDevice(
      ssd::cuda::deviceRuntime(), operands,
      [&](std::vector<void *> &d, std::string &error) {
        return ssd::callCInterface(v.function, d, error);
      },
      seconds, error);
}

/// Best-of-reps device-to-device copy bandwidth in bytes/s over `bytes`.
bool copyBandwidth(size_t bytes, int reps, double &bandwidth,
                   std::string &error) {
  void *a = ssd::cuda::allocate(bytes, error), *b = a ? ssd::cuda::allocate(bytes, error) : nullptr;
  if (!a || !b)
    return false;
  double best = 1e30;
  for (int r = 0; r < reps + 1; ++r) {
    if (!ssd::cuda::synchronize(error))
      return false;
    auto start = std::chrono::steady_clock::now();
    if (!ssd::cuda::copyDeviceToDevice(b, a, bytes, error) ||
        !ssd::cuda::synchronize(error))
      return false;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r)
      best = std::min(best, s);
  }
  ssd::cuda::release(a);
  ssd::cuda::release(b);
  // A copy reads and writes every byte.
  bandwidth = 2.0 * bytes / best;
  return true;
}

int bench(const Options &o, ssd::ModelDType dtype) {
  std::string error;
  ssd::ScanProblem like;
  if (!ssd::loadProblem(o.like, dtype, like, error))
    return fail(error);
  const Variant *v = findVariant(like, o, error);
  if (!v)
    return fail(error);
  if (!ssd::cuda::initialize(error))
    return fail(error);
  double copyBW = 0;
  if (!copyBandwidth(size_t(1) << 30, 5, copyBW, error))
    return fail(error);
  // bf16 tensor-core peak measured on an H200 (docs/performance.md); the
  // roofline takes the slower of compute and memory at the measured copy
  // bandwidth.
  const double peakFlops = 790e12;
  std::printf("ssd-aot-run bench %s: %s on %s\n", o.bench.c_str(),
              variantKey(like, o).c_str(), ssd::cuda::describeDevice().c_str());
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
    return fail("unknown --bench '" + o.bench + "' (expected prefill or decode)");
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
      double flops = ssd::chunkedFlops(p, o.chunkSize);
      double roofline = std::max(flops / peakFlops, bytes / copyBW);
      std::printf("%8lld %6lld %10.3f %12.2f %9.1f %8.1f%%\n",
                  (long long)p.T, (long long)p.batch, best * 1e3,
                  p.T / best / 1e6, flops / best / 1e12,
                  100.0 * roofline / best);
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

/// Splits a line of a --cases file into flags (no quoting: paths without
/// spaces).
std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> result;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
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
    for (auto &[key, v] : variants())
      std::printf("%s (%d operands)\n", key.c_str(), v.operands);
    return 0;
  }
  if (!o.cases.empty())
    return runCases(o.cases);
  return runOne(o);
}

namespace {
int runOne(const Options &o) {
  std::string error;
  ssd::ModelDType dtype;
  if (!ssd::parseModelDType(o.dtype, dtype))
    return fail("unknown --dtype '" + o.dtype + "' (expected f32, f16 or bf16)");
  if (o.form != "auto" && o.form != "serial" && o.form != "chunked")
    return fail("unknown --form '" + o.form + "' (expected auto, chunked or serial)");
  if (!o.bench.empty())
    return bench(o, dtype);
  if (o.inputs.empty() || o.outputs.empty())
    return fail("--inputs DIR and --outputs DIR are required");
  if (o.target != "cuda" && o.target != "reference")
    return fail("unknown --target '" + o.target + "' (expected cuda or reference)");

  ssd::ScanProblem problem;
  if (!ssd::loadProblem(o.inputs, dtype, problem, error))
    return fail(error);
  std::vector<float> y, pool;
  double seconds = 0;
  if (o.target == "reference") {
    std::vector<double> yRef, poolRef;
    ssd::referenceScan(problem, yRef, poolRef);
    ssd::roundOutputs(problem, yRef, poolRef, y, pool);
  } else {
    const Variant *v = findVariant(problem, o, error);
    if (!v)
      return fail(error);
    ssd::HostOperands operands(problem);
    if (!runVariant(*v, operands, seconds, error))
      return fail("--target cuda: " + error);
    operands.readOutputs(y, pool);
  }
  if (!ssd::writeOutputs(o.outputs, problem, y, pool, error))
    return fail(error);
  std::printf("ssd-aot-run: %s form=%s dtype=%s T=%lld batch=%lld time=%.3f ms\n",
              o.target.c_str(), o.form.c_str(), ssd::toString(dtype),
              (long long)problem.T, (long long)problem.batch, seconds * 1e3);
  std::fflush(stdout);
  return 0;
}
} // namespace
