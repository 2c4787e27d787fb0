// RUN: ssd-opt %s -ssd-lower-to-gpu -split-input-file -verify-diagnostics
// RUN: not ssd-opt %s -ssd-lower-to-gpu="serial-warps-per-block=33" -split-input-file 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: ssd-lower-to-gpu: serial-rows-per-warp must be positive and serial-warps-per-block in [1, 32], got 4 and 33

func.func @dynamic_heads(%x: memref<?x?x64xf32>, %dt: memref<?x?xf32>, %A: memref<?xf32>,
    %B: memref<?x1x32xf32>, %pool: memref<?x?x64x32xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x?x64xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the GPU kernels need static nheads, head_dim, ngroups and dstate (they fix the tiling)}}
  ssd.chunk_scan_varlen x(%x : memref<?x?x64xf32>) dt(%dt : memref<?x?xf32>) A(%A : memref<?xf32>)
      B(%B : memref<?x1x32xf32>) C(%B : memref<?x1x32xf32>) ssm_pool(%pool : memref<?x?x64x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x?x64xf32>) {form = #ssd<form serial>}
  return
}

// -----

func.func @no_form(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: op has no form; run ssd-select-form first}}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @tensor_form(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<9xi32>, %ci: tensor<8xi32>)
    -> tensor<8x4x2xf32> {
  // expected-error @+1 {{ssd-lower-to-gpu: op is in the tensor form; bufferize it first (one-shot-bufferize)}}
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<9xi32>) cache_indices(%ci : tensor<8xi32>) {form = #ssd<form serial>}
      -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}
