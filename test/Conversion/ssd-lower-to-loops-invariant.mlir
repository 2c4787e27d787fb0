// An op marked `invariant` lowers to the canonical token-serial loop nest
// (SSDToLoops/InvariantScan.cpp) whatever form ssd-select-form records on it:
// unscaled state, vector<32xf32> column blocks on every CPU level, llvm.fma,
// 32 partials summed by the halving tree, NaNs canonicalised before every
// store; nothing reassociates, nothing carries fast-math flags, no math ops.
// RUN: ssd-opt %s -ssd-select-form="form=chunked" -ssd-lower-to-loops -canonicalize -split-input-file \
// RUN:   | FileCheck %s --implicit-check-not=vector.reduction --implicit-check-not=fastmath \
// RUN:       --implicit-check-not=math. --implicit-check-not=vector.fma --implicit-check-not=vector.contract
// The serial request and the pass's vector width change nothing.
// RUN: ssd-opt %s -ssd-select-form="form=chunked" -ssd-lower-to-loops -canonicalize -split-input-file > %t.chunked
// RUN: ssd-opt %s -ssd-select-form="form=serial" -ssd-lower-to-loops="vector-width=4" -canonicalize -split-input-file > %t.serial
// RUN: diff %t.chunked %t.serial

// bf16 model, f32 pool, N = 48: one whole column block and a tail of 16.
// CHECK-LABEL: func.func @bf16_tail
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-DAG:   %[[QNAN:.*]] = arith.constant dense<0x7FC00000> : vector<32xf32>
// CHECK-DAG:   %[[QNAN16:.*]] = arith.constant 0x7FC0 : bf16
// CHECK-DAG:   %[[TWENTY:.*]] = arith.constant 2.000000e+01 : f32
// The serial form's task structure: heads x active sequences (P = 64 is one
// tile), the state tile N wide, two tokens' B and C rows padded to 64.
// CHECK:       scf.parallel (%[[HEAD:.*]], %{{.*}}) = (%c0, %c0) to (%c2, %{{.*}})
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[D:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x48xf32>
// CHECK:         %[[ROWS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x64xf32>
// Decode: one pass from pool rows to pool rows (or the tile), the state
// stored with canonical NaNs.
// CHECK:         scf.if %{{.*}} {
// CHECK:           memref.subview %{{.*}} : memref<?x2x64x48xf32> to memref<64x48xf32, strided<[48, 1], offset: ?>>
// CHECK:           %[[SOURCE:.*]] = arith.select %{{.*}} : memref<?x?xf32, strided<[48, 1], offset: ?>>
// CHECK:           %[[SINK:.*]] = arith.select %{{.*}} : memref<?x?xf32, strided<[48, 1], offset: ?>>
// CHECK:           scf.for
// CHECK:             %[[H0:.*]] = vector.load %[[SOURCE]]
// CHECK:             %[[NEW0:.*]] = llvm.intr.fma(%{{.*}}, %[[H0]], %{{.*}}) : (vector<32xf32>
// CHECK:             %[[ACC0:.*]] = llvm.intr.fma(%[[NEW0]], %{{.*}}, %[[ZERO]])
// CHECK:             %[[NAN0:.*]] = arith.cmpf uno, %[[NEW0]], %[[NEW0]] : vector<32xf32>
// CHECK:             %[[CANON0:.*]] = arith.select %[[NAN0]], %[[QNAN]], %[[NEW0]]
// CHECK:             vector.store %[[CANON0]], %[[SINK]]
// CHECK:       } else {
// The general case: token pairs through the tile, two rows at a time.
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %c2 {
// d = softplus(dt + dt_bias); g = exp(min(d A, 0)).
// CHECK:           %[[V:.*]] = arith.addf
// CHECK:           %[[BIG:.*]] = arith.cmpf ogt, %[[V]], %[[TWENTY]] : f32
// CHECK:           %[[DT:.*]] = arith.select %[[BIG]], %[[V]], %{{.*}} : f32
// B and C of the token widened into the padded row pair: the tail block
// reads 16 columns, the padding gets +0.
// CHECK:           vector.load %{{.*}} : memref<?x1x48xbf16>, vector<32xbf16>
// CHECK:           %[[M16:.*]] = vector.constant_mask [16] : vector<32xi1>
// CHECK:           vector.maskedload %{{.*}}, %[[M16]], %{{.*}} : memref<?x1x48xbf16>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
// CHECK:           vector.store %{{.*}}, %[[ROWS]][%c0, %c32]
// CHECK:           %[[DA:.*]] = arith.mulf %[[DT]], %{{.*}} : f32
// CHECK:           arith.minimumf %[[DA]], %{{.*}} : f32
// CHECK:           %[[G:.*]] = vector.broadcast %{{.*}} : f32 to vector<32xf32>
// The second token: its rows at 2 and 3.
// CHECK:           %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// CHECK:           %[[BIG1:.*]] = arith.cmpf ogt, %{{.*}}, %[[TWENTY]] : f32
// CHECK-NEXT:      %[[DT1:.*]] = arith.select %[[BIG1]], %{{.*}}, %{{.*}} : f32
// CHECK:           vector.store %{{.*}}, %[[ROWS]][%c3, %c32]
// CHECK:           %[[G1:.*]] = vector.broadcast %{{.*}} : f32 to vector<32xf32>
// CHECK:           scf.for %[[P:.*]] = %c0 to %c64 step %c2 {
// w = d x per row and token.
// CHECK:             %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:             %[[W:.*]] = arith.mulf %[[DT]], %[[X]] : f32
// CHECK:             %[[WV:.*]] = vector.broadcast %[[W]] : f32 to vector<32xf32>
// CHECK:             %[[W1:.*]] = arith.mulf %[[DT1]], %{{.*}} : f32
// CHECK:             %[[WV1:.*]] = vector.broadcast %[[W1]] : f32 to vector<32xf32>
// The whole block, both tokens between one load and one store of the
// state: h = fma(g, h, w B), acc = fma(h, C, +0).
// CHECK:             %[[B:.*]] = vector.load %[[ROWS]][%c0, %c0]
// CHECK:             %[[C:.*]] = vector.load %[[ROWS]][%c1, %c0]
// CHECK:             %[[B1:.*]] = vector.load %[[ROWS]][%c2, %c0]
// CHECK:             %[[C1:.*]] = vector.load %[[ROWS]][%c3, %c0]
// CHECK:             %[[H:.*]] = vector.load %[[TILE]][%[[P]], %c0]
// CHECK:             %[[WB:.*]] = arith.mulf %[[WV]], %[[B]] : vector<32xf32>
// CHECK:             %[[HN:.*]] = llvm.intr.fma(%[[G]], %[[H]], %[[WB]]) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK:             %[[ACC:.*]] = llvm.intr.fma(%[[HN]], %[[C]], %[[ZERO]])
// CHECK:             %[[WB1:.*]] = arith.mulf %[[WV1]], %[[B1]] : vector<32xf32>
// CHECK:             %[[HN1:.*]] = llvm.intr.fma(%[[G1]], %[[HN]], %[[WB1]])
// CHECK:             llvm.intr.fma(%[[HN1]], %[[C1]], %[[ZERO]])
// CHECK:             vector.store %[[HN1]], %[[TILE]][%[[P]], %c0]
// The tail block: columns 48..63 leave their partials unchanged (a select,
// not an fma with the zero padding) and are neither loaded nor stored.
// CHECK:             %[[MASK:.*]] = vector.constant_mask [16] : vector<32xi1>
// CHECK:             %[[HT:.*]] = vector.maskedload %[[TILE]][%[[P]], %c32], %[[MASK]], %[[ZERO]]
// CHECK:             %[[HTN:.*]] = llvm.intr.fma(%[[G]], %[[HT]], %{{.*}})
// CHECK:             %[[TERM:.*]] = llvm.intr.fma(%[[HTN]], %{{.*}}, %[[ACC]])
// CHECK:             %[[PARTIALS:.*]] = arith.select %[[MASK]], %[[TERM]], %[[ACC]] : vector<32xi1>, vector<32xf32>
// CHECK:             %[[HTN1:.*]] = llvm.intr.fma(%[[G1]], %[[HTN]], %{{.*}})
// CHECK:             %[[TERM1:.*]] = llvm.intr.fma(%[[HTN1]], %{{.*}}, %[[ACC1:[^)]*]])
// CHECK:             arith.select %[[MASK]], %[[TERM1]], %[[ACC1]] : vector<32xi1>, vector<32xf32>
// CHECK:             vector.maskedstore %[[TILE]][%[[P]], %c32], %[[MASK]], %[[HTN1]]
// y: the halving tree of the 32 partials, then fma(D, x, sum), rounded to
// bf16, a NaN stored as bf16's quiet NaN (chosen after the truncation).
// CHECK:             %[[L16:.*]] = vector.extract_strided_slice %[[PARTIALS]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK:             %[[H16:.*]] = vector.extract_strided_slice %[[PARTIALS]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK:             arith.addf %[[L16]], %[[H16]] : vector<16xf32>
// CHECK:             arith.addf %{{.*}} : vector<8xf32>
// CHECK:             arith.addf %{{.*}} : vector<4xf32>
// CHECK:             arith.addf %{{.*}} : vector<2xf32>
// CHECK:             %[[ONE:.*]] = arith.addf %{{.*}} : vector<1xf32>
// CHECK:             %[[SUM:.*]] = vector.extract %[[ONE]][0] : f32 from vector<1xf32>
// CHECK:             %[[Y:.*]] = llvm.intr.fma(%[[D]], %[[X]], %[[SUM]]) : (f32, f32, f32) -> f32
// CHECK:             %[[YNAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK:             %[[YB:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK:             %[[YC:.*]] = arith.select %[[YNAN]], %[[QNAN16]], %[[YB]] : bf16
// CHECK:             memref.store %[[YC]]
// The final state: canonical NaNs, the tail's 16 columns only.
// CHECK:         scf.if
// CHECK:           %[[S:.*]] = vector.load %[[TILE]]
// CHECK:           %[[SNAN:.*]] = arith.cmpf uno, %[[S]], %[[S]]
// CHECK:           %[[SC:.*]] = arith.select %[[SNAN]], %[[QNAN]], %[[S]]
// CHECK:           vector.store %[[SC]], %{{.*}} : memref<?x2x64x48xf32>, vector<32xf32>
// CHECK:           vector.maskedstore %{{.*}} : memref<?x2x64x48xf32>, vector<32xi1>, vector<32xf32>
func.func @bf16_tail(%x: memref<?x2x64xbf16>, %dt: memref<?x2xbf16>, %A: memref<2xbf16>,
    %B: memref<?x1x48xbf16>, %C: memref<?x1x48xbf16>, %D: memref<2xbf16>, %bias: memref<2xbf16>,
    %pool: memref<?x2x64x48xf32>, %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>,
    %y: memref<?x2x64xbf16>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x2x64xbf16>) dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x48xbf16>) C(%C : memref<?x1x48xbf16>) D(%D : memref<2xbf16>)
      dt_bias(%bias : memref<2xbf16>)
      ssm_pool(%pool : memref<?x2x64x48xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x64xbf16>)
  return
}

// -----

// Dynamic N (and every other extent), no D, no dt_bias, checkpoints: the
// whole blocks end at N - N mod 32, the tail's mask is N - n lanes, y is the
// tree's sum itself, and each written checkpoint stores canonical NaNs.
// CHECK-LABEL: func.func @dynamic_n
// CHECK:       %[[REM:.*]] = arith.remui %[[N:.*]], %c32 : index
// CHECK-NEXT:  %[[WHOLE:.*]] = arith.subi %[[N]], %[[REM]] : index
// CHECK:       scf.parallel
// CHECK:         %[[TILE:.*]] = memref.alloc(%{{.*}}, %[[N]]) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK:         %[[ROWS:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<4x?xf32>
// CHECK:       } else {
// Segments between checkpoints.
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}}) -> (index) {
// CHECK:           scf.for %{{.*}} step %c1 {
// dt without dt_bias is d: d A straight from the load.
// CHECK:             %[[DT:.*]] = memref.load %{{.*}} : memref<?x?xf32>
// CHECK:             arith.mulf %[[DT]], %{{.*}} : f32
// CHECK:             scf.for %[[P:.*]] = %c0 to %{{.*}} step %c4 {
// CHECK:               %{{.*}}:4 = scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c32 iter_args
// CHECK:               %{{.*}}:4 = scf.for %[[COL:.*]] = %[[WHOLE]] to %[[N]] step %c32 iter_args
// CHECK:                 %[[LEFT:.*]] = arith.subi %[[N]], %[[COL]] : index
// CHECK:                 %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<32xi1>
// CHECK:                 vector.maskedload %[[TILE]][%[[P]], %[[COL]]], %[[MASK]]
// CHECK:                 %[[HT:.*]] = llvm.intr.fma
// CHECK-NEXT:            %[[TERM:.*]] = llvm.intr.fma(%[[HT]], %{{.*}}, %[[PREV:.*]]) :
// CHECK-NEXT:            arith.select %[[MASK]], %[[TERM]], %[[PREV]] : vector<32xi1>, vector<32xf32>
// CHECK:               %[[SUM:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK-NEXT:          arith.addi
// CHECK-NEXT:          %[[NAN:.*]] = arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK-NEXT:          %[[YC:.*]] = arith.select %[[NAN]], %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:          memref.store %[[YC]]
// The checkpoint after a segment.
// CHECK:           scf.if
// CHECK:             memref.load %{{.*}} : memref<?x?xi32>
// CHECK:             scf.if
// CHECK:               %[[S:.*]] = vector.load %[[TILE]]
// CHECK:               arith.cmpf uno, %[[S]], %[[S]] : vector<32xf32>
// CHECK:               vector.store %{{.*}} : memref<?x?x?x?xf32>, vector<32xf32>
// CHECK:               vector.create_mask
// CHECK:               vector.maskedstore %{{.*}} : memref<?x?x?x?xf32>, vector<32xi1>, vector<32xf32>
func.func @dynamic_n(%x: memref<?x?x?xf32>, %dt: memref<?x?xf32>, %A: memref<?xf32>,
    %B: memref<?x?x?xf32>, %pool: memref<?x?x?x?xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %cks: memref<?x?xi32>, %y: memref<?x?x?xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x?x?xf32>) dt(%dt : memref<?x?xf32>) A(%A : memref<?xf32>)
      B(%B : memref<?x?x?xf32>) C(%B : memref<?x?x?xf32>) ssm_pool(%pool : memref<?x?x?x?xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cks : memref<?x?xi32>) outs(%y : memref<?x?x?xf32>)
      {checkpoint_interval = 4 : i64, invariant}
  return
}
