// The chunked form with and without fused state passing (the pass option
// fused-state-passing; FusedStatePassing.cpp). Fused: the host zeroes the
// ticket counter and flags (gpu.memset), then two launches: the chunk
// kernel, whose blocks take a ticket (atomic add) as their index, wait for
// the previous chunk's flag with ld.acquire.gpu polls (nanosleep between
// them), and publish their inclusive state (barrier, then one
// st.release.gpu; no fence in every thread), and the output kernel. Fused
// output (the default with fused state passing, option fused-output): the
// C Bᵀ blocks count themselves in per (chunk, group) with a barrier, then
// thread 0's fence.acq_rel.gpu and atomic add (NVPTX emits a relaxed
// `atom` whatever the atomicrmw's ordering); each (chunk, head) block,
// after publishing,
// waits for that count and computes y from S_prev held in shared memory,
// so the second launch only stores final states (no mma). The C Bᵀ tiles
// live in a ring of 8 chunks: each (chunk, head) block counts itself out
// of its chunk's slot the same way, and a C Bᵀ block waits for that count
// before it overwrites the slot. Unfused: three
// launches, no atomics.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=true" -ssd-lower-to-gpu | FileCheck %s --check-prefix=FUSED
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=true" -ssd-lower-to-gpu -gpu-kernel-outlining | FileCheck %s --check-prefix=FUSED-LAUNCHES
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=true" -ssd-lower-to-gpu | FileCheck %s --check-prefix=CB-COUNT
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-output=false" -ssd-lower-to-gpu -gpu-kernel-outlining | FileCheck %s --check-prefix=OUTPUT-KERNEL
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=false" -ssd-lower-to-gpu | FileCheck %s --check-prefix=UNFUSED
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376 fused-state-passing=false" -ssd-lower-to-gpu -gpu-kernel-outlining | FileCheck %s --check-prefix=UNFUSED-LAUNCHES
// The fused chunk kernel asks for two blocks per SM (ssd.kernel_occupancy)
// where the chip's shared memory holds two of them
// (sm_90's 227 KB per block here), and not under the default limit (sm_86's
// 99 KB), nor when the output has a launch of its own.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=232448" -ssd-lower-to-gpu | FileCheck %s --check-prefix=OCCUPANCY
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu | FileCheck %s --check-prefix=NO-OCCUPANCY
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=232448 fused-output=false" -ssd-lower-to-gpu | FileCheck %s --check-prefix=NO-OCCUPANCY
// And through --ssd-to-nvvm (fused by default), the PTX of the waits and
// publications, and the chunk kernel's .minnctapersm: two 256-thread blocks
// per SM (the default), or on sm_90a with heads-per-block=2, where a block
// serves two heads, one of 512 threads (the same registers a thread).
// RUN: ssd-opt %s --ssd-to-nvvm="chip=sm_90a" | FileCheck %s --check-prefixes=PTX,PTX-TWO
// RUN: ssd-opt %s --ssd-to-nvvm="chip=sm_90a heads-per-block=2" | FileCheck %s --check-prefixes=PTX,PTX-PAIRED

// OCCUPANCY-LABEL: func.func @chunked
// OCCUPANCY:       gpu.launch
// OCCUPANCY-NOT:   gpu.launch
// OCCUPANCY:         ssd.kernel_occupancy min_blocks_per_sm = 2
// OCCUPANCY:       gpu.launch
// OCCUPANCY-NOT:   ssd.kernel_occupancy
// NO-OCCUPANCY-NOT: ssd.kernel_occupancy

// FUSED-LABEL: func.func @chunked
// FUSED:       %[[WS:.*]] = func.call @ssdGPUWorkspace
// FUSED:       memref.view %[[WS]]{{.*}} to memref<?x128x64x128xf32>
// FUSED:       memref.view %[[WS]]{{.*}} to memref<?x8x?x?xbf16>
// FUSED-NEXT:  %[[FLAGS:.*]] = memref.view %[[WS]]{{.*}} to memref<?xi32>
// FUSED-NEXT:  %[[CHAIN:.*]] = memref.view %[[WS]]{{.*}} to memref<128x64x128xf32>
// FUSED:       gpu.memset  %[[FLAGS]], %{{.*}} : memref<?xi32>, i32
// FUSED:       gpu.launch
// FUSED:         memref.atomic_rmw addi %{{.*}}, %[[FLAGS]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// FUSED:         scf.while
// FUSED:           llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// FUSED:         } do {
// FUSED:           nvvm.nanosleep
// FUSED-NOT:     nvvm.memory.barrier
// FUSED:         vector.load %[[CHAIN]]
// FUSED:         vector.store %{{.*}}, %[[CHAIN]]
// FUSED-NOT:     nvvm.memory.barrier
// FUSED:         gpu.barrier
// FUSED-NOT:     nvvm.memory.barrier
// FUSED:         llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr
// FUSED:         scf.while
// FUSED:           %[[COUNT:.*]] = llvm.load %{{.*}} atomic syncscope("device") acquire
// FUSED-NEXT:      arith.cmpi ult, %[[COUNT]]
// FUSED:         nvgpu.ldmatrix {{.*}} : memref<64x128xbf16, #gpu.address_space<workgroup>>
// FUSED:         nvvm.mma.sync
// FUSED:         vector.store %{{.*}}, %arg8[
// The heads done reading the chunk's C Bᵀ ring slot, after the last pass.
// FUSED:         gpu.barrier
// FUSED:         llvm.fence syncscope("device") release
// FUSED:         memref.atomic_rmw addi %{{.*}}, %[[FLAGS]]
// FUSED:       gpu.launch
// FUSED-NOT:     nvvm.mma.sync
// FUSED-NOT:   gpu.launch
// FUSED:       return

// The C Bᵀ blocks, after their matmul: thread 0 waits until the 128 / 8 =
// 16 heads of the group read the chunk 8 before (its ring slot), a barrier,
// the stores into slot chunk mod 8, then the count: thread 0's fence and
// the atomic.
// CB-COUNT:          %[[CB:.*]] = memref.view {{.*}} to memref<?x8x?x?xbf16>
// CB-COUNT:            %[[READ:.*]] = llvm.load {{.*}} acquire
// CB-COUNT-NEXT:       arith.cmpi ult, %[[READ]], %c16_i32{{.*}} : i32
// CB-COUNT:          gpu.barrier
// CB-COUNT-NEXT:     %[[EIGHT:.*]] = arith.constant 8 : index
// CB-COUNT-NEXT:     %[[SLOT:.*]] = arith.remui %{{.*}}, %[[EIGHT]] : index
// CB-COUNT:          vector.store %{{.*}}, %[[CB]][%[[SLOT]],
// CB-COUNT-NOT:     nvvm.memory.barrier
// CB-COUNT:          llvm.fence syncscope("device") release
// CB-COUNT-NOT:      gpu.barrier
// CB-COUNT:          memref.atomic_rmw addi
// CB-COUNT-NOT:     nvvm.memory.barrier

// Without the fused output, the second launch is the output kernel again.
// OUTPUT-KERNEL-COUNT-2: gpu.launch_func
// OUTPUT-KERNEL-NOT: gpu.launch_func
// OUTPUT-KERNEL:     gpu.func @chunked_kernel(
// OUTPUT-KERNEL:     gpu.func @chunked_kernel(
// OUTPUT-KERNEL:       nvvm.mma.sync

// FUSED-LAUNCHES-LABEL: func.func @chunked
// FUSED-LAUNCHES-COUNT-2: gpu.launch_func
// FUSED-LAUNCHES-NOT: gpu.launch_func
// FUSED-LAUNCHES:     return

// UNFUSED-LABEL: func.func @chunked
// UNFUSED-NOT:   gpu.memset
// UNFUSED-NOT:   atomic
// UNFUSED:       return
// UNFUSED-LAUNCHES-LABEL: func.func @chunked
// UNFUSED-LAUNCHES-COUNT-3: gpu.launch_func
// UNFUSED-LAUNCHES-NOT: gpu.launch_func
// UNFUSED-LAUNCHES:     return

// PTX-TWO: .maxntid 256, 1, 1\0A.minnctapersm 2
// PTX-PAIRED: .maxntid 512, 1, 1\0A.minnctapersm 1
// PTX-NOT: membar
// PTX: atom.global.add.u32
// PTX: ld.acquire.gpu.b32
// PTX: nanosleep.u32
// PTX: st.release.gpu.b32
// PTX-SAME: bar.sync \090;{{.*}}fence.acq_rel.gpu;\0A\09atom.global.add.u32
// PTX-NOT: membar

func.func @chunked(%x: memref<?x128x64xbf16>, %dt: memref<?x128xbf16>, %A: memref<128xbf16>,
    %B: memref<?x8x128xbf16>, %C: memref<?x8x128xbf16>, %pool: memref<?x128x64x128xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x128x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x128x64xbf16>) dt(%dt : memref<?x128xbf16>) A(%A : memref<128xbf16>)
      B(%B : memref<?x8x128xbf16>) C(%C : memref<?x8x128xbf16>) ssm_pool(%pool : memref<?x128x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x128x64xbf16>) {form = #ssd<form chunked>, chunk_size = 128}
  return
}
