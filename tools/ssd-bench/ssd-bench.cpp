//===- ssd-bench.cpp - CPU benchmark of both forms of the scan ------------===//
//
//   ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] [--quick]
//             [--reps N] [--chunk-size N] [--form serial|chunked|both]
//             [--case decode:B|verify:B|prefill:T[@I]|tree:B|pools:B ...]
//             [--H --P --N --G n]
//             [--cpu NAME] [--invariant]
//
// Times the serial and the chunked form on decode, verify and prefill cases
// (ssd/Execution/Benchmark.h has what is measured and against which
// ceilings); this file reads the flags (llvm::cl options; --help lists
// them).
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/Benchmark.h"
#include "ssd/Support/EnumOption.h"
#include "ssd/Support/SettingRanges.h"
#include "ssd/Support/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

/// The models whose scan shapes the benchmark reports.
enum class BenchModel { None, Mamba2, Granite4 };

constexpr mlir::ssd::EnumName<BenchModel> kBenchModelNames[] = {
    {BenchModel::Mamba2, "mamba2", "Mamba2-2.7B: H 80, P 64, N 128, G 1"},
    {BenchModel::Granite4, "granite4", "Granite-4: H 128, P 64, N 128, G 1"},
};
/// The forms timed: serial, chunked or both (FormChoice::Auto).
constexpr mlir::ssd::EnumName<mlir::ssd::FormChoice> kBenchFormNames[] = {
    {mlir::ssd::FormChoice::Serial, "serial", "the serial form"},
    {mlir::ssd::FormChoice::Chunked, "chunked", "the chunked form"},
    {mlir::ssd::FormChoice::Auto, "both",
     "both forms, and which one auto picks"},
};

cl::OptionCategory category("ssd-bench options");

ssd::ToolEnum<ssd::ModelDType>
    dtype("dtype", cl::desc("model dtype"), cl::init(ssd::ModelDType::F32),
          mlir::ssd::EnumValues{ssd::kModelDTypeNames}, cl::cat(category));
ssd::ToolEnum<BenchModel> model("model",
                                cl::desc("the scan shapes of a model (--H, "
                                         "--P, --N and --G override them)"),
                                cl::init(BenchModel::None),
                                mlir::ssd::EnumValues{kBenchModelNames},
                                cl::cat(category));
cl::opt<bool> quick("quick", cl::desc("fewer and smaller default cases"),
                    cl::cat(category));
ssd::ToolInt reps("reps", cl::desc("calls per case (best of)"),
                  cl::value_desc("N"), cl::cat(category));
ssd::ToolInt chunkSize("chunk-size",
                       cl::desc("tokens per chunk of the chunked form, 1 to "
                                "65536"),
                       cl::value_desc("N"), cl::cat(category));
ssd::ToolEnum<mlir::ssd::FormChoice>
    form("form", cl::desc("the forms timed"),
         cl::init(mlir::ssd::FormChoice::Auto),
         mlir::ssd::EnumValues{kBenchFormNames}, cl::cat(category));
cl::list<std::string>
    cases("case",
          cl::desc("decode:B, verify:B or prefill:T, each with an optional "
                   "@I (a checkpoint every I tokens), tree:B (B 16-node "
                   "draft trees) or pools:B (decode with each pool type); "
                   "repeatable"),
          cl::cat(category));
ssd::ToolInt heads("H", cl::desc("heads"), cl::value_desc("n"),
                   cl::cat(category));
ssd::ToolInt headDim("P", cl::desc("head dimension"), cl::value_desc("n"),
                     cl::cat(category));
ssd::ToolInt stateDim("N", cl::desc("state dimension"), cl::value_desc("n"),
                      cl::cat(category));
ssd::ToolInt groups("G", cl::desc("groups"), cl::value_desc("n"),
                    cl::cat(category));
cl::opt<std::string>
    cpu("cpu", cl::desc("the LLVM CPU to compile for (default: the host)"),
        cl::value_desc("NAME"), cl::cat(category));
cl::opt<bool> invariant("invariant",
                        cl::desc("also time invariant ops (one loop nest for "
                                 "both forms) against the default forms"),
                        cl::cat(category));

int usage(const std::string &message) {
  std::fprintf(stderr, "ssd-bench: %s\n", message.c_str());
  std::fprintf(
      stderr,
      "usage: ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] "
      "[--quick] [--reps N] [--chunk-size N] "
      "[--form serial|chunked|both] [--case "
      "decode:B|verify:B|prefill:T[@I]|tree:B|pools:B "
      "...] "
      "[--H n] [--P n] [--N n] [--G n] [--cpu NAME] [--invariant]\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string error;
  if (!ssd::parseToolCommandLine(
          argc, argv, category, "CPU benchmark of both forms of the ssd scan\n",
          error))
    return usage(error);

  ssd::BenchOptions o;
  o.dtype = dtype;
  // The scan shapes of the two models the benchmark reports; --H, --P, --N
  // and --G below override them.
  if (model == BenchModel::Mamba2)
    o.H = 80, o.P = 64, o.N = 128, o.G = 1;
  else if (model == BenchModel::Granite4)
    o.H = 128, o.P = 64, o.N = 128, o.G = 1;
  if (cpu.getNumOccurrences() && cpu.empty())
    return usage("--cpu takes an LLVM CPU name (x86-64, x86-64-v3, ...)");
  o.cpu = cpu;
  o.invariant = invariant;
  o.forms = form;
  for (const std::string &text : cases) {
    // The peer's syntax: decode:NSEQS, prefill:T; verify:NSEQS has 4
    // tokens per sequence. A suffix @I adds a state checkpoint every I
    // tokens (verify:16@1 is speculative decoding's one state per draft
    // token, prefill:8192@256 prefix caching's block states); tree:B is
    // B draft trees of 16 nodes with a state per node; pools:B decode of
    // B sequences with the state in each pool type.
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
        (kind != "decode" && kind != "verify" && kind != "prefill" &&
         kind != "tree" && kind != "pools") ||
        ((kind == "tree" || kind == "pools") && at != std::string::npos))
      return usage("--case takes decode:B, verify:B or prefill:T, each "
                   "with an optional @I (a checkpoint every I tokens), "
                   "tree:B (B 16-node draft trees, a state per node), or "
                   "pools:B (decode of B sequences with each pool type)");
    if (kind == "pools")
      o.cases.push_back({kind, n, 1, 0});
    else if (kind == "tree")
      o.cases.push_back({kind, n, ssd::kDraftTreeNodes, 1});
    else if (kind == "prefill")
      o.cases.push_back({kind, 1, n, interval});
    else
      o.cases.push_back({kind, n, kind == "decode" ? 1 : 4, interval});
  }
  // The counts, each in its range (ssd/Support/SettingRanges.h and the
  // op's limits).
  struct Count {
    const ssd::ToolInt &flag;
    int64_t &into;
    mlir::ssd::SettingRange range;
  };
  namespace limits = mlir::ssd::limits;
  int64_t repsValue = o.reps;
  for (Count c : {Count{reps, repsValue, {1, 1 << 20}},
                  Count{chunkSize, o.chunkSize, mlir::ssd::kChunkSizeRange},
                  Count{heads, o.H, {1, limits::kMaxHeads}},
                  Count{headDim, o.P, {1, limits::kMaxHeadDim}},
                  Count{stateDim, o.N, {1, limits::kMaxDState}},
                  Count{groups, o.G, {1, limits::kMaxGroups}}}) {
    if (!c.flag.getNumOccurrences())
      continue;
    if (std::string why = mlir::ssd::whyOutOfRange(
            "", "--" + c.flag.ArgStr.str(), c.range, c.flag);
        !why.empty())
      return usage(why);
    c.into = c.flag;
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
