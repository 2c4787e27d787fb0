// The emulator's cost counters (docs/gpu.md, "Cost counters") on small
// kernels whose counts are worked out by hand below. ssd-runner
// --emulator-costs prints them per kernel after the run.
//
// At opt-level=0: the kernels' LLVM optimization (the GPU's, which the
// emulator runs first) would remove stores that nothing reads, and merge
// or sink others, and these kernels are about exactly the accesses written.
// Vector loads promise their natural alignment: NVPTX splits one that
// promises less into pieces, and so does the emulator.
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator=opt-level=0 > %t.mlir
// RUN: ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The same with one worker thread and with several (blocks of a launch on
// different workers: their DRAM sector sets are merged).
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=4 ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// SSD_GPU_EMULATOR_COSTS=counts leaves out the distinct DRAM sectors; off
// leaves out the memory traffic too.
// RUN: env SSD_GPU_EMULATOR_COSTS=counts ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=COUNTS
// COUNTS: kernel main_kernel_0: launches 1 blocks 2 threads 64 warps 2
// COUNTS-NEXT:  sync: barriers 0 warp-collectives 0
// COUNTS-NEXT:  global.load: instructions 10 bytes 2048 sectors 116 (11.60 per instruction)
// COUNTS-NEXT:  global.store: instructions 2 bytes 256 sectors 8 (4.00 per instruction)
// COUNTS-NEXT:  h200
// COUNTS-NOT: dram:
// RUN: env SSD_GPU_EMULATOR_COSTS=off ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=OFF
// OFF: kernel main_kernel: launches 1 blocks 1 threads 32 warps 1
// OFF-NEXT:  sync: barriers 1 warp-collectives 0
// OFF-NEXT:  h200
// OFF: kernel main_kernel_1: launches 1 blocks 1 threads 64 warps 2
// OFF-NEXT:  sync: barriers 0 warp-collectives 2
// OFF-NEXT:  mma.sync m16n8k16.bf16: 2
// OFF-NEXT:  mma flops: 8192
// OFF-NOT: shared.
// OFF-NOT: global.

// CHECK: emulator costs:

// Kernel 1, shared memory (one warp; 32 banks of 4-byte words; a phase of
// 128 bytes takes as many wavefronts as the most distinct words one bank
// holds):
//  - 32 stores buf[l + 32 k] (k = 0..31): lane l always in bank l: 1
//    wavefront each, 32 x 128 bytes;
//  - loads: buf[l] (banks 0-31): 1; buf[2 l] (lanes l and l + 16 in bank
//    2 l % 32, words 2 l and 2 l + 32): 2; buf[32 l] (32 words in bank 0):
//    32; buf[0] by every lane (one word, broadcast): 1; vector<2xf32> at
//    2 l (8 bytes: half-warps; words 0-31, then 32-63): 2; vector<4xf32> at
//    4 l (16 bytes: quarter-warps of 32 consecutive words): 4;
//    vector<4xf32> at 8 l (each quarter-warp: rows 32 bytes apart, lanes q
//    and q + 4 in the same 4 banks): 2 x 4 = 8; vector<4xf32> at 4 (l % 8)
//    (every quarter-warp reads words 0-31; the quarters are served apart):
//    4; vector<2xf32> at 2 (l % 16) (each half-warp reads words 0-31): 2.
//    Total 9 instructions, 4 x 128 + 256 + 3 x 512 + 256 = 2560 bytes,
//    1 + 2 + 32 + 1 + 2 + 4 + 8 + 4 + 2 = 56 wavefronts, of which the
//    bank conflicts (wavefronts beyond one per phase) are 1 + 31 + 4 = 36;
//  - one coalesced 4-byte store per lane to global: 4 sectors.
// CHECK-NEXT: kernel main_kernel: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 1 warp-collectives 0
// CHECK-NEXT:   shared.load: instructions 9 bytes 2560 wavefronts 56 (6.22 per instruction) bank-conflict wavefronts 36{{$}}
// CHECK-NEXT:   shared.store: instructions 32 bytes 4096 wavefronts 32 (1.00 per instruction) bank-conflict wavefronts 0{{$}}
// CHECK-NEXT:   global.store: instructions 1 bytes 128 sectors 4 (4.00 per instruction)
// CHECK-NEXT:   dram: read sectors 0 written sectors 4 (128 bytes)
// CHECK-NEXT:   h200 lower bounds (us):
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %out = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k32 = arith.constant 32 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    scf.for %k = %k0 to %k32 step %k1 {
      %kk = arith.muli %k, %k32 : index
      %p = arith.addi %tx, %kk : index
      memref.store %f, %buf[%p] : memref<1024xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %a2 = arith.muli %tx, %k2 : index
    %a4 = arith.muli %tx, %k4 : index
    %a8 = arith.muli %tx, %k8 : index
    %a32 = arith.muli %tx, %k32 : index
    %r1 = memref.load %buf[%tx] : memref<1024xf32, #gpu.address_space<workgroup>>
    %r2 = memref.load %buf[%a2] : memref<1024xf32, #gpu.address_space<workgroup>>
    %r3 = memref.load %buf[%a32] : memref<1024xf32, #gpu.address_space<workgroup>>
    %r4 = memref.load %buf[%k0] : memref<1024xf32, #gpu.address_space<workgroup>>
    %v5 = vector.load %buf[%a2] {alignment = 8} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<2xf32>
    %v6 = vector.load %buf[%a4] {alignment = 16} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %v7 = vector.load %buf[%a8] {alignment = 16} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %q8 = arith.remui %tx, %k8 : index
    %q16 = arith.remui %tx, %k16 : index
    %a8q = arith.muli %q8, %k4 : index
    %a16h = arith.muli %q16, %k2 : index
    %v8 = vector.load %buf[%a8q] {alignment = 16} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %v9 = vector.load %buf[%a16h] {alignment = 8} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<2xf32>
    %r8 = vector.reduction <add>, %v8 : vector<4xf32> into f32
    %r9 = vector.reduction <add>, %v9 : vector<2xf32> into f32
    %r5 = vector.reduction <add>, %v5 : vector<2xf32> into f32
    %r6 = vector.reduction <add>, %v6 : vector<4xf32> into f32
    %r7 = vector.reduction <add>, %v7 : vector<4xf32> into f32
    %s1 = arith.addf %r1, %r2 : f32
    %s2 = arith.addf %s1, %r3 : f32
    %s3 = arith.addf %s2, %r4 : f32
    %s4 = arith.addf %s3, %r5 : f32
    %s5 = arith.addf %s4, %r6 : f32
    %s6 = arith.addf %s5, %r7 : f32
    %s7 = arith.addf %s6, %r8 : f32
    %s8 = arith.addf %s7, %r9 : f32
    memref.store %s8, %out[%tx] : memref<64xf32>
    gpu.terminator
  }

// Kernel 2, global memory coalescing (two blocks of one warp, the same
// loads in each; a[] is 16 KiB, page-aligned):
//  - a[l] (128 consecutive bytes): 4 sectors; a[8 l] (32 bytes apart): 32;
//    a[l + 1] (bytes 4-131): 5; a[0] by every lane: 1; vector<4xf32> at
//    4 l (512 bytes): 16. Per block 5 instructions, 512 + 512 bytes,
//    58 sectors; both blocks: 10, 2048, 116;
//  - DRAM: every load is within a[0..255], sectors 0-31, and both blocks
//    read the same ones: 32 distinct sectors read; out[64 b + l]: 2 x 4
//    sectors written.
// CHECK: kernel main_kernel_0: launches 1 blocks 2 threads 64 warps 2
// CHECK-NEXT:   sync: barriers 0 warp-collectives 0
// CHECK-NEXT:   global.load: instructions 10 bytes 2048 sectors 116 (11.60 per instruction)
// CHECK-NEXT:   global.store: instructions 2 bytes 256 sectors 8 (4.00 per instruction)
// CHECK-NEXT:   dram: read sectors 32 written sectors 8 (1280 bytes)
  %a = gpu.alloc () : memref<4096xf32>
  %one = arith.constant 1.0 : f32
  gpu.memset %a, %one : memref<4096xf32>, f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %k32 = arith.constant 32 : index
    %a1 = arith.addi %tx, %k1 : index
    %a4 = arith.muli %tx, %k4 : index
    %a8 = arith.muli %tx, %k8 : index
    %g1 = memref.load %a[%tx] : memref<4096xf32>
    %g2 = memref.load %a[%a8] : memref<4096xf32>
    %g3 = memref.load %a[%a1] : memref<4096xf32>
    %g4 = memref.load %a[%k0] : memref<4096xf32>
    %v5 = vector.load %a[%a4] {alignment = 16} : memref<4096xf32>, vector<4xf32>
    %g5 = vector.reduction <add>, %v5 : vector<4xf32> into f32
    %s1 = arith.addf %g1, %g2 : f32
    %s2 = arith.addf %s1, %g3 : f32
    %s3 = arith.addf %s2, %g4 : f32
    %s4 = arith.addf %s3, %g5 : f32
    %base = arith.muli %bx, %k32 : index
    %o = arith.addi %base, %tx : index
    memref.store %s4, %out[%o] : memref<64xf32>
    gpu.terminator
  }

// Kernel 3, tensor cores: two warps, one mma.sync.m16n8k16 bf16 each:
// 2 x 2 x 16 x 8 x 16 = 8192 flops, 2 warp collectives; each lane stores
// one f32 (a warp: 4 sectors).
// CHECK: kernel main_kernel_1: launches 1 blocks 1 threads 64 warps 2
// CHECK-NEXT:   sync: barriers 0 warp-collectives 2
// CHECK-NEXT:   mma.sync m16n8k16.bf16: 2
// CHECK-NEXT:   mma flops: 8192
// CHECK-NEXT:   global.store: instructions 2 bytes 256 sectors 8 (4.00 per instruction)
// CHECK-NEXT:   dram: read sectors 0 written sectors 8 (256 bytes)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i32
    %zf = arith.constant 0.0 : f32
    %dd = nvvm.mma.sync A[%z, %z, %z, %z] B[%z, %z] C[%zf, %zf, %zf, %zf]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %out[%tx] : memref<64xf32>
    gpu.terminator
  }

// Kernel 4, divergent code: lanes 0-15 store buf[l + 16] (words 16-31),
// then every lane stores buf[l + 32] (words 32-63). Grouped by call site
// and occurrence: 16 lanes, 64 bytes, 1 wavefront; 32 lanes, 128 bytes, 1
// wavefront. (Grouping the lanes' first accesses together instead would
// put words 16-31 and 48-63 in one instruction, 2 wavefronts, and count
// 3.)
// CHECK: kernel main_kernel_2: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 0 warp-collectives 0
// CHECK-NEXT:   shared.store: instructions 2 bytes 192 wavefronts 2 (1.00 per instruction)
// CHECK-NEXT:   h200 lower bounds (us):
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k16 = arith.constant 16 : index
    %k32 = arith.constant 32 : index
    %v = arith.constant 2.0 : f32
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %p = arith.addi %tx, %k16 : index
      memref.store %v, %buf[%p] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    %q = arith.addi %tx, %k32 : index
    memref.store %v, %buf[%q] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }

// Kernel 5, a long stretch without synchronisation: 1100 stores buf[l]
// per lane, each 1 wavefront. A lane buffers 1024 accesses, then waits for
// the rest of its warp, whose accesses are grouped then (once); the other
// 76 at the end of the block. The count is the same.
// CHECK: kernel main_kernel_3: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 0 warp-collectives 0
// CHECK-NEXT:   shared.store: instructions 1100 bytes 140800 wavefronts 1100 (1.00 per instruction)
// CHECK-NEXT:   early groupings: 1
// CHECK-NEXT:   h200 lower bounds (us):
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<32xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k1100 = arith.constant 1100 : index
    scf.for %k = %k0 to %k1100 step %k1 {
      %i = arith.index_cast %k : index to i32
      %f = arith.sitofp %i : i32 to f32
      memref.store %f, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}
