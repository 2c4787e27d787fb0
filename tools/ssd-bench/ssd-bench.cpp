//===- ssd-bench.cpp - CPU benchmark of both forms of the scan ------------===//
//
//   ssd-bench [--dtype f32|f16|bf16] [--quick] [--reps N] [--chunk-size N]
//             [--H 80 --P 64 --N 128 --G 1]
//
// Times the serial and the chunked form, each compiled once through
// --ssd-to-cpu with dynamic T and batch, on decode (batch 1..256, one token
// per sequence) and prefill (one sequence of 1k..16k tokens) at Mamba2-2.7B
// shapes. Every row also reports a memcpy of the bytes the call must move,
// measured in the same run, so the numbers compare across machines: `x copy`
// is the call's time over the memcpy's.
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/ScanKernel.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Synthetic.h"
#include "ssd/Transforms/FormSelection.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

/// Best-of-reps time of a memcpy of `bytes` bytes.
double memcpySeconds(double bytes, int reps) {
  size_t n = static_cast<size_t>(bytes);
  std::vector<char> src(n, 1), dst(n, 0);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
    best = std::min(best, s);
  }
  // Keep the copy observable.
  if (n && dst[n / 2] != 1)
    std::abort();
  return best;
}

int usage(const char *message) {
  std::fprintf(stderr, "ssd-bench: %s\n", message);
  std::fprintf(stderr,
               "usage: ssd-bench [--dtype f32|f16|bf16] [--quick] [--reps N] "
               "[--chunk-size N] [--H n] [--P n] [--N n] [--G n]\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  Shape shape;
  ssd::ModelDType dtype = ssd::ModelDType::F32;
  bool quick = false;
  int reps = 3;
  int64_t chunkSize = 256;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--dtype") {
      const char *v = next();
      if (!v || !ssd::parseModelDType(v, dtype))
        return usage("--dtype takes f32, f16 or bf16");
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
        (arg == "--H" ? shape.H : arg == "--P" ? shape.P : arg == "--N" ? shape.N : shape.G) = n;
    } else {
      return usage(("unknown flag '" + arg + "'").c_str());
    }
  }
  if (shape.H % shape.G != 0)
    return usage("H must be a multiple of G");

  struct Case {
    const char *kind;
    int64_t batch, length;
  };
  std::vector<Case> cases;
  for (int64_t batch : quick ? std::vector<int64_t>{1, 16, 64}
                             : std::vector<int64_t>{1, 4, 16, 64, 256})
    cases.push_back({"decode", batch, 1});
  for (int64_t batch : quick ? std::vector<int64_t>{8} : std::vector<int64_t>{4, 16})
    cases.push_back({"verify", batch, 4});
  for (int64_t length : quick ? std::vector<int64_t>{256, 1024}
                              : std::vector<int64_t>{256, 1024, 2048, 4096, 8192, 16384})
    cases.push_back({"prefill", 1, length});

  std::printf("ssd-bench: H=%lld P=%lld N=%lld G=%lld dtype=%s chunk-size=%lld "
              "reps=%d (best of)\n",
              (long long)shape.H, (long long)shape.P, (long long)shape.N,
              (long long)shape.G, ssd::toString(dtype), (long long)chunkSize, reps);
  std::printf("%-8s %6s %6s %-8s %11s %10s %9s %8s\n", "case", "T", "batch",
              "form", "ms/call", "ktok/s", "GB/s", "x copy");

  std::string error;
  ssd::ScanProblem like = signatureFor(shape, dtype);
  ssd::ScanProblem signature = ssd::makeSyntheticProblem(like, 1, 1, 0);
  ssd::CompileOptions options;
  options.chunkSize = chunkSize;
  std::unique_ptr<ssd::ScanKernel> kernels[2];
  const char *forms[2] = {"serial", "chunked"};
  for (int f = 0; f < 2; ++f) {
    options.form = forms[f];
    kernels[f] = ssd::ScanKernel::compile(signature, options, error);
    if (!kernels[f]) {
      std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
      return 1;
    }
  }

  for (const Case &c : cases) {
    ssd::ScanProblem problem = ssd::makeSyntheticProblem(like, c.batch, c.length, 1);
    double bytes = ssd::minimumBytesMoved(problem);
    double copy = memcpySeconds(bytes, std::max(reps, 5));
    double best[2] = {1e30, 1e30};
    for (int f = 0; f < 2; ++f) {
      // Long prefills run once in the serial and chunked forms alike after a
      // warm-up call; short calls take the best of `reps`.
      int runs = problem.T >= 4096 ? 1 : reps;
      ssd::HostOperands operands(problem);
      double seconds;
      if (!kernels[f]->run(operands, seconds, error)) { // warm-up
        std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
        return 1;
      }
      for (int r = 0; r < runs; ++r) {
        ssd::HostOperands fresh(problem);
        if (!kernels[f]->run(fresh, seconds, error)) {
          std::fprintf(stderr, "ssd-bench: %s\n", error.c_str());
          return 1;
        }
        best[f] = std::min(best[f], seconds);
      }
      std::printf("%-8s %6lld %6lld %-8s %11.3f %10.3f %9.2f %8.1f\n", c.kind,
                  (long long)problem.T, (long long)problem.batch, forms[f],
                  best[f] * 1e3, problem.T / best[f] / 1e3,
                  bytes / best[f] / 1e9, best[f] / copy);
      std::fflush(stdout);
    }
    bool autoChunked = mlir::ssd::FormThresholds().choosesChunked(problem.T, problem.batch);
    std::printf("%-8s %6lld %6lld auto->%s, faster: %s (%.2fx)\n", c.kind,
                (long long)problem.T, (long long)problem.batch,
                autoChunked ? "chunked" : "serial",
                best[0] <= best[1] ? "serial" : "chunked",
                std::max(best[0], best[1]) / std::min(best[0], best[1]));
  }
  return 0;
}
