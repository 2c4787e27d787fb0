//===- Collectives.h - warp collectives and PTX math -----------*- C++ -*-===//
//
// The results of the GPU operations the emulator models, as plain functions
// of their operands (no threads, no state): the fragment layouts of mma.sync,
// the source lane of each shfl.sync mode, and the approximate math
// instructions. The executor gathers a warp's operands and calls these.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_COLLECTIVES_H
#define SSD_LIB_GPURUNTIME_EMULATOR_COLLECTIVES_H

#include "ssd/GPURuntime/EmulatorABI.h"

#include <cstdint>

namespace ssd {
namespace emulator {

constexpr unsigned kWarpSize = 32;

/// One lane's registers of an mma.sync (the larger shape's counts).
struct MmaFragments {
  uint32_t a[4];
  uint32_t b[2];
  float c[4];
  float d[4];
};

/// Registers per lane of each operand of `kind`.
struct MmaCounts {
  unsigned a, b;
  unsigned k; ///< reduction extent
  bool bf16;  ///< bf16 operands, else f16
};
MmaCounts mmaCounts(MmaKind kind);

/// d = A B + c for the 32 lanes of a warp, A (16 x K, row-major) and B
/// (K x 8, column-major) gathered from the lanes' a/b registers and the
/// 16 x 8 accumulator from their c registers as the PTX ISA's fragment tables
/// for m16n8k16 / m16n8k8 lay them out:
///   g = lane / 4, t = lane % 4, two 16-bit values per register, the lower
///   index in the low half;
///   A: register r holds row g + 8 (r % 2), columns 2t, 2t + 1 (+ 8 if r >= 2)
///   B: register r holds rows 2t, 2t + 1 (+ 8 for r = 1), column g
///   C/D: element i holds row g + 8 (i / 2), column 2t + i % 2.
/// Products of bf16/f16 values are exact in f32; they are accumulated onto
/// c in f32 in order of increasing k.
void mmaSync(MmaKind kind, MmaFragments lanes[kWarpSize]);

/// Where shfl.sync in `mode` reads for `lane`, with the PTX ISA's clamp and
/// segment mask taken from `c` (bits 0-4 and 8-12); `inRange` false means the
/// lane keeps its own value.
struct ShuffleSource {
  unsigned lane;
  bool inRange;
};
ShuffleSource shuffleSource(ShuffleMode mode, unsigned lane, uint32_t b,
                            uint32_t c);

float bf16ToFloat(uint16_t bits);
float halfToFloat(uint16_t bits);

/// The approximate math instructions computed exactly (correctly rounded
/// from double precision), with the .ftz flushing of subnormal inputs and
/// results; libdevice functions from the host's libm in double precision.
float mathF32(MathOp op, float x);
double mathF64(MathOp op, double x);

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_COLLECTIVES_H
