// Barriers that part of a block skips, or that different threads reach at
// different gpu.barrier ops (bar.sync 0 is .aligned: every thread of the
// block must execute the same instruction), would hang or be undefined on a
// GPU; the emulator reports them, naming the kernel, the block, the threads
// at the barrier and the others, and runs nothing further.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=skip \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SKIP
// RUN: not ssd-runner %t.mlir --entry-point=two_barriers \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: not ssd-runner %t.mlir --entry-point=barrier_and_shuffle \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MIXED
// The same block shape with every thread at the barrier runs clean:
// RUN: ssd-runner %t.mlir --entry-point=uniform \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNIFORM

// Threads 0-31 wait at the barrier; 32-63 skip it and exit.
// SKIP: ssd-gpu-emulator: error: kernel skip_kernel block (0,0,0): barrier divergence: threads (0,0,0)-(31,0,0) wait at skip_kernel: barrier #1 but threads (32,0,0)-(63,0,0) exited without reaching it; the block would hang
// SKIP-NOT: error

// Warp 0 waits at the barrier of the then-branch, warp 1 at the else one
// (barriers are numbered in code order).
// TWO: ssd-gpu-emulator: error: kernel two_barriers_kernel block (0,0,0): barrier divergence: threads (0,0,0)-(31,0,0) wait at two_barriers_kernel: barrier #1 and threads (32,0,0)-(63,0,0) at two_barriers_kernel: barrier #2; the block would hang
// TWO-NOT: error

// Lanes 0-15 wait in a full-warp shuffle while lanes 16-31 wait at a
// barrier: neither can complete.
// MIXED: ssd-gpu-emulator: error: kernel barrier_and_shuffle_kernel block (0,0,0): deadlock: threads (0,0,0)-(15,0,0) wait in shfl.sync (barrier_and_shuffle_kernel: shfl.sync.bfly.i32) for lanes that never join it; threads (16,0,0)-(31,0,0) wait at barrier_and_shuffle_kernel: barrier #1
// MIXED-NOT: error

// UNIFORM-NOT: error
// UNIFORM: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]

func.func @skip() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %low = arith.cmpi ult, %tx, %k32 : index
    scf.if %low {
      gpu.barrier
    }
    memref.store %zero, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

func.func @two_barriers() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %low = arith.cmpi ult, %tx, %k32 : index
    // Different code around the two barriers, so that no canonicalization
    // merges the branches into one barrier.
    scf.if %low {
      memref.store %zero, %d[%tx] : memref<64xf32>
      gpu.barrier
    } else {
      gpu.barrier
      memref.store %one, %d[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

func.func @barrier_and_shuffle() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %i = arith.index_cast %tx : index to i32
    %low = arith.cmpi ult, %tx, %k16 : index
    scf.if %low {
      %s, %ok = gpu.shuffle xor %i, %one, %width : i32
      memref.store %s, %d[%tx] : memref<32xi32>
    } else {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

func.func @uniform() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<64xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    gpu.barrier
    memref.store %f, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
