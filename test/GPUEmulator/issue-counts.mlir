// The cost counters' instruction issue (docs/gpu.md, "Cost counters") on a
// kernel whose counts are worked out by hand: warp-level instructions per
// class, a warp issuing a basic block as often as its busiest lane entered
// it. Two blocks of 64 threads (two warps each); per block:
//  - a loop of 10 iterations run by every lane: one ex2.approx (sfu), a
//    multiply and an add (fp32), a shuffle, a barrier: per warp 10 each
//    (20 fp32), so 20 sfu, 40 fp32, 20 shuffles, 20 barriers;
//  - three ex2.approx under tx < 16: lanes 0-15 of warp 0 only, so one
//    issue of each by warp 0 and none by warp 1: 3 sfu;
//  - a loop that lane l runs l % 4 times (the bits of tx & 3): the busiest
//    lane of each warp runs it 3 times, so each warp issues its ex2 3 times:
//    6 sfu;
//  - one mma.sync per warp and an add of its result: 2 tensor, 2 fp32; one
//    sitofp before the loop: 2 convert; one store of the result: 2 global;
//    no shared memory.
// Per block 29 sfu, 42 fp32, 2 convert, 20 shuffle, 20 barrier, 2 tensor,
// 2 global; the launch twice that. Integer and branch counts depend on the
// lowering's loop and index code and are not checked.
//
// At opt-level=0, so that the instructions are those written.
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator=opt-level=0 > %t.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// Both blocks on their own worker: the workers' counts are summed.
// RUN: env SSD_GPU_EMULATOR_THREADS=2 ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The issue profile (SSD_GPU_EMULATOR_ISSUE_PROFILE): the same counts per
// basic block, the blocks that issued most first: the first loop's body 40
// warp entries (2 blocks x 2 warps x 10), the tx < 16 block 2 (warp 0 of
// each block), the l % 4 loop's body 12 (3 per warp); each row's classes
// are its entries times its block's instructions.
// RUN: rm -f %t.tsv
// RUN: env SSD_GPU_EMULATOR_THREADS=2 SSD_GPU_EMULATOR_ISSUE_PROFILE=%t.tsv \
// RUN:   ssd-runner %t.mlir --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: FileCheck %s --check-prefix=PROFILE < %t.tsv
// PROFILE: # kernel block warp-entries total sfu fp32 imad int convert shuffle shared global barrier tensor branch
// PROFILE-NEXT: main_kernel issue.{{[0-9]+}} 40 {{[0-9]+}} 40 80 0 {{[0-9]+}} 0 40 0 0 40 0 {{[0-9]+$}}
// PROFILE-DAG: main_kernel issue.{{[0-9]+}} 12 {{[0-9]+}} 12 0 
// PROFILE-DAG: main_kernel issue.{{[0-9]+}} 2 {{[0-9]+}} 6 0 
// SSD_GPU_EMULATOR_COSTS=off counts no issue.
// RUN: env SSD_GPU_EMULATOR_COSTS=off ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=OFF
// CHECK: kernel main_kernel: launches 1 blocks 2 threads 128 warps 4
// CHECK: issue (warp instructions): sfu 58 fp32 84 imad {{[0-9]+}} int {{[0-9]+}} convert 4 shuffle 40 shared 0 global 4 barrier 40 tensor 4 branch {{[0-9]+$}}
// OFF: kernel main_kernel:
// OFF-NOT: issue
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %out = gpu.alloc () : memref<128xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k3 = arith.constant 3 : index
    %k10 = arith.constant 10 : index
    %k16 = arith.constant 16 : index
    %k64 = arith.constant 64 : index
    %w32 = arith.constant 32 : i32
    %o1 = arith.constant 1 : i32
    %a = arith.constant 1.5 : f32
    %b = arith.constant 0.25 : f32
    %z = arith.constant 0 : i32
    %zf = arith.constant 0.0 : f32
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = scf.for %k = %k0 to %k10 step %k1 iter_args(%x = %f) -> f32 {
      %e = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x) : (f32) -> f32
      %m = arith.mulf %e, %a : f32
      %s = arith.addf %m, %b : f32
      %sh, %valid = gpu.shuffle xor %s, %o1, %w32 : f32
      gpu.barrier
      scf.yield %sh : f32
    }
    %low = arith.cmpi ult, %tx, %k16 : index
    %r2 = scf.if %low -> f32 {
      %e1 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%r) : (f32) -> f32
      %e2 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%e1) : (f32) -> f32
      %e3 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%e2) : (f32) -> f32
      scf.yield %e3 : f32
    } else {
      scf.yield %r : f32
    }
    %n = arith.andi %tx, %k3 : index
    %r3 = scf.for %k = %k0 to %n step %k1 iter_args(%x = %r2) -> f32 {
      %e = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x) : (f32) -> f32
      scf.yield %e : f32
    }
    %dd = nvvm.mma.sync A[%z, %z, %z, %z] B[%z, %z] C[%zf, %zf, %zf, %zf]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    %sum = arith.addf %r3, %d0 : f32
    %blockBase = arith.muli %bx, %k64 : index
    %p = arith.addi %blockBase, %tx : index
    memref.store %sum, %out[%p] : memref<128xf32>
    gpu.terminator
  }
  gpu.dealloc %out : memref<128xf32>
  return
}
