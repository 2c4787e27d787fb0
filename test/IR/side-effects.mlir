// RUN: ssd-opt %s -cse | FileCheck %s --check-prefix=CSE
// RUN: ssd-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// The op updates the pool in place, so it is never pure: two identical ops
// are two updates of the pool (CSE must keep both), and an op whose y is
// unused still writes the pool (canonicalization must keep it).

// CSE-LABEL: func.func @identical_ops_stay_apart
// CSE-COUNT-2: ssd.chunk_scan_varlen
// CSE: return
// CANON-LABEL: func.func @identical_ops_stay_apart
// CANON-COUNT-2: ssd.chunk_scan_varlen
func.func @identical_ops_stay_apart(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %pool: memref<5x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>)
    -> (tensor<8x4x2xf32>, tensor<8x4x2xf32>) {
  %y0 = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%B : tensor<8x2x3xf32>) ssm_pool(%pool : memref<5x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>) -> tensor<8x4x2xf32>
  %y1 = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%B : tensor<8x2x3xf32>) ssm_pool(%pool : memref<5x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>) -> tensor<8x4x2xf32>
  return %y0, %y1 : tensor<8x4x2xf32>, tensor<8x4x2xf32>
}

// CSE-LABEL: func.func @unused_y_is_kept
// CSE: ssd.chunk_scan_varlen
// CANON-LABEL: func.func @unused_y_is_kept
// CANON: ssd.chunk_scan_varlen
// CANON-NEXT: return
func.func @unused_y_is_kept(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x2x3xf32>, %pool: memref<5x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>) {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x2x3xf32>) C(%B : tensor<8x2x3xf32>) ssm_pool(%pool : memref<5x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>) -> tensor<8x4x2xf32>
  return
}

// CANON-LABEL: func.func @memref_form_is_kept
// CANON: ssd.chunk_scan_varlen
// CANON-NEXT: return
func.func @memref_form_is_kept(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x2x3xf32>, %pool: memref<5x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>,
    %y: memref<8x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x2x3xf32>) C(%B : memref<8x2x3xf32>) ssm_pool(%pool : memref<5x4x2x3xf32>)
      query_start_loc(%qsl : memref<3xi32>) cache_indices(%ci : memref<2xi32>) outs(%y : memref<8x4x2xf32>)
  return
}
