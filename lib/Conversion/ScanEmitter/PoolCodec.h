//===- PoolCodec.h - every lowering's pool reads and writes -*- C++ -*-===//
//
// The one definition of the pool's storage formats that every lowering
// (CPU serial, chunked and invariant loops; GPU serial, chunked and mixed
// kernels; the emulator through them) emits: decoding a stored element to
// f32, the per-row scale of the 8-bit formats, and rounding an f32 state to
// the stored format, to nearest-even or stochastically with bits from
// Philox4x32-10. docs/overview.md ("Compressed state pools") states the
// contract; this is it as IR.
//
// Values may be scalars or vectors (a row's columns n, n + 1, ...): every
// method works lane by lane, so a CPU task's whole row and a GPU thread's
// column pair share the code.
//
// Writing a row of an 8-bit pool is three steps, because the scale depends
// on the whole row and a row may be spread over threads:
//   m = absMax over the row (per thread, then combined by the caller),
//   RowScale r = rowScale(m); storeScale(r.scale, ...) once per row,
//   code = encode(value, r.inverse, site) per element.
// Other formats take encode(value, /*inverse=*/nullptr, site) alone.
// A loop that writes a whole row at once may branch on r.inRange instead:
// encodeInRange(value, r.inverse, site) when it holds, zeroCodes otherwise,
// the same codes with no per-element guard.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_POOLCODEC_H
#define SSD_LIB_CONVERSION_SCANEMITTER_POOLCODEC_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "ssd/IR/SSDOps.h"

namespace mlir {
namespace ssd {
namespace detail {

/// The pool's element type, as a storage format.
enum class PoolStorage { F32, BF16, F16, F8E4M3FN, I8 };

/// Where one written element (or, for vectors, the first of consecutive
/// columns) sits, and how many tokens the state written there holds: the
/// Philox counter of stochastic rounding. All index values.
struct PoolWriteSite {
  Value slot, head, p, n, tokensHeld;
};

class PoolCodec {
public:
  /// Reads the op's pool, scales, rounding and seed (memref form).
  explicit PoolCodec(ChunkScanVarlenOp op);

  PoolStorage storage;
  Type element;        // the pool's element type
  Value scales;        // [S, H, P] f32 memref; null unless 8-bit
  Value seed;          // 0-d i64 memref; null unless stochastic
  bool stochastic;     // pool_rounding = stochastic
  int64_t headDim = 0; // P when static, else read from the pool at need
  Value pool;

  /// 8-bit codes with a scale per row.
  bool scaled() const {
    return storage == PoolStorage::F8E4M3FN || storage == PoolStorage::I8;
  }
  /// Whether a stored element is not the f32 state itself.
  bool narrow() const { return storage != PoolStorage::F32; }
  /// 448 (f8E4M3FN) or 127 (i8).
  double qmax() const;

  /// Stored elements (the pool's element type, scalar or vector) as f32;
  /// `scale` (f32 scalar) for the 8-bit formats, null otherwise.
  Value decode(ImplicitLocOpBuilder &b, Value stored, Value scale) const;
  /// f32 state values as stored elements. `inverse` (f32 scalar, from
  /// rowScale) for the 8-bit formats, null otherwise; `site` gives the
  /// random bits when rounding is stochastic (unused otherwise).
  Value encode(ImplicitLocOpBuilder &b, Value values, Value inverse,
               const PoolWriteSite &site) const;

  /// scales[slot, head, p].
  Value loadScale(ImplicitLocOpBuilder &b, Value slot, Value head,
                  Value p) const;
  void storeScale(ImplicitLocOpBuilder &b, Value scale, Value slot, Value head,
                  Value p) const;

  /// max(acc, |values|), NaN if any is NaN: the row maximum, accumulated.
  /// `acc` is an f32 scalar (start from 0; vector values are reduced), or a
  /// vector of values' shape kept lane by lane (start from zeros; reduce it
  /// with rowMaximum once the row is done: one instruction per block).
  Value absMax(ImplicitLocOpBuilder &b, Value acc, Value values) const;
  /// The largest of a vector of magnitudes (from absMax), NaN if any is.
  Value rowMaximum(ImplicitLocOpBuilder &b, Value magnitudes) const;
  /// Combines two partial row maxima (e.g. from another thread).
  Value combineAbsMax(ImplicitLocOpBuilder &b, Value lhs, Value rhs) const;

  struct RowScale {
    Value scale;   // stored with the row
    Value inverse; // what encode multiplies by
    Value inRange; // i1: 0 < inverse < inf, so encodeInRange applies
  };
  /// m == 0: (0, 0); m not finite: (NaN, 0); else (m / Qmax, Qmax / m).
  RowScale rowScale(ImplicitLocOpBuilder &b, Value maxAbs) const;

  /// encode(values, inverse, site) for a row whose RowScale is inRange and
  /// whose values are the ones its maximum was taken over. Then every
  /// |value * inverse| <= Qmax (1 + 2^-24)^2: finite, so none needs the
  /// per-element guard of encode, and (nearest) rounding to at most Qmax,
  /// so i8 codes need no clamp. Other formats: encode itself.
  Value encodeInRange(ImplicitLocOpBuilder &b, Value values, Value inverse,
                      const PoolWriteSite &site) const;
  /// The codes encode writes throughout a row whose RowScale is not
  /// inRange (m == 0, m not finite, or Qmax / m overflowing): +0, in
  /// `like`'s shape as stored elements.
  Value zeroCodes(ImplicitLocOpBuilder &b, Type like) const;

  /// The Philox4x32-10 word of each lane's element (i32, or a vector of i32
  /// with `lanes` lanes for columns n .. n + lanes - 1; lanes 0 = scalar):
  /// word n mod 4 of the call on counter (n / 4, ...). A vector of a
  /// multiple of 4 lanes must start at a multiple of 4 columns (every
  /// lowering's vectors do), and then costs lanes / 4 calls.
  Value randomBits(ImplicitLocOpBuilder &b, const PoolWriteSite &site,
                   int64_t lanes) const;

private:
  /// The 8-bit codes of p = value * inverse, finite; `withinQmax`: also
  /// |p| <= Qmax (1 + 2^-24)^2 (see encodeInRange).
  Value encodeScaled(ImplicitLocOpBuilder &b, Value p,
                     const PoolWriteSite &site, bool withinQmax) const;
};

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_POOLCODEC_H
