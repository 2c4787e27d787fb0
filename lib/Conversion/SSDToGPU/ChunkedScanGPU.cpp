//===- ChunkedScanGPU.cpp - the chunked SSD scan as GPU launches ----------===//
//
// The decomposition of ChunkedScan.cpp (see there for the math). Sequence b
// is cut into chunks of at most L tokens; with d_t the processed dt, A_h the
// head's decay rate and cum_s = sum_{r <= s} d_r A_h within the chunk
// (s = 0 .. len-1), chunk k of head h (group g) contributes
//
//   dS_k[p, n]   = sum_s exp(cum_last - cum_s) d_s x[s, p] B[s, n]
//   G_k[i, j]    = sum_n C[i, n] B[j, n]                      (per group)
//   S_prev(k)    = state entering chunk k: the initial state for the first
//                  chunk, then S_prev(k+1) = exp(cum_last) S_prev(k) + dS_k
//   y[i, p]      = exp(cum_i) sum_n C[i, n] S_prev(k)[p, n]
//                + sum_{j <= i} G_k[i, j] exp(cum_i - cum_j) d_j x[j, p]
//                + D_h x[i, p]
//   final state  = exp(cum_last) S_prev(last chunk) + dS_last
//
// Three launches, ordered by the stream; every pool read happens in launch 2
// and every pool write in launch 3, so each sequence reads the pool as it
// was before the call, with no writer-order kernels:
//
//   1. chunk kernel, 256 threads, three block roles from blockIdx.x:
//      - block 0 maps chunks to sequences for launches 2 and 3
//        (chunkBegin[b], chunkSeq[k]);
//      - (chunk, head, state part) blocks: locate the chunk, d and cum as a
//        parallel compensated scan, the decay weights exp(cum_last - cum_s)
//        d_s once per chunk in shared memory, then dS_k = Xwᵀ B on tensor
//        cores, stored (f32) to the workspace with cum, d and exp(cum_last);
//      - (chunk, group, 64x64 tile at or below the diagonal) blocks:
//        G_k = C Bᵀ, computed once per group rather than per head.
//   2. state passing, 256 threads, a block per (sequence, head, 1024 state
//      elements): each thread owns 4 consecutive state elements and walks
//      the sequence's chunks in order (coalesced, the next chunk's loads
//      issued before the current update), reading the initial state from
//      the pool and writing S_prev(k) (as the mma element type, hi/lo for
//      f32 models) and the final state (f32) to the workspace.
//   3. output kernel, 128 threads, two block roles:
//      - (chunk, head, 64 rows) blocks: y = (C S_prevᵀ) scaled by exp(cum_i)
//        per row, plus W X with W[i, j] = G[i, j] exp(cum_i - cum_j) d_j
//        (j <= i), plus D x; one accumulator tile on tensor cores, staged
//        through shared memory so that y rows leave in 16-byte chunks;
//      - (sequence, head, 512 state elements) blocks store the final state
//        of each writing sequence into its pool slot.
//
// Fused state passing (option fused-state-passing, 16-bit models; f32
// models keep three launches, see the builder): launch 2 goes away.
// The host zeroes a ticket counter and one flag per (chunk, head, state
// part); every block of launch 1 takes a ticket (an atomic add by thread 0)
// and uses it instead of blockIdx.x, so blocks are numbered in the order
// they start and a block only ever waits for a smaller ticket, a block that
// is running or done: forward progress on a GPU that starts blocks in any
// order. A (chunk, head, part) block computes dS in registers, then (a
// decoupled look-back: the wait comes after its own matmul) waits for the
// flag of chunk k - 1 (ld.acquire.gpu poll by thread 0 with nanosleep
// backoff, barrier), takes S_prev from the ring slot (k - 1) % 2 (or the pool
// for a sequence's first chunk), stores S_prev for the output kernel and
// publishes S = exp(cum_last) S_prev + dS to ring slot k % 2 (a writing
// sequence's last chunk to its pool slot, or for a contested writer to its
// final-state slot): stores, barrier, one st.release.gpu of its flag
// (cumulative over what the barrier ordered before it). The update runs on the
// dS fragments, each lane moving pairs of adjacent state elements. Chunk k
// waits for chunk k - 1 even across sequences: the ring slot it overwrites was
// read by chunk k - 1, which published after reading it. The ring is 2 H P N
// f32, so the published states stay in L2 instead of round-tripping DRAM. Pool
// reads move to launch 1, pool writes stay in the output kernel: the op's
// ordering holds.
//
// Fused output (option fused-output, with fused state passing, when one
// block holds a chunk's whole state): launch 3 keeps only its final-state
// blocks. Within a chunk the C Bᵀ blocks take their tickets before the
// (chunk, head) blocks and, once their tile is stored, add one to a count
// per (chunk, group). A (chunk, head) block keeps cum (hi, lo), d and
// exp(cum) per token and S_prev (as the mma element) in shared memory;
// after publishing its state it waits for that count to reach the chunk's
// T (T + 1) / 2 tiles (T = ceil(len / 64)) and computes y exactly as the
// output kernel does, up to 256 rows at a time (S_prev read from its
// resident tile at each k-step's columns). So S_prev never goes to DRAM and x
// is read by one block, shortly after the same block read it for dS.
//
// State checkpoints (checkpoint_slots): when every boundary ends a chunk
// (no offsets, the interval a multiple of L) the fused chunk kernel stores
// each with the state it publishes (passState). Otherwise LowerToGPU.cpp
// turns both fused modes off, and launch 2 writes them. A boundary at a chunk's
// last token stores the S_prev(k+1) that state passing computes anyway (one
// more state write); boundaries inside a chunk need states the decomposition
// never forms, so the thread walks the chunk's tokens serially from S_prev(k)
// up to its last such boundary, S <- exp(d_t A) S + d_t x_t B_tᵀ for its own
// elements, storing at each (emitChunkCheckpoints: the math and its cost).
//
// Mixed launches (buildMixedScanGPU): only sequences of at least
// `minSequence` tokens run chunked. Their chunk counts are ceil(len / L),
// the others' 0; at most T / minSequence sequences qualify, which bounds
// the grids of launches 2 and 3 (block 0 of launch 1 lists them), and the
// three launches run only when T reaches minSequence at all.
//
// Locating a chunk: sequence b owns chunks [c_b, c_{b+1}), c_b the sum of
// ceil(len / L) over the sequences before b. A block finds its chunk with
// an in-block parallel prefix over the batch (each thread sums a
// contiguous range of sequences, a block scan, then the thread whose range
// holds the chunk walks it); no separate work-list kernel.
//
// Tensor cores: operands are staged as bf16 (f16 for f16 models; f32 models
// split each value into two bf16, three products, see WarpMma.cpp) in
// swizzled shared tiles read by ldmatrix, in k-steps of 32, double-buffered
// with one barrier per step: the next step's operands are fetched (cp.async
// for tiles copied as they are: x, B, C and S_prev of 16-bit models;
// registers for the scaled ones: decay-weighted x and W) while the current
// one multiplies.
//
// The in-chunk log-decays cum_i - cum_j are differences of prefix sums that
// reach several hundred; in plain f32 the difference would keep the rounding
// error of every addition in between (the CPU form walks backwards instead,
// which a matmul tile cannot). So the prefix sums are compensated (TwoSum):
// cum = hi + lo, and hi_i - hi_j is exact for the nearby tokens whose decay
// matters (Sterbenz), with (lo_i - lo_j) restoring the rest. The parallel
// scan combines (hi, lo) pairs with TwoSum as well, so every partial sum
// keeps its rounding error in lo. Decays are exp(min(delta, 0)).
//
// Every workspace comes from one device buffer per call
// (ssdGPUWorkspace), sized from T, batch and the chunk bound
// K = ceil(T / L) + batch (sum_b ceil(len_b / L) <= sum_b (len_b / L + 1)).
//
//===----------------------------------------------------------------------===//

#include "ChunkedPlan.h"
#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <tuple>

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

namespace {

/// The chunk a block works on.
struct ChunkLocation {
  Value seq, first, len;
};

class ChunkedScanGPUBuilder {
public:
  /// `minSequence` > 0: a mixed launch, where only sequences of at least
  /// that many tokens run chunked (the serial kernels take the others).
  ChunkedScanGPUBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                        const ChunkedPlan &plan,
                        const LowerToGPUOptions &options,
                        int64_t minSequence = 0)
      : e(b, op, MathFlavor::NVVMApprox), checkpoints(b, op), plan(plan),
        x(plan.x), L(plan.chunkSize), minSequence(minSequence),
        async(options.asyncCopies), fused(plan.fused),
        fusedOutput(plan.fusedOutput),
        loads(options.ldmatrix ? FragmentLoads::LdMatrix
                               : FragmentLoads::Scalar),
        op(op) {
    modelType = cast<MemRefType>(op.getX().getType()).getElementType();
    mmaType = mmaElementType(b.getContext(), plan.element);
    // State checkpoints are written by launch 2 (emitChunkCheckpoints), or,
    // when all of them end chunks, where the fused chunk kernel publishes
    // (passState); LowerToGPU.cpp turns the fused modes off otherwise.
    assert((!checkpoints || !fused ||
            Checkpoints::atChunkEndsOnly(op, plan.chunkSize)) &&
           "checkpoints inside chunks need state passing as a launch of its "
           "own");
  }

  /// Records the form's workspace buffers (host code at `b`).
  void declareWorkspace(ImplicitLocOpBuilder &b, WorkspaceBuilder &w);
  void bindWorkspace(ArrayRef<Value> views);

  /// The three launches (two when state passing is fused); in a mixed
  /// launch only when T reaches the per-sequence threshold (otherwise no
  /// sequence runs chunked).
  void emitLaunches(ImplicitLocOpBuilder &b) {
    auto launches = [&](ImplicitLocOpBuilder &b) {
      if (fused) {
        // The ticket counter and the publication flags start at 0.
        gpu::MemsetOp::create(b, /*asyncToken=*/Type(), ValueRange{}, flags,
                              i32(b, 0));
      }
      emitChunkKernel(b);
      if (!fused)
        emitStatePassing(b);
      emitOutputKernel(b);
    };
    if (!minSequence)
      return launches(b);
    e.ifThen(b, ule(b, idx(b, minSequence), e.tokens), launches);
  }

private:
  ScanEmitter e;
  Checkpoints checkpoints;
  const ChunkedPlan &plan;
  StaticExtents x;
  int64_t L;
  int64_t minSequence;
  bool async;
  bool fused, fusedOutput;
  FragmentLoads loads;
  ChunkScanVarlenOp op;
  Type modelType, mmaType;

  // Host-side extents.
  Value maxChunks;  // ceil(T / L) + batch
  Value chunkRows;  // min(L, T): rows of a chunk's C Bᵀ
  Value paddedRows; // chunkRows rounded up to 8
  Value rowTiles;   // ceil(chunkRows / 64)
  Value seqBound;   // sequences that may run chunked: batch, or in a mixed
                    // launch min(batch, T / minSequence)

  // Workspace views.
  Value chunkBegin;        // [batch + 1] i32: first chunk of each sequence
  Value chunkSeq;          // [K] i32: sequence of each chunk
  Value cumHi, cumLo, dts; // [K, H, paddedRows] f32 per chunk token
  Value chunkDecay;        // [K, H] f32: exp(cum_last)
  Value states;            // [K, H, P, N] f32: dS_k (unfused)
  Value prevHigh, prevLow; // [K, H, P, N] mma element: S_prev(k) (hi, lo)
  Value finals;            // [seqBound, H, P, N] f32: final states (fused:
                           // only contested writers' are stored here)
  Value chunkedSeqs;       // mixed launches: [seqBound + 1] i32, the sequences
                           // that run chunked, then their count
  Value cb;                // [K, G, chunkRows, paddedRows] f32: C Bᵀ
  Value flags; // [1 + K (H parts + G')] i32: the ticket counter, then per
               // (chunk, head, part) 1 once its inclusive state is
               // published; with the fused output (G' = G) then per (chunk,
               // group) the C Bᵀ tiles stored so far
  int64_t flagsPerChunk() const {
    return x.heads * plan.stateParts + (fusedOutput ? x.groups : 0);
  }
  Value ring; // [2, H, P, N] f32: inclusive states, by chunk parity

  //===------------------------------------------------------------------===//
  // Helpers
  //===------------------------------------------------------------------===//

  Value load(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  void store(ImplicitLocOpBuilder &b, Value v, Value memref,
             ValueRange indices) {
    memref::StoreOp::create(b, v, memref, indices);
  }
  Value zeroOf(ImplicitLocOpBuilder &b, Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(
          b, vector,
          DenseElementsAttr::get(vector,
                                 b.getZeroAttr(vector.getElementType())));
    return arith::ConstantOp::create(b, type, b.getZeroAttr(type));
  }
  Value vectorLoad(ImplicitLocOpBuilder &b, VectorType type, Value memref,
                   ValueRange indices, int64_t align) {
    return vector::LoadOp::create(b, type, memref, indices,
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(align));
  }
  void vectorStore(ImplicitLocOpBuilder &b, Value v, Value memref,
                   ValueRange indices, int64_t align) {
    vector::StoreOp::create(b, v, memref, indices, /*nontemporal=*/false,
                            llvm::MaybeAlign(align));
  }
  /// cond ? then() : zeros, for several values; `then` runs only when cond.
  SmallVector<Value>
  ifValues(ImplicitLocOpBuilder &b, Value cond,
           function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then) {
    SmallVector<Type> types;
    auto ifOp = scf::IfOp::create(
        b, cond,
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder inner(loc, nested);
          SmallVector<Value> values = then(inner);
          for (Value v : values)
            types.push_back(v.getType());
          scf::YieldOp::create(inner, values);
        },
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder inner(loc, nested);
          SmallVector<Value> zeros;
          for (Type t : types)
            zeros.push_back(zeroOf(inner, t));
          scf::YieldOp::create(inner, zeros);
        });
    return SmallVector<Value>(ifOp.getResults());
  }
  /// for (i = lower; i < upper; ++i) with loop-carried values.
  SmallVector<Value>
  forLoop(ImplicitLocOpBuilder &b, Value lower, Value upper, ValueRange init,
          function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, Value,
                                          ValueRange)>
              body) {
    auto loop = scf::ForOp::create(
        b, lower, upper, idx(b, 1), init,
        [&](OpBuilder &nested, Location loc, Value i, ValueRange args) {
          ImplicitLocOpBuilder inner(loc, nested);
          scf::YieldOp::create(inner, body(inner, i, args));
        });
    return SmallVector<Value>(loop.getResults());
  }
  Value signedIndex(ImplicitLocOpBuilder &b, Value i32) {
    return arith::IndexCastOp::create(b, b.getIndexType(), i32);
  }
  /// Tokens of sequence `seq` (0 for offsets that go backwards).
  Value sequenceLength(ImplicitLocOpBuilder &b, Value seq) {
    Value begin = signedIndex(b, load(b, e.queryStartLoc, seq));
    Value end = signedIndex(b, load(b, e.queryStartLoc, add(b, seq, 1)));
    return sub(b, arith::MaxSIOp::create(b, end, begin), begin);
  }
  Value isChunked(ImplicitLocOpBuilder &b, Value len) {
    return minSequence ? ule(b, idx(b, minSequence), len) : boolean(b, true);
  }
  Value chunksOf(ImplicitLocOpBuilder &b, Value seq) {
    Value len = sequenceLength(b, seq);
    Value chunks = ceilDiv(b, len, L);
    if (!minSequence)
      return chunks;
    return select(b, isChunked(b, len), chunks, idx(b, 0));
  }

  //===------------------------------------------------------------------===//
  // Cross-block publication (fused state passing)
  //===------------------------------------------------------------------===//

  /// A generic pointer to element `indices` of an i32 or f32 memref, for the
  /// atomic loads and stores that memref ops cannot express.
  Value elementPointer(ImplicitLocOpBuilder &b, Value memref,
                       ValueRange indices) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
    Value linear = meta.getOffset();
    for (auto [i, stride] : llvm::zip_equal(indices, meta.getStrides()))
      linear = add(b, linear, mul(b, i, stride));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
    Value address = arith::IndexCastUIOp::create(
        b, b.getI64Type(), add(b, base, mul(b, linear, 4)));
    return LLVM::IntToPtrOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext()), address);
  }
  /// ld.acquire.gpu of an i32.
  Value loadAcquire(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
    return LLVM::LoadOp::create(
        b, b.getI32Type(), elementPointer(b, memref, indices), 4,
        /*isVolatile=*/false, /*isNonTemporal=*/false,
        /*isInvariant=*/false,
        /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire, "device");
  }
  /// st.release.gpu of an i32.
  void storeRelease(ImplicitLocOpBuilder &b, Value v, Value memref,
                    ValueRange indices) {
    LLVM::StoreOp::create(b, v, elementPointer(b, memref, indices), 4,
                          /*isVolatile=*/false, /*isNonTemporal=*/false,
                          /*isInvariantGroup=*/false,
                          LLVM::AtomicOrdering::release, "device");
  }
  /// fence.acq_rel.gpu: with a relaxed write after it, PTX's release
  /// pattern. Cumulative: what a bar.sync ordered before it (the other
  /// threads' stores) is published too. (NVPTX drops the ordering of an
  /// atomicrmw and emits a relaxed `atom`, so an atomic publishes only
  /// behind this fence.)
  void releaseFenceGPU(ImplicitLocOpBuilder &b) {
    LLVM::FenceOp::create(b, LLVM::AtomicOrdering::release, "device");
  }
  /// Spins (thread 0 of the block) until flags[index] is nonzero, or
  /// reaches `expected` (i32), with ld.acquire.gpu: the block's barrier
  /// after the wait hands what it acquired to the other threads. Between
  /// polls the thread sleeps, 32 ns doubling to kMaxBackoffNs, so that
  /// waiting blocks leave the SM's issue slots and the L2 to the blocks
  /// they wait for; the cap bounds the latency a wait adds once the flag
  /// is set (about one L2 round trip).
  static constexpr int32_t kMaxBackoffNs = 256;
  void waitForFlag(ImplicitLocOpBuilder &b, Value index,
                   Value expected = Value()) {
    scf::WhileOp::create(
        b, TypeRange{b.getI32Type()}, ValueRange{i32(b, 32)},
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder w(loc, nested);
          Value seen = loadAcquire(w, flags, {index});
          Value unset = expected
                            ? cmp(w, arith::CmpIPredicate::ult, seen, expected)
                            : eq(w, seen, i32(w, 0));
          scf::ConditionOp::create(w, unset, args);
        },
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder w(loc, nested);
          NVVM::NanosleepOp::create(w, args[0]);
          Value doubled = arith::ShLIOp::create(w, args[0], i32(w, 1));
          scf::YieldOp::create(w, ValueRange{arith::MinUIOp::create(
                                      w, doubled, i32(w, kMaxBackoffNs))});
        });
  }
  /// The block's logical index: a ticket from the launch's counter, taken
  /// by thread 0 and broadcast through shared word 0. Blocks are numbered in
  /// the order they start, so a block that waits for a smaller ticket waits
  /// for a block that is running or done: forward progress on a GPU that
  /// starts blocks in any order.
  Value takeTicket(ImplicitLocOpBuilder &b, const KernelContext &k, Value tid) {
    Value word = sharedView(b, k, 0, {1}, b.getI32Type());
    e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      Value ticket =
          memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(b, 1),
                                      flags, ValueRange{idx(b, 0)});
      store(b, ticket, word, {idx(b, 0)});
    });
    gpu::BarrierOp::create(b);
    Value ticket = toIndex(b, load(b, word, {idx(b, 0)}));
    gpu::BarrierOp::create(b);
    return ticket;
  }

  /// TwoSum: (hi, lo) + step, keeping the rounding error of hi + step in lo.
  std::pair<Value, Value> addCompensated(ImplicitLocOpBuilder &b, Value hi,
                                         Value lo, Value step) {
    Value next = faddExact(b, hi, step);
    Value stepPart = fsubExact(b, next, hi);
    Value hiPart = fsubExact(b, next, stepPart);
    Value err =
        faddExact(b, fsubExact(b, hi, hiPart), fsubExact(b, step, stepPart));
    return {next, faddExact(b, lo, err)};
  }
  SmallVector<Value> combineCompensated(ImplicitLocOpBuilder &b,
                                        ValueRange earlier, ValueRange later) {
    auto [hi, lo] = addCompensated(b, earlier[0], earlier[1], later[0]);
    return {hi, faddExact(b, lo, later[1])};
  }
  /// exp(min(cum_i - cum_j, 0)) from compensated sums.
  Value decayBetween(ImplicitLocOpBuilder &b, Value hiI, Value loI, Value hiJ,
                     Value loJ) {
    return e.decay(
        b, faddExact(b, fsubExact(b, hiI, hiJ), fsubExact(b, loI, loJ)));
  }

  //===------------------------------------------------------------------===//
  // Workspace
  //===------------------------------------------------------------------===//

  /// Index of each workspace view (declareWorkspace order) in the views the
  /// WorkspaceBuilder returns; ~0u for a buffer this launch does not need.
  SmallVector<unsigned> workspaceSlots;

  //===------------------------------------------------------------------===//
  // Chunk location (launch 1)
  //===------------------------------------------------------------------===//

  /// The per-thread range of sequences and the block scan of their chunk
  /// counts: every thread gets its range [lo, hi), the chunks before it and
  /// the total.
  struct SequenceRanges {
    Value lo, hi, count, before, total;
    Value chunkedBefore; // chunked sequences before lo (mixed launches)
  };
  SequenceRanges scanSequenceRanges(ImplicitLocOpBuilder &b, Value tid,
                                    Value lane, Value scratch,
                                    Value chunkedScratch = Value()) {
    Value perThread = ceilDiv(b, e.batch, kChunkThreads);
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
        b, tid, lane, kChunkThreads, values, identity, scratches,
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

  /// Finds chunk `k` (uniform over the block) and runs `body` with it when
  /// it exists. `scratch` is [warps] i32, `located` [2] i32 shared.
  void
  locateChunk(ImplicitLocOpBuilder &b, Value k, Value tid, Value lane,
              Value scratch, Value located,
              function_ref<void(ImplicitLocOpBuilder &, ChunkLocation)> body) {
    SequenceRanges r = scanSequenceRanges(b, tid, lane, scratch);
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
  void emitChunkMap(ImplicitLocOpBuilder &b, Value tid, Value lane,
                    Value scratch, Value chunkedScratch) {
    SequenceRanges r = scanSequenceRanges(
        b, tid, lane, scratch, minSequence ? chunkedScratch : Value());
    SmallVector<Value> init{r.before};
    if (minSequence)
      init.push_back(r.chunkedBefore);
    SmallVector<Value> ends = forLoop(
        b, r.lo, r.hi, init,
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
            next.push_back(
                add(b, runs[1], select(b, chunked, idx(b, 1), idx(b, 0))));
          }
          return next;
        });
    e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      store(b, toI32(b, minu(b, r.total, maxChunks)), chunkBegin, {e.batch});
    });
    if (minSequence) {
      // The last thread's range ends the list: its count is the total.
      e.ifThen(b, eq(b, tid, idx(b, kChunkThreads - 1)),
               [&](ImplicitLocOpBuilder &b) {
                 store(b, toI32(b, minu(b, ends[1], seqBound)), chunkedSeqs,
                       {seqBound});
               });
    }
  }

  /// The sequence that entry `i` of launches 2 and 3 works on, when it
  /// exists: entry i itself, or in a mixed launch the i-th chunked sequence.
  void
  forChunkedSequence(ImplicitLocOpBuilder &b, Value i,
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
  Value chunkedSequencesBefore(ImplicitLocOpBuilder &b, Value seq, Value tid,
                               Value lane, Value warpCounts) {
    const int64_t threads = kChunkThreads;
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

  //===------------------------------------------------------------------===//
  // Operand staging
  //===------------------------------------------------------------------===//

  /// 8 consecutive elements of `memref` along its last dimension, from
  /// `indices` (the last one a multiple of 8), as vector<8xf32>; elements
  /// at or past `extent` along that dimension, or all when !valid, are 0.
  /// Never touches memory it does not return.
  Value loadEight(ImplicitLocOpBuilder &b, Value memref,
                  SmallVector<Value> indices, int64_t extent, Value valid) {
    auto type = cast<MemRefType>(memref.getType());
    Type element = type.getElementType();
    auto f32x8 = VectorType::get({8}, b.getF32Type());
    if (extent % 8 == 0) {
      return ifValues(b, valid,
                      [&](ImplicitLocOpBuilder &b) {
                        Value v = vectorLoad(b, VectorType::get({8}, element),
                                             memref, indices, 16);
                        if (!element.isF32())
                          v = arith::ExtFOp::create(b, f32x8, v);
                        return SmallVector<Value>{v};
                      })
          .front();
    }
    SmallVector<Value> values;
    Value col0 = indices.back();
    for (int64_t q = 0; q < 8; ++q) {
      SmallVector<Value> at(indices);
      at.back() = add(b, col0, q);
      Value ok = both(b, valid, ult(b, at.back(), extent));
      values.push_back(e.ifElse(
          b, ok, b.getF32Type(),
          [&](ImplicitLocOpBuilder &b) { return e.loadF32(b, memref, at); },
          [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); }));
    }
    return vector::FromElementsOp::create(b, f32x8, values);
  }

  /// Whether a tile of `memref` (16-bit model element) can be copied to
  /// shared memory as it is: rows of whole 16-byte chunks.
  bool copiesRaw(Value memref, int64_t extent) const {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return element == mmaType && extent % 8 == 0 && !plan.split;
  }

  /// Copies 8 elements of `memref` at `indices` (zeros when !valid) into
  /// chunk (row, col) of `tile`: with cp.async, returning nothing, or as a
  /// load whose value `depositRaw` stores.
  SmallVector<Value> fetchRaw(ImplicitLocOpBuilder &b, Value memref,
                              SmallVector<Value> indices, Value valid,
                              const SwizzledTile &tile, Value row, Value col) {
    if (async) {
      // src-size 0 zero-fills without reading; the address stays in bounds
      // anyway (the callers clamp rows).
      Value srcElements = select(b, valid, idx(b, 8), idx(b, 0));
      Value r = tile.bufferRow(b, row);
      nvgpu::DeviceAsyncCopyOp::create(
          b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile.buffer,
          ValueRange{r, tile.physicalColumn(b, r, col)}, memref, indices,
          b.getIndexAttr(8), srcElements, b.getUnitAttr());
      return {};
    }
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return ifValues(b, valid, [&](ImplicitLocOpBuilder &b) {
      return SmallVector<Value>{
          vectorLoad(b, VectorType::get({8}, element), memref, indices, 16)};
    });
  }
  /// Fetches 8 elements of B or C (`memref`) at row `row` of chunk `c` and
  /// state column `col` into `values`: copied as they are into chunk (r, n)
  /// of `stage` when `raw`, else loaded as f32. Rows past the chunk and
  /// columns past N are zeros; the token is clamped to the chunk's last, so
  /// no address leaves the sequence.
  void fetchStateOperand(ImplicitLocOpBuilder &b, Value memref, bool raw,
                         const ChunkLocation &c, Value group, Value row,
                         Value col, const SwizzledTile &stage, Value r, Value n,
                         SmallVector<Value> &values) {
    Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
    Value valid = both(b, ult(b, row, c.len), ult(b, col, x.dstate));
    Value t = minu(b, add(b, c.first, row), lastToken);
    if (raw)
      llvm::append_range(
          values, fetchRaw(b, memref, {t, group, col}, valid, stage, r, n));
    else
      values.push_back(loadEight(b, memref, {t, group, col}, x.dstate, valid));
  }
  void depositRaw(ImplicitLocOpBuilder &b, ValueRange fetched,
                  const SwizzledTile &tile, Value row, Value col) {
    if (!fetched.empty())
      tile.storeChunk(b, row, col, fetched.front());
  }
  /// Stores 8 f32 values as the mma element (and their low parts for f32
  /// models).
  void depositConverted(ImplicitLocOpBuilder &b, Value values,
                        const MmaOperand &operand, Value row, Value col) {
    operand.high.storeChunk(b, row, col, toMmaElement(b, values, plan.element));
    if (operand.split())
      operand.low.storeChunk(b, row, col, mmaLowPart(b, values, plan.element));
  }

  /// One double-buffered reduction of `steps` steps (at least 1). `fetch`
  /// issues the step's copies into a stage and returns the values that
  /// `deposit` stores into it after the current step's mma; `compute` runs
  /// the mma of a stage. One barrier per step; the stages are free again
  /// when it returns.
  using FetchFn = function_ref<SmallVector<Value>(ImplicitLocOpBuilder &,
                                                  Value step, Value stage)>;
  using DepositFn = function_ref<void(ImplicitLocOpBuilder &, ValueRange,
                                      Value step, Value stage)>;
  using ComputeFn = function_ref<SmallVector<Value>(
      ImplicitLocOpBuilder &, Value step, Value stage, ValueRange acc)>;
  SmallVector<Value> pipelinedReduction(ImplicitLocOpBuilder &b, Value steps,
                                        ValueRange accInit, FetchFn fetch,
                                        DepositFn deposit, ComputeFn compute) {
    Value zero = idx(b, 0), one = idx(b, 1);
    SmallVector<Value> first = fetch(b, zero, zero);
    deposit(b, first, zero, zero);
    if (async)
      NVVM::CpAsyncCommitGroupOp::create(b);
    SmallVector<Value> acc =
        forLoop(b, zero, steps, accInit,
                [&](ImplicitLocOpBuilder &b, Value step,
                    ValueRange acc) -> SmallVector<Value> {
                  Value stage = remu(b, step, 2);
                  Value nextStage = sub(b, one, stage);
                  if (async)
                    NVVM::CpAsyncWaitGroupOp::create(b, 0);
                  // The step's operands are visible; every thread is done with
                  // the stage the next step overwrites.
                  gpu::BarrierOp::create(b);
                  Value next = add(b, step, 1);
                  Value hasNext = ult(b, next, steps);
                  SmallVector<Value> fetched =
                      ifValues(b, hasNext, [&](ImplicitLocOpBuilder &b) {
                        return fetch(b, next, nextStage);
                      });
                  if (async)
                    NVVM::CpAsyncCommitGroupOp::create(b);
                  SmallVector<Value> out = compute(b, step, stage, acc);
                  e.ifThen(b, hasNext, [&](ImplicitLocOpBuilder &b) {
                    deposit(b, fetched, next, nextStage);
                  });
                  return out;
                });
    gpu::BarrierOp::create(b);
    return acc;
  }

  /// The warp's mma steps on one stage, skipped by warps without tiles.
  /// `bStaged` false: B is a resident tile, read from column `bK` on.
  SmallVector<Value> warpStep(ImplicitLocOpBuilder &b, const MmaLane &lane,
                              const WarpTile &tile, const MmaOperand &a,
                              const MmaOperand &bOp, Value stage,
                              ValueRange acc, bool bStaged = true,
                              Value bK = Value()) {
    return ifValuesElse(b, tile.active, acc, [&](ImplicitLocOpBuilder &b) {
      MmaOperand as = atStage(b, a, stage);
      MmaOperand bs = bStaged ? atStage(b, bOp, stage) : bOp;
      SmallVector<Value> out(acc.begin(), acc.end());
      warpMatmul(b, lane, tile, as, bs, 0, kStep, plan.element, loads, out, bK);
      return out;
    });
  }
  /// cond ? then() : otherwise.
  SmallVector<Value>
  ifValuesElse(ImplicitLocOpBuilder &b, Value cond, ValueRange otherwise,
               function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then) {
    auto ifOp = scf::IfOp::create(b, TypeRange(otherwise), cond, true);
    {
      ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
      inner.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(inner, then(inner));
      inner.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(inner, otherwise);
    }
    return SmallVector<Value>(ifOp.getResults());
  }

  MmaOperand operand(ImplicitLocOpBuilder &b, const KernelContext &k,
                     int64_t highOffset, int64_t lowOffset, int64_t rows,
                     int64_t cols, bool kRows) {
    MmaOperand o;
    o.high = sharedTile(b, k, highOffset, rows, cols, mmaType, 2);
    if (plan.split)
      o.low = sharedTile(b, k, lowOffset, rows, cols, mmaType, 2);
    o.kRows = kRows;
    return o;
  }

  /// Every (row, 8-column chunk) of a [rows x cols] tile, dealt to `threads`
  /// threads: `body(i, row, col)` for the i-th chunk of this thread. Values
  /// the body appends to `*collected` (fetches) stay usable after the loop
  /// (a chunk index past the tile gives zeros).
  void forEachChunk(
      ImplicitLocOpBuilder &b, Value tid, int64_t threads, int64_t rows,
      int64_t cols,
      function_ref<void(ImplicitLocOpBuilder &, int64_t, Value, Value)> body,
      SmallVector<Value> *collected = nullptr) {
    const int64_t chunksPerRow = cols / 8, total = rows * chunksPerRow;
    for (int64_t i = 0; i * threads < total; ++i) {
      Value c = add(b, tid, i * threads);
      Value row = divu(b, c, chunksPerRow);
      Value col = mul(b, remu(b, c, chunksPerRow), 8);
      if ((i + 1) * threads <= total) {
        body(b, i, row, col);
        continue;
      }
      Value inTile = ult(b, c, total);
      if (!collected) {
        e.ifThen(b, inTile,
                 [&](ImplicitLocOpBuilder &b) { body(b, i, row, col); });
        continue;
      }
      size_t before = collected->size();
      SmallVector<Value> results =
          ifValues(b, inTile, [&](ImplicitLocOpBuilder &b) {
            body(b, i, row, col);
            SmallVector<Value> added(collected->begin() + before,
                                     collected->end());
            collected->resize(before);
            return added;
          });
      collected->append(results.begin(), results.end());
    }
  }

  //===------------------------------------------------------------------===//
  // Epilogue helpers
  //===------------------------------------------------------------------===//

  MmaOperand atStage(ImplicitLocOpBuilder &b, const MmaOperand &o,
                     Value stage) {
    MmaOperand s = o;
    s.high = o.high.stage(b, stage);
    if (o.split())
      s.low = o.low.stage(b, stage);
    return s;
  }

  /// For each pair of horizontally adjacent accumulators (columns col and
  /// col + 1) of the warp's tile: `body(row, col, first, second)`.
  void forEachAccumulatorPair(
      ImplicitLocOpBuilder &b, const MmaLane &lane, const WarpTile &tile,
      ValueRange acc,
      function_ref<void(ImplicitLocOpBuilder &, Value, Value, Value, Value)>
          body) {
    forEachAccumulator(
        b, lane, tile,
        [&](ImplicitLocOpBuilder &b, Value row, Value col, int64_t i) {
          if (i % 2 == 0)
            body(b, row, col, acc[i], acc[i + 1]);
        });
  }

  /// Stores `first`, `second` at indices ..col and ..col+1 of `memref`
  /// (rounded to its element type) where the columns are below `extent`:
  /// one 2-element store when both are and `pairs` (the row stride is even,
  /// so the pair is aligned), else one or two scalar stores.
  void storePair(ImplicitLocOpBuilder &b, Value memref,
                 SmallVector<Value> indices, Value extent, Value first,
                 Value second, bool pairs) {
    Value col = indices.back();
    Value bothIn = ult(b, add(b, col, 1), extent);
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto storeScalar = [&](ImplicitLocOpBuilder &b, Value v, Value at) {
      SmallVector<Value> i(indices);
      i.back() = at;
      e.storeRounded(b, v, memref, i);
    };
    if (pairs) {
      auto ifBoth = scf::IfOp::create(b, TypeRange{}, bothIn, true);
      ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
      t.setInsertionPoint(ifBoth.thenBlock()->getTerminator());
      Value v = vector::FromElementsOp::create(
          t, VectorType::get({2}, t.getF32Type()), ValueRange{first, second});
      if (!element.isF32())
        v = arith::TruncFOp::create(t, VectorType::get({2}, element), v);
      vectorStore(t, v, memref, indices,
                  2 * element.getIntOrFloatBitWidth() / 8);
      t.setInsertionPoint(ifBoth.elseBlock()->getTerminator());
      e.ifThen(t, ult(t, col, extent),
               [&](ImplicitLocOpBuilder &b) { storeScalar(b, first, col); });
      return;
    }
    e.ifThen(b, ult(b, col, extent),
             [&](ImplicitLocOpBuilder &b) { storeScalar(b, first, col); });
    e.ifThen(b, bothIn, [&](ImplicitLocOpBuilder &b) {
      storeScalar(b, second, add(b, col, 1));
    });
  }

  //===------------------------------------------------------------------===//
  // Launch 1: the chunk kernel
  //===------------------------------------------------------------------===//

  void emitChunkKernel(ImplicitLocOpBuilder &b) {
    const int64_t stateBlocksPerChunk = x.heads * plan.stateParts;
    Value tilePairs = mul(b, rowTiles, rowTiles);
    Value perChunk = add(b, mul(b, tilePairs, x.groups), stateBlocksPerChunk);
    Value blocks = add(b, mul(b, maxChunks, perChunk), 1);
    Value one = idx(b, 1);
    launchKernel(
        b, e, {blocks, one, one}, {kChunkThreads, 1, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value tid = k.thread.x, lane = remu(b, tid, 32);
          Value block = fused ? takeTicket(b, k, tid) : k.block.x;
          // Block 0 maps the chunks; then, per chunk, the C Bᵀ blocks of
          // every group and the state blocks of every head, so that the
          // blocks reading one chunk's B run together (and, with the fused
          // output, a state block waits only for C Bᵀ blocks of smaller
          // tickets).
          auto ifMap =
              scf::IfOp::create(b, TypeRange{}, eq(b, block, idx(b, 0)), true);
          ImplicitLocOpBuilder m(b.getLoc(), b.getContext());
          m.setInsertionPoint(ifMap.thenBlock()->getTerminator());
          emitChunkMap(m, tid, lane,
                       sharedView(m, k, plan.chunkShared.locateScratch,
                                  {kChunkThreads / 32}, m.getI32Type()),
                       sharedView(m, k, plan.chunkShared.chunkedScratch,
                                  {kChunkThreads / 32}, m.getI32Type()));

          ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
          t.setInsertionPoint(ifMap.elseBlock()->getTerminator());
          Value linear = sub(t, block, one);
          Value chunk = divu(t, linear, perChunk);
          Value role = arith::RemUIOp::create(t, linear, perChunk);
          Value cbBlocks = mul(t, tilePairs, x.groups);
          auto ifCB =
              scf::IfOp::create(t, TypeRange{}, ult(t, role, cbBlocks), true);
          ImplicitLocOpBuilder s(t.getLoc(), t.getContext());
          s.setInsertionPoint(ifCB.elseBlock()->getTerminator());
          Value stateRole = sub(s, role, cbBlocks);
          emitChunkStateBlock(s, k, chunk, divu(s, stateRole, plan.stateParts),
                              remu(s, stateRole, plan.stateParts));

          ImplicitLocOpBuilder c(t.getLoc(), t.getContext());
          c.setInsertionPoint(ifCB.thenBlock()->getTerminator());
          Value cbRole = role;
          Value group = divu(c, cbRole, tilePairs);
          Value pair = arith::RemUIOp::create(c, cbRole, tilePairs);
          Value iTile = divu(c, pair, rowTiles);
          Value jTile = arith::RemUIOp::create(c, pair, rowTiles);
          e.ifThen(c, ule(c, jTile, iTile), [&](ImplicitLocOpBuilder &c) {
            emitChunkCBBlock(c, k, chunk, group, iTile, jTile);
          });
        },
        plan.launch1Bytes);
  }

  /// d, the compensated cumsum and the decay weights of one chunk and head;
  /// `scale[s]` = exp(cum_last - cum_s) d_s in shared memory when it
  /// returns. Part 0 also stores cum and d for the output kernel (with the
  /// fused output: in shared memory, with exp(cum)) and, without fused
  /// state passing, exp(cum_last) for launch 2.
  void emitChunkCumsum(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value chunk, Value head, Value part,
                       const ChunkLocation &c, Value tid, Value lane) {
    const ChunkRoleShared &sh = plan.chunkShared;
    const int64_t warps = kChunkThreads / 32;
    Type f32t = b.getF32Type();
    Value scale = sharedView(b, k, sh.scale, {L}, f32t);
    Value scanHi = sharedView(b, k, sh.scanHi, {warps}, f32t);
    Value scanLo = sharedView(b, k, sh.scanLo, {warps}, f32t);
    Value lastCum = sharedView(b, k, sh.lastCum, {2}, f32t);
    Value a = e.loadF32(b, e.A, {head});
    Value zero = f32(b, 0.0);
    const int64_t q = plan.tokensPerThread;
    Value lo = minu(b, mul(b, tid, q), c.len);
    Value hi = minu(b, add(b, lo, q), c.len);
    Value writesWorkspace = eq(b, part, idx(b, 0));

    // Pass 1: d (kept in scale[] for now) and this thread's compensated sum.
    SmallVector<Value> local =
        forLoop(b, lo, hi, {zero, zero},
                [&](ImplicitLocOpBuilder &b, Value s, ValueRange sum) {
                  Value d = e.processedDt(b, add(b, c.first, s), head);
                  store(b, d, scale, {s});
                  auto [h, l] =
                      addCompensated(b, sum[0], sum[1], fmulExact(b, d, a));
                  return SmallVector<Value>{h, l};
                });
    BlockScanResult scan = blockExclusiveScan(
        b, tid, lane, kChunkThreads, local, {zero, zero}, {scanHi, scanLo},
        [&](ImplicitLocOpBuilder &b, ValueRange l, ValueRange r) {
          return combineCompensated(b, l, r);
        });
    // Passes 2 and 3 repeat the same running sums, so both see the same
    // bits.
    auto runningSums = [&](ImplicitLocOpBuilder &b,
                           function_ref<void(ImplicitLocOpBuilder &, Value s,
                                             Value d, Value hi, Value lo)>
                               body) {
      forLoop(b, lo, hi, scan.exclusive,
              [&](ImplicitLocOpBuilder &b, Value s, ValueRange sum) {
                Value d = load(b, scale, {s});
                auto [h, l] =
                    addCompensated(b, sum[0], sum[1], fmulExact(b, d, a));
                body(b, s, d, h, l);
                return SmallVector<Value>{h, l};
              });
    };
    // Pass 2: cum and d to the workspace (with the fused output to shared
    // memory, with exp(cum), and zeros up to the last output row); the last
    // token's cum to shared.
    auto tokenArray = [&](int64_t offset) {
      return sharedView(b, k, offset, {sh.tokenSlots}, f32t);
    };
    SmallVector<Value> tokenArrays;
    if (fusedOutput) {
      tokenArrays = {tokenArray(sh.cumHi), tokenArray(sh.cumLo),
                     tokenArray(sh.dt), tokenArray(sh.rowDecay)};
      e.loop(b, maxu(b, mul(b, tid, q), c.len),
             minu(b, add(b, mul(b, tid, q), q), idx(b, sh.tokenSlots)),
             [&](ImplicitLocOpBuilder &b, Value s) {
               for (Value array : tokenArrays)
                 store(b, zero, array, {s});
             });
    }
    runningSums(
        b, [&](ImplicitLocOpBuilder &b, Value s, Value d, Value h, Value l) {
          if (fusedOutput) {
            store(b, h, tokenArrays[0], {s});
            store(b, l, tokenArrays[1], {s});
            store(b, d, tokenArrays[2], {s});
            store(b, e.decay(b, faddExact(b, h, l)), tokenArrays[3], {s});
          } else {
            e.ifThen(b, writesWorkspace, [&](ImplicitLocOpBuilder &b) {
              store(b, h, cumHi, {chunk, head, s});
              store(b, l, cumLo, {chunk, head, s});
              store(b, d, dts, {chunk, head, s});
            });
          }
          e.ifThen(b, eq(b, s, sub(b, c.len, idx(b, 1))),
                   [&](ImplicitLocOpBuilder &b) {
                     store(b, h, lastCum, {idx(b, 0)});
                     store(b, l, lastCum, {idx(b, 1)});
                   });
        });
    gpu::BarrierOp::create(b);
    Value lastHi = load(b, lastCum, {idx(b, 0)});
    Value lastLo = load(b, lastCum, {idx(b, 1)});
    // Pass 3: the decay weights, each thread over its own tokens.
    runningSums(b, [&](ImplicitLocOpBuilder &b, Value s, Value d, Value h,
                       Value l) {
      store(b, fmul(b, decayBetween(b, lastHi, lastLo, h, l), d), scale, {s});
    });
    // The state-passing launch's decay per chunk (the fused one takes it
    // from lastCum in shared memory).
    if (!fused)
      e.ifThen(b, both(b, writesWorkspace, eq(b, tid, idx(b, 0))),
               [&](ImplicitLocOpBuilder &b) {
                 store(b, e.decay(b, faddExact(b, lastHi, lastLo)), chunkDecay,
                       {chunk, head});
               });
    gpu::BarrierOp::create(b);
  }

  // dS[p, n] = sum_s (scale_s x[s, p]) B[s, n] for n in this part's columns.
  void emitChunkStateBlock(ImplicitLocOpBuilder &b, const KernelContext &k,
                           Value chunk, Value head, Value part) {
    const ChunkRoleShared &sh = plan.chunkShared;
    Value tid = k.thread.x, lane = remu(b, tid, 32);
    Value scratch = sharedView(b, k, sh.locateScratch, {kChunkThreads / 32},
                               b.getI32Type());
    Value located = sharedView(b, k, sh.located, {2}, b.getI32Type());
    locateChunk(
        b, chunk, tid, lane, scratch, located,
        [&](ImplicitLocOpBuilder &b, ChunkLocation c) {
          emitChunkCumsum(b, k, chunk, head, part, c, tid, lane);
          Value group = e.groupOf(b, head);
          Value scale = sharedView(b, k, sh.scale, {L}, b.getF32Type());
          const int64_t cols = plan.stateCols;
          Value n0 = mul(b, part, cols);
          // A = Xwᵀ stored [s][p], B stored [s][n]: both with rows along k.
          MmaOperand xs =
              operand(b, k, sh.xHigh, sh.xLow, kStep, plan.paddedP, true);
          MmaOperand bs = operand(b, k, sh.bHigh, sh.bLow, kStep, cols, true);
          const bool rawB = copiesRaw(e.B, x.dstate);
          Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
          Value lastRow = sub(b, c.len, idx(b, 1));

          auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                           Value stage) -> SmallVector<Value> {
            SmallVector<Value> values;
            Value s0 = mul(b, step, kStep);
            forEachChunk(
                b, tid, kChunkThreads, kStep, plan.paddedP,
                [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                  Value s = add(b, s0, r);
                  Value valid = both(b, ult(b, s, c.len), ult(b, p, x.headDim));
                  Value t = minu(b, add(b, c.first, s), lastToken);
                  values.push_back(
                      loadEight(b, e.x, {t, head, p}, x.headDim, valid));
                },
                &values);
            SwizzledTile bStage = bs.high.stage(b, stage);
            forEachChunk(
                b, tid, kChunkThreads, kStep, cols,
                [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                  fetchStateOperand(b, e.B, rawB, c, group, add(b, s0, r),
                                    add(b, n0, n), bStage, r, n, values);
                },
                &values);
            return values;
          };
          auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values,
                             Value step, Value stage) {
            size_t next = 0;
            Value s0 = mul(b, step, kStep);
            MmaOperand xStage = atStage(b, xs, stage);
            forEachChunk(
                b, tid, kChunkThreads, kStep, plan.paddedP,
                [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                  // Rows past the chunk hold zeros; their weight is any written
                  // one.
                  Value s = minu(b, add(b, s0, r), lastRow);
                  Value w = vector::BroadcastOp::create(
                      b, VectorType::get({8}, b.getF32Type()),
                      load(b, scale, {s}));
                  depositConverted(b,
                                   arith::MulFOp::create(b, values[next++], w),
                                   xStage, r, p);
                });
            MmaOperand bStage = atStage(b, bs, stage);
            forEachChunk(
                b, tid, kChunkThreads, kStep, cols,
                [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                  if (!rawB)
                    depositConverted(b, values[next++], bStage, r, n);
                  else if (!async)
                    depositRaw(b, values.slice(next++, 1), bStage.high, r, n);
                });
          };

          MmaLane mmaLaneInfo = mmaLane(b, lane);
          WarpTile tile = warpTile(b, plan.stateWarps, plan.paddedP, cols,
                                   divu(b, tid, 32));
          SmallVector<Value> zeros(tile.accumulators(), f32(b, 0.0));
          SmallVector<Value> acc = pipelinedReduction(
              b, ceilDiv(b, c.len, kStep), zeros, fetch, deposit,
              [&](ImplicitLocOpBuilder &b, Value, Value stage, ValueRange acc) {
                return warpStep(b, mmaLaneInfo, tile, xs, bs, stage, acc);
              });
          if (fused)
            return passState(b, k, chunk, head, part, located, mmaLaneInfo,
                             tile, acc, n0);
          e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
            forEachAccumulatorPair(
                b, mmaLaneInfo, tile, acc,
                [&](ImplicitLocOpBuilder &b, Value p, Value n, Value v0,
                    Value v1) {
                  e.ifThen(
                      b, ult(b, p, x.headDim), [&](ImplicitLocOpBuilder &b) {
                        storePair(b, states, {chunk, head, p, add(b, n0, n)},
                                  idx(b, x.dstate), v0, v1, x.dstate % 2 == 0);
                      });
                });
          });
        });
  }

  /// Fused state passing, after the block computed dS in `acc` (overlapping
  /// the look-back wait with its own matmul): waits until the previous
  /// chunk (any sequence: ring slots are reused only after their reader
  /// published) published its inclusive state, then S_prev = that state, or
  /// the initial state for a sequence's first chunk; stores S_prev for the
  /// output kernel; publishes S = exp(cum_last) S_prev + dS in the ring (or,
  /// at a writing sequence's last chunk, as its final state in its pool
  /// slot, or for a contested writer in `finals`).
  void passState(ImplicitLocOpBuilder &b, const KernelContext &k, Value chunk,
                 Value head, Value part, Value located, const MmaLane &lane,
                 const WarpTile &tile, ValueRange acc, Value n0) {
    Value tid = k.thread.x;
    Value column = add(b, mul(b, head, plan.stateParts), part);
    auto flagOf = [&](ImplicitLocOpBuilder &b, Value chunk) {
      return add(b, add(b, mul(b, chunk, flagsPerChunk()), column), idx(b, 1));
    };
    e.ifThen(b, both(b, ult(b, idx(b, 0), chunk), eq(b, tid, idx(b, 0))),
             [&](ImplicitLocOpBuilder &b) {
               waitForFlag(b, flagOf(b, sub(b, chunk, idx(b, 1))));
             });
    gpu::BarrierOp::create(b);
    Value lastCum =
        sharedView(b, k, plan.chunkShared.lastCum, {2}, b.getF32Type());
    Value decay = e.decay(b, faddExact(b, load(b, lastCum, {idx(b, 0)}),
                                       load(b, lastCum, {idx(b, 1)})));
    // The chunk's sequence and index in it, reloaded from where
    // locateChunk left them rather than kept in registers across the
    // matmul (which, for f32 models on sm_90a, made ptxas spill).
    Value seq = toIndex(b, load(b, located, {idx(b, 0)}));
    Value j = toIndex(b, load(b, located, {idx(b, 1)}));
    SequenceInfo s = e.sequence(b, seq);
    Value isFirst = eq(b, j, idx(b, 0));
    Value isLast =
        ule(b, sub(b, s.end, add(b, s.begin, mul(b, j, L))), idx(b, L));
    // A writing sequence's last chunk stores its final state straight into
    // its pool slot when no other sequence reads that slot (its own first
    // chunk read it before the chain reached this block); a contested
    // writer leaves it to the last launch, after every pool read.
    Value direct = isLast;
    if (e.hasInitialState) {
      direct = e.ifElse(
          b, isLast, b.getI1Type(),
          [&](ImplicitLocOpBuilder &b) -> Value {
            Value contested = contestedWriter(
                b, e, seq, tid, remu(b, tid, 32),
                sharedView(b, k, plan.chunkShared.locateScratch,
                           {kChunkThreads / 32}, b.getI32Type()),
                kChunkThreads);
            return arith::XOrIOp::create(b, contested, boolean(b, true));
          },
          [&](ImplicitLocOpBuilder &b) -> Value { return boolean(b, false); });
    }
    // A contested writer's final state waits in `finals` for the last
    // launch, at the sequence's entry among those that run chunked.
    Value finalEntry = seq;
    if (minSequence)
      finalEntry = e.ifElse(
          b,
          both(b, isLast, arith::XOrIOp::create(b, direct, boolean(b, true))),
          b.getIndexType(),
          [&](ImplicitLocOpBuilder &b) -> Value {
            return chunkedSequencesBefore(
                b, seq, tid, remu(b, tid, 32),
                sharedView(b, k, plan.chunkShared.locateScratch,
                           {kChunkThreads / 32}, b.getI32Type()));
          },
          [&](ImplicitLocOpBuilder &b) -> Value { return idx(b, 0); });
    Value slotIn = remu(b, add(b, chunk, idx(b, 1)), 2);
    Value slotOut = remu(b, chunk, 2);
    // A checkpoint at the chunk's last token (every boundary is one here,
    // LowerToGPU.cpp): the state this block publishes, one more store.
    Value checkpointWrites, checkpointSlot;
    if (checkpoints) {
      Value first = mul(b, j, L);
      Value last =
          sub(b, minu(b, sub(b, s.end, s.begin), add(b, first, L)), idx(b, 1));
      std::tie(checkpointWrites, checkpointSlot) =
          checkpoints.slotAfter(b, e, checkpoints.sequence(b, e, seq), last);
    }
    // The update runs on the fragments: each lane takes its accumulator
    // pairs (two adjacent state columns) and moves their S_prev, ring and
    // pool values as 8-byte pairs, 8 rows x 32 bytes per warp access (whole
    // sectors). The same operations per element as the unfused state pass,
    // so the same bits; staging dS through shared memory for 16-byte rows
    // cost more shared-memory wavefronts than it saved.
    assert(!plan.split && "fused state passing is for 16-bit models");
    const ChunkRoleShared &sh = plan.chunkShared;
    // The fused output's S_prev tile: the pairs below fill P x N of it; the
    // padding the mma reads (rows past P, columns past N) must be zeros.
    SwizzledTile prevTile;
    if (fusedOutput) {
      prevTile =
          sharedTile(b, k, sh.sPrev, plan.paddedP, plan.reductionN, mmaType);
      if (plan.paddedP != x.headDim || prevTile.cols != x.dstate) {
        forEachChunk(b, tid, kChunkThreads, plan.paddedP, prevTile.cols,
                     [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
                       prevTile.storeChunk(
                           b, p, n, zeroOf(b, VectorType::get({8}, mmaType)));
                     });
        gpu::BarrierOp::create(b);
      }
    }
    const int64_t N = x.dstate;
    e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
      forEachAccumulatorPair(
          b, lane, tile, acc,
          [&](ImplicitLocOpBuilder &b, Value p, Value n, Value dS0, Value dS1) {
            Value col = add(b, n0, n);
            Value inside = both(b, ult(b, p, x.headDim), ult(b, col, N));
            e.ifThen(b, inside, [&](ImplicitLocOpBuilder &b) {
              SmallVector<Value> at{chunk, head, p, col};
              auto pairOf = [](std::pair<Value, Value> v) {
                return SmallVector<Value>{v.first, v.second};
              };
              // S_prev: the initial state (or zeros) at a sequence's first
              // chunk, else what the previous chunk published.
              Type f32t = b.getF32Type();
              auto ifFirst = scf::IfOp::create(b, TypeRange{f32t, f32t},
                                               isFirst, /*withElse=*/true);
              {
                ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
                t.setInsertionPointToStart(ifFirst.thenBlock());
                scf::YieldOp::create(
                    t,
                    ifValues(t, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
                      return pairOf(
                          loadPair(b, e.pool, {s.slot, head, p, col}, N));
                    }));
                t.setInsertionPointToStart(ifFirst.elseBlock());
                scf::YieldOp::create(
                    t, pairOf(loadPair(t, ring, {slotIn, head, p, col}, N)));
              }
              SmallVector<Value> state(ifFirst.getResults());
              if (fusedOutput) {
                // Past N the pair's second value is 0: the padding.
                Value prev = toMmaElement(
                    b,
                    vector::FromElementsOp::create(
                        b, VectorType::get({2}, b.getF32Type()), state),
                    plan.element);
                vectorStore(b, prev, prevTile.buffer,
                            {p, prevTile.physicalColumn(b, p, col)}, 4);
              } else {
                storePair(b, prevHigh, at, idx(b, N), state[0], state[1],
                          N % 2 == 0);
              }
              Value u0 = fadd(b, fmul(b, decay, state[0]), dS0);
              Value u1 = fadd(b, fmul(b, decay, state[1]), dS1);
              auto storeTo = [&](ImplicitLocOpBuilder &b, Value memref,
                                 SmallVector<Value> indices) {
                storePair(b, memref, indices, idx(b, N), u0, u1, N % 2 == 0);
              };
              e.ifThen(
                  b, both(b, isLast, s.writesState),
                  [&](ImplicitLocOpBuilder &b) {
                    auto ifDirect = scf::IfOp::create(b, direct, true);
                    ImplicitLocOpBuilder d(b.getLoc(), b.getContext());
                    d.setInsertionPoint(ifDirect.thenBlock()->getTerminator());
                    storeTo(d, e.pool, {s.slot, head, p, col});
                    d.setInsertionPoint(ifDirect.elseBlock()->getTerminator());
                    storeTo(d, finals, {finalEntry, head, p, col});
                  });
              e.ifThen(b, arith::XOrIOp::create(b, isLast, boolean(b, true)),
                       [&](ImplicitLocOpBuilder &b) {
                         storeTo(b, ring, {slotOut, head, p, col});
                       });
              if (checkpoints)
                e.ifThen(b, checkpointWrites, [&](ImplicitLocOpBuilder &b) {
                  storeTo(b, e.pool, {checkpointSlot, head, p, col});
                });
            });
          });
    });
    // Every thread's stores before the flag, for every later reader: the
    // barrier orders them before thread 0's st.release.gpu, which is
    // cumulative (one release, not a fence in each of 256 threads).
    gpu::BarrierOp::create(b);
    e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      storeRelease(b, i32(b, 1), flags, {flagOf(b, chunk)});
    });
    if (fusedOutput)
      emitFusedOutput(b, k, chunk, head, located);
  }

  /// Index in `flags` of the count of chunk `chunk`'s stored C Bᵀ tiles of
  /// group `group` (fused output).
  Value cbCountOf(ImplicitLocOpBuilder &b, Value chunk, Value group) {
    return add(b, mul(b, chunk, flagsPerChunk()),
               add(b, group, idx(b, 1 + x.heads * plan.stateParts)));
  }

  /// Fused output: y for every row of the chunk, outputRows rows at a time,
  /// once the chunk's C Bᵀ tiles are stored (each C Bᵀ block counts itself
  /// in when done; they hold smaller tickets). S_prev, cum, d and exp(cum)
  /// are in this block's shared memory already.
  void emitFusedOutput(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value chunk, Value head, Value located) {
    Value tid = k.thread.x;
    Value seq = toIndex(b, load(b, located, {idx(b, 0)}));
    Value j = toIndex(b, load(b, located, {idx(b, 1)}));
    SequenceInfo s = e.sequence(b, seq);
    Value first = add(b, s.begin, mul(b, j, L));
    ChunkLocation c{seq, first, minu(b, idx(b, L), sub(b, s.end, first))};
    Value group = e.groupOf(b, head);
    Value tiles = ceilDiv(b, c.len, kRowTile);
    Value expected = toI32(b, divu(b, mul(b, tiles, add(b, tiles, 1)), 2));
    e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
      waitForFlag(b, cbCountOf(b, chunk, group), expected);
    });
    gpu::BarrierOp::create(b);
    OutputTileLayout layout = fusedOutputLayout();
    scf::ForOp::create(
        b, idx(b, 0), c.len, idx(b, plan.outputRows), ValueRange{},
        [&](OpBuilder &nested, Location loc, Value i0, ValueRange) {
          ImplicitLocOpBuilder inner(loc, nested);
          emitOutputTile(inner, k, layout, chunk, head, c, i0);
          // The next pass reuses the staging tiles.
          gpu::BarrierOp::create(inner);
          scf::YieldOp::create(inner);
        });
  }

  // G[i, j] = sum_n C[i, n] B[j, n] for 64 rows i and 64 rows j (j <= i).
  void emitChunkCBBlock(ImplicitLocOpBuilder &b, const KernelContext &k,
                        Value chunk, Value group, Value iTile, Value jTile) {
    const CBRoleShared &sh = plan.cbShared;
    Value tid = k.thread.x, lane = remu(b, tid, 32);
    Value scratch = sharedView(b, k, sh.locateScratch, {kChunkThreads / 32},
                               b.getI32Type());
    Value located = sharedView(b, k, sh.located, {2}, b.getI32Type());
    locateChunk(
        b, chunk, tid, lane, scratch, located,
        [&](ImplicitLocOpBuilder &b, ChunkLocation c) {
          Value i0 = mul(b, iTile, kRowTile), j0 = mul(b, jTile, kRowTile);
          e.ifThen(b, ult(b, i0, c.len), [&](ImplicitLocOpBuilder &b) {
            // A = C stored [i][n], B = B stored [j][n]: rows along m and n.
            MmaOperand cs =
                operand(b, k, sh.cHigh, sh.cLow, kRowTile, kStep, false);
            MmaOperand bs =
                operand(b, k, sh.bHigh, sh.bLow, kRowTile, kStep, false);
            const bool raw = copiesRaw(e.C, x.dstate);
            Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
            struct Side {
              Value source;
              Value firstRow;
              const MmaOperand *tile;
            };
            Side sides[2] = {{e.C, i0, &cs}, {e.B, j0, &bs}};

            auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                             Value stage) -> SmallVector<Value> {
              SmallVector<Value> values;
              Value n0 = mul(b, step, kStep);
              for (const Side &side : sides) {
                SwizzledTile tStage = side.tile->high.stage(b, stage);
                forEachChunk(
                    b, tid, kChunkThreads, kRowTile, kStep,
                    [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                      Value i = add(b, side.firstRow, r);
                      Value col = add(b, n0, n);
                      Value valid =
                          both(b, ult(b, i, c.len), ult(b, col, x.dstate));
                      Value t = minu(b, add(b, c.first, i), lastToken);
                      if (raw)
                        llvm::append_range(
                            values, fetchRaw(b, side.source, {t, group, col},
                                             valid, tStage, r, n));
                      else
                        values.push_back(loadEight(
                            b, side.source, {t, group, col}, x.dstate, valid));
                    },
                    &values);
              }
              return values;
            };
            auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values,
                               Value, Value stage) {
              size_t next = 0;
              for (const Side &side : sides) {
                MmaOperand tStage = atStage(b, *side.tile, stage);
                forEachChunk(
                    b, tid, kChunkThreads, kRowTile, kStep,
                    [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                      if (!raw)
                        depositConverted(b, values[next++], tStage, r, n);
                      else if (!async)
                        depositRaw(b, values.slice(next++, 1), tStage.high, r,
                                   n);
                    });
              }
            };
            MmaLane mmaLaneInfo = mmaLane(b, lane);
            WarpTile tile =
                warpTile(b, plan.cbWarps, kRowTile, kRowTile, divu(b, tid, 32));
            SmallVector<Value> zeros(tile.accumulators(), f32(b, 0.0));
            SmallVector<Value> acc = pipelinedReduction(
                b, idx(b, plan.reductionN / kStep), zeros, fetch, deposit,
                [&](ImplicitLocOpBuilder &b, Value, Value stage,
                    ValueRange acc) {
                  return warpStep(b, mmaLaneInfo, tile, cs, bs, stage, acc);
                });
            e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
              forEachAccumulatorPair(
                  b, mmaLaneInfo, tile, acc,
                  [&](ImplicitLocOpBuilder &b, Value i, Value j, Value v0,
                      Value v1) {
                    Value row = add(b, i0, i);
                    e.ifThen(
                        b, ult(b, row, c.len), [&](ImplicitLocOpBuilder &b) {
                          storePair(b, cb, {chunk, group, row, add(b, j0, j)},
                                    c.len, v0, v1, /*pairs=*/true);
                        });
                  });
            });
            if (!fusedOutput)
              return;
            // Count the tile in for the chunk's state blocks: every
            // thread's stores before the count, through the barrier and
            // thread 0's release fence.
            gpu::BarrierOp::create(b);
            e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
              releaseFenceGPU(b);
              memref::AtomicRMWOp::create(
                  b, arith::AtomicRMWKind::addi, i32(b, 1), flags,
                  ValueRange{cbCountOf(b, chunk, group)});
            });
          });
        });
  }

  //===------------------------------------------------------------------===//
  // Launch 2: state passing
  //===------------------------------------------------------------------===//

  /// Elements of the state per thread in launches 2 and 3: 4 consecutive
  /// elements of a row (16-byte accesses) when N allows.
  int64_t stateVector() const {
    return x.dstate % kStateVector == 0 ? kStateVector : 1;
  }

  Value loadStateVector(ImplicitLocOpBuilder &b, Value memref,
                        ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    int64_t v = stateVector();
    Value loaded = vectorLoad(b, VectorType::get({v}, element), memref, indices,
                              v * element.getIntOrFloatBitWidth() / 8);
    if (!element.isF32())
      loaded = arith::ExtFOp::create(b, VectorType::get({v}, b.getF32Type()),
                                     loaded);
    return loaded;
  }
  void storeStateVector(ImplicitLocOpBuilder &b, Value value, Value memref,
                        ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    int64_t v = stateVector();
    if (!element.isF32())
      value = arith::TruncFOp::create(b, VectorType::get({v}, element), value);
    vectorStore(b, value, memref, indices,
                v * element.getIntOrFloatBitWidth() / 8);
  }

  /// A sequence's checkpoint boundaries, and what state passing needs to
  /// place its chunks among its tokens and to walk them.
  struct CheckpointedSequence {
    Checkpoints::Sequence boundaries;
    Value begin, len, firstChunk; // tokens begin..begin + len
    Value a, group;               // A_h and the head's group
  };
  CheckpointedSequence checkpointedSequence(ImplicitLocOpBuilder &b, Value seq,
                                            const SequenceInfo &s, Value head) {
    CheckpointedSequence c;
    c.boundaries = checkpoints.sequence(b, e, seq);
    c.begin = s.begin;
    c.len = sequenceLength(b, seq);
    c.firstChunk = toIndex(b, load(b, chunkBegin, {seq}));
    c.a = e.loadF32(b, e.A, {head});
    c.group = e.groupOf(b, head);
    return c;
  }

  /// The checkpoints of chunk `chunk` of sequence `c`, for the thread's
  /// state elements (row p, columns n..n+v-1): S_prev(k) = `prev` enters
  /// the chunk, S_prev(k+1) = `next` leaves it.
  ///
  /// A boundary at the chunk's last token takes `next`, the state that
  /// state passing computes anyway: one more state write. A boundary
  /// inside the chunk (token s < len - 1) needs the state after token s,
  /// which the chunked decomposition never forms; the thread rebuilds it
  /// for its own elements from S_prev(k) with the serial recurrence
  ///
  ///   S <- exp(d_t A_h) S + (d_t x[t, h, p]) B[t, g, n]
  ///
  /// over the chunk's tokens up to its last boundary that is written (d_t
  /// as launch 1 stored it in the workspace), storing S at each boundary.
  /// That walk costs per token one d, one x and v B loads and v fma per
  /// thread, at most L - 1 tokens per chunk: a serial scan of the chunk
  /// (as the serial kernel does it, without its C S dot product), only
  /// over chunks that hold such boundaries (at interval I >= L, at most
  /// one per chunk), and only here, off the matmul launches. The chunk's
  /// own S_prev(k+1) still comes from the chunked decomposition, so the
  /// walk changes nothing else.
  void emitChunkCheckpoints(ImplicitLocOpBuilder &b,
                            const CheckpointedSequence &c, Value chunk,
                            Value head, Value p, Value n, Value prev,
                            Value next) {
    const int64_t v = stateVector();
    auto vecType = VectorType::get({v}, b.getF32Type());
    auto splat = [&](ImplicitLocOpBuilder &b, Value s) -> Value {
      return vector::BroadcastOp::create(b, vecType, s);
    };
    auto storeCheckpoint = [&](ImplicitLocOpBuilder &b, Value j, Value state) {
      Value writes, slot;
      std::tie(writes, slot) = checkpoints.slotAfter(b, e, c.boundaries, j);
      e.ifThen(b, writes, [&](ImplicitLocOpBuilder &b) {
        storeStateVector(b, state, e.pool, {slot, head, p, n});
      });
    };
    // The chunk's tokens: local j = jFirst .. jFirst + len - 1.
    Value jFirst = mul(b, sub(b, chunk, c.firstChunk), L);
    Value len = minu(b, idx(b, L), sub(b, c.len, jFirst));
    Value walk =
        checkpoints.walkLength(b, c.boundaries, jFirst, sub(b, len, idx(b, 1)));
    forLoop(
        b, idx(b, 0), walk, {prev},
        [&](ImplicitLocOpBuilder &b, Value s, ValueRange carried) {
          Value t = add(b, c.begin, add(b, jFirst, s));
          Value d = load(b, dts, {chunk, head, s});
          Value decay = splat(b, e.exp(b, fmul(b, d, c.a)));
          Value dx = splat(b, fmul(b, d, e.loadF32(b, e.x, {t, head, p})));
          SmallVector<Value> bValues;
          for (int64_t q = 0; q < v; ++q)
            bValues.push_back(e.loadF32(b, e.B, {t, c.group, add(b, n, q)}));
          Value bRow = vector::FromElementsOp::create(b, vecType, bValues);
          Value state = fadd(b, fmul(b, decay, carried[0]), fmul(b, dx, bRow));
          storeCheckpoint(b, add(b, jFirst, s), state);
          return SmallVector<Value>{state};
        });
    storeCheckpoint(b, add(b, jFirst, sub(b, len, idx(b, 1))), next);
  }

  void emitStatePassing(ImplicitLocOpBuilder &b) {
    const int64_t v = stateVector(), elements = x.headDim * x.dstate;
    const int64_t parts = llvm::divideCeil(elements, kChunkThreads * v);
    launchKernel(
        b, e, {seqBound, idx(b, x.heads), idx(b, parts)}, {kChunkThreads, 1, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value entry = k.block.x, head = k.block.y;
          Value element =
              mul(b, add(b, mul(b, k.block.z, kChunkThreads), k.thread.x), v);
          e.ifThen(b, ult(b, element, elements), [&](ImplicitLocOpBuilder &b) {
            forChunkedSequence(
                b, entry, [&](ImplicitLocOpBuilder &b, Value seq) {
                  Value p = divu(b, element, x.dstate);
                  Value n = remu(b, element, x.dstate);
                  SequenceInfo s = e.sequence(b, seq);
                  std::optional<CheckpointedSequence> checkpointed;
                  if (checkpoints)
                    checkpointed = checkpointedSequence(b, seq, s, head);
                  auto vecType = VectorType::get({v}, b.getF32Type());
                  Value initial =
                      ifValues(b, s.readsInitial, [&](ImplicitLocOpBuilder &b) {
                        return SmallVector<Value>{
                            loadStateVector(b, e.pool, {s.slot, head, p, n})};
                      }).front();
                  Value firstChunk = toIndex(b, load(b, chunkBegin, {seq}));
                  Value endChunk =
                      toIndex(b, load(b, chunkBegin, {add(b, seq, 1)}));
                  // The chain S <- exp(cum_last) S + dS is serial in the
                  // chunks; each iteration loads the next chunk's operands
                  // before it stores and updates, so the loads are in flight
                  // one iteration ahead instead of on the chain.
                  auto operandsOf = [&](ImplicitLocOpBuilder &b, Value chunk) {
                    Value decay = vector::BroadcastOp::create(
                        b, vecType, load(b, chunkDecay, {chunk, head}));
                    return SmallVector<Value>{
                        decay, loadStateVector(b, states, {chunk, head, p, n})};
                  };
                  SmallVector<Value> init{initial};
                  llvm::append_range(
                      init, ifValues(b, ult(b, firstChunk, endChunk),
                                     [&](ImplicitLocOpBuilder &b) {
                                       return operandsOf(b, firstChunk);
                                     }));
                  Value lastChunk =
                      sub(b, maxu(b, endChunk, idx(b, 1)), idx(b, 1));
                  Value final =
                      forLoop(
                          b, firstChunk, endChunk, init,
                          [&](ImplicitLocOpBuilder &b, Value chunk,
                              ValueRange carried) {
                            Value state = carried[0];
                            SmallVector<Value> next = operandsOf(
                                b, minu(b, add(b, chunk, 1), lastChunk));
                            SmallVector<Value> at{chunk, head, p, n};
                            vectorStore(b, toMmaElement(b, state, plan.element),
                                        prevHigh, at, 2 * v);
                            if (plan.split)
                              vectorStore(b, mmaLowPart(b, state, plan.element),
                                          prevLow, at, 2 * v);
                            Value updated =
                                fadd(b, fmul(b, carried[1], state), carried[2]);
                            if (checkpoints)
                              emitChunkCheckpoints(b, *checkpointed, chunk,
                                                   head, p, n, state, updated);
                            return SmallVector<Value>{updated, next[0],
                                                      next[1]};
                          })
                          .front();
                  e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
                    storeStateVector(b, final, finals, {entry, head, p, n});
                  });
                });
          });
        });
  }

  //===------------------------------------------------------------------===//
  // Launch 3: output and final states
  //===------------------------------------------------------------------===//

  void emitOutputKernel(ImplicitLocOpBuilder &b) {
    const int64_t v = stateVector(), elements = x.headDim * x.dstate;
    const int64_t storeParts = llvm::divideCeil(elements, kOutputThreads * v);
    Value outputPerChunk = mul(b, rowTiles, x.heads);
    // With the fused output, the chunk kernel computed y: final states only.
    Value outputBlocks =
        fusedOutput ? idx(b, 0) : mul(b, maxChunks, outputPerChunk);
    Value storeBlocks = mul(b, seqBound, x.heads * storeParts);
    Value one = idx(b, 1);
    launchKernel(
        b, e, {add(b, outputBlocks, storeBlocks), one, one},
        {kOutputThreads, 1, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value block = k.block.x;
          ImplicitLocOpBuilder f(b.getLoc(), b.getContext());
          if (fusedOutput) {
            f.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
          } else {
            auto ifOutput = scf::IfOp::create(
                b, TypeRange{}, ult(b, block, outputBlocks), true);
            ImplicitLocOpBuilder o(b.getLoc(), b.getContext());
            o.setInsertionPoint(ifOutput.thenBlock()->getTerminator());
            Value chunk = divu(o, block, outputPerChunk);
            Value rest = arith::RemUIOp::create(o, block, outputPerChunk);
            Value head = divu(o, rest, rowTiles);
            Value rowTile = arith::RemUIOp::create(o, rest, rowTiles);
            Value used = toIndex(o, load(o, chunkBegin, {e.batch}));
            e.ifThen(o, ult(o, chunk, used), [&](ImplicitLocOpBuilder &o) {
              Value seq = toIndex(o, load(o, chunkSeq, {chunk}));
              Value j = sub(o, chunk, toIndex(o, load(o, chunkBegin, {seq})));
              Value begin = signedIndex(o, load(o, e.queryStartLoc, seq));
              Value end =
                  signedIndex(o, load(o, e.queryStartLoc, add(o, seq, 1)));
              Value first = add(o, begin, mul(o, j, L));
              ChunkLocation c{seq, first,
                              minu(o, idx(o, L), sub(o, end, first))};
              Value i0 = mul(o, rowTile, kRowTile);
              e.ifThen(o, ult(o, i0, c.len), [&](ImplicitLocOpBuilder &o) {
                emitOutputTile(o, k, outputKernelLayout(), chunk, head, c, i0);
              });
            });

            // The final states of writing sequences into their pool slots:
            // every pool read happened in launch 2.
            f.setInsertionPoint(ifOutput.elseBlock()->getTerminator());
          }
          Value linear = sub(f, block, outputBlocks);
          Value entry = divu(f, linear, x.heads * storeParts);
          Value rest2 = remu(f, linear, x.heads * storeParts);
          Value head2 = divu(f, rest2, storeParts);
          Value part = remu(f, rest2, storeParts);
          Value tid = k.thread.x;
          Value element = mul(f, add(f, mul(f, part, kOutputThreads), tid), v);
          forChunkedSequence(f, entry, [&](ImplicitLocOpBuilder &f, Value seq) {
            SequenceInfo s = e.sequence(f, seq);
            // Fused: the final state sits at the last chunk, unless the
            // chunk kernel stored it into the pool already (an uncontested
            // writer, the same vote as there); a sequence without chunks
            // keeps its initial state.
            Value begin, end, empty, stored = boolean(f, false);
            if (fused) {
              begin = toIndex(f, load(f, chunkBegin, {seq}));
              end = toIndex(f, load(f, chunkBegin, {add(f, seq, idx(f, 1))}));
              empty = eq(f, begin, end);
              Value contested = boolean(f, false);
              if (e.hasInitialState)
                contested = contestedWriter(
                    f, e, seq, tid, remu(f, tid, 32),
                    sharedView(f, k, 0, {kOutputThreads / 32}, f.getI32Type()),
                    kOutputThreads);
              stored =
                  both(f, arith::XOrIOp::create(f, empty, boolean(f, true)),
                       arith::XOrIOp::create(f, contested, boolean(f, true)));
            }
            Value stores =
                both(f, both(f, s.writesState, ult(f, element, elements)),
                     arith::XOrIOp::create(f, stored, boolean(f, true)));
            e.ifThen(f, stores, [&](ImplicitLocOpBuilder &f) {
              Value p = divu(f, element, x.dstate);
              Value n = remu(f, element, x.dstate);
              Value final;
              if (fused) {
                Value last = sub(f, maxu(f, end, idx(f, 1)), idx(f, 1));
                final = ifValues(f, empty, [&](ImplicitLocOpBuilder &f) {
                          return ifValues(
                              f, s.readsInitial, [&](ImplicitLocOpBuilder &f) {
                                return SmallVector<Value>{loadStateVector(
                                    f, e.pool, {s.slot, head2, p, n})};
                              });
                        }).front();
                Value ended =
                    ifValues(f,
                             arith::XOrIOp::create(f, empty, boolean(f, true)),
                             [&](ImplicitLocOpBuilder &f) {
                               return SmallVector<Value>{loadStateVector(
                                   f, finals, {entry, head2, p, n})};
                             })
                        .front();
                final = select(f, empty, final, ended);
              } else {
                final = loadStateVector(f, finals, {entry, head2, p, n});
              }
              storeStateVector(f, final, e.pool, {s.slot, head2, p, n});
            });
          });
        },
        // The final-state blocks' vote: a flag per warp.
        fusedOutput ? 4 * (kOutputThreads / 32) : plan.launch3Bytes);
  }

  /// Where an output tile's operands and row values live: the output
  /// kernel's blocks (64 rows, 128 threads; cum, d and S_prev from the
  /// workspace) or, with the fused output, the chunk kernel's (chunk, head)
  /// blocks (outputRows rows, 256 threads; cum, d, exp(cum) per chunk token
  /// and S_prev already in shared memory).
  struct OutputTileLayout {
    int64_t threads = kOutputThreads, rows = kRowTile;
    WarpLayout warps;
    int64_t aHigh = 0, aLow = 0, bHigh = 0, bLow = 0;
    bool inBlock = false;
    // Output kernel: the tile's rows' cum (hi, lo) and exp(cum), [rows].
    int64_t rowHi = 0, rowLo = 0, rowDecay = 0;
    // Fused: [tokenSlots] per chunk token, and S_prev [paddedP x
    // reductionN].
    int64_t cumHi = 0, cumLo = 0, dt = 0, tokenSlots = 0, sPrev = 0;
  };

  OutputTileLayout outputKernelLayout() const {
    const OutputRoleShared &sh = plan.outputShared;
    OutputTileLayout l;
    l.warps = plan.outputWarps;
    l.aHigh = sh.aHigh;
    l.aLow = sh.aLow;
    l.bHigh = sh.bHigh;
    l.bLow = sh.bLow;
    l.rowHi = sh.rowHi;
    l.rowLo = sh.rowLo;
    l.rowDecay = sh.rowDecay;
    return l;
  }

  OutputTileLayout fusedOutputLayout() const {
    const ChunkRoleShared &sh = plan.chunkShared;
    OutputTileLayout l;
    l.threads = kChunkThreads;
    l.rows = plan.outputRows;
    l.warps = plan.fusedOutputWarps;
    l.aHigh = sh.outA;
    l.bHigh = sh.outB;
    l.inBlock = true;
    l.cumHi = sh.cumHi;
    l.cumLo = sh.cumLo;
    l.dt = sh.dt;
    l.rowDecay = sh.rowDecay;
    l.tokenSlots = sh.tokenSlots;
    l.sPrev = sh.sPrev;
    return l;
  }

  // y for `layout.rows` rows of a chunk, from row i0, and one head.
  void emitOutputTile(ImplicitLocOpBuilder &b, const KernelContext &k,
                      const OutputTileLayout &layout, Value chunk, Value head,
                      const ChunkLocation &c, Value i0) {
    const int64_t threads = layout.threads, rows = layout.rows;
    Type f32t = b.getF32Type();
    Value tid = k.thread.x, lane = remu(b, tid, 32);
    Value group = e.groupOf(b, head);
    Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
    Value rowsEnd = minu(b, add(b, i0, rows), c.len);

    // Row r's cum (hi, lo) and exp(cum) (zeros past the chunk): staged per
    // tile from the workspace, or read from the chunk's arrays.
    Value rowHi, rowLo, rowDecay;
    Value rowBase = idx(b, 0);
    if (layout.inBlock) {
      rowHi = sharedView(b, k, layout.cumHi, {layout.tokenSlots}, f32t);
      rowLo = sharedView(b, k, layout.cumLo, {layout.tokenSlots}, f32t);
      rowDecay = sharedView(b, k, layout.rowDecay, {layout.tokenSlots}, f32t);
      rowBase = i0;
    } else {
      rowHi = sharedView(b, k, layout.rowHi, {rows}, f32t);
      rowLo = sharedView(b, k, layout.rowLo, {rows}, f32t);
      rowDecay = sharedView(b, k, layout.rowDecay, {rows}, f32t);
      for (int64_t base = 0; base < rows; base += threads) {
        Value r = add(b, tid, base);
        e.ifThen(b, ult(b, r, rows), [&](ImplicitLocOpBuilder &b) {
          Value i = add(b, i0, r);
          SmallVector<Value> cum =
              ifValues(b, ult(b, i, c.len), [&](ImplicitLocOpBuilder &b) {
                Value h = load(b, cumHi, {chunk, head, i});
                Value l = load(b, cumLo, {chunk, head, i});
                return SmallVector<Value>{h, l, e.decay(b, faddExact(b, h, l))};
              });
          store(b, cum[0], rowHi, {r});
          store(b, cum[1], rowLo, {r});
          store(b, cum[2], rowDecay, {r});
        });
      }
      gpu::BarrierOp::create(b);
    }
    auto rowValue = [&](ImplicitLocOpBuilder &b, Value array, Value r) {
      return load(b, array, {add(b, rowBase, r)});
    };

    MmaLane mmaLaneInfo = mmaLane(b, lane);
    WarpTile tile =
        warpTile(b, layout.warps, rows, plan.paddedP, divu(b, tid, 32));
    SmallVector<Value> acc(tile.accumulators(), f32(b, 0.0));

    // Inter-chunk term: acc[i, p] = sum_n C[i, n] S_prev[p, n]; A = C stored
    // [i][n], B = S_prev stored [p][n]: staged per k-step, or the block's
    // resident tile, read at the step's columns.
    {
      MmaOperand cs =
          operand(b, k, layout.aHigh, layout.aLow, rows, kStep, false);
      MmaOperand ps;
      if (layout.inBlock) {
        ps.high = sharedTile(b, k, layout.sPrev, plan.paddedP, plan.reductionN,
                             mmaType);
      } else {
        ps = operand(b, k, layout.bHigh, layout.bLow, plan.paddedP, kStep,
                     false);
      }
      const bool rawC = copiesRaw(e.C, x.dstate);
      const bool rawPrev = x.dstate % 8 == 0;
      auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                       Value stage) -> SmallVector<Value> {
        SmallVector<Value> values;
        Value n0 = mul(b, step, kStep);
        SwizzledTile cStage = cs.high.stage(b, stage);
        forEachChunk(
            b, tid, threads, rows, kStep,
            [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
              fetchStateOperand(b, e.C, rawC, c, group, add(b, i0, r),
                                add(b, n0, n), cStage, r, n, values);
            },
            &values);
        if (layout.inBlock)
          return values;
        MmaOperand pStage = atStage(b, ps, stage);
        forEachChunk(
            b, tid, threads, plan.paddedP, kStep,
            [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
              Value col = add(b, n0, n);
              Value valid =
                  both(b, ult(b, p, x.headDim), ult(b, col, x.dstate));
              Value pc = minu(b, p, idx(b, x.headDim - 1));
              SmallVector<Value> at{chunk, head, pc, col};
              for (auto [source, t] : {std::pair{prevHigh, pStage.high},
                                       std::pair{prevLow, pStage.low}}) {
                if (!source)
                  continue;
                if (rawPrev)
                  llvm::append_range(values,
                                     fetchRaw(b, source, at, valid, t, p, n));
                else
                  values.push_back(loadEight(b, source, at, x.dstate, valid));
              }
            },
            &values);
        return values;
      };
      auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value,
                         Value stage) {
        size_t next = 0;
        MmaOperand cStage = atStage(b, cs, stage);
        forEachChunk(b, tid, threads, rows, kStep,
                     [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value n) {
                       if (!rawC)
                         depositConverted(b, values[next++], cStage, r, n);
                       else if (!async)
                         depositRaw(b, values.slice(next++, 1), cStage.high, r,
                                    n);
                     });
        if (layout.inBlock)
          return;
        MmaOperand pStage = atStage(b, ps, stage);
        forEachChunk(
            b, tid, threads, plan.paddedP, kStep,
            [&](ImplicitLocOpBuilder &b, int64_t, Value p, Value n) {
              for (auto [source, t] : {std::pair{prevHigh, pStage.high},
                                       std::pair{prevLow, pStage.low}}) {
                if (!source)
                  continue;
                if (!rawPrev)
                  t.storeChunk(b, p, n,
                               toMmaElement(b, values[next++], plan.element));
                else if (!async)
                  depositRaw(b, values.slice(next++, 1), t, p, n);
              }
            });
      };
      acc = pipelinedReduction(
          b, idx(b, plan.reductionN / kStep), acc, fetch, deposit,
          [&](ImplicitLocOpBuilder &b, Value step, Value stage,
              ValueRange acc) {
            if (layout.inBlock)
              return warpStep(b, mmaLaneInfo, tile, cs, ps, stage, acc,
                              /*bStaged=*/false, mul(b, step, kStep));
            return warpStep(b, mmaLaneInfo, tile, cs, ps, stage, acc);
          });
    }

    // exp(cum_i) per row: the state enters row i decayed by the whole
    // prefix of the chunk up to i.
    // One load per row the lane holds (2 per 16-row mma tile), not per
    // accumulator.
    llvm::DenseMap<int64_t, Value> decayOfRow;
    forEachAccumulator(
        b, mmaLaneInfo, tile,
        [&](ImplicitLocOpBuilder &b, Value row, Value, int64_t i) {
          int64_t rowKey = i / (4 * tile.nTiles) * 2 + i % 4 / 2;
          Value &decay = decayOfRow[rowKey];
          if (!decay)
            decay = rowValue(b, rowDecay, row);
          acc[i] = fmul(b, acc[i], decay);
        });

    // Intra-chunk term: acc[i, p] += sum_{j <= i} W[i, j] x[j, p]; A = W
    // stored [i][j], B = x stored [j][p] (rows along k).
    {
      MmaOperand ws =
          operand(b, k, layout.aHigh, layout.aLow, rows, kStep, false);
      MmaOperand xs =
          operand(b, k, layout.bHigh, layout.bLow, kStep, plan.paddedP, true);
      const bool rawX = copiesRaw(e.x, x.headDim);
      // W pieces of kWCols columns: warp w fills rows [w R, (w + 1) R)
      // (R = rows per warp), lane l column piece l % 8 of rows
      // w R + l / 8 + 4 m. So each thread loads one set of column data
      // (cum hi, lo and d: one 16-byte load each, the quarter-warp reading
      // 128 contiguous bytes), keeps its rows' cum in registers, its rows
      // lie in one band of the mma warps' rows (skipped together, below),
      // and a store instruction writes 4 consecutive rows (no conflicts in
      // the swizzled tile).
      constexpr int64_t kWCols = 4, piecesPerRow = kStep / kWCols;
      const int64_t rowsPerWarp = rows / (threads / 32);
      const int64_t rowsPerStore = 32 / piecesPerRow;
      const int64_t wPerThread = rowsPerWarp / rowsPerStore;
      assert(wPerThread >= 1 && rowsPerWarp % rowsPerStore == 0 &&
             "whole W pieces per thread");
      Value wCol = mul(b, remu(b, tid, piecesPerRow), kWCols);
      Value wRow = add(b, mul(b, divu(b, tid, 32), rowsPerWarp),
                       divu(b, remu(b, tid, 32), piecesPerRow));
      // Whether the warps owning tile row r multiply the step from column
      // j0: the same test as their causal skip below, so W pieces nobody
      // reads are neither computed nor stored.
      const int64_t band = 16 * tile.mTiles;
      auto readByItsWarps = [&](ImplicitLocOpBuilder &b, Value r, Value j0) {
        Value bandLast = add(b, mul(b, divu(b, r, band), band), band - 1);
        return ule(b, j0, add(b, i0, bandLast));
      };
      // A thread's rows all in one band: one test skips its whole share.
      const bool bandPerThread = band % rowsPerWarp == 0;
      SmallVector<int64_t> wRows;
      for (int64_t m = 0; m < wPerThread; ++m)
        wRows.push_back(m * rowsPerStore);
      auto f32xW = VectorType::get({kWCols}, f32t);
      // The cum of each W row this thread fills, loaded once for all steps.
      SmallVector<std::pair<Value, Value>> wRowCum;
      for (int64_t dr : wRows) {
        Value r = add(b, wRow, dr);
        wRowCum.push_back({rowValue(b, rowHi, r), rowValue(b, rowLo, r)});
      }
      // cum and d of the columns jb.. (zeros past the chunk, never used).
      auto columnValues = [&](ImplicitLocOpBuilder &b, Value jb) {
        return ifValues(b, ult(b, jb, c.len), [&](ImplicitLocOpBuilder &b) {
          SmallVector<Value> v;
          if (layout.inBlock) {
            for (int64_t offset : {layout.cumHi, layout.cumLo, layout.dt})
              v.push_back(vectorLoad(
                  b, f32xW, sharedView(b, k, offset, {layout.tokenSlots}, f32t),
                  {jb}, 4 * kWCols));
            return v;
          }
          for (Value source : {cumHi, cumLo, dts})
            v.push_back(
                vectorLoad(b, f32xW, source, {chunk, head, jb}, 4 * kWCols));
          return v;
        });
      };

      auto fetch = [&](ImplicitLocOpBuilder &b, Value step,
                       Value stage) -> SmallVector<Value> {
        SmallVector<Value> values;
        Value j0 = mul(b, step, kStep);
        Value jb = add(b, j0, wCol);
        for (int64_t dr : wRows) {
          Value i = add(b, add(b, i0, wRow), dr);
          Value any = both(b, both(b, ult(b, i, c.len), ule(b, jb, i)),
                           readByItsWarps(b, add(b, wRow, dr), j0));
          Value row = minu(b, i, sub(b, c.len, idx(b, 1)));
          values.push_back(
              ifValues(b, any, [&](ImplicitLocOpBuilder &b) {
                return SmallVector<Value>{vectorLoad(
                    b, f32xW, cb, {chunk, group, row, jb}, 4 * kWCols)};
              }).front());
        }
        SwizzledTile xStage = xs.high.stage(b, stage);
        forEachChunk(
            b, tid, threads, kStep, plan.paddedP,
            [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
              Value jj = add(b, j0, r);
              Value valid = both(b, ult(b, jj, rowsEnd), ult(b, p, x.headDim));
              Value t = minu(b, add(b, c.first, jj), lastToken);
              if (rawX)
                llvm::append_range(values, fetchRaw(b, e.x, {t, head, p}, valid,
                                                    xStage, r, p));
              else
                values.push_back(
                    loadEight(b, e.x, {t, head, p}, x.headDim, valid));
            },
            &values);
        return values;
      };
      auto deposit = [&](ImplicitLocOpBuilder &b, ValueRange values, Value step,
                         Value stage) {
        size_t next = 0;
        Value j0 = mul(b, step, kStep);
        Value jb = add(b, j0, wCol);
        MmaOperand wStage = atStage(b, ws, stage);
        SmallVector<Value> pieceValues(values.begin() + next,
                                       values.begin() + next + wPerThread);
        next += wPerThread;
        auto buildPieces = [&](ImplicitLocOpBuilder &b) {
          size_t next = 0;
          ValueRange values = pieceValues;
          SmallVector<Value> column = columnValues(b, jb);
          for (auto [dr, cum] : llvm::zip_equal(wRows, wRowCum)) {
            Value r = add(b, wRow, dr);
            Value i = add(b, i0, r);
            // Named copies: a lambda cannot capture structured bindings in
            // C++17.
            Value hiI = std::get<0>(cum), loI = std::get<1>(cum);
            Value g = values[next++];
            Value read =
                bandPerThread ? boolean(b, true) : readByItsWarps(b, r, j0);
            e.ifThen(b, read, [&](ImplicitLocOpBuilder &b) {
              SmallVector<Value> w;
              for (int64_t q = 0; q < kWCols; ++q) {
                auto at = [&](Value v) {
                  return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q})
                      .getResult();
                };
                Value j = add(b, jb, q);
                Value valid = both(b, ult(b, i, c.len), ule(b, j, i));
                Value weight =
                    fmul(b,
                         fmul(b, at(g),
                              decayBetween(b, hiI, loI, at(column[0]),
                                           at(column[1]))),
                         at(column[2]));
                w.push_back(select(b, valid, weight, f32(b, 0.0)));
              }
              Value piece = vector::FromElementsOp::create(b, f32xW, w);
              auto storePiece = [&](const SwizzledTile &t, Value v) {
                // A piece stays inside its 16-byte chunk, which the swizzle
                // moves as a whole.
                Value br = t.bufferRow(b, r);
                vectorStore(b, v, t.buffer, {br, t.physicalColumn(b, br, wCol)},
                            2 * kWCols);
              };
              storePiece(wStage.high, toMmaElement(b, piece, plan.element));
              if (wStage.split())
                storePiece(wStage.low, mmaLowPart(b, piece, plan.element));
            });
          }
        };
        if (bandPerThread)
          e.ifThen(b, readByItsWarps(b, wRow, j0), buildPieces);
        else
          buildPieces(b);
        MmaOperand xStage = atStage(b, xs, stage);
        forEachChunk(b, tid, threads, kStep, plan.paddedP,
                     [&](ImplicitLocOpBuilder &b, int64_t, Value r, Value p) {
                       if (!rawX)
                         depositConverted(b, values[next++], xStage, r, p);
                       else if (!async)
                         depositRaw(b, values.slice(next++, 1), xStage.high, r,
                                    p);
                     });
      };
      acc = pipelinedReduction(
          b, ceilDiv(b, rowsEnd, kStep), acc, fetch, deposit,
          [&](ImplicitLocOpBuilder &b, Value step, Value stage,
              ValueRange acc) {
            // A warp whose rows all lie before the step's first column has
            // only zeros of W there (j > i): it skips the step.
            WarpTile causal = tile;
            Value lastRow =
                add(b, add(b, i0, tile.mBase), 16 * tile.mTiles - 1);
            causal.active =
                both(b, tile.active, ule(b, mul(b, step, kStep), lastRow));
            return warpStep(b, mmaLaneInfo, causal, ws, xs, stage, acc);
          });
    }

    // y = acc + D x, rounded once to the model type, stored straight from
    // the fragments: a lane's two adjacent columns as one pair (4 bytes for
    // 16-bit models). Staging the tile through shared memory for whole
    // 16-byte rows cost as many shared-memory wavefronts as a fifth of the
    // block's mma operand loads; the pairs' partial sectors merge in L2.
    Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
    e.ifThen(b, tile.active, [&](ImplicitLocOpBuilder &b) {
      forEachAccumulatorPair(
          b, mmaLaneInfo, tile, acc,
          [&](ImplicitLocOpBuilder &b, Value i, Value p, Value v0, Value v1) {
            Value row = add(b, i0, i);
            e.ifThen(b, ult(b, row, c.len), [&](ImplicitLocOpBuilder &b) {
              Value t = add(b, c.first, row);
              Value y0 = v0, y1 = v1;
              if (dSkip) {
                auto [x0, x1] = loadPair(b, e.x, {t, head, p}, x.headDim);
                y0 = fadd(b, y0, fmul(b, dSkip, x0));
                y1 = fadd(b, y1, fmul(b, dSkip, x1));
              }
              storePair(b, e.y, {t, head, p}, idx(b, x.headDim), y0, y1,
                        x.headDim % 2 == 0);
            });
          });
    });
  }

  /// Elements ..col and ..col+1 of `memref` along its last dimension as
  /// f32 (0 at or past `extent`): one 2-element load when the extent is
  /// even (col is even, so both are inside or neither), else two.
  std::pair<Value, Value> loadPair(ImplicitLocOpBuilder &b, Value memref,
                                   SmallVector<Value> indices, int64_t extent) {
    Value col = indices.back();
    if (extent % 2 == 0) {
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      auto f32x2 = VectorType::get({2}, b.getF32Type());
      Value pair =
          ifValues(b, ult(b, col, extent), [&](ImplicitLocOpBuilder &b) {
            Value v =
                vectorLoad(b, VectorType::get({2}, element), memref, indices,
                           2 * element.getIntOrFloatBitWidth() / 8);
            if (!element.isF32())
              v = arith::ExtFOp::create(b, f32x2, v);
            return SmallVector<Value>{v};
          }).front();
      auto at = [&](int64_t q) {
        return vector::ExtractOp::create(b, pair, ArrayRef<int64_t>{q})
            .getResult();
      };
      return {at(0), at(1)};
    }
    SmallVector<Value> both;
    for (int64_t q = 0; q < 2; ++q) {
      SmallVector<Value> at(indices);
      at.back() = add(b, col, q);
      both.push_back(e.ifElse(
          b, ult(b, at.back(), extent), b.getF32Type(),
          [&](ImplicitLocOpBuilder &b) { return e.loadF32(b, memref, at); },
          [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); }));
    }
    return {both[0], both[1]};
  }
};

void ChunkedScanGPUBuilder::declareWorkspace(ImplicitLocOpBuilder &b,
                                             WorkspaceBuilder &w) {
  if (minSequence) {
    // At most T / minSequence sequences are that long; each has at most
    // ceil(len / L) <= len / L + 1 chunks.
    seqBound = minu(b, e.batch, divu(b, e.tokens, minSequence));
  } else {
    seqBound = e.batch;
  }
  maxChunks = add(b, ceilDiv(b, e.tokens, L), seqBound);
  chunkRows = minu(b, idx(b, L), e.tokens);
  paddedRows = mul(b, ceilDiv(b, chunkRows, 8), 8);
  rowTiles = ceilDiv(b, chunkRows, kRowTile);
  const int64_t dyn = ShapedType::kDynamic;
  Type f32t = b.getF32Type(), i32t = b.getI32Type();
  int64_t H = x.heads, P = x.headDim, N = x.dstate, G = x.groups;
  auto perToken = MemRefType::get({dyn, H, dyn}, f32t);
  auto prevType = MemRefType::get({dyn, H, P, N}, mmaType);
  auto stateType = MemRefType::get({dyn, H, P, N}, f32t);
  workspaceSlots = {
      w.add(MemRefType::get({dyn}, i32t), {add(b, e.batch, 1)}), // chunkBegin
      w.add(MemRefType::get({dyn}, i32t), {maxChunks}),          // chunkSeq
      // The fused output keeps cum, d and S_prev in the block.
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // cumHi
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // cumLo
      fusedOutput ? ~0u : w.add(perToken, {maxChunks, paddedRows}), // dts
      // chunkDecay, for state passing as a launch of its own
      fused ? ~0u : w.add(MemRefType::get({dyn, H}, f32t), {maxChunks}),
      fused ? ~0u : w.add(stateType, {maxChunks}),      // states
      fusedOutput ? ~0u : w.add(prevType, {maxChunks}), // prevHigh
      plan.split ? w.add(prevType, {maxChunks}) : ~0u,  // prevLow
      w.add(stateType, {seqBound}),                     // finals
      w.add(MemRefType::get({dyn, G, dyn, dyn}, f32t),
            {maxChunks, chunkRows, paddedRows}), // cb
      minSequence ? w.add(MemRefType::get({dyn}, i32t), {add(b, seqBound, 1)})
                  : ~0u, // chunkedSeqs
      fused ? w.add(MemRefType::get({dyn}, i32t),
                    {add(b, mul(b, maxChunks, flagsPerChunk()), 1)})
            : ~0u,                                                  // flags
      fused ? w.add(MemRefType::get({2, H, P, N}, f32t), {}) : ~0u, // ring
  };
}

void ChunkedScanGPUBuilder::bindWorkspace(ArrayRef<Value> views) {
  auto view = [&](unsigned i) {
    return workspaceSlots[i] == ~0u ? Value() : views[workspaceSlots[i]];
  };
  chunkBegin = view(0);
  chunkSeq = view(1);
  cumHi = view(2);
  cumLo = view(3);
  dts = view(4);
  chunkDecay = view(5);
  states = view(6);
  prevHigh = view(7);
  prevLow = view(8);
  finals = view(9);
  cb = view(10);
  chunkedSeqs = view(11);
  flags = view(12);
  ring = view(13);
}

} // namespace

void mlir::ssd::detail::buildChunkedScanGPU(RewriterBase &rewriter,
                                            ChunkScanVarlenOp op,
                                            const ChunkedPlan &plan,
                                            const LowerToGPUOptions &options) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ChunkedScanGPUBuilder chunked(b, op, plan, options);
  WorkspaceBuilder w;
  chunked.declareWorkspace(b, w);
  chunked.bindWorkspace(w.allocate(b, op));
  chunked.emitLaunches(b);
  rewriter.eraseOp(op);
}

void mlir::ssd::detail::buildMixedScanGPU(RewriterBase &rewriter,
                                          ChunkScanVarlenOp op,
                                          const ChunkedPlan &plan,
                                          int64_t minChunkedSequence,
                                          const LowerToGPUOptions &options) {
  // Order: the serial readers' pass, the chunked launches (pool reads in
  // the chunk kernel when state passing is fused, else in the state pass;
  // writes in the output kernel), then the contested serial writers.
  // A serial writer whose slot a chunked sequence reads is contested (the
  // vote counts readers of both forms), so it writes after the chunked
  // pool reads; a chunked writer writes in the output kernel, after every
  // serial reader but the contested writers, which read only their own
  // slots.
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  std::unique_ptr<SerialPart> serial =
      makeSerialPart(b, op, plan.x, options, minChunkedSequence);
  ChunkedScanGPUBuilder chunked(b, op, plan, options, minChunkedSequence);
  WorkspaceBuilder w;
  serial->declareWorkspace(b, w);
  chunked.declareWorkspace(b, w);
  SmallVector<Value> views = w.allocate(b, op);
  serial->bindWorkspace(views);
  chunked.bindWorkspace(views);
  serial->emitFirstLaunch(b);
  chunked.emitLaunches(b);
  serial->emitSecondLaunch(b);
  rewriter.eraseOp(op);
}
