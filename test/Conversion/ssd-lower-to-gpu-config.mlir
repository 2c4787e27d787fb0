// RUN: ssd-opt %s -ssd-plan-gpu-kernels -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file -verify-diagnostics | FileCheck %s

// ssd-lower-to-gpu builds the kernels a config records and nothing else;
// ssd-plan-gpu-kernels (here with its defaults: sm_90a, two heads per block)
// keeps a config that records them.

// A config pinning one head per block on sm_90a, where ssd-plan-gpu-kernels
// would put two: the planner keeps it, and the chunk kernel is the one-head
// kernel (256 threads; the paired one has 512).

// CHECK-LABEL: func.func @one_head_on_sm90a
// CHECK-NOT:     threads in (%c512
// CHECK:         gpu.launch_func {{.*}} threads in (%c256, %{{.*}}, %{{.*}})  dynamic_shared_memory_size %c61072_i32
// CHECK:         return
func.func @one_head_on_sm90a(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 61088>}
  return
}

// -----

// fusion = none: three launches, where the planner would fuse them.

// CHECK-LABEL: func.func @three_launches
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @three_launches(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = none, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 0, shared_memory = 25248>}
  return
}

// -----

// CHECK-LABEL: func.func @fused
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @fused(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 60080>}
  return
}

// -----

// The shared memory a config records must be what its kernels need.
func.func @shared_memory_mismatch(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the config's shared_memory (30000 bytes) is not what its chunked kernels need (25248 bytes) at head_dim (P) 64, dstate (N) 128, chunk_size 128}}
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = none, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 0, shared_memory = 30000>}
  return
}

// -----

// Choices the kernels cannot honour for the op's shapes are refused.
func.func @state_parts_not_dividing(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: state_parts 3 does not divide dstate's 8 16-column tiles (N = 128)}}
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = none, output_rows = 128, state_parts = 3, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 0, shared_memory = 25248>}
  return
}

// -----

// C·Bᵀ in the block on shapes whose fused output is not on wgmma (head_dim
// 32: the output's passes stay on mma.sync) is refused, not ignored.
func.func @cb_in_block_without_wgmma_output(%x: memref<?x128x32xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x32x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x32xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: cb_in_block needs the fused output on wgmma (head_dim 49 to 64, 128 state columns, output_rows 128) and one head a block, which these shapes and choices do not give (P = 32, N = 128, output_rows 128, heads_per_block 1)}}
  ssd.chunk_scan_varlen x(%x : memref<?x128x32xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x32x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x32xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 90000>}
  return
}
