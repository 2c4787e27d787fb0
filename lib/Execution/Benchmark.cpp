//===- Benchmark.cpp - the CPU benchmark behind ssd-bench -----------------===//
//
// See Benchmark.h. The cases and shapes are those of the ggml peer's
// harness, so the two can be compared row by row.
//
//===----------------------------------------------------------------------===//

#include "ssd/Execution/Benchmark.h"
#include "ssd/Execution/ScanKernel.h"
#include "ssd/Runner/Synthetic.h"
#include "ssd/Transforms/ScanPlan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

namespace {

/// The signature the benchmark compiles: the given shape, f32 pool, D and
/// dt_bias present, has_initial_state present, int32 cache indices.
ssd::ScanProblem signatureFor(const ssd::BenchOptions &o) {
  ssd::ScanProblem like;
  like.H = o.H, like.P = o.P, like.N = o.N, like.G = o.G;
  like.dtype = o.dtype;
  like.hasD = like.hasDtBias = true;
  like.hasInitialStatePresent = true;
  return like;
}

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

} // namespace

int ssd::benchThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS"))
    if (int n = std::atoi(env); n > 0)
      return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

double ssd::peakFlops(int threads, int reps) {
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

double ssd::updateInPlaceSeconds(double bytes, int threads, int reps) {
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

std::vector<ssd::BenchCase> ssd::defaultBenchCases(bool quick) {
  std::vector<BenchCase> cases;
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
  // Speculative decoding keeps a state per draft token; prefix caching one
  // per 256-token block.
  cases.push_back({"verify", quick ? 8 : 16, 4, 1});
  cases.push_back({"prefill", 1, quick ? 1024 : 8192, 256});
  // Tree verification: 16-node draft trees with a state per node.
  cases.push_back({"tree", quick ? 8 : 64, kDraftTreeNodes, 1});
  return cases;
}

std::vector<int32_t> ssd::draftTreeParents(bool depthFirst) {
  // Three candidates for the first token, two continuations of each, one
  // more after each of those: 1 + 3 + 6 + 6 = 16 nodes, depth 4, the shape
  // of a small EAGLE or Medusa tree.
  std::vector<std::vector<int>> children(kDraftTreeNodes);
  children[0] = {1, 2, 3};
  for (int c = 0; c < 3; ++c)
    children[1 + c] = {4 + 2 * c, 5 + 2 * c};
  for (int c = 0; c < 6; ++c)
    children[4 + c] = {10 + c};
  // Number the nodes in visiting order, breadth-first (as the nodes above
  // already are) or depth-first, and give each its parent's number.
  std::vector<int> order;
  if (depthFirst) {
    std::vector<int> stack = {0};
    while (!stack.empty()) {
      int node = stack.back();
      stack.pop_back();
      order.push_back(node);
      for (auto it = children[node].rbegin(); it != children[node].rend(); ++it)
        stack.push_back(*it);
    }
  } else {
    for (int node = 0; node < kDraftTreeNodes; ++node)
      order.push_back(node);
  }
  std::vector<int> numberOf(kDraftTreeNodes);
  for (int i = 0; i < kDraftTreeNodes; ++i)
    numberOf[order[i]] = i;
  std::vector<int32_t> parents(kDraftTreeNodes, -1);
  for (int node = 0; node < kDraftTreeNodes; ++node)
    for (int child : children[node])
      parents[numberOf[child]] = numberOf[node];
  return parents;
}

bool ssd::runBenchmark(const BenchOptions &o, std::string &error) {
  using mlir::ssd::FormChoice;
  const int threads = benchThreads();
  const double peak = peakFlops(threads, 5);
  std::printf("ssd-bench: H=%lld P=%lld N=%lld G=%lld dtype=%s chunk-size=%lld "
              "reps=%d (best of) threads=%d cpu=%s%s\n",
              (long long)o.H, (long long)o.P, (long long)o.N, (long long)o.G,
              toString(o.dtype), (long long)o.chunkSize, o.reps, threads,
              o.cpu.empty() ? "host" : o.cpu.c_str(),
              o.invariant ? " (+ invariant)" : "");
  std::printf("ceilings (this run, %d threads): FMA peak %.1f GFLOP/s; "
              "update-in-place bandwidth (updGB/s) per case below\n",
              threads, peak / 1e9);
  std::printf("%-8s %6s %6s %-8s %10s %10s %8s %8s %8s %s\n", "case", "T",
              "batch", "form", "ms/call", "tokens/s", "GFLOP/s", "GB/s",
              "updGB/s", "of ceiling");

  ScanProblem like = signatureFor(o);
  ScanProblem signature = makeSyntheticProblem(like, 1, 1, 0);
  CompileOptions options;
  options.chunkSize = o.chunkSize;
  options.cpu = o.cpu;
  // The default forms first, then (with --invariant) the invariant mode,
  // one loop nest whatever the form, timed against them in the same run.
  struct Variant {
    FormChoice form;
    bool invariant;
    std::string label() const {
      return invariant ? "invariant"
                       : mlir::ssd::enumName(mlir::ssd::kFormChoiceNames, form);
    }
  };
  std::vector<Variant> forms;
  if (o.forms != FormChoice::Chunked)
    forms.push_back({FormChoice::Serial, false});
  if (o.forms != FormChoice::Serial)
    forms.push_back({FormChoice::Chunked, false});
  const size_t defaultForms = forms.size();
  if (o.invariant)
    forms.push_back({FormChoice::Serial, true});
  auto compileFor = [&](const ScanProblem &problem, const Variant &variant) {
    options.form = variant.form;
    options.invariant = variant.invariant;
    return ScanKernel::compile(problem, options, error);
  };
  std::vector<std::unique_ptr<ScanKernel>> kernels;
  for (const Variant &variant : forms) {
    kernels.push_back(compileFor(signature, variant));
    if (!kernels.back())
      return false;
  }

  // Best-of time of `kernel` on `problem`. Long prefills run once in the
  // serial and chunked forms alike after a warm-up call; short calls take
  // the best of `reps`. The calls reuse the warm-up's buffers (the pool
  // updated in place each time; decays below 1 keep it bounded), as the
  // ggml peer does, so both see the same cache state.
  auto timeCall = [&](ScanKernel &kernel, const ScanProblem &problem,
                      double &best) {
    int runs = problem.T >= 4096 ? 1 : o.reps;
    HostOperands operands(problem);
    double seconds;
    if (!kernel.run(operands, seconds, error)) // warm-up
      return false;
    best = 1e30;
    for (int r = 0; r < runs; ++r) {
      if (!kernel.run(operands, seconds, error))
        return false;
      best = std::min(best, seconds);
    }
    return true;
  };

  // A tree case: the serial form on the same tokens and states as chains,
  // then as draft trees numbered breadth- and depth-first (only the serial
  // form serves trees; a token whose parent is not the one before it
  // replays its parent's path, which is what the ratios show).
  auto runTreeCase = [&](const BenchCase &c) {
    ScanProblem likeTree = like;
    likeTree.checkpointInterval = 1;
    ScanProblem chains =
        makeSyntheticProblem(likeTree, c.batch, kDraftTreeNodes, 1);
    ScanProblem trees[2] = {chains, chains};
    for (int depthFirst = 0; depthFirst < 2; ++depthFirst) {
      std::vector<int32_t> parents = draftTreeParents(depthFirst);
      trees[depthFirst].tokenParentsPresent = true;
      for (int64_t b = 0; b < c.batch; ++b)
        trees[depthFirst].tokenParents.insert(
            trees[depthFirst].tokenParents.end(), parents.begin(),
            parents.end());
      if (!checkTreeContract(trees[depthFirst], error))
        return false;
    }
    Variant serial{FormChoice::Serial, false};
    std::unique_ptr<ScanKernel> chainKernel = compileFor(chains, serial);
    std::unique_ptr<ScanKernel> treeKernel =
        chainKernel ? compileFor(trees[0], serial) : nullptr;
    if (!treeKernel)
      return false;
    double bytes = minimumBytesMoved(chains);
    double update = updateInPlaceSeconds(bytes, threads, std::max(o.reps, 5));
    double flops = 6.0 * chains.T * o.H * o.P * o.N;
    double seconds[3];
    const char *labels[3] = {"chains", "tree-bfs", "tree-dfs"};
    for (int v = 0; v < 3; ++v) {
      if (!timeCall(v ? *treeKernel : *chainKernel, v ? trees[v - 1] : chains,
                    seconds[v]))
        return false;
      std::printf("%-8s %6lld %6lld %-8s %10.3f %10.4g %8.1f %8.2f %8.2f "
                  "%5.1f%% of update in place\n",
                  "tree@1", (long long)chains.T, (long long)chains.batch,
                  labels[v], seconds[v] * 1e3, chains.T / seconds[v],
                  flops / seconds[v] / 1e9, bytes / seconds[v] / 1e9,
                  bytes / update / 1e9, 100.0 * update / seconds[v]);
      std::fflush(stdout);
    }
    std::printf("%-8s %6lld %6lld serial: trees take %.2fx (breadth-first) "
                "and %.2fx (depth-first) the chains' time\n",
                "tree@1", (long long)chains.T, (long long)chains.batch,
                seconds[1] / seconds[0], seconds[2] / seconds[0]);
    return true;
  };

  // A pools case: decode through the serial form with the state stored as
  // each pool type (and stochastically rounded where rounding applies),
  // each against an update in place of the bytes it moves, and its
  // throughput over the f32 pool's.
  auto runPoolsCase = [&](const BenchCase &c) {
    struct PoolVariant {
      PoolDType type;
      PoolRounding rounding;
    };
    std::vector<PoolVariant> variants = {{PoolDType::F32, {}}};
    for (PoolDType t :
         {PoolDType::BF16, PoolDType::F16, PoolDType::F8E4M3FN, PoolDType::I8})
      for (PoolRounding r :
           {PoolRounding::NearestEven, PoolRounding::Stochastic})
        variants.push_back({t, r});
    double f32Seconds = 0;
    for (const PoolVariant &v : variants) {
      ScanProblem likePool = like;
      likePool.poolDType = v.type;
      likePool.poolRounding = v.rounding;
      likePool.roundingSeed = 1;
      ScanProblem problem = makeSyntheticProblem(likePool, c.batch, 1, 1);
      std::unique_ptr<ScanKernel> kernel =
          compileFor(problem, {FormChoice::Serial, false});
      double seconds;
      if (!kernel || !timeCall(*kernel, problem, seconds))
        return false;
      if (v.type == PoolDType::F32)
        f32Seconds = seconds;
      double bytes = minimumBytesMoved(problem);
      double update = updateInPlaceSeconds(bytes, threads, std::max(o.reps, 5));
      std::string label = toString(v.type);
      if (v.rounding == PoolRounding::Stochastic)
        label += "+sr";
      std::printf("%-8s %6lld %6lld %-8s %10.3f %10.4g %8.1f %8.2f %8.2f "
                  "%5.1f%% of update in place, %.2fx the f32 pool's "
                  "tokens/s\n",
                  "pools", (long long)problem.T, (long long)problem.batch,
                  label.c_str(), seconds * 1e3, problem.T / seconds,
                  6.0 * problem.T * o.H * o.P * o.N / seconds / 1e9,
                  bytes / seconds / 1e9, bytes / update / 1e9,
                  100.0 * update / seconds, f32Seconds / seconds);
      std::fflush(stdout);
    }
    return true;
  };

  for (const BenchCase &c : o.cases) {
    if (c.kind == "pools") {
      if (o.forms == FormChoice::Chunked)
        continue; // decode runs the serial form
      if (!runPoolsCase(c))
        return false;
      continue;
    }
    if (c.kind == "tree") {
      if (o.forms == FormChoice::Chunked)
        continue; // only the serial form serves trees
      if (!runTreeCase(c))
        return false;
      continue;
    }
    ScanProblem problem = makeSyntheticProblem(like, c.batch, c.length, 1);
    double bytes = minimumBytesMoved(problem);
    double update = updateInPlaceSeconds(bytes, threads, std::max(o.reps, 5));
    // The usual count for the recurrence: 6 flops per state element and token.
    double flops = 6.0 * problem.T * o.H * o.P * o.N;
    std::string kind = c.kind;
    // With checkpoints: the same call without them first (the baseline),
    // then with them, each form compiled for the checkpoint signature (K is
    // a static extent of it).
    ScanProblem checkpointed;
    std::vector<std::unique_ptr<ScanKernel>> checkpointKernels;
    std::vector<double> plain(forms.size(), 0.0);
    if (c.checkpointInterval > 0) {
      ScanProblem likeCheckpointed = like;
      likeCheckpointed.checkpointInterval = c.checkpointInterval;
      checkpointed =
          makeSyntheticProblem(likeCheckpointed, c.batch, c.length, 1);
      for (size_t f = 0; f < forms.size(); ++f) {
        checkpointKernels.push_back(compileFor(checkpointed, forms[f]));
        if (!checkpointKernels.back())
          return false;
        if (!timeCall(*kernels[f], problem, plain[f]))
          return false;
      }
      kind += "@" + std::to_string(c.checkpointInterval);
    }
    std::vector<double> best(forms.size(), 1e30);
    for (size_t f = 0; f < forms.size(); ++f) {
      if (c.checkpointInterval > 0
              ? !timeCall(*checkpointKernels[f], checkpointed, best[f])
              : !timeCall(*kernels[f], problem, best[f]))
        return false;
      // Prefill is compute-bound: its ceiling is the FMA peak. Decode and
      // verify move each sequence's state twice for little arithmetic: their
      // ceiling is an update in place of the bytes they move.
      bool computeBound = c.kind == "prefill";
      double fraction =
          computeBound ? flops / best[f] / peak : update / best[f];
      std::printf("%-8s %6lld %6lld %-8s %10.3f %10.4g %8.1f %8.2f %8.2f "
                  "%5.1f%% of %s\n",
                  kind.c_str(), (long long)problem.T, (long long)problem.batch,
                  forms[f].label().c_str(), best[f] * 1e3, problem.T / best[f],
                  flops / best[f] / 1e9, bytes / best[f] / 1e9,
                  bytes / update / 1e9, 100.0 * fraction,
                  computeBound ? "FMA peak" : "update in place");
      std::fflush(stdout);
    }
    if (c.checkpointInterval > 0) {
      // What the checkpoints cost: the time over the same call without
      // them, against writing their states once at the update-in-place
      // bandwidth (an update of 2E bytes writes E).
      int64_t written = 0;
      for (int64_t b = 0; b < checkpointed.batch; ++b)
        written += std::min<int64_t>(checkpointed.checkpointK,
                                     c.length / c.checkpointInterval);
      double stateBytes = 4.0 * o.H * o.P * o.N;
      double extraBytes = written * stateBytes;
      double writeSeconds =
          updateInPlaceSeconds(2.0 * extraBytes, threads, std::max(o.reps, 5));
      for (size_t f = 0; f < forms.size(); ++f)
        std::printf(
            "%-8s %6lld %6lld %-8s checkpoints: %.3fx the call without "
            "(%+.3f ms); %lld states, %.3g MB, written at update bandwidth "
            "in %.3f ms\n",
            kind.c_str(), (long long)problem.T, (long long)problem.batch,
            forms[f].label().c_str(), best[f] / plain[f],
            (best[f] - plain[f]) * 1e3, (long long)written, extraBytes / 1e6,
            writeSeconds * 1e3);
    }
    if (o.invariant) {
      double fastest =
          *std::min_element(best.begin(), best.begin() + defaultForms);
      std::printf("%-8s %6lld %6lld invariant: %.2fx the faster default "
                  "form\n",
                  kind.c_str(), (long long)problem.T, (long long)problem.batch,
                  best[defaultForms] / fastest);
    }
    if (defaultForms == 2) {
      mlir::ssd::ScanRequest request;
      request.chunkSize = o.chunkSize;
      request.tokens = problem.T;
      request.batch = problem.batch;
      if (c.checkpointInterval > 0)
        request.checkpointInterval = c.checkpointInterval;
      mlir::ssd::Form autoForm = *mlir::ssd::planScan(request).form;
      std::printf("%-8s %6lld %6lld auto->%s, faster: %s (%.2fx)\n",
                  kind.c_str(), (long long)problem.T, (long long)problem.batch,
                  mlir::ssd::stringifyForm(autoForm).str().c_str(),
                  best[0] <= best[1] ? "serial" : "chunked",
                  std::max(best[0], best[1]) / std::min(best[0], best[1]));
    }
  }
  return true;
}
