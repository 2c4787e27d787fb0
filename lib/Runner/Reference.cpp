//===- Reference.cpp - Double-precision reference of the SSD scan ---------===//

#include "ssd/Runner/Reference.h"

#include <cmath>

using namespace ssd;

double ssd::referenceSoftplus(double v) {
  return v > 20.0 ? v : std::log1p(std::exp(v));
}

void ssd::referenceScan(const ScanProblem &p, std::vector<double> &y,
                        std::vector<double> &pool) {
  const int64_t H = p.H, P = p.P, N = p.N, G = p.G;
  const int64_t headsPerGroup = H / G;
  const int64_t stateSize = H * P * N; // One slot: [H, P, N].

  y.assign(size_t(p.T * H * P), 0.0);
  pool.assign(p.pool.begin(), p.pool.end());
  std::vector<double> state(static_cast<size_t>(stateSize));

  for (int64_t b = 0; b < p.batch; ++b) {
    const uint32_t slot = p.cacheIndices[b];

    if (p.readsState(b)) {
      for (int64_t i = 0; i < stateSize; ++i)
        state[i] = p.pool[slot * stateSize + i];
    } else {
      state.assign(size_t(stateSize), 0.0);
    }

    for (int64_t t = p.queryStartLoc[b]; t < p.queryStartLoc[b + 1]; ++t) {
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
    }

    if (p.writesState(b))
      for (int64_t i = 0; i < stateSize; ++i)
        pool[slot * stateSize + i] = state[i];
  }
}

void ssd::roundOutputs(const ScanProblem &p, const std::vector<double> &y,
                       const std::vector<double> &pool,
                       std::vector<float> &yOut, std::vector<float> &poolOut) {
  yOut.resize(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    yOut[i] = roundDoubleToModelDType(y[i], p.dtype);
  poolOut.resize(pool.size());
  for (size_t i = 0; i < pool.size(); ++i)
    poolOut[i] = float(pool[i]);
}
