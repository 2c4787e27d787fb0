// What the emulator cannot run is a compile-time error of the
// #ssd.gpu_emulator_target serialization, naming the kernel and the
// operation, never a kernel that runs with something silently skipped.
//
// RUN: not ssd-opt %s --split-input-file --ssd-gpu-lower-to-emulator 2>&1 \
// RUN:   | FileCheck %s

// An NVVM op whose intrinsic the emulator does not model (cp.async
// completion tracked by an mbarrier; cp.async itself is modelled).
// CHECK: error: gpu emulator: the GPU emulator does not implement NVVM intrinsic llvm.nvvm.cp.async.mbarrier.arrive.shared (in kernel mbarrier_kernel)
func.func @mbarrier() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<2xi64, #gpu.address_space<workgroup>>) {
    %base = memref.extract_aligned_pointer_as_index %buf : memref<2xi64, #gpu.address_space<workgroup>> -> index
    %i = arith.index_cast %base : index to i64
    %p = llvm.inttoptr %i : i64 to !llvm.ptr<3>
    nvvm.cp.async.mbarrier.arrive %p : !llvm.ptr<3>
    gpu.terminator
  }
  return
}

// -----

// Another: redux.sync (a warp reduction the emulator does not implement).
// CHECK: error: gpu emulator: the GPU emulator does not implement NVVM intrinsic llvm.nvvm.redux.sync.add (in kernel redux_kernel)
func.func @redux() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %m = arith.constant -1 : i32
    %i = arith.index_cast %tx : index to i32
    %s = nvvm.redux.sync add %i, %m : i32 -> i32
    memref.store %s, %d[%tx] : memref<32xi32>
    gpu.terminator
  }
  return
}

// -----

// An NVVM op that lowers to inline PTX assembly (bar.arrive).
// CHECK: error: gpu emulator: kernel arrive_kernel contains inline PTX assembly, which the emulator cannot execute: "bar.arrive 0, $0;"
func.func @arrive() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %n = arith.constant 64 : i32
    nvvm.barrier.arrive number_of_threads = %n
    gpu.terminator
  }
  return
}

// -----

// More static shared memory than ptxas accepts (48 KB): 51200 bytes.
// CHECK: error: gpu emulator: kernel big_shared_kernel uses 51200 bytes of static shared memory, more than the 49152 that ptxas accepts (larger buffers must be dynamic shared memory)
func.func @big_shared() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<12800xf32, #gpu.address_space<workgroup>>) {
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %buf[%tx] : memref<12800xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %buf[%tx] : memref<12800xf32, #gpu.address_space<workgroup>>
    memref.store %v, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A call to a function that is neither in the kernel's module nor provided
// by the emulator.
// CHECK: error: gpu emulator: kernel external_call_kernel calls external function @host_helper, which the emulator does not provide
func.func private @host_helper(f32) -> f32
func.func @external_call() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = func.call @host_helper(%f) : (f32) -> f32
    memref.store %r, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A libdevice function the emulator does not provide (math.powf lowers to
// __nv_powf).
// CHECK: error: gpu emulator: kernel libdevice_kernel calls libdevice function __nv_powf, which the emulator does not provide
func.func @libdevice() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = math.powf %f, %f : f32
    memref.store %r, %d[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A masked load whose mask is only known at run time (the load-store
// vectorizer makes masked accesses with constant masks only, which the
// emulator checks up to the last enabled lane).
// CHECK: error: gpu emulator: kernel masked_kernel calls llvm.masked.load.v4f32.p0 with a mask that is not a constant, which the emulator does not check: {{.*}}llvm.masked.load
func.func @masked() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<128xf32>
  %o = gpu.alloc () : memref<128xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k4 = arith.constant 4 : index
    %i = arith.muli %tx, %k4 : index
    %lower = arith.cmpi ult, %tx, %k4 : index
    %mask = vector.broadcast %lower : i1 to vector<4xi1>
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %v = vector.maskedload %d[%i], %mask, %zero
        : memref<128xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    vector.store %v, %o[%i] : memref<128xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A masked load of sub-byte elements (the checks work on byte ranges, and
// a lane of 4 bits has none of its own).
// CHECK: error: gpu emulator: kernel subbyte_kernel calls llvm.masked.load.v8i4.p0 on elements of 4 bits, which the emulator does not check: {{.*}}llvm.masked.load
func.func @subbyte() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = gpu.alloc () : memref<256xi4>
  %o = gpu.alloc () : memref<256xi4>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k8 = arith.constant 8 : index
    %i = arith.muli %tx, %k8 : index
    %mask = arith.constant dense<[true, true, true, false, true, true, true, false]> : vector<8xi1>
    %zero = arith.constant dense<0> : vector<8xi4>
    %v = vector.maskedload %d[%i], %mask, %zero
        : memref<256xi4>, vector<8xi1>, vector<8xi4> into vector<8xi4>
    vector.store %v, %o[%i] : memref<256xi4>, vector<8xi4>
    gpu.terminator
  }
  return
}
