// RUN: ssd-opt %s | ssd-opt | FileCheck %s
// RUN: ssd-opt %s -mlir-print-op-generic | ssd-opt | FileCheck %s
// RUN: ssd-opt %s -emit-bytecode | ssd-opt | FileCheck %s

// Both forms, every optional operand present and absent, both cache_indices
// layouts and element types, static and dynamic extents, survive printing and
// parsing in the custom, generic and bytecode syntaxes.

// CHECK-LABEL: func.func @memref_form_all_operands
// CHECK:      ssd.chunk_scan_varlen x(%{{[^ ]+}} : memref<?x80x64xbf16>) dt(%{{[^ ]+}} : memref<?x80xbf16>)
// CHECK-SAME:   A(%{{[^ ]+}} : memref<80xbf16>) B(%{{[^ ]+}} : memref<?x1x128xbf16>) C(%{{[^ ]+}} : memref<?x1x128xbf16>)
// CHECK-SAME:   D(%{{[^ ]+}} : memref<80xbf16>) dt_bias(%{{[^ ]+}} : memref<80xbf16>)
// CHECK-SAME:   ssm_pool(%{{[^ ]+}} : memref<64x80x64x128xf32>) query_start_loc(%{{[^ ]+}} : memref<?xi32>)
// CHECK-SAME:   has_initial_state(%{{[^ ]+}} : memref<?xi1>) cache_indices(%{{[^ ]+}} : memref<?xi32>)
// CHECK-SAME:   update_state(%{{[^ ]+}} : memref<?xi1>) outs(%{{[^ ]+}} : memref<?x80x64xbf16>)
// CHECK-SAME:   {chunk_size = 256 : i64, form = #ssd<form chunked>}
// CHECK-NOT:  ->
func.func @memref_form_all_operands(%x: memref<?x80x64xbf16>, %dt: memref<?x80xbf16>, %A: memref<80xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %D: memref<80xbf16>, %bias: memref<80xbf16>,
    %pool: memref<64x80x64x128xf32>, %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>,
    %upd: memref<?xi1>, %y: memref<?x80x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x80x64xbf16>) dt(%dt : memref<?x80xbf16>) A(%A : memref<80xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>) D(%D : memref<80xbf16>)
      dt_bias(%bias : memref<80xbf16>) ssm_pool(%pool : memref<64x80x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) update_state(%upd : memref<?xi1>)
      outs(%y : memref<?x80x64xbf16>) {form = #ssd<form chunked>, chunk_size = 256}
  return
}

// CHECK-LABEL: func.func @memref_form_required_only
// CHECK:      ssd.chunk_scan_varlen x(%{{[^ ]+}} : memref<4x8x16xf16>) dt(%{{[^ ]+}} : memref<4x8xf16>)
// CHECK-SAME:   A(%{{[^ ]+}} : memref<8xf16>) B(%{{[^ ]+}} : memref<4x8x32xf16>) C(%{{[^ ]+}} : memref<4x8x32xf16>)
// CHECK-SAME:   ssm_pool(%{{[^ ]+}} : memref<16x8x16x32xbf16>) query_start_loc(%{{[^ ]+}} : memref<5xi32>)
// CHECK-SAME:   cache_indices(%{{[^ ]+}} : memref<1x4xui32>) outs(%{{[^ ]+}} : memref<4x8x16xf16>)
// CHECK-SAME:   {form = #ssd<form serial>}
func.func @memref_form_required_only(%x: memref<4x8x16xf16>, %dt: memref<4x8xf16>, %A: memref<8xf16>,
    %B: memref<4x8x32xf16>, %C: memref<4x8x32xf16>, %pool: memref<16x8x16x32xbf16>,
    %qsl: memref<5xi32>, %ci: memref<1x4xui32>, %y: memref<4x8x16xf16>) {
  ssd.chunk_scan_varlen x(%x : memref<4x8x16xf16>) dt(%dt : memref<4x8xf16>) A(%A : memref<8xf16>)
      B(%B : memref<4x8x32xf16>) C(%C : memref<4x8x32xf16>) ssm_pool(%pool : memref<16x8x16x32xbf16>)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<1x4xui32>)
      outs(%y : memref<4x8x16xf16>) {form = #ssd<form serial>}
  return
}

// CHECK-LABEL: func.func @tensor_form
// CHECK:      %[[Y:.*]] = ssd.chunk_scan_varlen x(%{{[^ ]+}} : tensor<8x4x2xf32>) dt(%{{[^ ]+}} : tensor<8x4xf32>)
// CHECK-SAME:   A(%{{[^ ]+}} : tensor<4xf32>) B(%{{[^ ]+}} : tensor<8x2x3xf32>) C(%{{[^ ]+}} : tensor<8x2x3xf32>)
// CHECK-SAME:   D(%{{[^ ]+}} : tensor<4xf32>)
// CHECK-NOT:    dt_bias
// CHECK-SAME:   ssm_pool(%{{[^ ]+}} : memref<5x4x2x3xf32>) query_start_loc(%{{[^ ]+}} : tensor<3xi32>)
// CHECK-NOT:    has_initial_state
// CHECK-SAME:   cache_indices(%{{[^ ]+}} : tensor<1x2xui32>) update_state(%{{[^ ]+}} : tensor<2xi1>)
// CHECK-SAME:   -> tensor<8x4x2xf32>
// CHECK:      return %[[Y]]
func.func @tensor_form(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %C: tensor<8x2x3xf32>, %D: tensor<4xf32>, %pool: memref<5x4x2x3xf32>,
    %qsl: tensor<3xi32>, %ci: tensor<1x2xui32>, %upd: tensor<2xi1>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%C : tensor<8x2x3xf32>) D(%D : tensor<4xf32>)
      ssm_pool(%pool : memref<5x4x2x3xf32>) query_start_loc(%qsl : tensor<3xi32>)
      cache_indices(%ci : tensor<1x2xui32>) update_state(%upd : tensor<2xi1>) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// CHECK-LABEL: func.func @tensor_form_dynamic
// CHECK:      ssd.chunk_scan_varlen x(%{{[^ ]+}} : tensor<?x?x?xf32>)
// CHECK-SAME:   dt_bias(%{{[^ ]+}} : tensor<?xf32>)
// CHECK-SAME:   ssm_pool(%{{[^ ]+}} : memref<?x?x?x?xf32>)
// CHECK-SAME:   has_initial_state(%{{[^ ]+}} : tensor<?xi1>) cache_indices(%{{[^ ]+}} : tensor<?xi32>)
// CHECK-SAME:   -> tensor<?x?x?xf32>
func.func @tensor_form_dynamic(%x: tensor<?x?x?xf32>, %dt: tensor<?x?xf32>, %A: tensor<?xf32>,
    %B: tensor<?x?x?xf32>, %C: tensor<?x?x?xf32>, %bias: tensor<?xf32>, %pool: memref<?x?x?x?xf32>,
    %qsl: tensor<?xi32>, %init: tensor<?xi1>, %ci: tensor<?xi32>) -> tensor<?x?x?xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<?x?x?xf32>) dt(%dt : tensor<?x?xf32>) A(%A : tensor<?xf32>)
      B(%B : tensor<?x?x?xf32>) C(%C : tensor<?x?x?xf32>) dt_bias(%bias : tensor<?xf32>)
      ssm_pool(%pool : memref<?x?x?x?xf32>) query_start_loc(%qsl : tensor<?xi32>)
      has_initial_state(%init : tensor<?xi1>) cache_indices(%ci : tensor<?xi32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @memref_form_checkpoints
// CHECK:      cache_indices(%{{[^ ]+}} : memref<?xi32>)
// CHECK-SAME:   checkpoint_slots(%{{[^ ]+}} : memref<?x4xui32>) checkpoint_offsets(%{{[^ ]+}} : memref<?xi32>)
// CHECK-SAME:   checkpoint_interval(256) outs(%{{[^ ]+}} : memref<?x80x64xbf16>)
func.func @memref_form_checkpoints(%x: memref<?x80x64xbf16>, %dt: memref<?x80xbf16>, %A: memref<80xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %pool: memref<64x80x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xui32>, %co: memref<?xi32>,
    %y: memref<?x80x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x80x64xbf16>) dt(%dt : memref<?x80xbf16>) A(%A : memref<80xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>) ssm_pool(%pool : memref<64x80x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x4xui32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(256) outs(%y : memref<?x80x64xbf16>)
  return
}

// CHECK-LABEL: func.func @tensor_form_checkpoints
// CHECK:      update_state(%{{[^ ]+}} : tensor<2xi1>) checkpoint_slots(%{{[^ ]+}} : tensor<2x5xi32>)
// CHECK-NOT:    checkpoint_offsets
// CHECK-SAME:   checkpoint_interval(1) -> tensor<8x4x2xf32>
func.func @tensor_form_checkpoints(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %C: tensor<8x2x3xf32>, %pool: memref<16x4x2x3xf32>,
    %qsl: tensor<3xi32>, %ci: tensor<2xi32>, %upd: tensor<2xi1>, %cs: tensor<2x5xi32>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%C : tensor<8x2x3xf32>)
      ssm_pool(%pool : memref<16x4x2x3xf32>) query_start_loc(%qsl : tensor<3xi32>)
      cache_indices(%ci : tensor<2xi32>) update_state(%upd : tensor<2xi1>)
      checkpoint_slots(%cs : tensor<2x5xi32>) checkpoint_interval(1) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// CHECK-LABEL: func.func @memref_form_tree
// CHECK:        checkpoint_slots(%{{[^ ]+}} : memref<?x16xi32>) checkpoint_interval(1)
// CHECK-SAME:   token_parents(%{{[^ ]+}} : memref<?xi32>) outs(%{{[^ ]+}} : memref<?x4x2xf32>)
func.func @memref_form_tree(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<?x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %cs: memref<?x16xi32>, %tp: memref<?xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<?x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x16xi32>) checkpoint_interval(1)
      token_parents(%tp : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}

// CHECK-LABEL: func.func @tensor_form_tree
// CHECK:        cache_indices(%{{[^ ]+}} : tensor<2xi32>) token_parents(%{{[^ ]+}} : tensor<8xi32>) -> tensor<8x4x2xf32>
func.func @tensor_form_tree(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>,
    %tp: tensor<8xi32>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%B : tensor<8x2x3xf32>)
      ssm_pool(%pool : memref<16x4x2x3xf32>) query_start_loc(%qsl : tensor<3xi32>)
      cache_indices(%ci : tensor<2xi32>) token_parents(%tp : tensor<8xi32>) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// CHECK-LABEL: func.func @memref_form_i8_pool_stochastic
// CHECK:        ssm_pool(%{{[^ ]+}} : memref<?x4x2x3xi8>) ssm_pool_scales(%{{[^ ]+}} : memref<?x4x2xf32>)
// CHECK-SAME:   rounding_seed(%{{[^ ]+}} : memref<i64>) outs(%{{[^ ]+}} : memref<?x4x2xf32>)
// CHECK-SAME:   {pool_rounding = #ssd<pool_rounding stochastic>}
func.func @memref_form_i8_pool_stochastic(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<?x4x2x3xi8>, %scales: memref<?x4x2xf32>, %qsl: memref<?xi32>,
    %ci: memref<?xi32>, %seed: memref<i64>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<?x4x2x3xi8>)
      ssm_pool_scales(%scales : memref<?x4x2xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      rounding_seed(%seed : memref<i64>) outs(%y : memref<?x4x2xf32>)
      {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// CHECK-LABEL: func.func @tensor_form_f8_pool_stochastic
// CHECK:        ssm_pool(%{{[^ ]+}} : memref<16x4x2x3xf8E4M3FN>) ssm_pool_scales(%{{[^ ]+}} : memref<16x4x2xf32>)
// CHECK-SAME:   rounding_seed(%{{[^ ]+}} : tensor<i64>) {pool_rounding = #ssd<pool_rounding stochastic>} -> tensor<8x4x2xf32>
func.func @tensor_form_f8_pool_stochastic(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %pool: memref<16x4x2x3xf8E4M3FN>, %scales: memref<16x4x2xf32>,
    %qsl: tensor<3xi32>, %ci: tensor<2xi32>, %seed: tensor<i64>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%B : tensor<8x2x3xf32>)
      ssm_pool(%pool : memref<16x4x2x3xf8E4M3FN>) ssm_pool_scales(%scales : memref<16x4x2xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>)
      rounding_seed(%seed : tensor<i64>) {pool_rounding = #ssd<pool_rounding stochastic>} -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// CHECK-LABEL: func.func @memref_form_f16_pool
// CHECK:        ssm_pool(%{{[^ ]+}} : memref<16x4x2x3xf16>) query_start_loc
// CHECK-SAME:   {pool_rounding = #ssd<pool_rounding nearest_even>}
func.func @memref_form_f16_pool(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x2x3xf32>, %pool: memref<16x4x2x3xf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>,
    %y: memref<8x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x2x3xf32>) C(%B : memref<8x2x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf16>)
      query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
      outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding nearest_even>}
  return
}

// The invariant keyword comes first, in the custom syntax and from the
// attribute dictionary ({invariant}) alike; its config says so too.
// CHECK-LABEL: func.func @invariant
// CHECK:      ssd.chunk_scan_varlen invariant x(%{{[^ ]+}} : memref<4x8x16xf16>)
// CHECK-SAME:   {config = #ssd.scan_config<form = chunked, chunk_size = 64, invariant = true, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4>}
// CHECK:      ssd.chunk_scan_varlen invariant x(%{{[^ ]+}} : memref<4x8x16xf16>)
// CHECK-SAME:   outs(%{{[^ ]+}} : memref<4x8x16xf16>){{$}}
// CHECK:      ssd.chunk_scan_varlen x(%{{[^ ]+}} : memref<4x8x16xf16>)
func.func @invariant(%x: memref<4x8x16xf16>, %dt: memref<4x8xf16>, %A: memref<8xf16>,
    %B: memref<4x8x32xf16>, %C: memref<4x8x32xf16>, %pool: memref<16x8x16x32xf32>,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %y: memref<4x8x16xf16>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<4x8x16xf16>) dt(%dt : memref<4x8xf16>) A(%A : memref<8xf16>)
      B(%B : memref<4x8x32xf16>) C(%C : memref<4x8x32xf16>) ssm_pool(%pool : memref<16x8x16x32xf32>)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<4xi32>)
      outs(%y : memref<4x8x16xf16>)
      {config = #ssd.scan_config<form = chunked, chunk_size = 64, invariant = true, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4>}
  ssd.chunk_scan_varlen x(%x : memref<4x8x16xf16>) dt(%dt : memref<4x8xf16>) A(%A : memref<8xf16>)
      B(%B : memref<4x8x32xf16>) C(%C : memref<4x8x32xf16>) ssm_pool(%pool : memref<16x8x16x32xf32>)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<4xi32>)
      outs(%y : memref<4x8x16xf16>) {invariant}
  ssd.chunk_scan_varlen x(%x : memref<4x8x16xf16>) dt(%dt : memref<4x8xf16>) A(%A : memref<8xf16>)
      B(%B : memref<4x8x32xf16>) C(%C : memref<4x8x32xf16>) ssm_pool(%pool : memref<16x8x16x32xf32>)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<4xi32>)
      outs(%y : memref<4x8x16xf16>)
  return
}

// The plan ssd-select-form records: the form and chunk size, a mixed launch's
// threshold, and the chunked GPU kernels' choices.
// CHECK-LABEL: func.func @scan_configs
// CHECK-SAME:  c0 = #ssd.scan_config<form = serial, chunk_size = 256>
// CHECK-SAME:  c1 = #ssd.scan_config<form = serial, chunk_size = 128, mixed_min_tokens = 1024, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 50176>
// CHECK-SAME:  c2 = #ssd.scan_config<form = chunked, chunk_size = 64, chip = "sm_90a", serial_rows_per_warp = 2, serial_warps_per_block = 8, fusion = none, output_rows = 64, state_parts = 2, heads_per_block = 1, matmul = wgmma, fragment_loads = scalar, staging = registers, blocks_per_sm = 0, shared_memory = 24576>
// CHECK-SAME:  c3 = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_86", serial_rows_per_warp = 1, serial_warps_per_block = 32>
// CHECK-SAME:  c4 = #ssd.scan_config<form = serial, chunk_size = 256>
// CHECK-SAME:  c5 = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>
// pipeline_stages is printed only when it is not 2, a double buffer.
// CHECK-SAME:  c6 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 4, blocks_per_sm = 2, shared_memory = 104608>
// CHECK-SAME:  c7 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 80032>
// cb_in_block is printed only when true.
// CHECK-SAME:  c8 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 112800>
// CHECK-SAME:  c9 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 80032>}
func.func @scan_configs() attributes {
    c0 = #ssd.scan_config<form = serial, chunk_size = 256>,
    c1 = #ssd.scan_config<form = serial, chunk_size = 128, mixed_min_tokens = 1024, chip = "sm_80", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = mma_sync, fragment_loads = ldmatrix, staging = cp_async, blocks_per_sm = 2, shared_memory = 50176>,
    c2 = #ssd.scan_config<form = chunked, chunk_size = 64, chip = "sm_90a", serial_rows_per_warp = 2, serial_warps_per_block = 8, fusion = none, output_rows = 64, state_parts = 2, heads_per_block = 1, matmul = wgmma, fragment_loads = scalar, staging = registers, blocks_per_sm = 0, shared_memory = 24576>,
    c3 = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_86", serial_rows_per_warp = 1, serial_warps_per_block = 32>,
    c4 = #ssd.scan_config<form = serial, chunk_size = 256, invariant = false>,
    c5 = #ssd.scan_config<invariant = true, form = serial, chunk_size = 256>,
    c6 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 4, blocks_per_sm = 2, shared_memory = 104608>,
    c7 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, pipeline_stages = 2, blocks_per_sm = 2, shared_memory = 80032>,
    c8 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = true, blocks_per_sm = 2, shared_memory = 112800>,
    c9 = #ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a", serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async, cb_in_block = false, blocks_per_sm = 2, shared_memory = 80032>} {
  return
}

// ssd.kernel_occupancy, inside a kernel.
// CHECK-LABEL: gpu.module @occupancy
// CHECK:         ssd.kernel_occupancy min_blocks_per_sm = 2
gpu.module @occupancy {
  gpu.func @k() kernel {
    ssd.kernel_occupancy min_blocks_per_sm = 2
    gpu.return
  }
}
