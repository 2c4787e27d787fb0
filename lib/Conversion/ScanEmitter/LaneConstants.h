//===- LaneConstants.h - constants in the shape of a value ------*- C++ -*-===//
//
// The scalar-or-vector helpers of the builders that emit exact bit-level
// f32 arithmetic lane by lane (CanonicalExpLog1p.cpp, PoolCodec.cpp): a
// type's twin with another element type, and a constant of a type's shape.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_CONVERSION_SCANEMITTER_LANECONSTANTS_H
#define SSD_LIB_CONVERSION_SCANEMITTER_LANECONSTANTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir {
namespace ssd {
namespace detail {

/// `like` with element type `element` (a vector stays a vector of the same
/// shape, a scalar becomes `element`).
inline Type withElementType(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

/// A constant of `like`'s shape whose every lane holds `scalar` (its element
/// type is the scalar's).
inline Value constantOfShape(ImplicitLocOpBuilder &b, Type like,
                             TypedAttr scalar) {
  Type type = withElementType(like, scalar.getType());
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, DenseElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, scalar);
}

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SCANEMITTER_LANECONSTANTS_H
