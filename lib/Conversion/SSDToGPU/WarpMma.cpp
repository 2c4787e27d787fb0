//===- WarpMma.cpp - tensor-core tiles: swizzled shared memory, mma.sync --===//
//
// Fragment layout of mma.sync.aligned.m16n8k16.row.col (PTX ISA), with
// g = lane / 4 and c = 2 * (lane % 4):
//   A (16 x 16, row):  a[0] = A[g][c..c+1]     a[1] = A[g+8][c..c+1]
//                      a[2] = A[g][c+8..c+9]   a[3] = A[g+8][c+8..c+9]
//   B (16 x 8, col):   b[0] = B[c..c+1][g]     b[1] = B[c+8..c+9][g]
//   D (16 x 8, f32):   d[0..1] = D[g][c..c+1]  d[2..3] = D[g+8][c..c+1]
// Each 32-bit register holds two 16-bit values, the lower index in the low
// half.
//
// ldmatrix.m8n8.x4 loads four 8x8 matrices of 16-bit values: lanes 8i..8i+7
// give the addresses of the 8 rows (16 contiguous bytes each) of matrix i,
// and register i of lane l receives row l/4, columns 2(l%4)..+1 of matrix i
// (with .trans: rows 2(l%4)..+1 of column l/4). So a fragment register is
// one 8x8 matrix, and:
//   A stored [m][k]: matrices at (m, k), (m+8, k), (m, k+8), (m+8, k+8)
//   A stored [k][m]: the same with .trans, at (k, m), (k, m+8), (k+8, m), ...
//   B stored [n][k]: b[0], b[1] of columns n..n+7 at (n, k), (n, k+8), and
//                    of n+8.. at (n+8, k), (n+8, k+8)
//   B stored [k][n]: with .trans at (k, n), (k+8, n), (k, n+8), (k+8, n+8).
//
// Shared tiles are swizzled: the 16-byte chunk j of row r is stored at chunk
// j ^ s(r). The 8 rows of one matrix then sit in 8 different 16-byte bank
// groups (a row of >= 128 bytes: s(r) = r % 8; of 64, 32 bytes: two or four
// rows share 128 bytes and s(r) = (r / 2) % 4, (r / 4) % 2), so ldmatrix and
// the 16-byte stores that fill a tile have no bank conflicts.
//
// wgmma.mma_async (sm_90a) reads both operands from shared memory through
// descriptors. A SwizzledTile of 32, 64 or 128-byte rows that starts at a
// 1024-byte boundary of the shared window is already in the canonical
// K-major layout of that swizzle width: the PTX ISA XORs address bits 4..
// (the 16-byte chunk) with bits 7.. (the row's place in its 8-row atom),
// which for rows of W bytes is s(r) above. So the staging that feeds
// ldmatrix feeds wgmma unchanged: rows 8 apart are 8 W bytes apart (the
// stride offset). K-major operands have M or N along the tile's rows, and
// the k16 half of a 32-column row starts 32 bytes in; M/N-major ones (128-
// byte rows) have k along the rows, 64 elements of M or N in each, and a
// k16 step starts 16 rows on.
//
// f32 models: each operand value v is split into hi = bf16(v) and
// lo = bf16(v - hi), staged as two tiles, and a*b is accumulated as
// hi*lo + lo*hi + hi*hi (the lo*lo term is below f32 rounding of the sum):
// about 16 significant bits per operand, enough for the f32 tolerance.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

//===----------------------------------------------------------------------===//
// Swizzled tiles
//===----------------------------------------------------------------------===//

int64_t mlir::ssd::detail::swizzledColumns(int64_t cols) {
  int64_t chunks = llvm::divideCeil(cols, 8);
  if (chunks < 8)
    chunks = llvm::PowerOf2Ceil(chunks);
  else
    chunks = llvm::alignTo(chunks, 8);
  return chunks * 8;
}

/// s(r) of the file comment, as (r / rowsPerLine) % period.
static Value swizzleOf(ImplicitLocOpBuilder &b, const SwizzledTile &t,
                       Value row) {
  int64_t chunks = t.cols / 8;
  int64_t period = std::min<int64_t>(chunks, 8);
  int64_t rowsPerLine = std::max<int64_t>(1, 8 / chunks);
  if (period == 1)
    return Value();
  return ir::remu(b, ir::divu(b, row, rowsPerLine), period);
}

SwizzledTile SwizzledTile::stage(ImplicitLocOpBuilder &b, Value stage) const {
  SwizzledTile t = *this;
  t.rowOffset = ir::mul(b, stage, rows);
  return t;
}

Value SwizzledTile::bufferRow(ImplicitLocOpBuilder &b, Value row) const {
  return rowOffset ? ir::add(b, row, rowOffset) : row;
}

Value SwizzledTile::physicalColumn(ImplicitLocOpBuilder &b, Value bufferRow,
                                   Value col) const {
  // (col / 8 ^ s) * 8 + col % 8 == col ^ (s * 8).
  Value s = swizzleOf(b, *this, bufferRow);
  if (!s)
    return col;
  return arith::XOrIOp::create(b, col, ir::mul(b, s, 8));
}

void SwizzledTile::storeChunk(ImplicitLocOpBuilder &b, Value row, Value col,
                              Value chunk) const {
  Value r = bufferRow(b, row);
  vector::StoreOp::create(b, chunk, buffer,
                          ValueRange{r, physicalColumn(b, r, col)},
                          /*nontemporal=*/false, llvm::MaybeAlign(16));
}

Value SwizzledTile::loadChunk(ImplicitLocOpBuilder &b, Value row,
                              Value col) const {
  Value r = bufferRow(b, row);
  auto type =
      VectorType::get({8}, cast<MemRefType>(buffer.getType()).getElementType());
  return vector::LoadOp::create(b, type, buffer,
                                ValueRange{r, physicalColumn(b, r, col)},
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
}

SwizzledTile mlir::ssd::detail::sharedTile(ImplicitLocOpBuilder &b,
                                           const KernelContext &k,
                                           int64_t offset, int64_t rows,
                                           int64_t cols, Type element,
                                           int64_t stages, Value shift) {
  SwizzledTile tile;
  tile.rows = rows;
  tile.cols = swizzledColumns(cols);
  SmallVector<int64_t> shape{stages * rows, tile.cols};
  tile.buffer =
      shift ? sharedView(b, k, ir::add(b, shift, offset), shape, element)
            : sharedView(b, k, offset, shape, element);
  return tile;
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

Type mlir::ssd::detail::mmaElementType(MLIRContext *ctx, MmaElement element) {
  if (element == MmaElement::F16)
    return Float16Type::get(ctx);
  return BFloat16Type::get(ctx);
}

static Type withElement(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

Value mlir::ssd::detail::toMmaElement(ImplicitLocOpBuilder &b, Value v,
                                      MmaElement element) {
  Type target =
      withElement(v.getType(), mmaElementType(b.getContext(), element));
  if (getElementTypeOrSelf(v.getType()) == getElementTypeOrSelf(target))
    return v;
  return arith::TruncFOp::create(b, target, v);
}

Value mlir::ssd::detail::mmaLowPart(ImplicitLocOpBuilder &b, Value v,
                                    MmaElement element) {
  Value high = toMmaElement(b, v, element);
  Value back = arith::ExtFOp::create(b, v.getType(), high);
  return toMmaElement(b, ir::fsubExact(b, v, back), element);
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

MmaLane mlir::ssd::detail::mmaLane(ImplicitLocOpBuilder &b, Value lane) {
  return {lane, ir::divu(b, lane, 4), ir::mul(b, ir::remu(b, lane, 4), 2)};
}

namespace {

/// Origins (row, column offsets from a base, each 0 or 8) of the four 8x8
/// matrices of an x4 load.
struct MatrixOrigins {
  std::array<int64_t, 4> row, col;
};

/// The 32-bit registers of four 8x8 matrices of `tile` whose origins are
/// (rowBase + origins.row[i], colBase + origins.col[i]); transposed when
/// `trans`.
SmallVector<Value, 4> loadMatrices(ImplicitLocOpBuilder &b, const MmaLane &lane,
                                   const SwizzledTile &tile, Value rowBase,
                                   Value colBase, const MatrixOrigins &origins,
                                   bool trans, FragmentLoads loads) {
  Type i32 = b.getI32Type();
  Type element = cast<MemRefType>(tile.buffer.getType()).getElementType();
  SmallVector<Value, 4> regs;
  if (loads == FragmentLoads::ldmatrix) {
    // Lane l addresses row l % 8 of matrix l / 8. The origins are 0 or 8, so
    // each is a bit of a 4-bit mask indexed by the matrix.
    Value matrix = ir::divu(b, lane.lane, 8);
    auto pick = [&](const std::array<int64_t, 4> &offsets) {
      int64_t mask = 0;
      for (int i = 0; i < 4; ++i)
        mask |= (offsets[i] / 8) << i;
      Value bit =
          ir::remu(b, arith::ShRUIOp::create(b, ir::idx(b, mask), matrix), 2);
      return ir::mul(b, bit, 8);
    };
    Value row =
        tile.bufferRow(b, ir::add(b, ir::add(b, rowBase, pick(origins.row)),
                                  ir::remu(b, lane.lane, 8)));
    Value col = ir::add(b, colBase, pick(origins.col));
    auto resultType = VectorType::get({4, 2}, element);
    Value matrices = nvgpu::LdMatrixOp::create(
        b, resultType, tile.buffer,
        ValueRange{row, tile.physicalColumn(b, row, col)}, trans,
        /*numTiles=*/4);
    for (int64_t i = 0; i < 4; ++i) {
      Value pair = vector::ExtractOp::create(b, matrices, ArrayRef<int64_t>{i});
      regs.push_back(
          vector::BitCastOp::create(b, VectorType::get({1}, i32), pair)
              .getResult());
      regs.back() =
          vector::ExtractOp::create(b, regs.back(), ArrayRef<int64_t>{0});
    }
    return regs;
  }
  // What ldmatrix would give this lane, one register at a time.
  for (int64_t i = 0; i < 4; ++i) {
    Value row0 = ir::add(b, rowBase, origins.row[i]);
    Value col0 = ir::add(b, colBase, origins.col[i]);
    Value pair;
    if (!trans) {
      Value row = tile.bufferRow(b, ir::add(b, row0, lane.group));
      Value col = ir::add(b, col0, lane.pair);
      pair = vector::LoadOp::create(
          b, VectorType::get({2}, element), tile.buffer,
          ValueRange{row, tile.physicalColumn(b, row, col)},
          /*nontemporal=*/false, llvm::MaybeAlign(4));
    } else {
      Value col = ir::add(b, col0, lane.group);
      SmallVector<Value, 2> values;
      for (int64_t h = 0; h < 2; ++h) {
        Value row =
            tile.bufferRow(b, ir::add(b, ir::add(b, row0, lane.pair), h));
        values.push_back(memref::LoadOp::create(
            b, tile.buffer, ValueRange{row, tile.physicalColumn(b, row, col)}));
      }
      pair = vector::FromElementsOp::create(b, VectorType::get({2}, element),
                                            values);
    }
    Value bits = vector::BitCastOp::create(b, VectorType::get({1}, i32), pair);
    regs.push_back(vector::ExtractOp::create(b, bits, ArrayRef<int64_t>{0}));
  }
  return regs;
}

/// The mma.sync operand for a 32-bit fragment register: i32 for bf16,
/// vector<2xf16> for f16 (what nvvm.mma.sync takes for each).
Value mmaOperand(ImplicitLocOpBuilder &b, Value reg, MmaElement element) {
  if (element == MmaElement::BF16)
    return reg;
  Value asVector =
      vector::BroadcastOp::create(b, VectorType::get({1}, b.getI32Type()), reg);
  return vector::BitCastOp::create(b, VectorType::get({2}, b.getF16Type()),
                                   asVector);
}

void mmaSync(ImplicitLocOpBuilder &b, ArrayRef<Value> aRegs,
             ArrayRef<Value> bRegs, MutableArrayRef<Value> acc,
             MmaElement element) {
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  SmallVector<Value, 4> a, bv;
  for (Value r : aRegs)
    a.push_back(mmaOperand(b, r, element));
  for (Value r : bRegs)
    bv.push_back(mmaOperand(b, r, element));
  NVVM::MMATypes type =
      element == MmaElement::F16 ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  auto op =
      NVVM::MmaOp::create(b, resultType, a, bv, acc, /*shape=*/{16, 8, 16},
                          /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
                          std::array<NVVM::MMATypes, 2>{type, type},
                          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                         NVVM::MMALayout::col});
  for (int64_t i = 0; i < 4; ++i)
    acc[i] = LLVM::ExtractValueOp::create(b, op.getRes(), i);
}

} // namespace

//===----------------------------------------------------------------------===//
// Warp tiles
//===----------------------------------------------------------------------===//

WarpLayout mlir::ssd::detail::chooseWarpLayout(int64_t rows, int64_t cols,
                                               int64_t warps) {
  assert(rows % 16 == 0 && cols % 16 == 0);
  const int64_t mTotal = rows / 16, pairsTotal = cols / 16;
  std::optional<WarpLayout> best;
  double bestLoads = 0;
  for (int64_t warpsM = 1; warpsM <= warps; warpsM *= 2) {
    if (warps % warpsM)
      continue;
    int64_t warpsN = warps / warpsM;
    // Warps along m (n) each take mt (np) consecutive tiles; the tiles must
    // divide evenly, so that no warp reads past the staged tile.
    int64_t mt = llvm::divideCeil(mTotal, warpsM);
    int64_t np = llvm::divideCeil(pairsTotal, warpsN);
    if (mTotal % mt || pairsTotal % np)
      continue;
    WarpLayout layout{warpsM, warpsN, mt, 2 * np};
    double loads = double(mt + np) / double(mt * 2 * np);
    if (!best || layout.accumulators() < best->accumulators() ||
        (layout.accumulators() == best->accumulators() && loads < bestLoads)) {
      best = layout;
      bestLoads = loads;
    }
  }
  assert(best && "warpsM = 1 always divides");
  return *best;
}

WarpTile mlir::ssd::detail::warpTile(ImplicitLocOpBuilder &b,
                                     const WarpLayout &layout, int64_t rows,
                                     int64_t cols, Value warp) {
  WarpTile tile;
  tile.mTiles = layout.mTiles;
  tile.nTiles = layout.nTiles;
  Value wm = ir::divu(b, warp, layout.warpsN);
  Value wn = ir::remu(b, warp, layout.warpsN);
  tile.mBase = ir::mul(b, wm, 16 * layout.mTiles);
  tile.nBase = ir::mul(b, wn, 8 * layout.nTiles);
  tile.active =
      ir::both(b, ir::ult(b, tile.mBase, rows), ir::ult(b, tile.nBase, cols));
  return tile;
}

void mlir::ssd::detail::warpMatmul(ImplicitLocOpBuilder &b, const MmaLane &lane,
                                   const WarpTile &tile, const MmaOperand &a,
                                   const MmaOperand &bOp, int64_t k0,
                                   int64_t kExtent, MmaElement element,
                                   FragmentLoads loads,
                                   MutableArrayRef<Value> acc, Value bKOffset) {
  assert(kExtent % 16 == 0 && tile.nTiles % 2 == 0);
  assert(static_cast<int64_t>(acc.size()) == tile.accumulators());
  // Non-transposed A: (m, k), (m+8, k), (m, k+8), (m+8, k+8); transposed
  // (rows are k): (k, m), (k, m+8), (k+8, m), (k+8, m+8).
  const MatrixOrigins aRowsM{{0, 8, 0, 8}, {0, 0, 8, 8}};
  const MatrixOrigins aRowsK{{0, 0, 8, 8}, {0, 8, 0, 8}};
  // B, two n-tiles: (n, k), (n, k+8), (n+8, k), (n+8, k+8); transposed:
  // (k, n), (k+8, n), (k, n+8), (k+8, n+8).
  const MatrixOrigins bRowsN{{0, 0, 8, 8}, {0, 8, 0, 8}};
  const MatrixOrigins bRowsK{{0, 8, 0, 8}, {0, 0, 8, 8}};

  for (int64_t kk = k0; kk < k0 + kExtent; kk += 16) {
    Value k = ir::idx(b, kk);
    Value kB = bKOffset ? ir::add(b, k, bKOffset) : k;
    auto aFragments = [&](const SwizzledTile &t) {
      SmallVector<SmallVector<Value, 4>> frags;
      for (int64_t mi = 0; mi < tile.mTiles; ++mi) {
        Value m = ir::add(b, tile.mBase, 16 * mi);
        frags.push_back(a.kRows ? loadMatrices(b, lane, t, k, m, aRowsK,
                                               /*trans=*/true, loads)
                                : loadMatrices(b, lane, t, m, k, aRowsM,
                                               /*trans=*/false, loads));
      }
      return frags;
    };
    auto bFragments = [&](const SwizzledTile &t) {
      // frags[ni] = {b0, b1} of n-tile ni.
      SmallVector<SmallVector<Value, 4>> frags;
      for (int64_t pj = 0; pj < tile.nTiles / 2; ++pj) {
        Value n = ir::add(b, tile.nBase, 16 * pj);
        SmallVector<Value, 4> regs =
            bOp.kRows ? loadMatrices(b, lane, t, kB, n, bRowsK, true, loads)
                      : loadMatrices(b, lane, t, n, kB, bRowsN, false, loads);
        frags.push_back({regs[0], regs[1]});
        frags.push_back({regs[2], regs[3]});
      }
      return frags;
    };
    auto mmaAll = [&](ArrayRef<SmallVector<Value, 4>> af,
                      ArrayRef<SmallVector<Value, 4>> bf) {
      for (int64_t mi = 0; mi < tile.mTiles; ++mi)
        for (int64_t ni = 0; ni < tile.nTiles; ++ni)
          mmaSync(b, af[mi], bf[ni], acc.slice((mi * tile.nTiles + ni) * 4, 4),
                  element);
    };
    auto aHigh = aFragments(a.high);
    auto bHigh = bFragments(bOp.high);
    if (a.split() || bOp.split()) {
      // Smallest terms first, so the large one is added to the most precise
      // partial sum.
      if (bOp.split())
        mmaAll(aHigh, bFragments(bOp.low));
      if (a.split())
        mmaAll(aFragments(a.low), bHigh);
    }
    mmaAll(aHigh, bHigh);
  }
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA (wgmma)
//===----------------------------------------------------------------------===//

WgmmaTiles mlir::ssd::detail::wgmmaTiles(ImplicitLocOpBuilder &b,
                                         const KernelContext &k,
                                         int64_t first) {
  WgmmaTiles t;
  t.first = first;
  Value planned =
      arith::AddIOp::create(b, sharedWindowAddress(b, k), ir::i64(b, first));
  Value shift =
      arith::AndIOp::create(b, arith::SubIOp::create(b, ir::i64(b, 0), planned),
                            ir::i64(b, kWgmmaTileAlignment - 1));
  t.shift = arith::IndexCastUIOp::create(b, b.getIndexType(), shift);
  t.firstAddress = arith::AddIOp::create(b, planned, shift);
  return t;
}

Value WgmmaTiles::address(ImplicitLocOpBuilder &b, int64_t offset) const {
  if (offset == first)
    return firstAddress;
  return arith::AddIOp::create(b, firstAddress, ir::i64(b, offset - first));
}

WgmmaDescriptor mlir::ssd::detail::wgmmaDescriptor(ImplicitLocOpBuilder &b,
                                                   const SwizzledTile &tile,
                                                   Value tileAddress,
                                                   Value firstRow,
                                                   int64_t rowByte) {
  const int64_t rowBytes = tile.cols * 2;
  // Descriptor swizzle modes: 1 = 128 bytes, 2 = 64, 3 = 32.
  int64_t mode = rowBytes == 128 ? 1 : rowBytes == 64 ? 2 : 3;
  assert((rowBytes == 128 || rowBytes == 64 || rowBytes == 32) &&
         "wgmma tiles have rows of one swizzle width");
  // Only bits 4-17 of the start address reach the descriptor, and they
  // depend only on the low 32 bits of the sum: the arithmetic is 32-bit
  // (one ALU instruction per operation, where 64-bit ones take two), and
  // the same whatever the upper bits of the address are.
  auto constant = [&](int64_t v) { return ir::i32(b, int32_t(v)); };
  Type i32 = b.getI32Type();
  Value row = arith::IndexCastUIOp::create(b, i32, tile.bufferRow(b, firstRow));
  Value start = arith::AddIOp::create(
      b, arith::TruncIOp::create(b, i32, tileAddress),
      arith::AddIOp::create(b,
                            arith::MulIOp::create(b, row, constant(rowBytes)),
                            constant(rowByte)));
  // Start address >> 4 in bits 0-13; the leading offset in bits 16-29
  // (unused here: K-major swizzled layouts have none, M/N-major ones need
  // it only past 64 elements of M or N; 1 as CUTLASS writes it); the
  // stride offset, 8 rows, >> 4 in bits 32-45; the swizzle mode in bits
  // 62-63.
  WgmmaDescriptor d;
  d.rowBytes = rowBytes;
  d.low = arith::OrIOp::create(
      b,
      arith::AndIOp::create(b, arith::ShRUIOp::create(b, start, constant(4)),
                            constant(0x3fff)),
      constant(1 << 16));
  d.high = (8 * rowBytes / 16) |
           static_cast<int64_t>(static_cast<uint64_t>(mode) << 30);
  return d;
}

Value WgmmaDescriptor::at(ImplicitLocOpBuilder &b, int64_t bytes) const {
  assert(bytes % 16 == 0 && "descriptors address 16-byte units");
  Value word =
      bytes ? arith::AddIOp::create(b, low, ir::i32(b, bytes / 16)) : low;
  return arith::OrIOp::create(
      b, arith::ExtUIOp::create(b, b.getI64Type(), word),
      ir::i64(b, static_cast<int64_t>(static_cast<uint64_t>(high) << 32)));
}

void mlir::ssd::detail::appendSplitProducts(
    SmallVectorImpl<WgmmaProduct> &products, bool split,
    function_ref<Value(bool low)> a, function_ref<Value(bool low)> b) {
  Value aHigh = a(false), bHigh = b(false);
  if (split) {
    products.push_back({aHigh, b(true)});
    products.push_back({a(true), bHigh});
  }
  products.push_back({aHigh, bHigh});
}

SmallVector<Value> mlir::ssd::detail::warpgroupMatmul(
    ImplicitLocOpBuilder &b, int64_t n, ArrayRef<WgmmaProduct> products,
    WgmmaMajor aMajor, WgmmaMajor bMajor, MmaElement element, ValueRange acc,
    bool retire) {
  assert(n % 8 == 0 && n >= 8 && n <= 256 &&
         static_cast<int64_t>(acc.size()) == n / 2 && "m64nNk16 accumulators");
  MLIRContext *ctx = b.getContext();
  auto type = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(acc.size(), b.getF32Type()));
  Value d = LLVM::UndefOp::create(b, type);
  for (auto [i, v] : llvm::enumerate(acc))
    d = LLVM::InsertValueOp::create(b, d, v, i);
  NVVM::WgmmaFenceAlignedOp::create(b);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, n, 16);
  NVVM::WGMMATypes operandType = element == MmaElement::F16
                                     ? NVVM::WGMMATypes::f16
                                     : NVVM::WGMMATypes::bf16;
  // A (M x K) row-major is K-major; B (K x N) column-major is K-major.
  NVVM::MMALayout aLayout =
      aMajor == WgmmaMajor::K ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  NVVM::MMALayout bLayout =
      bMajor == WgmmaMajor::K ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  for (const WgmmaProduct &p : products)
    d = NVVM::WgmmaMmaAsyncOp::create(
        b, type, d, p.descA, p.descB, shape, operandType, operandType,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, aLayout, bLayout,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  NVVM::WgmmaGroupSyncAlignedOp::create(b);
  if (retire)
    NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
  SmallVector<Value> out;
  for (int64_t i = 0, e = acc.size(); i < e; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, d, i));
  return out;
}

// The m64nN accumulators (PTX ISA, "wgmma register fragment D"): warp w of
// the warpgroup holds rows 16w..16w+15; its lane l, with g = l / 4 and
// c = 2 (l % 4), holds d[4j..4j+1] = D[16w+g][8j+c..+1] and d[4j+2..4j+3] =
// D[16w+g+8][8j+c..+1] for each 8-column block j: the order of a warp's
// mma.sync tile of one 16-row block and N / 8 column blocks.
WarpTile mlir::ssd::detail::warpgroupTile(ImplicitLocOpBuilder &b, Value warp,
                                          Value mBase, Value nBase, int64_t n) {
  WarpTile tile;
  tile.mTiles = 1;
  tile.nTiles = n / 8;
  tile.mBase = ir::add(b, mBase, ir::mul(b, ir::remu(b, warp, 4), 16));
  tile.nBase = nBase;
  tile.active = ir::boolean(b, true);
  return tile;
}

void mlir::ssd::detail::forEachAccumulator(
    ImplicitLocOpBuilder &b, const MmaLane &lane, const WarpTile &tile,
    function_ref<void(ImplicitLocOpBuilder &, Value, Value, int64_t)> body) {
  for (int64_t mi = 0; mi < tile.mTiles; ++mi)
    for (int64_t ni = 0; ni < tile.nTiles; ++ni)
      for (int64_t e = 0; e < 4; ++e) {
        Value row = ir::add(b, ir::add(b, tile.mBase, lane.group),
                            16 * mi + 8 * (e / 2));
        Value col =
            ir::add(b, ir::add(b, tile.nBase, lane.pair), 8 * ni + e % 2);
        body(b, row, col, (mi * tile.nTiles + ni) * 4 + e);
      }
}
