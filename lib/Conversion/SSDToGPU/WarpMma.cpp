//===- WarpMma.cpp - one m16n8k16 tensor-core step of a warp --------------===//
//
// Fragment layout of mma.sync.aligned.m16n8k16.row.col (PTX ISA), with
// g = lane / 4 and c = 2 * (lane % 4):
//   A (16 x 16, row):  a[0] = A[g][c..c+1]     a[1] = A[g+8][c..c+1]
//                      a[2] = A[g][c+8..c+9]   a[3] = A[g+8][c+8..c+9]
//   B (16 x 8, col):   b[0] = B[c..c+1][g]     b[1] = B[c+8..c+9][g]
//   D (16 x 8, f32):   d[0..1] = D[g][c..c+1]  d[2..3] = D[g+8][c..c+1]
// Each 32-bit register holds two bf16, the lower index in the low half.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

MmaLane mlir::ssd::detail::mmaLane(ImplicitLocOpBuilder &b,
                                   const ScanEmitter &e, Value lane) {
  Value four = e.index(b, 4);
  return {arith::DivUIOp::create(b, lane, four),
          arith::MulIOp::create(b, arith::RemUIOp::create(b, lane, four),
                                e.index(b, 2))};
}

namespace {

/// f32 -> bf16 bit pattern (round to nearest even) as i32 in the low half.
Value bf16Bits(ImplicitLocOpBuilder &b, Value v) {
  Value half = arith::TruncFOp::create(b, b.getBF16Type(), v);
  Value bits = arith::BitcastOp::create(b, b.getI16Type(), half);
  return arith::ExtUIOp::create(b, b.getI32Type(), bits);
}

/// The bf16 nearest to v, back in f32, so that v - roundBF16(v) is the part a
/// single bf16 misses.
Value roundBF16(ImplicitLocOpBuilder &b, Value v) {
  Value half = arith::TruncFOp::create(b, b.getBF16Type(), v);
  return arith::ExtFOp::create(b, b.getF32Type(), half);
}

Value pack(ImplicitLocOpBuilder &b, Value low, Value high) {
  Value shifted = arith::ShLIOp::create(
      b, bf16Bits(b, high),
      arith::ConstantOp::create(b, b.getI32IntegerAttr(16)));
  return arith::OrIOp::create(b, bf16Bits(b, low), shifted);
}

} // namespace

void mlir::ssd::detail::mmaAccumulate(ImplicitLocOpBuilder &b,
                                      const ScanEmitter &e, const MmaLane &lane,
                                      TileElementFn a, TileElementFn bElem,
                                      MutableArrayRef<Value> acc, bool splitF32) {
  Value g = lane.group, c = lane.pair;
  auto plus = [&](Value v, int64_t k) {
    return arith::AddIOp::create(b, v, e.index(b, k)).getResult();
  };
  Value g8 = plus(g, 8), c1 = plus(c, 1), c8 = plus(c, 8), c9 = plus(c, 9);
  // Operand values in fragment order, as f32.
  SmallVector<Value, 8> aValues = {a(b, g, c),   a(b, g, c1),  a(b, g8, c),
                                   a(b, g8, c1), a(b, g, c8),  a(b, g, c9),
                                   a(b, g8, c8), a(b, g8, c9)};
  SmallVector<Value, 4> bValues = {bElem(b, c, g), bElem(b, c1, g),
                                   bElem(b, c8, g), bElem(b, c9, g)};

  auto registers = [&](ArrayRef<Value> values) {
    SmallVector<Value, 4> regs;
    for (size_t i = 0; i < values.size(); i += 2)
      regs.push_back(pack(b, values[i], values[i + 1]));
    return regs;
  };
  auto residuals = [&](ArrayRef<Value> values) {
    SmallVector<Value, 8> lows;
    for (Value v : values)
      lows.push_back(arith::SubFOp::create(b, v, roundBF16(b, v)));
    return lows;
  };

  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     {f32, f32, f32, f32});
  auto mma = [&](ArrayRef<Value> aRegs, ArrayRef<Value> bRegs) {
    auto op = NVVM::MmaOp::create(
        b, resultType, aRegs, bRegs, acc, /*shape=*/{16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (int64_t i = 0; i < 4; ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, op.getRes(), i);
  };

  SmallVector<Value, 4> aHigh = registers(aValues), bHigh = registers(bValues);
  if (splitF32) {
    // Smallest terms first, so the large one is added to the most precise
    // partial sum.
    mma(aHigh, registers(residuals(bValues)));
    mma(registers(residuals(aValues)), bHigh);
  }
  mma(aHigh, bHigh);
}
