// Memory accesses as the GPU makes them: NVPTX's code generator runs LLVM's
// load-store vectorizer before instruction selection, so adjacent scalar
// accesses that the default pipeline leaves become one ld.v2/ld.v4, and
// the emulator runs the same pass before it instruments the kernels
// (docs/gpu.md, "The GPU emulator").
//
// Kernel 1: each lane loads a vector<2xf32> (8-byte aligned) and uses both
// elements alone. The default pipeline splits such a load into two scalar
// loads; the vectorizer merges them again, so the warp makes one 256-byte
// load over 8 whole sectors, where two loads would count 16 half-used ones.
//
// Kernel 2: each lane reads the first three words of its own 16-byte group
// of shared memory; the vectorizer reads them with one v4 load whose last
// lane is unused (llvm.masked.load). The emulator checks its enabled
// lanes, at the vector's alignment: the next lane writes the unused fourth
// word of this group in the same barrier interval, which is no race, and
// is reported as none.
//
// Kernel 3: kernel 2 with a gap inside the vector: each lane reads words
// 0, 1 and 3 of its group (mask 1101) while the previous lane writes word
// 2. Each run of enabled lanes is checked apart (words 0-1, then 3), so
// no race, and the cost counters see two accesses of 8 and 4 bytes a lane.
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: ssd-runner %t.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s

// CHECK: [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61, 65, 69, 73, 77, 81, 85, 89, 93, 97, 101, 105, 109, 113, 117, 121, 125]
// CHECK-NEXT: Unranked
// CHECK-NEXT: [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]
// CHECK-NEXT: Unranked
// CHECK-NEXT: [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]
// CHECK-NOT: race
// CHECK: kernel main_kernel: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 0 warp-collectives 0
// CHECK-NEXT:   global.load: instructions 1 bytes 256 sectors 8 (8.00 per instruction)
// CHECK: kernel main_kernel_0: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 1 warp-collectives 0
// CHECK-NEXT:   shared.load: instructions 1 bytes 384 wavefronts 4
// CHECK: kernel main_kernel_1: launches 1 blocks 1 threads 32 warps 1
// CHECK-NEXT:   sync: barriers 1 warp-collectives 0
// CHECK-NEXT:   shared.load: instructions 2 bytes 384 wavefronts

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %hin = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %hin[%i] : memref<64xf32>
  }
  %in = gpu.alloc () : memref<64xf32>
  gpu.memcpy %in, %hin : memref<64xf32>, memref<64xf32>
  %pairs = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k2 = arith.constant 2 : index
    %i = arith.muli %tx, %k2 : index
    %v = vector.load %in[%i] {alignment = 8} : memref<64xf32>, vector<2xf32>
    %a = vector.extract %v[0] : f32 from vector<2xf32>
    %b = vector.extract %v[1] : f32 from vector<2xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %pairs[%tx] : memref<32xf32>
    gpu.terminator
  }

  %triples = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<128xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %i0 = arith.muli %tx, %k4 : index
    %i1 = arith.addi %i0, %k1 : index
    %i2 = arith.addi %i0, %k2 : index
    %ones = vector.broadcast %one : f32 to vector<4xf32>
    vector.store %ones, %buf[%i0] {alignment = 16}
        : memref<128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.barrier
    %a = memref.load %buf[%i0] : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.load %buf[%i1] : memref<128xf32, #gpu.address_space<workgroup>>
    %c = memref.load %buf[%i2] : memref<128xf32, #gpu.address_space<workgroup>>
    %ab = arith.addf %a, %b : f32
    %s = arith.addf %ab, %c : f32
    // The fourth word of the next lane's group, which that lane's v4 load
    // covers but does not use.
    %next = arith.addi %tx, %k1 : index
    %nextLane = arith.remui %next, %k32 : index
    %j0 = arith.muli %nextLane, %k4 : index
    %j3 = arith.addi %j0, %k3 : index
    memref.store %s, %buf[%j3] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %s, %triples[%tx] : memref<32xf32>
    gpu.terminator
  }

  %gapped = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<128xf32, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %i0 = arith.muli %tx, %k4 : index
    %i1 = arith.addi %i0, %k1 : index
    %i3 = arith.addi %i0, %k3 : index
    %ones = vector.broadcast %one : f32 to vector<4xf32>
    vector.store %ones, %buf[%i0] {alignment = 16}
        : memref<128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.barrier
    %a = memref.load %buf[%i0] : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.load %buf[%i1] : memref<128xf32, #gpu.address_space<workgroup>>
    %d = memref.load %buf[%i3] : memref<128xf32, #gpu.address_space<workgroup>>
    %ab = arith.addf %a, %b : f32
    %s = arith.addf %ab, %d : f32
    // The third word of the next lane's group, inside that lane's v4 load.
    %next = arith.addi %tx, %k1 : index
    %nextLane = arith.remui %next, %k32 : index
    %j0 = arith.muli %nextLane, %k4 : index
    %j2 = arith.addi %j0, %k2 : index
    memref.store %s, %buf[%j2] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %s, %gapped[%tx] : memref<32xf32>
    gpu.terminator
  }

  %hpairs = memref.alloc() : memref<32xf32>
  %htriples = memref.alloc() : memref<32xf32>
  gpu.memcpy %hpairs, %pairs : memref<32xf32>, memref<32xf32>
  gpu.memcpy %htriples, %triples : memref<32xf32>, memref<32xf32>
  %up = memref.cast %hpairs : memref<32xf32> to memref<*xf32>
  %ut = memref.cast %htriples : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%up) : (memref<*xf32>) -> ()
  call @printMemrefF32(%ut) : (memref<*xf32>) -> ()
  %hgapped = memref.alloc() : memref<32xf32>
  gpu.memcpy %hgapped, %gapped : memref<32xf32>, memref<32xf32>
  %ug = memref.cast %hgapped : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%ug) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
