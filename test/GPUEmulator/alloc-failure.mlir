// A failed device allocation is reported, and no later launch runs: with
// 1 MiB of device memory, gpu.alloc of 4 MiB fails (mgpuMemAlloc returns
// null), and the kernel that would write through that null pointer is not
// launched, as after a CUDA error (no "null pointer" report follows). With
// 8 MiB the same program runs.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: env SSD_GPU_EMULATOR_MEMORY=1M not ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMALL
// RUN: env SSD_GPU_EMULATOR_MEMORY=8M ssd-runner %t.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LARGE

// SMALL: ssd-gpu-emulator: error: mgpuMemAlloc: out of device memory: 4194304 bytes requested, 0 of 1048576 bytes in use
// SMALL-NOT: error
// SMALL-NOT: [7, 7, 7, 7]

// LARGE-NOT: error
// LARGE: [7, 7, 7, 7]

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %c4096 = arith.constant 4096 : index
  %h = memref.alloc() : memref<4xf32>
  %d = gpu.alloc () : memref<1048576xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4096, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %k256 = arith.constant 256 : index
    %seven = arith.constant 7.0 : f32
    %base = arith.muli %bx, %k256 : index
    %i = arith.addi %base, %tx : index
    memref.store %seven, %d[%i] : memref<1048576xf32>
    gpu.terminator
  }
  %s = memref.subview %d[0] [4] [1] : memref<1048576xf32> to memref<4xf32, strided<[1]>>
  %sc = memref.cast %s : memref<4xf32, strided<[1]>> to memref<4xf32>
  gpu.memcpy %h, %sc : memref<4xf32>, memref<4xf32>
  %u = memref.cast %h : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
