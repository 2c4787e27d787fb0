// Draft trees (token_parents) in the serial form of ssd-lower-to-loops: runs
// of tokens whose parent is the token before go through the chain's token
// loops; any other token first replays its parent's path from the initial
// state, update only.
// RUN: ssd-opt %s -ssd-lower-to-loops="serial-p-tile=8 vector-width=8" -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @tree
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x2x8xf32>, %[[DT:[a-z0-9]+]]: memref<?x2xf32>
// CHECK-SAME:    %[[POOL:[a-z0-9]+]]: memref<?x2x8x8xf32>
// CHECK-SAME:    %[[TP:[a-z0-9]+]]: memref<?xi32>, %[[Y:[a-z0-9]+]]: memref<?x2x8xf32>
// CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-DAG:   %[[MAX:.*]] = arith.constant 4.2949673E+9 : f32
// CHECK-DAG:   %[[MIN:.*]] = arith.constant 2.32830644E-10 : f32
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:       scf.parallel (%[[HEAD:.*]], %{{.*}}) =
// CHECK:         %[[BEGIN:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[SLOT:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK:         %[[READS:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:         %[[STATE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x8xf32>
// The general case (after the one-token decode path): the initial state into
// the tile, then the tree's runs, carrying the run's first token and the
// tile's scale.
// CHECK:         } else {
// CHECK:           scf.if %[[READS]] {
// CHECK:             vector.load %[[POOL]][%[[SLOT]], %[[HEAD]],
// CHECK:           %[[RUNS:.*]]:2 = scf.while (%[[T0:.*]] = %[[BEGIN]], %[[S0:.*]] = %[[ONE]]) : (index, f32) -> (index, f32) {
// CHECK:             %[[MORE:.*]] = arith.cmpi ult, %[[T0]], %[[END]] : index
// CHECK:             scf.condition(%[[MORE]]) %[[T0]], %[[S0]] : index, f32
// CHECK:           } do {
// CHECK:           ^bb0(%[[T:.*]]: index, %[[S:.*]]: f32):
// The parent load and the continuation test p == j - 1 (p = -1 at j = 0).
// CHECK:             %[[J:.*]] = arith.subi %[[T]], %[[BEGIN]] : index
// CHECK:             %[[PRAW:.*]] = memref.load %[[TP]][%[[T]]] : memref<?xi32>
// CHECK:             %[[P:.*]] = arith.index_cast %[[PRAW]] : i32 to index
// CHECK:             %[[JM1:.*]] = arith.subi %[[J]], %c1 : index
// CHECK:             %[[CONT:.*]] = arith.cmpi eq, %[[P]], %[[JM1]] : index
// CHECK:             %[[START:.*]] = scf.if %[[CONT]] -> (f32) {
// CHECK:               scf.yield %[[S]] : f32
// CHECK:             } else {
// The replay: the initial state again (pool slot or zeros) at scale 1...
// CHECK:               scf.if %[[READS]] {
// CHECK:                 vector.load %[[POOL]][%[[SLOT]], %[[HEAD]],
// CHECK:               } else {
// CHECK:                 vector.store %[[ZEROS]], %[[STATE]]
// ...p's depth, walking up while 0 <= node < child...
// CHECK:               %[[DEPTH:.*]]:2 = scf.while (%[[NODE:.*]] = %[[P]], %[[CHILD:.*]] = %[[J]], %{{.*}} = %c0)
// CHECK:                 %[[GE:.*]] = arith.cmpi sge, %[[NODE]], %c0 : index
// CHECK:                 %[[LT:.*]] = arith.cmpi slt, %[[NODE]], %[[CHILD]] : index
// CHECK:                 %[[ON:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:                 scf.condition(%[[ON]])
// CHECK:               } do {
// CHECK:                 memref.load %[[TP]]
// ...and the ancestors root..p in order, the i-th found d - 1 - i parents up
// from p, each through the single-token step without y: decay, fold, update.
// CHECK:               %[[REPLAYED:.*]] = scf.for %[[I:.*]] = %c0 to %[[DEPTH]]#1 step %c1 iter_args(%[[RS:.*]] = %[[ONE]]) -> (f32) {
// CHECK:                 %[[LEFT:.*]] = arith.subi %[[DEPTH]]#1, %[[I]] : index
// CHECK:                 %[[UP:.*]] = arith.subi %[[LEFT]], %c1 : index
// CHECK:                 %[[ANC:.*]] = scf.for %{{.*}} = %c0 to %[[UP]] step %c1 iter_args(%{{.*}} = %[[P]]) -> (index) {
// CHECK:                   memref.load %[[TP]]
// CHECK:                 %[[AT:.*]] = arith.addi %[[BEGIN]], %[[ANC]] : index
// CHECK:                 memref.load %[[DT]][%[[AT]], %[[HEAD]]]
// CHECK:                 %[[DECAYED:.*]] = arith.mulf %[[RS]], %{{.*}} : f32
// CHECK:                 %[[BELOW:.*]] = arith.cmpf ult, %[[DECAYED]], %[[MIN]] : f32
// CHECK:                 %[[ABOVE:.*]] = arith.cmpf ugt, %[[DECAYED]], %[[MAX]] : f32
// CHECK:                 %[[OUT:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK:                 %[[FOLDED:.*]] = arith.select %[[OUT]], %[[ONE]], %[[DECAYED]] : f32
// CHECK:                 scf.if %[[OUT]] {
// CHECK:                 memref.load %[[X]][%[[AT]], %[[HEAD]], %c0]
// CHECK-NOT:             vector.reduction
// CHECK-NOT:             memref.store
// CHECK:                 vector.fma
// CHECK-NOT:             vector.reduction
// CHECK-NOT:             memref.store
// CHECK:                 scf.yield %[[FOLDED]] : f32
// CHECK:               }
// CHECK:               scf.yield %[[REPLAYED]] : f32
// The run: from t + 1 while a token's parent is the token before; the load
// clamped to the span's last token.
// CHECK:             %[[NEXT:.*]] = arith.addi %[[T]], %c1 : index
// CHECK:             %[[LAST:.*]] = arith.subi %[[END]], %c1 : index
// CHECK:             %[[RUN_END:.*]] = scf.while (%[[K:.*]] = %[[NEXT]]) : (index) -> index {
// CHECK:               %[[IN:.*]] = arith.cmpi ult, %[[K]], %[[END]] : index
// CHECK:               %[[CLAMPED:.*]] = arith.minui %[[K]], %[[LAST]] : index
// CHECK:               %[[KJ:.*]] = arith.subi %[[K]], %[[BEGIN]] : index
// CHECK:               %[[KPRAW:.*]] = memref.load %[[TP]][%[[CLAMPED]]] : memref<?xi32>
// CHECK:               %[[KP:.*]] = arith.index_cast %[[KPRAW]] : i32 to index
// CHECK:               %[[KJM1:.*]] = arith.subi %[[KJ]], %c1 : index
// CHECK:               %[[CHILD_OF_PREV:.*]] = arith.cmpi eq, %[[KP]], %[[KJM1]] : index
// CHECK:               %[[GOES_ON:.*]] = arith.andi %[[IN]], %[[CHILD_OF_PREV]] : i1
// CHECK:               scf.condition(%[[GOES_ON]]) %[[K]] : index
// The run's tokens as a chain's: pairs from t, then an odd one alone, the
// pair's y and the single's y stored.
// CHECK:             %[[PAIRS:.*]] = scf.for %{{.*}} = %[[T]] to %{{.*}} step %c2 iter_args(%{{.*}} = %[[START]]) -> (f32) {
// CHECK:               vector.extract %{{.*}}[0] : f32 from vector<8xf32>
// CHECK:               memref.store %{{.*}}, %[[Y]]
// CHECK:             %[[AFTER:.*]] = scf.for %{{.*}} = %{{.*}} to %[[RUN_END]] step %c1 iter_args(%{{.*}} = %[[PAIRS]]) -> (f32) {
// CHECK:             scf.yield %[[RUN_END]], %[[AFTER]] : index, f32
// The final state: the last token's, times the scale after the runs.
// CHECK:           vector.broadcast %[[RUNS]]#1 : f32 to vector<8xf32>
// CHECK-NOT:   ssd.chunk_scan_varlen
func.func @tree(%x: memref<?x2x8xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x8x8xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %his: memref<?xi1>, %tp: memref<?xi32>,
    %y: memref<?x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x8xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x8x8xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>)
      token_parents(%tp : memref<?xi32>) outs(%y : memref<?x2x8xf32>) {form = #ssd<form serial>}
  return
}

// -----

// With checkpoints (interval 1): the tree's runs within each segment, the
// segment's first token its own run start; the store of s S' after it is the
// node's state.
// CHECK-LABEL: func.func @tree_checkpoints
// CHECK-SAME:    %[[TP:[a-z0-9]+]]: memref<?xi32>, %{{[a-z0-9]+}}: memref<?x2x8xf32>
// CHECK:       scf.parallel
// CHECK:         %[[SEGS:.*]]:2 = scf.for %[[KSEG:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[SCALE:.*]] = %{{.*}}, %[[FIRST:.*]] = %{{.*}}) -> (f32, index) {
// CHECK:           %[[IS_BOUNDARY:.*]] = arith.cmpi ult, %[[KSEG]], %{{.*}} : index
// CHECK:           %[[SEG_END:.*]] = arith.select %[[IS_BOUNDARY]], %{{.*}}, %{{.*}} : index
// CHECK:           %[[RUNS:.*]]:2 = scf.while (%[[T0:.*]] = %[[FIRST]], %{{.*}} = %[[SCALE]]) : (index, f32) -> (index, f32) {
// CHECK:             arith.cmpi ult, %[[T0]], %[[SEG_END]] : index
// CHECK:           } do {
// CHECK:             memref.load %[[TP]]
// CHECK:           scf.if %[[IS_BOUNDARY]] {
// CHECK:             vector.broadcast %[[RUNS]]#1 : f32 to vector<8xf32>
// CHECK:           scf.yield %[[RUNS]]#1, %[[SEG_END]] : f32, index
func.func @tree_checkpoints(%x: memref<?x2x8xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x8x8xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xi32>, %tp: memref<?xi32>,
    %y: memref<?x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x8xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x8x8xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x4xi32>) checkpoint_interval(1)
      token_parents(%tp : memref<?xi32>) outs(%y : memref<?x2x8xf32>) {form = #ssd<form serial>}
  return
}

// -----

// The same op without token_parents keeps the chain's loops: no parent
// loads, no run or replay loops.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:   scf.while
// CHECK:       scf.for %{{.*}} step %c2 iter_args
// CHECK-NOT:   scf.while
// CHECK:       return
func.func @chain(%x: memref<?x2x8xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x8xf32>, %C: memref<?x1x8xf32>, %pool: memref<?x2x8x8xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %his: memref<?xi1>,
    %y: memref<?x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x8xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x8xf32>) C(%C : memref<?x1x8xf32>) ssm_pool(%pool : memref<?x2x8x8xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%his : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x2x8xf32>) {form = #ssd<form serial>}
  return
}
