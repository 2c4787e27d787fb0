// A kernel that uses a host buffer (memref.alloc on the host) gets a host
// pointer as a kernel argument: on a GPU the access faults. The emulator
// checks every pointer argument at the launch, reports the first that is not
// device memory, and does not run the kernel (had it run, its load from the
// host pointer would have been reported too: no second error appears).
//
// The memref descriptor's fields are the kernel's arguments: #0 is the host
// buffer's allocated pointer (#1 its aligned pointer), the device buffer's
// fields follow.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s

// CHECK: ssd-gpu-emulator: error: launch of kernel main_kernel: argument #0 is 0x{{[0-9a-f]+}}, a host pointer, not device memory
// CHECK-NOT: error

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %host = memref.alloc() : memref<32xf32>
  %dev = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %host[%tx] : memref<32xf32>
    memref.store %v, %dev[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
