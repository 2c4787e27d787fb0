// The shared-memory race check on a read after a write: thread t stores
// buf[t] = t, and after a barrier reads its left neighbour's word,
// buf[(t + 63) % 64], so out[t] = (t + 63) % 64. Without the barrier,
// thread 1 reads buf[0] in the interval in which thread 0 wrote it (the
// emulator runs thread 0 to its end first; its own read of buf[63], which
// no thread has written yet, would be reported at the end of the interval,
// after the race).
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s
// RUN: sed -e '/BARRIER/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RAW

// CHECK-NOT: error
// CHECK: sizes = [64]
// CHECK-NEXT: [63, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62]

// RAW: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_0+0: thread (1,0,0) reads it (main_kernel: %{{.*}} = load float, ptr addrspace(3) %{{.*}}) and thread (0,0,0) wrote it (main_kernel: store float %{{.*}}, ptr addrspace(3) %{{.*}}) in the same barrier interval, between the start of the block and the first barrier
// RAW-NOT: error

func.func @main() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<64xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k63 = arith.constant 63 : index
    %k64 = arith.constant 64 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier // BARRIER
    %l0 = arith.addi %tx, %k63 : index
    %l = arith.remui %l0, %k64 : index
    %v = memref.load %buf[%l] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
