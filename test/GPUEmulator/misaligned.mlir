// Every global and shared access is checked against the alignment it
// promises (the LLVM `align` the NVPTX backend relies on: a GPU faults on
// a vector access at an address that is not a multiple of its size). Each
// entry point has thread 0 access element 1 of an f32 buffer, 4 bytes past
// a 16-byte boundary:
//  - global_pair: an 8-byte pair store (st.global.v2.b32, as the chunked
//    form writes pool pairs) at an address 4 mod 8;
//  - global_vector: a 16-byte vector load (ld.global.v4.b32);
//  - shared_vector: a 16-byte vector store to shared memory at offset 4.
// The same accesses at element 4 run clean (aligned).
//
// At opt-level=0: the kernels' LLVM optimization (the GPU's, which the
// emulator runs first) would remove stores that nothing reads, and merge
// or sink others, and these kernels are about exactly the accesses written.
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator=opt-level=0 > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=global_pair \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PAIR
// RUN: not ssd-runner %t.mlir --entry-point=global_vector \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VECTOR
// RUN: not ssd-runner %t.mlir --entry-point=shared_vector \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHARED
// RUN: ssd-runner %t.mlir --entry-point=aligned \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALIGNED

// PAIR: ssd-gpu-emulator: error: kernel global_pair_kernel block (0,0,0): thread (0,0,0) writes 8 bytes at device address {{[0-9]+}} (0x{{[0-9a-f]*}}4), misaligned: the access requires 8-byte alignment (global_pair_kernel: store <2 x float> {{.*}}, align 8)
// PAIR-NOT: error

// VECTOR: ssd-gpu-emulator: error: kernel global_vector_kernel block (0,0,0): thread (0,0,0) reads 16 bytes at device address {{[0-9]+}} (0x{{[0-9a-f]*}}4), misaligned: the access requires 16-byte alignment (global_vector_kernel: %{{.*}} = load <4 x float>, ptr {{.*}}, align 16)
// VECTOR-NOT: error

// SHARED: ssd-gpu-emulator: error: kernel shared_vector_kernel block (0,0,0): thread (0,0,0) writes 16 bytes at shared offset 4 ({{.*}}+4), misaligned: the access requires 16-byte alignment (shared_vector_kernel: store <4 x float> {{.*}}, align 16)
// SHARED-NOT: error

// ALIGNED-NOT: error
// ALIGNED: [7, 7, 7, 7, 7, 7, 7, 7]

func.func @global_pair() {
  %c1 = arith.constant 1 : index
  %buf = gpu.alloc () : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k1 = arith.constant 1 : index
    %v = arith.constant dense<1.0> : vector<2xf32>
    vector.store %v, %buf[%k1] {alignment = 8} : memref<8xf32>, vector<2xf32>
    gpu.terminator
  }
  return
}

func.func @global_vector() {
  %c1 = arith.constant 1 : index
  %buf = gpu.alloc () : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %v = vector.load %buf[%k1] {alignment = 16} : memref<8xf32>, vector<4xf32>
    vector.store %v, %buf[%k0] {alignment = 16} : memref<8xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

func.func @shared_vector() {
  %c1 = arith.constant 1 : index
  %buf = gpu.alloc () : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<8xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    vector.store %v, %sh[%k1] {alignment = 16} : memref<8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @aligned() {
  %c1 = arith.constant 1 : index
  %buf = gpu.alloc () : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<8xf32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k4 = arith.constant 4 : index
    %v = arith.constant dense<7.0> : vector<4xf32>
    %p = arith.constant dense<7.0> : vector<2xf32>
    vector.store %v, %sh[%k4] {alignment = 16} : memref<8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %s = vector.load %sh[%k4] {alignment = 16} : memref<8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %s, %buf[%k0] {alignment = 16} : memref<8xf32>, vector<4xf32>
    vector.store %p, %buf[%k4] {alignment = 8} : memref<8xf32>, vector<2xf32>
    %w = vector.load %buf[%k4] {alignment = 8} : memref<8xf32>, vector<2xf32>
    %k6 = arith.constant 6 : index
    vector.store %w, %buf[%k6] {alignment = 8} : memref<8xf32>, vector<2xf32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<8xf32>
  gpu.memcpy %h, %buf : memref<8xf32>, memref<8xf32>
  %u = memref.cast %h : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
