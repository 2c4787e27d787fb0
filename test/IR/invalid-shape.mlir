// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen: extents shared between operands, and H a multiple of G.

func.func @shape_T_dt(%a0: memref<8x4x2xf32>, %a1: memref<7x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt' dim 0 (7) does not match T (8) given by 'x' dim 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<7x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_T_B(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<9x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'B' dim 0 (9) does not match T (8) given by 'x' dim 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<9x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_T_C(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<6x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'C' dim 0 (6) does not match T (8) given by 'x' dim 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<6x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_T_y(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<4x4x2xf32>) {
  // expected-error @+1 {{'y' dim 0 (4) does not match T (8) given by 'x' dim 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<4x4x2xf32>)
  return
}

// -----

func.func @shape_T_dynamic_x(%a0: memref<?x4x2xf32>, %a1: memref<7x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'B' dim 0 (8) does not match T (7) given by 'dt' dim 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<?x4x2xf32>) dt(%a1 : memref<7x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_dt(%a0: memref<8x4x2xf32>, %a1: memref<8x3xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt' dim 1 (3) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x3xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_A(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<5xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'A' dim 0 (5) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<5xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_D(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<2xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'D' dim 0 (2) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<2xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_dt_bias(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<8xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt_bias' dim 0 (8) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<8xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_pool(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x2x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' dim 1 (2) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x2x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_H_y(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x2x2xf32>) {
  // expected-error @+1 {{'y' dim 1 (2) does not match H (4) given by 'x' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x2x2xf32>)
  return
}

// -----

func.func @shape_P_pool(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x4x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' dim 2 (4) does not match P (2) given by 'x' dim 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x4x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_P_y(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x1xf32>) {
  // expected-error @+1 {{'y' dim 2 (1) does not match P (2) given by 'x' dim 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x1xf32>)
  return
}

// -----

func.func @shape_G_C(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x1x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'C' dim 1 (1) does not match G (2) given by 'B' dim 1}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x1x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_N_C(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x4xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'C' dim 2 (4) does not match N (3) given by 'B' dim 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x4xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_N_pool(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x16xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' dim 3 (16) does not match N (3) given by 'B' dim 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x16xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_batch_has_initial_state(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<3xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'has_initial_state' dim 0 (3) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<3xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_batch_cache_indices(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<1xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' dim 0 (1) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<1xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_batch_cache_indices_row(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<1x3xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' dim 1 (3) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<1x3xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_batch_update_state(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<4xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'update_state' dim 0 (4) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<4xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_cache_indices_row_leading(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2x2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' of rank 2 must have shape [1, batch], got leading dimension 2}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2x2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_empty_query_start_loc(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<0xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'query_start_loc' must hold batch + 1 >= 1 offsets, got dimension 0}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<0xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_zero_groups(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x0x3xf32>, %a4: memref<8x0x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{ngroups (0) must be positive}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x0x3xf32>) C(%a4 : memref<8x0x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @shape_heads_not_multiple_of_groups(%a0: memref<8x80x2xf32>, %a1: memref<8x80xf32>, %a2: memref<80xf32>, %a3: memref<8x3x3xf32>, %a4: memref<8x3x3xf32>, %a5: memref<80xf32>, %a6: memref<80xf32>, %a7: memref<5x80x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x80x2xf32>) {
  // expected-error @+1 {{nheads (80) must be a multiple of ngroups (3)}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x80x2xf32>) dt(%a1 : memref<8x80xf32>) A(%a2 : memref<80xf32>)
    B(%a3 : memref<8x3x3xf32>) C(%a4 : memref<8x3x3xf32>) D(%a5 : memref<80xf32>)
    dt_bias(%a6 : memref<80xf32>) ssm_pool(%a7 : memref<5x80x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x80x2xf32>)
  return
}

