// RUN: ssd-opt %s -ssd-select-form -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=8 min-chunked-tokens-per-seq=4" -split-input-file | FileCheck %s
// RUN: not ssd-opt %s -ssd-select-form="form=chunked" -split-input-file 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not ssd-opt %s -ssd-select-form="invariant=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=INV

// An op with token_parents (a draft tree) is serial whatever its shape, and
// never mixes: only the serial kernels follow a token's parent. A shape
// known only at run time gets no branch. Forcing the chunked form or the
// invariant mode on it is an error naming the operand.

// CHECK-LABEL: func.func @long_tree
// CHECK:         ssd.chunk_scan_varlen
// CHECK-SAME:      token_parents(
// CHECK-SAME:      {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// FORCED: error: ssd-select-form: form=chunked cannot serve an op with 'token_parents' (a draft tree): only the serial form follows a token's parent
// INV: error: ssd-select-form: invariant=true cannot mark an op with 'token_parents' (a draft tree): the invariant kernels follow a chain of tokens
func.func @long_tree(%x: memref<65536x4x2xf32>, %dt: memref<65536x4xf32>, %A: memref<4xf32>,
    %B: memref<65536x1x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %tp: memref<65536xi32>, %y: memref<65536x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<65536x4x2xf32>) dt(%dt : memref<65536x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<65536x1x3xf32>) C(%B : memref<65536x1x3xf32>) ssm_pool(%pool : memref<9x4x2x3xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      token_parents(%tp : memref<65536xi32>) outs(%y : memref<65536x4x2xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_tree
// CHECK-NOT:     scf.if
// CHECK:         ssd.chunk_scan_varlen
// CHECK-SAME:      checkpoint_interval(1) token_parents(
// CHECK-SAME:      {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// CHECK-NOT:     ssd.chunk_scan_varlen
func.func @dynamic_tree(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<?x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %cs: memref<?x16xi32>, %tp: memref<?xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<?x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x16xi32>) checkpoint_interval(1)
      token_parents(%tp : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}
