// Shared memory starts as garbage on a GPU. A read of a shared word that no
// thread of the block has written is reported (judged at the next barrier or
// at the end of the block, so that a write by another thread later in the
// same interval is reported as the race it is instead). Threads 0-31 write
// buf[t]; after the barrier thread t reads buf[63 - t], so threads 0-31 read
// words 63-32, which nobody wrote; the first, thread 0's read of word 63
// (byte 252), is reported. With all 64 threads writing, the same exchange
// runs clean: out[t] = 63 - t.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=half_written \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HALF
// RUN: ssd-runner %t.mlir --entry-point=all_written \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL
// A thread reading its own word before writing it reads garbage too:
// RUN: not ssd-runner %t.mlir --entry-point=read_before_write \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN

// HALF: ssd-gpu-emulator: error: kernel half_written_kernel block (0,0,0): thread (0,0,0) reads [[BUF:__wg_half_written_kernel_[0-9]+]]+252, which no thread of the block has written (half_written_kernel: %{{.*}} = load float, ptr addrspace(3) %{{.*}})
// HALF-NOT: error

// ALL-NOT: error
// ALL: [63, 62, 61, 60,

// OWN: ssd-gpu-emulator: error: kernel read_before_write_kernel block (0,0,0): thread (0,0,0) reads __wg_read_before_write_kernel_{{[0-9]+}}+0, which no thread of the block has written
// OWN-NOT: error

func.func @half_written() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k32 = arith.constant 32 : index
    %k63 = arith.constant 63 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %low = arith.cmpi ult, %tx, %k32 : index
    scf.if %low {
      memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %m = arith.subi %k63, %tx : index
    %v = memref.load %buf[%m] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

func.func @all_written() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<64xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k63 = arith.constant 63 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %m = arith.subi %k63, %tx : index
    %v = memref.load %buf[%m] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @read_before_write() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<32xf32, #gpu.address_space<workgroup>>) {
    %one = arith.constant 1.0 : f32
    %v = memref.load %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %w = arith.addf %v, %one : f32
    memref.store %w, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
func.func private @printMemrefF32(memref<*xf32>)
