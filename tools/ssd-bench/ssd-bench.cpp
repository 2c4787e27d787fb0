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
// ceilings); this file reads the flags (llvm::cl options; --help lists
// them).
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/Benchmark.h"
#include "ssd/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

cl::OptionCategory category("ssd-bench options");

cl::opt<std::string> dtype("dtype", cl::desc("model dtype: f32, f16 or bf16"),
                           cl::init("f32"), cl::cat(category));
cl::opt<std::string>
    model("model",
          cl::desc("the scan shapes of mamba2 (Mamba2-2.7B) or granite4 "
                   "(Granite-4)"),
          cl::cat(category));
cl::opt<bool> quick("quick", cl::desc("fewer and smaller default cases"),
                    cl::cat(category));
cl::opt<std::string> reps("reps", cl::desc("calls per case (best of)"),
                          cl::value_desc("N"), cl::cat(category));
cl::opt<std::string> chunkSize("chunk-size",
                               cl::desc("tokens per chunk of the chunked form"),
                               cl::value_desc("N"), cl::cat(category));
cl::opt<std::string> form("form", cl::desc("serial, chunked or both"),
                          cl::init("both"), cl::cat(category));
cl::list<std::string>
    cases("case",
          cl::desc("decode:B, verify:B or prefill:T, each with an optional "
                   "@I (a checkpoint every I tokens); repeatable"),
          cl::cat(category));
cl::opt<std::string> heads("H", cl::desc("heads"), cl::value_desc("n"),
                           cl::cat(category));
cl::opt<std::string> headDim("P", cl::desc("head dimension"),
                             cl::value_desc("n"), cl::cat(category));
cl::opt<std::string> stateDim("N", cl::desc("state dimension"),
                              cl::value_desc("n"), cl::cat(category));
cl::opt<std::string> groups("G", cl::desc("groups"), cl::value_desc("n"),
                            cl::cat(category));
cl::opt<std::string>
    cpu("cpu", cl::desc("the LLVM CPU to compile for (default: the host)"),
        cl::value_desc("NAME"), cl::cat(category));

int usage(const std::string &message) {
  std::fprintf(stderr, "ssd-bench: %s\n", message.c_str());
  std::fprintf(
      stderr,
      "usage: ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] "
      "[--quick] [--reps N] [--chunk-size N] "
      "[--form serial|chunked|both] [--case decode:B|verify:B|prefill:T[@I] "
      "...] "
      "[--H n] [--P n] [--N n] [--G n] [--cpu NAME]\n");
  return 1;
}

/// The value of a count flag, or 0 when it is not an integer >= 1.
long long count(const cl::opt<std::string> &flag) {
  long long n = std::atoll(flag.c_str());
  return n < 1 ? 0 : n;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::checkToolArguments(argc, argv, category, error))
    return usage(error);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "CPU benchmark of both forms of the ssd scan\n");

  ssd::BenchOptions o;
  if (!ssd::parseModelDType(dtype, o.dtype))
    return usage("--dtype takes f32, f16 or bf16");
  // The scan shapes of the two models the benchmark reports; --H, --P, --N
  // and --G below override them.
  if (model == "mamba2")
    o.H = 80, o.P = 64, o.N = 128, o.G = 1;
  else if (model == "granite4")
    o.H = 128, o.P = 64, o.N = 128, o.G = 1;
  else if (model.getNumOccurrences())
    return usage("--model takes mamba2 (Mamba2-2.7B) or granite4 (Granite-4)");
  if (cpu.getNumOccurrences() && cpu.empty())
    return usage("--cpu takes an LLVM CPU name (x86-64, x86-64-v3, ...)");
  o.cpu = cpu;
  if (form == "serial")
    o.forms = mlir::ssd::FormChoice::Serial;
  else if (form == "chunked")
    o.forms = mlir::ssd::FormChoice::Chunked;
  else if (form == "both")
    o.forms = mlir::ssd::FormChoice::Auto;
  else
    return usage("--form takes serial, chunked or both");
  for (const std::string &text : cases) {
    // The peer's syntax: decode:NSEQS, prefill:T; verify:NSEQS has 4
    // tokens per sequence. A suffix @I adds a state checkpoint every I
    // tokens (verify:16@1 is speculative decoding's one state per draft
    // token, prefill:8192@256 prefix caching's block states).
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
  }
  struct Count {
    const cl::opt<std::string> &flag;
    int64_t &into;
  };
  int64_t repsValue = o.reps;
  for (Count c : {Count{reps, repsValue}, Count{chunkSize, o.chunkSize},
                  Count{heads, o.H}, Count{headDim, o.P}, Count{stateDim, o.N},
                  Count{groups, o.G}}) {
    if (!c.flag.getNumOccurrences())
      continue;
    c.into = count(c.flag);
    if (!c.into)
      return usage("bad value for --" + c.flag.ArgStr.str());
  }
  o.reps = static_cast<int>(repsValue);
  if (o.H % o.G != 0)
    return usage("H must be a multiple of G");

  if (o.cases.empty())
    o.cases = ssd::defaultBenchCases(quick);
  if (!ssd::runBenchmark(o, error)) {
    std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
