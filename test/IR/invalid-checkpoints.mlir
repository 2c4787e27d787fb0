// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.chunk_scan_varlen about state
// checkpoints: the interval goes with the slots, offsets need slots, ranks,
// element types, batch agreement, container kind.

func.func @slots_without_interval(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi32>, %co: memref<2xi32>) {
  // expected-error @+1 {{'checkpoint_slots' requires the 'checkpoint_interval' attribute}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi32>) checkpoint_offsets(%co : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @interval_without_slots(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{'checkpoint_interval' is only valid with 'checkpoint_slots'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @offsets_without_slots(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %co: memref<2xi32>) {
  // expected-error @+1 {{'checkpoint_offsets' is only valid with 'checkpoint_slots'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_offsets(%co : memref<2xi32>)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @interval_zero(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi32>, %co: memref<2xi32>) {
  // expected-error @+1 {{attribute 'checkpoint_interval' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi32>) checkpoint_offsets(%co : memref<2xi32>) checkpoint_interval(0)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @slots_rank(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2xi32>, %co: memref<2xi32>) {
  // expected-error @+1 {{'checkpoint_slots' must have rank 2 ([batch, K]), got rank 1}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2xi32>) checkpoint_offsets(%co : memref<2xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @offsets_rank(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi32>, %co: memref<2x1xi32>) {
  // expected-error @+1 {{'checkpoint_offsets' must have rank 1 ([batch]), got rank 2}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi32>) checkpoint_offsets(%co : memref<2x1xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @slots_element_type(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi64>, %co: memref<2xi32>) {
  // expected-error @+1 {{'checkpoint_slots' element type must be i32 or ui32, got 'i64'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi64>) checkpoint_offsets(%co : memref<2xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @offsets_element_type(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi32>, %co: memref<2xui32>) {
  // expected-error @+1 {{'checkpoint_offsets' element type must be i32, got 'ui32'}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi32>) checkpoint_offsets(%co : memref<2xui32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @slots_batch(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<3x3xi32>, %co: memref<2xi32>) {
  // expected-error @+1 {{'checkpoint_slots' dim 0 (3) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<3x3xi32>) checkpoint_offsets(%co : memref<2xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @offsets_batch(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: memref<2x3xi32>, %co: memref<5xi32>) {
  // expected-error @+1 {{'checkpoint_offsets' dim 0 (5) does not match batch (2) given by 'query_start_loc' dim 0 minus one}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : memref<2x3xi32>) checkpoint_offsets(%co : memref<5xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @slots_tensor(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>, %B: memref<8x2x3xf32>, %C: memref<8x2x3xf32>, %pool: memref<9x4x2x3xf32>, %qsl: memref<3xi32>, %ci: memref<2xi32>, %y: memref<8x4x2xf32>, %cs: tensor<2x3xi32>, %co: memref<2xi32>) {
  // expected-error @+1 {{operand 'checkpoint_slots' is a tensor but 'x' is a memref}}
  ssd.chunk_scan_varlen
    x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
    B(%B : memref<8x2x3xf32>) C(%C : memref<8x2x3xf32>)
    ssm_pool(%pool : memref<9x4x2x3xf32>) query_start_loc(%qsl : memref<3xi32>)
    cache_indices(%ci : memref<2xi32>)
    checkpoint_slots(%cs : tensor<2x3xi32>) checkpoint_offsets(%co : memref<2xi32>) checkpoint_interval(4)
    outs(%y : memref<8x4x2xf32>)
  return
}
