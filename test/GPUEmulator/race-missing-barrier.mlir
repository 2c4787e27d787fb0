// The shared-memory race check: a neighbour exchange done twice through one
// workgroup buffer. Round 1: thread t writes buf[t] = 10 t, and after a
// barrier reads buf[(t + 1) % 64]; round 2 writes what it read plus 1 back
// to buf[t] and, after another barrier, reads buf[(t + 1) % 64] again:
//   out[t] = buf2[(t + 1) % 64] = 10 ((t + 2) % 64) + 1.
// With all barriers the result is exact. Without the barrier between round
// 1's read and round 2's write, thread t + 1 overwrites buf[t + 1] in the
// interval in which thread t reads it (write after read). The emulator runs
// thread 0 first: it reads buf[1] and writes buf[0]; then thread 1 writes
// buf[1], which thread 0 read in the same interval, the one after the first
// barrier. The report names the kernel, block, buffer and byte offset (word
// 1: 4), both threads and both accesses, and the interval.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s
// RUN: sed -e '/BARRIER-B/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RACE
//
// After the error the copy back is skipped and ssd-runner exits with 1 (the
// host still prints its own, never written, buffer: not the right values).
// The check can be turned off; the program then runs to the end (with
// whatever values the unordered accesses produced in the emulator's order).
// RUN: sed -e '/BARRIER-B/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | env SSD_GPU_EMULATOR_RACECHECK=0 ssd-runner - \
// RUN:       --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOCHECK

// CHECK: sizes = [64]
// CHECK-NEXT: [21, 31, 41, 51, 61, 71, 81, 91, 101, 111, 121, 131, 141, 151, 161, 171, 181, 191, 201, 211, 221, 231, 241, 251, 261, 271, 281, 291, 301, 311, 321, 331, 341, 351, 361, 371, 381, 391, 401, 411, 421, 431, 441, 451, 461, 471, 481, 491, 501, 511, 521, 531, 541, 551, 561, 571, 581, 591, 601, 611, 621, 631, 1, 11]

// RACE: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on [[BUF:__wg_main_kernel_[0-9]+]]+4: thread (1,0,0) writes it (main_kernel: store float %{{.*}}, ptr addrspace(3) %{{.*}}) and thread (0,0,0) read it (main_kernel: %{{.*}} = load float, ptr addrspace(3) %{{.*}}) in the same barrier interval, after barrier 1 of the block (main_kernel: barrier #1)
// RACE-NOT: error
// RACE-NOT: [21, 31, 41

// NOCHECK-NOT: error
// NOCHECK: sizes = [64]

func.func @main() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<64xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k64 = arith.constant 64 : index
    %ten = arith.constant 10.0 : f32
    %one = arith.constant 1.0 : f32
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %f10 = arith.mulf %f, %ten : f32
    %n0 = arith.addi %tx, %k1 : index
    %n = arith.remui %n0, %k64 : index
    memref.store %f10, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v1 = memref.load %buf[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier // BARRIER-B
    %v1p = arith.addf %v1, %one : f32
    memref.store %v1p, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v2 = memref.load %buf[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v2, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
