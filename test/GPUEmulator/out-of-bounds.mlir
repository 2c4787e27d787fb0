// Kernels' global and shared memory accesses are bounds-checked. Each entry
// point has thread 63 access element 64 of a 64-element f32 buffer, one
// element (4 bytes) past its end (everything else is well defined):
//  - global: a 256-byte gpu.alloc buffer; the report names the thread, the
//    size of the access and of the allocation, and the offset;
//  - shared: a 256-byte workgroup buffer, the block's only shared memory.
// In-bounds neighbours (tx + 1 < 64) run clean, as the wrapped variant shows.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=global_read \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GLOBAL
// RUN: not ssd-runner %t.mlir --entry-point=shared_write \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHARED
// RUN: ssd-runner %t.mlir --entry-point=wrapped \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WRAPPED

// GLOBAL: ssd-gpu-emulator: error: kernel global_read_kernel block (0,0,0): thread (63,0,0) reads 4 bytes at device address {{[0-9]+}}, which runs 4 bytes past the end of a 256-byte allocation (offset 256) (global_read_kernel: %{{.*}} = load float, ptr %{{.*}})
// GLOBAL-NOT: error

// SHARED: ssd-gpu-emulator: error: kernel shared_write_kernel block (0,0,0): thread (63,0,0) accesses 4 bytes of shared memory at offset 256, beyond the block's 256 bytes (shared_write_kernel: store float {{.*}}, ptr addrspace(3) %{{.*}})
// SHARED-NOT: error

// WRAPPED-NOT: error
// WRAPPED: [1, 2, 3,

func.func @global_read() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %src = gpu.alloc () : memref<64xf32>
  %dst = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %src[%tx] : memref<64xf32>
    gpu.barrier
    %n = arith.addi %tx, %k1 : index
    %v = memref.load %src[%n] : memref<64xf32>
    memref.store %v, %dst[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

func.func @shared_write() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %dst = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k63 = arith.constant 63 : index
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %last = arith.cmpi eq, %tx, %k63 : index
    scf.if %last {
      %n = arith.addi %tx, %k1 : index
      memref.store %zero, %buf[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %v = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %dst[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

func.func @wrapped() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<64xf32>
  %src = gpu.alloc () : memref<64xf32>
  %dst = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k1 = arith.constant 1 : index
    %k64 = arith.constant 64 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %src[%tx] : memref<64xf32>
    gpu.barrier
    %n0 = arith.addi %tx, %k1 : index
    %n = arith.remui %n0, %k64 : index
    %v = memref.load %src[%n] : memref<64xf32>
    memref.store %v, %dst[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %dst : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
