//===- Checkpoints.h - where a scan writes its state checkpoints -*- C++
//-*-===//
//
// The op's checkpoint contract as index arithmetic both algorithms share.
// With o = checkpoint_offsets[b] (0 when absent), interval I and
// phase = o mod I, sequence b crosses boundary k = 0, 1, ... after its local
// token j_k = (k + 1) I - phase - 1: o + j_k + 1 = (floor(o / I) + k + 1) I
// is a multiple of I, and (o + j + 1) / I - floor(o / I) - 1 = k there. The
// first m local tokens hold (phase + m) / I boundaries. Everything is index
// (64-bit) arithmetic on zero-extended i32 values: phase < 2^31 and m < 2^31,
// so no sum overflows, whatever o + j + 1 would be in i32.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H
#define SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H

#include "ScanEmitter/ScanEmitter.h"

namespace mlir {
namespace ssd {
namespace detail {

/// One sequence's checkpoint boundaries.
struct CheckpointRange {
  Value begin; // index: the sequence's first token
  Value phase; // index: o mod I
  Value limit; // index: K, or 0 for a padding sequence (which writes none);
               // boundaries k >= limit are not written
};

class CheckpointEmitter {
public:
  /// Reads the op's checkpoint operands; all null when it has none.
  CheckpointEmitter(ImplicitLocOpBuilder &b, const ScanEmitter &e);

  /// Whether the op writes checkpoints at all.
  explicit operator bool() const { return slots != nullptr; }

  CheckpointRange range(ImplicitLocOpBuilder &b, Value seq,
                        const SequenceInfo &s) const;
  /// Boundaries among the first `localTokens` tokens of the sequence,
  /// whether written or not (not clamped to the limit).
  Value boundariesWithin(ImplicitLocOpBuilder &b, const CheckpointRange &r,
                         Value localTokens) const;
  /// min(boundariesWithin, limit): the boundaries written (slots permitting).
  Value writtenWithin(ImplicitLocOpBuilder &b, const CheckpointRange &r,
                      Value localTokens) const;
  /// One past the token after which boundary k falls:
  /// begin + (k + 1) I - phase.
  Value boundaryEnd(ImplicitLocOpBuilder &b, const CheckpointRange &r,
                    Value k) const;
  /// Calls `body` with checkpoint_slots[seq, k] as an index unless the entry
  /// is -1 (0xFFFFFFFF). `k` must be below the range's limit.
  void ifSlot(ImplicitLocOpBuilder &b, Value seq, Value k,
              function_ref<void(ImplicitLocOpBuilder &, Value)> body) const;

  const ScanEmitter &e;
  Value slots;   // [batch, K] signless i32, or null
  Value offsets; // [batch] i32, or null (every offset 0)
  Value count;   // index: K
  int64_t interval = 0;
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H
