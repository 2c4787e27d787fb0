// RUN: ssd-opt %s -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file -verify-diagnostics | FileCheck %s

// ssd-lower-to-gpu reads the kernels' choices a config records (as
// ssd-plan-gpu-kernels writes them) over its own options: here the pass
// options ask for fused state passing and fused output (the defaults),
// and the config of the first op says three launches (fusion = none).

// CHECK-LABEL: func.func @config_three_launches
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @config_three_launches(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, fusion = none, output_rows = 128, state_parts = 1, heads_per_block = 1, shared_memory = 25248>}
  return
}

// -----

// CHECK-LABEL: func.func @config_fused
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @config_fused(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, fusion = state_and_output, output_rows = 128, state_parts = 1, heads_per_block = 1, shared_memory = 60080>}
  return
}

// -----

// Choices the chunked kernels do not derive (output_rows 64 where the
// kernels take 128 rows per pass) are reported, not built.
func.func @config_mismatch(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the config's kernel choices (output_rows 64, state_parts 1, heads_per_block 1, shared_memory 25248) are not those the chunked kernels derive (output_rows 128, state_parts 1, heads_per_block 1, shared_memory 25248); rerun ssd-plan-gpu-kernels}}
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128,
      config = #ssd.scan_config<form = chunked, chunk_size = 128, fusion = none, output_rows = 64, state_parts = 1, heads_per_block = 1, shared_memory = 25248>}
  return
}
