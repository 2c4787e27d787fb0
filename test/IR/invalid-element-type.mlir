// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen: element types.

func.func @type_x_0(%a0: memref<8x4x2xi32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'x' element type must be f32, f16 or bf16 (the model dtype), got 'i32'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xi32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_x_1(%a0: memref<8x4x2xf64>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'x' element type must be f32, f16 or bf16 (the model dtype), got 'f64'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf64>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_dt_2(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf16>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf16>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_A_3(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf16>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'A' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf16>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_B_4(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf16>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'B' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf16>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_C_5(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf16>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'C' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf16>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_D_6(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf16>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'D' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf16>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_dt_bias_7(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf16>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'dt_bias' element type 'f16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf16>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_outs_8(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xbf16>) {
  // expected-error @+1 {{'y' element type 'bf16' must match the model dtype 'f32' of 'x'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xbf16>)
  return
}

// -----

func.func @type_ssm_pool_9(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xi16>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'ssm_pool' element type must be f32, bf16, f16, f8E4M3FN or i8, got 'i16'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xi16>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_query_start_loc_10(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi64>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'query_start_loc' element type must be i32, got 'i64'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi64>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_query_start_loc_11(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xui32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'query_start_loc' element type must be i32, got 'ui32'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xui32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_cache_indices_12(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi64>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' element type must be i32 or ui32, got 'i64'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi64>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_cache_indices_13(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xsi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'cache_indices' element type must be i32 or ui32, got 'si32'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xsi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_has_initial_state_14(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi8>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'has_initial_state' element type must be i1, got 'i8'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi8>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @type_update_state_15(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi32>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{'update_state' element type must be i1, got 'i32'}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi32>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

