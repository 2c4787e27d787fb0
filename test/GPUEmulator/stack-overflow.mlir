// An emulated GPU thread runs on a fiber stack of its own, with a guard
// page below it. A kernel whose locals do not fit (here a 512 KiB local
// array) touches every page of its frame on the way down (the emulator
// compiles kernels with stack probes), so it faults in the guard page and
// the run ends with one line naming the kernel, block and thread, exit
// status 1, no stack dump. The same kernel with a 4 KiB array runs.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=large \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: ssd-runner %t.mlir --entry-point=small \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SMALL

// CHECK: ssd-gpu-emulator: error: kernel large_kernel block (0,0,0) thread (0,0,0): the emulated GPU thread overflowed its stack (local arrays or calls too deep)
// CHECK-NOT: {{.}}

// SMALL-NOT: error
// SMALL: [0, 1, 2, 3]

func.func private @printMemrefI32(memref<*xi32>)

func.func @large() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = gpu.alloc () : memref<4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %n = arith.constant 131072 : index
    %local = memref.alloca() : memref<131072xi32>
    scf.for %i = %k0 to %n step %k1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %local[%i] : memref<131072xi32>
    }
    %r = memref.load %local[%tx] : memref<131072xi32>
    memref.store %r, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  return
}

func.func @small() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = gpu.alloc () : memref<4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %n = arith.constant 1024 : index
    %local = memref.alloca() : memref<1024xi32>
    scf.for %i = %k0 to %n step %k1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %local[%i] : memref<1024xi32>
    }
    %r = memref.load %local[%tx] : memref<1024xi32>
    memref.store %r, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<4xi32>
  gpu.memcpy %h, %out : memref<4xi32>, memref<4xi32>
  %u = memref.cast %h : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
