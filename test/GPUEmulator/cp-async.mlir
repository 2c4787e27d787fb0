// cp.async and ldmatrix feeding mma.sync, the way tensor-core kernels
// stage operands: a 32-thread block copies A (16x16 f16, row-major) and B
// (16x8 f16, row-major) from global to shared memory with cp.async (16
// bytes a thread: A in one commit group, thread l copying row l / 2, columns
// 8 (l % 2)..; B in a second, thread l < 16 copying row 15 - l), waits for A (cp.async.wait_group 1: all but the most recent
// group), synchronises, loads A's fragments with ldmatrix.x4, waits for B
// (wait_group 0), synchronises, loads B's with ldmatrix.x2.trans and
// multiplies. Both spellings are used: nvgpu.device_async_copy /
// create_group / wait, and nvvm.cp.async.commit.group / wait.group.
//
// ldmatrix.x4 at row (l % 8) + 8 ((l / 8) % 2), column 8 (l / 16) gives
// matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols
// 8-15), (rows 8-15, cols 8-15): the A registers of mma.m16n8k16 (register
// r: row g + 8 (r % 2), columns 2t + 8 (r / 2)). ldmatrix.x2.trans at B row
// l % 16 gives lane l B[8i + 2t][g], B[8i + 2t + 1][g] in register i: the B
// registers (rows 2t, 2t + 1 (+ 8), column g). With A[i][k] = i - k and
// B[k][j] = k + j, C = 0 (as in mma-m16n8k16-bf16.mlir):
//   D[i][j] = sum_k (i - k)(k + j) = 16 i j + 120 i - 120 j - 1240.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s
//
// The cost counters of the launch, counted by hand:
//  - cp.async: 32 + 16 copies of 16 bytes; A's land in 512 consecutive
//    bytes (thread l at 16 l), 4 wavefronts (16-byte accesses: 8 lanes per
//    128-byte phase); B's in 256 bytes, 2 wavefronts; global: 16 + 8
//    sectors of 32 bytes, all distinct (24 DRAM sectors read);
//  - ldmatrix: A's rows are 32 bytes apart, so rows r and r + 4 of each
//    matrix share banks: 2 wavefronts per matrix, 8 for the x4; B's rows
//    are consecutive (16 bytes apart): 1 per matrix, 2 for the x2: 10 over
//    768 bytes, 4 of them bank conflicts (one phase per matrix);
//  - D: two 8-byte stores a lane (8-byte aligned, so st.v2 on the GPU;
//    with 4-byte alignment NVPTX would split each in two), each covering
//    8 rows of 32 bytes: 8 sectors per store, 16 distinct sectors written;
//  - 2 barriers, 3 warp collectives (2 ldmatrix, 1 mma), 1 mma of 4096
//    flops (2 x 16 x 8 x 16).
// COSTS: emulator costs:
// COSTS-NEXT: kernel main_kernel: launches 1 blocks 1 threads 32 warps 1
// COSTS-NEXT:   sync: barriers 2 warp-collectives 3
// COSTS-NEXT:   mma.sync m16n8k16.f16: 1
// COSTS-NEXT:   mma flops: 4096
// COSTS-NEXT:   ldmatrix: instructions 2 matrices 6
// COSTS-NEXT:   cp.async: copies 48 zero-filled bytes 0
// COSTS-NEXT:   shared.ldmatrix: instructions 2 bytes 768 wavefronts 10 (5.00 per instruction) bank-conflict wavefronts 4{{$}}
// COSTS-NEXT:   shared.cp.async: instructions 2 bytes 768 wavefronts 6 (3.00 per instruction) bank-conflict wavefronts 0{{$}}
// COSTS-NEXT:   global.store: instructions 2 bytes 512 sectors 16 (8.00 per instruction)
// COSTS-NEXT:   global.cp.async: instructions 2 bytes 768 sectors 24 (12.00 per instruction)
// COSTS-NEXT:   dram: read sectors 24 written sectors 16 (1280 bytes)
// RUN: ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s --check-prefix=COSTS
//
// The copy lands when the issuing thread waits for it, not before: without
// cp.async.wait_group for A, the ldmatrix after the barrier reads words
// whose cp.async is still in flight (thread 0 copied A's row 0, columns
// 0-7, to bytes 0-15, and gives the ldmatrix that row).
// The access profile (SSD_GPU_EMULATOR_ACCESS_PROFILE) has the same counts
// per call site and kind, most sectors or wavefronts first: each cp.async
// site twice, its global source (A 16 sectors, B 8) and its shared
// destination (A 4 wavefronts, B 2), and D's two stores, 8 sectors each.
// RUN: rm -f %t.tsv
// RUN: env SSD_GPU_EMULATOR_ACCESS_PROFILE=%t.tsv ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: FileCheck %s --check-prefix=ACCESS < %t.tsv
// ACCESS: # kernel site kind instructions bytes sectors-or-wavefronts instruction
// ACCESS-NEXT: main_kernel [[A:[0-9]+]] global.cp.async 1 512 16 main_kernel: tail call void @llvm.nvvm.cp.async
// ACCESS-NEXT: main_kernel [[B:[0-9]+]] global.cp.async 1 256 8 main_kernel: tail call void @llvm.nvvm.cp.async
// ACCESS-NEXT: main_kernel {{[0-9]+}} global.store 1 256 8 main_kernel: store <2 x float>
// ACCESS-NEXT: main_kernel {{[0-9]+}} global.store 1 256 8 main_kernel: store <2 x float>
// ACCESS-NEXT: main_kernel [[A]] shared.cp.async 1 512 4 main_kernel: tail call void @llvm.nvvm.cp.async
// ACCESS-NEXT: main_kernel [[B]] shared.cp.async 1 256 2 main_kernel: tail call void @llvm.nvvm.cp.async
// ACCESS-NOT: main_kernel
//
// RUN: sed -e '/WAIT-A/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on [[A:__wg_main_kernel_0]]+0: thread (0,0,0) reads it (main_kernel: %{{.*}} = {{(tail )?}}call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3({{.*}})) while the cp.async of thread (0,0,0) (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16({{.*}})) that writes it is in flight: no cp.async.wait_group of thread (0,0,0) has covered it, after barrier 1 of the block (main_kernel: barrier #1)
// NOWAIT-NOT: error
//
// cp.async.wait_group 1 waits for every group but the most recent one: in
// place of the wait_group 0 before B's ldmatrix, it leaves B's group (the
// second) in flight: thread 0 gives the ldmatrix B's row 0, which thread 15
// copied.
// RUN: sed -e 's/wait.group 0 \/\/ WAIT-B/wait.group 1/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GROUP
// GROUP: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_1+0: thread (0,0,0) reads it (main_kernel: %{{.*}} = {{(tail )?}}call { i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3({{.*}})) while the cp.async of thread (15,0,0) (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16.s({{.*}}, i32 16)) that writes it is in flight: no cp.async.wait_group of thread (15,0,0) has covered it, after barrier 2 of the block (main_kernel: barrier #2)
// GROUP-NOT: error
//
// After the wait, the copy is a write of the issuing thread like any other:
// other threads may read it only after a barrier. Without the barrier
// after A's wait, thread 1 gives the ldmatrix A's row 1, columns 0-7
// (bytes 32-47), which thread 2 copied, in the same interval.
// RUN: sed -e '/BARRIER-A/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOBARRIER
// NOBARRIER: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_0+32: thread (1,0,0) reads it (main_kernel: %{{.*}} = {{(tail )?}}call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3({{.*}})) and thread (2,0,0) wrote it (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16({{.*}})) in the same barrier interval, between the start of the block and the first barrier
// NOBARRIER-NOT: error
//
// The same when the copy was issued in an earlier barrier interval than
// the wait: B's copies are issued before the first barrier and waited for
// after it; without the barrier after that wait, thread 0 gives the
// ldmatrix B's row 0, which thread 15 copied, in the interval of the wait.
// RUN: sed -e '/BARRIER-B/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOBARRIER-B
// NOBARRIER-B: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_1+0: thread (0,0,0) reads it (main_kernel: %{{.*}} = {{(tail )?}}call { i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3({{.*}})) and thread (15,0,0) wrote it (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16.s({{.*}}, i32 16)) in the same barrier interval, after barrier 1 of the block (main_kernel: barrier #1)
// NOBARRIER-B-NOT: error
//
// Two copies in flight to the same words land in no defined order: with B's
// row 15 - l / 2, threads 0 and 1 both copy row 15 (bytes 240-255 of B).
// RUN: sed -e 's/constant 1 : index \/\/ B-ROW-STEP/constant 2 : index/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_1+240: thread (1,0,0) writes it (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16.s({{.*}})) while the cp.async of thread (0,0,0) (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16.s({{.*}})) that writes it is in flight: no cp.async.wait_group of thread (0,0,0) has covered it, between the start of the block and the first barrier
// OVERLAP-NOT: error
//
// The global source is bounds-checked when the cp.async is issued: reading
// A's row r + 1, thread 30 starts at byte 512 of the 512-byte allocation.
// RUN: sed -e 's/constant 0 : index \/\/ SRC-ROW/constant 1 : index/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SOURCE
// SOURCE: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (30,0,0) reads 16 bytes at device address {{[0-9]+}}, which runs 16 bytes past the end of a 512-byte allocation (offset 512) (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16({{.*}}))
// SOURCE-NOT: error
//
// Both addresses must be aligned to the cp-size (16 bytes), checked when
// the copy is issued: one f16 column further, thread 0's source is 2 bytes
// past the start of A; its destination, shared offset 2.
// RUN: sed -e 's/constant 0 : index \/\/ SRC-COLUMN/constant 1 : index/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SRC-ALIGN
// SRC-ALIGN: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (0,0,0) executes cp.async of 16 bytes from device address {{[0-9]+}}, not aligned to 16 bytes (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16({{.*}}))
// SRC-ALIGN-NOT: error
// RUN: sed -e 's/constant 0 : index \/\/ DST-COLUMN/constant 1 : index/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DST-ALIGN
// DST-ALIGN: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (0,0,0) executes cp.async of 16 bytes to shared offset 2, not aligned to 16 bytes (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.ca.shared.global.16({{.*}}))
// DST-ALIGN-NOT: error
//
// src-size below cp-size zero-fills the rest (B's copies give one): copying 4 of B's 8 columns
// (8 of 16 bytes) leaves B[k][j] = 0 for j >= 4, so D[i][j] = 0 there and
// is unchanged for j < 4; 16 x 8 bytes are zero-filled and 512 + 128 bytes
// read from global memory.
// RUN: sed -e 's/constant 8 : index \/\/ B-ELEMENTS/constant 4 : index/' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --emulator-costs --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZFILL
// CHECK: sizes = [16, 8]
// CHECK-NEXT: {{\[}}[-1240, -1360, -1480, -1600, -1720, -1840, -1960, -2080]
// CHECK-NEXT:  [-1120, -1224, -1328, -1432, -1536, -1640, -1744, -1848]
// CHECK-NEXT:  [-1000, -1088, -1176, -1264, -1352, -1440, -1528, -1616]
// CHECK-NEXT:  [-880, -952, -1024, -1096, -1168, -1240, -1312, -1384]
// CHECK-NEXT:  [-760, -816, -872, -928, -984, -1040, -1096, -1152]
// CHECK-NEXT:  [-640, -680, -720, -760, -800, -840, -880, -920]
// CHECK-NEXT:  [-520, -544, -568, -592, -616, -640, -664, -688]
// CHECK-NEXT:  [-400, -408, -416, -424, -432, -440, -448, -456]
// CHECK-NEXT:  [-280, -272, -264, -256, -248, -240, -232, -224]
// CHECK-NEXT:  [-160, -136, -112, -88, -64, -40, -16, 8]
// CHECK-NEXT:  [-40, 0, 40, 80, 120, 160, 200, 240]
// CHECK-NEXT:  [80, 136, 192, 248, 304, 360, 416, 472]
// CHECK-NEXT:  [200, 272, 344, 416, 488, 560, 632, 704]
// CHECK-NEXT:  [320, 408, 496, 584, 672, 760, 848, 936]
// CHECK-NEXT:  [440, 544, 648, 752, 856, 960, 1064, 1168]
// CHECK-NEXT:  [560, 680, 800, 920, 1040, 1160, 1280, 1400]
// CHECK-NOT: error
// ZFILL-NOT: error
// ZFILL: sizes = [16, 8]
// ZFILL-NEXT: {{\[}}[-1240, -1360, -1480, -1600, 0, 0, 0, 0]
// ZFILL-NEXT:  [-1120, -1224, -1328, -1432, 0, 0, 0, 0]
// ZFILL-NEXT:  [-1000, -1088, -1176, -1264, 0, 0, 0, 0]
// ZFILL-NEXT:  [-880, -952, -1024, -1096, 0, 0, 0, 0]
// ZFILL-NEXT:  [-760, -816, -872, -928, 0, 0, 0, 0]
// ZFILL-NEXT:  [-640, -680, -720, -760, 0, 0, 0, 0]
// ZFILL-NEXT:  [-520, -544, -568, -592, 0, 0, 0, 0]
// ZFILL-NEXT:  [-400, -408, -416, -424, 0, 0, 0, 0]
// ZFILL-NEXT:  [-280, -272, -264, -256, 0, 0, 0, 0]
// ZFILL-NEXT:  [-160, -136, -112, -88, 0, 0, 0, 0]
// ZFILL-NEXT:  [-40, 0, 40, 80, 0, 0, 0, 0]
// ZFILL-NEXT:  [80, 136, 192, 248, 0, 0, 0, 0]
// ZFILL-NEXT:  [200, 272, 344, 416, 0, 0, 0, 0]
// ZFILL-NEXT:  [320, 408, 496, 584, 0, 0, 0, 0]
// ZFILL-NEXT:  [440, 544, 648, 752, 0, 0, 0, 0]
// ZFILL-NEXT:  [560, 680, 800, 920, 0, 0, 0, 0]
// ZFILL: cp.async: copies 48 zero-filled bytes 128
// ZFILL: global.cp.async: instructions 2 bytes 640 sectors 24

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %ha = memref.alloc() : memref<16x16xf16>
  %hb = memref.alloc() : memref<16x8xf16>
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c16 step %c1 {
      %v = arith.subi %i, %k : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      memref.store %vf, %ha[%i, %k] : memref<16x16xf16>
    }
  }
  scf.for %k = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = arith.addi %k, %j : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      memref.store %vf, %hb[%k, %j] : memref<16x8xf16>
    }
  }
  %a = gpu.alloc () : memref<16x16xf16>
  %b = gpu.alloc () : memref<16x8xf16>
  %d = gpu.alloc () : memref<16x8xf32>
  gpu.memcpy %a, %ha : memref<16x16xf16>, memref<16x16xf16>
  gpu.memcpy %b, %hb : memref<16x8xf16>, memref<16x8xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%as : memref<16x16xf16, #gpu.address_space<workgroup>>,
                       %bs : memref<16x8xf16, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %k15 = arith.constant 15 : index
    %arow = arith.divui %tx, %k2 : index
    %ahalf = arith.remui %tx, %k2 : index
    %acol = arith.muli %ahalf, %k8 : index
    %srcshift = arith.constant 0 : index // SRC-ROW
    %srow = arith.addi %arow, %srcshift : index
    %srccolshift = arith.constant 0 : index // SRC-COLUMN
    %dstcolshift = arith.constant 0 : index // DST-COLUMN
    %scol = arith.addi %acol, %srccolshift : index
    %dcol = arith.addi %acol, %dstcolshift : index
    %ta = nvgpu.device_async_copy %a[%srow, %scol], %as[%arow, %dcol], 8 : memref<16x16xf16> to memref<16x16xf16, #gpu.address_space<workgroup>>
    %ga = nvgpu.device_async_create_group %ta
    %k16 = arith.constant 16 : index
    %k32 = arith.constant 32 : index
    %copier = arith.cmpi ult, %tx, %k16 : index
    // B's copies give a src-size: all 8 elements (16 bytes).
    %belements = arith.constant 8 : index // B-ELEMENTS
    scf.if %copier {
      %bstep = arith.constant 1 : index // B-ROW-STEP
      %bq = arith.divui %tx, %bstep : index
      %brow = arith.subi %k15, %bq : index
      %tb = nvgpu.device_async_copy %b[%brow, %k0], %bs[%brow, %k0], 8, %belements : memref<16x8xf16> to memref<16x8xf16, #gpu.address_space<workgroup>>
    }
    nvvm.cp.async.commit.group
    nvgpu.device_async_wait %ga {numGroups = 1 : i32} // WAIT-A
    gpu.barrier // BARRIER-A
    %mi = arith.divui %tx, %k8 : index
    %mr = arith.remui %tx, %k8 : index
    %mrem = arith.remui %mi, %k2 : index
    %mdiv = arith.divui %mi, %k2 : index
    %r8 = arith.muli %mrem, %k8 : index
    %lrow = arith.addi %mr, %r8 : index
    %lcol = arith.muli %mdiv, %k8 : index
    %fa = nvgpu.ldmatrix %as[%lrow, %lcol] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    nvvm.cp.async.wait.group 0 // WAIT-B
    gpu.barrier // BARRIER-B
    %bl = arith.remui %tx, %k16 : index
    %fb = nvgpu.ldmatrix %bs[%bl, %k0] {numTiles = 2 : i32, transpose = true} : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %fd = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %lane = arith.remui %tx, %k32 : index
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %g8 = arith.addi %g, %k8 : index
    %d0 = vector.extract %fd[0] : vector<2xf32> from vector<2x2xf32>
    %d1 = vector.extract %fd[1] : vector<2xf32> from vector<2x2xf32>
    vector.store %d0, %d[%g, %t2] {alignment = 8} : memref<16x8xf32>, vector<2xf32>
    vector.store %d1, %d[%g8, %t2] {alignment = 8} : memref<16x8xf32>, vector<2xf32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<16x8xf32>
  gpu.memcpy %h, %d : memref<16x8xf32>, memref<16x8xf32>
  %u = memref.cast %h : memref<16x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
