// An 8-bit pool whose rows no warp holds (i8, dstate 384) under dynamic
// launch shapes: the GPU chunked kernels take a row's scale as the maximum
// over lanes of one warp, so they cannot encode it, and the GPU pipelines
// keep such an op serial (ssd-select-form serial-for-unchunked-pools) rather
// than put chunked kernels the lowering refuses behind a runtime branch.
// With the option off the chunked branch fails, in one line, as before.
// The numbers: test/numeric/gpu-pool-wide-rows.test.
//
// RUN: ssd-opt %s --ssd-to-nvvm -o /dev/null
// RUN: ssd-opt %s --ssd-to-nvvm="serial-for-unchunked-pools=true" --mlir-print-ir-after=ssd-select-form -o /dev/null 2>&1 | FileCheck %s
// RUN: not ssd-opt %s --ssd-to-nvvm="serial-for-unchunked-pools=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
//
// CHECK-LABEL: func.func @unchunked_pool
// CHECK-NOT:   scf.if
// CHECK:       ssd.chunk_scan_varlen {{.*}}{config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// CHECK-NOT:   ssd.chunk_scan_varlen
// OFF: error: ssd-lower-to-gpu: the GPU chunked kernels store i8 pools only where one warp holds a state row {{.*}} got dstate (N) 384; use form serial
func.func @unchunked_pool(%x: memref<?x2x4xbf16>, %dt: memref<?x2xbf16>, %A: memref<2xbf16>,
    %B: memref<?x1x384xbf16>, %pool: memref<?x2x4x384xi8>, %scales: memref<?x2x4xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x2x4xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xbf16>) dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x384xbf16>) C(%B : memref<?x1x384xbf16>)
      ssm_pool(%pool : memref<?x2x4x384xi8>) ssm_pool_scales(%scales : memref<?x2x4xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x4xbf16>)
  return
}
