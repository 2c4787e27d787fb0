// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of #ssd.scan_config, and of the op's agreement
// with its config.

// expected-error @+1 {{chunk_size (0) must be in [1, 65536]}}
func.func @chunk_size_zero() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 0>} {
  return
}

// -----

// expected-error @+1 {{chunk_size (65537) must be in [1, 65536]}}
func.func @chunk_size_too_large() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 65537>} {
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

// expected-error @+1 {{fusion, output_rows, state_parts, heads_per_block and shared_memory are the chunked kernels' choices: all five or none}}
func.func @kernel_choices_partial() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = state>} {
  return
}

// -----

// expected-error @+1 {{the chunked kernels' choices need form = chunked or a mixed launch (mixed_min_tokens)}}
func.func @kernel_choices_serial() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, fusion = none, output_rows = 64, state_parts = 1, heads_per_block = 1, shared_memory = 1024>} {
  return
}

// -----

// expected-error @+1 {{output_rows (0), state_parts (1) and shared_memory (1024) must be positive}}
func.func @output_rows_zero() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = none, output_rows = 0, state_parts = 1, heads_per_block = 1, shared_memory = 1024>} {
  return
}

// -----

// expected-error @+1 {{heads_per_block (3) must be 1 or 2}}
func.func @heads_per_block_three() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = state_and_output, output_rows = 64, state_parts = 1, heads_per_block = 3, shared_memory = 1024>} {
  return
}

// -----

// expected-error @+1 {{heads_per_block = 2 needs fusion = state_and_output (a block of two heads computes both heads' y)}}
func.func @paired_heads_unfused_output() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = state, output_rows = 64, state_parts = 1, heads_per_block = 2, shared_memory = 1024>} {
  return
}

// -----

// expected-error @+1 {{fusion = state_and_output needs state_parts = 1 (the block that computes y holds the chunk's whole state), got 2}}
func.func @fused_output_split_state() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 256, fusion = state_and_output, output_rows = 64, state_parts = 2, heads_per_block = 1, shared_memory = 1024>} {
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
