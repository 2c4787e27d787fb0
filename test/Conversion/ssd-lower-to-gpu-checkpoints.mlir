// State checkpoints (checkpoint_slots) in the GPU kernels. Serial form: at
// each token, a boundary test (u = (o mod I) + j + 1, u mod I = 0, k =
// u / I - 1 < K, the entry loaded only then and not -1), and the state
// stored to the pool the way the final state is (truncf for a bf16 pool).
// Chunked form: the fused modes are off for such ops, whatever the options
// say (no memset of tickets, no atomics, three launches); launch 2, state
// passing, stores each chunk-end checkpoint from the S it computes and
// walks a chunk's tokens serially from S_prev (d from the workspace, x, B)
// for the boundaries inside it. Only when every boundary ends a chunk (no
// offsets, the interval a multiple of the chunk size) do the fused modes
// stay, the chunk kernel storing each checkpoint with the state it
// publishes. A mixed launch does both.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=true fused-output=true" -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file | FileCheck %s --check-prefix=LAUNCHES

// CHECK-LABEL: func.func @serial
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x128xbf16>
// CHECK-SAME:    %[[CS:[^:]+]]: memref<?x4xui32>, %[[CO:[^:]+]]: memref<?xi32>
// CHECK:       %[[SLOTS:.*]] = builtin.unrealized_conversion_cast %[[CS]] : memref<?x4xui32> to memref<?x4xi32>
// CHECK:       %[[K:.*]] = memref.dim %[[SLOTS]], %{{.*}} : memref<?x4xi32>
// CHECK:       gpu.launch
// CHECK:         memref.load %[[CO]][
// CHECK:         arith.remui %{{.*}}, %c256{{.*}} : index
// CHECK:         scf.for
// CHECK:           arith.remui %{{.*}}, %c256{{.*}} : index
// CHECK:           arith.cmpi ult, %{{.*}}, %[[K]] : index
// CHECK:           scf.if %{{.*}} -> (i32) {
// CHECK-NEXT:        memref.load %[[SLOTS]][
// CHECK:           %[[SLOT:.*]] = arith.select
// CHECK:           scf.if
// CHECK-NEXT:        arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][%[[SLOT]],
// CHECK:           scf.yield
// CHECK:         scf.if
// CHECK-NEXT:      arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK-NEXT:      vector.store %{{.*}}, %[[POOL]][
// CHECK:       gpu.terminator
// CHECK-NOT:   gpu.launch
// CHECK:       return
// LAUNCHES-LABEL: func.func @serial
// LAUNCHES-COUNT-1: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @serial(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %pool: memref<?x4x16x128xbf16>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x4xui32>, %co: memref<?xi32>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x4x16x128xbf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x4xui32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(256) outs(%y : memref<?x4x16xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// A bf16 model, whose chunked form is fused by default: with checkpoints,
// three launches and no tickets. Launch 2 walks each sequence's chunks;
// per chunk, the serial walk up to the last written boundary inside it
// (d_t from the workspace, exp(d_t A), x and B per token: S = decay S +
// (d x) B, stored at each boundary), then the chunk-end state.
// CHECK-LABEL: func.func @chunked
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x32xf32>
// CHECK-SAME:    %[[CS:[^:]+]]: memref<?x3xi32>
// CHECK-NOT:   gpu.memset
// CHECK-NOT:   atomic
// The workspace's per-token cum (hi, lo), then d.
// CHECK:       memref.view {{.*}} to memref<?x4x?xf32>
// CHECK-NEXT:  memref.view {{.*}} to memref<?x4x?xf32>
// CHECK-NEXT:  %[[DTS:.*]] = memref.view {{.*}} to memref<?x4x?xf32>
// CHECK:       gpu.launch
// CHECK:         memref.store %{{.*}}, %[[DTS]][
// CHECK:       gpu.launch
// CHECK:         vector.load %[[POOL]][
// CHECK:         scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:           %[[WALKED:.*]] = scf.for {{.*}} -> (vector<4xf32>) {
// CHECK:             memref.load %[[DTS]][
// CHECK:             llvm.nvvm.ex2.approx
// CHECK:             memref.load %arg0[
// CHECK:             memref.load %arg3[
// CHECK:             %[[S:.*]] = arith.addf {{.*}} : vector<4xf32>
// CHECK:             memref.load %[[CS]][
// CHECK:             scf.if
// CHECK-NEXT:          vector.store %[[S]], %[[POOL]][
// CHECK:             scf.yield %[[S]]
// CHECK:           memref.load %[[CS]][
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][
// CHECK:           scf.yield
// CHECK:       gpu.launch
// CHECK-NOT:   gpu.launch
// CHECK-NOT:   atomic
// CHECK:       return
// LAUNCHES-LABEL: func.func @chunked
// LAUNCHES-NOT: gpu.memset
// LAUNCHES-COUNT-3: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @chunked(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %C: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x3xi32>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%C : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x3xi32>)
      checkpoint_interval(48) outs(%y : memref<?x4x16xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// A mixed launch: the serial kernel stores its sequences' checkpoints in
// its token loop, state passing those of the chunked ones; five launches
// (serial readers, three chunked, contested serial writers), none fused.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x32xf32>
// CHECK-SAME:    %[[CS:[^:]+]]: memref<?x2xi32>
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32
// CHECK:         scf.for
// CHECK:           memref.load %[[CS]][
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][
// CHECK:       scf.if
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK:           scf.for {{.*}} -> (vector<4xf32>)
// CHECK:             memref.load %[[CS]][
// CHECK:             scf.if
// CHECK-NEXT:          vector.store %{{.*}}, %[[POOL]][
// CHECK:           memref.load %[[CS]][
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32
// CHECK:         scf.for
// CHECK:           memref.load %[[CS]][
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][
// CHECK-NOT:   gpu.launch
// CHECK:       return
// LAUNCHES-LABEL: func.func @mixed
// LAUNCHES-NOT: gpu.memset
// LAUNCHES-COUNT-5: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @mixed(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %cs: memref<?x2xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) checkpoint_slots(%cs : memref<?x2xi32>)
      checkpoint_interval(1) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024>}
  return
}

// -----

// Every boundary ends a chunk (interval 128, chunks of 64, no offsets): the
// fused kernels stay (tickets, two launches); the (chunk, head) block that
// publishes a chunk's state also stores it to the chunk end's checkpoint
// slot, before its release of the flag.
// CHECK-LABEL: func.func @chunk_ends
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x32xf32>
// CHECK-SAME:    %[[CS:[^:]+]]: memref<?x3xi32>
// CHECK:       gpu.memset
// CHECK:       gpu.launch
// CHECK:         memref.atomic_rmw addi
// CHECK:         llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK:         arith.remui %{{.*}}, %c128{{.*}} : index
// CHECK:         memref.load %[[CS]][
// CHECK:         %[[SLOT:.*]] = arith.select
// CHECK:         vector.store %{{.*}}, %[[POOL]][%[[SLOT]],
// CHECK:         llvm.store {{.*}} atomic syncscope("device") release
// CHECK:       gpu.launch
// CHECK-NOT:   gpu.launch
// CHECK:       return
// LAUNCHES-LABEL: func.func @chunk_ends
// LAUNCHES:     gpu.memset
// LAUNCHES-COUNT-2: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @chunk_ends(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %C: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x3xi32>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%C : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x3xi32>)
      checkpoint_interval(128) outs(%y : memref<?x4x16xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// The same with checkpoint_offsets: boundaries may fall inside chunks, so
// three launches, no tickets.
// CHECK-LABEL: func.func @chunk_ends_with_offsets
// CHECK-NOT:   gpu.memset
// CHECK-NOT:   atomic
// CHECK:       return
// LAUNCHES-LABEL: func.func @chunk_ends_with_offsets
// LAUNCHES-NOT: gpu.memset
// LAUNCHES-COUNT-3: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @chunk_ends_with_offsets(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %C: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %cs: memref<?x3xi32>, %co: memref<?xi32>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%C : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x3xi32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(128) outs(%y : memref<?x4x16xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}
