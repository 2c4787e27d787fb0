// With `wgmma` (sm_90a) the chunk kernel's C·Bᵀ blocks compute their 64x64
// tile as two warpgroups' m64n32 halves with wgmma.mma_async, reading C (A,
// K-major: row) and B (B, K-major: col) from the same staged tiles the
// mma.sync form uses; so do its state blocks' dS where P is 64 and a block
// has 128 state columns, and the fused output's passes (below). The tiles' swizzle is a function of shared-window
// address bits, so the kernel finds where the arena lies and shifts the
// tiles to the next 1024-byte boundary (the plan leaves room for it). Each
// stage is fenced for the async proxy between its cp.async wait and the
// barrier before the reads; a step's chain is committed and left in flight
// while the warps deposit the next stage, and retired (wait_group 0) at the
// next step's top, before that step's barrier lets anyone overwrite the
// stage it read, and after the last step, before the results are read (no
// wait between the commit and the yield). Descriptors:
// start address >> 4 (14 bits), stride offset 512 bytes (8 rows of 64
// bytes, 32 << 32) with the leading offset 1 (1 << 16), 64-byte swizzle
// (mode 2 in bits 62-63): 0x8000002000010000, built as a 32-bit low word
// (start >> 4 | 1 << 16; the k16 steps add to it) and the constant high
// word 0x80000020 << 32.
// Without the option no kernel has a wgmma instruction. A block serves one
// head by default (ONE-HEAD, below); with heads-per-block=2 under sm_90's
// shared-memory limit (PAIRED) two, under the default limit (sm_86's 99 KB)
// still one.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90a shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90a shared-memory-limit=232448 heads-per-block=2" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=PAIRED
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90a shared-memory-limit=232448" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=ONE-HEAD
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=MMA-SYNC
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90a shared-memory-limit=232448 cb-in-block=true" -ssd-lower-to-gpu -split-input-file | FileCheck %s --check-prefix=CB-IN-BLOCK

// CHECK-LABEL: func.func @chunked
// CHECK:       gpu.launch
// CHECK:         %[[ARENA:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<?xi8, #gpu.address_space<workgroup>> -> index
// CHECK:         %[[BASE:.*]] = arith.index_castui %[[ARENA]] : index to i64
// CHECK:         %[[PLANNED:.*]] = arith.addi %[[BASE]], %{{.*}} : i64
// CHECK:         %[[NEG:.*]] = arith.subi %{{.*}}, %[[PLANNED]] : i64
// CHECK:         %[[SHIFT:.*]] = arith.andi %[[NEG]], %{{.*}} : i64
// CHECK:         %[[SHIFTI:.*]] = arith.index_castui %[[SHIFT]] : i64 to index
// CHECK:         arith.addi %[[SHIFTI]], %{{.*}} : index
// Three stages (pipeline_stages = 3, the planner's default where a third
// costs no resident block): 64-row C and B tiles, three of each; two
// stages' copies are committed before the loop, and each step waits for
// all but the newest group (its own) and reads stage step mod 3.
// CHECK:         memref.view {{.*}} to memref<192x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<192x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         scf.for %[[STEP:[a-z0-9_]+]] = 
// CHECK:           arith.remui %[[STEP]], %c3{{.*}} : index
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      nvvm.cp.async.wait.group 1
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[LEADING:.*]] = arith.constant 65536 : i32
// CHECK:           arith.ori %{{.*}}, %[[LEADING]] : i32
// CHECK:           arith.constant -9223371899415822336 : i64
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-NEXT:      nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-NEXT:      nvvm.wgmma.mma_async
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:       nvvm.wgmma.wait.group
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    gpu.barrier
// The state blocks' dS = Xwᵀ·B (P = 64 and one part of 128 columns): A the
// decay-weighted x tile [s][p] (M-major: col), B [s][n] staged as two
// 64-column panels, [n / 64][s][n % 64] (N-major: row), a 64x64 half per
// warpgroup; 128-byte rows, so the 128-byte swizzle, stride offset 1024
// bytes (8 rows): 0x4000004000010000 (high word 0x40000040 << 32). Three
// stages of 32 rows. x goes as it is into its resident tile (the chunk's
// 128 rows) by cp.async, and each step's decay-weighted x is built from
// there once its copies have landed: before the loop, step 0's (wait for
// all but the newest of the two groups); in the loop, step s waits for
// every group (its own copies and step s + 1's), and builds step s + 1's
// after its wgmma.
// CHECK:         memref.view {{.*}} to memref<96x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<192x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy {{.*}} : memref<?x128x64xbf16> to memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 1
// CHECK-NEXT:    gpu.barrier
// CHECK:         vector.load %{{.*}} : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK:         scf.for
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      nvvm.cp.async.wait.group 0
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK:         arith.constant 4611686293305294848 : i64
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-NEXT:    nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK-NEXT:    nvvm.wgmma.mma_async
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:     nvvm.wgmma.wait.group
// CHECK:         scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:  gpu.barrier
// The fused output's 128-row passes, 64 rows x P per warpgroup: C·S_prevᵀ
// with C's stage (K-major) and S_prev staged as 64-column panels
// (K-major, 128-byte rows), then W·x with W's stage (K-major) and the
// resident x (N-major). The y passes use no mma.sync.
// CHECK:         nvvm.fence.proxy
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:         nvvm.fence.proxy
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.launch
// Two heads per block (heads_per_block = 2, where two copies of the layout fit):
// 512 threads, one block per SM; the C·Bᵀ tile as four warpgroups' m64n16
// quarters; in the state role, team tid / 256 serves head 2 pair + team,
// its shared views moved by team x the copy's stride (as an offset in
// elements, not a new base pointer); dS and the output as for one head.
// PAIRED-LABEL: func.func @chunked
// PAIRED:       gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c512,
// PAIRED:         ssd.kernel_occupancy min_blocks_per_sm = 1
// PAIRED:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// PAIRED:         %[[TEAM:.*]] = arith.divui %{{.*}}, %c256 : index
// PAIRED:         %[[MOVE:.*]] = arith.muli %[[TEAM]], %{{.*}} : index
// PAIRED:         memref.reinterpret_cast {{.*}} to offset: [%[[MOVE]]], sizes: [8], strides: [1] : memref<8xi32, #gpu.address_space<workgroup>> to memref<8xi32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
// PAIRED:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// PAIRED:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// PAIRED:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// ONE-HEAD-LABEL: func.func @chunked
// ONE-HEAD:       gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256,
// ONE-HEAD:         ssd.kernel_occupancy min_blocks_per_sm = 2
// ONE-HEAD-NOT:     memref.reinterpret_cast
// ONE-HEAD:       gpu.launch
// C·Bᵀ in the block (cb-in-block, cb_in_block = true): no C·Bᵀ tiles in
// the workspace ([K', G, rows, rows] bf16) and no C·Bᵀ role; each W step
// is a warpgroup's m64n32 chain over N (A the pass's resident C, row; B the
// step's B rows, col) retired at once, W stored from its accumulators as
// bf16 pairs (8 a thread), fenced for the async proxy, a barrier, then
// W·x (A W, row; B the resident x, row) left in flight.
// CB-IN-BLOCK-LABEL: func.func @chunked
// CB-IN-BLOCK-NOT:   x8x?x?xbf16
// CB-IN-BLOCK:       gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256,
// CB-IN-BLOCK:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CB-IN-BLOCK:         nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CB-IN-BLOCK:         nvvm.wgmma.fence.aligned
// CB-IN-BLOCK-COUNT-8:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CB-IN-BLOCK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CB-IN-BLOCK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CB-IN-BLOCK-COUNT-8:   vector.store {{.*}} : memref<128x32xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CB-IN-BLOCK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CB-IN-BLOCK:           gpu.barrier
// CB-IN-BLOCK:           nvvm.wgmma.fence.aligned
// CB-IN-BLOCK-NEXT:      nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CB-IN-BLOCK-NEXT:      nvvm.wgmma.mma_async
// CB-IN-BLOCK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CB-IN-BLOCK-NOT:       nvvm.wgmma.wait.group
// CB-IN-BLOCK:           scf.yield
// CB-IN-BLOCK-LABEL: func.func @chunked_f32
// MMA-SYNC-LABEL: func.func @chunked
// MMA-SYNC-NOT:   wgmma
// MMA-SYNC-NOT:   fence.proxy
// MMA-SYNC-LABEL: func.func @chunked_f32
// MMA-SYNC-NOT:   wgmma

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

// f32 models: C and B in high and low bf16 tiles, three products per k16
// (high·low, low·high, high·high: smallest first, as the mma.sync form
// adds them), two k16 per step. P = 64 but dstate 32: dS keeps mma.sync.
// CHECK-LABEL: func.func @chunked_f32
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         nvvm.mma.sync

func.func @chunked_f32(%x: memref<?x4x64xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x32xf32>, %pool: memref<?x4x64x32xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x64xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x64xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x32xf32>) C(%B : memref<?x1x32xf32>) ssm_pool(%pool : memref<?x4x64x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x64xf32>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}
