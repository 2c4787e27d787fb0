//===- LoopBuilders.h - the two scan algorithms as loops --------*- C++ -*-===//

#ifndef SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H
#define SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Transforms/FormSelection.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace ssd {
namespace detail {

class ScanEmitter;
struct WriterOrder;

/// The sequences that have any work: tokens, or a final state to store.
/// Others (empty non-writing sequences, e.g. padding with no tokens) are
/// skipped without a task, so the parallel loops of both forms run over
/// at most min(batch, T + S) sequences instead of batch: a launch that
/// declares huge extents but holds no tokens and no slots does no work.
/// `list` ([batch] index) holds the first-pass sequences (see WriterOrder)
/// in increasing order from the front and the second-pass ones from the
/// back; built by one serial O(batch) loop.
struct ActiveSequences {
  Value list;
  Value count[2]; // index: sequences in pass 0 and pass 1
};
ActiveSequences buildActiveSequences(ImplicitLocOpBuilder &b,
                                     const ScanEmitter &e,
                                     const WriterOrder &order);
/// The i-th sequence of pass `pass`.
Value activeSequence(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                     const ActiveSequences &active, unsigned pass, Value i);
void freeActiveSequences(ImplicitLocOpBuilder &b,
                         const ActiveSequences &active);

/// index: o = checkpoint_offsets[seq] (zero-extended; 0 without the
/// operand), the tokens the sequence's state held before this call. A
/// written state holds o + (its local tokens), the last word of the Philox
/// counter of stochastic pool rounding (PoolWriteSite::tokensHeld).
Value priorTokens(ImplicitLocOpBuilder &b, const ScanEmitter &e, Value seq);
/// index: o + (end - begin): the tokens a state written after local token
/// end - begin - 1 of a sequence starting at `begin` holds.
Value tokensHeld(ImplicitLocOpBuilder &b, Value prior, Value begin, Value end);

/// Rows of a token-serial task's state tile for a static N: `pTile` clamped
/// to [1, kMaxSerialPTile], to head_dim, and to kMaxStateTileBytes of f32, so
/// that a task's heap tile stays below the allocator's mmap threshold and is
/// reused, not faulted in afresh, by the next task. For a dynamic N the last
/// bound is applied at run time (emitTileRows).
int64_t staticTileRows(ChunkScanVarlenOp op, int64_t pTile,
                       int64_t staticDState);
/// The tile's rows as an index: `pTile` for a static N, else
/// clamp(kMaxStateTileBytes / 4 / N, 1, pTile) at run time.
Value emitTileRows(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                   int64_t staticDState, int64_t pTile);
/// The token-serial forms' tasks, one per (head, row tile of `tileRows`
/// rows, active sequence), in two parallel loops: pass 1 holds the writers
/// whose slot other sequences read (see WriterOrder). Heads and tiles
/// outermost: OpenMP's static schedule gives each thread a contiguous block
/// of tasks, and this way every block holds its share of each sequence, so
/// one long sequence among short ones is split evenly.
void forEachSerialTask(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                       Value tileRows,
                       function_ref<void(ImplicitLocOpBuilder &, Value seq,
                                         Value head, Value tileIndex)>
                           emitTask);

/// A per-task f32 scratch buffer of `shape` (dynamic sizes from
/// `dynamicSizes`): on the stack when its size is static and at most
/// kMaxStackTileBytes, else on the heap, so that no stack allocation grows
/// with N or P, and aligned to kScratchAlignment bytes (a cache line). `heap`
/// tells the caller to free it (freeScratch).
constexpr int64_t kScratchAlignment = 64;
struct Scratch {
  Value buffer;
  bool heap = false;
};
Scratch allocateScratch(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape,
                        ValueRange dynamicSizes);
void freeScratch(ImplicitLocOpBuilder &b, const Scratch &scratch);

/// Replace `op` (memref form, serial) with the token-serial loop nest, its
/// state rows in vectors of up to `vectorWidth` f32 lanes.
void buildSerialScan(RewriterBase &rewriter, ChunkScanVarlenOp op,
                     int64_t pTile, int64_t vectorWidth);
/// Replace `op` (memref form, chunked) with the chunked SSD loop nests.
void buildChunkedScan(RewriterBase &rewriter, ChunkScanVarlenOp op,
                      int64_t chunkSize);
/// Replace `op` (memref form, invariant, either form) with the token-serial
/// loop nest of the canonical arithmetic (ScanEmitter/CanonicalMath.h), its
/// tasks `pTile` head_dim rows each; the bits of every y row and state do
/// not depend on the schedule.
void buildInvariantScan(RewriterBase &rewriter, ChunkScanVarlenOp op,
                        int64_t pTile = kSerialPTileDefault);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H
