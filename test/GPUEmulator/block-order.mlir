// SSD_GPU_EMULATOR_BLOCK_ORDER: the order in which a launch starts its
// blocks. Each of 8 one-thread blocks takes a ticket (an atomic counter in
// word 8) and stores it at its own index, so with one worker the output is
// the order the blocks started in: index order by default (`forward`), from
// the last block with `reverse`, and a permutation drawn from the seed with
// `random:SEED`, the same in every run with that seed (each printed value
// is the position at which that block started).
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=FORWARD
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=forward ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=FORWARD
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=REVERSE
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=random:1 ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=RANDOM1
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=random:1 ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=RANDOM1
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=random:2 ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=RANDOM2
// A value that is none of these fails the first launch (a seed is needed,
// so that a run can be repeated):
// RUN: env SSD_GPU_EMULATOR_BLOCK_ORDER=random not ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env SSD_GPU_EMULATOR_BLOCK_ORDER=random:-1 not ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// FORWARD: [0,  1,  2,  3,  4,  5,  6,  7,  8]
// REVERSE: [7,  6,  5,  4,  3,  2,  1,  0,  8]
// RANDOM1: [5,  1,  2,  4,  3,  0,  6,  7,  8]
// RANDOM2: [4,  1,  0,  7,  3,  2,  6,  5,  8]
// BAD: ssd-gpu-emulator: error: SSD_GPU_EMULATOR_BLOCK_ORDER=random is none of forward, reverse, random:SEED
// BAD-NOT: error
// NEGATIVE: ssd-gpu-emulator: error: SSD_GPU_EMULATOR_BLOCK_ORDER=random:-1 is none of forward, reverse, random:SEED

func.func @main() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<9xi32>
  %d = gpu.alloc () : memref<9xi32>
  gpu.memset %d, %zero : memref<9xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k8 = arith.constant 8 : index
    %i1 = arith.constant 1 : i32
    %ticket = memref.atomic_rmw addi %i1, %d[%k8] : (i32, memref<9xi32>) -> i32
    memref.store %ticket, %d[%bx] : memref<9xi32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<9xi32>, memref<9xi32>
  %u = memref.cast %h : memref<9xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
