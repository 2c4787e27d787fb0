// Zero extents on the GPU lowering (issue 23: P = N = 0 in the chunked form
// divided by zero in chooseWarpLayout, N = 0 in the serial form crashed in
// warpSum). Every extent the verifier lets be 0 (T, H, P, N, batch, pool
// slots S), in both forms, lowers to kernels that do the op's empty work:
// with P or N = 0 no state has elements, so both forms run the serial
// kernels (y = D x, no pool access; no warp reduction when N = 0); T, H,
// batch and S = 0 give empty grids, which launchKernel turns into one block
// that returns at once. test/Pipelines/ssd-to-gpu-emulator-zero-dstate.mlir
// runs N = 0 on the emulator.
//
// RUN: ssd-opt %s -split-input-file --ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu | FileCheck %s
// RUN: ssd-opt %s -split-input-file --ssd-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=BINARY
// RUN: ssd-opt %s -split-input-file --ssd-to-gpu-emulator | FileCheck %s --check-prefix=BINARY
// BINARY-COUNT-17: gpu.binary

// CHECK-LABEL: func.func @t0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @t0_serial(%x: memref<0x2x4xf32>, %dt: memref<0x2xf32>, %A: memref<2xf32>, %B: memref<0x1x8xf32>, %C: memref<0x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<0x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<0x2x4xf32>) dt(%dt : memref<0x2xf32>) A(%A : memref<2xf32>) B(%B : memref<0x1x8xf32>) C(%C : memref<0x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<0x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @t0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @t0_chunked(%x: memref<0x2x4xf32>, %dt: memref<0x2xf32>, %A: memref<2xf32>, %B: memref<0x1x8xf32>, %C: memref<0x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<0x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<0x2x4xf32>) dt(%dt : memref<0x2xf32>) A(%A : memref<2xf32>) B(%B : memref<0x1x8xf32>) C(%C : memref<0x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<0x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @h0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @h0_serial(%x: memref<8x0x4xf32>, %dt: memref<8x0xf32>, %A: memref<0xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<0xf32>, %dt_bias: memref<0xf32>, %ssm_pool: memref<3x0x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x0x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x0x4xf32>) dt(%dt : memref<8x0xf32>) A(%A : memref<0xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<0xf32>) dt_bias(%dt_bias : memref<0xf32>) ssm_pool(%ssm_pool : memref<3x0x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x0x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @h0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @h0_chunked(%x: memref<8x0x4xf32>, %dt: memref<8x0xf32>, %A: memref<0xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<0xf32>, %dt_bias: memref<0xf32>, %ssm_pool: memref<3x0x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x0x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x0x4xf32>) dt(%dt : memref<8x0xf32>) A(%A : memref<0xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<0xf32>) dt_bias(%dt_bias : memref<0xf32>) ssm_pool(%ssm_pool : memref<3x0x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x0x4xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @p0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @p0_serial(%x: memref<8x2x0xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x0x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x0xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x0xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x0x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x0xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @p0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @p0_chunked(%x: memref<8x2x0xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x0x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x0xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x0xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x0x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x0xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @n0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
// CHECK: return
func.func @n0_serial(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x0xf32>, %C: memref<8x1x0xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x0xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x0xf32>) C(%C : memref<8x1x0xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x0xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @n0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
// CHECK: return
func.func @n0_chunked(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x0xf32>, %C: memref<8x1x0xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x0xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x0xf32>) C(%C : memref<8x1x0xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x0xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @batch0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @batch0_serial(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x8xbf16>, %query_start_loc: memref<1xi32>, %has_initial_state: memref<0xi1>, %cache_indices: memref<0xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<1xi32>) has_initial_state(%has_initial_state : memref<0xi1>) cache_indices(%cache_indices : memref<0xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @batch0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @batch0_chunked(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x4x8xbf16>, %query_start_loc: memref<1xi32>, %has_initial_state: memref<0xi1>, %cache_indices: memref<0xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<1xi32>) has_initial_state(%has_initial_state : memref<0xi1>) cache_indices(%cache_indices : memref<0xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @s0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @s0_serial(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<0x2x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<0x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @s0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
// CHECK: return
func.func @s0_chunked(%x: memref<8x2x4xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x8xf32>, %C: memref<8x1x8xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<0x2x4x8xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x4xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x8xf32>) C(%C : memref<8x1x8xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<0x2x4x8xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// CHECK-LABEL: func.func @pn0_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
// CHECK: return
func.func @pn0_serial(%x: memref<8x2x0xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x0xf32>, %C: memref<8x1x0xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x0x0xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x0xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x0xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x0xf32>) C(%C : memref<8x1x0xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x0x0xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x0xf32>) {form = #ssd<form serial>}
  return
}

// -----

// CHECK-LABEL: func.func @pn0_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
// CHECK: return
func.func @pn0_chunked(%x: memref<8x2x0xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>, %B: memref<8x1x0xf32>, %C: memref<8x1x0xf32>, %D: memref<2xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<3x2x0x0xbf16>, %query_start_loc: memref<3xi32>, %has_initial_state: memref<2xi1>, %cache_indices: memref<2xi32>, %y: memref<8x2x0xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x2x0xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>) B(%B : memref<8x1x0xf32>) C(%C : memref<8x1x0xf32>) D(%D : memref<2xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<3x2x0x0xbf16>) query_start_loc(%query_start_loc : memref<3xi32>) has_initial_state(%has_initial_state : memref<2xi1>) cache_indices(%cache_indices : memref<2xi32>) outs(%y : memref<8x2x0xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}


// -----

// A serial op that may mix in the chunked form (ssd-select-form's mixed
// launch attributes): with N = 0 every sequence runs serially.
// CHECK-LABEL: func.func @n0_mixed
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
// CHECK: return
func.func @n0_mixed(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>, %B: memref<?x1x0xf32>, %C: memref<?x1x0xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<?x2x4x0xf32>, %query_start_loc: memref<?xi32>, %cache_indices: memref<?xi32>, %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>) B(%B : memref<?x1x0xf32>) C(%C : memref<?x1x0xf32>) dt_bias(%dt_bias : memref<2xf32>) ssm_pool(%ssm_pool : memref<?x2x4x0xf32>) query_start_loc(%query_start_loc : memref<?xi32>) cache_indices(%cache_indices : memref<?xi32>) outs(%y : memref<?x2x4xf32>) {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 64, mixed_min_tokens = 4>}
  return
}

// -----

// The two reproducers of issue 23, as reported.
// CHECK-LABEL: func.func @issue23_chunked
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK: gpu.launch
func.func @issue23_chunked(%x: memref<3x64x0xf32>, %dt: memref<3x64xf32>, %A: memref<64xf32>, %B: memref<3x2x0xf32>, %C: memref<3x2x0xf32>, %dt_bias: memref<64xf32>, %ssm_pool: memref<17x64x0x0xbf16>, %query_start_loc: memref<17xi32>, %cache_indices: memref<16xui32>, %y: memref<3x64x0xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<3x64x0xf32>) dt(%dt : memref<3x64xf32>) A(%A : memref<64xf32>)
      B(%B : memref<3x2x0xf32>) C(%C : memref<3x2x0xf32>) dt_bias(%dt_bias : memref<64xf32>)
      ssm_pool(%ssm_pool : memref<17x64x0x0xbf16>) query_start_loc(%query_start_loc : memref<17xi32>) cache_indices(%cache_indices : memref<16xui32>)
      outs(%y : memref<3x64x0xf32>) {form = #ssd<form chunked>}
  return
}

// -----

// CHECK-LABEL: func.func @issue23_serial
// CHECK-NOT: ssd.chunk_scan_varlen
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.launch
func.func @issue23_serial(%x: memref<64x7x16xf32>, %dt: memref<64x7xf32>, %A: memref<7xf32>, %B: memref<64x1x0xf32>, %C: memref<64x1x0xf32>, %dt_bias: memref<7xf32>, %ssm_pool: memref<7x7x16x0xbf16>, %query_start_loc: memref<2xi32>, %has_initial_state: memref<1xi1>, %cache_indices: memref<1xi32>, %y: memref<64x7x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<64x7x16xf32>) dt(%dt : memref<64x7xf32>) A(%A : memref<7xf32>)
      B(%B : memref<64x1x0xf32>) C(%C : memref<64x1x0xf32>) dt_bias(%dt_bias : memref<7xf32>)
      ssm_pool(%ssm_pool : memref<7x7x16x0xbf16>) query_start_loc(%query_start_loc : memref<2xi32>) has_initial_state(%has_initial_state : memref<1xi1>)
      cache_indices(%cache_indices : memref<1xi32>) outs(%y : memref<64x7x16xf32>) {form = #ssd<form serial>, chunk_size = 7}
  return
}
