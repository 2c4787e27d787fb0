// RUN: ssd-opt %s --ssd-expand-float-conversions --split-input-file --verify-diagnostics | FileCheck %s

// f32 -> f16: the three cases of the rounding (overflow or NaN, subnormal by
// an f32 addition of 0.5, normal by rebias and round to nearest even),
// selected, the sign put back, and the i16 reinterpreted. No truncf remains.
// CHECK-LABEL: func.func @trunc_f16
// CHECK-NOT:     arith.truncf
// CHECK-DAG:     %[[NAN_HALF:.*]] = arith.constant 32256 : i32
// CHECK-DAG:     %[[INF_HALF:.*]] = arith.constant 31744 : i32
// CHECK-DAG:     %[[TWO_16:.*]] = arith.constant 1199570944 : i32
// CHECK-DAG:     %[[MIN_NORMAL:.*]] = arith.constant 947912704 : i32
// CHECK-DAG:     %[[REBIAS_ROUND:.*]] = arith.constant -939520001 : i32
// CHECK-DAG:     %[[ABS_MASK:.*]] = arith.constant 2147483647 : i32
// CHECK:         %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:         %[[MAG:.*]] = arith.andi %[[BITS]], %[[ABS_MASK]]
// CHECK:         arith.select %{{.*}}, %[[NAN_HALF]], %[[INF_HALF]] : i32
// CHECK:         arith.cmpi uge, %[[MAG]], %[[TWO_16]] : i32
// CHECK:         arith.addf %{{.*}} : f32
// CHECK:         arith.cmpi ult, %[[MAG]], %[[MIN_NORMAL]] : i32
// CHECK:         arith.addi %[[MAG]], %[[REBIAS_ROUND]] : i32
// CHECK:         %[[NARROW:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK:         %[[HALF:.*]] = arith.bitcast %[[NARROW]] : i16 to f16
// CHECK:         return %[[HALF]]
func.func @trunc_f16(%a: f32) -> f16 {
  %0 = arith.truncf %a : f32 to f16
  return %0 : f16
}

// -----

// Vectors keep their shape; explicit round-to-nearest-even is the same.
// CHECK-LABEL: func.func @trunc_f16_vector
// CHECK-NOT:     arith.truncf
// CHECK:         arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK:         arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK:         arith.bitcast %{{.*}} : vector<8xi16> to vector<8xf16>
func.func @trunc_f16_vector(%a: vector<8xf32>) -> vector<8xf16> {
  %0 = arith.truncf %a to_nearest_even : vector<8xf32> to vector<8xf16>
  return %0 : vector<8xf16>
}

// -----

// f16 -> f32: rebias (+112 << 23), infinities and NaNs (+224 << 23), zero and
// subnormals through an exact f32 subtraction of 2^-14; f64 through f32.
// CHECK-LABEL: func.func @ext_f16
// CHECK-NOT:     arith.extf %{{.*}} : f16
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 939524096 : i32
// CHECK-DAG:     %[[SPECIAL:.*]] = arith.constant 1879048192 : i32
// CHECK-DAG:     %[[MIN_NORMAL:.*]] = arith.constant 6.10351563E-5 : f32
// CHECK:         arith.extui %{{.*}} : i16 to i32
// CHECK:         arith.addi %{{.*}}, %[[REBIAS]] : i32
// CHECK:         arith.addi %{{.*}}, %[[SPECIAL]] : i32
// CHECK:         arith.subf %{{.*}}, %[[MIN_NORMAL]] : f32
// CHECK:         %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:         %[[F64:.*]] = arith.extf %[[F32]] : f32 to f64
// CHECK:         return %[[F64]]
func.func @ext_f16(%h: f16) -> f64 {
  %0 = arith.extf %h : f16 to f64
  return %0 : f64
}

// -----

// bf16 in both directions through upstream's patterns.
// CHECK-LABEL: func.func @bf16
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK:         arith.shli %{{.*}} : i32
// CHECK:         arith.trunci %{{.*}} : i32 to i16
func.func @bf16(%a: bf16, %b: f32) -> (f32, bf16) {
  %0 = arith.extf %a : bf16 to f32
  %1 = arith.truncf %b : f32 to bf16
  return %0, %1 : f32, bf16
}

// -----

// Conversions with no exact expansion are errors, not libcalls left behind.
func.func @from_f64(%a: f64) -> f16 {
  // expected-error @below {{no exact expansion of this 16-bit float conversion}}
  %0 = arith.truncf %a : f64 to f16
  return %0 : f16
}

// -----

func.func @directed_rounding(%a: f32) -> bf16 {
  // expected-error @below {{no exact expansion of this 16-bit float conversion}}
  %0 = arith.truncf %a upward : f32 to bf16
  return %0 : bf16
}
