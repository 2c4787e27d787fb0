//===- Synthetic.cpp - benchmark launches ---------------------------------===//

#include "ssd/Runner/Synthetic.h"
#include "ssd/Runner/PoolFormat.h"

#include <algorithm>

using namespace ssd;

namespace {

/// splitmix64: cheap, good enough for benchmark values.
struct Generator {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return (next() >> 40) * (1.0f / 16777216.0f); }
  /// Sum of four uniforms, centred and scaled: mean 0, variance 1.
  float normalish() {
    return (uniform() + uniform() + uniform() + uniform() - 2.0f) * 1.7320508f;
  }
};

/// The pool's f32 values stored as `like`'s pool type: rounded to a
/// 16-bit type, or encoded as 8-bit codes and row scales, with `pool` then
/// holding what the op reads back.
void storeSyntheticPool(const ScanProblem &like, ScanProblem &p) {
  p.poolDType = like.poolDType;
  p.poolRounding = like.poolRounding;
  p.roundingSeed = like.roundingSeed;
  if (!isScaledPool(p.poolDType)) {
    for (float &v : p.pool)
      v = roundPoolValue(p.poolDType, v, /*stochastic=*/false, 0);
    return;
  }
  const int64_t rows = p.S * p.H * p.P;
  p.poolCodes.resize(p.pool.size());
  p.poolScales.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    float *row = p.pool.data() + r * p.N;
    uint8_t *codes = p.poolCodes.data() + r * p.N;
    encodePoolRow(
        p.poolDType, row, p.N, /*stochastic=*/false, [](int64_t) { return 0u; },
        codes, p.poolScales[r]);
    for (int64_t n = 0; n < p.N; ++n)
      row[n] = decodePoolCode(p.poolDType, codes[n], p.poolScales[r]);
  }
}

} // namespace

ScanProblem ssd::makeSyntheticProblem(const ScanProblem &like, int64_t batch,
                                      int64_t length, uint64_t seed) {
  Generator g{seed};
  ScanProblem p;
  p.H = like.H, p.P = like.P, p.N = like.N, p.G = like.G;
  p.dtype = like.dtype;
  p.batch = batch;
  p.T = batch * length;
  p.S = batch;
  auto fill = [&](std::vector<float> &v, size_t n, auto gen) {
    v.resize(n);
    for (float &e : v)
      e = roundToModelDType(gen(), p.dtype);
  };
  fill(p.x, p.T * p.H * p.P, [&] { return g.normalish(); });
  // dt + dt_bias in [-4, -2]: softplus of it is about 0.02 to 0.13.
  fill(p.dt, p.T * p.H, [&] { return -3.0f + g.uniform(); });
  fill(p.A, p.H, [&] { return -1.0f - 15.0f * g.uniform(); }); // [-16, -1]
  fill(p.B, p.T * p.G * p.N, [&] { return g.normalish(); });
  fill(p.C, p.T * p.G * p.N, [&] { return g.normalish(); });
  p.hasD = like.hasD;
  p.hasDtBias = like.hasDtBias;
  if (p.hasD)
    fill(p.D, p.H, [&] { return g.normalish(); });
  if (p.hasDtBias)
    fill(p.dtBias, p.H, [&] { return -g.uniform(); });
  else
    for (float &v : p.dt)
      v = roundToModelDType(0.02f + 0.08f * g.uniform(), p.dtype);
  p.pool.resize(static_cast<size_t>(p.S * p.H * p.P * p.N));
  for (float &e : p.pool)
    e = g.normalish();
  for (int64_t b = 0; b <= batch; ++b)
    p.queryStartLoc.push_back(static_cast<int32_t>(b * length));
  for (int64_t b = 0; b < batch; ++b)
    p.cacheIndices.push_back(static_cast<uint32_t>(b));
  p.cacheIndicesRow = like.cacheIndicesRow;
  p.cacheIndicesUnsigned = like.cacheIndicesUnsigned;
  p.hasInitialStatePresent = like.hasInitialStatePresent;
  if (p.hasInitialStatePresent)
    p.hasInitialState.assign(batch, 1);
  p.updateStatePresent = like.updateStatePresent;
  if (p.updateStatePresent)
    p.updateState.assign(batch, 1);
  // Checkpoints: every boundary the sequences cross gets a slot of its own
  // after the sequences' slots, so the pool grows by batch * K states.
  if (like.checkpointInterval > 0) {
    p.checkpointInterval = like.checkpointInterval;
    p.checkpointSlotsPresent = true;
    p.checkpointSlotsUnsigned = like.checkpointSlotsUnsigned;
    p.checkpointK = std::max<int64_t>(length / like.checkpointInterval, 1);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t k = 0; k < p.checkpointK; ++k)
        p.checkpointSlots.push_back(
            static_cast<uint32_t>(batch + b * p.checkpointK + k));
    p.S = batch + batch * p.checkpointK;
    p.pool.resize(static_cast<size_t>(p.S * p.H * p.P * p.N));
    for (size_t e = size_t(batch) * p.H * p.P * p.N; e < p.pool.size(); ++e)
      p.pool[e] = 0.0f;
  }
  storeSyntheticPool(like, p);
  return p;
}

double ssd::minimumBytesMoved(const ScanProblem &p) {
  double model = p.dtype == ModelDType::F32 ? 4 : 2;
  double tokens = static_cast<double>(p.T);
  // A state as stored: its elements, and an 8-bit pool's row scales.
  double state = double(poolElementBytes(p.poolDType)) * p.H * p.P * p.N;
  if (isScaledPool(p.poolDType))
    state += 4.0 * p.H * p.P;
  return model * tokens * (2.0 * p.H * p.P + p.H + 2.0 * p.G * p.N) +
         2.0 * p.batch * state;
}

double ssd::chunkedFlops(const ScanProblem &p, int64_t chunkSize) {
  // Per token and head: chunk state 2PN, inter-chunk output 2PN, intra-chunk
  // output about L P (causal half of 2 L P); per token and group: C Bᵀ about
  // L N (causal half of 2 L N).
  double L = static_cast<double>(
      std::min<int64_t>(chunkSize, std::max<int64_t>(p.T, 1)));
  double tokens = static_cast<double>(p.T);
  return tokens * (p.H * (4.0 * p.P * p.N + L * p.P) + p.G * L * p.N);
}
