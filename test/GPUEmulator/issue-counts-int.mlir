// The issue counts of 64-bit integer operations (docs/gpu.md, "Cost
// counters"), worked out by hand on one block that lanes 0-15 of one warp
// run once (one warp entry), at opt-level=0 so that the instructions are
// those written:
//  - or, xor and and of a value zero-extended from i32 with a constant:
//    one `int` each (the upper half is the constant's, as in a wgmma
//    descriptor);
//  - an or of two such results and an add: two each (64-bit ops are two
//    32-bit halves);
//  - the store: its variable index one `imad`, the store one `global`.
// So 7 `int`, 1 `imad`, 1 `global`.
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator=opt-level=0 > %t.mlir
// RUN: rm -f %t.tsv
// RUN: env SSD_GPU_EMULATOR_ISSUE_PROFILE=%t.tsv ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: FileCheck %s < %t.tsv
// CHECK: # kernel block warp-entries total sfu fp32 imad int convert shuffle shared global barrier tensor branch
// CHECK-NEXT: main_kernel issue.{{[0-9]+}} 1 9 0 0 1 7 0 0 0 1 0 0 0{{$}}
func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %out = gpu.alloc () : memref<32xi64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k16 = arith.constant 16 : index
    %high = arith.constant 4611686293305360384 : i64
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %t = arith.index_cast %tx : index to i32
      %z = arith.extui %t : i32 to i64
      %or = arith.ori %z, %high : i64
      %xor = arith.xori %high, %z : i64
      %and = arith.andi %z, %high : i64
      %both = arith.ori %or, %xor : i64
      %sum = arith.addi %both, %and : i64
      memref.store %sum, %out[%tx] : memref<32xi64>
    }
    gpu.terminator
  }
  gpu.dealloc %out : memref<32xi64>
  return
}
