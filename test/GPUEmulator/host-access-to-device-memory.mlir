// Device memory lives in a window that host code cannot touch: a host
// memref.load from a gpu.alloc buffer faults, and the fault handler names
// the allocation and the offset (element 2 of 64 f32: byte 8 of 256) and
// exits with status 1, where on a GPU system the program would read garbage
// or crash without a word. Copies through gpu.memcpy are the way in and out.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s

// CHECK: ssd-gpu-emulator: error: host code accessed device memory at 0x{{[0-9a-f]+}} (offset 8 of a 256-byte allocation); device memory is reachable only through mgpuMemcpy and kernels
// CHECK-NOT: data =

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<1xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  %v = memref.load %d[%c2] : memref<64xf32>
  %c0 = arith.constant 0 : index
  memref.store %v, %h[%c0] : memref<1xf32>
  %u = memref.cast %h : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
