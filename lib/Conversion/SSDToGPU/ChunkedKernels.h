//===- ChunkedKernels.h - the chunked scan's kernel builder -----*- C++ -*-===//
//
// The builder of the chunked form's launches, shared by the files that
// build them (ChunkedScanGPU.cpp holds the map of the math and of the
// files). One builder object per op: it holds the plan, the host-side
// extents and the workspace views every kernel reads; its members are
// defined by job:
//
//   ChunkedScanGPU.cpp     the driver: workspace, launch order, entry points
//   MixedScanGPU.cpp       the mixed launch (serial and chunked sequences)
//   ChunkMap.cpp           chunks of sequences: counting, mapping, locating
//   MmaPipeline.cpp        operand staging and the double-buffered k-steps
//   ChunkKernel.cpp        launch 1: cumsum, dS and C Bᵀ blocks
//   FusedStatePassing.cpp  launch 1 with state passing (and the output)
//                          fused in: tickets, flags, waits, publication
//   StatePassing.cpp       launch 2 and the checkpoints inside chunks
//   OutputKernel.cpp       launch 3 and the output tile (also fused)
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H
#define SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H

#include "ChunkedPlan.h"
#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace ssd {
namespace detail {

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
  void emitLaunches(ImplicitLocOpBuilder &b);

private:
  ScanEmitter e;
  Checkpoints checkpoints;
  const ChunkedPlan &plan;
  StaticExtents x;
  int64_t L;
  int64_t minSequence;
  bool async;
  /// Where the state block being built put its wgmma tiles (stateWgmma):
  /// the dS stages and, with outputWgmma, the output's tiles too; with
  /// paired heads the first head's copy (headTiles has each head's).
  std::optional<WgmmaTiles> chunkTiles;
  /// Threads that run the block-level code being emitted together (their
  /// barriers, scans and scratch): launch 1's whole block, or one head's
  /// kChunkThreads in a block of paired heads (plan.headsPerBlock).
  int64_t teamThreads = kChunkThreads;
  /// The whole block seen from the team `k` (a head of a block of paired
  /// heads): thread ids over every team, views where the layout puts them
  /// (the first head's copy), for the operands the heads share. `k` itself
  /// without a team.
  KernelContext wholeBlock(ImplicitLocOpBuilder &b,
                           const KernelContext &k) const;
  /// The wgmma tiles of the head `k` builds: chunkTiles (the first copy's),
  /// moved to the team's copy where it is used, so that the addresses live
  /// across the kernel stay those of the arena (the paired kernel is at
  /// its 128 registers). The shared stages are chunkTiles'.
  WgmmaTiles headTiles(ImplicitLocOpBuilder &b, const KernelContext &k) const;
  /// The group of `head` in launch 1: in a block of paired heads the
  /// pair's (both heads are in one group), from the block's pair index
  /// rather than the team's head, which keeps it off the team's registers.
  Value pairGroup;
  Value groupOfHead(ImplicitLocOpBuilder &b, Value head) {
    return pairGroup ? pairGroup : e.groupOf(b, head);
  }
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
  Value finals;            // [finalStates, H, P, N] f32: final states
                           // (fused: only contested writers' are stored
                           // here)
  Value chunkedSeqs;       // mixed launches: [seqBound + 1] i32, the sequences
                           // that run chunked, then their count
  Value cb;    // [K', G, chunkRows, paddedRows] C Bᵀ (bf16 for bf16 models,
               // else f32); K' = K, or with the fused output a ring of
               // min(K, kCBRingSlots) chunks (cbSlotOf)
  Value flags; // [1 + K (H parts + G')] i32: the ticket counter, then per
               // (chunk, head, part) 1 once its inclusive state is
               // published; with the fused output (G' = 2 G) then per
               // (chunk, group) the C Bᵀ tiles stored so far and the heads
               // done reading them
  int64_t flagsPerChunk() const {
    return x.heads * plan.stateParts + (fusedOutput ? 2 * x.groups : 0);
  }
  /// With the fused output a chunk's C Bᵀ is read only by its own (chunk,
  /// head) blocks, shortly after it is stored, so the tiles live in a ring
  /// of this many chunks: the workspace stops growing with T (33.7 MB at
  /// Granite-4 T = 64k as one tile per chunk, 1 MB as a ring). A C Bᵀ block
  /// reusing a slot waits until every head read the chunk before. With H
  /// of 32 or more (every model) the chain keeps fewer chunks than this in
  /// flight (H + 10 blocks per chunk against about 2 x 132 resident), so
  /// the wait is for blocks long done; at smaller H more chunks could run
  /// at once and C Bᵀ blocks may wait there (speed only).
  static constexpr int64_t kCBRingSlots = 8;
  /// Where chunk `chunk`'s C Bᵀ tiles are in `cb`.
  Value cbSlotOf(ImplicitLocOpBuilder &b, Value chunk) {
    return fusedOutput ? ir::remu(b, chunk, kCBRingSlots) : chunk;
  }
  /// The blocks that read a chunk's C Bᵀ tiles of one group, each counting
  /// itself out of the ring slot once (emitFusedOutput): one per head,
  /// since the fused output holds the whole state in one block.
  int64_t cbReadersPerGroup() const {
    assert(plan.stateParts == 1 && "the fused output needs one state part");
    return x.heads / x.groups;
  }
  /// Entries of `finals` the call needs (declareWorkspace).
  Value finalStates(ImplicitLocOpBuilder &b);
  Value chainState; // [H, P, N] f32: the inclusive state the fused chain
                    // passes on, each chunk overwriting its predecessor's

  /// Index of each workspace view (declareWorkspace order) in the views the
  /// WorkspaceBuilder returns; ~0u for a buffer this launch does not need.
  SmallVector<unsigned> workspaceSlots;

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
  Value signedIndex(ImplicitLocOpBuilder &b, Value i32) {
    return arith::IndexCastOp::create(b, b.getIndexType(), i32);
  }

  //===------------------------------------------------------------------===//
  // Chunk map (ChunkMap.cpp)
  //===------------------------------------------------------------------===//

  Value sequenceLength(ImplicitLocOpBuilder &b, Value seq);
  Value isChunked(ImplicitLocOpBuilder &b, Value len);
  Value chunksOf(ImplicitLocOpBuilder &b, Value seq);
  /// The per-thread range of sequences and the block scan of their chunk
  /// counts: every thread gets its range [lo, hi), the chunks before it and
  /// the total.
  struct SequenceRanges {
    Value lo, hi, count, before, total;
    Value chunkedBefore; // chunked sequences before lo (mixed launches)
  };
  SequenceRanges scanSequenceRanges(ImplicitLocOpBuilder &b, Value tid,
                                    Value lane, Value scratch,
                                    Value chunkedScratch = Value());
  void
  locateChunk(ImplicitLocOpBuilder &b, Value k, Value tid, Value lane,
              Value scratch, Value located,
              function_ref<void(ImplicitLocOpBuilder &, ChunkLocation)> body);
  void locateChunkOfBlock(
      ImplicitLocOpBuilder &b, const KernelContext &k, Value chunk,
      int64_t scratchOffset, int64_t locatedOffset,
      function_ref<void(ImplicitLocOpBuilder &, ChunkLocation, Value)> body);
  void emitChunkMap(ImplicitLocOpBuilder &b, Value tid, Value lane,
                    Value scratch, Value chunkedScratch);
  void
  forChunkedSequence(ImplicitLocOpBuilder &b, Value i,
                     function_ref<void(ImplicitLocOpBuilder &, Value)> body);
  Value chunkedSequencesBefore(ImplicitLocOpBuilder &b, Value seq, Value tid,
                               Value lane, Value warpCounts);

  //===------------------------------------------------------------------===//
  // Structured control flow, operand staging and the k-step pipeline
  // (MmaPipeline.cpp)
  //===------------------------------------------------------------------===//

  SmallVector<Value>
  ifValues(ImplicitLocOpBuilder &b, Value cond,
           function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then);
  SmallVector<Value>
  ifValuesElse(ImplicitLocOpBuilder &b, Value cond, ValueRange otherwise,
               function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then);
  SmallVector<Value>
  forLoop(ImplicitLocOpBuilder &b, Value lower, Value upper, ValueRange init,
          function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, Value,
                                          ValueRange)>
              body);

  Value loadEight(ImplicitLocOpBuilder &b, Value memref,
                  SmallVector<Value> indices, int64_t extent, Value valid);
  bool copiesRaw(Value memref, int64_t extent) const;
  SmallVector<Value> fetchRaw(ImplicitLocOpBuilder &b, Value memref,
                              SmallVector<Value> indices, Value valid,
                              const SwizzledTile &tile, Value row, Value col);
  void fetchStateOperand(ImplicitLocOpBuilder &b, Value memref, bool raw,
                         const ChunkLocation &c, Value group, Value row,
                         Value col, const SwizzledTile &stage, Value r, Value n,
                         SmallVector<Value> &values);
  void depositRaw(ImplicitLocOpBuilder &b, ValueRange fetched,
                  const SwizzledTile &tile, Value row, Value col);
  void depositConverted(ImplicitLocOpBuilder &b, Value values,
                        const MmaOperand &operand, Value row, Value col);

  using FetchFn = function_ref<SmallVector<Value>(ImplicitLocOpBuilder &,
                                                  Value step, Value stage)>;
  using DepositFn = function_ref<void(ImplicitLocOpBuilder &, ValueRange,
                                      Value step, Value stage)>;
  using ComputeFn = function_ref<SmallVector<Value>(
      ImplicitLocOpBuilder &, Value step, Value stage, ValueRange acc)>;
  SmallVector<Value> pipelinedReduction(ImplicitLocOpBuilder &b, Value steps,
                                        ValueRange accInit, FetchFn fetch,
                                        DepositFn deposit, ComputeFn compute,
                                        bool asyncProxyReads = false);
  SmallVector<Value> warpStep(ImplicitLocOpBuilder &b, const MmaLane &lane,
                              const WarpTile &tile, const MmaOperand &a,
                              const MmaOperand &bOp, Value stage,
                              ValueRange acc, bool bStaged = true,
                              Value bK = Value());
  MmaOperand operand(ImplicitLocOpBuilder &b, const KernelContext &k,
                     int64_t highOffset, int64_t lowOffset, int64_t rows,
                     int64_t cols, bool kRows, Value shift = Value());
  void forEachChunk(
      ImplicitLocOpBuilder &b, Value tid, int64_t threads, int64_t rows,
      int64_t cols,
      function_ref<void(ImplicitLocOpBuilder &, int64_t, Value, Value)> body,
      SmallVector<Value> *collected = nullptr);

  MmaOperand atStage(ImplicitLocOpBuilder &b, const MmaOperand &o, Value stage);
  void forEachAccumulatorPair(
      ImplicitLocOpBuilder &b, const MmaLane &lane, const WarpTile &tile,
      ValueRange acc,
      function_ref<void(ImplicitLocOpBuilder &, Value, Value, Value, Value)>
          body);
  void storePair(ImplicitLocOpBuilder &b, Value memref,
                 SmallVector<Value> indices, Value extent, Value first,
                 Value second, bool pairs);
  std::pair<Value, Value> loadPair(ImplicitLocOpBuilder &b, Value memref,
                                   SmallVector<Value> indices, int64_t extent);

  //===------------------------------------------------------------------===//
  // Launch 1: the chunk kernel (ChunkKernel.cpp)
  //===------------------------------------------------------------------===//

  std::pair<Value, Value> addCompensated(ImplicitLocOpBuilder &b, Value hi,
                                         Value lo, Value step);
  SmallVector<Value> combineCompensated(ImplicitLocOpBuilder &b,
                                        ValueRange earlier, ValueRange later);
  Value decayBetween(ImplicitLocOpBuilder &b, Value hiI, Value loI, Value hiJ,
                     Value loJ);

  void emitChunkKernel(ImplicitLocOpBuilder &b);
  void emitChunkCumsum(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value chunk, Value head, Value part,
                       const ChunkLocation &c, Value tid, Value lane);
  void emitChunkStateBlock(ImplicitLocOpBuilder &b, const KernelContext &k,
                           Value chunk, Value head, Value part);
  void emitChunkCBBlock(ImplicitLocOpBuilder &b, const KernelContext &k,
                        Value chunk, Value group, Value iTile, Value jTile);

  //===------------------------------------------------------------------===//
  // Launch 1 with state passing and the output fused in
  // (FusedStatePassing.cpp)
  //===------------------------------------------------------------------===//

  Value elementPointer(ImplicitLocOpBuilder &b, Value memref,
                       ValueRange indices);
  Value loadAcquire(ImplicitLocOpBuilder &b, Value memref, ValueRange indices);
  void storeRelease(ImplicitLocOpBuilder &b, Value v, Value memref,
                    ValueRange indices);
  void releaseFenceGPU(ImplicitLocOpBuilder &b);
  void countIn(ImplicitLocOpBuilder &b, Value tid,
               function_ref<Value(ImplicitLocOpBuilder &)> index);
  static constexpr int32_t kMaxBackoffNs = 256;
  void waitForFlag(ImplicitLocOpBuilder &b, Value index,
                   Value expected = Value());
  Value takeTicket(ImplicitLocOpBuilder &b, const KernelContext &k, Value tid);

  void passState(ImplicitLocOpBuilder &b, const KernelContext &k, Value chunk,
                 Value head, Value part, Value located, const MmaLane &lane,
                 const WarpTile &tile, ValueRange acc, Value n0);
  Value cbCountOf(ImplicitLocOpBuilder &b, Value chunk, Value group);
  Value cbReadersOf(ImplicitLocOpBuilder &b, Value chunk, Value group);
  void emitFusedOutput(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value chunk, Value head, Value located);

  //===------------------------------------------------------------------===//
  // Launch 2: state passing (StatePassing.cpp)
  //===------------------------------------------------------------------===//

  /// Elements of the state per thread in launches 2 and 3: 4 consecutive
  /// elements of a row (16-byte accesses) when N allows.
  int64_t stateVector() const {
    return x.dstate % kStateVector == 0 ? kStateVector : 1;
  }
  Value loadStateVector(ImplicitLocOpBuilder &b, Value memref,
                        ValueRange indices);
  void storeStateVector(ImplicitLocOpBuilder &b, Value value, Value memref,
                        ValueRange indices);

  /// A sequence's checkpoint boundaries, and what state passing needs to
  /// place its chunks among its tokens and to walk them.
  struct CheckpointedSequence {
    Checkpoints::Sequence boundaries;
    Value begin, len, firstChunk; // tokens begin..begin + len
    Value a, group;               // A_h and the head's group
  };
  CheckpointedSequence checkpointedSequence(ImplicitLocOpBuilder &b, Value seq,
                                            const SequenceInfo &s, Value head);
  void emitChunkCheckpoints(ImplicitLocOpBuilder &b,
                            const CheckpointedSequence &c, Value chunk,
                            Value head, Value p, Value n, Value prev,
                            Value next);
  void emitStatePassing(ImplicitLocOpBuilder &b);

  //===------------------------------------------------------------------===//
  // Launch 3: output and final states (OutputKernel.cpp)
  //===------------------------------------------------------------------===//

  void emitOutputKernel(ImplicitLocOpBuilder &b);

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
    // Fused: [tokenSlots] per chunk token, S_prev [paddedP x reductionN],
    // resident (and x: residentXTile).
    int64_t cumHi = 0, cumLo = 0, dt = 0, tokenSlots = 0, sPrev = 0;
  };
  OutputTileLayout outputKernelLayout() const;
  /// Whether the passes of `layout` run on wgmma (the fused output, with
  /// outputWgmma).
  bool outputByWgmma(const OutputTileLayout &layout) const {
    return layout.inBlock && plan.outputWgmma;
  }
  OutputTileLayout fusedOutputLayout() const;
  void emitOutputTile(ImplicitLocOpBuilder &b, const KernelContext &k,
                      const OutputTileLayout &layout, Value chunk, Value head,
                      const ChunkLocation &c, Value i0);

  /// An output tile under way: where it lies, and what its steps share.
  struct OutputTile {
    const KernelContext &k;
    const OutputTileLayout &layout;
    Value chunk, head;
    const ChunkLocation &c;
    Value i0;
    Value tid, lane, group, lastToken, rowsEnd;
    // Row r's cum (hi, lo) and exp(cum) are at rowBase + r of these.
    Value rowHi, rowLo, rowDecay, rowBase;
    MmaLane mmaLaneInfo;
    WarpTile tile;
  };
  OutputTile beginOutputTile(ImplicitLocOpBuilder &b, const KernelContext &k,
                             const OutputTileLayout &layout, Value chunk,
                             Value head, const ChunkLocation &c, Value i0);
  Value rowValue(ImplicitLocOpBuilder &b, const OutputTile &ot, Value array,
                 Value r);
  void addInterChunkTerm(ImplicitLocOpBuilder &b, const OutputTile &ot,
                         SmallVector<Value> &acc);
  void scaleByRowDecay(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       SmallVector<Value> &acc);
  void addIntraChunkTerm(ImplicitLocOpBuilder &b, const OutputTile &ot,
                         SmallVector<Value> &acc);
  void storeOutputRows(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       ValueRange acc);
  void storeOutputQuads(ImplicitLocOpBuilder &b, const OutputTile &ot,
                        ValueRange acc, Value dSkip,
                        const SwizzledTile &xResident);
  SwizzledTile residentXTile(ImplicitLocOpBuilder &b, const KernelContext &k);
  /// The fused output's S_prev tile, [P][N] or, with outputWgmma, 64-column
  /// panels [N / 64][P][64]; and where its (p, n) lies in it.
  SwizzledTile prevStateTile(ImplicitLocOpBuilder &b, const KernelContext &k);
  std::pair<Value, Value> prevStateAt(ImplicitLocOpBuilder &b, Value p,
                                      Value n);
  std::pair<Value, Value> residentXPair(ImplicitLocOpBuilder &b,
                                        const SwizzledTile &tile, Value row,
                                        Value col);
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H
