// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen: the tensor/memref form rules.

func.func @tensor_x_memref_dt(%a0: tensor<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: tensor<4xf32>, %a3: tensor<8x2x3xf32>, %a4: tensor<8x2x3xf32>, %a5: tensor<4xf32>, %a6: tensor<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: tensor<3xi32>, %a9: tensor<2xi1>, %a10: tensor<2xi32>, %a11: tensor<2xi1>) {
  // expected-error @+1 {{operand 'dt' is a memref but 'x' is a tensor}}
  %y = ssd.chunk_scan_varlen
    x(%a0 : tensor<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : tensor<4xf32>)
    B(%a3 : tensor<8x2x3xf32>) C(%a4 : tensor<8x2x3xf32>) D(%a5 : tensor<4xf32>)
    dt_bias(%a6 : tensor<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : tensor<3xi32>)
    has_initial_state(%a9 : tensor<2xi1>) cache_indices(%a10 : tensor<2xi32>) update_state(%a11 : tensor<2xi1>) -> tensor<8x4x2xf32>
  return
}

// -----

func.func @memref_x_tensor_qsl(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: tensor<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{operand 'query_start_loc' is a tensor but 'x' is a memref}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : tensor<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @memref_x_tensor_optional_mask(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: tensor<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{operand 'update_state' is a tensor but 'x' is a memref}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : tensor<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

func.func @tensor_form_with_outs(%a0: tensor<8x4x2xf32>, %a1: tensor<8x4xf32>, %a2: tensor<4xf32>, %a3: tensor<8x2x3xf32>, %a4: tensor<8x2x3xf32>, %a5: tensor<4xf32>, %a6: tensor<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: tensor<3xi32>, %a9: tensor<2xi1>, %a10: tensor<2xi32>, %a11: tensor<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{the tensor form returns y as its one result and takes no 'outs' buffer}}
  %y = ssd.chunk_scan_varlen
    x(%a0 : tensor<8x4x2xf32>) dt(%a1 : tensor<8x4xf32>) A(%a2 : tensor<4xf32>)
    B(%a3 : tensor<8x2x3xf32>) C(%a4 : tensor<8x2x3xf32>) D(%a5 : tensor<4xf32>)
    dt_bias(%a6 : tensor<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : tensor<3xi32>)
    has_initial_state(%a9 : tensor<2xi1>) cache_indices(%a10 : tensor<2xi32>) update_state(%a11 : tensor<2xi1>)
    outs(%a12 : memref<8x4x2xf32>) -> tensor<8x4x2xf32>
  return
}

// -----

func.func @memref_form_without_outs(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>) {
  // expected-error @+1 {{the memref form takes y as an 'outs' memref and has no results}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
  return
}

// -----

func.func @memref_form_with_result(%a0: memref<8x4x2xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{the memref form takes y as an 'outs' memref and has no results}}
  %y = ssd.chunk_scan_varlen
    x(%a0 : memref<8x4x2xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>) -> tensor<8x4x2xf32>
  return
}

// -----

func.func @unranked_x(%a0: memref<*xf32>, %a1: memref<8x4xf32>, %a2: memref<4xf32>, %a3: memref<8x2x3xf32>, %a4: memref<8x2x3xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<5x4x2x3xf32>, %a8: memref<3xi32>, %a9: memref<2xi1>, %a10: memref<2xi32>, %a11: memref<2xi1>, %a12: memref<8x4x2xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor or memref}}
  ssd.chunk_scan_varlen
    x(%a0 : memref<*xf32>) dt(%a1 : memref<8x4xf32>) A(%a2 : memref<4xf32>)
    B(%a3 : memref<8x2x3xf32>) C(%a4 : memref<8x2x3xf32>) D(%a5 : memref<4xf32>)
    dt_bias(%a6 : memref<4xf32>) ssm_pool(%a7 : memref<5x4x2x3xf32>) query_start_loc(%a8 : memref<3xi32>)
    has_initial_state(%a9 : memref<2xi1>) cache_indices(%a10 : memref<2xi32>) update_state(%a11 : memref<2xi1>)
    outs(%a12 : memref<8x4x2xf32>)
  return
}

// -----

// The custom syntax already refuses a tensor pool while parsing; the generic
// syntax reaches the verifier.
func.func @tensor_pool(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>, %B: tensor<8x2x3xf32>,
    %pool: tensor<5x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>) {
  // expected-error @+1 {{operand #5 must be memref of any type values}}
  %y = "ssd.chunk_scan_varlen"(%x, %dt, %A, %B, %B, %pool, %qsl, %ci) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0>}>
      : (tensor<8x4x2xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x2x3xf32>, tensor<8x2x3xf32>, tensor<5x4x2x3xf32>, tensor<3xi32>, tensor<2xi32>) -> tensor<8x4x2xf32>
  return
}

// -----

func.func @nonpositive_chunk_size(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>,
    %pool: memref<5x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  "ssd.chunk_scan_varlen"(%x, %dt, %A, %B, %B, %pool, %qsl, %ci, %y) <{chunk_size = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1>}>
      : (memref<8x4x2xf32>, memref<8x4xf32>, memref<4xf32>, memref<8x2x3xf32>, memref<8x2x3xf32>, memref<5x4x2x3xf32>, memref<3xi32>, memref<2xi32>, memref<8x4x2xf32>) -> ()
  return
}

// -----

func.func @unknown_form(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>,
    %pool: memref<5x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+3 {{expected ::mlir::ssd::Form to be one of: serial, chunked}}
  // expected-error @+2 {{failed to parse SSD_FormAttr parameter 'value'}}
  "ssd.chunk_scan_varlen"(%x, %dt, %A, %B, %B, %pool, %qsl, %ci, %y) <{
      form = #ssd<form blocked>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1>}>
      : (memref<8x4x2xf32>, memref<8x4xf32>, memref<4xf32>, memref<8x2x3xf32>, memref<8x2x3xf32>, memref<5x4x2x3xf32>, memref<3xi32>, memref<2xi32>, memref<8x4x2xf32>) -> ()
  return
}
