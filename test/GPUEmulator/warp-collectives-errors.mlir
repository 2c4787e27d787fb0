// Warp collectives whose result the PTX ISA leaves undefined, or that can
// never complete, are reported:
//  - (SOURCE) lanes 0-15 shuffle with member mask 0xffff from lane 20, which
//    is not a member (its value is undefined);
//  - (EXITED) lanes 16-31 exit, lanes 0-15 shuffle down by 16 with the full
//    mask: shfl.sync waits only for the non-exited lanes of its mask, but
//    the value read from an exited lane is undefined;
//  - (SELF) lane 0 shuffles with a mask that excludes it (undefined);
//  - (MMA) mma.sync in a block of 16 threads (it needs the whole warp);
//  - (MMAEXIT) mma.sync after lanes 16-31 exited.
// And what the PTX ISA does define runs (VOTE): lanes 20-31 exit, then
// lanes 0-19 vote with the full mask; vote.sync counts only the non-exited
// lanes of the mask: all(l < 20) = 1, ballot(l < 20) = 0xfffff = 1048575; and
// a shuffle down by 1 with clamp 19 among them (lane l holds 100 + l) gives
// 101 + l for l < 19, and lane 19 (j = 20 > 19, not valid) keeps 119.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=source_outside_mask \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SOURCE
// RUN: not ssd-runner %t.mlir --entry-point=source_exited \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXITED
// RUN: not ssd-runner %t.mlir --entry-point=mask_excludes_self \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SELF
// RUN: not ssd-runner %t.mlir --entry-point=mma_small_block \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MMA
// RUN: not ssd-runner %t.mlir --entry-point=mma_after_exit \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MMAEXIT
// RUN: ssd-runner %t.mlir --entry-point=vote_after_exit \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VOTE

// SOURCE: ssd-gpu-emulator: error: kernel source_outside_mask_kernel block (0,0,0): thread (0,0,0) shuffles from lane 20, which is not in the member mask (source_outside_mask_kernel: shfl.sync.idx.i32)
// SOURCE-NOT: error

// EXITED: ssd-gpu-emulator: error: kernel source_exited_kernel block (0,0,0): thread (0,0,0) shuffles from lane 16, which has exited (source_exited_kernel: shfl.sync.down.i32)
// EXITED-NOT: error

// SELF: ssd-gpu-emulator: error: kernel mask_excludes_self_kernel block (0,0,0): thread (0,0,0) executes shfl.sync with a member mask that excludes itself (mask_excludes_self_kernel: shfl.sync.bfly.i32)
// SELF-NOT: error

// MMA: ssd-gpu-emulator: error: kernel mma_small_block_kernel block (0,0,0): mma.sync in a warp of 16 threads (it needs all 32 lanes; mma_small_block_kernel: {{.*}}mma.m16n8k16.row.col.bf16{{.*}})
// MMA-NOT: error

// MMAEXIT: ssd-gpu-emulator: error: kernel mma_after_exit_kernel block (0,0,0): thread (16,0,0) exited while lane 0 waits for it in mma.sync (mma_after_exit_kernel: {{.*}}mma.m16n8k16.row.col.bf16{{.*}})
// MMAEXIT-NOT: error

// VOTE-NOT: error
// VOTE: [1, 1048575, 101]
// VOTE-NEXT: [1, 1048575, 102]
// VOTE-NEXT: [1, 1048575, 103]
// VOTE-NEXT: [1, 1048575, 104]
// VOTE-NEXT: [1, 1048575, 105]
// VOTE-NEXT: [1, 1048575, 106]
// VOTE-NEXT: [1, 1048575, 107]
// VOTE-NEXT: [1, 1048575, 108]
// VOTE-NEXT: [1, 1048575, 109]
// VOTE-NEXT: [1, 1048575, 110]
// VOTE-NEXT: [1, 1048575, 111]
// VOTE-NEXT: [1, 1048575, 112]
// VOTE-NEXT: [1, 1048575, 113]
// VOTE-NEXT: [1, 1048575, 114]
// VOTE-NEXT: [1, 1048575, 115]
// VOTE-NEXT: [1, 1048575, 116]
// VOTE-NEXT: [1, 1048575, 117]
// VOTE-NEXT: [1, 1048575, 118]
// VOTE-NEXT: [1, 1048575, 119]
// VOTE-NEXT: [1, 1048575, 119]

func.func @source_outside_mask() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k16 = arith.constant 16 : index
    %mask = arith.constant 0xffff : i32
    %src = arith.constant 20 : i32
    %clamp = arith.constant 31 : i32
    %i = arith.index_cast %tx : index to i32
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %s = nvvm.shfl.sync idx %mask, %i, %src, %clamp : i32 -> i32
      memref.store %s, %d[%tx] : memref<32xi32>
    }
    gpu.terminator
  }
  return
}

func.func @source_exited() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k16 = arith.constant 16 : index
    %m1 = arith.constant -1 : i32
    %delta = arith.constant 16 : i32
    %clamp = arith.constant 31 : i32
    %i = arith.index_cast %tx : index to i32
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %s = nvvm.shfl.sync down %m1, %i, %delta, %clamp : i32 -> i32
      memref.store %s, %d[%tx] : memref<32xi32>
    }
    gpu.terminator
  }
  return
}

func.func @mask_excludes_self() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %mask = arith.constant 0xfffffffe : i32
    %one = arith.constant 1 : i32
    %clamp = arith.constant 31 : i32
    %i = arith.index_cast %tx : index to i32
    %s = nvvm.shfl.sync bfly %mask, %i, %one, %clamp : i32 -> i32
    memref.store %s, %d[%tx] : memref<32xi32>
    gpu.terminator
  }
  return
}

func.func @mma_small_block() {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %d = gpu.alloc () : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %a = arith.constant 0 : i32
    %c = arith.constant 0.0 : f32
    %r = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %v = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %v, %d[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

func.func @mma_after_exit() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k16 = arith.constant 16 : index
    %a = arith.constant 0 : i32
    %c = arith.constant 0.0 : f32
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %r = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
          {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
           multiplicandAPtxType = #nvvm.mma_type<bf16>,
           multiplicandBPtxType = #nvvm.mma_type<bf16>,
           shape = #nvvm.shape<m = 16, n = 8, k = 16>}
          : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %v = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
      memref.store %v, %d[%tx] : memref<32xf32>
    }
    gpu.terminator
  }
  return
}

func.func @vote_after_exit() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %h = memref.alloc() : memref<20x3xi32>
  %d = gpu.alloc () : memref<20x3xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k20 = arith.constant 20 : index
    %m1 = arith.constant -1 : i32
    %one = arith.constant 1 : i32
    %clamp = arith.constant 19 : i32
    %i100 = arith.constant 100 : i32
    %i = arith.index_cast %tx : index to i32
    %v = arith.addi %i, %i100 : i32
    %low = arith.cmpi ult, %tx, %k20 : index
    scf.if %low {
      %all = nvvm.vote.sync all %m1, %low -> i1
      %alli = arith.extui %all : i1 to i32
      %ballot = nvvm.vote.sync ballot %m1, %low -> i32
      %s = nvvm.shfl.sync down %m1, %v, %one, %clamp : i32 -> i32
      memref.store %alli, %d[%tx, %k0] : memref<20x3xi32>
      memref.store %ballot, %d[%tx, %k1] : memref<20x3xi32>
      memref.store %s, %d[%tx, %k2] : memref<20x3xi32>
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<20x3xi32>, memref<20x3xi32>
  %u = memref.cast %h : memref<20x3xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
