//===- ssd-bench.cpp - CPU benchmark of both forms of the scan ------------===//
//
//   ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] [--quick]
//             [--reps N] [--chunk-size N] [--form serial|chunked|both]
//             [--case decode:B|verify:B|prefill:T ...] [--H --P --N --G n]
//
// Times the serial and the chunked form, each compiled once through
// --ssd-to-cpu with dynamic T and batch, on decode (batch sequences of one
// token), verify (batch sequences of 4) and prefill (one sequence of T
// tokens). The cases and shapes are those of the ggml peer's run.sh.
//
// Absolute times mean little on a shared machine, so every row is also a
// fraction of a ceiling measured in the same run on the same number of
// threads: prefill's FLOP rate (6 H P N per token) against the machine's
// vector FMA peak, decode's and verify's bytes moved against an update in
// place of as many (half of them read, the same half written back).
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/ScanKernel.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Synthetic.h"
#include "ssd/Transforms/FormSelection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Shape {
  int64_t H = 80, P = 64, N = 128, G = 1;
};

/// The signature the benchmark compiles: the given shape, f32 pool, D and
/// dt_bias present, has_initial_state present, int32 cache indices.
ssd::ScanProblem signatureFor(const Shape &shape, ssd::ModelDType dtype) {
  ssd::ScanProblem like;
  like.H = shape.H, like.P = shape.P, like.N = shape.N, like.G = shape.G;
  like.dtype = dtype;
  like.hasD = like.hasDtBias = true;
  like.hasInitialStatePresent = true;
  return like;
}

/// Threads the JIT'd code runs on: OpenMP's default, one per core, unless
/// OMP_NUM_THREADS says otherwise.
int benchThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS"))
    if (int n = std::atoi(env); n > 0)
      return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Runs body(thread) on `threads` threads and returns the wall time.
/// Wall time of `body(t)` on `threads` threads, from a common start to the
/// last one's end: the threads exist and wait before the clock starts, so
/// short bodies (a decode-sized update) are not timed with thread start-up.
template <typename Body> double timeOnThreads(int threads, Body body) {
  std::atomic<bool> go{false};
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      body(t);
    });
  while (ready.load() < threads)
    std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread &thread : pool)
    thread.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Best-of-reps time of moving `bytes` bytes through memory the way decode
/// does: half of them read and the same half written back in place (every
/// float of a bytes / 2 buffer updated), split over `threads` threads. A
/// copy to another buffer would also read each destination line before
/// writing it, so it is slower than what decode has to do.
double updateInPlaceSeconds(double bytes, int threads, int reps) {
  size_t n = static_cast<size_t>(bytes / 2) / sizeof(float);
  std::vector<float> data(n, 1.0f);
  size_t part = (n + threads - 1) / threads;
  double best = 1e30;
  for (int r = 0; r < reps; ++r)
    best = std::min(best, timeOnThreads(threads, [&](int t) {
                      size_t begin = std::min(n, t * part);
                      size_t end = std::min(n, begin + part);
                      float *p = data.data();
                      for (size_t i = begin; i < end; ++i)
                        p[i] = p[i] * 0.5f + 0.5f;
                    }));
  // Keep the updates observable (1 is the fixed point of x / 2 + 1 / 2).
  if (n && data[n / 2] != 1.0f)
    std::abort();
  return best;
}

/// 12 independent chains of `iterations` FMAs on W-lane vectors: enough
/// chains to cover the FMA latency on every current core. Returns a value
/// so the work is not dropped.
template <int W> float fmaChains(long iterations) {
  typedef float Vec __attribute__((vector_size(W * 4)));
  constexpr int kChains = 12;
  Vec acc[kChains], mul, add;
  for (int i = 0; i < W; ++i)
    mul[i] = 0.999999f, add[i] = 1e-7f;
  for (int c = 0; c < kChains; ++c)
    for (int i = 0; i < W; ++i)
      acc[c][i] = 1.0f + c;
  for (long it = 0; it < iterations; ++it)
    for (int c = 0; c < kChains; ++c)
      acc[c] = acc[c] * mul + add; // contracted to one FMA (fp-contract=on)
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int i = 0; i < W; ++i)
      sum += acc[c][i];
  return sum;
}

#if defined(__x86_64__)
__attribute__((target("avx512f,fma"))) float fmaChains16(long n) {
  return fmaChains<16>(n);
}
__attribute__((target("avx2,fma"))) float fmaChains8(long n) {
  return fmaChains<8>(n);
}
#endif

/// The machine's peak f32 FMA rate on `threads` threads, in flop/s (an
/// FMA counts 2), with the widest vectors the host has: the ceiling of a
/// compute-bound scan.
double peakFlops(int threads, int reps) {
  int lanes = 4;
  float (*chains)(long) = fmaChains<4>;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    lanes = 16, chains = fmaChains16;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    lanes = 8, chains = fmaChains8;
#endif
  const long iterations = 2000000;
  std::vector<float> sink(threads);
  double best = 1e30;
  for (int r = 0; r < reps; ++r)
    best = std::min(best, timeOnThreads(threads, [&](int t) {
                      sink[t] = chains(iterations);
                    }));
  if (sink[0] == 12345.0f)
    std::printf(" ");
  return 2.0 * 12 * lanes * iterations * threads / best;
}

int usage(const char *message) {
  std::fprintf(stderr, "ssd-bench: %s\n", message);
  std::fprintf(
      stderr,
      "usage: ssd-bench [--dtype f32|f16|bf16] [--model mamba2|granite4] "
      "[--quick] [--reps N] [--chunk-size N] "
      "[--form serial|chunked|both] [--case decode:B|verify:B|prefill:T ...] "
      "[--H n] [--P n] [--N n] [--G n]\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  Shape shape;
  ssd::ModelDType dtype = ssd::ModelDType::F32;
  bool quick = false;
  int reps = 3;
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  std::string formsWanted = "both";
  struct Case {
    std::string kind;
    int64_t batch, length;
  };
  std::vector<Case> cases;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--dtype") {
      const char *v = next();
      if (!v || !ssd::parseModelDType(v, dtype))
        return usage("--dtype takes f32, f16 or bf16");
    } else if (arg == "--model") {
      // The scan shapes of the two models the benchmark reports.
      const char *v = next();
      std::string model = v ? v : "";
      if (model == "mamba2")
        shape = Shape{80, 64, 128, 1};
      else if (model == "granite4")
        shape = Shape{128, 64, 128, 1};
      else
        return usage(
            "--model takes mamba2 (Mamba2-2.7B) or granite4 (Granite-4)");
    } else if (arg == "--form") {
      const char *v = next();
      formsWanted = v ? v : "";
      if (formsWanted != "serial" && formsWanted != "chunked" &&
          formsWanted != "both")
        return usage("--form takes serial, chunked or both");
    } else if (arg == "--case") {
      // The peer's syntax: decode:NSEQS, prefill:T; verify:NSEQS has 4
      // tokens per sequence.
      const char *v = next();
      std::string text = v ? v : "";
      size_t colon = text.find(':');
      std::string kind = text.substr(0, colon);
      long long n =
          colon == std::string::npos ? 0 : std::atoll(text.c_str() + colon + 1);
      if (n < 1 || (kind != "decode" && kind != "verify" && kind != "prefill"))
        return usage("--case takes decode:B, verify:B or prefill:T");
      if (kind == "prefill")
        cases.push_back({kind, 1, n});
      else
        cases.push_back({kind, n, kind == "decode" ? 1 : 4});
    } else if (arg == "--reps" || arg == "--chunk-size" || arg == "--H" ||
               arg == "--P" || arg == "--N" || arg == "--G") {
      const char *v = next();
      long long n = v ? std::atoll(v) : 0;
      if (n < 1)
        return usage(("bad value for " + arg).c_str());
      if (arg == "--reps")
        reps = static_cast<int>(n);
      else if (arg == "--chunk-size")
        chunkSize = n;
      else
        (arg == "--H"   ? shape.H
         : arg == "--P" ? shape.P
         : arg == "--N" ? shape.N
                        : shape.G) = n;
    } else {
      return usage(("unknown flag '" + arg + "'").c_str());
    }
  }
  if (shape.H % shape.G != 0)
    return usage("H must be a multiple of G");

  if (cases.empty()) {
    for (int64_t batch : quick ? std::vector<int64_t>{1, 16, 64}
                               : std::vector<int64_t>{1, 4, 16, 64, 256})
      cases.push_back({"decode", batch, 1});
    for (int64_t batch :
         quick ? std::vector<int64_t>{8} : std::vector<int64_t>{4, 16})
      cases.push_back({"verify", batch, 4});
    for (int64_t length :
         quick ? std::vector<int64_t>{256, 1024}
               : std::vector<int64_t>{256, 1024, 2048, 4096, 8192, 16384})
      cases.push_back({"prefill", 1, length});
  }

  const int threads = benchThreads();
  const double peak = peakFlops(threads, 5);
  std::printf("ssd-bench: H=%lld P=%lld N=%lld G=%lld dtype=%s chunk-size=%lld "
              "reps=%d (best of) threads=%d\n",
              (long long)shape.H, (long long)shape.P, (long long)shape.N,
              (long long)shape.G, ssd::toString(dtype), (long long)chunkSize,
              reps, threads);
  std::printf("ceilings (this run, %d threads): FMA peak %.1f GFLOP/s; "
              "update-in-place bandwidth (updGB/s) per case below\n",
              threads, peak / 1e9);
  std::printf("%-8s %6s %6s %-8s %10s %10s %8s %8s %8s %s\n", "case", "T",
              "batch", "form", "ms/call", "tokens/s", "GFLOP/s", "GB/s",
              "updGB/s", "of ceiling");

  std::string error;
  ssd::ScanProblem like = signatureFor(shape, dtype);
  ssd::ScanProblem signature = ssd::makeSyntheticProblem(like, 1, 1, 0);
  ssd::CompileOptions options;
  options.chunkSize = chunkSize;
  std::vector<mlir::ssd::FormChoice> forms;
  if (formsWanted != "chunked")
    forms.push_back(mlir::ssd::FormChoice::Serial);
  if (formsWanted != "serial")
    forms.push_back(mlir::ssd::FormChoice::Chunked);
  std::vector<std::unique_ptr<ssd::ScanKernel>> kernels;
  for (mlir::ssd::FormChoice form : forms) {
    options.form = form;
    kernels.push_back(ssd::ScanKernel::compile(signature, options, error));
    if (!kernels.back()) {
      std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
      return 1;
    }
  }

  for (const Case &c : cases) {
    ssd::ScanProblem problem =
        ssd::makeSyntheticProblem(like, c.batch, c.length, 1);
    double bytes = ssd::minimumBytesMoved(problem);
    double update = updateInPlaceSeconds(bytes, threads, std::max(reps, 5));
    // The usual count for the recurrence: 6 flops per state element and token.
    double flops = 6.0 * problem.T * shape.H * shape.P * shape.N;
    std::vector<double> best(forms.size(), 1e30);
    for (size_t f = 0; f < forms.size(); ++f) {
      // Long prefills run once in the serial and chunked forms alike after a
      // warm-up call; short calls take the best of `reps`.
      int runs = problem.T >= 4096 ? 1 : reps;
      ssd::HostOperands operands(problem);
      double seconds;
      if (!kernels[f]->run(operands, seconds, error)) { // warm-up
        std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
        return 1;
      }
      // The calls reuse the warm-up's buffers (the pool updated in place
      // each time; decays below 1 keep it bounded), as the ggml peer does,
      // so both see the same cache state.
      for (int r = 0; r < runs; ++r) {
        if (!kernels[f]->run(operands, seconds, error)) {
          std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
          return 1;
        }
        best[f] = std::min(best[f], seconds);
      }
      // Prefill is compute-bound: its ceiling is the FMA peak. Decode and
      // verify move each sequence's state twice for little arithmetic: their
      // ceiling is an update in place of the bytes they move.
      bool computeBound = c.kind == "prefill";
      double fraction =
          computeBound ? flops / best[f] / peak : update / best[f];
      std::printf(
          "%-8s %6lld %6lld %-8s %10.3f %10.4g %8.1f %8.2f %8.2f "
          "%5.1f%% of %s\n",
          c.kind.c_str(), (long long)problem.T, (long long)problem.batch,
          mlir::ssd::enumName(mlir::ssd::kFormChoiceNames, forms[f]).c_str(),
          best[f] * 1e3, problem.T / best[f], flops / best[f] / 1e9,
          bytes / best[f] / 1e9, bytes / update / 1e9, 100.0 * fraction,
          computeBound ? "FMA peak" : "update in place");
      std::fflush(stdout);
    }
    if (forms.size() == 2) {
      bool autoChunked =
          mlir::ssd::FormThresholds().choosesChunked(problem.T, problem.batch);
      std::printf("%-8s %6lld %6lld auto->%s, faster: %s (%.2fx)\n",
                  c.kind.c_str(), (long long)problem.T,
                  (long long)problem.batch, autoChunked ? "chunked" : "serial",
                  best[0] <= best[1] ? "serial" : "chunked",
                  std::max(best[0], best[1]) / std::min(best[0], best[1]));
    }
  }
  return 0;
}
