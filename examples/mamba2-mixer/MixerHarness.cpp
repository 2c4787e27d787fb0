//===- MixerHarness.cpp - inputs and check of the Mamba-2 mixer example ---===//

#include "MixerHarness.h"

#include "ssd/Runner/Npy.h"
#include "ssd/Runner/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

using namespace ssd;
using namespace ssd::mixer;

Shapes mixer::mamba2Shapes() {
  Shapes s;
  s.H = 80, s.P = 64, s.N = 128, s.G = 1;
  s.dInProj = 2 * s.H * s.P + 2 * s.G * s.N + s.H;
  return s;
}

void *HostArray::describe(void *base) {
  auto pointer = reinterpret_cast<int64_t>(base ? base : bytes.data());
  descriptor = {pointer, pointer, 0};
  descriptor.insert(descriptor.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  return descriptor.data();
}

namespace {

HostArray modelArray(const std::vector<float> &v, std::vector<int64_t> shape,
                     ModelDType t) {
  HostArray a;
  a.shape = std::move(shape);
  if (t == ModelDType::F32) {
    a.bytes.resize(v.size() * 4);
    if (!v.empty())
      std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    return a;
  }
  a.bytes.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t bits =
        t == ModelDType::F16 ? floatToHalfBits(v[i]) : floatToBF16Bits(v[i]);
    std::memcpy(a.bytes.data() + 2 * i, &bits, 2);
  }
  return a;
}

template <typename T>
HostArray rawArray(const std::vector<T> &v, std::vector<int64_t> shape) {
  HostArray a;
  a.shape = std::move(shape);
  a.bytes.resize(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

float readModel(const uint8_t *p, ModelDType t) {
  if (t == ModelDType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return t == ModelDType::F16 ? halfBitsToFloat(bits) : bf16BitsToFloat(bits);
}

} // namespace

Inputs mixer::makeInputs(const Shapes &s, ModelDType dt,
                         const std::vector<int32_t> &seqlens, uint64_t seed) {
  Inputs in;
  const int64_t H = s.H, P = s.P, N = s.N, G = s.G, dInner = H * P;
  const int64_t batch = static_cast<int64_t>(seqlens.size());
  const int64_t S = batch + 2; // two slots no sequence names
  std::vector<int32_t> qsl = {0};
  for (int32_t len : seqlens)
    qsl.push_back(qsl.back() + len);
  const int64_t T = qsl.back();
  in.T = T, in.batch = batch, in.S = S;

  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto model = [&](double v) { return roundDoubleToModelDType(v, dt); };

  // zxbcdt: z, x, B, C ~ N(0, 1); raw dt in [-0.5, 0.5], so that
  // softplus(dt + dt_bias) stays within about [1e-3, 1e-1].
  in.zxbcdt.resize(static_cast<size_t>(T * s.dInProj));
  const int64_t dtColumn = 2 * dInner + 2 * G * N;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < s.dInProj; ++c)
      in.zxbcdt[t * s.dInProj + c] =
          model(c < dtColumn ? normal(rng) : uniform(-0.5, 0.5));
  in.A.resize(H), in.D.resize(H), in.dtBias.resize(H);
  for (int64_t h = 0; h < H; ++h) {
    in.A[h] = model(uniform(-16.0, -1.0));
    in.D[h] = model(uniform(0.5, 1.5));
    double dt0 = std::exp(uniform(std::log(2e-3), std::log(5e-2)));
    in.dtBias[h] = model(std::log(std::expm1(dt0))); // softplus^-1(dt0)
  }
  in.pool.resize(static_cast<size_t>(S * H * P * N));
  for (float &v : in.pool)
    v = 0.25f * normal(rng);
  // Slots: a shuffled permutation; the second to last sequence is padding
  // (index -1); every third sequence starts from zero.
  std::vector<int32_t> slots(S);
  for (int64_t i = 0; i < S; ++i)
    slots[i] = static_cast<int32_t>(i);
  std::shuffle(slots.begin(), slots.end(), rng);
  in.cacheIndices.resize(batch);
  in.hasInitialState.resize(batch);
  for (int64_t b = 0; b < batch; ++b) {
    in.cacheIndices[b] = (batch >= 3 && b == batch - 2) ? -1 : slots[b];
    in.hasInitialState[b] = b % 3 != 1;
  }
  in.queryStartLoc = std::move(qsl);
  return in;
}

std::vector<HostArray> mixer::operandArrays(const Shapes &s, const Inputs &in,
                                            ModelDType dt) {
  std::vector<HostArray> arrays;
  arrays.push_back(modelArray(in.zxbcdt, {in.T, s.dInProj}, dt));
  arrays.push_back(modelArray(in.A, {s.H}, dt));
  arrays.push_back(modelArray(in.D, {s.H}, dt));
  arrays.push_back(modelArray(in.dtBias, {s.H}, dt));
  arrays.push_back(rawArray(in.pool, {in.S, s.H, s.P, s.N}));
  arrays.push_back(rawArray(in.queryStartLoc, {in.batch + 1}));
  arrays.push_back(rawArray(in.hasInitialState, {in.batch}));
  arrays.push_back(rawArray(in.cacheIndices, {in.batch}));
  return arrays;
}

size_t mixer::itemSize(ModelDType dt) { return dt == ModelDType::F32 ? 4 : 2; }

size_t mixer::outputExtent(const int64_t *result, ModelDType dt) {
  if (result[3] <= 0 || result[4] <= 0)
    return 0;
  int64_t last =
      result[2] + (result[3] - 1) * result[5] + (result[4] - 1) * result[6];
  return static_cast<size_t>(last + 1) * itemSize(dt);
}

std::vector<float> mixer::readOutput(const uint8_t *aligned,
                                     const int64_t *result, const Shapes &s,
                                     const Inputs &in, ModelDType dt) {
  const int64_t dInner = s.H * s.P;
  const uint8_t *base = aligned + result[2] * itemSize(dt);
  std::vector<float> out(static_cast<size_t>(in.T * dInner));
  for (int64_t t = 0; t < in.T; ++t)
    for (int64_t c = 0; c < dInner; ++c)
      out[t * dInner + c] =
          readModel(base + (t * result[5] + c * result[6]) * itemSize(dt), dt);
  return out;
}

double mixer::tolerance(ModelDType t) {
  switch (t) {
  case ModelDType::F32:
    return 5e-4;
  case ModelDType::F16:
    return 1e-2;
  case ModelDType::BF16:
    return 3e-2;
  }
  return 0;
}

bool mixer::check(const Shapes &s, const Inputs &in, ModelDType dt,
                  const std::vector<float> &out,
                  const std::vector<float> &poolOut, const std::string &name,
                  const std::string &label, bool wrongExpected) {
  const int64_t H = s.H, P = s.P, N = s.N, G = s.G, dInner = H * P;
  const int64_t T = in.T, batch = in.batch, S = in.S;
  const int64_t dtColumn = 2 * dInner + 2 * G * N;
  ScanProblem p;
  p.T = T, p.H = H, p.P = P, p.G = G, p.N = N, p.S = S, p.batch = batch;
  p.dtype = dt;
  p.x.resize(T * H * P), p.dt.resize(T * H), p.B.resize(T * G * N),
      p.C.resize(T * G * N);
  std::vector<float> z(static_cast<size_t>(T * dInner));
  for (int64_t t = 0; t < T; ++t) {
    const float *row = &in.zxbcdt[t * s.dInProj];
    std::copy(row, row + dInner, &z[t * dInner]);
    std::copy(row + dInner, row + 2 * dInner, &p.x[t * dInner]);
    std::copy(row + 2 * dInner, row + 2 * dInner + G * N, &p.B[t * G * N]);
    std::copy(row + 2 * dInner + G * N, row + dtColumn, &p.C[t * G * N]);
    std::copy(row + dtColumn, row + dtColumn + H, &p.dt[t * H]);
  }
  p.A = in.A;
  p.hasDtBias = true;
  p.dtBias = in.dtBias;
  p.pool = in.pool;
  p.queryStartLoc = in.queryStartLoc;
  for (int32_t c : in.cacheIndices)
    p.cacheIndices.push_back(static_cast<uint32_t>(c));
  p.hasInitialStatePresent = true;
  p.hasInitialState = in.hasInitialState;
  std::vector<double> yRef, poolRef;
  referenceScan(p, yRef, poolRef);

  double outErr = 0, outMax = 0;
  bool finite = true;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t q = 0; q < P; ++q) {
        int64_t i = (t * H + h) * P + q;
        double zv = z[i];
        double skip = wrongExpected ? 0.0 : double(in.D[h]) * double(p.x[i]);
        double expected = (yRef[i] + skip) * zv / (1.0 + std::exp(-zv));
        finite = finite && std::isfinite(out[i]);
        outErr = std::max(outErr, std::fabs(double(out[i]) - expected));
        outMax = std::max(outMax, std::fabs(expected));
      }

  std::vector<bool> written(S, false);
  for (int64_t b = 0; b < batch; ++b)
    if (p.writesState(b))
      written[p.cacheIndices[b]] = true;
  double poolErr = 0, poolMax = 0;
  int64_t writtenSlots = 0, untouchedSlots = 0;
  bool untouchedIdentical = true;
  const int64_t slotSize = H * P * N;
  for (int64_t slot = 0; slot < S; ++slot) {
    const float *got = &poolOut[slot * slotSize];
    if (!written[slot]) {
      ++untouchedSlots;
      untouchedIdentical =
          untouchedIdentical && !std::memcmp(got, &in.pool[slot * slotSize],
                                             slotSize * sizeof(float));
      continue;
    }
    ++writtenSlots;
    for (int64_t i = 0; i < slotSize; ++i) {
      double expected = poolRef[slot * slotSize + i];
      finite = finite && std::isfinite(got[i]);
      poolErr = std::max(poolErr, std::fabs(double(got[i]) - expected));
      poolMax = std::max(poolMax, std::fabs(expected));
    }
  }

  double tol = tolerance(dt);
  double outRel = outMax > 0 ? outErr / outMax : outErr;
  double poolRel = poolMax > 0 ? poolErr / poolMax : poolErr;
  bool pass = finite && untouchedIdentical && outRel <= tol && poolRel <= tol;
  std::printf("mamba2 mixer %s: dtype=%s %s T=%lld batch=%lld H=%lld "
              "P=%lld N=%lld G=%lld slots=%lld\n",
              name.c_str(), toString(dt), label.c_str(), (long long)T,
              (long long)batch, (long long)H, (long long)P, (long long)N,
              (long long)G, (long long)S);
  std::printf("  out:  max|out-ref|/max|ref| = %.3e (tolerance %.0e)\n", outRel,
              tol);
  std::printf("  pool: max|out-ref|/max|ref| = %.3e over %lld written slots; "
              "%lld other slots %s\n",
              poolRel, (long long)writtenSlots, (long long)untouchedSlots,
              untouchedIdentical ? "bit-identical" : "CHANGED");
  if (!finite)
    std::printf("  non-finite values in the output\n");
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  std::fflush(stdout);
  return pass;
}

bool mixer::parseSeqlens(const std::string &text, std::vector<int32_t> &out) {
  out.clear();
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 0 || v > (1 << 20))
      return false;
    out.push_back(static_cast<int32_t>(v));
  }
  return !out.empty();
}
