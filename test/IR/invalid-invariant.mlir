// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the invariant mode: an invariant config runs
// the serial GPU kernel only, and the op and its config agree.

// expected-error @+1 {{invariant = true runs every sequence in the serial GPU kernel: mixed_min_tokens (a mixed launch's chunked kernels) does not apply}}
func.func @invariant_mixing() attributes {c = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024, invariant = true>} {
  return
}

// -----

// expected-error @+1 {{invariant = true runs every sequence in the serial GPU kernel: the chunked kernels' choices (fusion, output_rows, state_parts, heads_per_block, matmul, fragment_loads, staging, blocks_per_sm, shared_memory) do not apply}}
func.func @invariant_chunked_kernels() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 64, invariant = true, chip = "sm_90a", serial_rows_per_warp = 2, serial_warps_per_block = 8, fusion = none, output_rows = 64, state_parts = 2, heads_per_block = 1, matmul = wgmma, fragment_loads = scalar, staging = registers, blocks_per_sm = 0, shared_memory = 24576>} {
  return
}

// -----

// A single chunked kernels' choice is refused for the same reason (before
// the rule that asks for all nine).
// expected-error @+1 {{invariant = true runs every sequence in the serial GPU kernel: the chunked kernels' choices}}
func.func @invariant_heads_per_block() attributes {c = #ssd.scan_config<form = chunked, chunk_size = 64, invariant = true, heads_per_block = 2>} {
  return
}

// -----

func.func @invariant_op_plain_config(%x: memref<4x2x8xf32>, %dt: memref<4x2xf32>, %A: memref<2xf32>,
    %B: memref<4x1x8xf32>, %C: memref<4x1x8xf32>, %pool: memref<4x2x8x8xf32>,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %y: memref<4x2x8xf32>) {
  // expected-error @+1 {{'ssd.chunk_scan_varlen' op is invariant but its config is not (invariant = true): the lowerings read the config, so the two must agree}}
  ssd.chunk_scan_varlen invariant x(%x : memref<4x2x8xf32>) dt(%dt : memref<4x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<4x1x8xf32>) C(%C : memref<4x1x8xf32>)
      ssm_pool(%pool : memref<4x2x8x8xf32>) query_start_loc(%qsl : memref<5xi32>)
      cache_indices(%ci : memref<4xi32>) outs(%y : memref<4x2x8xf32>)
      {config = #ssd.scan_config<form = serial, chunk_size = 256>}
  return
}

// -----

func.func @plain_op_invariant_config(%x: memref<4x2x8xf32>, %dt: memref<4x2xf32>, %A: memref<2xf32>,
    %B: memref<4x1x8xf32>, %C: memref<4x1x8xf32>, %pool: memref<4x2x8x8xf32>,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %y: memref<4x2x8xf32>) {
  // expected-error @+1 {{'ssd.chunk_scan_varlen' op is not invariant but its config is (invariant = true): the lowerings read the config, so the two must agree}}
  ssd.chunk_scan_varlen x(%x : memref<4x2x8xf32>) dt(%dt : memref<4x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<4x1x8xf32>) C(%C : memref<4x1x8xf32>)
      ssm_pool(%pool : memref<4x2x8x8xf32>) query_start_loc(%qsl : memref<5xi32>)
      cache_indices(%ci : memref<4xi32>) outs(%y : memref<4x2x8xf32>)
      {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
  return
}
