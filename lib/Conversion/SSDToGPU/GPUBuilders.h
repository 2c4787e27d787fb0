//===- GPUBuilders.h - the scan algorithms as GPU kernels -------*- C++ -*-===//

#ifndef SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H
#define SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H

#include "ScanEmitter/Checkpoints.h"
#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "ssd/Conversion/Passes.h"
#include "ssd/Target/GPUEmulator/Target.h"
#include "ssd/Transforms/GPUChip.h"

#include <array>

namespace mlir {
namespace ssd {
namespace detail {

//===----------------------------------------------------------------------===//
// Small IR helpers (index and f32 arithmetic), so that kernels read as math.
//
// Why not upstream's ArithBuilder (mlir/Dialect/Arith/Utils/Utils.h): the
// kernels' index math is unsigned (divu, remu, minu, maxu, ult, ule), which
// ArithBuilder does not offer (its comparisons are signed); the overloads
// taking a constant skip the op where it is the identity (add 0, mul 1,
// div 1), which keeps the emitted kernels as small as the hand-written math;
// and ArithBuilder picks the float op only for scalar floats, so the exact
// f32 helpers below, which also run on vector<...xf32> fragments, would get
// integer ops (tried: the kernels then fail to verify). One-line wrappers
// over the arith ops' own builders are what remains.
//===----------------------------------------------------------------------===//

namespace ir {
inline Value idx(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
inline Value i32(ImplicitLocOpBuilder &b, int32_t v) {
  return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
}
inline Value i64(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
}
inline Value f32(ImplicitLocOpBuilder &b, double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}
inline Value boolean(ImplicitLocOpBuilder &b, bool v) {
  return arith::ConstantOp::create(b, b.getBoolAttr(v));
}
inline Value add(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::AddIOp::create(b, l, r);
}
inline Value add(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return r == 0 ? l : add(b, l, idx(b, r));
}
inline Value sub(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::SubIOp::create(b, l, r);
}
inline Value mul(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::MulIOp::create(b, l, r);
}
inline Value mul(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return r == 1 ? l : mul(b, l, idx(b, r));
}
inline Value divu(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return r == 1 ? l : arith::DivUIOp::create(b, l, idx(b, r)).getResult();
}
inline Value divu(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::DivUIOp::create(b, l, r);
}
inline Value remu(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return arith::RemUIOp::create(b, l, idx(b, r));
}
inline Value ceilDiv(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return arith::CeilDivUIOp::create(b, l, idx(b, r));
}
inline Value minu(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::MinUIOp::create(b, l, r);
}
inline Value maxu(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::MaxUIOp::create(b, l, r);
}
inline Value cmp(ImplicitLocOpBuilder &b, arith::CmpIPredicate p, Value l,
                 Value r) {
  return arith::CmpIOp::create(b, p, l, r);
}
inline Value ult(ImplicitLocOpBuilder &b, Value l, Value r) {
  return cmp(b, arith::CmpIPredicate::ult, l, r);
}
inline Value ult(ImplicitLocOpBuilder &b, Value l, int64_t r) {
  return ult(b, l, idx(b, r));
}
inline Value ule(ImplicitLocOpBuilder &b, Value l, Value r) {
  return cmp(b, arith::CmpIPredicate::ule, l, r);
}
inline Value eq(ImplicitLocOpBuilder &b, Value l, Value r) {
  return cmp(b, arith::CmpIPredicate::eq, l, r);
}
inline Value both(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::AndIOp::create(b, l, r);
}
inline Value either(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::OrIOp::create(b, l, r);
}
inline Value select(ImplicitLocOpBuilder &b, Value c, Value t, Value f) {
  return arith::SelectOp::create(b, c, t, f);
}
inline Value toIndex(ImplicitLocOpBuilder &b, Value v) {
  return arith::IndexCastUIOp::create(b, b.getIndexType(), v);
}
inline Value toI32(ImplicitLocOpBuilder &b, Value v) {
  return arith::IndexCastUIOp::create(b, b.getI32Type(), v);
}
/// f32 arithmetic that LLVM may contract into fma (a * b + c rounds once):
/// the scan's updates and dot products are written as such sums.
inline arith::FastMathFlagsAttr contract(ImplicitLocOpBuilder &b) {
  return arith::FastMathFlagsAttr::get(b.getContext(),
                                       arith::FastMathFlags::contract);
}
inline Value fadd(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::AddFOp::create(b, l, r, contract(b));
}
inline Value fsub(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::SubFOp::create(b, l, r, contract(b));
}
inline Value fmul(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::MulFOp::create(b, l, r, contract(b));
}
/// Exact f32 arithmetic for the compensated sums: no contraction, which
/// would change what the error terms measure.
inline Value faddExact(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::AddFOp::create(b, l, r);
}
inline Value fsubExact(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::SubFOp::create(b, l, r);
}
inline Value fmulExact(ImplicitLocOpBuilder &b, Value l, Value r) {
  return arith::MulFOp::create(b, l, r);
}
} // namespace ir

/// The op's model extents, which the GPU kernels need at compile time.
struct StaticExtents {
  int64_t heads, headDim, groups, dstate;

  /// True when a state has no elements (head_dim or dstate 0): y is then
  /// D x (or zeros) and no state is read or written. The chunked kernels'
  /// tiles and warp layouts divide by both extents, so such ops run the
  /// serial kernels, whose column and row loops are then empty.
  bool emptyState() const { return headDim == 0 || dstate == 0; }
};

/// The static extents of `op`, or failure when one is dynamic.
FailureOr<StaticExtents> getStaticExtents(ChunkScanVarlenOp op);

//===----------------------------------------------------------------------===//
// Launches and shared memory
//===----------------------------------------------------------------------===//

/// What a kernel body sees: block and thread ids, and its shared memory as
/// one byte buffer (memref<Bxi8> or memref<?xi8> in the workgroup address
/// space; null when the kernel has none) that `sharedView` carves.
/// `threads` is how many threads run the block-level code being built
/// together (its barriers, scans and scratch): the block's, or a team's.
/// `team` (index; null for none) moves every view by team x teamStride
/// bytes: a team of the block's threads that runs the same code as the
/// others on its own copy of a layout, its thread ids `thread` counted from
/// 0. It enters the views' offsets, in elements, rather than their base
/// pointers, so that views at constant offsets keep constant addresses and
/// the team's part joins the index arithmetic each access has anyway (as a
/// base pointer it took a register per view).
struct KernelContext {
  gpu::KernelDim3 block, thread;
  Value shared;
  int64_t threads = 0;
  Value team = Value();
  int64_t teamStride = 0;
};

using KernelBodyFn =
    function_ref<void(ImplicitLocOpBuilder &, const KernelContext &)>;

/// Most static shared memory ptxas accepts in one kernel. Above it only
/// dynamic shared memory can be used, with the runtime's opt-in.
constexpr int64_t kMaxStaticSharedMemoryBytes = kStaticSharedMemoryLimit;
/// Alignment of every view of shared memory and of the workspace: 16 bytes
/// is what vector and cp.async accesses of 16 bytes need.
constexpr int64_t kViewAlignment = 16;
/// Where wgmma operand tiles start in the shared window: the swizzled
/// layouts XOR address bits 4-6 with bits 7-9 (128-byte swizzle; 64 and
/// 32 bytes use fewer), so a tile's pattern repeats from 1024-byte
/// boundaries only.
constexpr int64_t kWgmmaTileAlignment = 1024;

/// Byte offsets of the shared-memory buffers of one kernel role: each `add`
/// returns the next offset, aligned to kViewAlignment.
class SharedLayout {
public:
  int64_t add(int64_t bytes) {
    int64_t offset = llvm::alignTo(end, kViewAlignment);
    end = offset + bytes;
    return offset;
  }
  int64_t size() const { return llvm::alignTo(end, kViewAlignment); }

private:
  int64_t end = 0;
};

/// Shared memory per block of a kernel that `launchKernel` gives
/// `sharedBytes`: the bytes plus, when they come from dynamic shared memory,
/// the small static base that the NVVM lowering declares for it (the
/// driver holds static and dynamic shared memory together to the chip's
/// per-block maximum).
int64_t sharedMemoryPerBlock(int64_t sharedBytes);

/// gpu.launch over `grid` blocks of `block` threads with `sharedBytes` of
/// shared memory. Up to kMaxStaticSharedMemoryBytes it is a workgroup
/// attribution (static shared memory); above, dynamic shared memory that
/// the launch sizes. A zero grid extent launches one idle block (CUDA
/// rejects empty launches), so the host code stays a straight chain of
/// launches.
/// `kernelName`, when given, names the outlined kernel (the launch's
/// `function` attribute); otherwise outlining derives it from the host
/// function's name.
void launchKernel(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                  std::array<Value, 3> grid, std::array<int64_t, 3> block,
                  KernelBodyFn body, int64_t sharedBytes = 0,
                  StringRef kernelName = {});

/// A view of the kernel's shared memory at byte `offset` with the static
/// shape and element type of `shape` / `elementType`.
Value sharedView(ImplicitLocOpBuilder &b, const KernelContext &k,
                 int64_t offset, ArrayRef<int64_t> shape, Type elementType);

/// The same at a run-time byte offset (a multiple of kViewAlignment).
Value sharedView(ImplicitLocOpBuilder &b, const KernelContext &k, Value offset,
                 ArrayRef<int64_t> shape, Type elementType);

/// The shared-window address (i64) of byte 0 of the kernel's shared memory.
Value sharedWindowAddress(ImplicitLocOpBuilder &b, const KernelContext &k);

/// Sum of `v` over the 32 lanes of a warp, in every lane (xor butterfly over
/// lane offsets 16, 8, 4, 2, 1, plain adds: lane 0 adds as
/// canonical::tree32 does, and every lane gets the same bits).
Value warpSum(ImplicitLocOpBuilder &b, Value v);

/// Any lane of the warp has `predicate` set (vote.any), in every lane.
Value warpAny(ImplicitLocOpBuilder &b, Value predicate);

/// The state checkpoints of an op with checkpoint_slots (ssd.chunk_scan_varlen
/// in docs/overview.md): sequence b, holding o = checkpoint_offsets[b]
/// tokens before the call (0 without the operand), holds o + j + 1 after
/// its local token j; when that is a multiple of the interval I it has
/// crossed boundary k = (o + j + 1) / I - floor(o / I) - 1 of the call, and
/// its whole state after token j goes to pool[checkpoint_slots[b, k]] for
/// k < K, unless that entry is -1 or the sequence is padding. With
/// r = o mod I and u = r + j + 1 (what the boundary arithmetic needs of o),
/// token j ends a boundary when u mod I = 0, and k = u / I - 1. The
/// arithmetic is CheckpointOperands', which the loop lowerings share; the
/// kernels ask it per token. Checkpoint slots are never read and distinct
/// from every slot the call reads, so the kernels write them as soon as
/// they hold the state.
class Checkpoints : public CheckpointOperands {
public:
  /// Reads the op's checkpoint operands (host code at `b`); empty (false)
  /// for an op without checkpoint_slots.
  Checkpoints(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op)
      : CheckpointOperands(b, op) {}

  /// What the boundary tests of one sequence need: r = o mod I, and
  /// whether it writes checkpoints at all (not padding).
  struct Sequence {
    Value seq, phase, writes;
  };
  Sequence sequence(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                    Value seq) const;
  /// Whether local token `j` (index) of `s` ends a boundary whose state
  /// is written (i1), and the pool slot it goes to (index; 0 when not
  /// written: the slot entry is only loaded for k < K).
  std::pair<Value, Value> slotAfter(ImplicitLocOpBuilder &b,
                                    const ScanEmitter &e, const Sequence &s,
                                    Value j) const;
  /// How many of the local tokens [first, first + count) of `s` (indices)
  /// to walk so that the walk ends on the last boundary among them that
  /// is written (k < K; `s.writes`), or 0 when none is: a prefix length.
  Value walkLength(ImplicitLocOpBuilder &b, const Sequence &s, Value first,
                   Value count) const;

  /// Whether every boundary of `op` ends a chunk of `chunkSize` tokens
  /// (chunks start every chunkSize tokens of a sequence): no offsets (o =
  /// 0) and an interval that is a multiple of the chunk size. The fused
  /// chunked kernels can write such checkpoints where they publish a
  /// chunk's state; others need the three launches (LowerToGPU.cpp).
  static bool atChunkEndsOnly(ChunkScanVarlenOp op, int64_t chunkSize);
};

/// Whether `seq` writes a pool slot that another sequence of the batch
/// reads (has_initial_state): its write must wait until they have read.
/// The same answer in every thread of the block (`threads` threads, thread
/// id `tid`, lane `lane`; `seq` uniform over the block): a vote over the
/// batch, with two barriers. `warpFlags` is [threads / 32] i32 of shared
/// memory. Needs `e.hasInitialState`.
Value contestedWriter(ImplicitLocOpBuilder &b, ScanEmitter &e, Value seq,
                      Value tid, Value lane, Value warpFlags, int64_t threads);

/// Values combined along a scan: an associative operation on tuples of
/// values, applied in a fixed order (so every launch computes the same bits).
using ScanCombineFn = function_ref<SmallVector<Value>(
    ImplicitLocOpBuilder &, ValueRange earlier, ValueRange later)>;

/// An exclusive scan of one tuple per thread over the `threads` threads of a
/// block (a multiple of 32; thread id `tid`, lane `lane`), with `identity`
/// before the first thread: shfl.up within each warp, then every thread
/// combines the totals of the warps before its own. `scratch` holds one
/// [threads / 32] workgroup buffer per tuple element, of its type. Returns
/// the exclusive prefix and the block total (every thread gets both).
/// Contains two barriers (the first protects earlier reads of `scratch`).
struct BlockScanResult {
  SmallVector<Value> exclusive, total;
};
BlockScanResult blockExclusiveScan(ImplicitLocOpBuilder &b, Value tid,
                                   Value lane, int64_t threads,
                                   ValueRange values, ValueRange identity,
                                   ArrayRef<Value> scratch,
                                   ScanCombineFn combine);

//===----------------------------------------------------------------------===//
// Tensor-core tiles: swizzled shared tiles, fragments, mma.sync
//===----------------------------------------------------------------------===//

/// The 16-bit type the tensor cores multiply: bf16, or f16 for f16 models.
/// f32 models use bf16 with a high/low split (see WarpMma.cpp).
enum class MmaElement { BF16, F16 };

/// A [rows x cols] tile of 16-bit values in shared memory whose 16-byte
/// chunks are permuted per row (XOR swizzle), so that the 8 rows an
/// ldmatrix (or a fragment read) touches at one column fall in 8 different
/// 16-byte bank groups. cols is a multiple of 8; chunksPerRow is a power of
/// two below 8 or a multiple of 8 (the XOR stays inside the row).
struct SwizzledTile {
  Value buffer; // memref<stages * rows x cols x (bf16|f16), workgroup>
  int64_t rows = 0, cols = 0;
  /// First buffer row of the stage this tile addresses (null: 0); the
  /// stages of a multi-buffered tile are consecutive groups of `rows` rows.
  Value rowOffset;

  /// The same tile at stage `stage` of a multi-buffered buffer.
  SwizzledTile stage(ImplicitLocOpBuilder &b, Value stage) const;
  /// The buffer row of tile row `row`.
  Value bufferRow(ImplicitLocOpBuilder &b, Value row) const;

  /// The column where logical column `col` of buffer row `bufferRow` is
  /// stored; the 8 columns of a 16-byte chunk stay together and in order.
  Value physicalColumn(ImplicitLocOpBuilder &b, Value bufferRow,
                       Value col) const;
  /// Store 8 values (vector<8xT>) at columns col..col+7 (col % 8 == 0) of
  /// tile row `row`.
  void storeChunk(ImplicitLocOpBuilder &b, Value row, Value col,
                  Value chunk) const;
  /// The 8 values at columns col..col+7 (col % 8 == 0) of tile row `row`.
  Value loadChunk(ImplicitLocOpBuilder &b, Value row, Value col) const;
};

/// Round `cols` up to what a SwizzledTile accepts.
int64_t swizzledColumns(int64_t cols);
/// Shared bytes of a SwizzledTile.
inline int64_t swizzledTileBytes(int64_t rows, int64_t cols,
                                 int64_t stages = 1) {
  return stages * rows * swizzledColumns(cols) * 2;
}
/// A SwizzledTile view of the kernel's shared memory at byte `offset`,
/// plus `shift` (index, a multiple of 16) when given.
SwizzledTile sharedTile(ImplicitLocOpBuilder &b, const KernelContext &k,
                        int64_t offset, int64_t rows, int64_t cols,
                        Type element, int64_t stages = 1,
                        Value shift = Value());

/// One operand of a warp-level matmul in shared memory: the tile (and, for
/// f32 models, the tile of low parts), and which way it is stored: `kRows`
/// when its rows run along the reduction dimension k (A stored [k][m], B
/// stored [k][n]), else rows are m (for A) or n (for B) and k runs along
/// the columns. Fragments of a kRows tile are loaded transposed.
struct MmaOperand {
  SwizzledTile high, low; // low.buffer null unless split
  bool kRows = false;
  bool split() const { return static_cast<bool>(low.buffer); }
};

/// Where a lane's values sit in the fragments of an m16n8k16 mma.sync:
/// rows `group` and `group + 8`, columns `pair`, `pair + 1` (+ 8 for k).
struct MmaLane {
  Value lane;  // 0..31
  Value group; // lane / 4
  Value pair;  // 2 * (lane % 4)
};
MmaLane mmaLane(ImplicitLocOpBuilder &b, Value lane);

/// A warp's share of a block-level [M x N] matmul tile: `mTiles` 16-row
/// and `nTiles` 8-column mma tiles (nTiles even) starting at (mBase,
/// nBase); `active` is false for warps the tile does not need (they skip
/// the mma steps and the epilogue).
struct WarpTile {
  Value mBase, nBase, active;
  int64_t mTiles = 0, nTiles = 0;
  int64_t accumulators() const { return mTiles * nTiles * 4; }
};

/// The warp layout of a block-level [rows x cols] tile (multiples of 16)
/// over `warps` warps: warpsM x warpsN warps of mTiles x nTiles mma tiles,
/// the layout with the fewest fragment loads per mma among those that
/// cover the tile.
struct WarpLayout {
  int64_t warpsM = 1, warpsN = 1, mTiles = 1, nTiles = 2;
  int64_t accumulators() const { return mTiles * nTiles * 4; }
};
WarpLayout chooseWarpLayout(int64_t rows, int64_t cols, int64_t warps);
WarpTile warpTile(ImplicitLocOpBuilder &b, const WarpLayout &layout,
                  int64_t rows, int64_t cols, Value warp);

/// acc += A[mBase.., k0..k0+kExtent) * B[k0.., nBase..) for the warp's mma
/// tiles: kExtent / 16 m16n8k16 steps; `acc` holds 4 f32 per mma tile, in
/// (mTile, nTile) order. `bKOffset` (when set) shifts B's k by a run-time
/// amount: B is a resident tile wider than A's staged k-step.
void warpMatmul(ImplicitLocOpBuilder &b, const MmaLane &lane,
                const WarpTile &tile, const MmaOperand &a,
                const MmaOperand &bOp, int64_t k0, int64_t kExtent,
                MmaElement element, FragmentLoads loads,
                MutableArrayRef<Value> acc, Value bKOffset = Value());

/// For each accumulator of the warp's tile: its (row, column) in the block
/// tile, and the index of its value in `acc`.
void forEachAccumulator(ImplicitLocOpBuilder &b, const MmaLane &lane,
                        const WarpTile &tile,
                        function_ref<void(ImplicitLocOpBuilder &, Value row,
                                          Value col, int64_t accIndex)>
                            body);

/// wgmma operand tiles that a plan placed from byte `first` of the arena
/// at offsets congruent modulo kWgmmaTileAlignment, with room for `shift`
/// (index), the run-time move onto such a boundary of the shared window.
struct WgmmaTiles {
  int64_t first = 0;
  Value shift;        // index, < kWgmmaTileAlignment
  Value firstAddress; // i64 shared-window address of byte `first` + shift
  /// The shared-window address (i64) of the tile planned at `offset`.
  Value address(ImplicitLocOpBuilder &b, int64_t offset) const;
};
WgmmaTiles wgmmaTiles(ImplicitLocOpBuilder &b, const KernelContext &k,
                      int64_t first);

/// One product of a warpgroup's wgmma chain: shared-memory descriptors of
/// A (64 x 16) and B (16 x N).
struct WgmmaProduct {
  Value descA, descB;
};

/// Appends one k16 step's products of A·B from the descriptors of the
/// operands' tiles (`a(low)`, `b(low)`: of the high tile, or of the low one):
/// high·high, after high·low and low·high when the operands are `split`
/// (f32 models' low halves), smallest terms first, as warpMatmul adds them.
void appendSplitProducts(SmallVectorImpl<WgmmaProduct> &products, bool split,
                         function_ref<Value(bool low)> a,
                         function_ref<Value(bool low)> b);

/// The wgmma descriptor (i64) of an operand in `tile` at shared-window
/// address `tileAddress` (i64, on a kWgmmaTileAlignment boundary), from
/// row `firstRow` and byte `rowByte` of each row on. The tile's rows must
/// be 32, 64 or 128 bytes: its swizzle is then the PTX ISA's canonical one
/// of that width (see WarpMma.cpp). K-major operands: rows are M or N, k16
/// starts at `rowByte` (0 or 32 in 64-byte rows); M/N-major operands: rows
/// are k, 16 of them from `firstRow`, 64 elements of M or N per row.
/// `at(b, bytes)` is the descriptor of the operand `bytes` further on in
/// the tile's storage (the next k16 step: 32 bytes along a K-major row, 16
/// rows down an M/N-major tile): one 32-bit add to the start address field,
/// which cannot carry out of its 14 bits because shared-window addresses
/// stay below 2^18 (228 KiB of shared memory at most).
struct WgmmaDescriptor {
  Value low;            ///< i32: bits 0-31 (start address >> 4, leading offset)
  int64_t high = 0;     ///< bits 32-63: stride offset and swizzle mode
  int64_t rowBytes = 0; ///< the tile's row length
  Value at(ImplicitLocOpBuilder &b, int64_t bytes = 0) const;
  /// at() `rows` rows further down the tile (an M/N-major operand's k).
  Value rowsDown(ImplicitLocOpBuilder &b, int64_t rows) const {
    return at(b, rows * rowBytes);
  }
};
WgmmaDescriptor wgmmaDescriptor(ImplicitLocOpBuilder &b,
                                const SwizzledTile &tile, Value tileAddress,
                                Value firstRow, int64_t rowByte = 0);

/// Which dimension runs along a wgmma operand's rows in shared memory.
enum class WgmmaMajor { K, MN };

/// acc (n / 2 f32 per thread, n in 8..256) += A·B over `products` as one
/// warpgroup's chain of wgmma.mma_async m64nNk16, issued after a
/// wgmma.fence and committed as a group; with `retire`, waited for
/// (wait_group 0) before it returns. Without, the caller retires the group
/// before it reads the results other than as the accumulators of the next
/// chain, and before the operands are written again. The operands' writers
/// must have made them visible to the async proxy (fence.proxy.async, then
/// a barrier) beforehand.
SmallVector<Value> warpgroupMatmul(ImplicitLocOpBuilder &b, int64_t n,
                                   ArrayRef<WgmmaProduct> products,
                                   WgmmaMajor aMajor, WgmmaMajor bMajor,
                                   MmaElement element, ValueRange acc,
                                   bool retire = true);

/// Where warp `warp`'s accumulators of its warpgroup's m64nN tile (as
/// warpgroupMatmul keeps them) lie, as a WarpTile whose rows start at
/// `mBase` and columns at `nBase`: forEachAccumulator and the epilogues
/// read them as they read an mma.sync tile's.
WarpTile warpgroupTile(ImplicitLocOpBuilder &b, Value warp, Value mBase,
                       Value nBase, int64_t n);

/// f32 -> the mma element (bf16 or f16), round to nearest even; for vectors
/// too. `splitLow` gives the rounding residual v - round(v), rounded again:
/// the low part of the hi/lo split of f32 operands.
Value toMmaElement(ImplicitLocOpBuilder &b, Value v, MmaElement element);
Value mmaLowPart(ImplicitLocOpBuilder &b, Value v, MmaElement element);
Type mmaElementType(MLIRContext *ctx, MmaElement element);

//===----------------------------------------------------------------------===//
// The per-call workspace
//===----------------------------------------------------------------------===//

/// Name of the runtime function that returns the per-call device workspace:
/// `func.func private @ssdGPUWorkspace(i64) -> memref<?xi8>` with
/// llvm.emit_c_interface; the runtimes define
/// `_mlir_ciface_ssdGPUWorkspace`.
constexpr StringLiteral kWorkspaceFunction = "ssdGPUWorkspace";

/// Declares kWorkspaceFunction in the symbol table around `op` (once).
void declareWorkspaceFunction(Operation *op);

/// Declares the private function `name` of `type` in the symbol table
/// around `op` (once), with llvm.emit_c_interface when `cInterface`.
void declareRuntimeFunction(Operation *op, StringRef name, FunctionType type,
                            bool cInterface);

//===----------------------------------------------------------------------===//
// Operand layouts
//===----------------------------------------------------------------------===//

/// The runtime function that host code calls when an operand's layout
/// breaks what its kernels need (`ssdGPUMisalignedOperand` in
/// DeviceRuntime.h).
constexpr StringLiteral kMisalignedOperandFunction = "ssdGPUMisalignedOperand";

/// Declares kMisalignedOperandFunction in the symbol table around `op`
/// (once).
void declareMisalignedOperandFunction(Operation *op);

/// What the kernels of an op need of one memref operand's layout.
struct OperandLayoutNeed {
  unsigned operand; ///< index into ssd::kScanOperandNames
  Value value;      ///< the op's operand
  /// Bytes: of its start address (aligned pointer + offset x element bytes)
  /// and of every stride of a dimension the kernels index; at least the
  /// element's size.
  int64_t alignment;
  /// Accessed in vectors along its last dimension, which needs stride 1.
  bool vectorized;
};

/// The needs of every memref operand of `op`, read off the accesses that the
/// kernels in `kernels` (built for `op`, not yet in place) make to it.
SmallVector<OperandLayoutNeed> kernelLayoutNeeds(ChunkScanVarlenOp op,
                                                 Block &kernels);

/// Why static offsets or strides break `needs`, as the one-line diagnostic
/// of ssd-lower-to-gpu naming the operand, or nothing.
std::optional<std::string> whyMisaligned(ArrayRef<OperandLayoutNeed> needs);

/// Emits host code at the rewriter's insertion point that checks at run
/// time what `needs` asks of `op`'s operands and the compiler cannot know
/// (aligned pointers, dynamic offsets and strides), and moves the ops of
/// `kernels` where every check passed; otherwise the call reports the first
/// failing check through kMisalignedOperandFunction and launches nothing.
void emitLayoutChecked(RewriterBase &rewriter, ChunkScanVarlenOp op,
                       ArrayRef<OperandLayoutNeed> needs, Block &kernels);

/// Buffers carved from one device workspace per call: `add` records a
/// buffer (its type may have dynamic extents, given as values), and
/// `allocate` computes the total, calls the runtime once and returns a
/// memref.view per buffer, in the order added, each at a 128-byte aligned
/// offset.
class WorkspaceBuilder {
public:
  unsigned add(MemRefType type, ValueRange dynamicSizes);
  SmallVector<Value> allocate(ImplicitLocOpBuilder &b, Operation *op);

private:
  struct Entry {
    MemRefType type;
    SmallVector<Value> sizes;
  };
  SmallVector<Entry> entries;
};

//===----------------------------------------------------------------------===//
// The forms
//===----------------------------------------------------------------------===//

/// Largest dstate the invariant kernel takes: it keeps a lane's columns
/// (dstate / 32 of them per row) in registers, at least one row per warp,
/// and has no pieces path (whose sum over pieces is another order).
constexpr int64_t kInvariantMaxDstate = 2048;

/// The name of the invariant kernels, by which the GPU emulator's target
/// recognises the kernels that must contain no contractable multiply-add.
constexpr StringLiteral kInvariantKernelName = kInvariantKernelPrefix;

/// The serial kernel's tiling (the config's serial_rows_per_warp and
/// serial_warps_per_block).
struct SerialTiling {
  int64_t rowsPerWarp, warpsPerBlock;
};

/// Whether the serial kernel scans dstate in pieces (one token loop per
/// piece of each row's columns) rather than with all of a row in registers;
/// `wholeRows` (an 8-bit pool): after lowering its rows per warp to avoid
/// pieces where it can.
bool serialScansInPieces(const StaticExtents &extents,
                         const SerialTiling &tiling, bool invariant,
                         bool wholeRows);

/// The serial form's kernels for `op` (memref form, static extents) at the
/// builder's insertion point.
void buildSerialScanGPU(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                        const StaticExtents &extents,
                        const SerialTiling &tiling);

/// The serial form's kernels as part of a larger call: its workspace goes
/// into a shared WorkspaceBuilder, and its two launches (every sequence but
/// the contested writers; the contested writers) are emitted separately.
/// With `minChunkedSequence` > 0 it skips sequences of at least that many
/// tokens, which a mixed launch runs chunked.
class SerialPart {
public:
  virtual ~SerialPart() = default;
  virtual void declareWorkspace(ImplicitLocOpBuilder &b,
                                WorkspaceBuilder &w) = 0;
  virtual void bindWorkspace(ArrayRef<Value> views) = 0;
  virtual void emitFirstLaunch(ImplicitLocOpBuilder &b) = 0;
  virtual void emitSecondLaunch(ImplicitLocOpBuilder &b) = 0;
};
std::unique_ptr<SerialPart> makeSerialPart(ImplicitLocOpBuilder &b,
                                           ChunkScanVarlenOp op,
                                           const StaticExtents &extents,
                                           const SerialTiling &tiling,
                                           int64_t minChunkedSequence);

struct ChunkedPlan;

/// Elements of the state per thread in the chunked form's state passing
/// and output kernels: 4 consecutive elements of a row (16-byte accesses)
/// when N allows, else 1. An 8-bit pool (`wholeRows`) needs each row's
/// maximum over all its columns, combined with shuffles within one warp:
/// a row longer than 32 lanes x 4 takes N / 32 elements a thread (8 or 16:
/// dstate 256 or 512) so that one warp holds it.
int64_t chunkedStateVector(const StaticExtents &x, bool wholeRows);

/// Threads of those kernels that hold one row of an 8-bit pool (N / v at
/// chunkedStateVector's v): its scale is combined over them with
/// shuffles, so they must be aligned lanes of one warp (a power of two up
/// to 32); 0 where they are not.
int64_t chunkedRowLanes(const StaticExtents &x);

/// The chunked form's kernels of `plan` (ChunkedPlan.h) for `op` (memref
/// form, static extents) at the builder's insertion point.
void buildChunkedScanGPU(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                         const ChunkedPlan &plan);

/// The kernels of both forms in one call for `op` (memref form, serial, its
/// plan a mixed launch): its sequences of at least `minChunkedSequence`
/// tokens run chunked by `plan`, the others serially.
void buildMixedScanGPU(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                       const ChunkedPlan &plan, const SerialTiling &tiling,
                       int64_t minChunkedSequence);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H
