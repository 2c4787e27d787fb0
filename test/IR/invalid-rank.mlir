// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen: operand ranks.

func.func @rank_x(%a0: memref<8x4xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'x' must have rank 3 ([T, H, P]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_dt(%a0: memref<8x4x2xf32>, %a1: memref<8xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt' must have rank 2 ([T, H]), got rank 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_A(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4x1xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'A' must have rank 1 ([H]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4x1xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_B(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x6xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'B' must have rank 3 ([T, G, N]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x6xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_C(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3x1xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'C' must have rank 3 ([T, G, N]), got rank 4}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3x1xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_D(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4x1xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'D' must have rank 1 ([H]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4x1xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_dt_bias(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<f32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt_bias' must have rank 1 ([H]), got rank 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<f32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_ssm_pool(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x6xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' must have rank 4 ([S, H, P, N]), got rank 3}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x6xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_query_start_loc(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3x1xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'query_start_loc' must have rank 1 ([batch + 1]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3x1xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_has_initial_state(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2x1xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'has_initial_state' must have rank 1 ([batch]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2x1xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_update_state(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<1x2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'update_state' must have rank 1 ([batch]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<1x2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @rank_y(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x8xf32>) {
  // expected-error @+1 {{'y' must have rank 3 ([T, H, P]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x8xf32>)
  return
}

// -----

func.func @rank_cache_indices(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<1x1x2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' must have rank 1 ([batch]) or 2 ([1, batch]), got rank 3}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<1x1x2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

