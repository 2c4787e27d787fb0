// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen about compressed pools:
// the pool's element type, the scales an 8-bit pool needs and no other takes
// (element type, rank, extents, container), and the seed that stochastic
// rounding needs and nothing else takes (element type, rank, container), and
// stochastic rounding of an f32 pool, which has nothing to round.

func.func @pool_f64(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf64>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' element type must be f32, bf16, f16, f8E4M3FN or i8, got 'f64'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf64>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @pool_ui8(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xui8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' element type must be f32, bf16, f16, f8E4M3FN or i8, got 'ui8'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xui8>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @pool_f8e5m2(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf8E5M2>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' element type must be f32, bf16, f16, f8E4M3FN or i8, got 'f8E5M2'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf8E5M2>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @i8_without_scales(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{needs 'ssm_pool_scales' [S, H, P] f32: one scale per row of N codes}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @f8_without_scales(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf8E4M3FN>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{needs 'ssm_pool_scales' [S, H, P] f32: one scale per row of N codes}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf8E4M3FN>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_with_f32_pool(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool_scales' is only for an 8-bit pool (f8E4M3FN or i8); the pool's element type is 'f32'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) ssm_pool_scales(%scales : memref<9x4x2xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_with_bf16_pool(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xbf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool_scales' is only for an 8-bit pool (f8E4M3FN or i8); the pool's element type is 'bf16'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xbf16>) ssm_pool_scales(%scales : memref<9x4x2xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_f16(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x2xf16>) {
  // expected-error @+1 {{'ssm_pool_scales' element type must be f32, got 'f16'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>) ssm_pool_scales(%scales : memref<9x4x2xf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_rank_four(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x2x1xf32>) {
  // expected-error @+1 {{'ssm_pool_scales' must have rank 3 ([S, H, P]), got rank 4}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>) ssm_pool_scales(%scales : memref<9x4x2x1xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_slots(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool_scales' dim 0 (8) does not match S (9) given by 'ssm_pool' dim 0}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>) ssm_pool_scales(%scales : memref<8x4x2xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_head_dim(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf8E4M3FN>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x3xf32>) {
  // expected-error @+1 {{'ssm_pool_scales' dim 2 (3) does not match P (2) given by 'x' dim 2}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf8E4M3FN>) ssm_pool_scales(%scales : memref<9x4x3xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @scales_tensor(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: tensor<9x4x2xf32>) {
  // expected-error @+1 {{must be memref of any type values, but got 'tensor<9x4x2xf32>'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>) ssm_pool_scales(%scales : tensor<9x4x2xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @stochastic_without_seed(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xbf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{pool_rounding stochastic needs the 0-d i64 operand 'rounding_seed'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xbf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

func.func @seed_without_stochastic(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xbf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %seed: memref<i64>) {
  // expected-error @+1 {{'rounding_seed' is only for pool_rounding stochastic}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xbf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : memref<i64>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @seed_with_nearest_even(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xi8>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %scales: memref<9x4x2xf32>, %seed: memref<i64>) {
  // expected-error @+1 {{'rounding_seed' is only for pool_rounding stochastic}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xi8>) ssm_pool_scales(%scales : memref<9x4x2xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : memref<i64>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding nearest_even>}
  return
}

// -----

func.func @seed_i32(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %seed: memref<i32>) {
  // expected-error @+1 {{'rounding_seed' element type must be i64, got 'i32'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : memref<i32>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

func.func @seed_rank_one(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %seed: memref<1xi64>) {
  // expected-error @+1 {{'rounding_seed' must have rank 0 ([]), got rank 1}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : memref<1xi64>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

func.func @seed_tensor_in_memref_form(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf16>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %seed: tensor<i64>) {
  // expected-error @+1 {{operand 'rounding_seed' is a tensor but 'x' is a memref}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf16>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : tensor<i64>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

func.func @stochastic_f32_pool(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %seed: memref<i64>) {
  // expected-error @+1 {{pool_rounding stochastic has nothing to round in an f32 pool}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>)
    query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>)
    rounding_seed(%seed : memref<i64>)
    outs(%y : memref<8x4x2xf32>) {pool_rounding = #ssd<pool_rounding stochastic>}
  return
}
