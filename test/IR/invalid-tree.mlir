// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen about token_parents
// (draft trees): element type, rank, length T, container kind, the
// checkpoint interval, and the forms that cannot follow a parent.
func.func @element_type_i64(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi64>) {
  // expected-error @+1 {{'token_parents' element type must be i32, got 'i64'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xi64>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @element_type_ui32(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xui32>) {
  // expected-error @+1 {{'token_parents' element type must be i32, got 'ui32'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xui32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_two(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8x1xi32>) {
  // expected-error @+1 {{'token_parents' must have rank 1 ([T]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8x1xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @length_not_tokens(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<7xi32>) {
  // expected-error @+1 {{'token_parents' dim 0 (7) does not match T (8) given by 'x' dim 0}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<7xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @interval_not_one(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi32>) {
  // expected-error @+1 {{'token_parents' needs checkpoint_interval 1 (column j of checkpoint_slots holds the state of token j), got 2}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x8xi32>) checkpoint_interval(2)
    token_parents(%tp : memref<8xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @form_chunked(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi32>) {
  // expected-error @+1 {{form chunked cannot serve 'token_parents'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xi32>)
    outs(%y : memref<8x4x2xf32>) {form = #ssd<form chunked>, chunk_size = 4 : i64}
  return
}

// -----

func.func @config_chunked(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi32>) {
  // expected-error @+1 {{form chunked cannot serve 'token_parents'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xi32>)
    outs(%y : memref<8x4x2xf32>) {config = #ssd.scan_config<form = chunked, chunk_size = 4>}
  return
}

// -----

func.func @config_mixed(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi32>) {
  // expected-error @+1 {{config mixed_min_tokens cannot serve 'token_parents'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xi32>)
    outs(%y : memref<8x4x2xf32>) {config = #ssd.scan_config<form = serial, chunk_size = 4, mixed_min_tokens = 64>}
  return
}

// -----

func.func @invariant(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x8xi32>, %tp: memref<8xi32>) {
  // expected-error @+1 {{invariant cannot serve 'token_parents'}}
  ssd.chunk_scan_varlen invariant
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : memref<8xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @tensor_in_memref_form(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %tp: tensor<8xi32>) {
  // expected-error @+1 {{operand 'token_parents' is a tensor but 'x' is a memref}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    token_parents(%tp : tensor<8xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}
