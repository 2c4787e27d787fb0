//===- ScanEmitter.h - shared pieces of the scan loop builders --*- C++ -*-===//
//
// What both algorithms need in the same way: the op's extents as index
// values, reads that widen the model dtype to f32 and writes that round it
// back, the per-sequence bookkeeping (token range, slot, whether the pool is
// read and written), the processed dt, and small loop helpers. Keeping them
// here lets each builder read as its math.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_SCANEMITTER_H
#define SSD_LIB_CONVERSION_SCANEMITTER_SCANEMITTER_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "ssd/IR/SSDOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace ssd {
namespace detail {

/// The token range, slot and pool traffic of one sequence.
struct SequenceInfo {
  Value begin;        // index: first token
  Value end;          // index: one past the last token
  Value slot;         // index: pool slot (garbage for padding sequences)
  Value readsInitial; // i1: start from pool[slot] rather than zero
  Value writesState;  // i1: store the final state into pool[slot]
};

/// Every reader must see the pool as it was before the op. A writer whose
/// slot another sequence reads (tree speculation: one writer, many readers of
/// a slot) therefore does its pool work in a second pass, after every other
/// sequence has loaded its initial state; all other sequences run in the
/// first. This needs no copy of any state and, on a GPU, no host round trip:
/// the second pass is a second launch over the same grid.
struct WriterOrder {
  Value secondPass; // [batch] i1: the sequence runs in the second pass
  Value readers;    // [S] i32: sequences that read each slot
};

/// Which tokens each chunk of the chunked form covers. Chunks never cross a
/// sequence boundary; sequence b owns chunks [begin[b], begin[b + 1]).
struct ChunkWorkList {
  Value begin;           // [batch + 1] index
  Value seq, first, len; // [maxChunks] index: sequence, first token, tokens
  Value maxChunks;       // index: ceil(T / L) + batch bounds the count
};

/// One entry of the work list.
struct ChunkInfo {
  Value seq, first, len, last;
};

using BodyFn = function_ref<void(ImplicitLocOpBuilder &, ValueRange)>;
using IndexBodyFn = function_ref<void(ImplicitLocOpBuilder &, Value)>;
using ReduceBodyFn = function_ref<Value(ImplicitLocOpBuilder &, Value, Value)>;

/// How exp and log1p are emitted: `math` ops (lowered to libm or LLVM
/// intrinsics on the host), or the PTX approximations ex2.approx and
/// lg2.approx, which need no libdevice and are what fast GPU kernels use
/// (ex2: relative error about 2^-22; log1p uses a short series where
/// lg2's absolute error would be a large relative one).
enum class MathFlavor { Exact, NVVMApprox };

class ScanEmitter {
public:
  /// Reads the operands of `op` (memref form) and materialises its extents
  /// at the builder's insertion point.
  ScanEmitter(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
              MathFlavor flavor = MathFlavor::Exact);

  ChunkScanVarlenOp op;
  // Memrefs; optional ones are null when absent. cacheIndices is signless.
  Value x, dt, A, B, C, D, dtBias, pool, queryStartLoc, hasInitialState,
      cacheIndices, updateState, y;
  // Extents (index).
  Value tokens, heads, headDim, groups, dstate, batch, headsPerGroup;
  Type f32;
  MathFlavor flavor;

  // Constants.
  Value index(ImplicitLocOpBuilder &b, int64_t v) const;
  Value f32Const(ImplicitLocOpBuilder &b, double v) const;

  /// memref[indices] widened to f32.
  Value loadF32(ImplicitLocOpBuilder &b, Value memref,
                ValueRange indices) const;
  /// Stores an f32 value into memref[indices], rounded (nearest-even) to the
  /// memref's element type.
  void storeRounded(ImplicitLocOpBuilder &b, Value value, Value memref,
                    ValueRange indices) const;

  Value exp(ImplicitLocOpBuilder &b, Value v) const;
  Value log1p(ImplicitLocOpBuilder &b, Value v) const;

  /// The group that head `h` reads B and C from: h / (H / G).
  Value groupOf(ImplicitLocOpBuilder &b, Value head) const;
  /// d = softplus(dt + dt_bias) with dt_bias, else dt; in f32.
  Value processedDt(ImplicitLocOpBuilder &b, Value token, Value head) const;
  /// exp(min(delta, 0)): a decay factor that cannot overflow, whatever lane
  /// or masked term it is formed for.
  Value decay(ImplicitLocOpBuilder &b, Value delta) const;
  SequenceInfo sequence(ImplicitLocOpBuilder &b, Value seq) const;
  /// Sequence `seq`'s pool slot as cache_indices holds it (i32, -1 for
  /// padding, unchecked).
  Value rawSlot(ImplicitLocOpBuilder &b, Value seq) const;

  /// ceil(T / L) + batch: no launch has more chunks of length L, since
  /// sum_b ceil(len_b / L) <= sum_b (len_b / L + 1).
  Value maxChunkCount(ImplicitLocOpBuilder &b, int64_t chunkSize) const;
  /// Fills `list` serially over the sequences (a host loop, or the one
  /// thread of a GPU kernel) and returns the number of chunks, which is also
  /// stored at begin[batch]. Never writes past maxChunks, even for offsets
  /// that break the op's contract.
  Value fillChunkWorkList(ImplicitLocOpBuilder &b, const ChunkWorkList &list,
                          int64_t chunkSize) const;
  ChunkInfo chunkAt(ImplicitLocOpBuilder &b, const ChunkWorkList &list,
                    Value k) const;

  /// Decides which sequences run in the second pass (see WriterOrder).
  /// Serial loops over the slots and the batch: O(S + batch).
  WriterOrder planWriterOrder(ImplicitLocOpBuilder &b) const;
  /// i1: sequence `seq` belongs to pass `pass` (0 or 1).
  Value inPass(ImplicitLocOpBuilder &b, const WriterOrder &order, Value seq,
               unsigned pass) const;
  void freeWriterOrder(ImplicitLocOpBuilder &b, const WriterOrder &order) const;

  // Loop helpers; bodies get a builder positioned inside the loop.
  void parallel(ImplicitLocOpBuilder &b, ValueRange upperBounds,
                BodyFn body) const;
  void loop(ImplicitLocOpBuilder &b, Value lower, Value upper,
            IndexBodyFn body) const;
  Value reduce(ImplicitLocOpBuilder &b, Value lower, Value upper, Value init,
               ReduceBodyFn body) const;
  void ifThen(ImplicitLocOpBuilder &b, Value cond,
              function_ref<void(ImplicitLocOpBuilder &)> body) const;
  /// cond ? thenValue() : elseValue(), evaluating only the taken branch (so
  /// that a load from an invalid slot is never executed).
  Value ifElse(ImplicitLocOpBuilder &b, Value cond, Type type,
               function_ref<Value(ImplicitLocOpBuilder &)> thenValue,
               function_ref<Value(ImplicitLocOpBuilder &)> elseValue) const;
  /// ifElse with any number of results (none: an if-else for effects).
  SmallVector<Value> ifElseValues(
      ImplicitLocOpBuilder &b, Value cond, TypeRange types,
      function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> thenValues,
      function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> elseValues)
      const;
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_SCANEMITTER_H
