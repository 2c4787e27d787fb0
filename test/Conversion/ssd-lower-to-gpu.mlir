// The chunked checks here are of the three-launch form
// (fused-state-passing=false); ssd-lower-to-gpu-fused.mlir has the default,
// fused one. The tiles here are double-buffered (pipeline-stages=2, whose
// sizes the checks name); ssd-lower-to-gpu-wgmma.mlir checks the ring of
// three stages the planner takes by default.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2 fused-state-passing=false" -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2 serial-rows-per-warp=2 serial-warps-per-block=8" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=TILE
// Launches and allocations per call, counted after outlining: the chunked
// form is three launch_func and the serial form one or two, and neither
// allocates: every workspace is a view of the one buffer ssdGPUWorkspace
// returns for the call.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2 fused-state-passing=false" -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file | FileCheck %s --check-prefix=LAUNCHES
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2" -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file | FileCheck %s --check-prefix=NOALLOC
// NOALLOC-NOT: gpu.alloc
// NOALLOC-NOT: gpu.dealloc
// NOALLOC-NOT: memref.alloc
// The chunked kernels load tensor-core fragments with ldmatrix (transposed
// for operands stored with k along the rows) and copy the tiles that need
// no conversion (x, B, C, S_prev of 16-bit models) global -> shared with
// cp.async, one commit group per pipeline step (ASYNC, the default). With
// both off, fragments are 32-bit shared loads of the same swizzled tiles
// and copies go through registers (SCALAR).
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=ASYNC
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2 fragment-loads=scalar staging=registers" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=SCALAR
// The f32 chunk kernel asks for two blocks per SM where a thread's state
// tile is at most 32 accumulators and two blocks' shared memory fit (both
// limits here: sm_86's 99 KB, the default, and sm_90's 227 KB); at
// head_dim 128, dstate 256 it does not (64 accumulators; two blocks' 66 KB
// would fit sm_90). Nor do the state-passing and output kernels.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 pipeline-stages=2" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=F32-OCCUPANCY
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=232448 pipeline-stages=2" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=F32-OCCUPANCY

// Serial form at Mamba2-2.7B shapes (H=80 P=64 N=128 G=1), bf16, with
// has_initial_state: writers whose slot another sequence reads (tree
// speculation) scan in a second launch. Launch 1 over (sequences, heads,
// P-tiles) finds them with a block-wide vote over the batch and records a
// flag per sequence in the workspace; launch 2 over (heads, P-tiles) walks
// the flags. Blocks of 32 lanes x 4 warps; blocks past the real grid (at
// least one block is launched, even for an empty batch) return at once.
// Only another sequence's read contests a writer, so a call of one
// sequence (single-stream decode) skips launch 2 on the host.
// CHECK-LABEL: func.func @serial
// CHECK:       %[[WS:.*]] = func.call @ssdGPUWorkspace(%{{.*}}) : (i64) -> memref<?xi8>
// CHECK:       %[[FLAGS:.*]] = memref.view %[[WS]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xi32>
// CHECK:       gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<16xi8, #gpu.address_space<workgroup>>)
// CHECK:         nvvm.vote.sync  ballot
// CHECK:         gpu.barrier
// CHECK:         memref.store %{{.*}}, %[[FLAGS]]
// CHECK:       %[[SEVERAL:.*]] = arith.cmpi ugt, %[[BATCH:.*]], %c1{{.*}} : index
// CHECK-NEXT:  scf.if %[[SEVERAL]] {
// CHECK:       gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}}) {
// CHECK:         scf.for
// CHECK:           memref.load %[[FLAGS]]
// CHECK-NOT:   gpu.launch
// CHECK-NOT:   ssd.chunk_scan_varlen
// CHECK:       return
// TILE-LABEL:  func.func @serial
// TILE:        gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}})
// LAUNCHES-LABEL: func.func @serial
// LAUNCHES-COUNT-2: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return

func.func @serial(%x: memref<?x80x64xbf16>, %dt: memref<?x80xbf16>, %A: memref<80xbf16>,
    %B: memref<?x1x128xbf16>, %D: memref<80xbf16>, %bias: memref<80xbf16>,
    %pool: memref<?x80x64x128xf32>, %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>,
    %y: memref<?x80x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x80x64xbf16>) dt(%dt : memref<?x80xbf16>) A(%A : memref<80xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%B : memref<?x1x128xbf16>) D(%D : memref<80xbf16>)
      dt_bias(%bias : memref<80xbf16>) ssm_pool(%pool : memref<?x80x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x80x64xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// The serial kernel body: without has_initial_state nobody reads the pool,
// so one launch and no workspace. The state in registers through the token
// loop (lane l owns 4 consecutive columns: pool rows move as vector<4xf32>),
// approximate exp, the update and the C.S dot product as contractible
// multiply-adds (fma), the reduction with 5 xor shuffles, and one lane per
// row stores y.
// CHECK-LABEL: func.func @serial_kernel_body
// CHECK-NOT:   call @ssdGPUWorkspace
// CHECK:       gpu.launch
// CHECK:         vector.load %{{.*}} : memref<?x80x64x128xf32>, vector<4xf32>
// CHECK:         scf.for {{.*}} iter_args(
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK:           arith.mulf {{.*}} fastmath<contract> : vector<4xf32>
// CHECK:           arith.addf {{.*}} fastmath<contract> : vector<4xf32>
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           memref.store {{.*}} : memref<?x80x64xbf16>
// CHECK:         vector.store %{{.*}} : memref<?x80x64x128xf32>, vector<4xf32>
// CHECK-NOT:   gpu.launch
// LAUNCHES-LABEL: func.func @serial_kernel_body
// LAUNCHES-COUNT-1: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return

func.func @serial_kernel_body(%x: memref<?x80x64xbf16>, %dt: memref<?x80xbf16>, %A: memref<80xbf16>,
    %B: memref<?x1x128xbf16>, %pool: memref<?x80x64x128xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x80x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x80x64xbf16>) dt(%dt : memref<?x80xbf16>) A(%A : memref<80xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%B : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x80x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x80x64xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// Chunked form, Codestral shapes (H=128 P=64 N=128 G=8), chunk 128: one
// workspace for the call, carved into the chunk map, per-token cum/d, chunk
// decays, chunk states (f32), S_prev (bf16), final states and C Bᵀ (bf16), then
// three launches:
// CHECK-LABEL: func.func @chunked
// CHECK:       %[[WS:.*]] = func.call @ssdGPUWorkspace(%{{.*}}) : (i64) -> memref<?xi8>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?xi32>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?xi32>
// CHECK-COUNT-3: memref.view %[[WS]]{{.*}} to memref<?x128x?xf32>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?x128xf32>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?x128x64x128xf32>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?x128x64x128xbf16>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?x128x64x128xf32>
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?x8x?x?xbf16>
// 1. The chunk kernel (256 threads): the chunk map, the chunk states and
// C Bᵀ, from one arena of static shared memory; each block locates its
// chunk with a block scan (shfl.up) over the batch; operand tiles are bf16
// with swizzled (xor) columns; mma.sync m16n8k16 with f32 accumulators.
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<25248xi8, #gpu.address_space<workgroup>>)
// CHECK:         gpu.shuffle  up
// CHECK:         gpu.barrier
// CHECK:         memref.view {{.*}} to memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         arith.xori
// CHECK:         vector.store {{.*}} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK:         nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// 2. State passing (256 threads, no shared memory): 4 state elements per
// thread, S_prev stored as bf16.
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) {
// CHECK:         vector.store {{.*}} : memref<?x128x64x128xbf16>, vector<4xbf16>
// 3. The output kernel (128 threads; y leaves from the fragments, no
// staging tile) and the final-state stores.
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<17152xi8, #gpu.address_space<workgroup>>)
// CHECK:         nvvm.mma.sync
// CHECK-NOT:   gpu.launch
// CHECK-NOT:   ssd.chunk_scan_varlen
// CHECK:       return
// LAUNCHES-LABEL: func.func @chunked
// LAUNCHES-COUNT-3: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
// SCALAR-LABEL: func.func @chunked
// SCALAR-NOT:  nvgpu.
// SCALAR:      vector.load %{{.*}} : memref<?x8x128xbf16>, vector<8xbf16>
// SCALAR:      vector.store %{{.*}} : memref<128x32xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// SCALAR:      vector.load %{{.*}} : memref<128x32xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// SCALAR:      nvvm.mma.sync
// SCALAR-NOT:  nvgpu.
// SCALAR:      return
// ASYNC-LABEL: func.func @chunked
// ASYNC:       gpu.launch
// ASYNC:         nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<?x8x128xbf16> to memref<{{.*}}xbf16, #gpu.address_space<workgroup>>
// ASYNC:         nvvm.cp.async.commit.group
// ASYNC:         nvvm.cp.async.wait.group 0
// The C Bᵀ blocks come first (C and B stored with k along the columns),
// then the chunk-state blocks (x and B with k along the rows: transposed
// loads), whose fused output reads C in 128-row stages (two of them),
// S_prev from its resident [P x N] tile and x from the chunk's resident
// [L x P] tile (k along the rows: transposed).
// ASYNC:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<128x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// ASYNC:         nvvm.mma.sync
// ASYNC:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<64x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// ASYNC:         nvvm.mma.sync
// ASYNC:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<256x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// ASYNC:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x128xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// ASYNC:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<128x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>

func.func @chunked(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128}
  return
}

// -----

// f32 models split each operand into two bf16 halves: three mma per step,
// and S_prev is stored as two bf16 arrays (high and low parts).
// CHECK-LABEL: func.func @chunked_f32
// CHECK:       memref.view {{.*}} to memref<?x4x64x32xbf16>
// CHECK:       memref.view {{.*}} to memref<?x4x64x32xbf16>
// CHECK:       gpu.launch
// CHECK-COUNT-3: nvvm.mma.sync
// F32-OCCUPANCY-LABEL: func.func @chunked_f32
// F32-OCCUPANCY:       gpu.launch
// F32-OCCUPANCY:         ssd.kernel_occupancy min_blocks_per_sm = 2
// F32-OCCUPANCY:       gpu.launch
// F32-OCCUPANCY-NOT:   ssd.kernel_occupancy
// F32-OCCUPANCY-LABEL: func.func @chunked_dynamic_shared
// F32-OCCUPANCY-NOT:   ssd.kernel_occupancy
// F32-OCCUPANCY-LABEL: func.func @mixed
// ASYNC-LABEL: func.func @chunked_f32
// ASYNC-NOT:   nvgpu.device_async_copy {{.*}} : memref<?x1x32xf32>
// ASYNC:       return

func.func @chunked_f32(%x: memref<?x4x64xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x32xf32>, %pool: memref<?x4x64x32xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x64xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x64xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x32xf32>) C(%B : memref<?x1x32xf32>) ssm_pool(%pool : memref<?x4x64x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x64xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// head_dim 128, dstate 256, f32: the chunk kernel's tiles (hi and lo bf16
// tiles of x and of half of B's columns, double-buffered: 65 KiB) and the
// output kernel's (48.75 KiB) exceed the 48 KiB of static shared memory
// ptxas accepts, so those kernels take their arenas from dynamic shared
// memory, sized by the launch, and carve their views at 16-byte aligned
// offsets. State passing needs none.
// CHECK-LABEL: func.func @chunked_dynamic_shared
// CHECK:       %[[SIZE:.*]] = arith.constant 66720 : i32
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) dynamic_shared_memory_size %[[SIZE]] {
// CHECK-NEXT:    %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         memref.view %[[BASE]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvvm.mma.sync
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) {
// CHECK-NOT:   gpu.dynamic_shared_memory
// CHECK:       %[[SIZE3:.*]] = arith.constant 49920 : i32
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) dynamic_shared_memory_size %[[SIZE3]] {
// CHECK-NEXT:    gpu.dynamic_shared_memory
// CHECK:       return
func.func @chunked_dynamic_shared(%x: memref<?x32x128xf32>, %dt: memref<?x32xf32>, %A: memref<32xf32>,
    %B: memref<?x1x256xf32>, %pool: memref<?x32x128x256xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x32x128xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x32x128xf32>) dt(%dt : memref<?x32xf32>) A(%A : memref<32xf32>)
      B(%B : memref<?x1x256xf32>) C(%B : memref<?x1x256xf32>) ssm_pool(%pool : memref<?x32x128x256xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x32x128xf32>) {form = #ssd<form chunked>, chunk_size = 256}
  return
}

// -----

// A mixed launch (a serial op that ssd-select-form allowed to mix):
// sequences of at least 1024 tokens run chunked (chunk 256), the others
// serially, in one call with one workspace: the serial pass over every
// sequence but the chunked ones and the contested writers, then, when T
// reaches 1024 (else no sequence can), the three chunked launches, then the
// contested serial writers.
// CHECK-LABEL: func.func @mixed
// CHECK:       call @ssdGPUWorkspace
// CHECK-NOT:   call @ssdGPUWorkspace
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:         arith.cmpi ult, %{{.*}}, %c1024
// CHECK:       %[[LONG:.*]] = arith.cmpi ule, %c1024{{.*}}, %{{.*}} : index
// CHECK:       scf.if %[[LONG]] {
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128
// CHECK:       }
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK-NOT:   gpu.launch
// CHECK:       return
// LAUNCHES-LABEL: func.func @mixed
// LAUNCHES-COUNT-5: gpu.launch_func
// LAUNCHES-NOT: gpu.launch_func
// LAUNCHES:     return
func.func @mixed(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x1x128xbf16>, %pool: memref<?x128x64x128xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%B : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x128x64xbf16>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024>}
  return
}
