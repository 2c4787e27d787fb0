//===- ssd-bench.cpp - CPU benchmark of both forms of the scan ------------===//
//
//   ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] [--quick]
//             [--reps N] [--chunk-size N] [--form serial|chunked|both]
//             [--case decode:B|verify:B|prefill:T[@I] ...]
//             [--H --P --N --G n]
//             [--cpu NAME]
//
// Times the serial and the chunked form on decode, verify and prefill cases
// (ssd/Execution/Benchmark.h has what is measured and against which
// ceilings); this file parses the flags.
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/Benchmark.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int usage(const char *message) {
  std::fprintf(stderr, "ssd-bench: %s\n", message);
  std::fprintf(
      stderr,
      "usage: ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] "
      "[--quick] [--reps N] [--chunk-size N] "
      "[--form serial|chunked|both] [--case decode:B|verify:B|prefill:T[@I] "
      "...] "
      "[--H n] [--P n] [--N n] [--G n] [--cpu NAME]\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  ssd::BenchOptions o;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--dtype") {
      const char *v = next();
      if (!v || !ssd::parseModelDType(v, o.dtype))
        return usage("--dtype takes f32, f16 or bf16");
    } else if (arg == "--model") {
      // The scan shapes of the two models the benchmark reports.
      const char *v = next();
      std::string model = v ? v : "";
      if (model == "mamba2")
        o.H = 80, o.P = 64, o.N = 128, o.G = 1;
      else if (model == "granite4")
        o.H = 128, o.P = 64, o.N = 128, o.G = 1;
      else
        return usage(
            "--model takes mamba2 (Mamba2-2.7B) or granite4 (Granite-4)");
    } else if (arg == "--cpu") {
      const char *v = next();
      if (!v || !*v)
        return usage("--cpu takes an LLVM CPU name (x86-64, x86-64-v3, ...)");
      o.cpu = v;
    } else if (arg == "--form") {
      const char *v = next();
      std::string form = v ? v : "";
      if (form == "serial")
        o.forms = mlir::ssd::FormChoice::Serial;
      else if (form == "chunked")
        o.forms = mlir::ssd::FormChoice::Chunked;
      else if (form == "both")
        o.forms = mlir::ssd::FormChoice::Auto;
      else
        return usage("--form takes serial, chunked or both");
    } else if (arg == "--case") {
      // The peer's syntax: decode:NSEQS, prefill:T; verify:NSEQS has 4
      // tokens per sequence. A suffix @I adds a state checkpoint every I
      // tokens (verify:16@1 is speculative decoding's one state per draft
      // token, prefill:8192@256 prefix caching's block states).
      const char *v = next();
      std::string text = v ? v : "";
      size_t colon = text.find(':');
      size_t at = text.find('@');
      std::string kind = text.substr(0, colon);
      char *end = nullptr;
      long long n = colon == std::string::npos
                        ? 0
                        : std::strtoll(text.c_str() + colon + 1, &end, 10);
      long long interval = 0;
      if (end && *end == '@')
        interval = std::strtoll(text.c_str() + at + 1, &end, 10);
      if (n < 1 || !end || *end != '\0' ||
          (at != std::string::npos && interval < 1) ||
          (kind != "decode" && kind != "verify" && kind != "prefill"))
        return usage("--case takes decode:B, verify:B or prefill:T, each "
                     "with an optional @I (a checkpoint every I tokens)");
      if (kind == "prefill")
        o.cases.push_back({kind, 1, n, interval});
      else
        o.cases.push_back({kind, n, kind == "decode" ? 1 : 4, interval});
    } else if (arg == "--reps" || arg == "--chunk-size" || arg == "--H" ||
               arg == "--P" || arg == "--N" || arg == "--G") {
      const char *v = next();
      long long n = v ? std::atoll(v) : 0;
      if (n < 1)
        return usage(("bad value for " + arg).c_str());
      if (arg == "--reps")
        o.reps = static_cast<int>(n);
      else if (arg == "--chunk-size")
        o.chunkSize = n;
      else
        (arg == "--H"   ? o.H
         : arg == "--P" ? o.P
         : arg == "--N" ? o.N
                        : o.G) = n;
    } else {
      return usage(("unknown flag '" + arg + "'").c_str());
    }
  }
  if (o.H % o.G != 0)
    return usage("H must be a multiple of G");

  if (o.cases.empty())
    o.cases = ssd::defaultBenchCases(quick);
  std::string error;
  if (!ssd::runBenchmark(o, error)) {
    std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
