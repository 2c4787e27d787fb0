//===- CanonicalMath.h - the invariant mode's arithmetic --------*- C++ -*-===//
//
// Ops marked `invariant` promise the same bits for a token however it is
// scheduled: alone or batched, in one call or split across many, in either
// form, on any CPU level, thread count or GPU block order. That holds only if
// every lowering emits exactly the same sequence of rounding operations per
// token, so each of them builds the arithmetic here and nowhere else. With
// d the processed dt, g the decay, h the unscaled f32 state (+0 without an
// initial state), for token t, head h, row p and column n:
//
//   v   = dt + dt_bias                                 (only with dt_bias)
//   d   = v > 20 ? v : log1p(exp(v))                   (dt without dt_bias)
//   g   = exp(minimumf(d * A, +0))
//   w   = d * x[t, p]
//   h_n = fma(g, h_n, w * B[t, n])                     one product rounded
//   a_l = fma(h_n, C[t, n], a_l),  l = n mod 32        n increasing, a_l = +0
//   sum = 5-level halving tree: a_l += a_{l+16}, then 8, 4, 2, 1
//   y   = D ? fma(D, x[t, p], sum) : sum               then rounded to y's type
//
// exp and log1p are the project's own f32 expansions (CanonicalExpLog1p.cpp),
// never libm, libdevice or the PTX approximations, whose bits differ between
// targets; fma is llvm.fma, exact on every target (software on a CPU without
// FMA instructions). Nothing here carries fast-math flags, so no backend may
// contract or reassociate it. NaN results are stored as the one quiet NaN
// of the stored type (0x7FC00000, bf16 0x7FC0, f16 0x7E00): LLVM keeps no NaN
// payloads, and targets produce different ones.
//
// Every function is elementwise on f32 or on vectors of f32 (all operands of
// one type; callers broadcast scalars), except tree32.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_CANONICALMATH_H
#define SSD_LIB_CONVERSION_SCANEMITTER_CANONICALMATH_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir {
namespace ssd {
namespace detail {
namespace canonical {

/// Partial sums of the dot product over N: column n feeds partial n mod 32.
constexpr int64_t kPartials = 32;

/// a * x + c with one rounding.
Value fma(ImplicitLocOpBuilder &b, Value a, Value x, Value c);
/// The project's f32 exp (correct to about an ulp; inf above 88.7, 0 far
/// below, NaN kept).
Value exp(ImplicitLocOpBuilder &b, Value v);
/// The project's f32 log1p for u >= 0 (and +inf, NaN).
Value log1p(ImplicitLocOpBuilder &b, Value u);

/// d from dt (widened to f32) and dt_bias (f32; null without one).
Value processedDt(ImplicitLocOpBuilder &b, Value dt, Value dtBias);
/// g = exp(minimumf(d * A, +0)).
Value decay(ImplicitLocOpBuilder &b, Value d, Value A);
/// w = d * x.
Value stepWeight(ImplicitLocOpBuilder &b, Value d, Value x);
/// The state update h' = fma(g, h, w * B).
Value update(ImplicitLocOpBuilder &b, Value g, Value h, Value w, Value B);
/// One term of y's dot product: fma(h, C, acc).
Value accumulate(ImplicitLocOpBuilder &b, Value h, Value C, Value acc);
/// The sum of the 32 partials of a vector<32xf32> by the halving tree.
Value tree32(ImplicitLocOpBuilder &b, Value partials);
/// y before rounding: fma(D, x, sum) with D (null without one), else sum.
Value finishY(ImplicitLocOpBuilder &b, Value sum, Value D, Value x);
/// v with every NaN replaced by the quiet NaN 0x7FC00000.
Value canonicalNaN(ImplicitLocOpBuilder &b, Value v);
/// v (f32 or a vector of f32) as stored into a buffer of `element` (f32,
/// bf16 or f16): rounded to nearest-even, every NaN replaced by the element
/// type's quiet NaN (0x7FC00000, 0x7FC0, 0x7E00). Every value the invariant
/// kernels store (y, final states, checkpoints) goes through it.
Value storedValue(ImplicitLocOpBuilder &b, Value v, Type element);

} // namespace canonical
} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_CANONICALMATH_H
