// Stochastic rounding of the pool (pool_rounding stochastic, rounding_seed)
// in the GPU serial kernel on the GPU emulator: i8 (with scales), f16 and
// bf16 pools, against values worked out from the contract
// (docs/overview.md, "Compressed state pools") with a Philox4x32-10 written
// apart from the compiler (in NumPy, checked against Random123's answer for
// counter 0, key 0: 0x6627e8d5; four columns share a call, word n mod 4). ssd-run cannot make these pools, so this
// runs the op directly.
//
// H = 1, P = 2, N = 4, A = 0, dt = 1: row p gains x[p] B[t, n] per token,
// x = [1, -0.5], B = [1/3, -2/3, 0.1, 3.7] then [0.25, 1, -4, 0] (as f32).
// Seed 0x123456789 (key (0x23456789, 1)); checkpoint_offsets 5, interval
// 1: slot 1 holds the state after local token 0 (counter tokens 6), slot 2
// after token 1 (7), the final state goes to slot 0 (o + len = 7). Slots 2
// and 0 hold the same f32 state and differ only in the counter's slot,
// e.g. i8 row 0 column 1 (10.85 -> 10 in slot 0, 11 in slot 2); to nearest
// instead, slot 1's i8 row 1 column 1 would be 23 (22.88), not 22, and its
// f16 row 0 column 3 3.69922, not 3.70117.
// RUN: ssd-opt %s --ssd-to-gpu-emulator | ssd-runner - \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s

// CHECK-NOT: error
// i8: scales, then codes of slots 0, 1, 2.
// CHECK:      [0.0307087,    0.0153543]],
// CHECK-NEXT: [0.0291339,    0.0145669]],
// CHECK-NEXT: [0.0307087,    0.0153543]]]
// CHECK:      [19,     10,     -127,     120],
// CHECK-NEXT: [-19,     -11,     127,     -121]]],
// CHECK-NEXT: [11,     -23,     3,     127],
// CHECK-NEXT: [-11,     22,     -4,     -127]]],
// CHECK-NEXT: [19,     11,     -127,     121],
// CHECK-NEXT: [-19,     -11,     127,     -120]]]]
// f16 values.
// CHECK:      [0.583008,     0.333252,     -3.90039,     3.69922],
// CHECK-NEXT: [-0.291748,     -0.166626,     1.94922,     -1.85059]]],
// CHECK-NEXT: [0.333252,     -0.666992,     0.0999756,     3.70117],
// CHECK-NEXT: [-0.166626,     0.333252,     -0.0500183,     -1.84961]]],
// CHECK-NEXT: [0.583496,     0.333252,     -3.89844,     3.70117],
// CHECK-NEXT: [-0.291748,     -0.166626,     1.9502,     -1.84961]]]]
// bf16 values.
// CHECK:      [0.582031,     0.332031,     -3.90625,     3.6875],
// CHECK-NEXT: [-0.292969,     -0.166992,     1.94531,     -1.85156]]],
// CHECK-NEXT: [0.332031,     -0.667969,     0.100098,     3.70312],
// CHECK-NEXT: [-0.166016,     0.332031,     -0.0500488,     -1.85156]]],
// CHECK-NEXT: [0.582031,     0.332031,     -3.89062,     3.70312],
// CHECK-NEXT: [-0.291016,     -0.166016,     1.95312,     -1.85156]]]]

memref.global "private" constant @x : memref<2x1x2xf32> = dense<[[[1.0, -0.5]], [[1.0, -0.5]]]>
memref.global "private" constant @B : memref<2x1x4xf32> = dense<[[[0.333333343, -0.666666686, 0.100000001, 3.70000005]], [[0.25, 1.0, -4.0, 0.0]]]>
memref.global "private" constant @dt : memref<2x1xf32> = dense<1.0>
memref.global "private" constant @A : memref<1xf32> = dense<[0.0]>
memref.global "private" constant @qsl : memref<2xi32> = dense<[0, 2]>
memref.global "private" constant @ci : memref<1xi32> = dense<[0]>
memref.global "private" constant @cs : memref<1x2xi32> = dense<[[1, 2]]>
memref.global "private" constant @co : memref<1xi32> = dense<[5]>
memref.global "private" constant @seed : memref<i64> = dense<4886718345>

func.func @main() {
  call @run_i8() : () -> ()
  call @run_f16() : () -> ()
  call @run_bf16() : () -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @run_i8() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = memref.get_global @x : memref<2x1x2xf32>
  %B = memref.get_global @B : memref<2x1x4xf32>
  %dt = memref.get_global @dt : memref<2x1xf32>
  %A = memref.get_global @A : memref<1xf32>
  %qsl = memref.get_global @qsl : memref<2xi32>
  %ci = memref.get_global @ci : memref<1xi32>
  %cs = memref.get_global @cs : memref<1x2xi32>
  %co = memref.get_global @co : memref<1xi32>
  %seed = memref.get_global @seed : memref<i64>
  %pool = gpu.alloc () : memref<3x1x2x4xi8>
  %scales = gpu.alloc () : memref<3x1x2xf32>
  %y = gpu.alloc () : memref<2x1x2xf32>
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x4xf32>) C(%B : memref<2x1x4xf32>)
      ssm_pool(%pool : memref<3x1x2x4xi8>) ssm_pool_scales(%scales : memref<3x1x2xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x2xi32>) checkpoint_offsets(%co : memref<1xi32>)
      checkpoint_interval(1) rounding_seed(%seed : memref<i64>)
      outs(%y : memref<2x1x2xf32>) {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  %hs = memref.alloca() : memref<3x1x2xf32>
  gpu.memcpy %hs, %scales : memref<3x1x2xf32>, memref<3x1x2xf32>
  %us = memref.cast %hs : memref<3x1x2xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  %hp = memref.alloca() : memref<3x1x2x4xi8>
  gpu.memcpy %hp, %pool : memref<3x1x2x4xi8>, memref<3x1x2x4xi8>
  %out = memref.alloca() : memref<3x1x2x4xi32>
  scf.for %s = %c0 to %c3 step %c1 {
    scf.for %p = %c0 to %c2 step %c1 {
      scf.for %n = %c0 to %c4 step %c1 {
        %v = memref.load %hp[%s, %c0, %p, %n] : memref<3x1x2x4xi8>
        %w = arith.extsi %v : i8 to i32
        memref.store %w, %out[%s, %c0, %p, %n] : memref<3x1x2x4xi32>
      }
    }
  }
  %u = memref.cast %out : memref<3x1x2x4xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @run_f16() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = memref.get_global @x : memref<2x1x2xf32>
  %B = memref.get_global @B : memref<2x1x4xf32>
  %dt = memref.get_global @dt : memref<2x1xf32>
  %A = memref.get_global @A : memref<1xf32>
  %qsl = memref.get_global @qsl : memref<2xi32>
  %ci = memref.get_global @ci : memref<1xi32>
  %cs = memref.get_global @cs : memref<1x2xi32>
  %co = memref.get_global @co : memref<1xi32>
  %seed = memref.get_global @seed : memref<i64>
  %pool = gpu.alloc () : memref<3x1x2x4xf16>
  %y = gpu.alloc () : memref<2x1x2xf32>
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x4xf32>) C(%B : memref<2x1x4xf32>)
      ssm_pool(%pool : memref<3x1x2x4xf16>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x2xi32>) checkpoint_offsets(%co : memref<1xi32>)
      checkpoint_interval(1) rounding_seed(%seed : memref<i64>)
      outs(%y : memref<2x1x2xf32>) {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  %hp = memref.alloca() : memref<3x1x2x4xf16>
  gpu.memcpy %hp, %pool : memref<3x1x2x4xf16>, memref<3x1x2x4xf16>
  %out = memref.alloca() : memref<3x1x2x4xf32>
  scf.for %s = %c0 to %c3 step %c1 {
    scf.for %p = %c0 to %c2 step %c1 {
      scf.for %n = %c0 to %c4 step %c1 {
        %v = memref.load %hp[%s, %c0, %p, %n] : memref<3x1x2x4xf16>
        %w = arith.extf %v : f16 to f32
        memref.store %w, %out[%s, %c0, %p, %n] : memref<3x1x2x4xf32>
      }
    }
  }
  %u = memref.cast %out : memref<3x1x2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @run_bf16() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = memref.get_global @x : memref<2x1x2xf32>
  %B = memref.get_global @B : memref<2x1x4xf32>
  %dt = memref.get_global @dt : memref<2x1xf32>
  %A = memref.get_global @A : memref<1xf32>
  %qsl = memref.get_global @qsl : memref<2xi32>
  %ci = memref.get_global @ci : memref<1xi32>
  %cs = memref.get_global @cs : memref<1x2xi32>
  %co = memref.get_global @co : memref<1xi32>
  %seed = memref.get_global @seed : memref<i64>
  %pool = gpu.alloc () : memref<3x1x2x4xbf16>
  %y = gpu.alloc () : memref<2x1x2xf32>
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x4xf32>) C(%B : memref<2x1x4xf32>)
      ssm_pool(%pool : memref<3x1x2x4xbf16>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x2xi32>) checkpoint_offsets(%co : memref<1xi32>)
      checkpoint_interval(1) rounding_seed(%seed : memref<i64>)
      outs(%y : memref<2x1x2xf32>) {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  %hp = memref.alloca() : memref<3x1x2x4xbf16>
  gpu.memcpy %hp, %pool : memref<3x1x2x4xbf16>, memref<3x1x2x4xbf16>
  %out = memref.alloca() : memref<3x1x2x4xf32>
  scf.for %s = %c0 to %c3 step %c1 {
    scf.for %p = %c0 to %c2 step %c1 {
      scf.for %n = %c0 to %c4 step %c1 {
        %v = memref.load %hp[%s, %c0, %p, %n] : memref<3x1x2x4xbf16>
        %w = arith.extf %v : bf16 to f32
        memref.store %w, %out[%s, %c0, %p, %n] : memref<3x1x2x4xf32>
      }
    }
  }
  %u = memref.cast %out : memref<3x1x2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

