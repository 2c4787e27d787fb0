//===- SerialScanGPU.cpp - the token-serial scan as a GPU kernel ----------===//
//
// The recurrence of SerialScan.cpp, mapped onto the GPU:
//
//   grid  = (batch, H, ceil(P / (W R)))     block = (32 lanes, W warps)
//   (batch on x, whose limit is 2^31 - 1, not 65535)
//   warp w of block (b, h, z) owns rows p = z W R + w R + [0, R) of the
//   state of sequence b, head h; lane l owns the V consecutive columns
//   n = 32 V j + V l + [0, V), j < J = ceil(N / (32 V)), V = 4 (2, 1) when
//   N is a multiple of 128 (64, neither). While R J V <= 64 (N <= 512 at
//   the default R = 4; every model's N is at most 256) the R x J x V state
//   values live in registers (the register path):
//
//   S[r][j] = has_initial_state ? pool[slot, h, p_r, n_j] : 0
//   for t in tokens of b:
//     S[r][j]    = exp(d_t A_h) S[r][j] + (d_t x[t, h, p_r]) B[t, g, n_j]
//     y[t,h,p_r] = warp_sum_l(sum_j S[r][j] C[t, g, n_j]) (+ D_h x[t, h, p_r])
//     if t ends a checkpoint boundary k (GPUBuilders.h, Checkpoints):
//       pool[checkpoint_slots[b, k], h, p_r, n_j] = S[r][j]
//   if writes: pool[slot, h, p_r, n_j] = S[r][j]
//
// Checkpoints cost one boundary test per token (uniform over the block, so
// no divergence) and, at a boundary, one more state write: the same
// coalesced rows as the final state, rounded the same way. Checkpoint
// slots are never read, so they are written from whichever launch scans
// the sequence.
//
// The update and the dot product are written as a * b + c with
// contraction allowed, so each is one fma. B and C rows are read once per
// token per warp, 32 V consecutive columns at a time, and the pool moves in
// the same coalesced rows (512 bytes per warp access at V = 4): decode (one
// token) reads and writes each state element exactly once.
//
// A tree (token_parents: token j of a sequence continues the state of its
// parent p, a local index in [0, j), or the initial state at p = -1) runs
// the same loop. Each token first tests whether it continues the state the
// registers hold (p = j - 1; p = -1 at j = 0): then the step is exactly the
// chain's, so a chain given as explicit parents gives the chain's bits.
// Otherwise the parent's state is recomputed along its path:
//
//   d = depth of p (walking the parents up to -1)
//   S[r][j] = initial state, re-read as above
//   for i in [0, d): a = the ancestor d - 1 - i steps up from p
//     S[r][j] = exp(d_a A_h) S[r][j] + (d_a x[a, h, p_r]) B[a, g, n_j]
//
// with the normal step's update code (no y, no checkpoints, no warp sum),
// so that a node's state has the same bits however it is reached; then
// token j's normal step (update, y, checkpoint) runs on it. It costs no
// memory and depth(p) update-only steps (plus O(depth^2) integer loads of
// the parents, uniform over the block) for each token that does not
// continue the token before it. With checkpoint_interval 1 (the verifier's
// rule for trees) checkpoint column j gets token j's state; the final state
// is the last token's. The initial state may be re-read mid-sequence: a
// thread re-reads only its own elements of its own slot, which it writes
// only after its token loop; another sequence reading that slot makes it a
// contested writer, which scans in the second launch, and checkpoint slots
// differ from every slot the call reads. The pieces path replays per piece,
// the piece's columns only. A tree's kernels ask for 4 blocks per SM (a cap
// of 128 registers), without which ptxas spills in them.
//
// Every reader must see the pool as it was before the op. A writer whose
// slot another sequence reads (tree speculation: one writer, many readers
// of its slot) is "contested": it scans in a second launch, after every
// other sequence has read its initial state; nobody else writes its slot
// (one writer per slot), so its own read there still sees the old state.
// Each writer's block finds out in launch 1 with a block-wide pass over the
// batch (O(batch / threads) loads per block, no atomics, nothing to zero),
// and block (b, 0, 0) records the answer in a per-call workspace flag; the
// second launch is a small grid over (H, P-tiles) whose blocks walk the
// flags and scan only the contested writers (skipped on the host for a
// call of one sequence, which nobody else can contest). Without
// has_initial_state nobody reads the pool and there is one launch.
//
// Larger N (up to the op's limit of 2^20) is scanned in pieces of
// J' = max(1, 32 / (R V)) column groups (32 V J' columns: 256 at R = 4),
// one piece after the other, the same IR whatever N is:
//
//   for each piece k (a loop, not unrolled):
//     S[r][j] = initial state of the piece's columns (as above)
//     for t in tokens of b:
//       S[r][j] = exp(d_t A_h) S[r][j] + (d_t x[t, h, p_r]) B[t, g, n_j]
//       sum     = warp_sum_l(sum_j S[r][j] C[t, g, n_j])
//       k = 0: rowSums[t, h, p_r] = sum        (0 < k < last: += sum)
//       k last: y[t, h, p_r] = rowSums[t, h, p_r] + sum (+ D_h x[t, h, p_r])
//       checkpoints of the piece's columns, as above
//     if writes: pool[slot, h, p_r, n_j] = S[r][j]
//
// Where the state lives between tokens decides the cost, and the choice
// was between two orders. Tokens outside, pieces inside would keep the
// whole state in a per-call workspace of f32 rows and move every row
// through memory at every token (8 N bytes per row and token: 8 MiB at
// N = 2^20, far beyond any cache), from a workspace of batch x H x P x N
// f32, as large as an f32 pool with a slot for every sequence. Pieces
// outside, tokens inside (this kernel) keeps a piece's state in registers
// from its pool load to its pool store, as the register path keeps all of
// it: each pool element is still read once and written once, by the lane
// that owns it, and its recurrence is the same operations in the same
// order, so final states and checkpoints are what the register path
// computes. What crosses pieces is y's sum over the columns: one f32 per
// (token, head, row) in the per-call workspace (`rowSums`, [T, H, P] f32,
// the size of y in f32; one load and one store by the row's lane per token
// and piece, against the 1 KiB a piece's row of state would move). y's sum
// is taken per piece and then over the pieces, in piece order: another
// order than the register path's single warp sum, and the same bits
// whatever the launch order. The price is that each piece recomputes the
// token's scalars (dt, its softplus, exp(d A), x): per token and row a
// handful of operations against V J' fma per lane. The pool contract is
// unchanged: a piece reads only its own columns of the slot before it
// writes them, the contested writers still scan in the second launch, and
// the launches and the vote are the same code as the register path's.
//
// An invariant op (its `invariant` mark) gets this kernel whatever
// its form, as the invariant variant (kernels named ssd_scan_invariant):
// the same launches, writer order, checkpoints and pool accesses, with the
// arithmetic of ScanEmitter/CanonicalMath.h and nothing LLVM may contract.
// Lane l owns columns n = l + 32 j (V = 1: each warp access is a 128-byte
// row), so its partial of y's sum is the canonical partial l: columns in
// increasing n from +0, fma(S, C, partial) each, columns past dstate
// leaving it unchanged. warpSum's xor butterfly then adds the partials in
// canonical::tree32's order, the same bits in every lane. The token's
// scalars (d, exp(min(d A, 0))) are computed by every lane alike, and NaNs
// are made canonical before every store. The state stays in registers:
// R is lowered until R x dstate / 32 <= 64, down to one row a warp at
// dstate 2048, the largest it takes (no pieces: their sum over the pieces
// is another order than the canonical one).
//
// A compressed pool (docs/overview.md, "Compressed state pools") moves
// through PoolCodec: a lane decodes the elements it loads (an 8-bit row's
// scale loaded once per row) and encodes those it stores. An 8-bit row's
// scale needs the row's maximum before any code: each lane takes it over
// its columns, an xor butterfly of shuffles over the warp (a row never
// leaves its warp), lane r stores row r's scale, and every lane encodes
// its columns. The pieces path never holds a whole row, so an 8-bit pool
// lowers the rows per warp instead, as the invariant kernel does (down to
// one row a warp at dstate 2048; longer rows are refused). Stochastic
// rounding's counter takes the tokens the written state holds: o + j + 1
// for a checkpoint after local token j (o = checkpoint_offsets[b], 0
// without them), o + len for the final state.
//
// In a mixed launch (makeSerialPart with a per-sequence threshold) the
// blocks of sequences of at least that many tokens return at once: the
// chunked kernels, launched between the two serial launches, run them. The
// contested-writer vote still counts readers of both forms.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"
#include "ScanEmitter/CanonicalMath.h"
#include "ScanEmitter/PoolCodec.h"
#include "ssd/IR/SSDOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

namespace {

/// Columns a lane owns side by side (V): 4 (2, 1) when N is a multiple of
/// 128 (64, neither); 1 in the invariant kernel, whose lane l owns columns
/// l + 32 j.
int64_t serialVectorWidth(int64_t dstate, bool invariant) {
  return invariant ? 1 : dstate % 128 == 0 ? 4 : dstate % 64 == 0 ? 2 : 1;
}

class SerialScanGPUBuilder : public SerialPart {
public:
  SerialScanGPUBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                       const StaticExtents &x, const SerialTiling &tiling,
                       int64_t minChunkedSequence)
      : e(b, op, MathFlavor::NVVMApprox), checkpoints(b, op), codec(op), x(x),
        op(op), rowsPerWarp(tiling.rowsPerWarp), warps(tiling.warpsPerBlock),
        minChunkedSequence(minChunkedSequence),
        mayShareSlots(static_cast<bool>(e.hasInitialState)),
        invariant(op.getInvariant()), parents(op.getTokenParents()) {
    // Invariant: lane l owns columns l + 32 j, so that its partial sum is
    // the canonical one of columns n = l mod 32, in increasing n.
    vectorWidth = serialVectorWidth(x.dstate, invariant);
    columnGroups = llvm::divideCeil(x.dstate, 32 * vectorWidth);
    // The invariant kernel has no pieces path (their sum over pieces is
    // another order): fewer rows per warp keep its state in registers.
    if (invariant) {
      assert(x.dstate <= kInvariantMaxDstate && "checked by readGPUPlan");
      rowsPerWarp = std::clamp<int64_t>(kRegisterPathStateValues /
                                            std::max<int64_t>(columnGroups, 1),
                                        1, rowsPerWarp);
    } else if (codec.scaled()) {
      rowsPerWarp = rowsForWholeRows(rowsPerWarp, vectorWidth, columnGroups);
    }
  }

  void declareWorkspace(ImplicitLocOpBuilder &b, WorkspaceBuilder &w) override {
    if (mayShareSlots)
      flagSlot = w.add(MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
                       {e.batch});
    if (scansInPieces())
      rowSumsSlot =
          w.add(MemRefType::get({ShapedType::kDynamic, x.heads, x.headDim},
                                b.getF32Type()),
                {e.tokens});
  }
  void bindWorkspace(ArrayRef<Value> views) override {
    if (mayShareSlots)
      flags = views[flagSlot];
    if (scansInPieces())
      rowSums = views[rowSumsSlot];
  }

  /// Every sequence but the contested writers (and, in a mixed launch, the
  /// chunked ones); contested writers are flagged for the second launch.
  void emitFirstLaunch(ImplicitLocOpBuilder &b) override {
    Value rowTiles = idx(b, llvm::divideCeil(x.headDim, rowsPerWarp * warps));
    launchKernel(
        b, e, {e.batch, idx(b, x.heads), rowTiles}, {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          requestTreeOccupancy(b);
          Value seq = k.block.x;
          Value runsHere = runsSerially(b, seq);
          Value contested = boolean(b, false);
          if (mayShareSlots) {
            Value tid = add(b, mul(b, k.thread.y, 32), k.thread.x);
            Value warpFlags = sharedView(b, k, 0, {warps}, b.getI32Type());
            contested = both(b, runsHere,
                             contestedWriter(b, e, seq, tid, k.thread.x,
                                             warpFlags, 32 * warps));
            Value recorder = both(b,
                                  both(b, eq(b, k.block.y, idx(b, 0)),
                                       eq(b, k.block.z, idx(b, 0))),
                                  eq(b, tid, idx(b, 0)));
            e.ifThen(b, recorder, [&](ImplicitLocOpBuilder &b) {
              memref::StoreOp::create(
                  b, arith::ExtUIOp::create(b, b.getI32Type(), contested),
                  flags, ValueRange{seq});
            });
          }
          Value scans =
              both(b, runsHere,
                   arith::XOrIOp::create(b, contested, boolean(b, true)));
          e.ifThen(b, scans, [&](ImplicitLocOpBuilder &b) {
            emitScan(b, seq, k.block.y, k.block.z, k.thread.x, k.thread.y);
          });
        },
        mayShareSlots ? 4 * warps : 0, kernelName());
  }

  /// The flagged (contested) writers, after every other sequence has read
  /// the pool: a grid over (heads, P-tiles) whose blocks walk the flags.
  void emitSecondLaunch(ImplicitLocOpBuilder &b) override {
    if (!mayShareSlots)
      return;
    Value rowTiles = idx(b, llvm::divideCeil(x.headDim, rowsPerWarp * warps));
    // Only another sequence's read contests a writer: a call of one
    // sequence (single-stream decode) has no contested writer, and the host
    // skips the launch (a few microseconds a call on an H200).
    Value several =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, e.batch, idx(b, 1));
    e.ifThen(b, several, [&](ImplicitLocOpBuilder &b) {
      launchKernel(
          b, e, {idx(b, x.heads), rowTiles, idx(b, 1)}, {32, warps, 1},
          [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
            requestTreeOccupancy(b);
            e.loop(b, idx(b, 0), e.batch,
                   [&](ImplicitLocOpBuilder &b, Value seq) {
                     Value flag = memref::LoadOp::create(b, flags, seq);
                     e.ifThen(b,
                              arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                                    flag, i32(b, 0)),
                              [&](ImplicitLocOpBuilder &b) {
                                emitScan(b, seq, k.block.x, k.block.y,
                                         k.thread.x, k.thread.y);
                              });
                   });
          },
          /*sharedBytes=*/0, kernelName());
    });
  }

private:
  ScanEmitter e;
  Checkpoints checkpoints;
  PoolCodec codec;
  StaticExtents x;
  ChunkScanVarlenOp op;
  int64_t rowsPerWarp, warps;
  int64_t minChunkedSequence; // > 0: longer sequences run chunked
  bool mayShareSlots;         // has_initial_state: someone may read a slot
  bool invariant;             // the canonical arithmetic (CanonicalMath.h)
  Value parents;              // token_parents [T] i32, or null (a chain)
  int64_t vectorWidth, columnGroups;
  unsigned flagSlot = 0, rowSumsSlot = 0;
  Value flags; // [batch] i32: contested writers, for the second launch
  // [T, H, P] f32, when dstate takes several pieces: per token and row, the
  // sum of C S over the pieces scanned so far.
  Value rowSums;

  /// The invariant kernels' name (the emulator checks them for contractable
  /// multiply-adds); the others take outlining's.
  StringRef kernelName() const {
    return invariant ? StringRef(kInvariantKernelName) : StringRef();
  }

  /// Whether this form scans `seq` (in a mixed launch, its short sequences).
  Value runsSerially(ImplicitLocOpBuilder &b, Value seq) {
    if (!minChunkedSequence)
      return boolean(b, true);
    SequenceInfo s = e.sequence(b, seq);
    Value len = sub(b, arith::MaxSIOp::create(b, s.end, s.begin), s.begin);
    return ult(b, len, minChunkedSequence);
  }

  /// V consecutive values of `memref` at `indices` (the last one the first
  /// column) as vector<Vxf32>, or zeros where !valid (no access).
  Value loadColumns(ImplicitLocOpBuilder &b, Value valid, Value memref,
                    ValueRange indices, bool guarded) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto f32v = VectorType::get({vectorWidth}, b.getF32Type());
    auto loadIt = [&](ImplicitLocOpBuilder &b) -> Value {
      Value v = vector::LoadOp::create(
          b, VectorType::get({vectorWidth}, element), memref, indices,
          /*nontemporal=*/false,
          llvm::MaybeAlign(vectorWidth * element.getIntOrFloatBitWidth() / 8));
      if (!element.isF32())
        v = arith::ExtFOp::create(b, f32v, v);
      return v;
    };
    if (!guarded)
      return loadIt(b);
    return e.ifElse(b, valid, f32v, loadIt, [&](ImplicitLocOpBuilder &b) {
      return arith::ConstantOp::create(
                 b, f32v, DenseElementsAttr::get(f32v, b.getF32FloatAttr(0.0)))
          .getResult();
    });
  }

  /// y[indices] = value, as CanonicalMath.h stores it in invariant kernels.
  void storeY(ImplicitLocOpBuilder &b, Value value, ValueRange indices) {
    if (!invariant)
      return e.storeRounded(b, value, e.y, indices);
    Type element = cast<MemRefType>(e.y.getType()).getElementType();
    memref::StoreOp::create(b, canonical::storedValue(b, value, element), e.y,
                            indices);
  }

  /// State values rounded by the codec (8-bit codes, stochastic rounding)
  /// into the pool at `site`.
  void storeCodes(ImplicitLocOpBuilder &b, Value value, Value inverse,
                  const PoolWriteSite &site, bool inRange = false) {
    Value stored = inRange ? codec.encodeInRange(b, value, inverse, site)
                           : codec.encode(b, value, inverse, site);
    // Canonical NaNs in the invariant kernel, chosen after the rounding as
    // canonical::storedValue does (8-bit codes hold no NaN).
    if (invariant && !codec.scaled()) {
      Value isNaN =
          arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, value, value);
      auto type = cast<VectorType>(stored.getType());
      Value quiet = arith::ConstantOp::create(
          b,
          DenseElementsAttr::get(
              type, APFloat::getQNaN(
                        cast<FloatType>(codec.element).getFloatSemantics())));
      stored = select(b, isNaN, quiet, stored);
    }
    int64_t bytes = codec.element.getIntOrFloatBitWidth() / 8;
    vector::StoreOp::create(
        b, stored, e.pool, ValueRange{site.slot, site.head, site.p, site.n},
        /*nontemporal=*/false, llvm::MaybeAlign(vectorWidth * bytes));
  }

  void storeColumns(ImplicitLocOpBuilder &b, Value value, Value memref,
                    ValueRange indices) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (invariant)
      value = canonical::storedValue(b, value, element);
    else if (!element.isF32())
      value = arith::TruncFOp::create(
          b, VectorType::get({vectorWidth}, element), value);
    vector::StoreOp::create(
        b, value, memref, indices, /*nontemporal=*/false,
        llvm::MaybeAlign(vectorWidth * element.getIntOrFloatBitWidth() / 8));
  }

  /// Blocks per SM a tree's kernels ask for (ssd.kernel_occupancy): a cap
  /// of 128 registers at 128 threads, the register path's budget. Left to
  /// itself ptxas gave the tree kernels 64 to 96 registers and spilled 12
  /// to 24 bytes in three of the four at Mamba2-2.7B shapes (bf16, sm_80
  /// and sm_90a, ptxas 13.0), whatever its register limit; with the request
  /// it takes 83 to 100, none spilled. The kernels of an 8-bit pool ask
  /// too: left to itself ptxas gave the i8 pool's scan kernel 72 registers
  /// and spilled 4 bytes (Mamba2-2.7B shapes with checkpoints, sm_80).
  /// Long 8-bit rows (more than 32 state values a lane: dstate above 512
  /// at the default tiling, rows per warp lowered to keep whole rows) ask
  /// for 2, a cap of 255: at 128 the stochastic i8 kernels spilled 36 to
  /// 80 bytes at dstate 1024 (sm_80 and sm_90a).
  static constexpr int64_t kTreeBlocksPerSM = 4;
  static constexpr int64_t kLongRowBlocksPerSM = 2;
  void requestTreeOccupancy(ImplicitLocOpBuilder &b) {
    if (!parents && !codec.scaled())
      return;
    bool longRows =
        codec.scaled() && rowsPerWarp * columnGroups * vectorWidth > 32;
    KernelOccupancyOp::create(b, longRows ? kLongRowBlocksPerSM
                                          : kTreeBlocksPerSM);
  }

  /// Most state values (f32) a lane keeps in registers across the token
  /// loop of the register path: at 64 (4 rows x 512 columns / 32 lanes)
  /// ptxas gives the scan kernel 96 to 128 registers without spills (sm_80,
  /// sm_90a); at 128 it takes all 255.
  static constexpr int64_t kRegisterPathStateValues = 64;
  /// The same for one piece: at 64 the piece loop's own values (piece
  /// bounds, y's running sum) made ptxas, keeping 128 registers, spill 4
  /// bytes in the contested writers' kernel on sm_90a; at 32 it uses 72 to
  /// 80, none spilled for bf16 models on sm_80 and sm_90a. (ptxas picks
  /// its own register count: at 32 the f32 contested writers' kernel
  /// spills 8 bytes on sm_80, at 16 the bf16 one 4 on sm_90a; the register
  /// path's f32 one spills 4 on sm_80 at dstate 256.)
  static constexpr int64_t kPieceStateValues = 32;

  /// Column groups (32 V columns each) of one piece of the state.
  int64_t pieceColumnGroups() const {
    return pieceColumnGroups(rowsPerWarp, vectorWidth);
  }
  static int64_t pieceColumnGroups(int64_t rows, int64_t width) {
    return std::max<int64_t>(1, kPieceStateValues / (rows * width));
  }
  /// Whether dstate is scanned in pieces, each with its own token loop, the
  /// sums of C S carried in `rowSums`: past the register path's budget,
  /// when there are several pieces.
  bool scansInPieces() const {
    return scansInPieces(rowsPerWarp, vectorWidth, columnGroups);
  }

public:
  /// Rows per warp for an 8-bit pool, whose row scale needs all N columns
  /// at once, which a piece never holds: fewer rows, as the invariant
  /// kernel takes, where that keeps whole rows in registers (down to one
  /// row a warp at dstate 2048); `rows` where no piece is needed anyway.
  static int64_t rowsForWholeRows(int64_t rows, int64_t width, int64_t groups) {
    if (!scansInPieces(rows, width, groups))
      return rows;
    return std::max<int64_t>(1, kRegisterPathStateValues / (groups * width));
  }
  static bool scansInPieces(int64_t rows, int64_t width, int64_t groups) {
    return rows * groups * width > kRegisterPathStateValues &&
           groups > pieceColumnGroups(rows, width);
  }

private:
  bool rowsNeedGuard() const { return x.headDim % (rowsPerWarp * warps) != 0; }

  /// Where one warp's part of the scan lives: its sequence and head, rows
  /// p = firstRow + [0, R) and, for the piece being scanned, the lane's
  /// columns n = columns[j] (j < groups), each with whether it lies inside
  /// head_dim / dstate (the constant `always` where no guard is needed).
  struct WarpScan {
    SequenceInfo s;
    Value head, group, a, lane, always, firstRow, dSkip;
    // Tokens the sequence held before the call (o = checkpoint_offsets[b],
    // 0 without it), for stochastic rounding's counter; null otherwise.
    Value tokensBefore;
    SmallVector<Value> rows, rowValid, columns, columnValid;
    bool rowsGuarded = false, columnsGuarded = false;
  };

  WarpScan beginWarpScan(ImplicitLocOpBuilder &b, Value seq, Value head,
                         Value tile, Value lane, Value warp) {
    const int64_t R = rowsPerWarp;
    WarpScan w;
    w.s = e.sequence(b, seq);
    w.head = head;
    w.lane = lane;
    w.group = e.groupOf(b, head);
    w.a = e.loadF32(b, e.A, {head});
    w.always = boolean(b, true);
    w.firstRow = add(b, mul(b, tile, R * warps), mul(b, warp, R));
    w.rowsGuarded = rowsNeedGuard();
    if (codec.stochastic) {
      Value offsets = op.getCheckpointOffsets();
      w.tokensBefore = offsets
                           ? toIndex(b, memref::LoadOp::create(b, offsets, seq))
                           : idx(b, 0);
    }
    for (int64_t r = 0; r < R; ++r) {
      w.rows.push_back(add(b, w.firstRow, r));
      w.rowValid.push_back(w.rowsGuarded ? ult(b, w.rows.back(), x.headDim)
                                         : w.always);
    }
    return w;
  }

  /// The lane's `groups` column groups from column `first` (null: 0).
  void placeColumns(ImplicitLocOpBuilder &b, WarpScan &w, Value first,
                    int64_t groups, bool guarded) {
    const int64_t V = vectorWidth;
    w.columnsGuarded = guarded;
    w.columns.clear();
    w.columnValid.clear();
    for (int64_t j = 0; j < groups; ++j) {
      Value laneFirst = mul(b, w.lane, V);
      if (first)
        laneFirst = add(b, first, laneFirst);
      w.columns.push_back(add(b, laneFirst, 32 * V * j));
      w.columnValid.push_back(guarded ? ult(b, w.columns.back(), x.dstate)
                                      : w.always);
    }
  }

  /// The state the sequence starts from at the warp's rows and the lane's
  /// columns (R x groups vectors, row-major): its pool slot or zeros.
  SmallVector<Value> loadInitialState(ImplicitLocOpBuilder &b,
                                      const WarpScan &w) {
    SmallVector<Value> initial;
    for (auto [row, rowValid] : llvm::zip_equal(w.rows, w.rowValid)) {
      if (!codec.scaled()) {
        for (auto [column, columnValid] :
             llvm::zip_equal(w.columns, w.columnValid))
          initial.push_back(loadColumns(
              b, both(b, w.s.readsInitial, both(b, rowValid, columnValid)),
              e.pool, {w.s.slot, w.head, row, column}, /*guarded=*/true));
        continue;
      }
      // An 8-bit row: its scale once, then every code times it.
      Value rowReads = both(b, w.s.readsInitial, rowValid);
      Value rowIndex = row;
      Value scale = e.ifElse(
          b, rowReads, e.f32,
          [&](ImplicitLocOpBuilder &b) {
            return codec.loadScale(b, w.s.slot, w.head, rowIndex);
          },
          [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); });
      for (auto [column, columnValid] :
           llvm::zip_equal(w.columns, w.columnValid))
        initial.push_back(loadCodes(b, both(b, rowReads, columnValid),
                                    {w.s.slot, w.head, rowIndex, column},
                                    scale));
    }
    return initial;
  }

  /// V codes of an 8-bit pool at `indices` decoded with the row's `scale`,
  /// as vector<Vxf32>, or zeros where !valid (no access).
  Value loadCodes(ImplicitLocOpBuilder &b, Value valid, ValueRange indices,
                  Value scale) {
    auto f32v = VectorType::get({vectorWidth}, b.getF32Type());
    return e.ifElse(
        b, valid, f32v,
        [&](ImplicitLocOpBuilder &b) {
          Value codes = vector::LoadOp::create(
              b, VectorType::get({vectorWidth}, codec.element), e.pool, indices,
              /*nontemporal=*/false, llvm::MaybeAlign(vectorWidth));
          return codec.decode(b, codes, scale);
        },
        [&](ImplicitLocOpBuilder &b) {
          return arith::ConstantOp::create(
                     b, f32v,
                     DenseElementsAttr::get(f32v, b.getF32FloatAttr(0.0)))
              .getResult();
        });
  }

  /// Stores state values (as loadInitialState orders them) into pool[slot]:
  /// the final state and the checkpoints. `tokensHeld` (index): how many
  /// tokens the state holds, the stochastic rounding's counter (null when
  /// rounding to nearest).
  void storeState(ImplicitLocOpBuilder &b, const WarpScan &w, ValueRange values,
                  Value slot, Value tokensHeld) {
    const int64_t J = w.columns.size();
    // Each row of an 8-bit pool needs its maximum over all N columns before
    // any code: a row lies in one warp (the register path holds all of
    // it), so each lane's maximum over its columns, then a butterfly.
    SmallVector<Value> inverses, inRanges;
    if (codec.scaled()) {
      assert((!scansInPieces() || x.headDim == 0) && "refused by readGPUPlan");
      SmallVector<Value> rowScales;
      for (int64_t r = 0; r < rowsPerWarp; ++r) {
        Value m = f32(b, 0.0);
        for (int64_t j = 0; j < J; ++j)
          for (int64_t q = 0; q < vectorWidth; ++q) {
            Value v = vector::ExtractOp::create(b, values[r * J + j],
                                                ArrayRef<int64_t>{q});
            Value next = codec.absMax(b, m, v);
            m = w.columnValid[j] == w.always
                    ? next
                    : select(b, w.columnValid[j], next, m);
          }
        for (int32_t offset : {16, 8, 4, 2, 1})
          m = codec.combineAbsMax(
              b, m,
              gpu::ShuffleOp::create(b, m, offset, 32, gpu::ShuffleMode::XOR)
                  .getShuffleResult());
        PoolCodec::RowScale row = codec.rowScale(b, m);
        rowScales.push_back(row.scale);
        inverses.push_back(row.inverse);
        inRanges.push_back(row.inRange);
      }
      // Lane r stores row r's scale, as y is stored.
      Value mine = lanesRowValue(b, w, rowScales);
      LaneRow stored = lanesRow(b, w);
      e.ifThen(b, stored.stores, [&](ImplicitLocOpBuilder &b) {
        codec.storeScale(b, mine, slot, w.head, stored.row);
      });
    }
    // An 8-bit row branches once on its scale (the same in all its lanes):
    // in range, codes without encode's guard of every element; otherwise
    // zeros, the codes encode gives such a row.
    enum class Codes { Encode, InRange, Zero };
    auto storeRow = [&](ImplicitLocOpBuilder &b, int64_t r, Codes codes) {
      for (int64_t j = 0; j < J; ++j) {
        Value value = values[r * J + j];
        auto store = [&](ImplicitLocOpBuilder &b) {
          if (!codec.scaled() && !codec.stochastic)
            return storeColumns(b, value, e.pool,
                                {slot, w.head, w.rows[r], w.columns[j]});
          if (codes == Codes::Zero) {
            int64_t bytes = codec.element.getIntOrFloatBitWidth() / 8;
            vector::StoreOp::create(
                b, codec.zeroCodes(b, value.getType()), e.pool,
                ValueRange{slot, w.head, w.rows[r], w.columns[j]},
                /*nontemporal=*/false, llvm::MaybeAlign(vectorWidth * bytes));
            return;
          }
          PoolWriteSite site{slot, w.head, w.rows[r], w.columns[j], tokensHeld};
          storeCodes(b, value, codec.scaled() ? inverses[r] : Value(), site,
                     codes == Codes::InRange);
        };
        if (w.rowValid[r] == w.always && w.columnValid[j] == w.always)
          store(b);
        else
          e.ifThen(b, both(b, w.rowValid[r], w.columnValid[j]), store);
      }
    };
    for (int64_t r = 0; r < rowsPerWarp; ++r) {
      if (!codec.scaled()) {
        storeRow(b, r, Codes::Encode);
        continue;
      }
      auto codesOf = [&](Codes codes) {
        return [&, codes](ImplicitLocOpBuilder &b) -> SmallVector<Value> {
          storeRow(b, r, codes);
          return {};
        };
      };
      e.ifElseValues(b, inRanges[r], TypeRange{}, codesOf(Codes::InRange),
                     codesOf(Codes::Zero));
    }
  }

  /// How many tokens a final state holds, o + len (null unless rounding is
  /// stochastic).
  Value finalTokens(ImplicitLocOpBuilder &b, const WarpScan &w) {
    if (!w.tokensBefore)
      return Value();
    return add(b, w.tokensBefore, sub(b, w.s.end, w.s.begin));
  }

  /// x[t, h, p_r] widened to f32 (0 for a row past head_dim).
  Value loadRowX(ImplicitLocOpBuilder &b, const WarpScan &w, Value t,
                 int64_t r) {
    if (!w.rowsGuarded)
      return e.loadF32(b, e.x, {t, w.head, w.rows[r]});
    return e.ifElse(
        b, w.rowValid[r], e.f32,
        [&](ImplicitLocOpBuilder &b) {
          return e.loadF32(b, e.x, {t, w.head, w.rows[r]});
        },
        [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); });
  }

  /// One token `t` of the recurrence at the warp's rows and the lane's
  /// columns: the updated state, and per row x[t, h, p_r] and the warp's sum
  /// of C S over the columns (plus D x when `withSkip`). Without
  /// `withOutput`, the update alone (a tree's replay of an ancestor): the
  /// same operations on the state, no C, no sum, no warp shuffles.
  struct TokenStep {
    SmallVector<Value> next, xs, totals;
  };
  TokenStep stepToken(ImplicitLocOpBuilder &b, const WarpScan &w, Value t,
                      ValueRange state, bool withSkip, bool withOutput = true) {
    if (invariant) {
      assert(withOutput && "the verifier keeps trees off invariant ops");
      return stepTokenCanonically(b, w, t, state);
    }
    const int64_t R = rowsPerWarp, J = w.columns.size(), V = vectorWidth;
    auto vecType = VectorType::get({V}, b.getF32Type());
    auto splat = [&](ImplicitLocOpBuilder &b, Value v) -> Value {
      return vector::BroadcastOp::create(b, vecType, v);
    };
    Value d = e.processedDt(b, t, w.head);
    Value decay = splat(b, e.exp(b, fmul(b, d, w.a)));
    SmallVector<Value> bRow, cRow;
    for (int64_t j = 0; j < J; ++j) {
      bRow.push_back(loadColumns(b, w.columnValid[j], e.B,
                                 {t, w.group, w.columns[j]}, w.columnsGuarded));
      if (withOutput)
        cRow.push_back(loadColumns(b, w.columnValid[j], e.C,
                                   {t, w.group, w.columns[j]},
                                   w.columnsGuarded));
    }
    TokenStep step;
    for (int64_t r = 0; r < R; ++r) {
      Value xv = loadRowX(b, w, t, r);
      Value dx = splat(b, fmul(b, d, xv));
      Value lanePartial;
      for (int64_t j = 0; j < J; ++j) {
        // S = decay S + dx B, then partial += S C, one element at a
        // time: fma each.
        Value updated =
            fadd(b, fmul(b, decay, state[r * J + j]), fmul(b, dx, bRow[j]));
        step.next.push_back(updated);
        if (!withOutput)
          continue;
        for (int64_t q = 0; q < V; ++q) {
          auto at = [&](Value v) {
            return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{q})
                .getResult();
          };
          Value product = fmul(b, at(updated), at(cRow[j]));
          lanePartial = lanePartial ? fadd(b, lanePartial, product) : product;
        }
      }
      if (!withOutput)
        continue;
      // N = 0: no columns, so C S is an empty sum.
      Value total = lanePartial ? warpSum(b, lanePartial) : f32(b, 0.0);
      if (withSkip && w.dSkip)
        total = fadd(b, total, fmul(b, w.dSkip, xv));
      step.xs.push_back(xv);
      step.totals.push_back(total);
    }
    return step;
  }

  /// stepToken of the invariant kernel: CanonicalMath.h's sequence, with
  /// nothing LLVM may contract. Lane l's partial sums its columns l + 32 j
  /// in increasing j from +0, columns past dstate leave it unchanged, and
  /// the warp sum adds the partials in canonical::tree32's order. totals
  /// are y's values (D x added, NaNs canonical), ready to round and store.
  TokenStep stepTokenCanonically(ImplicitLocOpBuilder &b, const WarpScan &w,
                                 Value t, ValueRange state) {
    assert(vectorWidth == 1 && "lane l owns columns l + 32 j");
    const int64_t R = rowsPerWarp, J = w.columns.size();
    auto vecType = VectorType::get({1}, b.getF32Type());
    auto scalar = [&](Value v) {
      return vector::ExtractOp::create(b, v, ArrayRef<int64_t>{0}).getResult();
    };
    Value dt = e.loadF32(b, e.dt, {t, w.head});
    Value bias = e.dtBias ? e.loadF32(b, e.dtBias, {w.head}) : Value();
    Value d = canonical::processedDt(b, dt, bias);
    Value decay = canonical::decay(b, d, w.a);
    SmallVector<Value> bRow, cRow;
    for (int64_t j = 0; j < J; ++j) {
      bRow.push_back(
          scalar(loadColumns(b, w.columnValid[j], e.B,
                             {t, w.group, w.columns[j]}, w.columnsGuarded)));
      cRow.push_back(
          scalar(loadColumns(b, w.columnValid[j], e.C,
                             {t, w.group, w.columns[j]}, w.columnsGuarded)));
    }
    TokenStep step;
    for (int64_t r = 0; r < R; ++r) {
      Value xv = loadRowX(b, w, t, r);
      Value weight = canonical::stepWeight(b, d, xv);
      Value partial = f32(b, 0.0);
      for (int64_t j = 0; j < J; ++j) {
        Value updated = canonical::update(b, decay, scalar(state[r * J + j]),
                                          weight, bRow[j]);
        step.next.push_back(vector::BroadcastOp::create(b, vecType, updated));
        Value summed = canonical::accumulate(b, updated, cRow[j], partial);
        partial = w.columnValid[j] == w.always
                      ? summed
                      : select(b, w.columnValid[j], summed, partial);
      }
      Value y = canonical::finishY(b, warpSum(b, partial), w.dSkip, xv);
      step.xs.push_back(xv);
      step.totals.push_back(y);
    }
    return step;
  }

  /// values[r] in lane r (lane r stores row r: one store instruction per
  /// warp), values[R - 1] in the lanes after.
  Value lanesRowValue(ImplicitLocOpBuilder &b, const WarpScan &w,
                      ArrayRef<Value> values) {
    Value mine = values[0];
    for (int64_t r = 1; r < rowsPerWarp; ++r)
      mine = select(b, eq(b, w.lane, idx(b, r)), values[r], mine);
    return mine;
  }

  /// The row lane r stores, and whether it stores one (lane < R, row inside
  /// head_dim).
  struct LaneRow {
    Value row, stores;
  };
  LaneRow lanesRow(ImplicitLocOpBuilder &b, const WarpScan &w) {
    const int64_t R = rowsPerWarp;
    Value row = add(b, w.firstRow, minu(b, w.lane, idx(b, R - 1)));
    Value stores = ult(b, w.lane, R);
    if (w.rowsGuarded)
      stores = both(b, stores, ult(b, row, x.headDim));
    return {row, stores};
  }

  /// The state token `t`'s step starts from, given `state`, the state of
  /// the token before it (or the initial state at the sequence's first
  /// token). Without token_parents, or when the token continues that state
  /// (its parent is the token before it, or -1 at the first token): `state`
  /// itself, so a chain runs today's code. Otherwise the parent's state,
  /// recomputed: the initial state re-read from the pool, then the updates
  /// of the parent's ancestors root..parent in forward order, update only.
  /// The parent is the same for every thread of the block (one sequence a
  /// block), so the branch never diverges; each thread replays its own
  /// elements, reading x, B and dt from global memory as the normal step
  /// does, so the replay needs no barrier.
  SmallVector<Value> parentState(ImplicitLocOpBuilder &b, const WarpScan &w,
                                 Value t, ValueRange state) {
    if (!parents)
      return SmallVector<Value>(state);
    Value begin = w.s.begin;
    Value local = sub(b, t, begin);
    Value parent = memref::LoadOp::create(b, parents, t);
    Value continues =
        eq(b, parent, arith::SubIOp::create(b, toI32(b, local), i32(b, 1)));
    auto branch = scf::IfOp::create(
        b, continues,
        [&](OpBuilder &nested, Location loc) {
          scf::YieldOp::create(nested, loc, state);
        },
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder b(loc, nested);
          scf::YieldOp::create(b, replayToParent(b, w, parent, local));
        });
    return SmallVector<Value>(branch.getResults());
  }

  /// The state of local token `parent` (i32; -1: the initial state) of the
  /// warp's sequence, replayed from the initial state. Its depth d comes
  /// from walking the parents up; the i-th ancestor from the root is d - 1 -
  /// i steps up from `parent` (O(d^2) loads of token_parents, uniform over
  /// the block, no scratch memory). The walk stops at a parent that is not
  /// below the token it was read for, so that input breaking the contract
  /// (0 <= p < j) loads nothing outside the sequence and ends.
  SmallVector<Value> replayToParent(ImplicitLocOpBuilder &b, const WarpScan &w,
                                    Value parent, Value local) {
    Value begin = w.s.begin;
    auto parentOf = [&](ImplicitLocOpBuilder &b, Value node) -> Value {
      return memref::LoadOp::create(b, parents,
                                    add(b, begin, toIndex(b, node)));
    };
    // (node, the token it was read for, depth so far); -1 fails the
    // unsigned test like any node past its child.
    Type i32Type = b.getI32Type(), indexType = b.getIndexType();
    auto walk = scf::WhileOp::create(
        b, TypeRange{i32Type, i32Type, indexType},
        ValueRange{parent, toI32(b, local), idx(b, 0)},
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          scf::ConditionOp::create(b, ult(b, args[0], args[1]), args);
        },
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          ImplicitLocOpBuilder b(loc, nested);
          scf::YieldOp::create(
              b, ValueRange{parentOf(b, args[0]), args[0], add(b, args[2], 1)});
        });
    Value depth = walk.getResult(2);
    auto replay = scf::ForOp::create(
        b, idx(b, 0), depth, idx(b, 1), loadInitialState(b, w),
        [&](OpBuilder &nested, Location loc, Value i, ValueRange state) {
          ImplicitLocOpBuilder b(loc, nested);
          Value steps = sub(b, sub(b, depth, i), idx(b, 1));
          Value ancestor =
              e.reduce(b, idx(b, 0), steps, parent,
                       [&](ImplicitLocOpBuilder &b, Value, Value node) {
                         return parentOf(b, node);
                       });
          TokenStep step =
              stepToken(b, w, add(b, begin, toIndex(b, ancestor)), state,
                        /*withSkip=*/false, /*withOutput=*/false);
          scf::YieldOp::create(b, step.next);
        });
    return SmallVector<Value>(replay.getResults());
  }

  /// A checkpoint boundary after token t: the state it leaves, as the final
  /// state is stored (the same test in every thread).
  void storeCheckpoint(ImplicitLocOpBuilder &b, const WarpScan &w,
                       const std::optional<Checkpoints::Sequence> &sequence,
                       Value t, ValueRange state) {
    if (!sequence)
      return;
    Value writes, slot;
    std::tie(writes, slot) =
        checkpoints.slotAfter(b, e, *sequence, sub(b, t, w.s.begin));
    e.ifThen(b, writes, [&](ImplicitLocOpBuilder &b) {
      // After local token j the state holds o + j + 1 tokens.
      Value held = w.tokensBefore
                       ? add(b, add(b, w.tokensBefore, sub(b, t, w.s.begin)), 1)
                       : Value();
      storeState(b, w, state, slot, held);
    });
  }

  /// The recurrence of sequence `seq`, head `head`, rows of P-tile `tile`,
  /// for warp `warp`, lane `lane`.
  void emitScan(ImplicitLocOpBuilder &b, Value seq, Value head, Value tile,
                Value lane, Value warp) {
    if (scansInPieces())
      emitScanInPieces(b, seq, head, tile, lane, warp);
    else
      emitScanInRegisters(b, seq, head, tile, lane, warp);
  }

  /// All of dstate at once: the state stays in registers from the initial
  /// load to the final store.
  void emitScanInRegisters(ImplicitLocOpBuilder &b, Value seq, Value head,
                           Value tile, Value lane, Value warp) {
    WarpScan w = beginWarpScan(b, seq, head, tile, lane, warp);
    placeColumns(b, w, Value(), columnGroups,
                 x.dstate % (32 * vectorWidth) != 0);
    SmallVector<Value> initial = loadInitialState(b, w);
    std::optional<Checkpoints::Sequence> checkpointed;
    if (checkpoints)
      checkpointed = checkpoints.sequence(b, e, seq);
    w.dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();

    auto tokenLoop = scf::ForOp::create(
        b, w.s.begin, w.s.end, idx(b, 1), initial,
        [&](OpBuilder &nested, Location loc, Value t, ValueRange state) {
          ImplicitLocOpBuilder b(loc, nested);
          TokenStep step = stepToken(b, w, t, parentState(b, w, t, state),
                                     /*withSkip=*/true);
          Value mine = lanesRowValue(b, w, step.totals);
          LaneRow stored = lanesRow(b, w);
          e.ifThen(b, stored.stores, [&](ImplicitLocOpBuilder &b) {
            storeY(b, mine, {t, head, stored.row});
          });
          storeCheckpoint(b, w, checkpointed, t, step.next);
          scf::YieldOp::create(b, step.next);
        });

    e.ifThen(b, w.s.writesState, [&](ImplicitLocOpBuilder &b) {
      storeState(b, w, tokenLoop.getResults(), w.s.slot, finalTokens(b, w));
    });
  }

  /// dstate in pieces of pieceColumnGroups() column groups: per piece, the
  /// token loop with that piece of the state in registers, from its initial
  /// load to its final store; the sums of C S over the pieces wait in
  /// rowSums, and the last piece adds D x and stores y.
  void emitScanInPieces(ImplicitLocOpBuilder &b, Value seq, Value head,
                        Value tile, Value lane, Value warp) {
    const int64_t groups = pieceColumnGroups();
    const int64_t width = 32 * vectorWidth * groups;
    const int64_t pieces = llvm::divideCeil(x.dstate, width);
    WarpScan w = beginWarpScan(b, seq, head, tile, lane, warp);
    std::optional<Checkpoints::Sequence> checkpointed;
    if (checkpoints)
      checkpointed = checkpoints.sequence(b, e, seq);
    w.dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();

    e.loop(
        b, idx(b, 0), idx(b, pieces),
        [&](ImplicitLocOpBuilder &b, Value piece) {
          WarpScan pw = w;
          placeColumns(b, pw, mul(b, piece, width), groups,
                       x.dstate % width != 0);
          SmallVector<Value> initial = loadInitialState(b, pw);
          Value firstPiece = eq(b, piece, idx(b, 0));
          Value lastPiece = eq(b, piece, idx(b, pieces - 1));
          auto tokenLoop = scf::ForOp::create(
              b, pw.s.begin, pw.s.end, idx(b, 1), initial,
              [&](OpBuilder &nested, Location loc, Value t, ValueRange state) {
                ImplicitLocOpBuilder b(loc, nested);
                TokenStep step = stepToken(
                    b, pw, t, parentState(b, pw, t, state), /*withSkip=*/false);
                Value sum = lanesRowValue(b, pw, step.totals);
                Value xv = lanesRowValue(b, pw, step.xs);
                LaneRow stored = lanesRow(b, pw);
                e.ifThen(b, stored.stores, [&](ImplicitLocOpBuilder &b) {
                  addRowSum(b, pw, {t, head, stored.row}, sum, xv, firstPiece,
                            lastPiece);
                });
                storeCheckpoint(b, pw, checkpointed, t, step.next);
                scf::YieldOp::create(b, step.next);
              });
          e.ifThen(b, pw.s.writesState, [&](ImplicitLocOpBuilder &b) {
            storeState(b, pw, tokenLoop.getResults(), pw.s.slot,
                       finalTokens(b, pw));
          });
        });
  }

  /// Adds one piece's sum of C S at `at` = (t, h, p) to those of the pieces
  /// before it; the last piece adds D x and stores y, the others keep the
  /// running sum in rowSums (written and read by the same lane).
  void addRowSum(ImplicitLocOpBuilder &b, const WarpScan &w, ArrayRef<Value> at,
                 Value sum, Value xv, Value firstPiece, Value lastPiece) {
    Value total = e.ifElse(
        b, firstPiece, e.f32, [&](ImplicitLocOpBuilder &) { return sum; },
        [&](ImplicitLocOpBuilder &b) {
          return fadd(b, memref::LoadOp::create(b, rowSums, at), sum);
        });
    scf::IfOp::create(
        b, lastPiece,
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder b(loc, nested);
          Value y = w.dSkip ? fadd(b, total, fmul(b, w.dSkip, xv)) : total;
          e.storeRounded(b, y, e.y, at);
          scf::YieldOp::create(b);
        },
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder b(loc, nested);
          memref::StoreOp::create(b, total, rowSums, at);
          scf::YieldOp::create(b);
        });
  }
};

} // namespace

std::unique_ptr<SerialPart> mlir::ssd::detail::makeSerialPart(
    ImplicitLocOpBuilder &b, ChunkScanVarlenOp op, const StaticExtents &extents,
    const SerialTiling &tiling, int64_t minChunkedSequence) {
  return std::make_unique<SerialScanGPUBuilder>(b, op, extents, tiling,
                                                minChunkedSequence);
}

bool mlir::ssd::detail::serialScansInPieces(const StaticExtents &extents,
                                            const SerialTiling &tiling,
                                            bool invariant, bool wholeRows) {
  // The invariant kernel lowers its rows per warp instead.
  if (invariant)
    return false;
  int64_t width = serialVectorWidth(extents.dstate, invariant);
  int64_t groups = llvm::divideCeil(extents.dstate, 32 * width);
  int64_t rows = tiling.rowsPerWarp;
  if (wholeRows)
    rows = SerialScanGPUBuilder::rowsForWholeRows(rows, width, groups);
  return SerialScanGPUBuilder::scansInPieces(rows, width, groups);
}

void mlir::ssd::detail::buildSerialScanGPU(ImplicitLocOpBuilder &b,
                                           ChunkScanVarlenOp op,
                                           const StaticExtents &extents,
                                           const SerialTiling &tiling) {
  SerialScanGPUBuilder serial(b, op, extents, tiling, 0);
  WorkspaceBuilder w;
  serial.declareWorkspace(b, w);
  serial.bindWorkspace(w.allocate(b, op));
  serial.emitFirstLaunch(b);
  serial.emitSecondLaunch(b);
}
