//===- Reference.cpp - Double-precision reference of the SSD scan ---------===//

#include "ssd/Runner/Reference.h"

#include "ssd/Runner/PoolFormat.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <new>

using namespace ssd;

double ssd::referenceSoftplus(double v) {
  return v > 20.0 ? v : std::log1p(std::exp(v));
}

namespace {

/// Stores one written state: `state` ([H, P, N]) after a sequence holding
/// `tokens` tokens, into `slot`; a null `state` is the initial state of a
/// sequence without tokens, `initial` ([H, P, N] of p.pool, or null for
/// zeros).
using StateWriter = std::function<void(
    uint32_t slot, int64_t tokens, const double *state, const float *initial)>;

bool scanStates(const ScanProblem &p, std::vector<double> &y,
                const StateWriter &write, std::string *error) {
  const int64_t H = p.H, P = p.P, N = p.N, G = p.G;
  const int64_t headsPerGroup = G > 0 ? H / G : 1;
  // One slot: [H, P, N]. Its product is not bounded by any array when no
  // sequence has tokens (x and B are then empty), so it is formed with an
  // overflow check and only ever allocated for a sequence with tokens.
  int64_t stateSize = 0;
  bool stateSizeOverflows = __builtin_mul_overflow(H, P, &stateSize) ||
                            __builtin_mul_overflow(stateSize, N, &stateSize);

  y.assign(p.x.size(), 0.0);
  std::unique_ptr<double[]> state;

  for (int64_t b = 0; b < p.batch; ++b) {
    const uint32_t slot = p.cacheIndices[b];
    const int64_t begin = p.queryStartLoc[b], end = p.queryStartLoc[b + 1];

    if (end <= begin) {
      // No tokens: a writer stores its initial state (or zeros), which
      // needs no copy of the state; a non-writer does nothing at all.
      if (!p.writesState(b))
        continue;
      write(slot, p.checkpointOffset(b), nullptr,
            p.readsState(b) ? &p.pool[size_t(slot) * size_t(stateSize)]
                            : nullptr);
      continue;
    }

    if (!state) {
      if (!stateSizeOverflows && uint64_t(stateSize) <= SIZE_MAX / 8)
        state.reset(new (std::nothrow) double[size_t(stateSize)]);
      if (!state) {
        if (error)
          *error = "reference: cannot allocate the state of one slot (H*P*N "
                   "= " +
                   std::to_string(H) + "*" + std::to_string(P) + "*" +
                   std::to_string(N) + " doubles)";
        return false;
      }
    }
    if (p.readsState(b)) {
      for (int64_t i = 0; i < stateSize; ++i)
        state[i] = p.pool[slot * stateSize + i];
    } else {
      for (int64_t i = 0; i < stateSize; ++i)
        state[i] = 0.0;
    }

    // Checkpoints: after local token j the sequence holds o + j + 1 tokens;
    // each multiple of I reached is boundary k = (o + j + 1) / I -
    // floor(o / I) - 1 of this call, stored in checkpoint_slots[b, k] while
    // k < K (padding sequences store none).
    const bool checkpoints =
        p.checkpointSlotsPresent && p.checkpointK > 0 && slot != kPaddingSlot;
    const int64_t I = p.checkpointInterval, o = p.checkpointOffset(b);

    // Draft trees: every node's state is kept (the initial state first, then
    // token j's at j + 1), so a token whose parent is not the token before
    // it starts from a copy of its parent's state.
    std::unique_ptr<double[]> nodes;
    const size_t stateBytes = size_t(stateSize) * sizeof(double);
    if (p.tokenParentsPresent) {
      const uint64_t count = uint64_t(end - begin) + 1;
      if (stateSize == 0 ||
          count <= SIZE_MAX / sizeof(double) / uint64_t(stateSize))
        nodes.reset(new (std::nothrow) double[count * size_t(stateSize)]);
      if (!nodes) {
        if (error)
          *error = "reference: cannot allocate the states of the " +
                   std::to_string(end - begin) + " tokens of sequence " +
                   std::to_string(b) + " (token_parents keeps every node's)";
        return false;
      }
      std::memcpy(nodes.get(), state.get(), stateBytes);
    }

    for (int64_t t = begin; t < end; ++t) {
      if (nodes) {
        const int64_t parent = p.tokenParents[t];
        if (parent != t - begin - 1)
          std::memcpy(state.get(), &nodes[(parent + 1) * stateSize],
                      stateBytes);
      }
      for (int64_t h = 0; h < H; ++h) {
        const int64_t g = h / headsPerGroup;
        double d = p.dt[t * H + h];
        if (p.hasDtBias)
          d = referenceSoftplus(d + p.dtBias[h]);
        const double decay = std::exp(d * double(p.A[h]));
        const float *x = &p.x[(t * H + h) * P];
        const float *B = &p.B[(t * G + g) * N];
        const float *C = &p.C[(t * G + g) * N];
        double *S = &state[h * P * N];

        for (int64_t i = 0; i < P; ++i) {
          double acc = 0.0;
          for (int64_t n = 0; n < N; ++n) {
            double &s = S[i * N + n];
            s = decay * s + d * double(x[i]) * double(B[n]);
            acc += s * double(C[n]);
          }
          if (p.hasD)
            acc += double(p.D[h]) * double(x[i]);
          y[(t * H + h) * P + i] = acc;
        }
      }
      if (nodes)
        std::memcpy(&nodes[(t - begin + 1) * stateSize], state.get(),
                    stateBytes);
      if (checkpoints && (o + (t - begin) + 1) % I == 0) {
        const int64_t k = (o + (t - begin) + 1) / I - o / I - 1;
        const uint32_t target = k < p.checkpointK
                                    ? p.checkpointSlots[b * p.checkpointK + k]
                                    : kPaddingSlot;
        if (target != kPaddingSlot)
          write(target, o + (t - begin) + 1, state.get(), nullptr);
      }
    }

    if (p.writesState(b))
      write(slot, o + (end - begin), state.get(), nullptr);
  }
  return true;
}

} // namespace

bool ssd::referenceScan(const ScanProblem &p, std::vector<double> &y,
                        std::vector<double> &pool, std::string *error) {
  pool.assign(p.pool.begin(), p.pool.end());
  const size_t stateSize = size_t(p.H * p.P * p.N);
  auto write = [&](uint32_t slot, int64_t, const double *state,
                   const float *initial) {
    double *to = &pool[size_t(slot) * stateSize];
    for (size_t i = 0; i < stateSize; ++i)
      to[i] = state ? state[i] : initial ? double(initial[i]) : 0.0;
  };
  return scanStates(p, y, write, error);
}

bool ssd::referenceScan(const ScanProblem &p, std::vector<double> &y,
                        PoolContents &pool, std::string *error) {
  const bool scaled = isScaledPool(p.poolDType);
  pool = PoolContents();
  if (scaled) {
    pool.codes = p.poolCodes;
    pool.scales = p.poolScales;
  } else {
    pool.values = p.pool;
  }
  const bool stochastic = p.poolRounding == PoolRounding::Stochastic;
  const int64_t N = p.N, rows = p.H * p.P;
  std::vector<float> row(static_cast<size_t>(N));
  auto write = [&](uint32_t slot, int64_t tokens, const double *state,
                   const float *initial) {
    if (N == 0)
      return;
    for (int64_t r = 0; r < rows; ++r) {
      // The op holds its state in f32: every write starts from the state
      // rounded to f32, then follows the contract.
      for (int64_t n = 0; n < N; ++n)
        row[n] = state     ? float(state[r * N + n])
                 : initial ? initial[r * N + n]
                           : 0.0f;
      auto bits = [&](int64_t n) {
        return poolRandomBits(p.roundingSeed, n, r, slot, tokens);
      };
      const size_t at = (size_t(slot) * size_t(rows) + size_t(r)) * size_t(N);
      if (scaled) {
        encodePoolRow(p.poolDType, row.data(), N, stochastic, bits,
                      &pool.codes[at], pool.scales[at / size_t(N)]);
        continue;
      }
      for (int64_t n = 0; n < N; ++n)
        pool.values[at + n] = roundPoolValue(p.poolDType, row[n], stochastic,
                                             stochastic ? bits(n) : 0);
    }
  };
  return scanStates(p, y, write, error);
}

void ssd::roundOutputs(const ScanProblem &p, const std::vector<double> &y,
                       const std::vector<double> &pool,
                       std::vector<float> &yOut, std::vector<float> &poolOut) {
  yOut.resize(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    yOut[i] = roundDoubleToModelDType(y[i], p.dtype);
  poolOut.resize(pool.size());
  // A bf16 pool holds bf16 values: the written states are rounded once from
  // double (the others already are bf16 values, which rounding keeps).
  for (size_t i = 0; i < pool.size(); ++i)
    poolOut[i] = p.poolDType == PoolDType::BF16
                     ? roundDoubleToModelDType(pool[i], ModelDType::BF16)
                     : float(pool[i]);
}
