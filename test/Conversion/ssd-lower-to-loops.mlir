// The serial form's vector width is pinned (the default, 0, is the host's).
// RUN: ssd-opt %s -ssd-lower-to-loops="vector-width=16" -canonicalize -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-lower-to-loops="serial-p-tile=8 vector-width=16" -canonicalize -split-input-file | FileCheck %s --check-prefix=TILE8
// RUN: ssd-opt %s -ssd-lower-to-loops="vector-width=8" -canonicalize -split-input-file | FileCheck %s --check-prefix=WIDTH8
// RUN: not ssd-opt %s -ssd-lower-to-loops="serial-p-tile=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: not ssd-opt %s -ssd-lower-to-loops="vector-width=12" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADWIDTH

// BADTILE: ssd-lower-to-loops: serial-p-tile must be in [1, 1024], got 0
// BADWIDTH: ssd-lower-to-loops: vector-width must be 0 (the host's) or a power of two up to 64, got 12

// Serial form, bf16 model and pool, unsigned [1, batch] cache indices.
// CHECK-LABEL: func.func @serial
// The unsigned index buffer is viewed as signless once.
// CHECK:       %[[SLOTS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<1x?xui32> to memref<1x?xi32>
// Writers whose slot others read are found before any task runs; they run
// in a second parallel loop, after every other sequence read its state.
// CHECK:       %[[READERS:.*]] = memref.alloc() : memref<16xi32>
// CHECK:       %[[SECOND:.*]] = memref.alloc(%{{.*}}) : memref<?xi1>
// Only sequences with tokens or a state to store get tasks: one serial
// pass lists them, first-pass ones from the front, second-pass ones from
// the back, so a launch of empty padding sequences does no work.
// CHECK:       %[[ACTIVE:.*]] = memref.alloc(%{{.*}}) : memref<?xindex>
// CHECK:       %[[COUNTS:.*]]:2 = scf.for {{.*}} -> (index, index) {
// CHECK:         %[[HAS_TOKENS:.*]] = arith.cmpi sgt
// CHECK:         %[[WORKS:.*]] = arith.ori %[[HAS_TOKENS]]
// CHECK:         %[[IS_LATE:.*]] = memref.load %[[SECOND]]
// CHECK:         memref.store %{{.*}}, %[[ACTIVE]]
// CHECK:         arith.andi %[[WORKS]], %[[IS_LATE]]
// CHECK:         memref.store %{{.*}}, %[[ACTIVE]]
// One task per (head, P-tile, active sequence), heads outermost so that
// OpenMP's contiguous blocks of tasks each hold a share of every sequence;
// P = 32 fits one 64-row tile, and canonicalize drops that dimension.
// CHECK:       scf.parallel (%[[HEAD:.*]], %[[I:.*]]) = (%c0, %c0) to (%c4, %[[COUNTS]]#0)
// CHECK:         %[[SEQ:.*]] = memref.load %[[ACTIVE]][%[[I]]] : memref<?xindex>
// CHECK:         %[[RAW:.*]] = memref.load %[[SLOTS]][%c0, %[[SEQ]]] : memref<1x?xi32>
// CHECK:         arith.index_castui %[[RAW]] : i32 to index
// CHECK:         arith.cmpi ne, %[[RAW]], %c-1_i32 : i32
// The state tile is small and static (32 x 3 f32): on the stack, aligned to
// a cache line. N = 3 takes vectors of one lane; the bf16 B and C rows of a
// token pair are widened into f32 rows once per token, for all rows.
// CHECK:         %[[STATE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x3xf32>
// CHECK:         %[[ROWS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x3xf32>
// Tokens go through the tile in pairs; the loop carries the tile's scale.
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %[[PAIRED:.*]] step %c2 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:           math.exp
// CHECK:           math.exp
// A pair whose scale leaves the range goes token by token: four-row blocks.
// CHECK:           scf.if %{{.*}} -> (f32) {
// CHECK:             scf.for %{{.*}} step %c1 iter_args
// CHECK:               scf.for %{{.*}} step %c4 {
// CHECK:           } else {
// CHECK:             vector.store %{{.*}}, %[[ROWS]][%c0, %{{.*}}]
// CHECK:             vector.store %{{.*}}, %[[ROWS]][%c2, %{{.*}}]
// Two-row blocks: each state vector takes token t (rows 0, 1: B, C) and
// t + 1 (rows 2, 3) between one load and one store.
// CHECK:             scf.for %{{.*}} step %c2 {
// CHECK:               scf.for {{.*}} iter_args({{.*}}) -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>) {
// CHECK:                 %[[B0:.*]] = vector.load %[[ROWS]][%c0,
// CHECK:                 %[[C0:.*]] = vector.load %[[ROWS]][%c1,
// CHECK:                 %[[B1:.*]] = vector.load %[[ROWS]][%c2,
// CHECK:                 %[[C1:.*]] = vector.load %[[ROWS]][%c3,
// CHECK:                 %[[OLD:.*]] = vector.load %[[STATE]]
// CHECK:                 %[[MID:.*]] = vector.fma %{{.*}}, %[[B0]], %[[OLD]]
// CHECK:                 vector.fma %[[MID]], %[[C0]], %{{.*}}
// CHECK:                 %[[NEW:.*]] = vector.fma %{{.*}}, %[[B1]], %[[MID]]
// CHECK:                 vector.fma %[[NEW]], %[[C1]], %{{.*}}
// CHECK:                 vector.store %[[NEW]], %[[STATE]]
// CHECK:               arith.truncf %{{.*}} : f32 to bf16
// CHECK:               memref.store %{{.*}}, %{{.*}}[%[[T]], %[[HEAD]], %{{.*}}] : memref<?x4x32xbf16>
// An odd last token goes alone.
// CHECK:         scf.for %{{.*}} = %[[PAIRED]] to %{{.*}} step %c1 iter_args
// The final state, scaled back, is rounded to bf16 into the pool.
// CHECK:         scf.if
// CHECK:           arith.mulf %{{.*}} : vector<1xf32>
// CHECK:           arith.truncf %{{.*}} : vector<1xf32> to vector<1xbf16>
// CHECK:           vector.store %{{.*}} : memref<16x4x32x3xbf16>, vector<1xbf16>
// The second pass: the same tasks for the late writers, listed from the back.
// CHECK:       scf.parallel (%{{.*}}, %[[I2:.*]]) = (%c0, %c0) to (%c4, %[[COUNTS]]#1)
// CHECK:         %[[BACK:.*]] = arith.subi %{{.*}}, %[[I2]] : index
// CHECK:         memref.load %[[ACTIVE]][%[[BACK]]] : memref<?xindex>
// CHECK:       memref.dealloc %[[ACTIVE]]
// CHECK:       memref.dealloc %[[READERS]]
// CHECK:       memref.dealloc %[[SECOND]]
// CHECK-NOT:   ssd.chunk_scan_varlen
// TILE8-LABEL: func.func @serial
// TILE8:       scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c4, %c4, %{{.*}})
// TILE8:       memref.alloca() {alignment = 64 : i64} : memref<8x3xf32>
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

// Serial form, f32 model, bf16 pool, N = 32: state rows in vectors of 16
// lanes (the widest power of two up to vector-width dividing N).
// CHECK-LABEL: func.func @serial_vector
// CHECK:       scf.parallel
// CHECK:         %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x32xf32>
// CHECK-NOT:     memref.alloca
// The initial state: bf16 pool rows widened 16 lanes at a time.
// CHECK:         scf.if
// CHECK:           vector.load %{{.*}} : memref<?x2x64x32xbf16>, vector<16xbf16>
// CHECK:           arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// Token pairs. The tile is kept scaled, S = s S': both tokens' scales first,
// s_t = s exp(d_t A), s_t+1 = s_t exp(d_t+1 A).
// CHECK:         %[[PAIRS:.*]] = scf.for %[[T:.*]] = {{.*}} step %c2 iter_args(%[[CARRIED:.*]] = %{{.*}}) -> (f32) {
// CHECK:           %[[DECAY0:.*]] = math.exp
// CHECK:           %[[SCALE0:.*]] = arith.mulf %[[CARRIED]], %[[DECAY0]] : f32
// CHECK:           %[[DECAY1:.*]] = math.exp
// CHECK:           %[[SCALE1:.*]] = arith.mulf %[[SCALE0]], %[[DECAY1]] : f32
// A scale out of [2^-48, 2^48] (or not a number) sends the pair token by
// token, where it is folded back into the tile.
// CHECK:           scf.if %{{.*}} -> (f32) {
// CHECK:             scf.for %[[T1:.*]] = %[[T]] to %{{.*}} step %c1 iter_args(%[[CARRIED1:.*]] = %[[CARRIED]]) -> (f32) {
// CHECK:               %[[DECAY:.*]] = math.exp
// CHECK:               %[[DECAYED:.*]] = arith.mulf %[[CARRIED1]], %[[DECAY]] : f32
// CHECK:               %[[LOW:.*]] = arith.cmpf ult, %[[DECAYED]], %{{.*}} : f32
// CHECK:               %[[HIGH:.*]] = arith.cmpf ugt, %[[DECAYED]], %{{.*}} : f32
// CHECK:               %[[OUT:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i1
// CHECK:               %[[SCALE:.*]] = arith.select %[[OUT]], %{{.*}}, %[[DECAYED]] : f32
// CHECK:               scf.if %[[OUT]] {
// CHECK:                 %[[FACTOR:.*]] = vector.broadcast %[[DECAYED]] : f32 to vector<16xf32>
// CHECK:                 arith.mulf %[[FACTOR]], %{{.*}} : vector<16xf32>
// CHECK:               %[[INV:.*]] = arith.divf %{{.*}}, %[[SCALE]] : f32
// One token: blocks of 16 rows share each column block of B and C; a row's
// weight is d x / scale, one scalar per (token, row). Each block prefetches
// its x and y rows 4 tokens ahead (clamped to the sequence's last token): a
// task's tokens are a page apart.
// CHECK:               scf.for %[[P:.*]] = %c0 to %c64 step %c16 {
// CHECK:                 %[[NEXT:.*]] = arith.addi %[[T1]], %c4 : index
// CHECK:                 %[[AHEAD:.*]] = arith.minui %[[NEXT]], %{{.*}} : index
// CHECK:                 memref.prefetch %{{.*}}[%[[AHEAD]], %{{.*}}, %[[P]]], read, locality<3>, data : memref<?x2x64xf32>
// CHECK:                 memref.prefetch %{{.*}}[%[[AHEAD]], %{{.*}}, %[[P]]], write, locality<3>, data : memref<?x2x64xf32>
// CHECK:                 %[[DX:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:                 %[[W:.*]] = arith.mulf %[[DX]], %[[INV]] : f32
// CHECK:                 %[[WV:.*]] = vector.broadcast %[[W]] : f32 to vector<16xf32>
// CHECK-COUNT-15:        vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK:                 scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%[[ACC:[a-z0-9]+]] = %cst{{.*}}, {{.*}}) -> (vector<16xf32>,
// CHECK:                   %[[BV:.*]] = vector.load %{{.*}} : memref<?x1x32xf32>, vector<16xf32>
// CHECK:                   %[[CV:.*]] = vector.load %{{.*}} : memref<?x1x32xf32>, vector<16xf32>
// CHECK:                   %[[OLD:.*]] = vector.load %[[TILE]]
// Two FMAs per state element and token: S' += w B, acc += S' C.
// CHECK:                   %[[NEW:.*]] = vector.fma %[[WV]], %[[BV]], %[[OLD]] : vector<16xf32>
// CHECK:                   vector.fma %[[NEW]], %[[CV]], %[[ACC]] : vector<16xf32>
// CHECK:                   vector.store %[[NEW]], %[[TILE]]
// y = scale (S' . C) + D x: the block's 16 dot products reduced side by
// side, each by the halving tree a reassociable vector.reduction becomes
// (lane i plus lane i + 8, then + 4, + 2, + 1): pairs of rows share a
// vector, then each step halves every row's segment; row r ends in lane r.
// CHECK:                 vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:            vector.shuffle %{{.*}}, %{{.*}} [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:            arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:                 vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27] : vector<16xf32>, vector<16xf32>
// CHECK:                 vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29] : vector<16xf32>, vector<16xf32>
// CHECK:                 vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:            vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:            %[[SUMS:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NEXT:            %[[DOT:.*]] = vector.extract %[[SUMS]][0] : f32 from vector<16xf32>
// CHECK:                 %[[Y:.*]] = arith.mulf %[[SCALE]], %[[DOT]] : f32
// CHECK:                 arith.addf %[[Y]]
// A pair within the range: blocks of 8 rows (a weight and an accumulator
// per row and token in registers), each state vector loaded once, updated
// for both tokens, stored once.
// CHECK:           } else {
// CHECK:             %[[INV0:.*]] = arith.divf %{{.*}}, %[[SCALE0]] : f32
// CHECK:             %[[INV1:.*]] = arith.divf %{{.*}}, %[[SCALE1]] : f32
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c8 {
// CHECK:               scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args({{.*}}) -> (vector<16xf32>,
// CHECK:                 %[[B0:.*]] = vector.load %{{.*}}[%[[T]], %{{.*}}, %{{.*}}] : memref<?x1x32xf32>, vector<16xf32>
// CHECK:                 %[[C0:.*]] = vector.load %{{.*}}[%[[T]], %{{.*}}, %{{.*}}] : memref<?x1x32xf32>, vector<16xf32>
// CHECK:                 %[[B1:.*]] = vector.load
// CHECK:                 %[[C1:.*]] = vector.load
// CHECK:                 %[[OLD2:.*]] = vector.load %[[TILE]]
// CHECK:                 %[[MID:.*]] = vector.fma %{{.*}}, %[[B0]], %[[OLD2]] : vector<16xf32>
// CHECK:                 vector.fma %[[MID]], %[[C0]], %{{.*}} : vector<16xf32>
// CHECK:                 %[[NEW2:.*]] = vector.fma %{{.*}}, %[[B1]], %[[MID]] : vector<16xf32>
// CHECK:                 vector.fma %[[NEW2]], %[[C1]], %{{.*}} : vector<16xf32>
// CHECK:                 vector.store %[[NEW2]], %[[TILE]]
// CHECK:               %[[SUMS0:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NEXT:          %[[DOT0:.*]] = vector.extract %[[SUMS0]][0] : f32 from vector<8xf32>
// CHECK:               arith.mulf %[[SCALE0]], %[[DOT0]] : f32
// CHECK:             scf.yield %[[SCALE1]] : f32
// An odd last token goes alone.
// CHECK:         %[[FINAL:.*]] = scf.for %{{.*}} step %c1 iter_args(%{{.*}} = %[[PAIRS]]) -> (f32) {
// The final state: the scale applied once, rounded to bf16.
// CHECK:         %[[FINALV:.*]] = vector.broadcast %[[FINAL]] : f32 to vector<16xf32>
// CHECK:         scf.if
// CHECK:           arith.mulf %[[FINALV]], %{{.*}} : vector<16xf32>
// CHECK:           arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK:           vector.store %{{.*}} : memref<?x2x64x32xbf16>, vector<16xbf16>
// With 8 lanes (AVX2's width), 8-row blocks.
// WIDTH8-LABEL: func.func @serial_vector
// WIDTH8:       scf.for %{{.*}} = %c0 to %c64 step %c8 {
// WIDTH8:         scf.for %{{.*}} = %c0 to %c32 step %c8 iter_args
// WIDTH8:           vector.fma %{{.*}} : vector<8xf32>
// WIDTH8:         vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// WIDTH8:         vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// WIDTH8-NEXT:    vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// WIDTH8-NEXT:    %[[SUMS8:.*]] = arith.addf
// WIDTH8-NEXT:    vector.extract %[[SUMS8]][0] : f32 from vector<8xf32>
func.func @serial_vector(%x: memref<?x2x64xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x32xf32>, %C: memref<?x1x32xf32>, %D: memref<2xf32>, %pool: memref<?x2x64x32xbf16>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x2x64xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x32xf32>) C(%C : memref<?x1x32xf32>) D(%D : memref<2xf32>)
      ssm_pool(%pool : memref<?x2x64x32xbf16>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x64xf32>)
      {form = #ssd<form serial>}
  return
}

// -----

// Serial form with an f32 pool: a one-token sequence (decode) whose decay
// stays in range goes from pool to pool in one pass instead of three
// through the tile: the pool rows (or the zeroed tile without an initial
// state) are read, updated, scaled by the decay and written back (or into
// the tile when nothing is written), one row at a time in address order.
// CHECK-LABEL: func.func @serial_decode
// CHECK:       scf.parallel
// CHECK:         %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// CHECK:         %[[DECODE:.*]] = scf.if %[[ONE]] -> (i1) {
// CHECK:           math.exp
// CHECK:         scf.if %[[DECODE]] {
// CHECK:           %[[ROWS:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : memref<?x2x16x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
// CHECK:           %[[POOL_ROWS:.*]] = memref.cast %[[ROWS]]
// CHECK:           %[[TILE_ROWS:.*]] = memref.cast %[[TILE]]
// CHECK:           %[[SOURCE:.*]] = arith.select %{{.*}}, %[[POOL_ROWS]], %[[TILE_ROWS]]
// CHECK:           %[[SINK:.*]] = arith.select %{{.*}}, %[[TILE_ROWS]], %[[POOL_ROWS]]
// CHECK:           scf.for %[[P:.*]] = %c0 to %c16 step %c1 {
// CHECK:             scf.for %[[N:.*]] = %c0 to %c32 step %c16 iter_args({{.*}}) -> (vector<16xf32>) {
// CHECK:               %[[OLD:.*]] = vector.load %[[SOURCE]][%[[P]], %[[N]]]
// CHECK:               %[[NEW:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[OLD]] : vector<16xf32>
// CHECK:               vector.fma %[[NEW]], %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:               %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[NEW]] : vector<16xf32>
// CHECK:               vector.store %[[SCALED]], %[[SINK]][%[[P]], %[[N]]]
// Other sequences: the tile, token pairs.
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} step %c2 iter_args
func.func @serial_decode(%x: memref<?x2x16xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x32xf32>, %pool: memref<?x2x16x32xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x2x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x16xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x32xf32>) C(%B : memref<?x1x32xf32>) ssm_pool(%pool : memref<?x2x16x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x16xf32>)
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
// CHECK:         memref.alloca() {alignment = 64 : i64} : memref<32xf32>
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

// -----

// No stack allocation grows with N or P (issue 11: dstate 131072 made the
// serial state tile an 8 MiB alloca). A large static N: the tile holds at
// most 4 MiB (8 rows of 131072), on the heap, freed at the end of each task.
// CHECK-LABEL: func.func @serial_large_dstate
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %{{.*}})
// CHECK:         %[[TILE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x131072xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         memref.dealloc %[[TILE]] : memref<8x131072xf32>
// CHECK:         scf.reduce
func.func @serial_large_dstate(%x: memref<?x1x16xf32>, %dt: memref<?x1xf32>, %A: memref<1xf32>,
    %B: memref<?x1x131072xf32>, %pool: memref<?x1x16x131072xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x1x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x1x16xf32>) dt(%dt : memref<?x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<?x1x131072xf32>) C(%B : memref<?x1x131072xf32>) ssm_pool(%pool : memref<?x1x16x131072xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x1x16xf32>)
      {form = #ssd<form serial>}
  return
}

// -----

// A dynamic N: rows = clamp(2^20 / N, 1, 16) at run time, the tile on the heap.
// CHECK-LABEL: func.func @serial_dynamic_dstate
// CHECK:       %[[FIT:.*]] = arith.divui %c1048576, %{{.*}} : index
// CHECK:       %[[MIN:.*]] = arith.minui %[[FIT]], %c16 : index
// CHECK:       %[[ROWS:.*]] = arith.maxui %[[MIN]], %c1 : index
// CHECK:       scf.parallel
// CHECK:         %[[TILE:.*]] = memref.alloc(%[[ROWS]], %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         memref.dealloc %[[TILE]] : memref<?x?xf32>
func.func @serial_dynamic_dstate(%x: memref<?x2x16xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x?xf32>, %pool: memref<?x2x16x?xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x2x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x16xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x?xf32>) C(%B : memref<?x1x?xf32>) ssm_pool(%pool : memref<?x2x16x?xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x16xf32>)
      {form = #ssd<form serial>}
  return
}

// -----

// The chunked form's [P] output accumulator: on the heap for a P beyond
// 64 KiB of f32, and the chunk count bound ceil(T / L) + min(batch, T).
// CHECK-LABEL: func.func @chunked_large_head_dim
// CHECK:       %[[T:.*]] = memref.dim %{{.*}}, %c0 : memref<?x1x32768xf32>
// CHECK:       %[[CHUNKS:.*]] = arith.ceildivui %[[T]], %c16 : index
// CHECK:       %[[SEQS:.*]] = arith.minui %{{.*}}, %[[T]] : index
// CHECK:       %[[K:.*]] = arith.addi %[[CHUNKS]], %[[SEQS]] : index
// CHECK:       memref.alloc(%[[K]]) : memref<?x1x32768x2xf32>
// CHECK:       %[[ACC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32768xf32>
// CHECK-NOT:   memref.alloca
// CHECK:       memref.dealloc %[[ACC]] : memref<32768xf32>
func.func @chunked_large_head_dim(%x: memref<?x1x32768xf32>, %dt: memref<?x1xf32>, %A: memref<1xf32>,
    %B: memref<?x1x2xf32>, %pool: memref<?x1x32768x2xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x1x32768xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x1x32768xf32>) dt(%dt : memref<?x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<?x1x2xf32>) C(%B : memref<?x1x2xf32>) ssm_pool(%pool : memref<?x1x32768x2xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x1x32768xf32>)
      {form = #ssd<form chunked>, chunk_size = 16}
  return
}
