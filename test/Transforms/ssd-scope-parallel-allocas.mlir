// RUN: ssd-opt %s -ssd-scope-parallel-allocas -split-input-file | FileCheck %s

// A body that allocates: the stack pointer is saved first and restored
// last, so a sequential lowering frees each iteration's tile.
// CHECK-LABEL: func.func @tile_per_task
// CHECK:       scf.parallel
// CHECK-NEXT:    %[[STACK:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:    memref.alloca() : memref<64x128xf32>
// CHECK:         memref.store
// CHECK-NEXT:    llvm.intr.stackrestore %[[STACK]] : !llvm.ptr
// CHECK-NEXT:    scf.reduce
func.func @tile_per_task(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %tile = memref.alloca() : memref<64x128xf32>
    %v = memref.load %tile[%c0, %c0] : memref<64x128xf32>
    memref.store %v, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// Nothing on the stack: unchanged. An alloca inside a nested alloca_scope
// is already released there.
// CHECK-LABEL: func.func @nothing_to_release
// CHECK-NOT:   llvm.intr.stacksave
// CHECK:       return
func.func @nothing_to_release(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %out[%i] : memref<?xf32>
    memref.alloca_scope {
      %t = memref.alloca() : memref<16xf32>
      memref.store %f, %t[%c0] : memref<16xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Nested loops: only the loop whose own body allocates gets the save and
// restore (the inner scf.parallel is a scope of its own); a reduction's
// operands stay as they were.
// CHECK-LABEL: func.func @nested
// CHECK:       scf.parallel (%{{.*}}) = {{.*}} -> f32 {
// CHECK-NOT:     llvm.intr.stacksave
// CHECK:         scf.parallel
// CHECK-NEXT:      llvm.intr.stacksave
// CHECK-NEXT:      memref.alloca() : memref<8xf32>
// CHECK:           llvm.intr.stackrestore
// CHECK-NEXT:      scf.reduce
// CHECK:         scf.reduce(%{{.*}} : f32)
func.func @nested(%n: index, %out: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %t = memref.alloca() : memref<8xf32>
      %v = memref.load %t[%c0] : memref<8xf32>
      memref.store %v, %out[%j] : memref<?xf32>
      scf.reduce
    }
    %w = memref.load %out[%i] : memref<?xf32>
    scf.reduce(%w : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
