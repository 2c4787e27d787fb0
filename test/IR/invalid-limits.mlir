// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per limit of ssd.chunk_scan_varlen (ssd/IR/SSDLimits.h, docs/overview.md "Limits"):
// a static extent or chunk_size one above its maximum, named with the operand dimension that fixes it.
// The last case holds every extent at its maximum and verifies.

func.func @tokens_T(%x: memref<2147483648x1x1xf32>, %dt: memref<2147483648x1xf32>, %A: memref<1xf32>, %B: memref<2147483648x1x1xf32>, %pool: memref<?x1x1x1xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<2147483648x1x1xf32>) {
  // expected-error @+1 {{total tokens T (2147483648, 'x' dim 0) exceeds the supported maximum 2147483647}}
  ssd.chunk_scan_varlen x(%x : memref<2147483648x1x1xf32>) dt(%dt : memref<2147483648x1xf32>) A(%A : memref<1xf32>)
    B(%B : memref<2147483648x1x1xf32>) C(%B : memref<2147483648x1x1xf32>) ssm_pool(%pool : memref<?x1x1x1xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<2147483648x1x1xf32>)
  return
}

// -----

func.func @heads_H(%x: memref<?x65537x1xf32>, %dt: memref<?x65537xf32>, %A: memref<65537xf32>, %B: memref<?x1x1xf32>, %pool: memref<?x65537x1x1xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x65537x1xf32>) {
  // expected-error @+1 {{nheads H (65537, 'x' dim 1) exceeds the supported maximum 65536}}
  ssd.chunk_scan_varlen x(%x : memref<?x65537x1xf32>) dt(%dt : memref<?x65537xf32>) A(%A : memref<65537xf32>)
    B(%B : memref<?x1x1xf32>) C(%B : memref<?x1x1xf32>) ssm_pool(%pool : memref<?x65537x1x1xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x65537x1xf32>)
  return
}

// -----

func.func @head_dim_P(%x: memref<?x1x65537xf32>, %dt: memref<?x1xf32>, %A: memref<1xf32>, %B: memref<?x1x1xf32>, %pool: memref<?x1x65537x1xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x1x65537xf32>) {
  // expected-error @+1 {{head_dim P (65537, 'x' dim 2) exceeds the supported maximum 65536}}
  ssd.chunk_scan_varlen x(%x : memref<?x1x65537xf32>) dt(%dt : memref<?x1xf32>) A(%A : memref<1xf32>)
    B(%B : memref<?x1x1xf32>) C(%B : memref<?x1x1xf32>) ssm_pool(%pool : memref<?x1x65537x1xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x1x65537xf32>)
  return
}

// -----

func.func @groups_G(%x: memref<?x?x1xf32>, %dt: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?x65537x1xf32>, %pool: memref<?x?x1x1xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x?x1xf32>) {
  // expected-error @+1 {{ngroups G (65537, 'B' dim 1) exceeds the supported maximum 65536}}
  ssd.chunk_scan_varlen x(%x : memref<?x?x1xf32>) dt(%dt : memref<?x?xf32>) A(%A : memref<?xf32>)
    B(%B : memref<?x65537x1xf32>) C(%B : memref<?x65537x1xf32>) ssm_pool(%pool : memref<?x?x1x1xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x?x1xf32>)
  return
}

// -----

func.func @dstate_N(%x: memref<?x1x1xf32>, %dt: memref<?x1xf32>, %A: memref<1xf32>, %B: memref<?x1x1048577xf32>, %pool: memref<?x1x1x1048577xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x1x1xf32>) {
  // expected-error @+1 {{dstate N (1048577, 'B' dim 2) exceeds the supported maximum 1048576}}
  ssd.chunk_scan_varlen x(%x : memref<?x1x1xf32>) dt(%dt : memref<?x1xf32>) A(%A : memref<1xf32>)
    B(%B : memref<?x1x1048577xf32>) C(%B : memref<?x1x1048577xf32>) ssm_pool(%pool : memref<?x1x1x1048577xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x1x1xf32>)
  return
}

// -----

func.func @chunk_size(%x: memref<?x1x1xf32>, %dt: memref<?x1xf32>, %A: memref<1xf32>, %B: memref<?x1x1xf32>, %pool: memref<?x1x1x1xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x1x1xf32>) {
  // expected-error @+1 {{chunk_size (65537) exceeds the supported maximum 65536}}
  ssd.chunk_scan_varlen x(%x : memref<?x1x1xf32>) dt(%dt : memref<?x1xf32>) A(%A : memref<1xf32>)
    B(%B : memref<?x1x1xf32>) C(%B : memref<?x1x1xf32>) ssm_pool(%pool : memref<?x1x1x1xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x1x1xf32>) {form = #ssd<form chunked>, chunk_size = 65537}
  return
}

// -----

func.func @every_extent_at_its_maximum(%x: memref<2147483647x65536x65536xf32>, %dt: memref<2147483647x65536xf32>, %A: memref<65536xf32>, %B: memref<2147483647x65536x1048576xf32>, %pool: memref<?x65536x65536x1048576xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<2147483647x65536x65536xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<2147483647x65536x65536xf32>) dt(%dt : memref<2147483647x65536xf32>) A(%A : memref<65536xf32>)
    B(%B : memref<2147483647x65536x1048576xf32>) C(%B : memref<2147483647x65536x1048576xf32>) ssm_pool(%pool : memref<?x65536x65536x1048576xf32>)
    query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<2147483647x65536x65536xf32>) {form = #ssd<form chunked>, chunk_size = 65536}
  return
}
