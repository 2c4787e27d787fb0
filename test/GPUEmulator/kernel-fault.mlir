// A fault of a kernel's own code (not one the emulator's checks catch
// first: here an integer division by a zero read from device memory, which
// the host CPU traps) ends the run with one line naming the kernel, block
// and thread, and exit status 1: no stack dump of the process, whatever
// fault handler (LLVM's stack-trace printer in ssd-runner) was installed
// before the emulator's.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=divide_by_zero \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: ssd-runner %t.mlir --entry-point=divide_by_one \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE

// CHECK: ssd-gpu-emulator: error: kernel divide_kernel block (0,0,0) thread (3,0,0): SIGFPE (arithmetic fault, e.g. integer division by zero) at 0x{{[0-9a-f]+}} in the kernel's code
// CHECK-NOT: {{.}}

// ONE-NOT: error
// ONE: [7, 7, 7, 7]

func.func private @printMemrefI32(memref<*xi32>)

func.func @divide(%divisor: i32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d = gpu.alloc () : memref<4xi32>
  %out = gpu.alloc () : memref<4xi32>
  %h = memref.alloc() : memref<4xi32>
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %divisor, %h[%i] : memref<4xi32>
  }
  gpu.memcpy %d, %h : memref<4xi32>, memref<4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %k3 = arith.constant 3 : index
    %seven = arith.constant 7 : i32
    %one = arith.constant 1 : i32
    %v = memref.load %d[%tx] : memref<4xi32>
    // Only thread 3 divides by what it read; the others by one.
    %last = arith.cmpi eq, %tx, %k3 : index
    %by_v = arith.select %last, %v, %one : i32
    %q = arith.divsi %seven, %by_v : i32
    %r = arith.muli %q, %v : i32
    memref.store %r, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  gpu.memcpy %h, %out : memref<4xi32>, memref<4xi32>
  %u = memref.cast %h : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @divide_by_zero() {
  %zero = arith.constant 0 : i32
  call @divide(%zero) : (i32) -> ()
  return
}

func.func @divide_by_one() {
  %one = arith.constant 1 : i32
  call @divide(%one) : (i32) -> ()
  return
}
