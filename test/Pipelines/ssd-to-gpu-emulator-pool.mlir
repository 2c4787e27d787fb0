// 8-bit state pools (i8, f8E4M3FN with ssm_pool_scales) in the GPU serial
// kernel on the GPU emulator, against values worked out from the contract
// (docs/overview.md, "Compressed state pools") in NumPy, f32 throughout.
// ssd-run cannot make 8-bit pools, so this runs the op directly.
//
// H = 1, P = 4, N = 4, G = 1, A = 0 and dt = 1 (decay 1, d = 1): each token
// adds x[p] B[n] to row p. x = [1, -0.5, 0, NaN] per token, so row 1 is
// -0.5 row 0, row 2 stays 0 (scale 0, codes 0) and row 3 is NaN (scale NaN,
// codes 0). The first call (no initial state, slot 0, checkpoints after
// each token into slots 1 and 2) adds B = [1, -2, 0.5, 3] then
// [0.25, 1, -4, 0]:
//   slot 1, row 0 = [1, -2, 0.5, 3]: m = 3 (lane 3), scale = 3/127, codes
//     round(v * 127/3) = [42, -85, 21, 127] (i8); f8E4M3FN codes of
//     v * 448/3 = [149.3, -298.7, 74.7, 448] -> 144 (0x71), -288 (0xF9),
//     72 (0x69), 448 (0x7E);
//   slots 2 and 0, row 0 = [1.25, -1, -3.5, 3]: m = 3.5 (lane 2).
// The second call reads slot 0 (code * scale), adds [0.5, 0.5, 0.5, -0.5]
// and writes slot 0 and the checkpoint slot 3, re-encoded.
// Then one row of N = 128 (four columns a lane, the row's maximum 8 in lane
// 17): its scale 8/127 needs the maximum over all 32 lanes; 1 -> 16,
// -5 -> -79, 8 -> 127.
// RUN: ssd-opt %s --ssd-to-gpu-emulator | ssd-runner - \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s

// CHECK-NOT: error
// i8, after the first call: scales, then codes of slots 0 to 3 (slot 3 not
// written yet).
// CHECK:      [0.0275591,    0.0137795,    0,    nan]],
// CHECK-NEXT: [0.023622,    0.011811,    0,    nan]],
// CHECK-NEXT: [0.0275591,    0.0137795,    0,    nan]],
// CHECK:      [45,     -36,     -127,     109],
// CHECK-NEXT: [-45,     36,     127,     -109],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [42,     -85,     21,     127],
// CHECK-NEXT: [-42,     85,     -21,     -127],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [45,     -36,     -127,     109],
// CHECK-NEXT: [-45,     36,     127,     -109],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// i8, after the second call.
// CHECK:      [0.023622,    0.011811,    0,    nan]],
// CHECK-NEXT: [0.023622,    0.011811,    0,    nan]],
// CHECK-NEXT: [0.0275591,    0.0137795,    0,    nan]],
// CHECK-NEXT: [0.023622,    0.011811,    0,    nan]]]
// CHECK:      [74,     -21,     -127,     106],
// CHECK-NEXT: [-74,     21,     127,     -106],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [42,     -85,     21,     127],
// CHECK:      [45,     -36,     -127,     109],
// CHECK:      [74,     -21,     -127,     106],
// CHECK-NEXT: [-74,     21,     127,     -106],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]]]
// f8E4M3FN (codes as unsigned bytes), after the first call.
// CHECK:      [0.0078125,    0.00390625,    0,    nan]],
// CHECK-NEXT: [0.00669643,    0.00334821,    0,    nan]],
// CHECK-NEXT: [0.0078125,    0.00390625,    0,    nan]],
// CHECK:      [114,     240,     254,     124],
// CHECK-NEXT: [242,     112,     126,     252],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [113,     249,     105,     126],
// CHECK-NEXT: [241,     121,     233,     254],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [114,     240,     254,     124],
// CHECK-NEXT: [242,     112,     126,     252],
// f8E4M3FN, after the second call.
// CHECK:      [0.00669643,    0.00334821,    0,    nan]],
// CHECK-NEXT: [0.00669643,    0.00334821,    0,    nan]],
// CHECK-NEXT: [0.0078125,    0.00390625,    0,    nan]],
// CHECK-NEXT: [0.00669643,    0.00334821,    0,    nan]]]
// CHECK:      [120,     233,     254,     124],
// CHECK-NEXT: [248,     105,     126,     252],
// CHECK-NEXT: [0,     0,     0,     0],
// CHECK-NEXT: [0,     0,     0,     0]]],
// CHECK-NEXT: [113,     249,     105,     126],
// CHECK:      [114,     240,     254,     124],
// CHECK:      [120,     233,     254,     124],
// CHECK-NEXT: [248,     105,     126,     252],
// The row of 128.
// CHECK:      [0.0629921]]]
// CHECK:      [16,  16,  16,  -79,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  127,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16,  16]

memref.global "private" constant @x1 : memref<2x1x4xf32> = dense<[[[1.0, -0.5, 0.0, 0x7FC00000]], [[1.0, -0.5, 0.0, 0x7FC00000]]]>
memref.global "private" constant @B1 : memref<2x1x4xf32> = dense<[[[1.0, -2.0, 0.5, 3.0]], [[0.25, 1.0, -4.0, 0.0]]]>
memref.global "private" constant @dt1 : memref<2x1xf32> = dense<1.0>
memref.global "private" constant @qsl1 : memref<2xi32> = dense<[0, 2]>
memref.global "private" constant @cs1 : memref<1x2xi32> = dense<[[1, 2]]>
memref.global "private" constant @x2 : memref<1x1x4xf32> = dense<[[[1.0, -0.5, 0.0, 0x7FC00000]]]>
memref.global "private" constant @B2 : memref<1x1x4xf32> = dense<[[[0.5, 0.5, 0.5, -0.5]]]>
memref.global "private" constant @dt2 : memref<1x1xf32> = dense<1.0>
memref.global "private" constant @qsl2 : memref<2xi32> = dense<[0, 1]>
memref.global "private" constant @cs2 : memref<1x1xi32> = dense<[[3]]>
memref.global "private" constant @A : memref<1xf32> = dense<[0.0]>
memref.global "private" constant @ci : memref<1xi32> = dense<[0]>
memref.global "private" constant @init : memref<1xi1> = dense<[true]>
memref.global "private" constant @xw : memref<1x1x1xf32> = dense<1.0>
memref.global "private" constant @dtw : memref<1x1xf32> = dense<1.0>

func.func @main() {
  call @run_i8() : () -> ()
  call @run_f8() : () -> ()
  call @run_wide() : () -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @run_i8() {
  %x1 = memref.get_global @x1 : memref<2x1x4xf32>
  %B1 = memref.get_global @B1 : memref<2x1x4xf32>
  %dt1 = memref.get_global @dt1 : memref<2x1xf32>
  %qsl1 = memref.get_global @qsl1 : memref<2xi32>
  %cs1 = memref.get_global @cs1 : memref<1x2xi32>
  %x2 = memref.get_global @x2 : memref<1x1x4xf32>
  %B2 = memref.get_global @B2 : memref<1x1x4xf32>
  %dt2 = memref.get_global @dt2 : memref<1x1xf32>
  %qsl2 = memref.get_global @qsl2 : memref<2xi32>
  %cs2 = memref.get_global @cs2 : memref<1x1xi32>
  %A = memref.get_global @A : memref<1xf32>
  %ci = memref.get_global @ci : memref<1xi32>
  %init = memref.get_global @init : memref<1xi1>
  %pool = gpu.alloc () : memref<4x1x4x4xi8>
  %scales = gpu.alloc () : memref<4x1x4xf32>
  %y1 = gpu.alloc () : memref<2x1x4xf32>
  %y2 = gpu.alloc () : memref<1x1x4xf32>
  ssd.chunk_scan_varlen x(%x1 : memref<2x1x4xf32>) dt(%dt1 : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B1 : memref<2x1x4xf32>) C(%B1 : memref<2x1x4xf32>)
      ssm_pool(%pool : memref<4x1x4x4xi8>) ssm_pool_scales(%scales : memref<4x1x4xf32>)
      query_start_loc(%qsl1 : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs1 : memref<1x2xi32>) checkpoint_interval(1)
      outs(%y1 : memref<2x1x4xf32>) {form = #ssd<form serial>}
  call @print_i8(%pool, %scales) : (memref<4x1x4x4xi8>, memref<4x1x4xf32>) -> ()
  ssd.chunk_scan_varlen x(%x2 : memref<1x1x4xf32>) dt(%dt2 : memref<1x1xf32>) A(%A : memref<1xf32>)
      B(%B2 : memref<1x1x4xf32>) C(%B2 : memref<1x1x4xf32>)
      ssm_pool(%pool : memref<4x1x4x4xi8>) ssm_pool_scales(%scales : memref<4x1x4xf32>)
      query_start_loc(%qsl2 : memref<2xi32>) has_initial_state(%init : memref<1xi1>)
      cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs2 : memref<1x1xi32>) checkpoint_interval(1)
      outs(%y2 : memref<1x1x4xf32>) {form = #ssd<form serial>}
  call @print_i8(%pool, %scales) : (memref<4x1x4x4xi8>, memref<4x1x4xf32>) -> ()
  return
}

func.func @print_i8(%pool: memref<4x1x4x4xi8>, %scales: memref<4x1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %hs = memref.alloca() : memref<4x1x4xf32>
  gpu.memcpy %hs, %scales : memref<4x1x4xf32>, memref<4x1x4xf32>
  %us = memref.cast %hs : memref<4x1x4xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  %hp = memref.alloca() : memref<4x1x4x4xi8>
  gpu.memcpy %hp, %pool : memref<4x1x4x4xi8>, memref<4x1x4x4xi8>
  %codes = memref.alloca() : memref<4x1x4x4xi32>
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %p = %c0 to %c4 step %c1 {
      scf.for %n = %c0 to %c4 step %c1 {
        %v = memref.load %hp[%s, %c0, %p, %n] : memref<4x1x4x4xi8>
        %w = arith.extsi %v : i8 to i32
        memref.store %w, %codes[%s, %c0, %p, %n] : memref<4x1x4x4xi32>
      }
    }
  }
  %uc = memref.cast %codes : memref<4x1x4x4xi32> to memref<*xi32>
  call @printMemrefI32(%uc) : (memref<*xi32>) -> ()
  return
}
func.func @run_f8() {
  %x1 = memref.get_global @x1 : memref<2x1x4xf32>
  %B1 = memref.get_global @B1 : memref<2x1x4xf32>
  %dt1 = memref.get_global @dt1 : memref<2x1xf32>
  %qsl1 = memref.get_global @qsl1 : memref<2xi32>
  %cs1 = memref.get_global @cs1 : memref<1x2xi32>
  %x2 = memref.get_global @x2 : memref<1x1x4xf32>
  %B2 = memref.get_global @B2 : memref<1x1x4xf32>
  %dt2 = memref.get_global @dt2 : memref<1x1xf32>
  %qsl2 = memref.get_global @qsl2 : memref<2xi32>
  %cs2 = memref.get_global @cs2 : memref<1x1xi32>
  %A = memref.get_global @A : memref<1xf32>
  %ci = memref.get_global @ci : memref<1xi32>
  %init = memref.get_global @init : memref<1xi1>
  %pool = gpu.alloc () : memref<4x1x4x4xf8E4M3FN>
  %scales = gpu.alloc () : memref<4x1x4xf32>
  %y1 = gpu.alloc () : memref<2x1x4xf32>
  %y2 = gpu.alloc () : memref<1x1x4xf32>
  ssd.chunk_scan_varlen x(%x1 : memref<2x1x4xf32>) dt(%dt1 : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B1 : memref<2x1x4xf32>) C(%B1 : memref<2x1x4xf32>)
      ssm_pool(%pool : memref<4x1x4x4xf8E4M3FN>) ssm_pool_scales(%scales : memref<4x1x4xf32>)
      query_start_loc(%qsl1 : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs1 : memref<1x2xi32>) checkpoint_interval(1)
      outs(%y1 : memref<2x1x4xf32>) {form = #ssd<form serial>}
  call @print_f8(%pool, %scales) : (memref<4x1x4x4xf8E4M3FN>, memref<4x1x4xf32>) -> ()
  ssd.chunk_scan_varlen x(%x2 : memref<1x1x4xf32>) dt(%dt2 : memref<1x1xf32>) A(%A : memref<1xf32>)
      B(%B2 : memref<1x1x4xf32>) C(%B2 : memref<1x1x4xf32>)
      ssm_pool(%pool : memref<4x1x4x4xf8E4M3FN>) ssm_pool_scales(%scales : memref<4x1x4xf32>)
      query_start_loc(%qsl2 : memref<2xi32>) has_initial_state(%init : memref<1xi1>)
      cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs2 : memref<1x1xi32>) checkpoint_interval(1)
      outs(%y2 : memref<1x1x4xf32>) {form = #ssd<form serial>}
  call @print_f8(%pool, %scales) : (memref<4x1x4x4xf8E4M3FN>, memref<4x1x4xf32>) -> ()
  return
}

func.func @print_f8(%pool: memref<4x1x4x4xf8E4M3FN>, %scales: memref<4x1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %hs = memref.alloca() : memref<4x1x4xf32>
  gpu.memcpy %hs, %scales : memref<4x1x4xf32>, memref<4x1x4xf32>
  %us = memref.cast %hs : memref<4x1x4xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  %hp = memref.alloca() : memref<4x1x4x4xf8E4M3FN>
  gpu.memcpy %hp, %pool : memref<4x1x4x4xf8E4M3FN>, memref<4x1x4x4xf8E4M3FN>
  %codes = memref.alloca() : memref<4x1x4x4xi32>
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %p = %c0 to %c4 step %c1 {
      scf.for %n = %c0 to %c4 step %c1 {
        %v = memref.load %hp[%s, %c0, %p, %n] : memref<4x1x4x4xf8E4M3FN>
        %b = arith.bitcast %v : f8E4M3FN to i8
        %w = arith.extui %b : i8 to i32
        memref.store %w, %codes[%s, %c0, %p, %n] : memref<4x1x4x4xi32>
      }
    }
  }
  %uc = memref.cast %codes : memref<4x1x4x4xi32> to memref<*xi32>
  call @printMemrefI32(%uc) : (memref<*xi32>) -> ()
  return
}

func.func @run_wide() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %x = memref.get_global @xw : memref<1x1x1xf32>
  %one = arith.constant 1.0 : f32
  %big = arith.constant 8.0 : f32
  %neg = arith.constant -5.0 : f32
  %c3 = arith.constant 3 : index
  %c70 = arith.constant 70 : index
  %Bh = memref.alloca() : memref<1x1x128xf32>
  scf.for %n = %c0 to %c128 step %c1 {
    memref.store %one, %Bh[%c0, %c0, %n] : memref<1x1x128xf32>
  }
  memref.store %big, %Bh[%c0, %c0, %c70] : memref<1x1x128xf32>
  memref.store %neg, %Bh[%c0, %c0, %c3] : memref<1x1x128xf32>
  %B = gpu.alloc () : memref<1x1x128xf32>
  gpu.memcpy %B, %Bh : memref<1x1x128xf32>, memref<1x1x128xf32>
  %dt = memref.get_global @dtw : memref<1x1xf32>
  %qsl = memref.get_global @qsl2 : memref<2xi32>
  %A = memref.get_global @A : memref<1xf32>
  %ci = memref.get_global @ci : memref<1xi32>
  %pool = gpu.alloc () : memref<1x1x1x128xi8>
  %scales = gpu.alloc () : memref<1x1x1xf32>
  %y = gpu.alloc () : memref<1x1x1xf32>
  ssd.chunk_scan_varlen x(%x : memref<1x1x1xf32>) dt(%dt : memref<1x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<1x1x128xf32>) C(%B : memref<1x1x128xf32>)
      ssm_pool(%pool : memref<1x1x1x128xi8>) ssm_pool_scales(%scales : memref<1x1x1xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      outs(%y : memref<1x1x1xf32>) {form = #ssd<form serial>}
  %hs = memref.alloca() : memref<1x1x1xf32>
  gpu.memcpy %hs, %scales : memref<1x1x1xf32>, memref<1x1x1xf32>
  %us = memref.cast %hs : memref<1x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  %hp = memref.alloca() : memref<1x1x1x128xi8>
  gpu.memcpy %hp, %pool : memref<1x1x1x128xi8>, memref<1x1x1x128xi8>
  %codes = memref.alloca() : memref<128xi32>
  scf.for %n = %c0 to %c128 step %c1 {
    %v = memref.load %hp[%c0, %c0, %c0, %n] : memref<1x1x1x128xi8>
    %w = arith.extsi %v : i8 to i32
    memref.store %w, %codes[%n] : memref<128xi32>
  }
  %uc = memref.cast %codes : memref<128xi32> to memref<*xi32>
  call @printMemrefI32(%uc) : (memref<*xi32>) -> ()
  return
}
