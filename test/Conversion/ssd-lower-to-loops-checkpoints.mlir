// State checkpoints in both forms of ssd-lower-to-loops.
// RUN: ssd-opt %s -ssd-lower-to-loops="serial-p-tile=8 vector-width=8" -canonicalize -split-input-file | FileCheck %s

// Serial form, bf16 pool, ui32 checkpoint slots, offsets, interval 4, two
// 8-row P tiles: each task stores its tile's rows of the state.
// CHECK-LABEL: func.func @serial
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x16x8xbf16>
// CHECK-SAME:    %[[CI:[a-z0-9]+]]: memref<?xi32>, %{{[a-z0-9]+}}: memref<?x3xui32>, %[[CO:[a-z0-9]+]]: memref<?xi32>
// The slot table is viewed as signless once, like unsigned cache indices.
// CHECK:       %[[SLOTS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<?x3xui32> to memref<?x3xi32>
// CHECK:       scf.parallel (%[[HEAD:.*]], %[[TILE:.*]], %{{.*}}) = (%c0, %c0, %c0) to (%c2, %c2, %{{.*}})
// CHECK:         %[[SEQ:.*]] = memref.load
// CHECK:         %[[BEGIN:.*]] = arith.index_cast
// CHECK:         %[[END:.*]] = arith.index_cast
// The phase o mod I from the zero-extended offset, and K = 3 writable
// boundaries unless the sequence is padding.
// CHECK:         %[[O:.*]] = memref.load %[[CO]][%[[SEQ]]] : memref<?xi32>
// CHECK:         %[[OX:.*]] = arith.index_castui %[[O]] : i32 to index
// CHECK:         %[[PHASE:.*]] = arith.remui %[[OX]], %c4 : index
// CHECK:         %[[RAW:.*]] = memref.load %[[CI]][%[[SEQ]]] : memref<?xi32>
// CHECK:         %[[WRITES:.*]] = arith.cmpi ne, %[[RAW]], %c-1_i32 : i32
// CHECK:         %[[LIMIT:.*]] = arith.select %[[WRITES]], %c3, %c0 : index
// CHECK:         %[[P0:.*]] = arith.muli %[[TILE]], %c8 : index
// CHECK:         %[[ROWS:.*]] = arith.minui %{{.*}}, %c8 : index
// CHECK:         %[[STATE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x8xf32>
// A one-token sequence that writes no boundary takes the decode pass (pool
// to pool); every other runs the segments.
// CHECK:         %[[TOKENS:.*]] = arith.subi %[[END]], %[[BEGIN]] : index
// CHECK-NEXT:    arith.cmpi eq, %[[TOKENS]], %c1 : index
// W = min((phase + tokens) / I, limit) boundaries are written; the token
// loops run once per segment: W segments that end after a boundary token,
// and the rest of the sequence. The loop carries the tile's scale and the
// segment's first token.
// CHECK:         %[[LEN:.*]] = arith.subi %[[END]], %[[BEGIN]] : index
// CHECK:         %[[REACH:.*]] = arith.addi %[[PHASE]], %[[LEN]] : index
// CHECK:         %[[CROSSED:.*]] = arith.divui %[[REACH]], %c4 : index
// CHECK:         %[[W:.*]] = arith.minui %[[CROSSED]], %[[LIMIT]] : index
// CHECK:         %[[SEGMENTS:.*]] = arith.addi %[[W]], %c1 : index
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[K:.*]] = %c0 to %[[SEGMENTS]] step %c1 iter_args(%[[SCALE:.*]] = %cst{{.*}}, %[[FIRST:.*]] = %[[BEGIN]]) -> (f32, index) {
// Boundary k falls after token begin + (k + 1) I - phase - 1.
// CHECK:           %[[IS_BOUNDARY:.*]] = arith.cmpi ult, %[[K]], %[[W]] : index
// CHECK:           %[[K1:.*]] = arith.addi %[[K]], %c1 : index
// CHECK:           %[[HELD:.*]] = arith.muli %[[K1]], %c4 : index
// CHECK:           %[[AT:.*]] = arith.addi %[[BEGIN]], %[[HELD]] : index
// CHECK:           %[[BOUNDARY_END:.*]] = arith.subi %[[AT]], %[[PHASE]] : index
// CHECK:           %[[SEG_END:.*]] = arith.select %[[IS_BOUNDARY]], %[[BOUNDARY_END]], %[[END]] : index
// The segment's tokens: pairs, then an odd one alone.
// CHECK:           %[[PAIRS:.*]] = scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %c2 iter_args(%{{.*}} = %[[SCALE]]) -> (f32) {
// CHECK:           %[[AFTER:.*]] = scf.for %{{.*}} = %{{.*}} to %[[SEG_END]] step %c1 iter_args(%{{.*}} = %[[PAIRS]]) -> (f32) {
// At a boundary, unless its slot is -1: the tile's rows times the scale,
// rounded to bf16 like the final state, into rows p0.. of the checkpoint slot.
// CHECK:           scf.if %[[IS_BOUNDARY]] {
// CHECK:             %[[CK:.*]] = memref.load %[[SLOTS]][%[[SEQ]], %[[K]]] : memref<?x3xi32>
// CHECK:             %[[USED:.*]] = arith.cmpi ne, %[[CK]], %c-1_i32 : i32
// CHECK:             scf.if %[[USED]] {
// CHECK:               %[[CKSLOT:.*]] = arith.index_castui %[[CK]] : i32 to index
// CHECK:               %[[FACTOR:.*]] = vector.broadcast %[[AFTER]] : f32 to vector<8xf32>
// CHECK:               scf.for %[[P:.*]] = %c0 to %[[ROWS]] step %c1 {
// CHECK:                 %[[ROW:.*]] = arith.addi %[[P0]], %[[P]] : index
// CHECK:                 %[[V:.*]] = vector.load %[[STATE]][%[[P]], %c0] : memref<8x8xf32>, vector<8xf32>
// CHECK:                 %[[SCALED:.*]] = arith.mulf %[[FACTOR]], %[[V]] : vector<8xf32>
// CHECK:                 %[[ROUNDED:.*]] = arith.truncf %[[SCALED]] : vector<8xf32> to vector<8xbf16>
// CHECK:                 vector.store %[[ROUNDED]], %[[POOL]][%[[CKSLOT]], %[[HEAD]], %[[ROW]], %c0]
// CHECK:           scf.yield %[[AFTER]], %[[SEG_END]] : f32, index
// The final state, written or not, after the last segment.
// CHECK:         %[[FINAL:.*]] = vector.broadcast %[[LOOP]]#0 : f32 to vector<8xf32>
// CHECK:         scf.if
// CHECK:           arith.mulf %[[FINAL]]
// CHECK:           vector.store %{{.*}}, %[[POOL]][%{{.*}}, %[[HEAD]], %{{.*}}, %c0]
// CHECK-NOT:   ssd.chunk_scan_varlen
func.func @serial(%x: memref<?x2x16xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x16x8xbf16>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x3xui32>, %co: memref<?xi32>,
    %y: memref<?x2x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x16xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x16x8xbf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x3xui32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(4) outs(%y : memref<?x2x16xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Serial form, f32 pool: a one-token sequence goes from pool to pool in one
// pass only when it writes no checkpoint (there is no tile to store it from).
// Interval 1 without offsets: the phase is 0 and every token is a boundary.
// CHECK-LABEL: func.func @serial_decode
// CHECK:       scf.parallel
// CHECK:         arith.cmpi ne, %{{.*}}, %c-1_i32 : i32
// CHECK:         %[[LIMIT:.*]] = arith.select %{{.*}}, %c2, %c0 : index
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// CHECK:         %[[W1:.*]] = arith.minui %[[LIMIT]], %c1 : index
// CHECK:         %[[NONE:.*]] = arith.cmpi eq, %[[W1]], %c0 : index
// CHECK:         %[[DECODE_CANDIDATE:.*]] = arith.andi %[[ONE]], %[[NONE]] : i1
// CHECK:         scf.if %[[DECODE_CANDIDATE]] -> (i1)
func.func @serial_decode(%x: memref<?x2x16xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x16x8xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x2xi32>, %y: memref<?x2x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x16xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x16x8xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x2xi32>) checkpoint_interval(1)
      outs(%y : memref<?x2x16xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Chunked form, chunk size 4, interval 3: phase 4 (state passing) writes the
// checkpoints of each chunk while it carries the state across it.
// CHECK-LABEL: func.func @chunked
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x8xf32>
// CHECK:       %[[SLOTS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<?x5xui32> to memref<?x5xi32>
// CHECK:       %[[DTS:.*]] = memref.alloc(%{{.*}}) : memref<?x2xf32>
// CHECK:       %[[CUMS:.*]] = memref.alloc(%{{.*}}) : memref<?x2xf32>
// CHECK:       %[[STATES:.*]] = memref.alloc(%{{.*}}) : memref<?x2x4x8xf32>
// Only with checkpoints: each token's decay exp(d A), stored by phase 1.
// CHECK:       %[[DECAYS:.*]] = memref.alloc(%{{.*}}) : memref<?x2xf32>
// CHECK:       scf.parallel
// CHECK:         %[[DT1:.*]] = memref.load %{{.*}} : memref<?x2xf32>
// CHECK:         memref.store %[[DT1]], %[[DTS]]
// CHECK:         %[[DA1:.*]] = arith.mulf %[[DT1]], %{{.*}} : f32
// CHECK:         %[[CLAMPED:.*]] = arith.minimumf %[[DA1]], %cst{{.*}} : f32
// CHECK:         %[[DECAY1:.*]] = math.exp %[[CLAMPED]] : f32
// CHECK:         memref.store %[[DECAY1]], %[[DECAYS]]
// Phase 4, first pass: a task per (sequence, head, row p).
// CHECK:       scf.parallel (%{{.*}}, %[[HEAD:.*]], %[[P:.*]]) = (%c0, %c0, %c0) to (%{{.*}}#0, %c2, %c4)
// CHECK:         %[[SEQ:.*]] = memref.load
// CHECK:         %[[BEGIN:.*]] = arith.index_cast
// CHECK:         %[[PHASE:.*]] = arith.remui %{{.*}}, %c3 : index
// CHECK:         %[[LIMIT:.*]] = arith.select %{{.*}}, %c5, %c0 : index
// CHECK:         scf.for %[[N:.*]] = %c0 to %c8 step %c1 {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 iter_args(%[[ENTERING:.*]] = %{{.*}}) -> (f32) {
// CHECK:             %[[FIRST:.*]] = memref.load
// CHECK:             %[[LEN:.*]] = memref.load
// The state leaving the chunk, exp(cum_last) S_prev + dS, as without
// checkpoints.
// CHECK:             %[[DECAY:.*]] = math.exp
// CHECK:             %[[DS:.*]] = memref.load %[[STATES]]
// CHECK:             memref.store %[[ENTERING]], %[[STATES]]
// CHECK:             %[[CARRIED:.*]] = arith.mulf %[[DECAY]], %[[ENTERING]] : f32
// CHECK:             %[[LEAVING:.*]] = arith.addf %[[CARRIED]], %[[DS]] : f32
// The chunk's boundaries: (phase + before) / I up to (phase + after) / I,
// the last one at the chunk's end when phase + after is a multiple of I.
// CHECK:             %[[BEFORE:.*]] = arith.subi %[[FIRST]], %[[BEGIN]] : index
// CHECK:             %[[AFTER:.*]] = arith.addi %[[BEFORE]], %[[LEN]] : index
// CHECK:             %[[R0:.*]] = arith.addi %[[PHASE]], %[[BEFORE]] : index
// CHECK:             %[[KLO:.*]] = arith.divui %[[R0]], %c3 : index
// CHECK:             %[[R1:.*]] = arith.addi %[[PHASE]], %[[AFTER]] : index
// CHECK:             %[[KHI:.*]] = arith.divui %[[R1]], %c3 : index
// CHECK:             %[[MOD:.*]] = arith.remui %{{.*}}, %c3 : index
// CHECK:             %[[AT_END:.*]] = arith.cmpi eq, %[[MOD]], %c0 : index
// CHECK:             %[[AT_END_X:.*]] = arith.index_castui %[[AT_END]] : i1 to index
// CHECK:             %[[KINTRA:.*]] = arith.subi %[[KHI]], %[[AT_END_X]] : index
// CHECK:             %[[INTRA_END:.*]] = arith.minui %[[KINTRA]], %[[LIMIT]] : index
// Boundaries inside the chunk: the plain recurrence from the entering state,
// token by token with the processed dt and decay, up to the chunk's last one.
// CHECK:             %[[WALK_END:.*]] = arith.maxui %[[KLO]], %[[INTRA_END]] : index
// CHECK:             scf.for %[[K:.*]] = %[[KLO]] to %[[WALK_END]] step %c1 iter_args(%[[S:.*]] = %[[ENTERING]], %[[FROM:.*]] = %[[FIRST]]) -> (f32, index) {
// CHECK:               %[[SEG_END:.*]] = arith.subi %{{.*}}, %[[PHASE]] : index
// CHECK:               %[[WALKED:.*]] = scf.for %[[T:.*]] = %[[FROM]] to %[[SEG_END]] step %c1 iter_args(%[[ST:.*]] = %[[S]]) -> (f32) {
// CHECK:                 %[[D:.*]] = memref.load %[[DTS]][%[[T]], %[[HEAD]]]
// CHECK:                 %[[XV:.*]] = memref.load %{{.*}}[%[[T]], %[[HEAD]], %[[P]]]
// CHECK:                 %[[DX:.*]] = arith.mulf %[[D]], %[[XV]] : f32
// CHECK:                 %[[BV:.*]] = memref.load %{{.*}}[%[[T]], %{{.*}}, %[[N]]]
// CHECK:                 %[[INPUT:.*]] = arith.mulf %[[DX]], %[[BV]] : f32
// CHECK:                 %[[DECAY_T:.*]] = memref.load %[[DECAYS]][%[[T]], %[[HEAD]]]
// CHECK:                 %[[KEPT:.*]] = arith.mulf %[[DECAY_T]], %[[ST]] : f32
// CHECK:                 %[[NEXT:.*]] = arith.addf %[[KEPT]], %[[INPUT]] : f32
// CHECK:                 scf.yield %[[NEXT]] : f32
// CHECK:               %[[CK:.*]] = memref.load %[[SLOTS]][%[[SEQ]], %[[K]]] : memref<?x5xi32>
// CHECK:               %[[USED:.*]] = arith.cmpi ne, %[[CK]], %c-1_i32 : i32
// CHECK:               scf.if %[[USED]] {
// CHECK:                 %[[CKSLOT:.*]] = arith.index_castui %[[CK]] : i32 to index
// CHECK:                 memref.store %[[WALKED]], %[[POOL]][%[[CKSLOT]], %[[HEAD]], %[[P]], %[[N]]]
// CHECK:               scf.yield %[[WALKED]], %[[SEG_END]] : f32, index
// The boundary at the chunk's end, if written, stores the leaving state.
// CHECK:             %[[KEND:.*]] = arith.subi %[[KHI]], %c1 : index
// CHECK:             %[[IN_K:.*]] = arith.cmpi ult, %[[KEND]], %[[LIMIT]] : index
// CHECK:             %[[END_WRITTEN:.*]] = arith.andi %[[AT_END]], %[[IN_K]] : i1
// CHECK:             scf.if %[[END_WRITTEN]] {
// CHECK:               memref.load %[[SLOTS]][%[[SEQ]], %[[KEND]]] : memref<?x5xi32>
// CHECK:               scf.if
// CHECK:                 memref.store %[[LEAVING]], %[[POOL]][%{{.*}}, %[[HEAD]], %[[P]], %[[N]]]
// Later chunks carry on from the chunked state, not the walk's.
// CHECK:             scf.yield %[[LEAVING]] : f32
// CHECK-NOT:   ssd.chunk_scan_varlen
func.func @chunked(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x4x8xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x5xui32>, %co: memref<?xi32>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x4x8xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x5xui32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(3) outs(%y : memref<?x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 4 : i64}
  return
}
