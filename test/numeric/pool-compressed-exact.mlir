// Compressed pools through --ssd-to-cpu in the three CPU loop nests
// (serial, chunked, invariant), with codes and scales computed by hand
// (docs/overview.md, "Compressed state pools"). H = 1, P = 2, N = 4, A = 0
// and dt = 1, so the decay is 1 and a one-token sequence without an initial
// state stores exactly x[t, 0, p] B[t, 0, :]: row 0 is B's row, row 1 that
// times x1. Sequences 0..3 (one token each) write slots 0..3:
//   0 ties: i8 [127, 2.5, -3.5, 0.5] (scale 1: codes 127, 2, -4, 0), x1 = -2
//     (scale 2, codes -127, -2, 4, 0: -0.5 rounds to 0, -254 saturates at
//     -Qmax); f8E4M3FN [448, 12.5, -13.5, 2.5 * 2^-9] (scale 1: 0x7E = 448,
//     0x54 = 12, 0xD6 = -14, subnormal 0x02), x1 = -2 (0xFE, 0xD4, 0x56,
//     0x82); f16 [1 + 2^-11, 1 + 3 2^-11, 70000, 3 2^-25] (0x3C00, 0x3C02,
//     inf 0x7C00, 0x0002), x1 = -1; bf16 [1 + 2^-8, 1 + 3 2^-8, ...]
//     (0x3F80, 0x3F82, ...);
//   1 a zero row: scale 0, codes 0;
//   2 [1, inf, -2, 3], x1 = 0 (row 1 is [0, NaN, -0, 0]): 8-bit rows get
//     scale NaN and codes 0 (0x00, also for the negative values); f16 and
//     bf16 rows [inf, -inf, 65520, -65519] / [inf, -inf, 3.4e38, -1e-39]
//     overflow to inf (65520, a tie, goes to the even inf);
//   3 [100, 37, -0.3, 1], x1 = 0.5: scale m / Qmax, codes round(v * Qmax / m)
//     in f32 (i8: 127, 47, 0, 1; f8E4M3FN: 0x7E, 0x72, 0xBB, 0x49).
// Sequence 4 reads slot 4 (codes and scale set before the call; i8 row 0:
// [127, -1, 0, 64] at 0.5, f8E4M3FN row 0: [0x7E, 0x01 (2^-9), 0x80 (-0),
// 0x38 (1)] at 0.25, row 1 holds the NaN code 0x7F) over four tokens with
// x = 0 and C = e_k, so y[4 + k, 0, 0] is row 0's value k as read, and
// writes the state back: re-encoded (the NaN row gets scale NaN, codes 0).
// The stochastic call (i8): one sequence of 2 tokens, x = (1, 2),
// checkpoint_offsets o = 5, interval 1, checkpoint slots [0, 1] and final
// slot 2; states [127, 0.25, -10.75, 3.5] then [127, 0.75, -10.5, 3.375]
// (row 1 twice that: scale 2, the same products). Each code is
// floor(|p|) + (u < frac(|p|)) with u = (bits >> 8) 2^-24 and bits word
// n mod 4 of Philox4x32-10 (counter (n div 4, p, slot, tokens held): 6, 7
// and o + len = 7; key the seed 0x0123456789ABCDEF's halves), drawn by an
// independent Python Philox checked against the Random123 known answers:
// e.g. slot 1 row 0 n = 1: 0.75 rounds up (bits 0x729f2648), slot 0 row 1
// n = 3: 3.5 rounds down (bits 0xa49040e4), row 0 n = 3 up (0x2a8da09c),
// where nearest-even gives 1 and 4 and 4.
// TARGETS: cpu
// RUN: sed 's/FORM/form = #ssd<form serial>/' %s | ssd-opt --ssd-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s
// RUN: sed 's/FORM/form = #ssd<form chunked>, chunk_size = 2/' %s | ssd-opt --ssd-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s
// RUN: sed -e 's/FORM/form = #ssd<form serial>/' -e 's/ssd.chunk_scan_varlen x/ssd.chunk_scan_varlen invariant x/' %s \
// RUN:   | ssd-opt --ssd-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s

// i8:
// CHECK:      sizes = [40]
// CHECK-NEXT: [127,  2,  -4,  0,  -127,  -2,  4,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  127,  47,  0,  1,  127,  47,  0,  1,  127,  -1,  0,  64,  -127,  5,  3,  0]
// CHECK:      sizes = [10]
// CHECK-NEXT: [1,  2,  0,  0,  nan,  nan,  0.787402,  0.393701,  0.5,  3]
// CHECK:      sizes = [4]
// CHECK-NEXT: [63.5,  -0.5,  0,  32]
// f8:
// CHECK:      sizes = [40]
// CHECK-NEXT: [126,  84,  214,  2,  254,  212,  86,  130,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  126,  114,  187,  73,  126,  114,  187,  73,  126,  1,  0,  56,  0,  0,  0,  0]
// CHECK:      sizes = [10]
// CHECK-NEXT: [1,  2,  0,  0,  nan,  nan,  0.223214,  0.111607,  0.25,  nan]
// CHECK:      sizes = [4]
// CHECK-NEXT: [112,  0.000488281,  0,  0.25]
// f16:
// CHECK:      sizes = [40]
// CHECK-NEXT: [15360,  15362,  31744,  2,  48128,  48130,  64512,  32770,  0,  0,  0,  0,  0,  0,  0,  0,  31744,  64512,  31744,  64511,  31744,  64512,  11264,  44031,  22080,  2,  49736,  11878,  21056,  1,  48712,  10854,  15361,  1,  0,  31743,  64512,  16384,  15360,  0]
// CHECK:      sizes = [4]
// CHECK-NEXT: [1.00098,  5.96046e-08,  0,  65504]
// bf16:
// CHECK:      sizes = [40]
// CHECK-NEXT: [16256,  16258,  32610,  1,  49024,  49026,  65378,  32769,  0,  0,  0,  0,  0,  0,  0,  0,  32640,  65408,  32640,  32779,  32640,  65408,  30080,  32768,  17096,  13271,  49225,  15821,  16968,  13143,  49097,  15693,  16257,  1,  0,  32639,  65408,  16384,  16256,  0]
// CHECK:      sizes = [4]
// CHECK-NEXT: [1.00781,  9.18355e-41,  0,  3.38953e+38]
// stochastic i8:
// CHECK:      sizes = [32]
// CHECK-NEXT: [127,  0,  -11,  4,  127,  0,  -11,  3,  127,  1,  -10,  3,  127,  1,  -11,  3,  127,  1,  -11,  3,  127,  1,  -11,  3,  77,  77,  77,  77,  77,  77,  77,  77]
// CHECK:      sizes = [8]
// CHECK-NEXT: [1,  2,  1,  2,  1,  2,  -1,  -1]

!x = memref<8x1x2xf32>
!dt = memref<8x1xf32>
!bc = memref<8x1x4xf32>

memref.global "private" constant @ones : !dt = dense<1.0>
memref.global "private" constant @zeroA : memref<1xf32> = dense<0.0>
memref.global "private" constant @C : !bc = dense<[[[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]],
    [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[1.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0]],
    [[0.0, 0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]]]>
memref.global "private" constant @qsl : memref<6xi32> = dense<[0, 1, 2, 3, 4, 8]>
memref.global "private" constant @his : memref<5xi1> = dense<[false, false, false, false, true]>
memref.global "private" constant @ci : memref<5xi32> = dense<[0, 1, 2, 3, 4]>
memref.global "private" constant @ones_st : memref<2x1xf32> = dense<1.0>
memref.global "private" constant @qsl_st : memref<2xi32> = dense<[0, 2]>
memref.global "private" constant @his_st : memref<1xi1> = dense<false>
memref.global "private" constant @ci_st : memref<1xi32> = dense<2>
memref.global "private" constant @cs_st : memref<1x2xi32> = dense<[[0, 1]]>
memref.global "private" constant @co_st : memref<1xi32> = dense<5>
// 0x0123456789ABCDEF
memref.global "private" constant @seed : memref<i64> = dense<81985529216486895>

memref.global "private" constant @x_i8 : memref<8x1x2xf32> = dense<[[[1.0, -2.0]], [[1.0, 1.0]], [[1.0, 0.0]], [[1.0, 0.5]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]]]>
memref.global "private" constant @B_i8 : memref<8x1x4xf32> = dense<[[[127.0, 2.5, -3.5, 0.5]], [[0.0, 0.0, 0.0, 0.0]], [[1.0, 0x7F800000, -2.0, 3.0]], [[100.0, 37.0, 0xBE99999A, 1.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]]>
memref.global "private" constant @pool0_i8 : memref<5x1x2x4xi8> = dense<[[[[99, 99, 99, 99], [99, 99, 99, 99]]], [[[99, 99, 99, 99], [99, 99, 99, 99]]], [[[99, 99, 99, 99], [99, 99, 99, 99]]], [[[99, 99, 99, 99], [99, 99, 99, 99]]], [[[127, -1, 0, 64], [-127, 5, 3, 0]]]]>
memref.global "private" constant @scales0_i8 : memref<5x1x2xf32> = dense<[[[-1.0, -1.0]], [[-1.0, -1.0]], [[-1.0, -1.0]], [[-1.0, -1.0]], [[0.5, 3.0]]]>
memref.global "private" constant @x_f8 : memref<8x1x2xf32> = dense<[[[1.0, -2.0]], [[1.0, 1.0]], [[1.0, 0.0]], [[1.0, 0.5]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]]]>
memref.global "private" constant @B_f8 : memref<8x1x4xf32> = dense<[[[448.0, 12.5, -13.5, 0x3BA00000]], [[0.0, 0.0, 0.0, 0.0]], [[1.0, 0x7F800000, -2.0, 3.0]], [[100.0, 37.0, 0xBE99999A, 1.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]]>
memref.global "private" constant @pool0_f8 : memref<5x1x2x4xf8E4M3FN> = dense<[[[[0x11, 0x11, 0x11, 0x11], [0x11, 0x11, 0x11, 0x11]]], [[[0x11, 0x11, 0x11, 0x11], [0x11, 0x11, 0x11, 0x11]]], [[[0x11, 0x11, 0x11, 0x11], [0x11, 0x11, 0x11, 0x11]]], [[[0x11, 0x11, 0x11, 0x11], [0x11, 0x11, 0x11, 0x11]]], [[[0x7E, 0x1, 0x80, 0x38], [0x7F, 0x7, 0xB8, 0x8]]]]>
memref.global "private" constant @scales0_f8 : memref<5x1x2xf32> = dense<[[[-1.0, -1.0]], [[-1.0, -1.0]], [[-1.0, -1.0]], [[-1.0, -1.0]], [[0.25, 2.0]]]>
memref.global "private" constant @x_f16 : memref<8x1x2xf32> = dense<[[[1.0, -1.0]], [[1.0, 1.0]], [[1.0, 0x35800000]], [[1.0, 0.5]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]]]>
memref.global "private" constant @B_f16 : memref<8x1x4xf32> = dense<[[[0x3F801000, 0x3F803000, 70000.0, 0x33C00000]], [[0.0, 0.0, 0.0, 0.0]], [[0x7F800000, 0xFF800000, 65520.0, -65519.0]], [[0x42C80F5C, 0x33D6BF95, 0xC0490FD0, 0x3DCCCCCD]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]]>
memref.global "private" constant @pool0_f16 : memref<5x1x2x4xf16> = dense<[[[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x3C01, 0x1, 0x8000, 0x7BFF], [0xFC00, 0x4000, 0x3C00, 0x0]]]]>
memref.global "private" constant @x_bf16 : memref<8x1x2xf32> = dense<[[[1.0, -1.0]], [[1.0, 1.0]], [[1.0, 0x35800000]], [[1.0, 0.5]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.0]]]>
memref.global "private" constant @B_bf16 : memref<8x1x4xf32> = dense<[[[1.00390625, 1.01171875, 0x7F61B1E6, 0x000116C2]], [[0.0, 0.0, 0.0, 0.0]], [[0x7F800000, 0xFF800000, 0x7F7FC99E, 0x800AE398]], [[0x42C80F5C, 0x33D6BF95, 0xC0490FD0, 0x3DCCCCCD]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]]>
memref.global "private" constant @pool0_bf16 : memref<5x1x2x4xbf16> = dense<[[[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x1111, 0x1111, 0x1111, 0x1111], [0x1111, 0x1111, 0x1111, 0x1111]]], [[[0x3F81, 0x1, 0x8000, 0x7F7F], [0xFF80, 0x4000, 0x3F80, 0x0]]]]>

memref.global "private" constant @x_st : memref<2x1x2xf32> = dense<[[[1.0, 2.0]], [[1.0, 2.0]]]>
memref.global "private" constant @B_st : memref<2x1x4xf32> = dense<[[[127.0, 0.25, -10.75, 3.5]], [[0.0, 0.5, 0.25, -0.125]]]>

func.func @scan_i8(%x: !x, %dt: !dt, %A: memref<1xf32>, %B: !bc, %C: !bc,
    %pool: memref<5x1x2x4xi8>, %scales: memref<5x1x2xf32>, %qsl: memref<6xi32>, %his: memref<5xi1>,
    %ci: memref<5xi32>, %y: !x) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : !dt) A(%A : memref<1xf32>)
      B(%B : !bc) C(%C : !bc) ssm_pool(%pool : memref<5x1x2x4xi8>) ssm_pool_scales(%scales : memref<5x1x2xf32>)
      query_start_loc(%qsl : memref<6xi32>) has_initial_state(%his : memref<5xi1>)
      cache_indices(%ci : memref<5xi32>) outs(%y : !x) {FORM}
  return
}

func.func @scan_f8(%x: !x, %dt: !dt, %A: memref<1xf32>, %B: !bc, %C: !bc,
    %pool: memref<5x1x2x4xf8E4M3FN>, %scales: memref<5x1x2xf32>, %qsl: memref<6xi32>, %his: memref<5xi1>,
    %ci: memref<5xi32>, %y: !x) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : !dt) A(%A : memref<1xf32>)
      B(%B : !bc) C(%C : !bc) ssm_pool(%pool : memref<5x1x2x4xf8E4M3FN>) ssm_pool_scales(%scales : memref<5x1x2xf32>)
      query_start_loc(%qsl : memref<6xi32>) has_initial_state(%his : memref<5xi1>)
      cache_indices(%ci : memref<5xi32>) outs(%y : !x) {FORM}
  return
}

func.func @scan_f16(%x: !x, %dt: !dt, %A: memref<1xf32>, %B: !bc, %C: !bc,
    %pool: memref<5x1x2x4xf16>, %qsl: memref<6xi32>, %his: memref<5xi1>,
    %ci: memref<5xi32>, %y: !x) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : !dt) A(%A : memref<1xf32>)
      B(%B : !bc) C(%C : !bc) ssm_pool(%pool : memref<5x1x2x4xf16>)
      query_start_loc(%qsl : memref<6xi32>) has_initial_state(%his : memref<5xi1>)
      cache_indices(%ci : memref<5xi32>) outs(%y : !x) {FORM}
  return
}

func.func @scan_bf16(%x: !x, %dt: !dt, %A: memref<1xf32>, %B: !bc, %C: !bc,
    %pool: memref<5x1x2x4xbf16>, %qsl: memref<6xi32>, %his: memref<5xi1>,
    %ci: memref<5xi32>, %y: !x) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : !dt) A(%A : memref<1xf32>)
      B(%B : !bc) C(%C : !bc) ssm_pool(%pool : memref<5x1x2x4xbf16>)
      query_start_loc(%qsl : memref<6xi32>) has_initial_state(%his : memref<5xi1>)
      cache_indices(%ci : memref<5xi32>) outs(%y : !x) {FORM}
  return
}

func.func @run_i8() {
  %x = memref.get_global @x_i8 : !x
  %B = memref.get_global @B_i8 : !bc
  %pool0 = memref.get_global @pool0_i8 : memref<5x1x2x4xi8>
  %pool = memref.alloc() : memref<5x1x2x4xi8>
  memref.copy %pool0, %pool : memref<5x1x2x4xi8> to memref<5x1x2x4xi8>
  %scales0 = memref.get_global @scales0_i8 : memref<5x1x2xf32>
  %scales = memref.alloc() : memref<5x1x2xf32>
  memref.copy %scales0, %scales : memref<5x1x2xf32> to memref<5x1x2xf32>
  %y = memref.alloc() : !x
  %dt = memref.get_global @ones : !dt
  %A = memref.get_global @zeroA : memref<1xf32>
  %C = memref.get_global @C : !bc
  %qsl = memref.get_global @qsl : memref<6xi32>
  %his = memref.get_global @his : memref<5xi1>
  %ci = memref.get_global @ci : memref<5xi32>
  call @scan_i8(%x, %dt, %A, %B, %C, %pool, %scales, %qsl, %his, %ci, %y)
      : (!x, !dt, memref<1xf32>, !bc, !bc, memref<5x1x2x4xi8>, memref<5x1x2xf32>, memref<6xi32>,
         memref<5xi1>, memref<5xi32>, !x) -> ()
  call @print_i8(%pool) : (memref<5x1x2x4xi8>) -> ()
  call @print_scales(%scales) : (memref<5x1x2xf32>) -> ()
  call @print_read(%y) : (!x) -> ()
  return
}

func.func @run_f8() {
  %x = memref.get_global @x_f8 : !x
  %B = memref.get_global @B_f8 : !bc
  %pool0 = memref.get_global @pool0_f8 : memref<5x1x2x4xf8E4M3FN>
  %pool = memref.alloc() : memref<5x1x2x4xf8E4M3FN>
  memref.copy %pool0, %pool : memref<5x1x2x4xf8E4M3FN> to memref<5x1x2x4xf8E4M3FN>
  %scales0 = memref.get_global @scales0_f8 : memref<5x1x2xf32>
  %scales = memref.alloc() : memref<5x1x2xf32>
  memref.copy %scales0, %scales : memref<5x1x2xf32> to memref<5x1x2xf32>
  %y = memref.alloc() : !x
  %dt = memref.get_global @ones : !dt
  %A = memref.get_global @zeroA : memref<1xf32>
  %C = memref.get_global @C : !bc
  %qsl = memref.get_global @qsl : memref<6xi32>
  %his = memref.get_global @his : memref<5xi1>
  %ci = memref.get_global @ci : memref<5xi32>
  call @scan_f8(%x, %dt, %A, %B, %C, %pool, %scales, %qsl, %his, %ci, %y)
      : (!x, !dt, memref<1xf32>, !bc, !bc, memref<5x1x2x4xf8E4M3FN>, memref<5x1x2xf32>, memref<6xi32>,
         memref<5xi1>, memref<5xi32>, !x) -> ()
  call @print_f8(%pool) : (memref<5x1x2x4xf8E4M3FN>) -> ()
  call @print_scales(%scales) : (memref<5x1x2xf32>) -> ()
  call @print_read(%y) : (!x) -> ()
  return
}

func.func @run_f16() {
  %x = memref.get_global @x_f16 : !x
  %B = memref.get_global @B_f16 : !bc
  %pool0 = memref.get_global @pool0_f16 : memref<5x1x2x4xf16>
  %pool = memref.alloc() : memref<5x1x2x4xf16>
  memref.copy %pool0, %pool : memref<5x1x2x4xf16> to memref<5x1x2x4xf16>
  %y = memref.alloc() : !x
  %dt = memref.get_global @ones : !dt
  %A = memref.get_global @zeroA : memref<1xf32>
  %C = memref.get_global @C : !bc
  %qsl = memref.get_global @qsl : memref<6xi32>
  %his = memref.get_global @his : memref<5xi1>
  %ci = memref.get_global @ci : memref<5xi32>
  call @scan_f16(%x, %dt, %A, %B, %C, %pool, %qsl, %his, %ci, %y)
      : (!x, !dt, memref<1xf32>, !bc, !bc, memref<5x1x2x4xf16>, memref<6xi32>,
         memref<5xi1>, memref<5xi32>, !x) -> ()
  call @print_f16(%pool) : (memref<5x1x2x4xf16>) -> ()
  call @print_read(%y) : (!x) -> ()
  return
}

func.func @run_bf16() {
  %x = memref.get_global @x_bf16 : !x
  %B = memref.get_global @B_bf16 : !bc
  %pool0 = memref.get_global @pool0_bf16 : memref<5x1x2x4xbf16>
  %pool = memref.alloc() : memref<5x1x2x4xbf16>
  memref.copy %pool0, %pool : memref<5x1x2x4xbf16> to memref<5x1x2x4xbf16>
  %y = memref.alloc() : !x
  %dt = memref.get_global @ones : !dt
  %A = memref.get_global @zeroA : memref<1xf32>
  %C = memref.get_global @C : !bc
  %qsl = memref.get_global @qsl : memref<6xi32>
  %his = memref.get_global @his : memref<5xi1>
  %ci = memref.get_global @ci : memref<5xi32>
  call @scan_bf16(%x, %dt, %A, %B, %C, %pool, %qsl, %his, %ci, %y)
      : (!x, !dt, memref<1xf32>, !bc, !bc, memref<5x1x2x4xbf16>, memref<6xi32>,
         memref<5xi1>, memref<5xi32>, !x) -> ()
  call @print_bf16(%pool) : (memref<5x1x2x4xbf16>) -> ()
  call @print_read(%y) : (!x) -> ()
  return
}

// The stochastic call: one sequence of 2 tokens with o = 5, checkpoints
// after both (interval 1) into slots 0 and 1, the final state into slot 2.
func.func @scan_stochastic(%x: memref<2x1x2xf32>, %dt: memref<2x1xf32>, %A: memref<1xf32>,
    %B: memref<2x1x4xf32>, %C: memref<2x1x4xf32>, %pool: memref<4x1x2x4xi8>,
    %scales: memref<4x1x2xf32>, %qsl: memref<2xi32>, %his: memref<1xi1>, %ci: memref<1xi32>,
    %cs: memref<1x2xi32>, %co: memref<1xi32>, %seed: memref<i64>, %y: memref<2x1x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x4xf32>) C(%C : memref<2x1x4xf32>) ssm_pool(%pool : memref<4x1x2x4xi8>)
      ssm_pool_scales(%scales : memref<4x1x2xf32>) query_start_loc(%qsl : memref<2xi32>)
      has_initial_state(%his : memref<1xi1>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x2xi32>) checkpoint_offsets(%co : memref<1xi32>)
      checkpoint_interval(1) rounding_seed(%seed : memref<i64>) outs(%y : memref<2x1x2xf32>)
      {FORM, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

func.func @run_stochastic() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x = memref.get_global @x_st : memref<2x1x2xf32>
  %B = memref.get_global @B_st : memref<2x1x4xf32>
  %dt = memref.get_global @ones_st : memref<2x1xf32>
  %A = memref.get_global @zeroA : memref<1xf32>
  %C = memref.alloc() : memref<2x1x4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<2x1x4xf32>)
  %pool = memref.alloc() : memref<4x1x2x4xi8>
  %fill = arith.constant 77 : i8
  linalg.fill ins(%fill : i8) outs(%pool : memref<4x1x2x4xi8>)
  %scales = memref.alloc() : memref<4x1x2xf32>
  %minus1 = arith.constant -1.0 : f32
  linalg.fill ins(%minus1 : f32) outs(%scales : memref<4x1x2xf32>)
  %qsl = memref.get_global @qsl_st : memref<2xi32>
  %his = memref.get_global @his_st : memref<1xi1>
  %ci = memref.get_global @ci_st : memref<1xi32>
  %cs = memref.get_global @cs_st : memref<1x2xi32>
  %co = memref.get_global @co_st : memref<1xi32>
  %seed = memref.get_global @seed : memref<i64>
  %y = memref.alloc() : memref<2x1x2xf32>
  call @scan_stochastic(%x, %dt, %A, %B, %C, %pool, %scales, %qsl, %his, %ci, %cs, %co, %seed, %y)
      : (memref<2x1x2xf32>, memref<2x1xf32>, memref<1xf32>, memref<2x1x4xf32>, memref<2x1x4xf32>,
         memref<4x1x2x4xi8>, memref<4x1x2xf32>, memref<2xi32>, memref<1xi1>, memref<1xi32>,
         memref<1x2xi32>, memref<1xi32>, memref<i64>, memref<2x1x2xf32>) -> ()
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : memref<4x1x2x4xi8> into memref<32xi8>
  %codes = memref.alloc() : memref<32xi32>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %flat[%i] : memref<32xi8>
    %w = arith.extsi %v : i8 to i32
    memref.store %w, %codes[%i] : memref<32xi32>
  }
  %cu = memref.cast %codes : memref<32xi32> to memref<*xi32>
  call @printMemrefI32(%cu) : (memref<*xi32>) -> ()
  %sflat = memref.collapse_shape %scales [[0, 1, 2]] : memref<4x1x2xf32> into memref<8xf32>
  %su = memref.cast %sflat : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  return
}

// Codes (i8 sign-extended, the others' bits zero-extended) as i32.
func.func @print_i8(%pool: memref<5x1x2x4xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : memref<5x1x2x4xi8> into memref<40xi8>
  %codes = memref.alloc() : memref<40xi32>
  scf.for %i = %c0 to %c40 step %c1 {
    %v = memref.load %flat[%i] : memref<40xi8>
    %w = arith.extsi %v : i8 to i32
    memref.store %w, %codes[%i] : memref<40xi32>
  }
  %u = memref.cast %codes : memref<40xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_f8(%pool: memref<5x1x2x4xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : memref<5x1x2x4xf8E4M3FN> into memref<40xf8E4M3FN>
  %codes = memref.alloc() : memref<40xi32>
  scf.for %i = %c0 to %c40 step %c1 {
    %v = memref.load %flat[%i] : memref<40xf8E4M3FN>
    %b = arith.bitcast %v : f8E4M3FN to i8
    %w = arith.extui %b : i8 to i32
    memref.store %w, %codes[%i] : memref<40xi32>
  }
  %u = memref.cast %codes : memref<40xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_f16(%pool: memref<5x1x2x4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : memref<5x1x2x4xf16> into memref<40xf16>
  %codes = memref.alloc() : memref<40xi32>
  scf.for %i = %c0 to %c40 step %c1 {
    %v = memref.load %flat[%i] : memref<40xf16>
    %b = arith.bitcast %v : f16 to i16
    %w = arith.extui %b : i16 to i32
    memref.store %w, %codes[%i] : memref<40xi32>
  }
  %u = memref.cast %codes : memref<40xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_bf16(%pool: memref<5x1x2x4xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : memref<5x1x2x4xbf16> into memref<40xbf16>
  %codes = memref.alloc() : memref<40xi32>
  scf.for %i = %c0 to %c40 step %c1 {
    %v = memref.load %flat[%i] : memref<40xbf16>
    %b = arith.bitcast %v : bf16 to i16
    %w = arith.extui %b : i16 to i32
    memref.store %w, %codes[%i] : memref<40xi32>
  }
  %u = memref.cast %codes : memref<40xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_scales(%scales: memref<5x1x2xf32>) {
  %flat = memref.collapse_shape %scales [[0, 1, 2]] : memref<5x1x2xf32> into memref<10xf32>
  %u = memref.cast %flat : memref<10xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// y[4 + k, 0, 0] for k = 0..3: row 0 of slot 4 as read (C = e_k).
func.func @print_read(%y: !x) {
  %sub = memref.subview %y[4, 0, 0] [4, 1, 1] [1, 1, 1] : !x to memref<4xf32, strided<[2], offset: 8>>
  %u = memref.cast %sub : memref<4xf32, strided<[2], offset: 8>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  call @run_i8() : () -> ()
  call @run_f8() : () -> ()
  call @run_f16() : () -> ()
  call @run_bf16() : () -> ()
  call @run_stochastic() : () -> ()
  return
}
