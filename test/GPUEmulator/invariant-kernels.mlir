// The invariant kernels as ssd-lower-to-gpu builds them pass the emulator
// target's check (invariant-contraction.mlir): nothing in them is a
// multiply-add that NVPTX would fuse. Both kernels (readers, contested
// writers) of a bf16 op with D, dt_bias and has_initial_state.
// RUN: ssd-opt %s --ssd-to-gpu-emulator | FileCheck %s
// CHECK-DAG: gpu.binary @ssd_scan_invariant
// CHECK-DAG: gpu.binary @ssd_scan_invariant_0

func.func @invariant(%x: memref<?x4x64xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x96xbf16>, %C: memref<?x1x96xbf16>, %D: memref<4xbf16>,
    %bias: memref<4xbf16>, %pool: memref<?x4x64x96xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x64xbf16>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x64xbf16>) dt(%dt : memref<?x4xbf16>)
      A(%A : memref<4xbf16>) B(%B : memref<?x1x96xbf16>) C(%C : memref<?x1x96xbf16>)
      D(%D : memref<4xbf16>) dt_bias(%bias : memref<4xbf16>)
      ssm_pool(%pool : memref<?x4x64x96xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x64xbf16>) {config = #ssd.scan_config<form = chunked, chunk_size = 128, invariant = true>}
  return
}
