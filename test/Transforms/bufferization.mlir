// RUN: ssd-opt %s -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// The tensor form bufferizes to the memref form: tensor operands become
// their buffers, y a fresh buffer sized from x, the pool passes through, and
// the form attributes survive.

// CHECK-LABEL: func.func @tensor_form(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x4x2xbf16>
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<16x4x2x3xf32>
// CHECK-SAME:    -> memref<?x4x2xbf16>
// CHECK:         %[[T:.*]] = memref.dim %[[X]], %c0
// CHECK:         %[[Y:.*]] = memref.alloc(%[[T]]) {{.*}}: memref<?x4x2xbf16>
// CHECK:         ssd.chunk_scan_varlen x(%[[X]] : memref<?x4x2xbf16>)
// CHECK-SAME:      D(%{{[^ ]+}} : memref<4xbf16>)
// CHECK-SAME:      ssm_pool(%[[POOL]] : memref<16x4x2x3xf32>)
// CHECK-SAME:      has_initial_state(%{{[^ ]+}} : memref<?xi1>)
// CHECK-SAME:      cache_indices(%{{[^ ]+}} : memref<1x?xui32>)
// CHECK-SAME:      outs(%[[Y]] : memref<?x4x2xbf16>) {chunk_size = 128 : i64, form = #ssd<form chunked>}
// CHECK-NOT:     -> tensor
// CHECK:         return %[[Y]]
func.func @tensor_form(%x: tensor<?x4x2xbf16>, %dt: tensor<?x4xbf16>, %A: tensor<4xbf16>,
    %B: tensor<?x1x3xbf16>, %D: tensor<4xbf16>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<?xi32>,
    %init: tensor<?xi1>, %ci: tensor<1x?xui32>) -> tensor<?x4x2xbf16> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<?x4x2xbf16>) dt(%dt : tensor<?x4xbf16>) A(%A : tensor<4xbf16>)
      B(%B : tensor<?x1x3xbf16>) C(%B : tensor<?x1x3xbf16>) D(%D : tensor<4xbf16>)
      ssm_pool(%pool : memref<16x4x2x3xf32>) query_start_loc(%qsl : tensor<?xi32>)
      has_initial_state(%init : tensor<?xi1>) cache_indices(%ci : tensor<1x?xui32>)
      {form = #ssd<form chunked>, chunk_size = 128} -> tensor<?x4x2xbf16>
  return %y : tensor<?x4x2xbf16>
}

// Two scans over the same inputs get two y buffers: y aliases nothing.
// CHECK-LABEL: func.func @two_results
// CHECK:         %[[Y0:.*]] = memref.alloc() {{.*}}: memref<8x4x2xf32>
// CHECK:         ssd.chunk_scan_varlen {{.*}} outs(%[[Y0]] : memref<8x4x2xf32>)
// CHECK:         %[[Y1:.*]] = memref.alloc() {{.*}}: memref<8x4x2xf32>
// CHECK:         ssd.chunk_scan_varlen {{.*}} outs(%[[Y1]] : memref<8x4x2xf32>)
// CHECK:         return %[[Y0]], %[[Y1]]
func.func @two_results(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>)
    -> (tensor<8x4x2xf32>, tensor<8x4x2xf32>) {
  %y0 = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>) -> tensor<8x4x2xf32>
  %y1 = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>) -> tensor<8x4x2xf32>
  return %y0, %y1 : tensor<8x4x2xf32>, tensor<8x4x2xf32>
}

// Checkpoint operands become buffers and the interval survives.
// CHECK-LABEL: func.func @checkpoints(
// CHECK-SAME:    %[[CS:[a-z0-9]+]]: memref<2x3xi32>
// CHECK-SAME:    %[[CO:[a-z0-9]+]]: memref<2xi32>
// CHECK:         ssd.chunk_scan_varlen
// CHECK-SAME:      checkpoint_slots(%[[CS]] : memref<2x3xi32>) checkpoint_offsets(%[[CO]] : memref<2xi32>)
// CHECK-SAME:      checkpoint_interval(4) outs(
func.func @checkpoints(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>,
    %cs: tensor<2x3xi32>, %co: tensor<2xi32>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>)
      ssm_pool(%pool : memref<16x4x2x3xf32>) query_start_loc(%qsl : tensor<3xi32>)
      cache_indices(%ci : tensor<2xi32>) checkpoint_slots(%cs : tensor<2x3xi32>)
      checkpoint_offsets(%co : tensor<2xi32>) checkpoint_interval(4) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// token_parents becomes a buffer.
// CHECK-LABEL: func.func @tree(
// CHECK-SAME:    %[[TP:[a-z0-9]+]]: memref<8xi32>
// CHECK:         ssd.chunk_scan_varlen
// CHECK-SAME:      token_parents(%[[TP]] : memref<8xi32>) outs(
func.func @tree(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>,
    %tp: tensor<8xi32>) -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>)
      ssm_pool(%pool : memref<16x4x2x3xf32>) query_start_loc(%qsl : tensor<3xi32>)
      cache_indices(%ci : tensor<2xi32>) token_parents(%tp : tensor<8xi32>) -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// The invariant mark survives, with its config.
// CHECK-LABEL: func.func @invariant(
// CHECK:         ssd.chunk_scan_varlen invariant x(
// CHECK-SAME:      {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>, form = #ssd<form serial>}
func.func @invariant(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<3xi32>, %ci: tensor<2xi32>)
    -> tensor<8x4x2xf32> {
  %y = ssd.chunk_scan_varlen invariant x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<3xi32>) cache_indices(%ci : tensor<2xi32>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
      -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}
