// Draft trees (token_parents) in the serial GPU kernels. Per token t (local
// index j) the kernel loads p = token_parents[t] and tests whether the
// token continues the state its registers hold (p = j - 1): then the step
// is the chain's. Otherwise the parent's state is replayed: its depth from
// a walk up the parents (stopping at a parent not below its child), the
// initial state re-read from the pool slot, and per ancestor (found by a
// walk of d - 1 - i steps from p) the update alone: dt, exp(d A), B and x
// at the ancestor, no C, no warp shuffle, no store. Token t's normal step
// (C, the warp sum, y, the checkpoint of column j) follows. Both launches
// (the contested writers' too) do the same, and both ask for 4 blocks per
// SM. The host passes token_parents to both kernels.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file | FileCheck %s --check-prefix=LAUNCHES

// CHECK-LABEL: func.func @tree
// CHECK-SAME:    %[[B:[^:]+]]: memref<?x1x128xbf16>, %[[C:[^:]+]]: memref<?x1x128xbf16>, %[[POOL:[^:]+]]: memref<?x4x16x128xbf16>
// CHECK-SAME:    %[[TP:[^:]+]]: memref<?xi32>, %[[Y:[^:]+]]: memref<?x4x16xbf16>
// CHECK:       gpu.launch
// CHECK:         ssd.kernel_occupancy min_blocks_per_sm = 4
// CHECK:         nvvm.vote.sync  ballot
// CHECK:         %[[INIT:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT:      vector.load %[[POOL]][
// CHECK:         scf.for %[[T:[^ ]+]] = %[[BEGIN:[^ ]+]] to %{{.*}} iter_args(%[[S0:[^ ]+]] = %[[INIT]], %[[S1:[^ ]+]] = %{{[^,]+}}, %[[S2:[^ ]+]] = %{{[^,]+}}, %[[S3:[^ ]+]] = %{{[^)]+}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT:      %[[J:.*]] = arith.subi %[[T]], %[[BEGIN]] : index
// CHECK-NEXT:      %[[P:.*]] = memref.load %[[TP]][%[[T]]] : memref<?xi32>
// CHECK-NEXT:      %[[J32:.*]] = arith.index_castui %[[J]] : index to i32
// CHECK:           %[[PREV:.*]] = arith.subi %[[J32]], %c1_i32{{.*}} : i32
// CHECK-NEXT:      %[[CONT:.*]] = arith.cmpi eq, %[[P]], %[[PREV]] : i32
// CHECK-NEXT:      %[[FROM:.*]]:4 = scf.if %[[CONT]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT:        scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] :
// CHECK-NEXT:      } else {
// CHECK:             %[[WALK:.*]]:3 = scf.while (%[[NODE:[^ ]+]] = %[[P]], %[[CHILD:[^ ]+]] = %{{.*}}, %{{[^ ]+}} = %c0{{.*}}) : (i32, i32, index) -> (i32, i32, index) {
// CHECK-NEXT:          %[[BELOW:.*]] = arith.cmpi ult, %[[NODE]], %[[CHILD]] : i32
// CHECK-NEXT:          scf.condition(%[[BELOW]])
// CHECK:             } do {
// CHECK:               memref.load %[[TP]][
// CHECK:             }
// CHECK:             scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT:          vector.load %[[POOL]][
// CHECK:             scf.for %[[I:[^ ]+]] = %c0{{.*}} to %[[WALK]]#2 step
// CHECK:               %[[UP:.*]] = scf.for {{.*}} iter_args(%{{[^ ]+}} = %[[P]]) -> (i32) {
// CHECK-NEXT:            arith.index_castui
// CHECK-NEXT:            arith.addi
// CHECK-NEXT:            memref.load %[[TP]][
// CHECK-NEXT:            scf.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[UPI:.*]] = arith.index_castui %[[UP]] : i32 to index
// CHECK-NEXT:          %[[A:.*]] = arith.addi %[[BEGIN]], %[[UPI]] : index
// CHECK-NEXT:          memref.load %{{.*}}[%[[A]], %{{.*}}] : memref<?x4xbf16>
// CHECK:               llvm.nvvm.ex2.approx
// CHECK:               vector.load %[[B]][%[[A]],
// CHECK-NOT:           %[[C]]
// CHECK-NOT:           gpu.shuffle
// CHECK-NOT:           vector.store
// CHECK:               scf.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// The normal step of token t, from the state chosen above.
// CHECK-NEXT:      memref.load %{{.*}}[%[[T]], %{{.*}}] : memref<?x4xbf16>
// CHECK:           vector.load %[[B]][%[[T]],
// CHECK:           vector.load %[[C]][%[[T]],
// CHECK:           arith.mulf %{{.*}}, %[[FROM]]#0
// CHECK:           gpu.shuffle  xor
// CHECK:           memref.store %{{.*}}, %[[Y]][%[[T]],
// CHECK:           vector.store %{{.*}}, %[[POOL]][
// CHECK:           scf.yield
// CHECK:       gpu.launch
// CHECK:         ssd.kernel_occupancy min_blocks_per_sm = 4
// CHECK:         scf.for
// CHECK:           scf.for %[[T2:[^ ]+]] = {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:             memref.load %[[TP]][%[[T2]]] : memref<?xi32>
// CHECK:             scf.while
// CHECK:             vector.load %[[POOL]][
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:             gpu.shuffle
// CHECK-NOT:   gpu.launch
// CHECK:       return
// LAUNCHES-LABEL: func.func @tree
// LAUNCHES-SAME:    %[[TP:[^:]+]]: memref<?xi32>, %{{[^:]+}}: memref<?x4x16xbf16>)
// LAUNCHES:       gpu.launch_func  @tree_kernel::@tree_kernel {{.*}} args({{.*}}%[[TP]] : memref<?xi32>
// LAUNCHES:       gpu.launch_func  @tree_kernel_0::@tree_kernel {{.*}} args({{.*}}%[[TP]] : memref<?xi32>
// LAUNCHES-NOT:   gpu.launch_func
// LAUNCHES:       return
func.func @tree(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %pool: memref<?x4x16x128xbf16>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %cs: memref<?x8xi32>,
    %tp: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x4x16x128xbf16>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) checkpoint_slots(%cs : memref<?x8xi32>)
      checkpoint_interval(1) token_parents(%tp : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form serial>}
  return
}

// -----

// dstate past the register path's budget (N = 1024, f32: four pieces of
// 256 columns, 8 vectors of state a lane): the tree's test
// and replay sit inside each piece's token loop, the replay re-reading the
// piece's columns of the slot.
// CHECK-LABEL: func.func @pieces
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x2x8x1024xf32>
// CHECK-SAME:    %[[TP:[^:]+]]: memref<?xi32>, %{{[^:]+}}: memref<?x2x8xf32>
// CHECK:       gpu.launch
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step
// CHECK:           scf.for %[[T:[^ ]+]] = {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:             memref.load %[[TP]][%[[T]]] : memref<?xi32>
// CHECK:             arith.cmpi eq
// CHECK:             scf.if {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:             } else {
// CHECK:               scf.while
// CHECK:               vector.load %[[POOL]][
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:             gpu.shuffle
func.func @pieces(%x: memref<?x2x8xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x1024xf32>, %C: memref<?x1x1024xf32>, %pool: memref<?x2x8x1024xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %tp: memref<?xi32>,
    %y: memref<?x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x8xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x1024xf32>) C(%C : memref<?x1x1024xf32>) ssm_pool(%pool : memref<?x2x8x1024xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) token_parents(%tp : memref<?xi32>)
      outs(%y : memref<?x2x8xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Without token_parents: no parent test, no walk, no occupancy request.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:   ssd.kernel_occupancy
// CHECK-NOT:   scf.while
// CHECK:       return
func.func @chain(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %pool: memref<?x4x16x128xbf16>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %cs: memref<?x8xi32>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x4x16x128xbf16>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) checkpoint_slots(%cs : memref<?x8xi32>)
      checkpoint_interval(1) outs(%y : memref<?x4x16xbf16>) {form = #ssd<form serial>}
  return
}
