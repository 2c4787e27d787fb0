// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of #ssd.scan_config, and of the op's agreement
// with its config (the choices its element types, checkpoints and heads
// rule out).

// expected-error @+1 {{chunk_size must be in [1, 65536], got 0}}
func.func @chunk_size_zero() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 0>} {
  return
}

// -----

// expected-error @+1 {{chunk_size must be in [1, 65536], got 65537}}
func.func @chunk_size_too_large() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 65537>} {
  return
}

// -----

// expected-error @+1 {{chunk_size must be in [1, 4096], got 8192 (the GPU chunked kernels' cap)}}
func.func @chunk_size_over_gpu_cap() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 8192, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{mixed_min_tokens is only valid with form = serial}}
func.func @mixing_chunked() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, mixed_min_tokens = 1024>} {
  return
}

// -----

// expected-error @+1 {{mixed_min_tokens (0) must be positive}}
func.func @mixing_from_zero() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 0>} {
  return
}

// -----

// expected-error @+1 {{chip, serial_rows_per_warp and serial_warps_per_block are the GPU kernels' plan: all three or none}}
func.func @gpu_plan_partial() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_80">} {
  return
}

// -----

// expected-error @+1 {{chip "sm_70" is not one of sm_80, sm_86, sm_89, sm_90 or sm_90a}}
func.func @unknown_chip() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_70", serial_rows_per_warp = 4, serial_warps_per_block = 4>} {
  return
}

// -----

// expected-error @+1 {{serial_rows_per_warp must be in [1, 32], got 0}}
func.func @serial_rows() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_80", serial_rows_per_warp = 0, serial_warps_per_block = 4>} {
  return
}

// -----

// expected-error @+1 {{serial_warps_per_block must be in [1, 32], got 33}}
func.func @serial_warps() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 33>} {
  return
}

// -----

// expected-error @+1 {{fusion, output_rows, state_parts, heads_per_block, matmul, fragment_loads, staging, blocks_per_sm and shared_memory are the chunked kernels' choices: all nine or none}}
func.func @chunked_partial() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = none>} {
  return
}

// -----

// expected-error @+1 {{the chunked kernels' choices need the GPU plan (chip, serial_rows_per_warp, serial_warps_per_block)}}
func.func @chunked_without_gpu_plan() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{the chunked kernels' choices need form = chunked or a mixed launch (mixed_min_tokens)}}
func.func @chunked_choices_serial() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{output_rows (96) must be 64 or 128}}
func.func @output_rows() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 96, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{state_parts (0) must be positive}}
func.func @state_parts() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = none, output_rows = 128, state_parts = 0, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{heads_per_block must be in [1, 2], got 3}}
func.func @heads_per_block() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 3, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{blocks_per_sm must be in [0, 32], got 33}}
func.func @blocks_per_sm() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 33, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{pipeline_stages must be in [2, 4], got 1}}
func.func @pipeline_stages_below() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 1, blocks_per_sm = 2, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{pipeline_stages must be in [2, 4], got 5}}
func.func @pipeline_stages_above() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 5, blocks_per_sm = 2, shared_memory = 80032>} {
  return
}

// -----

// Stages without the chunked kernels they would stage.
// expected-error @+1 {{pipeline_stages = 3 stages the chunked kernels, whose choices (fusion ... shared_memory) this config does not have}}
func.func @pipeline_stages_without_chunked() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, pipeline_stages = 3>} {
  return
}

// -----

// C·Bᵀ in the block without the chunked kernels that would compute it.
// expected-error @+1 {{cb_in_block = true computes C·Bᵀ in the chunked kernels, whose choices (fusion ... shared_memory) this config does not have}}
func.func @cb_in_block_without_chunked() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, cb_in_block = true>} {
  return
}

// -----

// The fused output computes the rows C·Bᵀ serves: without it, no block has them.
// expected-error @+1 {{cb_in_block = true needs fusion = state_and_output, matmul = wgmma and heads_per_block = 1 (a block computes C·Bᵀ for the rows of its fused output, on wgmma), got fusion = state, matmul = wgmma, heads_per_block = 1}}
func.func @cb_in_block_without_fused_output() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{cb_in_block = true needs fusion = state_and_output, matmul = wgmma and heads_per_block = 1 (a block computes C·Bᵀ for the rows of its fused output, on wgmma), got fusion = state_and_output, matmul = mma_sync, heads_per_block = 1}}
func.func @cb_in_block_on_mma_sync() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{cb_in_block = true needs fusion = state_and_output, matmul = wgmma and heads_per_block = 1 (a block computes C·Bᵀ for the rows of its fused output, on wgmma), got fusion = state_and_output, matmul = wgmma, heads_per_block = 2}}
func.func @cb_in_block_paired_heads() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 2, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 1, shared_memory = 160992>} {
  return
}

// -----

// expected-error @+1 {{shared_memory (166913 bytes) must be in [1, 166912], what sm_80 allows a block}}
func.func @shared_memory_over_chip() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 166913>} {
  return
}

// -----

// expected-error @+1 {{matmul = wgmma needs chip "sm_90a" (wgmma is in sm_90a's architecture-specific PTX only), got "sm_80"}}
func.func @wgmma_on_sm80() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{fusion = state_and_output needs state_parts = 1 (the block that computes y holds the chunk's whole state), got 2}}
func.func @fused_output_split_state() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 2, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{heads_per_block = 2 needs fusion = state_and_output and matmul = wgmma (a block of several heads computes their y on wgmma), got fusion = state, matmul = wgmma}}
func.func @two_heads_unfused() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state, output_rows = 128, state_parts = 1, heads_per_block = 2, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

// expected-error @+1 {{heads_per_block = 2 needs fusion = state_and_output and matmul = wgmma (a block of several heads computes their y on wgmma), got fusion = state_and_output, matmul = mma_sync}}
func.func @two_heads_mma_sync() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 2, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>} {
  return
}

// -----

func.func @fused_f32(%x: memref<8x2x64xf32>, %dt: memref<8x2xf32>, %A: memref<2xf32>,
    %B: memref<8x1x128xf32>, %pool: memref<16x2x64x128xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %slots: memref<8x2xi32>, %y: memref<8x2x64xf32>) {
  // expected-error @+1 {{config fusion = state needs a 16-bit model (f16 or bf16), got f32: f32 models pass chunk states in a launch of their own (fusion = none)}}
  ssd.chunk_scan_varlen x(%x : memref<8x2x64xf32>) dt(%dt : memref<8x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<8x1x128xf32>) C(%B : memref<8x1x128xf32>) ssm_pool(%pool : memref<16x2x64x128xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>)
      outs(%y : memref<8x2x64xf32>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>}
  return
}

// -----

func.func @fused_checkpoints_inside_chunks(%x: memref<8x2x64xbf16>, %dt: memref<8x2xbf16>, %A: memref<2xbf16>,
    %B: memref<8x1x128xbf16>, %pool: memref<16x2x64x128xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %slots: memref<8x2xi32>, %y: memref<8x2x64xbf16>) {
  // expected-error @+1 {{config fusion = state_and_output needs every checkpoint to end a chunk (no checkpoint_offsets, an interval that is a multiple of chunk_size 128): checkpoints inside chunks are written by a state-passing launch of its own (fusion = none)}}
  ssd.chunk_scan_varlen x(%x : memref<8x2x64xbf16>) dt(%dt : memref<8x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<8x1x128xbf16>) C(%B : memref<8x1x128xbf16>) ssm_pool(%pool : memref<16x2x64x128xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>)
      checkpoint_slots(%slots : memref<8x2xi32>) checkpoint_interval(64)
      outs(%y : memref<8x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>}
  return
}

// -----

func.func @two_heads_odd_group(%x: memref<8x3x64xbf16>, %dt: memref<8x3xbf16>, %A: memref<3xbf16>,
    %B: memref<8x1x128xbf16>, %pool: memref<16x3x64x128xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %slots: memref<8x2xi32>, %y: memref<8x3x64xbf16>) {
  // expected-error @+1 {{config heads_per_block = 2 needs a multiple of 2 heads per group, got 3 (H = 3, G = 1)}}
  ssd.chunk_scan_varlen x(%x : memref<8x3x64xbf16>) dt(%dt : memref<8x3xbf16>) A(%A : memref<3xbf16>)
      B(%B : memref<8x1x128xbf16>) C(%B : memref<8x1x128xbf16>) ssm_pool(%pool : memref<16x3x64x128xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>)
      outs(%y : memref<8x3x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 2, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 80032>}
  return
}

// -----

func.func @form_disagrees(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{form chunked does not match the form serial of its config}}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
      {form = #ssd<form chunked>, config = #ssd.scan_config<form = serial, chunk_size = 256>}
  return
}

// -----

func.func @chunk_size_disagrees(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{chunk_size (64) does not match the chunk_size (256) of its config}}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
      {chunk_size = 64 : i64, form = #ssd<form chunked>, config = #ssd.scan_config<form = chunked, chunk_size = 256>}
  return
}
