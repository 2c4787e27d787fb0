// cp.async staging of a row of f32 values, independent of the tensor-core
// kernel of cp-async.mlir: each of 64 threads copies 16 bytes (4 floats) of
// src[i] = i to shared memory with cp.async, commits, waits for its group,
// and after a barrier reads its left neighbour's first float:
//   out[t] = src[4 ((t + 63) % 64)] = 4 ((t + 63) % 64).
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: ssd-runner %t.mlir --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s
//
// cp.async requires both addresses aligned to its cp-size: one float past
// the start of src (4 bytes past a 16-byte boundary), then of the buffer (shared
// offset 4), is an error when the copy is issued.
// RUN: sed -e 's/constant 0 : index \/\/ SRC-SHIFT/constant 1 : index/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SRC
// SRC: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (0,0,0) executes cp.async of 16 bytes from device address {{[0-9]+}}, not aligned to 16 bytes (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.cg.shared.global.16({{.*}}))
// SRC-NOT: error
// RUN: sed -e 's/constant 0 : index \/\/ DST-SHIFT/constant 1 : index/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DST
// DST: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (0,0,0) executes cp.async of 16 bytes to shared offset 4, not aligned to 16 bytes (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.cg.shared.global.16({{.*}}))
// DST-NOT: error
//
// Without the wait, the copies are still in flight at the barrier: thread
// 0 reads float 252 (byte 1008), which thread 63 copies.
// RUN: sed -e '/WAIT/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_0+1008: thread (0,0,0) reads it (main_kernel: %{{.*}} = load float, ptr addrspace(3) %{{.*}}) while the cp.async of thread (63,0,0) (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.cg.shared.global.16({{.*}})) that writes it is in flight: no cp.async.wait_group of thread (63,0,0) has covered it, after barrier 1 of the block (main_kernel: barrier #1)
// NOWAIT-NOT: error
//
// Without the barrier, the copy (a write of thread 0 at its wait) and
// thread 1's read of the same word fall in one barrier interval: a read
// after a write.
// RUN: sed -e '/BARRIER/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOBARRIER
// NOBARRIER: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): shared-memory race on __wg_main_kernel_0+0: thread (1,0,0) reads it (main_kernel: %{{.*}} = load float, ptr addrspace(3) %{{.*}}) and thread (0,0,0) wrote it (main_kernel: {{(tail )?}}call void @llvm.nvvm.cp.async.cg.shared.global.16({{.*}})) in the same barrier interval, between the start of the block and the first barrier
// NOBARRIER-NOT: error

// CHECK-NOT: error
// CHECK: sizes = [64]
// CHECK-NEXT: [252, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144, 148, 152, 156, 160, 164, 168, 172, 176, 180, 184, 188, 192, 196, 200, 204, 208, 212, 216, 220, 224, 228, 232, 236, 240, 244, 248]

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c260 = arith.constant 260 : index
  %hs = memref.alloc() : memref<260xf32>
  scf.for %i = %c0 to %c260 step %c1 {
    %vi = arith.index_cast %i : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    memref.store %vf, %hs[%i] : memref<260xf32>
  }
  %src = gpu.alloc () : memref<260xf32>
  %d = gpu.alloc () : memref<64xf32>
  gpu.memcpy %src, %hs : memref<260xf32>, memref<260xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<260xf32, #gpu.address_space<workgroup>>) {
    %k4 = arith.constant 4 : index
    %k63 = arith.constant 63 : index
    %k64 = arith.constant 64 : index
    %srcshift = arith.constant 0 : index // SRC-SHIFT
    %dstshift = arith.constant 0 : index // DST-SHIFT
    %mine = arith.muli %tx, %k4 : index
    %from = arith.addi %mine, %srcshift : index
    %to = arith.addi %mine, %dstshift : index
    %tok = nvgpu.device_async_copy %src[%from], %buf[%to], 4 {bypassL1} : memref<260xf32> to memref<260xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %tok
    nvgpu.device_async_wait %g {numGroups = 0 : i32} // WAIT
    gpu.barrier // BARRIER
    %l0 = arith.addi %tx, %k63 : index
    %l1 = arith.remui %l0, %k64 : index
    %l = arith.muli %l1, %k4 : index
    %v = memref.load %buf[%l] : memref<260xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<64xf32>
  gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
  %u = memref.cast %h : memref<64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
