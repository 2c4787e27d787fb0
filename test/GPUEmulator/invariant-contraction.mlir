// Kernels named ssd_scan_invariant* (ssd-lower-to-gpu's invariant kernels)
// promise the roundings they are written with: the emulator's target
// refuses one in which NVPTX would fuse a multiply and an add (a pair that
// both carry `contract`), naming the kernel and how many pairs it would
// fuse.
//
// As written, the kernel's only fma is llvm.intr.fma and its other product
// and sum are unflagged: it compiles and runs, two roundings for a * b + c
// (0; fma-contraction.mlir has the numbers) and one for the fma (2^-24).
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator | ssd-runner --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// CHECK: [0, 864026624]
//
// With the product and the sum marked contract, the same kernel is refused;
// a kernel with another name is not (fma-contraction.mlir).
// RUN: sed -e 's/arith.mulf %x, %y :/arith.mulf %x, %y fastmath<contract> :/' -e 's/arith.addf %xy, %z :/arith.addf %xy, %z fastmath<contract> :/' %s \
// RUN:   | not ssd-opt --ssd-gpu-lower-to-emulator 2>&1 | FileCheck %s --check-prefix=FUSED
// FUSED: error: gpu emulator: invariant kernel 'ssd_scan_invariant' has 1 contractable multiply-add(s), which NVPTX would fuse into fma (the invariant arithmetic rounds each product as written)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // a = b = 1 + 2^-12 = 0x3f800800, c = -(1 + 2^-11) = 0xbf801000.
  %a = arith.constant 1065355264 : i32
  %c = arith.constant -1082126336 : i32
  %hin = memref.alloc() : memref<3xi32>
  memref.store %a, %hin[%c0] : memref<3xi32>
  memref.store %a, %hin[%c1] : memref<3xi32>
  memref.store %c, %hin[%c2] : memref<3xi32>
  %d = gpu.alloc () : memref<3xi32>
  gpu.memcpy %d, %hin : memref<3xi32>, memref<3xi32>
  %o = gpu.alloc () : memref<2xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             function(@ssd_scan_invariant) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %ai = memref.load %d[%k0] : memref<3xi32>
    %bi = memref.load %d[%k1] : memref<3xi32>
    %ci = memref.load %d[%k2] : memref<3xi32>
    %x = arith.bitcast %ai : i32 to f32
    %y = arith.bitcast %bi : i32 to f32
    %z = arith.bitcast %ci : i32 to f32
    %xy = arith.mulf %x, %y : f32
    %r0 = arith.addf %xy, %z : f32
    %r1 = llvm.intr.fma(%x, %y, %z) : (f32, f32, f32) -> f32
    %o0 = arith.bitcast %r0 : f32 to i32
    %o1 = arith.bitcast %r1 : f32 to i32
    memref.store %o0, %o[%k0] : memref<2xi32>
    memref.store %o1, %o[%k1] : memref<2xi32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<2xi32>
  gpu.memcpy %h, %o : memref<2xi32>, memref<2xi32>
  %u = memref.cast %h : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
