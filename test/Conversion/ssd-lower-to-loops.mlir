// RUN: ssd-opt %s -ssd-lower-to-loops -canonicalize -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-lower-to-loops="serial-p-tile=8" -canonicalize -split-input-file | FileCheck %s --check-prefix=TILE8
// RUN: not ssd-opt %s -ssd-lower-to-loops="serial-p-tile=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADTILE

// BADTILE: ssd-lower-to-loops: serial-p-tile must be positive, got 0

// Serial form, bf16 model and pool, unsigned [1, batch] cache indices.
// CHECK-LABEL: func.func @serial
// The unsigned index buffer is viewed as signless once.
// CHECK:       %[[SLOTS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<1x?xui32> to memref<1x?xi32>
// Writers whose slot others read are found before any task runs; they run
// in a second parallel loop, after every other sequence read its state.
// CHECK:       %[[READERS:.*]] = memref.alloc() : memref<16xi32>
// CHECK:       %[[SECOND:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// One task per (sequence, head, 16-row P-tile): 32 / 16 = 2 tiles.
// CHECK:       scf.parallel (%[[SEQ:.*]], %[[HEAD:.*]], %[[TILE:.*]]) = (%c0, %c0, %c0) to (%{{.*}}, %c4, %c2)
// CHECK:         %[[LATE:.*]] = memref.load %[[SECOND]][%[[SEQ]]] : memref<?xi1>
// CHECK:         %[[EARLY:.*]] = arith.xori %[[LATE]], %true : i1
// CHECK:         scf.if %[[EARLY]] {
// CHECK:         %[[RAW:.*]] = memref.load %[[SLOTS]][%c0, %[[SEQ]]] : memref<1x?xi32>
// CHECK:         arith.index_castui %[[RAW]] : i32 to index
// CHECK:         arith.cmpi ne, %[[RAW]], %c-1_i32 : i32
// CHECK:         %[[STATE:.*]] = memref.alloca() : memref<16x3xf32>
// The token loop carries the state in f32.
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK:           %[[DECAY:.*]] = math.exp
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %cst) -> (f32) {
// CHECK:               memref.load %[[STATE]]
// CHECK:               arith.mulf %[[DECAY]]
// CHECK:               memref.store %{{.*}}, %[[STATE]]
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[T]], %[[HEAD]], %{{.*}}] : memref<?x4x32xbf16>
// The final state is rounded to bf16 into the pool.
// CHECK:         scf.if
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           memref.store %{{.*}}, %{{.*}} : memref<16x4x32x3xbf16>
// The second pass: the same tasks for the late writers.
// CHECK:       scf.parallel
// CHECK:         %[[LATE2:.*]] = memref.load %[[SECOND]]
// CHECK:         scf.if %[[LATE2]] {
// CHECK:       memref.dealloc %[[READERS]]
// CHECK:       memref.dealloc %[[SECOND]]
// CHECK-NOT:   ssd.chunk_scan_varlen
// TILE8-LABEL: func.func @serial
// TILE8:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%{{.*}}, %c4, %c4)
// TILE8:       memref.alloca() : memref<8x3xf32>
func.func @serial(%x: memref<?x4x32xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x2x3xbf16>, %pool: memref<16x4x32x3xbf16>, %qsl: memref<?xi32>, %ci: memref<1x?xui32>,
    %y: memref<?x4x32xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x32xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x2x3xbf16>) C(%B : memref<?x2x3xbf16>) ssm_pool(%pool : memref<16x4x32x3xbf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<1x?xui32>) outs(%y : memref<?x4x32xbf16>)
      {form = #ssd<form serial>}
  return
}

// -----

// Chunked form, chunk_size 64: workspaces sized from T, batch and 64 (C Bᵀ
// rows: min(64, T)), five parallel phases, every workspace freed.
// CHECK-LABEL: func.func @chunked
// CHECK:       %[[BEGIN:.*]] = memref.alloc(%{{.*}}) : memref<?xindex>
// CHECK:       %[[SEQS:.*]] = memref.alloc(%[[K:.*]]) : memref<?xindex>
// CHECK:       %[[FIRST:.*]] = memref.alloc(%[[K]]) : memref<?xindex>
// CHECK:       %[[DTS:.*]] = memref.alloc(%[[T:.*]]) : memref<?x4xf32>
// CHECK:       %[[CUMS:.*]] = memref.alloc(%[[T]]) : memref<?x4xf32>
// CHECK:       %[[STATES:.*]] = memref.alloc(%[[K]]) : memref<?x4x32x3xf32>
// CHECK:       %[[CB:.*]] = memref.alloc(%[[K]], %[[ROWS:.*]], %[[ROWS]]) : memref<?x2x?x?xf32>
// The work list is built serially.
// CHECK:       %[[NUM:.*]] = scf.for
// Phase 1, cumsum with softplus(dt + dt_bias), per (chunk, head).
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%[[NUM]], %c4)
// CHECK:         math.log1p
// CHECK:         memref.store %{{.*}}, %[[CUMS]]
// Phase 2, chunk states, per (chunk, head, p); decays are exp(min(., 0)).
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%[[NUM]], %c4, %c32)
// CHECK:         arith.minimumf
// CHECK:         math.exp
// CHECK:         memref.store %{{.*}}, %[[STATES]]
// Phase 3, C Bᵀ per (chunk, group, row).
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%[[NUM]], %c2, %[[ROWS]])
// CHECK:         memref.store %{{.*}}, %[[CB]]
// Phase 4, state passing per (sequence, head, p), reading the pool per has_initial_state.
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%{{.*}}, %c4, %c32)
// CHECK:         memref.load %{{.*}} : memref<16x4x32x3xf32>
// Phase 5, output per (chunk, head, row), rounded to f16.
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%[[NUM]], %c4, %[[ROWS]])
// CHECK:         memref.alloca() : memref<32xf32>
// CHECK:         memref.load %[[CB]]
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK-DAG:   memref.dealloc %[[BEGIN]]
// CHECK-DAG:   memref.dealloc %[[SEQS]]
// CHECK-DAG:   memref.dealloc %[[FIRST]]
// CHECK-DAG:   memref.dealloc %[[DTS]]
// CHECK-DAG:   memref.dealloc %[[CUMS]]
// CHECK-DAG:   memref.dealloc %[[STATES]]
// CHECK-DAG:   memref.dealloc %[[CB]]
// CHECK-NOT:   ssd.chunk_scan_varlen
func.func @chunked(%x: memref<?x4x32xf16>, %dt: memref<?x4xf16>, %A: memref<4xf16>,
    %B: memref<?x2x3xf16>, %bias: memref<4xf16>, %pool: memref<16x4x32x3xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x32xf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x32xf16>) dt(%dt : memref<?x4xf16>) A(%A : memref<4xf16>)
      B(%B : memref<?x2x3xf16>) C(%B : memref<?x2x3xf16>) dt_bias(%bias : memref<4xf16>)
      ssm_pool(%pool : memref<16x4x32x3xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x32xf16>)
      {form = #ssd<form chunked>, chunk_size = 64}
  return
}
