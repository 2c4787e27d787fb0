//===- pool-loader-fuzzer.cpp - libFuzzer target: compressed pool inputs --===//
//
// Feeds an input set of ssd-run with a compressed pool (docs/overview.md,
// "Compressed state pools": f16, or 8-bit codes with ssm_pool_scales.npy)
// through loadProblem and, for every set it accepts, through the reference's
// stores (PoolFormat.cpp) and the host operand layout, without compiling
// anything.
//
// Input format (the npy fuzzer's, with a 16th file and another header):
//   byte 0          bits 0-2 pool dtype (index % 5 into f32, bf16, f16,
//                   f8e4m3, i8), bit 3 stochastic rounding, bits 4-7 the
//                   checkpoint interval (0: none)
//   bytes 1-8       the rounding seed (int64, little-endian)
//   then records    [file index: 1 byte][length: 4 bytes, little-endian]
//                   [bytes]; index % 16 names the file (FuzzNpy.h)
//
// Properties checked (a violation aborts, which libFuzzer reports):
//   - a rejection is exactly one line naming a file of the set ("in/...");
//   - an accepted 8-bit pool has codes [S,H,P,N] and scales [S,H,P], and
//     the pool the op reads is their decoding; other pools have neither;
//   - the reference's stored pool keeps every slot the call cannot write
//     bit for bit, and every row it changes is valid: i8 codes in -127..127,
//     f8E4M3FN codes that are numbers where the scale is, a NaN scale only
//     over zero codes, 16-bit pools holding values of their type.
//
//===----------------------------------------------------------------------===//

#include "FuzzNpy.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Npy.h"
#include "ssd/Runner/PoolFormat.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Runner/Reference.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr size_t kFileCount = ssd_fuzz::kPoolFileCount;

[[noreturn]] void violated(const char *what, const std::string &detail) {
  ssd_fuzz::violated("pool-loader-fuzzer", what, detail);
}

void require(bool ok, const char *what, const std::string &detail = "") {
  if (!ok)
    violated(what, detail);
}

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 9)
    return 0;
  const ssd::PoolDType types[] = {ssd::PoolDType::F32, ssd::PoolDType::BF16,
                                  ssd::PoolDType::F16, ssd::PoolDType::F8E4M3FN,
                                  ssd::PoolDType::I8};
  const ssd::PoolDType poolDType = types[(data[0] & 7) % 5];
  const bool stochastic = (data[0] & 8) && poolDType != ssd::PoolDType::F32;
  const int64_t checkpointInterval = data[0] >> 4;
  uint64_t seed = 0;
  for (int i = 0; i < 8; ++i)
    seed |= uint64_t(data[1 + i]) << (8 * i);

  std::map<std::string, std::vector<uint8_t>> files =
      ssd_fuzz::readRecords(data, size, 9, kFileCount);

  ssd::ScanProblem p;
  std::string error;
  if (!ssd::loadProblemFromMemory(files, "in", ssd::ModelDType::F32, p, error,
                                  poolDType, checkpointInterval)) {
    ssd_fuzz::checkRejection("pool-loader-fuzzer", error);
    return 0;
  }
  const bool scaled = ssd::isScaledPool(poolDType);
  const int64_t rows = p.S * p.H * p.P, elements = rows * p.N;
  require(int64_t(p.pool.size()) == elements, "pool size");
  require(int64_t(p.poolCodes.size()) == (scaled ? elements : 0), "codes size");
  require(int64_t(p.poolScales.size()) == (scaled ? rows : 0), "scales size");
  for (int64_t i = 0; scaled && i < elements; ++i) {
    float decoded =
        ssd::decodePoolCode(poolDType, p.poolCodes[i], p.poolScales[i / p.N]);
    require(bitsOf(decoded) == bitsOf(p.pool[i]) ||
                (std::isnan(decoded) && std::isnan(p.pool[i])),
            "the pool read is not the codes decoded");
  }
  p.poolRounding = stochastic ? ssd::PoolRounding::Stochastic
                              : ssd::PoolRounding::NearestEven;
  p.roundingSeed = int64_t(seed);

  if (!ssd_fuzz::smallEnoughForTheReference(p))
    return 0;
  ssd::HostOperands operands(p);
  ssd_fuzz::checkHostOperands("pool-loader-fuzzer", p, operands);

  std::vector<double> y;
  ssd::PoolContents pool;
  require(ssd::referenceScan(p, y, pool, &error), "reference failed", error);
  require(y.size() == p.x.size(), "reference y size");
  require(int64_t(scaled ? pool.codes.size() : pool.values.size()) ==
                  elements &&
              int64_t(pool.scales.size()) == (scaled ? rows : 0),
          "reference pool sizes");

  // Slots the call may write: final states and every named checkpoint.
  std::set<int64_t> mayWrite;
  for (int64_t b = 0; b < p.batch; ++b)
    if (p.writesState(b))
      mayWrite.insert(p.cacheIndices[b]);
  for (uint32_t slot : p.checkpointSlots)
    if (slot != ssd::kPaddingSlot)
      mayWrite.insert(slot);
  // A row of such a slot is as it came in (the call did not reach it) or
  // was stored by the contract; every other row is as it came in.
  const int64_t slotRows = std::max<int64_t>(p.H * p.P, 1);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t at = r * p.N;
    bool unchanged =
        !scaled || bitsOf(pool.scales[r]) == bitsOf(p.poolScales[r]);
    for (int64_t n = 0; n < p.N; ++n)
      unchanged &= scaled
                       ? pool.codes[at + n] == p.poolCodes[at + n]
                       : bitsOf(pool.values[at + n]) == bitsOf(p.pool[at + n]);
    if (unchanged)
      continue;
    require(mayWrite.count(r / slotRows), "a slot no write names changed");
    for (int64_t n = 0; n < p.N; ++n) {
      const int64_t i = at + n;
      if (poolDType == ssd::PoolDType::I8)
        require(pool.codes[i] != 0x80, "i8 code -128 written");
      if (poolDType == ssd::PoolDType::F8E4M3FN && !std::isnan(pool.scales[r]))
        require((pool.codes[i] & 0x7f) != 0x7f, "f8E4M3FN NaN code written");
      if (scaled && std::isnan(pool.scales[r]))
        require(pool.codes[i] == 0, "a NaN scale over a nonzero code");
      if (poolDType == ssd::PoolDType::F16 && !std::isnan(pool.values[i]))
        require(ssd::halfBitsToFloat(ssd::floatToHalfBits(pool.values[i])) ==
                    pool.values[i],
                "an f16 pool holds a value that is not f16");
      if (poolDType == ssd::PoolDType::BF16 && !std::isnan(pool.values[i]))
        require((bitsOf(pool.values[i]) & 0xffff) == 0,
                "a bf16 pool holds a value that is not bf16");
    }
  }
  std::vector<float> yOut;
  ssd::PoolContents out;
  operands.readOutputs(yOut, out);
  require(int64_t(scaled ? out.codes.size() : out.values.size()) == elements,
          "host operand pool size");
  return 0;
}
