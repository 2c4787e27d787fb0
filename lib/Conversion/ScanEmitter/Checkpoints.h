//===- Checkpoints.h - where a scan writes its state checkpoints -*- C++
//-*-===//
//
// The op's checkpoint contract as index arithmetic every lowering shares.
// With o = checkpoint_offsets[b] (0 when absent), interval I and
// phase = o mod I, sequence b crosses boundary k = 0, 1, ... after its local
// token j_k = (k + 1) I - phase - 1: o + j_k + 1 = (floor(o / I) + k + 1) I
// is a multiple of I, and (o + j + 1) / I - floor(o / I) - 1 = k there. The
// first m local tokens hold (phase + m) / I boundaries. Everything is index
// (64-bit) arithmetic on zero-extended i32 values: phase < 2^31 and m < 2^31,
// so no sum overflows, whatever o + j + 1 would be in i32.
//
// CheckpointOperands holds that arithmetic; the loop lowerings ask it for
// the ends of the segments between boundaries (CheckpointEmitter), the GPU
// kernels for a per-token test (Checkpoints in SSDToGPU/GPUBuilders.h).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H
#define SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H

#include "ScanEmitter/ScanEmitter.h"

namespace mlir {
namespace ssd {
namespace detail {

/// The op's checkpoint operands and the boundary arithmetic on them.
class CheckpointOperands {
public:
  /// Reads the op's checkpoint operands at `b`; all null (false) when it
  /// has no checkpoint_slots.
  CheckpointOperands(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op);

  /// Whether the op writes checkpoints at all.
  explicit operator bool() const { return static_cast<bool>(slots); }

  /// index: phase = o mod I of sequence `seq` (0 without offsets).
  Value phase(ImplicitLocOpBuilder &b, Value seq) const;
  /// i1: sequence `seq` writes checkpoints, i.e. is not padding.
  Value writes(ImplicitLocOpBuilder &b, const ScanEmitter &e, Value seq) const;
  /// index: boundaries among the first `localTokens` tokens of a sequence:
  /// (phase + m) / I, whether written or not.
  Value boundariesWithin(ImplicitLocOpBuilder &b, Value phase,
                         Value localTokens) const;
  /// index: `from` + one past the local token after which boundary k
  /// falls: from + (k + 1) I - phase (from: 0 when null).
  Value boundaryEnd(ImplicitLocOpBuilder &b, Value from, Value phase,
                    Value k) const;
  /// Whether local token `j` ends a boundary (i1: (phase + j + 1) mod I is
  /// 0), and the boundary k it would end: (phase + j + 1) / I - 1 (index).
  std::pair<Value, Value> boundaryAfter(ImplicitLocOpBuilder &b, Value phase,
                                        Value j) const;
  /// checkpoint_slots[seq, k] (i32); k must be below K.
  Value slotEntry(ImplicitLocOpBuilder &b, Value seq, Value k) const;
  /// i1: a checkpoint_slots entry names a slot (is not -1).
  Value isWritten(ImplicitLocOpBuilder &b, Value entry) const;

  int64_t interval = 0;
  Value slots;   // [batch, K] i32 (ui32 viewed as signless), or null
  Value offsets; // [batch] i32, or null (every offset 0)
  Value columns; // index: K
};

/// One sequence's checkpoint boundaries, for the loop lowerings.
struct CheckpointRange {
  Value begin; // index: the sequence's first token
  Value phase; // index: o mod I
  Value limit; // index: K, or 0 for a padding sequence (which writes none);
               // boundaries k >= limit are not written
};

/// What the loop lowerings ask: the segments between written boundaries.
class CheckpointEmitter : public CheckpointOperands {
public:
  CheckpointEmitter(ImplicitLocOpBuilder &b, const ScanEmitter &e);

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
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_CHECKPOINTS_H
