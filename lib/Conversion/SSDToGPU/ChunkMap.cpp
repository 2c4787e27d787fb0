//===- ChunkMap.cpp - chunks of the sequences, and locating one -----------===//
//
// Locating a chunk: sequence b owns chunks [c_b, c_{b+1}), c_b the sum of
// ceil(len / L) over the sequences before b. A block finds its chunk with
// an in-block parallel prefix over the batch (each thread sums a
// contiguous range of sequences, a block scan, then the thread whose range
// holds the chunk walks it); no separate work-list kernel.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

/// Tokens of sequence `seq` (0 for offsets that go backwards).
Value ChunkedKernelParts::sequenceLength(ImplicitLocOpBuilder &b, Value seq) {
  Value begin = signedIndex(b, load(b, e.queryStartLoc, seq));
  Value end = signedIndex(b, load(b, e.queryStartLoc, add(b, seq, 1)));
  return sub(b, arith::MaxSIOp::create(b, end, begin), begin);
}

Value ChunkedKernelParts::isChunked(ImplicitLocOpBuilder &b, Value len) {
  return minSequence ? ule(b, idx(b, minSequence), len) : boolean(b, true);
}

Value ChunkedKernelParts::chunksOf(ImplicitLocOpBuilder &b, Value seq) {
  Value len = sequenceLength(b, seq);
  Value chunks = ceilDiv(b, len, L);
  if (!minSequence)
    return chunks;
  return select(b, isChunked(b, len), chunks, idx(b, 0));
}

ChunkedKernelParts::SequenceRanges
ChunkedKernelParts::scanSequenceRanges(ImplicitLocOpBuilder &b, Value tid,
                                       Value lane, int64_t threads,
                                       Value scratch, Value chunkedScratch) {
  Value perThread = ceilDiv(b, e.batch, threads);
  Value lo = minu(b, mul(b, tid, perThread), e.batch);
  Value hi = minu(b, add(b, lo, perThread), e.batch);
  Value local = e.reduce(b, lo, hi, idx(b, 0),
                         [&](ImplicitLocOpBuilder &b, Value seq, Value sum) {
                           return add(b, sum, chunksOf(b, seq));
                         });
  SmallVector<Value> values{toI32(b, local)}, identity{i32(b, 0)};
  SmallVector<Value> scratches{scratch};
  if (chunkedScratch) {
    Value sequences =
        e.reduce(b, lo, hi, idx(b, 0),
                 [&](ImplicitLocOpBuilder &b, Value seq, Value sum) {
                   Value one = select(b, isChunked(b, sequenceLength(b, seq)),
                                      idx(b, 1), idx(b, 0));
                   return add(b, sum, one);
                 });
    values.push_back(toI32(b, sequences));
    identity.push_back(i32(b, 0));
    scratches.push_back(chunkedScratch);
  }
  BlockScanResult scan = blockExclusiveScan(
      b, tid, lane, threads, values, identity, scratches,
      [](ImplicitLocOpBuilder &b, ValueRange l, ValueRange r) {
        SmallVector<Value> sum;
        for (auto [x, y] : llvm::zip_equal(l, r))
          sum.push_back(arith::AddIOp::create(b, x, y));
        return sum;
      });
  SequenceRanges r{lo,
                   hi,
                   local,
                   toIndex(b, scan.exclusive[0]),
                   toIndex(b, scan.total[0]),
                   Value()};
  if (chunkedScratch)
    r.chunkedBefore = toIndex(b, scan.exclusive[1]);
  return r;
}

/// locateChunk for a block of launch 1 whose shared memory holds the
/// [warps] i32 scratch and the [2] i32 located pair at these offsets; the
/// body gets the located view too (state passing reads it again).
void ChunkedKernelParts::locateChunkOfBlock(
    ImplicitLocOpBuilder &b, const KernelContext &k, Value chunk,
    int64_t scratchOffset, int64_t locatedOffset,
    function_ref<void(ImplicitLocOpBuilder &, ChunkLocation, Value)> body) {
  Value tid = k.thread.x;
  Value scratch =
      sharedView(b, k, scratchOffset, {k.threads / 32}, b.getI32Type());
  Value located = sharedView(b, k, locatedOffset, {2}, b.getI32Type());
  locateChunk(
      b, chunk, tid, remu(b, tid, 32), k.threads, scratch, located,
      [&](ImplicitLocOpBuilder &b, ChunkLocation c) { body(b, c, located); });
}

/// Finds chunk `k` (uniform over the block) and runs `body` with it when
/// it exists. `scratch` is [warps] i32, `located` [2] i32 shared.
void ChunkedKernelParts::locateChunk(
    ImplicitLocOpBuilder &b, Value k, Value tid, Value lane, int64_t threads,
    Value scratch, Value located,
    function_ref<void(ImplicitLocOpBuilder &, ChunkLocation)> body) {
  SequenceRanges r = scanSequenceRanges(b, tid, lane, threads, scratch);
  Value mine =
      both(b, ule(b, r.before, k), ult(b, k, add(b, r.before, r.count)));
  e.ifThen(b, mine, [&](ImplicitLocOpBuilder &b) {
    SmallVector<Value> found = forLoop(
        b, r.lo, r.hi, {r.before, idx(b, 0), idx(b, 0)},
        [&](ImplicitLocOpBuilder &b, Value seq, ValueRange args) {
          Value run = args[0];
          Value next = add(b, run, chunksOf(b, seq));
          Value hit = both(b, ule(b, run, k), ult(b, k, next));
          return SmallVector<Value>{next, select(b, hit, seq, args[1]),
                                    select(b, hit, sub(b, k, run), args[2])};
        });
    store(b, toI32(b, found[1]), located, {idx(b, 0)});
    store(b, toI32(b, found[2]), located, {idx(b, 1)});
  });
  gpu::BarrierOp::create(b);
  e.ifThen(b, ult(b, k, r.total), [&](ImplicitLocOpBuilder &b) {
    Value seq = toIndex(b, load(b, located, {idx(b, 0)}));
    Value j = toIndex(b, load(b, located, {idx(b, 1)}));
    Value begin = signedIndex(b, load(b, e.queryStartLoc, seq));
    Value end = signedIndex(b, load(b, e.queryStartLoc, add(b, seq, 1)));
    Value first = add(b, begin, mul(b, j, L));
    Value len = minu(b, idx(b, L), sub(b, end, first));
    body(b, {seq, first, len});
  });
}

/// Block 0 of launch 1: chunkBegin[b] for b <= batch and chunkSeq[k]; in
/// a mixed launch also the list of chunked sequences and its length.
void ChunkedKernelParts::emitChunkMap(ImplicitLocOpBuilder &b, Value tid,
                                      Value lane, int64_t threads,
                                      Value scratch, Value chunkedScratch) {
  SequenceRanges r = scanSequenceRanges(b, tid, lane, threads, scratch,
                                        minSequence ? chunkedScratch : Value());
  SmallVector<Value> init{r.before};
  if (minSequence)
    init.push_back(r.chunkedBefore);
  SmallVector<Value> ends =
      forLoop(b, r.lo, r.hi, init,
              [&](ImplicitLocOpBuilder &b, Value seq, ValueRange runs) {
                Value run = runs[0];
                Value count = chunksOf(b, seq);
                store(b, toI32(b, minu(b, run, maxChunks)), chunkBegin, {seq});
                Value end = minu(b, add(b, run, count), maxChunks);
                e.loop(b, minu(b, run, maxChunks), end,
                       [&](ImplicitLocOpBuilder &b, Value k) {
                         store(b, toI32(b, seq), chunkSeq, {k});
                       });
                SmallVector<Value> next{add(b, run, count)};
                if (minSequence) {
                  Value chunked = isChunked(b, sequenceLength(b, seq));
                  e.ifThen(b, both(b, chunked, ult(b, runs[1], seqBound)),
                           [&](ImplicitLocOpBuilder &b) {
                             store(b, toI32(b, seq), chunkedSeqs, {runs[1]});
                           });
                  next.push_back(add(b, runs[1],
                                     select(b, chunked, idx(b, 1), idx(b, 0))));
                }
                return next;
              });
  e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
    store(b, toI32(b, minu(b, r.total, maxChunks)), chunkBegin, {e.batch});
  });
  if (minSequence) {
    // The last thread's range ends the list: its count is the total.
    e.ifThen(b, eq(b, tid, idx(b, threads - 1)), [&](ImplicitLocOpBuilder &b) {
      store(b, toI32(b, minu(b, ends[1], seqBound)), chunkedSeqs, {seqBound});
    });
  }
}

/// The sequence that entry `i` of launches 2 and 3 works on, when it
/// exists: entry i itself, or in a mixed launch the i-th chunked sequence.
void ChunkedKernelParts::forChunkedSequence(
    ImplicitLocOpBuilder &b, Value i,
    function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
  if (!minSequence)
    return body(b, i);
  Value count = toIndex(b, load(b, chunkedSeqs, {seqBound}));
  e.ifThen(b, ult(b, i, count), [&](ImplicitLocOpBuilder &b) {
    body(b, toIndex(b, load(b, chunkedSeqs, {i})));
  });
}

/// In a mixed launch, the sequences before `seq` (uniform over the
/// block) that run chunked: `seq`'s entry in chunkedSeqs, which launch 3
/// indexes by. Launch 1 cannot read that list (block 0 writes it in the
/// same launch), so a launch-1 block counts: each thread a strided share
/// of the batch, a warp sum, then a sum over the warps through
/// `warpCounts` ([warps] i32 shared), with two barriers.
Value ChunkedKernelParts::chunkedSequencesBefore(ImplicitLocOpBuilder &b,
                                                 Value seq, Value tid,
                                                 Value lane, int64_t threads,
                                                 Value warpCounts) {
  Value steps = ceilDiv(b, sub(b, maxu(b, seq, tid), tid), threads);
  Value count = e.reduce(
      b, idx(b, 0), steps, i32(b, 0),
      [&](ImplicitLocOpBuilder &b, Value i, Value acc) -> Value {
        Value other = add(b, tid, mul(b, i, threads));
        Value chunked = isChunked(b, sequenceLength(b, other));
        return arith::AddIOp::create(
            b, acc, arith::ExtUIOp::create(b, b.getI32Type(), chunked));
      });
  for (int32_t offset : {16, 8, 4, 2, 1})
    count = arith::AddIOp::create(
        b, count,
        gpu::ShuffleOp::create(b, count, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult());
  e.ifThen(b, eq(b, lane, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
    store(b, count, warpCounts, {divu(b, tid, 32)});
  });
  gpu::BarrierOp::create(b);
  Value total = i32(b, 0);
  for (int64_t w = 0; w < threads / 32; ++w)
    total = arith::AddIOp::create(b, total, load(b, warpCounts, {idx(b, w)}));
  // Nobody rewrites the counts before every thread has read them.
  gpu::BarrierOp::create(b);
  return toIndex(b, total);
}
