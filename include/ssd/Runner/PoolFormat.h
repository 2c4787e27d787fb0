//===- PoolFormat.h - the pool's storage formats in plain C++ ---*- C++ -*-===//
//
// The contract of docs/overview.md ("Compressed state pools") written once
// more, in plain C++ for the host: how ssd-run loads and stores a pool and
// how the reference rounds the states it writes. It shares no code with the
// IR that the lowerings emit (lib/Conversion/ScanEmitter/PoolCodec.cpp), so
// that comparing the two checks both.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_RUNNER_POOLFORMAT_H
#define SSD_RUNNER_POOLFORMAT_H

#include "ssd/Runner/Problem.h"

#include <array>
#include <cstdint>
#include <functional>

namespace ssd {

/// Philox4x32-10 (Salmon et al., SC 2011; as Random123 defines it).
std::array<uint32_t, 4> philox4x32x10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key);

/// The random word of stochastic rounding for element n of row
/// (h * P + p) of a state holding `tokens` tokens written into `slot`:
/// word 0 of Philox4x32-10 with counter (n, row, slot, tokens), each mod
/// 2^32, and key (seed mod 2^32, seed div 2^32) of the seed as uint64.
uint32_t poolRandomBits(int64_t seed, int64_t n, int64_t row, int64_t slot,
                        int64_t tokens);

/// Qmax of an 8-bit pool: 448 (f8E4M3FN) or 127 (i8).
float poolQmax(PoolDType t);

/// The value of an f8E4M3FN bit pattern (S.1111.111 is NaN).
float decodeF8E4M3FN(uint8_t code);
/// What the op reads from an 8-bit pool: float(code) * scale, one f32
/// multiplication (`code` is an int8 for i8).
float decodePoolCode(PoolDType t, uint8_t code, float scale);

/// An f32 state value rounded to a bf16 or f16 pool (returned as the f32
/// holding it; f32 pools keep it): to nearest even, or stochastically
/// with the random word `bits`.
float roundPoolValue(PoolDType t, float v, bool stochastic, uint32_t bits);

/// A row r[0..N) of f32 state values written to an 8-bit pool: its scale
/// and codes, nearest-even or stochastic with bits(n) the random word of
/// column n.
void encodePoolRow(PoolDType t, const float *r, int64_t N, bool stochastic,
                   const std::function<uint32_t(int64_t)> &bits, uint8_t *codes,
                   float &scale);

} // namespace ssd

#endif // SSD_RUNNER_POOLFORMAT_H
