// RUN: ssd-opt %s -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-lower-to-gpu="serial-rows-per-warp=2 serial-warps-per-block=8" -split-input-file | FileCheck %s --check-prefix=TILE

// Serial form at Mamba2-2.7B shapes (H=80 P=64 N=128 G=1), bf16.
// CHECK-LABEL: func.func @serial
// Writer order for tree speculation: device buffers and three small kernels,
// the reader count with an atomic add.
// CHECK:       %[[READERS:.*]] = gpu.alloc  (%{{.*}}) : memref<?xi32>
// CHECK:       %[[SECOND:.*]] = gpu.alloc  (%{{.*}}) : memref<?xi1>
// CHECK:       gpu.launch
// CHECK:       gpu.launch
// CHECK:         memref.atomic_rmw addi
// CHECK:       gpu.launch
// Two passes of the scan kernel over (P-tiles, heads, sequences), blocks of
// 32 lanes x 4 warps; blocks past the real grid (at least one block is
// launched, even for an empty batch) return at once.
// CHECK-COUNT-2: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:       gpu.dealloc  %[[READERS]]
// CHECK:       gpu.dealloc  %[[SECOND]]
// CHECK-NOT:   ssd.chunk_scan_varlen
// TILE-LABEL:  func.func @serial
// TILE:        gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}})
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

// The serial kernel body: the state in registers through the token loop,
// approximate exp, the C.S reduction with xor shuffles, lane 0 stores y.
// CHECK-LABEL: func.func @serial_kernel_body
// CHECK:       gpu.launch
// CHECK:         scf.for {{.*}} iter_args(
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           memref.store {{.*}} : memref<?x80x64xbf16>
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

// Chunked form, Codestral shapes (H=128 P=64 N=128 G=8), chunk 128:
// workspaces on the device, a one-thread work-list kernel, then the phases;
// the matmul phases stage tiles in workgroup memory, synchronise with
// barriers and run mma.sync m16n8k16 on bf16 operands.
// CHECK-LABEL: func.func @chunked
// CHECK-COUNT-8: gpu.alloc
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// Chunk states: [32 x 64] and [32 x 128] f32 tiles, each row padded by one
// word against shared-memory bank conflicts.
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x129xf32, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:         gpu.barrier
// C Bᵀ: [64 x 32] tiles of C and B.
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>)
// CHECK:         nvvm.mma.sync
// Output: [64 x 32] weights and [32 x 64] values.
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>)
// CHECK:         nvvm.mma.sync
// CHECK-COUNT-8: gpu.dealloc
// CHECK-NOT:   ssd.chunk_scan_varlen
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

// f32 models split each operand into two bf16 halves: three mma per step.
// CHECK-LABEL: func.func @chunked_f32
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<32x65xf32
// CHECK-COUNT-3: nvvm.mma.sync
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

// head_dim 128, dstate 256: the chunk-states tiles ([32 x 129] and
// [32 x 257] f32, 49408 bytes) exceed the 48 KiB of static shared memory
// ptxas accepts, so that kernel takes them from dynamic shared memory, sized
// by the launch, at 16-byte aligned offsets. The other kernels stay under
// 48 KiB and keep static workgroup attributions.
// CHECK-LABEL: func.func @chunked_dynamic_shared
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK-NOT:   workgroup(
// CHECK:       %[[SIZE:.*]] = arith.constant 49408 : i32
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}}) dynamic_shared_memory_size %[[SIZE]] {
// CHECK-NEXT:    %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[OFFSET_X:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[XS:.*]] = memref.view %[[BASE]][%[[OFFSET_X]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x129xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[OFFSET_B:.*]] = arith.constant 16512 : index
// CHECK-NEXT:    %[[BS:.*]] = memref.view %[[BASE]][%[[OFFSET_B]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x257xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.store %{{.*}}, %[[XS]]
// CHECK:         memref.store %{{.*}}, %[[BS]]
// CHECK:         gpu.barrier
// CHECK:         nvvm.mma.sync
// C Bᵀ and output: static, under 48 KiB.
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:   dynamic_shared_memory_size
// CHECK:       gpu.launch {{.*}} workgroup(%{{.*}} : memref<64x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x129xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:   dynamic_shared_memory_size
// CHECK-NOT:   gpu.dynamic_shared_memory
// CHECK:       return
func.func @chunked_dynamic_shared(%x: memref<?x32x128xbf16>, %dt: memref<?x32xbf16>, %A: memref<32xbf16>,
    %B: memref<?x1x256xbf16>, %pool: memref<?x32x128x256xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x32x128xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x32x128xbf16>) dt(%dt : memref<?x32xbf16>) A(%A : memref<32xbf16>)
      B(%B : memref<?x1x256xbf16>) C(%B : memref<?x1x256xbf16>) ssm_pool(%pool : memref<?x32x128x256xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x32x128xbf16>) {form = #ssd<form chunked>, chunk_size = 256}
  return
}
