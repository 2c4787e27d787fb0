// RUN: ssd-opt %s -ssd-select-form -split-input-file | FileCheck %s --check-prefix=CPU
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90" -split-input-file | FileCheck %s --check-prefix=GPU
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=40000" -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90a heads-per-block=2" -split-input-file | FileCheck %s --check-prefix=WGMMA
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90a" -split-input-file | FileCheck %s --check-prefix=ONE-HEAD
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90a staging=registers" -split-input-file | FileCheck %s --check-prefix=REGISTERS
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90a cb-in-block=true" -split-input-file | FileCheck %s --check-prefix=CB-IN-BLOCK
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=1024 min-chunked-tokens-per-seq=256 serial-for-dense-checkpoints=false" -ssd-plan-gpu-kernels="chip=sm_90a cb-in-block=true heads-per-block=2" -split-input-file | FileCheck %s --check-prefix=WGMMA

// The plan ssd-select-form records on each op (#ssd.scan_config) for the
// four launch shapes, under the CPU pipelines' options (the pass's
// defaults) and the GPU pipelines' (kGPUFormThresholds, as --ssd-to-nvvm
// passes them, then ssd-plan-gpu-kernels with sm_90's shared memory). A bf16
// model with head_dim 64 and dstate 128: one block holds a chunk's whole
// state and y is computed in the chunk kernel, 128 rows per pass (x and
// S_prev stay in shared memory). With 40000 bytes of shared memory (SMALL)
// the fused output (79024 bytes with a double buffer) does not fit: the plan records fusion = state, and launch 3
// computes y. Each plan then takes a third pipeline stage (pipeline_stages
// = 3) where it keeps the blocks that fit an SM and the limit, except a
// block of two heads (WGMMA), which keeps the double buffer.

// Decode: 8 sequences of one token.
// CPU-LABEL: func.func @decode
// CPU: config = #ssd.scan_config<form = serial, chunk_size = 256>,
// GPU-LABEL: func.func @decode
// GPU: config = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4>,
func.func @decode(%x: memref<8x4x64xbf16>, %dt: memref<8x4xbf16>, %A: memref<4xbf16>,
    %B: memref<8x1x128xbf16>, %pool: memref<16x4x64x128xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<8x4x64xbf16>) dt(%dt : memref<8x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<8x1x128xbf16>) C(%B : memref<8x1x128xbf16>) ssm_pool(%pool : memref<16x4x64x128xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x64xbf16>)
  return
}

// -----

// Speculative verify: 8 sequences of 4 tokens (a draft of 3 and the last accepted token).
// CPU-LABEL: func.func @verify
// CPU: config = #ssd.scan_config<form = serial, chunk_size = 256>,
// GPU-LABEL: func.func @verify
// GPU: config = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4>,
func.func @verify(%x: memref<32x4x64xbf16>, %dt: memref<32x4xbf16>, %A: memref<4xbf16>,
    %B: memref<32x1x128xbf16>, %pool: memref<16x4x64x128xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<32x4x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<32x4x64xbf16>) dt(%dt : memref<32x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<32x1x128xbf16>) C(%B : memref<32x1x128xbf16>) ssm_pool(%pool : memref<16x4x64x128xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<32x4x64xbf16>)
  return
}

// -----

// A long prefill: one sequence of 128k tokens.
// CPU-LABEL: func.func @long_prefill
// CPU: config = #ssd.scan_config<form = chunked, chunk_size = 256>,
// GPU-LABEL: func.func @long_prefill
// SMALL-LABEL: func.func @long_prefill
// SMALL: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 0, shared_memory = 38048>,
// GPU: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 2, shared_memory = 91312>,
// With wgmma (sm_90a) and heads-per-block=2 (WGMMA) a block serves two
// heads (heads_per_block = 2): two copies of the one-head layout, each with 1008 bytes in which the kernel
// moves its wgmma tiles onto a 1024-byte boundary of the shared window,
// the second 80896 bytes (a multiple of 1024) after the first: one
// 512-thread block per SM (the map role's scratch is sized for its 512
// threads). By default (ONE-HEAD, heads-per-block=1: faster on an H200)
// one head, 92320 bytes with three stages: still two blocks per SM.
// WGMMA-LABEL: func.func @long_prefill
// WGMMA: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 2, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 1, shared_memory = 160992>,
// Staged through registers (REGISTERS), whose loads are stored within the
// step that issues them, the plan keeps the double buffer.
// REGISTERS-LABEL: func.func @long_prefill
// REGISTERS: staging = registers, blocks_per_sm = 2, shared_memory = 80032>,
// With cb-in-block (CB-IN-BLOCK) the one-head block computes C·Bᵀ itself:
// the pass's C resident (4 x 8 KB), a W tile and the ring of B rows, 112800
// bytes with two stages; a third (120992) would leave one block per SM, so
// the planner keeps two. With heads-per-block=2 as well, the pair wins and
// keeps the tiles (WGMMA above).
// CB-IN-BLOCK-LABEL: func.func @long_prefill
// CB-IN-BLOCK: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 112800>,
// ONE-HEAD-LABEL: func.func @long_prefill
// ONE-HEAD: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 2, shared_memory = 92320>,
func.func @long_prefill(%x: memref<131072x4x64xbf16>, %dt: memref<131072x4xbf16>, %A: memref<4xbf16>,
    %B: memref<131072x1x128xbf16>, %pool: memref<2x4x64x128xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %y: memref<131072x4x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x64xbf16>) dt(%dt : memref<131072x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<131072x1x128xbf16>) C(%B : memref<131072x1x128xbf16>) ssm_pool(%pool : memref<2x4x64x128xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>) outs(%y : memref<131072x4x64xbf16>)
  return
}

// -----

// A launch that mixes on the GPU, 2048 tokens over 64 sequences average 32 each
// (serial), but one may hold 1024 or more (chunked in the same call).
// The CPU thresholds keep it serial without mixing.
// CPU-LABEL: func.func @mixed_gpu
// CPU: config = #ssd.scan_config<form = serial, chunk_size = 256>,
// GPU-LABEL: func.func @mixed_gpu
// GPU: config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 2, shared_memory = 91312>,
func.func @mixed_gpu(%x: memref<2048x4x64xbf16>, %dt: memref<2048x4xbf16>, %A: memref<4xbf16>,
    %B: memref<2048x1x128xbf16>, %pool: memref<128x4x64x128xf32>, %qsl: memref<65xi32>, %ci: memref<64xi32>,
    %y: memref<2048x4x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<2048x4x64xbf16>) dt(%dt : memref<2048x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<2048x1x128xbf16>) C(%B : memref<2048x1x128xbf16>) ssm_pool(%pool : memref<128x4x64x128xf32>)
      query_start_loc(%qsl : memref<65xi32>) cache_indices(%ci : memref<64xi32>) outs(%y : memref<2048x4x64xbf16>)
  return
}

// -----

// A launch that mixes under the CPU thresholds, 128k tokens over 64 sequences
// average 2k (serial), but one may hold 64k. The GPU thresholds chunk it.
// CPU-LABEL: func.func @mixed_cpu
// CPU: config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 65536>,
// GPU-LABEL: func.func @mixed_cpu
// GPU: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 2, shared_memory = 91312>,
func.func @mixed_cpu(%x: memref<131072x4x64xbf16>, %dt: memref<131072x4xbf16>, %A: memref<4xbf16>,
    %B: memref<131072x1x128xbf16>, %pool: memref<128x4x64x128xf32>, %qsl: memref<65xi32>, %ci: memref<64xi32>,
    %y: memref<131072x4x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x64xbf16>) dt(%dt : memref<131072x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<131072x1x128xbf16>) C(%B : memref<131072x1x128xbf16>) ssm_pool(%pool : memref<128x4x64x128xf32>)
      query_start_loc(%qsl : memref<65xi32>) cache_indices(%ci : memref<64xi32>) outs(%y : memref<131072x4x64xbf16>)
  return
}

// -----

// head_dim 128: y in 128-row passes would be 64 accumulators per thread
// (twice dS's share at head_dim 64), so the fused output keeps 64-row
// passes; at 149 KB of shared memory (three stages; 133 KB with two) one
// block fits an SM.
// CPU-LABEL: func.func @wide_heads
// CPU: config = #ssd.scan_config<form = chunked, chunk_size = 256>,
// GPU-LABEL: func.func @wide_heads
// GPU: config = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 64, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 3, blocks_per_sm = 0, shared_memory = 152752>,
func.func @wide_heads(%x: memref<131072x4x128xbf16>, %dt: memref<131072x4xbf16>, %A: memref<4xbf16>,
    %B: memref<131072x1x128xbf16>, %pool: memref<2x4x128x128xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %y: memref<131072x4x128xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x128xbf16>) dt(%dt : memref<131072x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<131072x1x128xbf16>) C(%B : memref<131072x1x128xbf16>) ssm_pool(%pool : memref<2x4x128x128xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>) outs(%y : memref<131072x4x128xbf16>)
  return
}
