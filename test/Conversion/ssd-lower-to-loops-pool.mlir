// Compressed pools in ssd-lower-to-loops: every pool read decodes (an 8-bit
// row's scale loaded once per row), every pool write of an 8-bit row takes
// the row's maximum over all N columns, stores its scale and encodes each
// element (a row without a usable scale: zeros); decode goes from the
// stored row through the update in one pass; Philox only with stochastic rounding, its counter the element,
// the slot and the tokens the written state holds. f32 and bf16 pools are
// covered by the other ssd-lower-to-loops tests (unchanged IR).
// RUN: ssd-opt %s -ssd-lower-to-loops="serial-p-tile=8 vector-width=8" -canonicalize -split-input-file | FileCheck %s

// Serial form, i8 pool, nearest: no random bits anywhere.
// CHECK-LABEL: func.func @serial_i8
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x16xi8>, %[[SCALES:[a-z0-9]+]]: memref<?x2x4xf32>
// CHECK-NOT:   arith.mului_extended
// Decode (a one-token sequence), four rows at a time: their scales, then
// one pass that decodes each column block of each row (code * scale),
// updates it, takes its dot product with C, keeps S' in the tile and the
// lanes' maxima of |S'|...
// CHECK:           %[[DSCALE:.*]] = memref.load %[[SCALES]][%[[DSLOT:.*]], %[[DHEAD:.*]], %[[DP:.*]]] : memref<?x2x4xf32>
// CHECK-NEXT:      %[[DSCALE1:.*]] = memref.load %[[SCALES]][%[[DSLOT]], %[[DHEAD]], %[[DP1:.*]]] : memref<?x2x4xf32>
// CHECK-NEXT:      memref.load %[[SCALES]]
// CHECK-NEXT:      memref.load %[[SCALES]]
// CHECK-NEXT:      scf.for %[[DN:.*]] = %c0 to %c16 step %c8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NEXT:        %[[DB:.*]] = vector.load
// CHECK-NEXT:        %[[DC:.*]] = vector.load
// CHECK-NEXT:        %[[DCODES:.*]] = vector.load %[[POOL]][%[[DSLOT]], %[[DHEAD]], %[[DP]], %[[DN]]] : memref<?x2x4x16xi8>, vector<8xi8>
// CHECK-NEXT:        %[[DWIDE:.*]] = arith.sitofp %[[DCODES]] : vector<8xi8> to vector<8xf32>
// CHECK-NEXT:        %[[DSPLAT:.*]] = vector.broadcast %[[DSCALE]] : f32 to vector<8xf32>
// CHECK-NEXT:        %[[DINITIAL:.*]] = arith.mulf %[[DWIDE]], %[[DSPLAT]] : vector<8xf32>
// CHECK-NEXT:        %[[DSTATE:.*]] = vector.fma %{{.*}}, %[[DB]], %[[DINITIAL]] : vector<8xf32>
// CHECK-NEXT:        vector.fma %[[DSTATE]], %[[DC]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:        vector.store %[[DSTATE]], %{{.*}}[%{{.*}}, %[[DN]]] : memref<4x16xf32>, vector<8xf32>
// CHECK:             arith.maxui
// CHECK:             vector.load %[[POOL]][%[[DSLOT]], %[[DHEAD]], %[[DP1]], %[[DN]]] : memref<?x2x4x16xi8>, vector<8xi8>
// CHECK:             arith.maxui
// ... then, if the sequence writes, the scale from the row's maximum times
// the tile's scale s (max |fl(s v)| = fl(s max |v|)), and codes from the
// tile row, round(s S' * inverse) with no clamp (|s S' * inverse| stays
// below 127.5), or zeros throughout a row without a usable inverse.
// The four rows' maxima reduce side by side (row r in lane r; a maximum
// of bits needs no order), and their scales and inverses are one vector
// division each.
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xi32>, vector<8xi32>
// CHECK:             vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<8xi32>, vector<8xi32>
// CHECK-NEXT:        %[[DMAXBITS:.*]] = arith.maxui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NEXT:        %[[DMAXV:.*]] = arith.bitcast %[[DMAXBITS]] : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:        %[[DS:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT:        %[[DMAX:.*]] = arith.mulf %[[DS]], %[[DMAXV]] : vector<4xf32>
// CHECK:             %[[DSCALE4:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK:             arith.divf %{{.*}}, %[[DMAX]] : vector<4xf32>
// CHECK-NEXT:        %[[DINVERSE4:.*]] = arith.select
// CHECK-NEXT:        %[[ABOVEZERO:.*]] = arith.cmpf ogt, %[[DINVERSE4]], %{{.*}} : vector<4xf32>
// CHECK-NEXT:        %[[BELOWINF:.*]] = arith.cmpf olt, %[[DINVERSE4]], %{{.*}} : vector<4xf32>
// CHECK-NEXT:        %[[INRANGE4:.*]] = arith.andi %[[ABOVEZERO]], %[[BELOWINF]] : vector<4xi1>
// CHECK-NEXT:        %[[DROWSCALE:.*]] = vector.extract %[[DSCALE4]][0] : f32 from vector<4xf32>
// CHECK-NEXT:        %[[DINVERSE:.*]] = vector.extract %[[DINVERSE4]][0] : f32 from vector<4xf32>
// CHECK-NEXT:        %[[INRANGE:.*]] = vector.extract %[[INRANGE4]][0] : i1 from vector<4xi1>
// CHECK-NEXT:        memref.store %[[DROWSCALE]], %[[SCALES]][%[[DSLOT]], %[[DHEAD]], %[[DP]]] : memref<?x2x4xf32>
// CHECK-NEXT:        scf.if %[[INRANGE]] {
// CHECK-NEXT:          scf.for %[[DEN:.*]] = %c0 to %c16 step %c8 {
// CHECK-NEXT:            %[[DV:.*]] = vector.load %{{.*}}[%{{.*}}, %[[DEN]]] : memref<4x16xf32>, vector<8xf32>
// CHECK-NEXT:            %[[DSV:.*]] = arith.mulf %{{.*}}, %[[DV]] : vector<8xf32>
// CHECK-NEXT:            %[[DINVSPLAT:.*]] = vector.broadcast %[[DINVERSE]] : f32 to vector<8xf32>
// CHECK-NEXT:            %[[DPROD:.*]] = arith.mulf %[[DSV]], %[[DINVSPLAT]] : vector<8xf32>
// CHECK-NEXT:            %[[DSUM:.*]] = arith.addf %[[DPROD]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:            %[[DSUMBITS:.*]] = arith.bitcast %[[DSUM]] : vector<8xf32> to vector<8xi32>
// CHECK-NEXT:            %[[DINT:.*]] = arith.subi %[[DSUMBITS]], %{{.*}} : vector<8xi32>
// CHECK-NEXT:            %[[DCODE:.*]] = arith.trunci %[[DINT]] : vector<8xi32> to vector<8xi8>
// CHECK-NEXT:            vector.store %[[DCODE]], %[[POOL]][%[[DSLOT]], %[[DHEAD]], %[[DP]], %[[DEN]]] : memref<?x2x4x16xi8>, vector<8xi8>
// CHECK-NEXT:          }
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.for %[[DZN:.*]] = %c0 to %c16 step %c8 {
// CHECK-NEXT:            vector.store %[[ZEROCODES:.*]], %[[POOL]][%[[DSLOT]], %[[DHEAD]], %[[DP]], %[[DZN]]] : memref<?x2x4x16xi8>, vector<8xi8>
// The general path's initial state: row p's scale once, then code * scale
// per column block.
// CHECK:           %[[SCALE:.*]] = memref.load %[[SCALES]][%[[SLOT:.*]], %[[HEAD:.*]], %[[P:.*]]] : memref<?x2x4xf32>
// CHECK-NEXT:      scf.for %[[N:.*]] = %c0 to %c16 step %c8 {
// CHECK-NEXT:        %[[CODES:.*]] = vector.load %[[POOL]][%[[SLOT]], %[[HEAD]], %[[P]], %[[N]]] : memref<?x2x4x16xi8>, vector<8xi8>
// CHECK-NEXT:        %[[WIDE:.*]] = arith.sitofp %[[CODES]] : vector<8xi8> to vector<8xf32>
// CHECK-NEXT:        %[[SPLAT:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<8xf32>
// CHECK-NEXT:        %[[VALUES:.*]] = arith.mulf %[[WIDE]], %[[SPLAT]] : vector<8xf32>
// CHECK-NEXT:        vector.store %[[VALUES]], %{{.*}}[%[[P]], %[[N]]] : memref<4x16xf32>, vector<8xf32>
// Its final state, per row: the maximum of |S'| over all N columns, kept
// lane by lane on the magnitudes' bits (NaN above inf above every number)
// and reduced once, times s; the scale m / 127 and inverse 127 / m (0 for a
// zero or non-finite row); then the codes as above.
// CHECK:             %[[VBITS:.*]] = arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NEXT:        %[[ABSBITS:.*]] = arith.andi %[[VBITS]], %{{.*}} : vector<8xi32>
// CHECK-NEXT:        %[[ACCBITS:.*]] = arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NEXT:        %[[NEXTBITS:.*]] = arith.maxui %[[ACCBITS]], %[[ABSBITS]] : vector<8xi32>
// CHECK-NEXT:        %[[NEXT:.*]] = arith.bitcast %[[NEXTBITS]] : vector<8xi32> to vector<8xf32>
// CHECK-NEXT:        scf.yield %[[NEXT]] : vector<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[LANEBITS:.*]] = arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NEXT:      %[[MAXBITS:.*]] = vector.reduction <maxui>, %[[LANEBITS]] : vector<8xi32> into i32
// CHECK-NEXT:      %[[MAXV:.*]] = arith.bitcast %[[MAXBITS]] : i32 to f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.mulf %{{.*}}, %[[MAXV]] : f32
// CHECK:           %[[ROWSCALE:.*]] = arith.divf %[[MAX]], %{{.*}} : f32
// CHECK:           %[[INVERSE:.*]] = arith.divf %{{.*}}, %[[MAX]] : f32
// CHECK:           memref.store %{{.*}}, %[[SCALES]][%[[SLOT]], %[[HEAD]], %[[WP:.*]]] : memref<?x2x4xf32>
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        scf.for %[[EN:.*]] = %c0 to %c16 step %c8 {
// CHECK:               arith.addf
// CHECK-NEXT:          arith.bitcast
// CHECK-NEXT:          arith.subi
// CHECK-NEXT:          %[[CODE:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
// CHECK-NEXT:          vector.store %[[CODE]], %[[POOL]][%[[SLOT]], %[[HEAD]], %[[WP]], %[[EN]]] : memref<?x2x4x16xi8>, vector<8xi8>
func.func @serial_i8(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x16xf32>, %C: memref<?x1x16xf32>, %pool: memref<?x2x4x16xi8>,
    %scales: memref<?x2x4xf32>, %qsl: memref<?xi32>, %his: memref<?xi1>, %ci: memref<?xi32>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<?x1x16xf32>) C(%C : memref<?x1x16xf32>)
      ssm_pool(%pool : memref<?x2x4x16xi8>) ssm_pool_scales(%scales : memref<?x2x4xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Serial form, f8E4M3FN pool, stochastic, checkpoints with offsets: the
// checkpoint after local token j holds o + j + 1 tokens (o + the segment's
// end - begin), the final state o + len; each element's bits are Philox
// word (n + lane) mod 4 of ((n + lane) / 4, h P + p, slot, tokens held)
// under the seed's halves.
// CHECK-LABEL: func.func @serial_f8_stochastic
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x16xf8E4M3FN>, %[[SCALES:[a-z0-9]+]]: memref<?x2x4xf32>
// CHECK-SAME:    %[[CO:[a-z0-9]+]]: memref<?xi32>, %[[SEED:[a-z0-9]+]]: memref<i64>
// CHECK:       scf.parallel
// CHECK:         %[[BEGIN:.*]] = arith.index_cast
// CHECK:         %[[END:.*]] = arith.index_cast
// The phase o mod I reads o, and so does the counter's tokens held.
// CHECK:         arith.remui %{{.*}}, %c2 : index
// CHECK:         %[[RAW_O:.*]] = memref.load %[[CO]][%{{.*}}] : memref<?xi32>
// CHECK-NEXT:    %[[O:.*]] = arith.index_castui %[[RAW_O]] : i32 to index
// A checkpoint: its slot, then o + (segment end - begin).
// CHECK:         %[[SEG_END:.*]] = arith.select %{{.*}}, %{{.*}}, %[[END]] : index
// CHECK:               %[[CKSLOT:.*]] = arith.index_castui %[[CKRAW:.*]] : i32 to index
// CHECK:               %[[LOCAL:.*]] = arith.subi %[[SEG_END]], %[[BEGIN]] : index
// CHECK-NEXT:          %[[HELD:.*]] = arith.addi %[[O]], %[[LOCAL]] : index
// CHECK:                 vector.reduction <maxui>
// CHECK:               memref.store %{{.*}}, %[[SCALES]][%[[CKSLOT]], %[[HEAD:.*]], %[[ROW:.*]]] : memref<?x2x4xf32>
// CHECK-NEXT:          scf.if
// CHECK-NEXT:            scf.for %[[N:.*]] = %c0 to %c16 step %c8 {
// CHECK:                 %[[HP:.*]] = arith.muli %[[HEAD]], %c4 : index
// CHECK-NEXT:            %[[HPP:.*]] = arith.addi %[[HP]], %[[ROW]] : index
// CHECK-NEXT:            %[[KEY:.*]] = memref.load %[[SEED]][] : memref<i64>
// Four columns share a call: 8 lanes make 2 calls, on counters n / 4 + (0, 1).
// CHECK-NEXT:            %[[NW:.*]] = arith.index_castui %[[N]] : index to i32
// CHECK-NEXT:            %[[QUARTER:.*]] = arith.shrui %[[NW]], %c2_i32 : i32
// CHECK-NEXT:            %[[NV:.*]] = vector.broadcast %[[QUARTER]] : i32 to vector<2xi32>
// CHECK-NEXT:            %[[C0:.*]] = arith.addi %[[NV]], %{{.*}} : vector<2xi32>
// CHECK-NEXT:            arith.index_castui %[[HPP]] : index to i32
// CHECK-NEXT:            vector.broadcast
// CHECK-NEXT:            %[[C2:.*]] = vector.broadcast %[[CKRAW]] : i32 to vector<2xi32>
// CHECK-NEXT:            %[[HW:.*]] = arith.index_castui %[[HELD]] : index to i32
// CHECK-NEXT:            vector.broadcast %[[HW]] : i32 to vector<2xi32>
// CHECK-NEXT:            arith.trunci %[[KEY]] : i64 to i32
// CHECK-NEXT:            %[[HI:.*]] = arith.shrui %[[KEY]], %c32_i64 : i64
// CHECK-NEXT:            arith.trunci %[[HI]] : i64 to i32
// CHECK-NEXT:            arith.mului_extended %[[C0]], %[[M0:.*]] : vector<2xi32>
// CHECK-NEXT:            arith.mului_extended %[[C2]], %[[M1:.*]] : vector<2xi32>
// The other rounds (18 more products: all four words are used), then the
// words interleaved, lane 4 c + w holding word w of call c.
// CHECK-COUNT-18:        arith.mului_extended
// CHECK:                 %[[W01:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<2xi32> -> vector<4xi32>
// CHECK-NEXT:            %[[W23:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<2xi32> -> vector<4xi32>
// CHECK-NEXT:            vector.shuffle %[[W01]], %[[W23]] [0, 1, 4, 5, 2, 3, 6, 7] : vector<4xi32>, vector<4xi32>
// CHECK:                 vector.store %{{.*}}, %[[POOL]][%[[CKSLOT]], %[[HEAD]], %[[ROW]], %[[N]]] : memref<?x2x4x16xf8E4M3FN>, vector<8xf8E4M3FN>
// The final state: o + (end - begin).
// CHECK:         scf.if
// CHECK-NEXT:      %[[LEN:.*]] = arith.subi %[[END]], %[[BEGIN]] : index
// CHECK-NEXT:      %[[FINAL_HELD:.*]] = arith.addi %[[O]], %[[LEN]] : index
// CHECK:             arith.index_castui %[[FINAL_HELD]] : index to i32
// CHECK:             arith.mului_extended
func.func @serial_f8_stochastic(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x16xf32>, %C: memref<?x1x16xf32>, %pool: memref<?x2x4x16xf8E4M3FN>,
    %scales: memref<?x2x4xf32>, %qsl: memref<?xi32>, %his: memref<?xi1>, %ci: memref<?xi32>,
    %cs: memref<?x2xi32>, %co: memref<?xi32>, %seed: memref<i64>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<?x1x16xf32>) C(%C : memref<?x1x16xf32>)
      ssm_pool(%pool : memref<?x2x4x16xf8E4M3FN>) ssm_pool_scales(%scales : memref<?x2x4xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x2xi32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(2) rounding_seed(%seed : memref<i64>)
      outs(%y : memref<?x2x4xf32>) {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

// Chunked form, i8 pool with checkpoints: phase 4 reads the row's scale once
// per (sequence, head, p) task, decodes each element, and keeps the f32 rows
// it writes (final: [N] on the stack; the W boundaries written: [W, N]) until
// the row is done; then each row's maximum, scale and codes.
// CHECK-LABEL: func.func @chunked_i8
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x16xi8>, %[[SCALES:[a-z0-9]+]]: memref<?x2x4xf32>
// CHECK-NOT:   arith.mului_extended
// CHECK:       scf.parallel
// CHECK:       scf.parallel
// CHECK:       scf.parallel
// CHECK:       scf.parallel (%{{.*}}, %[[HEAD:.*]], %[[P:.*]]) =
// CHECK:         %[[SLOT:.*]] = arith.index_castui
// CHECK:         %[[READ_SCALE:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT:      memref.load %[[SCALES]][%[[SLOT]], %[[HEAD]], %[[P]]] : memref<?x2x4xf32>
// CHECK:         %[[FINAL:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK:         %[[W:.*]] = arith.minui
// CHECK-NEXT:    %[[CKROWS:.*]] = memref.alloc(%[[W]]) {alignment = 64 : i64} : memref<?x16xf32>
// CHECK-NEXT:    scf.for %[[N:.*]] = %c0 to %c16 step %c1 {
// CHECK:             %[[CODE:.*]] = memref.load %[[POOL]][%[[SLOT]], %[[HEAD]], %[[P]], %[[N]]] : memref<?x2x4x16xi8>
// CHECK-NEXT:        %[[WIDE:.*]] = arith.sitofp %[[CODE]] : i8 to f32
// CHECK-NEXT:        arith.mulf %[[WIDE]], %[[READ_SCALE]] : f32
// CHECK:                 memref.store %{{.*}}, %[[CKROWS]][%{{.*}}, %[[N]]] : memref<?x16xf32>
// CHECK:                 memref.store %{{.*}}, %[[CKROWS]][%{{.*}}, %[[N]]] : memref<?x16xf32>
// CHECK:           memref.store %{{.*}}, %[[FINAL]][%[[N]]] : memref<16xf32>
// CHECK:         scf.if
// CHECK-NEXT:      %[[MAX:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT:        memref.load %[[FINAL]]
// CHECK:           memref.store %{{.*}}, %[[SCALES]][%[[SLOT]], %[[HEAD]], %[[P]]] : memref<?x2x4xf32>
// CHECK:             arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT:        memref.store %{{.*}}, %[[POOL]][%[[SLOT]], %[[HEAD]], %[[P]], %{{.*}}] : memref<?x2x4x16xi8>
// CHECK:         scf.for %[[K:.*]] = %c0 to %[[W]] step %c1 {
// CHECK:             %[[CKSLOT:.*]] = arith.index_castui
// CHECK:               memref.load %[[CKROWS]][%[[K]], %{{.*}}] : memref<?x16xf32>
// CHECK:             memref.store %{{.*}}, %[[SCALES]][%[[CKSLOT]], %[[HEAD]], %[[P]]] : memref<?x2x4xf32>
// CHECK:               memref.store %{{.*}}, %[[POOL]][%[[CKSLOT]], %[[HEAD]], %[[P]], %{{.*}}] : memref<?x2x4x16xi8>
// CHECK:         memref.dealloc %[[CKROWS]] : memref<?x16xf32>
func.func @chunked_i8(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x16xf32>, %C: memref<?x1x16xf32>, %pool: memref<?x2x4x16xi8>,
    %scales: memref<?x2x4xf32>, %qsl: memref<?xi32>, %his: memref<?xi1>, %ci: memref<?xi32>,
    %cs: memref<?x2xi32>, %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<?x1x16xf32>) C(%C : memref<?x1x16xf32>)
      ssm_pool(%pool : memref<?x2x4x16xi8>) ssm_pool_scales(%scales : memref<?x2x4xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x2xi32>) checkpoint_interval(4)
      outs(%y : memref<?x2x4xf32>) {form = #ssd<form chunked>, chunk_size = 8}
  return
}

// -----

// Invariant loops, f8E4M3FN pool, N = 40: one whole block of 32 columns and
// a tail of 8 under the lane mask, which reads a zero code past N and leaves
// the row maximum as it is.
// CHECK-LABEL: func.func @invariant_f8
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x40xf8E4M3FN>, %[[SCALES:[a-z0-9]+]]: memref<?x2x4xf32>
// CHECK-NOT:   arith.mului_extended
// CHECK:         %[[SCALE:.*]] = memref.load %[[SCALES]]
// CHECK-NEXT:    vector.load %[[POOL]][{{.*}}, %c0] : memref<?x2x4x40xf8E4M3FN>, vector<32xf8E4M3FN>
// CHECK-NEXT:    arith.bitcast %{{.*}} : vector<32xf8E4M3FN> to vector<32xi8>
// CHECK:         vector.maskedload %[[POOL]][{{.*}}, %c32], %{{.*}}, %{{.*}} : memref<?x2x4x40xf8E4M3FN>, vector<32xi1>, vector<32xf8E4M3FN> into vector<32xf8E4M3FN>
// CHECK:         vector.reduction <maxui>
// CHECK:         vector.maskedload %{{.*}}[%{{.*}}, %c32]
// CHECK:         vector.reduction <maxui>
// CHECK:         memref.store %{{.*}}, %[[SCALES]]
// CHECK:         vector.store %{{.*}}, %[[POOL]][{{.*}}, %c0] : memref<?x2x4x40xf8E4M3FN>, vector<32xf8E4M3FN>
// CHECK:         vector.maskedstore %[[POOL]][{{.*}}, %c32], %{{.*}}, %{{.*}} : memref<?x2x4x40xf8E4M3FN>, vector<32xi1>, vector<32xf8E4M3FN>
func.func @invariant_f8(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x40xf32>, %C: memref<?x1x40xf32>, %pool: memref<?x2x4x40xf8E4M3FN>,
    %scales: memref<?x2x4xf32>, %qsl: memref<?xi32>, %his: memref<?xi1>, %ci: memref<?xi32>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<?x1x40xf32>) C(%C : memref<?x1x40xf32>)
      ssm_pool(%pool : memref<?x2x4x40xf8E4M3FN>) ssm_pool_scales(%scales : memref<?x2x4xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x4xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Serial form, f16 pool, stochastic: no scales; Philox, then the value
// rounded on f16's grid and narrowed exactly.
// CHECK-LABEL: func.func @serial_f16_stochastic
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x4x16xf16>
// CHECK:         vector.load %[[POOL]]{{.*}} : memref<?x2x4x16xf16>, vector<8xf16>
// CHECK-NEXT:    arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK:         arith.mului_extended
// CHECK:         %[[NARROW:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK-NEXT:    vector.store %[[NARROW]], %[[POOL]]
func.func @serial_f16_stochastic(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x16xf32>, %C: memref<?x1x16xf32>, %pool: memref<?x2x4x16xf16>,
    %qsl: memref<?xi32>, %his: memref<?xi1>, %ci: memref<?xi32>, %seed: memref<i64>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<?x1x16xf32>) C(%C : memref<?x1x16xf32>)
      ssm_pool(%pool : memref<?x2x4x16xf16>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      rounding_seed(%seed : memref<i64>)
      outs(%y : memref<?x2x4xf32>) {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}
