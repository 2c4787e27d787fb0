// The planner fuses the chunked kernels of an 8-bit pool (a bf16 model):
// the fused chunk kernel decodes initial rows with their scales and leaves
// every writer's final state to the last launch, which encodes rows in one
// warp each (test/Conversion/ssd-lower-to-gpu-pool.mlir, @chunked_i8). With
// checkpoints, even at chunk ends only, the plan keeps three launches: the
// fused chunk kernel stores a checkpoint from fragments of several warps,
// where no row's scale is at hand; a hand-written fused config is refused
// in one line naming the way out. f16 pools with the same checkpoints stay
// fused.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file -verify-diagnostics -o /dev/null

// CHECK-LABEL: func.func @i8
// CHECK:       fusion = state_and_output
func.func @i8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @f8_stochastic
// CHECK:       fusion = state_and_output
func.func @f8_stochastic(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf8E4M3FN>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %seed: memref<i64>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf8E4M3FN>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) rounding_seed(%seed : memref<i64>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

// CHECK-LABEL: func.func @i8_checkpoints
// CHECK:       fusion = none
func.func @i8_checkpoints(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) checkpoint_slots(%cs : memref<?x4xi32>) checkpoint_interval(64)
      outs(%y : memref<?x4x16xbf16>) {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @f16_checkpoints
// CHECK:       fusion = state_and_output
func.func @f16_checkpoints(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf16>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x4xi32>) checkpoint_interval(64) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// The same i8 op with the config the planner gives the f16 one.
func.func @i8_checkpoints_fused(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xi32>, %y: memref<?x4x16xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the GPU chunked kernels store the checkpoints of i8 pools unfused only (the fused chunk kernel stores a checkpoint from fragments of several warps, which hold no row's scale); plan them with fused-state-passing=false}}
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) checkpoint_slots(%cs : memref<?x4xi32>) checkpoint_interval(64)
      outs(%y : memref<?x4x16xbf16>)
      {config = #ssd.scan_config<form = chunked, chunk_size = 64, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 23968>}
  return
}
