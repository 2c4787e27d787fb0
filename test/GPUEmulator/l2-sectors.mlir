// The cost model's L2 rule works on 32-byte sectors, as a sectored L2
// holds them: a read of the sector a launch wrote before is an L2 hit, a
// read of another sector of the same 128-byte line is still a DRAM read.
// One thread stores %d[0] (sector 0), then loads %d[8] (sector 1, same
// line: a DRAM read) and %d[0] (an L2 hit). With the rule kept per line,
// both loads would be L2 hits and no DRAM read would be counted.
// At opt-level=0: the kernels' LLVM optimization (the GPU's, which the
// emulator runs first) would forward the store to the load of %d[0].
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator=opt-level=0 > %t.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// CHECK: [7,  0,  0,  0,  0,  0,  0,  0,  12,
// CHECK: kernel main_kernel: launches 1 blocks 1 threads 1 warps 1
// CHECK: dram: read sectors 1 written sectors 2 (96 bytes)
// CHECK-NEXT: l2: read sectors 1 written earlier in the launch (32 bytes)

func.func @main() {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<32xi32>
  %d = gpu.alloc () : memref<32xi32>
  gpu.memset %d, %zero : memref<32xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k8 = arith.constant 8 : index
    %seven = arith.constant 7 : i32
    memref.store %seven, %d[%k0] : memref<32xi32>
    %other = memref.load %d[%k8] : memref<32xi32>
    %same = memref.load %d[%k0] : memref<32xi32>
    %five = arith.constant 5 : i32
    %sum = arith.addi %other, %same : i32
    %total = arith.addi %sum, %five : i32
    memref.store %total, %d[%k8] : memref<32xi32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<32xi32>, memref<32xi32>
  %u = memref.cast %h : memref<32xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
