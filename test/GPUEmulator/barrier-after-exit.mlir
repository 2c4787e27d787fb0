// A tree reduction over 64 values in shared memory: at each step s = 32,
// 16, ..., 1, threads t < s add buf[t + s] into buf[t], with a barrier
// between steps. Written correctly (@reduce), every thread reaches every
// barrier and out = 0 + 1 + ... + 63 = 2016. The common mistake
// (@reduce_barrier_in_branch) puts the barrier inside the `t < s` branch:
// threads 32-63 leave the loop's work at once and exit, so the first
// barrier would never open on a GPU. The emulator reports it as barrier
// divergence (a barrier is not opened for the threads that reached it
// while others of the block have exited), and runs nothing further.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: ssd-runner %t.mlir --entry-point=reduce \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s
// RUN: not ssd-runner %t.mlir --entry-point=reduce_barrier_in_branch \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXITED

// CHECK-NOT: error
// CHECK: sizes = [1]
// CHECK-NEXT: [2016]

// EXITED: ssd-gpu-emulator: error: kernel reduce_barrier_in_branch_kernel block (0,0,0): barrier divergence: threads (0,0,0)-(31,0,0) wait at reduce_barrier_in_branch_kernel: barrier #2 but threads (32,0,0)-(63,0,0) exited without reaching it; the block would hang
// EXITED-NOT: error
// EXITED-NOT: 2016

func.func @reduce() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<1xf32>
  %d = gpu.alloc () : memref<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k6 = arith.constant 6 : index
    %k32 = arith.constant 32 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %step = %k0 to %k6 step %k1 {
      %s = arith.shrui %k32, %step : index
      %active = arith.cmpi ult, %tx, %s : index
      scf.if %active {
        %o = arith.addi %tx, %s : index
        %a = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o] : memref<64xf32, #gpu.address_space<workgroup>>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
    }
    %first = arith.cmpi eq, %tx, %k0 : index
    scf.if %first {
      %r = memref.load %buf[%k0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %r, %d[%k0] : memref<1xf32>
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<1xf32>, memref<1xf32>
  %u = memref.cast %h : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @reduce_barrier_in_branch() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<1xf32>
  %d = gpu.alloc () : memref<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k6 = arith.constant 6 : index
    %k32 = arith.constant 32 : index
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %step = %k0 to %k6 step %k1 {
      %s = arith.shrui %k32, %step : index
      %active = arith.cmpi ult, %tx, %s : index
      scf.if %active {
        %o = arith.addi %tx, %s : index
        %a = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o] : memref<64xf32, #gpu.address_space<workgroup>>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
        gpu.barrier
      }
    }
    %first = arith.cmpi eq, %tx, %k0 : index
    scf.if %first {
      %r = memref.load %buf[%k0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %r, %d[%k0] : memref<1xf32>
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<1xf32>, memref<1xf32>
  %u = memref.cast %h : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
