//===- ChunkedKernels.h - the chunked scan's kernel builder -----*- C++ -*-===//
//
// The builders of the chunked form's launches (ChunkedScanGPU.cpp holds the
// map of the math). One context per op (ChunkedContext: the plan, the
// host-side extents and the workspace views every kernel reads), one builder
// per launch over it, and what the launches share in the builders' common
// base (ChunkedKernelParts). By file:
//
//   ChunkedScanGPU.cpp     the context, the workspace, the launch order
//   MixedScanGPU.cpp       the mixed launch (serial and chunked sequences)
//   ChunkMap.cpp           chunks of sequences: counting, mapping, locating
//   MmaPipeline.cpp        operand staging and the double-buffered k-steps
//   BlockSync.cpp          flags, tickets, waits between blocks
//   ChunkKernel.cpp        launch 1: cumsum, dS and C Bᵀ blocks
//   FusedStatePassing.cpp  launch 1 with state passing (and the output)
//                          fused in: publication and the fused output
//   StatePassing.cpp       launch 2 and the checkpoints inside chunks
//   OutputTile.cpp         the output tile (launch 3, and the fused output)
//   OutputKernel.cpp       launch 3: y and the final states
//
// A team (a head of a block of paired heads) is explicit: the KernelContext
// of its threads (KernelContext::team, threads) and its HeadTeam.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H
#define SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H

#include "ChunkedPlan.h"
#include "GPUBuilders.h"
#include "ScanEmitter/PoolCodec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

namespace mlir {
namespace ssd {
namespace detail {

/// The chunk a block works on.
struct ChunkLocation {
  Value seq, first, len;
};

/// What every launch of one op's chunked form reads: the plan, the op and
/// its operands (ScanEmitter), its checkpoints, the host-side extents and the
/// views of the call's workspace. Built once per op (ChunkedScanGPU.cpp);
/// each launch's builder reads its own copy.
struct ChunkedContext {
  /// `minSequence` > 0: a mixed launch, where only sequences of at least
  /// that many tokens run chunked (the serial kernels take the others).
  ChunkedContext(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                 const ChunkedPlan &plan, int64_t minSequence);

  ScanEmitter e;
  Checkpoints checkpoints;
  const ChunkedPlan &plan;
  StaticExtents x;
  int64_t L;
  int64_t minSequence;
  /// The plan's staging, fragment loads and fusion, as the kernels test them.
  bool async;
  bool fused, fusedOutput;
  FragmentLoads loads;
  ChunkScanVarlenOp op;
  PoolCodec codec; // the pool's format and rounding
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
                           // (fusedStoresFinals: only contested writers'
                           // are stored here)
  Value chunkedSeqs;       // mixed launches: [seqBound + 1] i32, the sequences
                           // that run chunked, then their count
  Value cb;    // [K', G, chunkRows, paddedRows] C Bᵀ (bf16 for bf16 models,
               // else f32); K' = K, or with the fused output a ring of
               // min(K, kCBRingSlots) chunks (cbSlotOf)
  Value flags; // [1 + K (H parts + G')] i32: the ticket counter, then per
               // (chunk, head, part) 1 once its inclusive state is
               // published; with the fused output (G' = 2 G; 0 with
               // cb_in_block, which has no C Bᵀ tiles) then per (chunk,
               // group) the C Bᵀ tiles stored so far and the heads done
               // reading them
  Value chainState; // [H, P, N] f32: the inclusive state the fused chain
                    // passes on, each chunk overwriting its predecessor's

  /// Records the workspace buffers (host code at `b`) and, once the
  /// WorkspaceBuilder allocated them, takes their views.
  void declareWorkspace(ImplicitLocOpBuilder &b, WorkspaceBuilder &w);
  void bindWorkspace(ArrayRef<Value> views);

  /// Whether the fused output reads C Bᵀ tiles that C Bᵀ blocks of the
  /// launch store (and counts them), rather than computing it in the block.
  bool cbTiles() const { return !plan.cbInBlock; }
  /// C Bᵀ as W is built from it: bf16 for bf16 models, whose every reader
  /// scales it and rounds it to bf16 again for the mma (the tiles then move
  /// half the bytes through L2), f32 for f16 models (C Bᵀ is not yet scaled
  /// by d and the decay and could overflow f16's range where W does not)
  /// and for f32 models. Computed in the block, it is rounded the same way,
  /// so W has the same bits either way.
  Type cbElementType() const {
    return plan.element == MmaElement::BF16 && !plan.split
               ? mmaType
               : Type(Float32Type::get(mmaType.getContext()));
  }
  int64_t flagsPerChunk() const {
    return x.heads * plan.stateParts +
           (fusedOutput && cbTiles() ? 2 * x.groups : 0);
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
  Value cbSlotOf(ImplicitLocOpBuilder &b, Value chunk) const {
    return fusedOutput ? ir::remu(b, chunk, kCBRingSlots) : chunk;
  }
  /// The blocks that read a chunk's C Bᵀ tiles of one group, each counting
  /// itself out of the ring slot once (emitFusedOutput): one per head,
  /// since the fused output holds the whole state in one block.
  int64_t cbReadersPerGroup() const {
    assert(plan.stateParts == 1 && "the fused output needs one state part");
    return x.heads / x.groups;
  }
  /// Elements of the state per thread in launches 2 and 3 (see
  /// chunkedStateVector).
  int64_t stateVector() const { return chunkedStateVector(x, codec.scaled()); }
  /// Whether the fused chunk kernel stores final states into the pool
  /// itself (an uncontested writer's last chunk), leaving `finals` to
  /// contested writers. Not for an 8-bit pool: a row's scale needs the
  /// row's maximum, and the chunk kernel spreads a row over mma fragments
  /// in several warps; every writer's final state goes through `finals` to
  /// the output kernel's final-state blocks, which hold a row in lanes of
  /// one warp (chunkedRowLanes) as unfused.
  bool fusedStoresFinals() const { return fused && !codec.scaled(); }

private:
  /// Entries of `finals` the call needs (declareWorkspace).
  Value finalStates(ImplicitLocOpBuilder &b);
  /// Index of each workspace view (declareWorkspace order) in the views the
  /// WorkspaceBuilder returns; ~0u for a buffer this launch does not need.
  SmallVector<unsigned> workspaceSlots;
};

/// The head a team of a state block builds, as everything that builds it
/// for that head sees it: the team's kernel context (KernelContext::team,
/// threads), the head, the group of the block's heads (null: a block of one
/// head, whose group follows from the head) and where the state block put
/// its wgmma tiles (with paired heads the first head's copy; headTiles gives
/// the team's).
struct HeadTeam {
  KernelContext k;
  Value head;
  Value pairGroup;
  std::optional<WgmmaTiles> tiles;
};

/// What the chunked form's launches share beyond the context: control-flow
/// helpers, the chunk map (ChunkMap.cpp), operand staging and the k-step
/// pipeline (MmaPipeline.cpp), the flags and tickets blocks synchronize on
/// (BlockSync.cpp), and the state vectors of launches 2 and 3. Each launch's
/// builder derives from it.
class ChunkedKernelParts : protected ChunkedContext {
protected:
  explicit ChunkedKernelParts(const ChunkedContext &context)
      : ChunkedContext(context) {}

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

  /// exp(min(cum_i - cum_j, 0)) from compensated sums (ChunkKernel.cpp).
  Value decayBetween(ImplicitLocOpBuilder &b, Value hiI, Value loI, Value hiJ,
                     Value loJ);
  /// The group of `head`: the pair's in a block of paired heads (from the
  /// block's pair index rather than the team's head, which keeps it off the
  /// team's registers).
  Value groupOf(ImplicitLocOpBuilder &b, const HeadTeam &team) {
    return team.pairGroup ? team.pairGroup : e.groupOf(b, team.head);
  }
  /// The whole block seen from a team (a head of a block of paired heads):
  /// thread ids over every team, views where the layout puts them (the
  /// first head's copy), for the operands the heads share. `k` itself
  /// without a team.
  KernelContext wholeBlock(ImplicitLocOpBuilder &b,
                           const KernelContext &k) const;
  /// The wgmma tiles of the head `team` builds: its state block's (the first
  /// copy's), moved to the team's copy where it is used, so that the
  /// addresses live across the kernel stay those of the arena (the paired
  /// kernel is at its 128 registers). The shared stages are the first's.
  WgmmaTiles headTiles(ImplicitLocOpBuilder &b, const HeadTeam &team) const;

  //===------------------------------------------------------------------===//
  // Chunk map (ChunkMap.cpp)
  //===------------------------------------------------------------------===//

  Value sequenceLength(ImplicitLocOpBuilder &b, Value seq);
  Value isChunked(ImplicitLocOpBuilder &b, Value len);
  Value chunksOf(ImplicitLocOpBuilder &b, Value seq);
  /// The per-thread range of sequences and the block scan of their chunk
  /// counts over `threads` threads: every thread gets its range [lo, hi),
  /// the chunks before it and the total.
  struct SequenceRanges {
    Value lo, hi, count, before, total;
    Value chunkedBefore; // chunked sequences before lo (mixed launches)
  };
  SequenceRanges scanSequenceRanges(ImplicitLocOpBuilder &b, Value tid,
                                    Value lane, int64_t threads, Value scratch,
                                    Value chunkedScratch = Value());
  void
  locateChunk(ImplicitLocOpBuilder &b, Value k, Value tid, Value lane,
              int64_t threads, Value scratch, Value located,
              function_ref<void(ImplicitLocOpBuilder &, ChunkLocation)> body);
  void locateChunkOfBlock(
      ImplicitLocOpBuilder &b, const KernelContext &k, Value chunk,
      int64_t scratchOffset, int64_t locatedOffset,
      function_ref<void(ImplicitLocOpBuilder &, ChunkLocation, Value)> body);
  void emitChunkMap(ImplicitLocOpBuilder &b, Value tid, Value lane,
                    int64_t threads, Value scratch, Value chunkedScratch);
  void
  forChunkedSequence(ImplicitLocOpBuilder &b, Value i,
                     function_ref<void(ImplicitLocOpBuilder &, Value)> body);
  Value chunkedSequencesBefore(ImplicitLocOpBuilder &b, Value seq, Value tid,
                               Value lane, int64_t threads, Value warpCounts);

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
  /// Builds a stage from copies that have landed (a step's own cp.async
  /// copies, read back from shared memory).
  using PrepareFn =
      function_ref<void(ImplicitLocOpBuilder &, Value step, Value stage)>;
  SmallVector<Value> pipelinedReduction(ImplicitLocOpBuilder &b, Value steps,
                                        ValueRange accInit, FetchFn fetch,
                                        DepositFn deposit, ComputeFn compute,
                                        bool asyncProxyReads = false,
                                        PrepareFn prepare = nullptr);
  SmallVector<Value> warpStep(ImplicitLocOpBuilder &b, const MmaLane &lane,
                              const WarpTile &tile, const MmaOperand &a,
                              const MmaOperand &bOp, Value stage,
                              ValueRange acc, bool bStaged = true,
                              Value bK = Value());
  MmaOperand operand(ImplicitLocOpBuilder &b, const KernelContext &k,
                     int64_t highOffset, int64_t lowOffset, int64_t rows,
                     int64_t cols, bool kRows, Value shift = Value(),
                     int64_t stages = 0);
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
  /// `tokensHeld`: how many tokens the state holds, stochastic rounding's
  /// counter where `memref` is the pool (null otherwise).
  void storePair(ImplicitLocOpBuilder &b, Value memref,
                 SmallVector<Value> indices, Value extent, Value first,
                 Value second, bool pairs, Value tokensHeld = Value());
  /// Elements ..col and ..col+1 of `memref` as f32 (0 at or past
  /// `extent`), `toF32` widening what is loaded; loadPair widens a 16-bit
  /// float, loadPoolPair decodes the pool.
  std::pair<Value, Value>
  loadPairAs(ImplicitLocOpBuilder &b, Value memref, SmallVector<Value> indices,
             int64_t extent,
             function_ref<Value(ImplicitLocOpBuilder &, Value)> toF32);
  std::pair<Value, Value> loadPair(ImplicitLocOpBuilder &b, Value memref,
                                   SmallVector<Value> indices, int64_t extent);
  /// loadPair from the pool at (slot, head, p, col), decoded (an 8-bit
  /// row's codes times its scale).
  std::pair<Value, Value> loadPoolPair(ImplicitLocOpBuilder &b,
                                       SmallVector<Value> indices,
                                       int64_t extent);

  //===------------------------------------------------------------------===//
  // Flags and tickets (BlockSync.cpp)
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
  Value cbCountOf(ImplicitLocOpBuilder &b, Value chunk, Value group);
  Value cbReadersOf(ImplicitLocOpBuilder &b, Value chunk, Value group);

  //===------------------------------------------------------------------===//
  // State vectors of launches 2 and 3 (StatePassing.cpp)
  //===------------------------------------------------------------------===//

  Value loadStateVector(ImplicitLocOpBuilder &b, Value memref,
                        ValueRange indices);
  void storeStateVector(ImplicitLocOpBuilder &b, Value value, Value memref,
                        ValueRange indices);
  /// A state vector into the pool at (slot, head, p, n), rounded as the op
  /// asks: stochastically with `tokensHeld` (the tokens the state holds)
  /// as the counter, else as storeStateVector rounds. An 8-bit row takes
  /// its scale from the row's N / v threads, aligned lanes of one warp
  /// (chunkedRowLanes), which must all store together.
  void storePoolVector(ImplicitLocOpBuilder &b, Value value, ValueRange indices,
                       Value tokensHeld);
  /// The pool's state vector at (slot, head, p, n) as f32 (an 8-bit row's
  /// codes times its scale).
  Value loadPoolVector(ImplicitLocOpBuilder &b, ValueRange indices);
  /// Tokens sequence `seq` held before the call (checkpoint_offsets[seq],
  /// 0 without them); null unless the pool is rounded stochastically.
  Value tokensBefore(ImplicitLocOpBuilder &b, Value seq);
};

/// The output tile, y for some rows of a chunk and one head (OutputTile.cpp):
/// built by the output kernel's blocks (64 rows, 128 threads; cum, d and
/// S_prev from the workspace) and, with the fused output, by the chunk
/// kernel's (chunk, head) blocks (outputRows rows a pass, 256 threads; cum,
/// d, exp(cum) per chunk token and S_prev already in shared memory).
class OutputTileBuilder : public ChunkedKernelParts {
protected:
  using ChunkedKernelParts::ChunkedKernelParts;

  /// Where an output tile's operands and row values live.
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
    // C·Bᵀ in the block (cb_in_block): aHigh holds the pass's C, a slot per
    // k-step of N; the W tile; the ring of the W steps' B rows.
    bool cbInBlock = false;
    int64_t wTile = 0, bRows = 0;
  };
  OutputTileLayout outputKernelLayout() const;
  OutputTileLayout fusedOutputLayout() const;
  /// Whether the passes of `layout` run on wgmma (the fused output, with
  /// outputWgmma).
  bool outputByWgmma(const OutputTileLayout &layout) const {
    return layout.inBlock && plan.outputWgmma;
  }
  void emitOutputTile(ImplicitLocOpBuilder &b, const HeadTeam &team,
                      const OutputTileLayout &layout, Value chunk,
                      const ChunkLocation &c, Value i0);

  SwizzledTile residentXTile(ImplicitLocOpBuilder &b, const HeadTeam &team);
  /// The fused output's S_prev tile, [P][N] or, with outputWgmma, 64-column
  /// panels [N / 64][P][64]; and where its (p, n) lies in it.
  SwizzledTile prevStateTile(ImplicitLocOpBuilder &b, const HeadTeam &team);
  std::pair<Value, Value> prevStateAt(ImplicitLocOpBuilder &b, Value p,
                                      Value n);

private:
  /// An output tile under way: where it lies, and what its steps share.
  struct OutputTile {
    const HeadTeam &team;
    const OutputTileLayout &layout;
    Value chunk;
    const ChunkLocation &c;
    Value i0;
    Value tid, lane, group, lastToken, rowsEnd;
    // Row r's cum (hi, lo) and exp(cum) are at rowBase + r of these.
    Value rowHi, rowLo, rowDecay, rowBase;
    MmaLane mmaLaneInfo;
    WarpTile tile;
  };
  OutputTile beginOutputTile(ImplicitLocOpBuilder &b, const HeadTeam &team,
                             const OutputTileLayout &layout, Value chunk,
                             const ChunkLocation &c, Value i0);
  Value rowValue(ImplicitLocOpBuilder &b, const OutputTile &ot, Value array,
                 Value r);
  void addInterChunkTerm(ImplicitLocOpBuilder &b, const OutputTile &ot,
                         SmallVector<Value> &acc);
  void scaleByRowDecay(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       SmallVector<Value> &acc);
  void addIntraChunkTerm(ImplicitLocOpBuilder &b, const OutputTile &ot,
                         SmallVector<Value> &acc);
  void addIntraChunkTermInBlock(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                SmallVector<Value> &acc);
  void storeOutputRows(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       ValueRange acc);
  void storeOutputQuads(ImplicitLocOpBuilder &b, const OutputTile &ot,
                        ValueRange acc, Value dSkip,
                        const SwizzledTile &xResident);
  std::pair<Value, Value> residentXPair(ImplicitLocOpBuilder &b,
                                        const SwizzledTile &tile, Value row,
                                        Value col);

  /// Columns of a W piece, and pieces per row of a k-step.
  static constexpr int64_t kWCols = 4, kWPiecesPerRow = kStep / kWCols;
  /// Where a thread builds its pieces of the intra-chunk term's W operand
  /// (placeWPieces says how they are laid out), for every k-step.
  struct WPieces {
    int64_t heads;             // heads whose W the thread builds (paired: both)
    Value col, row;            // the thread's piece column and first row
    SmallVector<int64_t> rows; // its rows, after `row`
    Value warpRow; // the warp's first row: the reference of its factored W
    KernelContext arena; // where each head's copy of the layout is
    SmallVector<MmaOperand> stageOfHead;
    int64_t band; // rows a warp (or warpgroup) skips together
    bool bandPerThread, reloadRowCum;
    Type cbElement;
    // With one head, unless reloadRowCum: the reference row's cum (hi,
    // lo) and per row exp(cum_i - cum_ref) (0 past the chunk).
    SmallVector<std::pair<Value, Value>> refCum;
    SmallVector<Value> rowScale;
    int64_t copyOf(int64_t h, int64_t offset, const ChunkedPlan &plan) const {
      return heads > 1 ? offset + h * plan.headStride : offset;
    }
  };
  WPieces placeWPieces(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       const MmaOperand &ws);
  std::pair<Value, Value> rowCum(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                 const WPieces &w, Value r, int64_t h);
  std::pair<Value, Value> refCum(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                 const WPieces &w, int64_t h);
  Value rowScale(ImplicitLocOpBuilder &b, const OutputTile &ot,
                 const WPieces &w, Value r, int64_t h,
                 std::pair<Value, Value> ref);
  Value readByItsWarps(ImplicitLocOpBuilder &b, const OutputTile &ot,
                       const WPieces &w, Value r, Value j0);
  /// The decay mask's arithmetic, one definition for the pieces' builder
  /// and the in-block one (cb_in_block), so that both give W the same bits
  /// (docs/gpu.md, "The decay mask, factored"). Whether the k-step from j0
  /// lies wholly below the warp's first row (the factored form's steps):
  Value wStepBelowWarp(ImplicitLocOpBuilder &b, Value i0, Value warpRow,
                       Value j0);
  /// K_j d_j = exp(cum_ref - cum_j) d_j, a column's factor there:
  Value wColumnFactor(ImplicitLocOpBuilder &b, std::pair<Value, Value> ref,
                      Value hiJ, Value loJ, Value dJ);
  /// G exp(cum_i - cum_j) d_j, the exact element (before the causal test):
  Value wExactElement(ImplicitLocOpBuilder &b, Value g, Value hiI, Value loI,
                      Value hiJ, Value loJ, Value dJ);
  SmallVector<Value> columnValues(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                  const WPieces &w, Value jb, int64_t h);
  SmallVector<Value> fetchWPieces(ImplicitLocOpBuilder &b, const OutputTile &ot,
                                  const WPieces &w, Value j0);
  void storeWPieces(ImplicitLocOpBuilder &b, const OutputTile &ot,
                    const WPieces &w, ValueRange pieces, Value stage, Value j0,
                    Value jb, int64_t h);
};

/// Launch 1, the chunk kernel (ChunkKernel.cpp): the chunk map, the C Bᵀ
/// blocks and the state blocks, with state passing and the output fused in
/// (FusedStatePassing.cpp).
class ChunkKernelBuilder : public OutputTileBuilder {
public:
  explicit ChunkKernelBuilder(const ChunkedContext &context)
      : OutputTileBuilder(context) {}
  void emit(ImplicitLocOpBuilder &b);

private:
  std::pair<Value, Value> addCompensated(ImplicitLocOpBuilder &b, Value hi,
                                         Value lo, Value step);
  SmallVector<Value> combineCompensated(ImplicitLocOpBuilder &b,
                                        ValueRange earlier, ValueRange later);

  void emitStateRole(ImplicitLocOpBuilder &b, const KernelContext &k,
                     Value chunk, Value stateRole);
  void emitChunkCumsum(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value chunk, Value head, Value part,
                       const ChunkLocation &c, Value tid, Value lane);
  void emitChunkStateBlock(ImplicitLocOpBuilder &b, HeadTeam team, Value chunk,
                           Value part);
  void emitChunkCBBlock(ImplicitLocOpBuilder &b, const KernelContext &k,
                        Value chunk, Value group, Value iTile, Value jTile);

  // State passing and the output fused in (FusedStatePassing.cpp).
  void passState(ImplicitLocOpBuilder &b, const HeadTeam &team, Value chunk,
                 Value part, Value located, const MmaLane &lane,
                 const WarpTile &tile, ValueRange acc, Value n0);
  void emitFusedOutput(ImplicitLocOpBuilder &b, const HeadTeam &team,
                       Value chunk, Value located);
};

/// Launch 2, state passing, and the checkpoints inside chunks
/// (StatePassing.cpp).
class StatePassingBuilder : public ChunkedKernelParts {
public:
  explicit StatePassingBuilder(const ChunkedContext &context)
      : ChunkedKernelParts(context) {}
  void emit(ImplicitLocOpBuilder &b);

private:
  /// A sequence's checkpoint boundaries, and what state passing needs to
  /// place its chunks among its tokens and to walk them.
  struct CheckpointedSequence {
    Checkpoints::Sequence boundaries;
    Value begin, len, firstChunk; // tokens begin..begin + len
    Value a, group;               // A_h and the head's group
    Value tokensBefore;           // o, for stochastic rounding (else null)
  };
  CheckpointedSequence checkpointedSequence(ImplicitLocOpBuilder &b, Value seq,
                                            const SequenceInfo &s, Value head);
  void emitChunkCheckpoints(ImplicitLocOpBuilder &b,
                            const CheckpointedSequence &c, Value chunk,
                            Value head, Value p, Value n, Value prev,
                            Value next);
};

/// Launch 3, the output kernel: y (unless the chunk kernel computed it) and
/// the final states (OutputKernel.cpp).
class OutputKernelBuilder : public OutputTileBuilder {
public:
  explicit OutputKernelBuilder(const ChunkedContext &context)
      : OutputTileBuilder(context) {}
  void emit(ImplicitLocOpBuilder &b);

private:
  void emitFinalStates(ImplicitLocOpBuilder &b, const KernelContext &k,
                       Value outputBlocks);
};

/// The chunked form's launches for `context` in order: the three launches
/// (two when state passing is fused); in a mixed launch only when T reaches
/// the per-sequence threshold (otherwise no sequence runs chunked).
void emitChunkedLaunches(ImplicitLocOpBuilder &b,
                         const ChunkedContext &context);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_CHUNKEDKERNELS_H
