// Multiply-adds as the GPU computes them (docs/gpu.md, "The GPU emulator"):
// NVPTX fuses an fmul and an fadd/fsub that both carry `contract` into one
// fma.rn.f32 (one rounding), and leaves unmarked ones as mul.rn + add.rn.
// The emulator fuses the same pairs into exact fmas, on any host CPU.
//
// a = b = 1 + 2^-12, so a * b = 1 + 2^-11 + 2^-24 exactly, which rounds to
// 1 + 2^-11 in f32 (a tie, to even); c = -(1 + 2^-11).
//   [0] a * b + c, contract:          fused, 2^-24 (0x33800000 = 864026624)
//   [1] a * b + c, no flags:          rounded twice, 0
//   [2] a * b - (-c), contract:       fused, 2^-24
//   [3] (-c) - a * b, contract:       fused, -2^-24 (0xb3800000 = -1283457024)
//   [4] a * b + c in f64, contract:   exact in f64 either way, 2^-24 as f32
// The unmarked case is a kernel of its own: in one kernel LLVM's CSE would
// merge its fmul with a marked one, dropping `contract` from both (on the
// GPU too: the emulator runs the GPU's optimization first).
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator | ssd-runner --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: [864026624, 0, 864026624, -1283457024, 864026624]

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // 1 + 2^-12 = 0x3f800800, -(1 + 2^-11) = 0xbf801000.
  %a = arith.constant 1065355264 : i32
  %c = arith.constant -1082126336 : i32
  %hin = memref.alloc() : memref<3xi32>
  memref.store %a, %hin[%c0] : memref<3xi32>
  memref.store %a, %hin[%c1] : memref<3xi32>
  memref.store %c, %hin[%c2] : memref<3xi32>
  %d = gpu.alloc () : memref<3xi32>
  gpu.memcpy %d, %hin : memref<3xi32>, memref<3xi32>
  %o = gpu.alloc () : memref<5xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %ai = memref.load %d[%k0] : memref<3xi32>
    %bi = memref.load %d[%k1] : memref<3xi32>
    %ci = memref.load %d[%k2] : memref<3xi32>
    %x = arith.bitcast %ai : i32 to f32
    %y = arith.bitcast %bi : i32 to f32
    %z = arith.bitcast %ci : i32 to f32
    %p0 = arith.mulf %x, %y fastmath<contract> : f32
    %r0 = arith.addf %p0, %z fastmath<contract> : f32
    %nz = arith.negf %z : f32
    %r2 = arith.subf %p0, %nz fastmath<contract> : f32
    %r3 = arith.subf %nz, %p0 fastmath<contract> : f32
    %xd = arith.extf %x : f32 to f64
    %yd = arith.extf %y : f32 to f64
    %zd = arith.extf %z : f32 to f64
    %p4 = arith.mulf %xd, %yd fastmath<contract> : f64
    %r4d = arith.addf %p4, %zd fastmath<contract> : f64
    %r4 = arith.truncf %r4d : f64 to f32
    %o0 = arith.bitcast %r0 : f32 to i32
    %o2 = arith.bitcast %r2 : f32 to i32
    %o3 = arith.bitcast %r3 : f32 to i32
    %o4 = arith.bitcast %r4 : f32 to i32
    memref.store %o0, %o[%k0] : memref<5xi32>
    memref.store %o2, %o[%k2] : memref<5xi32>
    memref.store %o3, %o[%k3] : memref<5xi32>
    memref.store %o4, %o[%k4] : memref<5xi32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %ai = memref.load %d[%k0] : memref<3xi32>
    %bi = memref.load %d[%k1] : memref<3xi32>
    %ci = memref.load %d[%k2] : memref<3xi32>
    %x = arith.bitcast %ai : i32 to f32
    %y = arith.bitcast %bi : i32 to f32
    %z = arith.bitcast %ci : i32 to f32
    %p1 = arith.mulf %x, %y : f32
    %r1 = arith.addf %p1, %z : f32
    %o1 = arith.bitcast %r1 : f32 to i32
    memref.store %o1, %o[%k1] : memref<5xi32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<5xi32>
  gpu.memcpy %h, %o : memref<5xi32>, memref<5xi32>
  %u = memref.cast %h : memref<5xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
