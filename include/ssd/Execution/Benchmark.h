//===- Benchmark.h - the CPU benchmark behind ssd-bench ---------*- C++ -*-===//
//
// Times the serial and the chunked form, each compiled once through
// --ssd-to-cpu with dynamic T and batch, on decode (batch sequences of one
// token), verify (batch sequences of 4) and prefill (one sequence of T
// tokens), and prints one row per case and form.
//
// Absolute times mean little on a shared machine, so every row is also a
// fraction of a ceiling measured in the same run on the same number of
// threads: prefill's FLOP rate (6 H P N per token) against the machine's
// vector FMA peak, decode's and verify's bytes moved against an update in
// place of as many (half of them read, the same half written back).
// Cases with state checkpoints (`verify:B@1`, `prefill:T@256`) run beside
// the same call without them and print what the checkpoints cost; tree
// cases (`tree:B`) run beside the same tokens as chains.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_EXECUTION_BENCHMARK_H
#define SSD_EXECUTION_BENCHMARK_H

#include "ssd/Runner/Problem.h"
#include "ssd/Support/EnumName.h"
#include "ssd/Transforms/FormSelection.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssd {

/// One benchmark case: `batch` sequences of `length` tokens each. `kind` is
/// "decode", "verify", "prefill", "tree" or "pools" (prefill's ceiling is
/// the FMA peak, the others' an in-place update of the bytes they move). A
/// pools case decodes `batch` sequences through the serial form once per
/// pool type and rounding, each against its own bytes and the f32 pool. A tree
/// case times the serial form on `batch` draft trees of kDraftTreeNodes nodes,
/// numbered breadth-first and depth-first, against the same call as chains
/// of as many tokens, all with a state checkpoint per token.
struct BenchCase {
  std::string kind;
  int64_t batch = 1, length = 1;
  /// State checkpoints every this many tokens (0: none), each boundary into
  /// a slot of its own: the case is then timed with and without them, and
  /// their cost printed against writing their bytes at the update-in-place
  /// bandwidth.
  int64_t checkpointInterval = 0;
};

struct BenchOptions {
  /// The scan's shape: Mamba2-2.7B's by default (Granite-4 has H = 128).
  int64_t H = 80, P = 64, N = 128, G = 1;
  ModelDType dtype = ModelDType::F32;
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  /// Calls per case after a warm-up (the best counts); cases of 4096 tokens
  /// or more run once.
  int reps = 3;
  /// Serial, Chunked, or both (Auto).
  mlir::ssd::FormChoice forms = mlir::ssd::FormChoice::Auto;
  std::vector<BenchCase> cases;
  /// The LLVM CPU the forms are JIT-compiled for (JITTarget.h); empty: the
  /// host.
  std::string cpu;
  /// Also time invariant ops, and their ratio to the faster default form.
  bool invariant = false;
};

/// The cases `ssd-bench` runs when none are given (`quick`: fewer).
std::vector<BenchCase> defaultBenchCases(bool quick);

/// Nodes of the draft tree of a `tree` case.
constexpr int kDraftTreeNodes = 16;

/// The local parents of a 16-node draft tree (depth 4: three candidates for
/// the first token, two for each next, one after those), numbered
/// breadth-first or depth-first: a `tree` case's token_parents per sequence.
std::vector<int32_t> draftTreeParents(bool depthFirst);

/// Threads the JIT-compiled code runs on: OpenMP's default, one per core,
/// unless OMP_NUM_THREADS says otherwise.
int benchThreads();

/// The machine's peak f32 FMA rate on `threads` threads in flop/s (an FMA
/// counts 2), with the widest vectors the host has; best of `reps`.
double peakFlops(int threads, int reps);

/// Best-of-`reps` time of moving `bytes` bytes through memory the way decode
/// does: half of them read and written back in place, on `threads` threads.
double updateInPlaceSeconds(double bytes, int threads, int reps);

/// Compiles the forms, runs the cases and prints the table on stdout.
/// Returns false with `error` set when a form fails to compile or run.
bool runBenchmark(const BenchOptions &options, std::string &error);

} // namespace ssd

#endif // SSD_EXECUTION_BENCHMARK_H
