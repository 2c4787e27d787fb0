// bar.warp.sync orders the memory accesses of the threads it synchronises
// (PTX ISA, bar.warp.sync), so a shared-memory exchange inside one warp
// needs no block barrier. The race check knows it for a bar.warp.sync of
// the whole warp, and only within that warp:
//  - (ORDERED) 32 threads write buf[l] = l, __syncwarp, read
//    v = buf[(l + 1) % 32] = (l + 1) % 32, __syncwarp, write buf[l] = 10 v
//    (over words the other lanes have read), __syncwarp, read
//    out[l] = buf[(l + 1) % 32] = 10 ((l + 2) % 32): runs clean;
//  - (UNORDERED) the same without the first __syncwarp: lane 0 reads buf[1]
//    and lane 1 then writes it in the same interval: a race;
//  - (ACROSS) 64 threads exchange across the warp boundary with only
//    __syncwarp: thread 31 reads buf[32], which warp 1 wrote: a race;
//  - (OTHERWARP) threads 0 and 32 read buf[0], then thread 0 writes it after
//    a __syncwarp of its own warp: the report names thread 32, whose read
//    nothing orders before the write.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: ssd-runner %t.mlir --entry-point=ordered \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ORDERED
// RUN: sed -e '/FIRST-SYNC/d' %s | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --entry-point=ordered \
// RUN:       --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNORDERED
// RUN: not ssd-runner %t.mlir --entry-point=across_warps \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ACROSS
// RUN: not ssd-runner %t.mlir --entry-point=reader_of_other_warp \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHERWARP

// ORDERED-NOT: error
// ORDERED: [20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270, 280, 290, 300, 310, 0, 10]

// UNORDERED: ssd-gpu-emulator: error: kernel ordered_kernel block (0,0,0): shared-memory race on __wg_ordered_kernel_{{[0-9]+}}+4: thread (1,0,0) writes it (ordered_kernel: store float {{.*}}) and thread (0,0,0) read it (ordered_kernel: %{{.*}} = load float{{.*}}) in the same barrier interval, between the start of the block and the first barrier
// UNORDERED-NOT: error

// Which of the two accesses comes first depends on the order the fibers run
// in; either way both threads and both accesses are named.
// ACROSS: ssd-gpu-emulator: error: kernel across_warps_kernel block (0,0,0): shared-memory race on __wg_across_warps_kernel_{{[0-9]+}}+128: thread ({{31|32}},0,0) {{reads|writes}} it (across_warps_kernel: {{%.* = load float|store float}}{{.*}}) and thread ({{31|32}},0,0) {{wrote|read}} it (across_warps_kernel: {{%.* = load float|store float}}{{.*}}) in the same barrier interval
// ACROSS-NOT: error

// OTHERWARP: ssd-gpu-emulator: error: kernel reader_of_other_warp_kernel block (0,0,0): shared-memory race on __wg_reader_of_other_warp_kernel_{{[0-9]+}}+0: thread (0,0,0) writes it (reader_of_other_warp_kernel: store float {{.*}}) and thread (32,0,0) read it (reader_of_other_warp_kernel: %{{.*}} = load float{{.*}}) in the same barrier interval
// OTHERWARP-NOT: error

func.func @ordered() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %h = memref.alloc() : memref<32xf32>
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<32xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k32 = arith.constant 32 : index
    %m1 = arith.constant -1 : i32
    %ten = arith.constant 10.0 : f32
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %n0 = arith.addi %tx, %k1 : index
    %n = arith.remui %n0, %k32 : index
    memref.store %f, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %m1 : i32 // FIRST-SYNC
    %v = memref.load %buf[%n] : memref<32xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %m1 : i32
    %v10 = arith.mulf %v, %ten : f32
    memref.store %v10, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %m1 : i32
    %w = memref.load %buf[%n] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<32xf32>, memref<32xf32>
  %u = memref.cast %h : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @across_warps() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k64 = arith.constant 64 : index
    %m1 = arith.constant -1 : i32
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %n0 = arith.addi %tx, %k1 : index
    %n = arith.remui %n0, %k64 : index
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %m1 : i32
    %v = memref.load %buf[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

func.func @reader_of_other_warp() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %m1 = arith.constant -1 : i32
    %one = arith.constant 1.0 : f32
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %first = arith.cmpi eq, %tx, %k0 : index
    %second = arith.cmpi eq, %tx, %k32 : index
    %low = arith.cmpi ult, %tx, %k32 : index
    scf.if %low {
      scf.if %first {
        %v = memref.load %buf[%k0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %v, %d[%tx] : memref<64xf32>
      }
      nvvm.bar.warp.sync %m1 : i32
      scf.if %first {
        memref.store %one, %buf[%k0] : memref<64xf32, #gpu.address_space<workgroup>>
      }
    } else {
      scf.if %second {
        %v = memref.load %buf[%k0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %v, %d[%tx] : memref<64xf32>
      }
    }
    gpu.terminator
  }
  return
}
func.func private @printMemrefF32(memref<*xf32>)
