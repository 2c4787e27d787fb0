// RUN: ssd-opt %s -ssd-device-allocs -split-input-file | FileCheck %s

// Host allocations (what bufferization creates) move to the device; those
// inside kernels and stack allocations stay.

// Every line of the function is pinned (CHECK-NEXT): no host memref.alloc or
// memref.dealloc may remain or appear anywhere, not just where a CHECK-NOT
// happens to look.
// CHECK-LABEL: func.func @host_buffers
// CHECK-SAME:    (%[[T:.*]]: index)
// CHECK-NEXT:    %[[Y:.*]] = gpu.alloc  (%[[T]]) : memref<?x4xbf16>
// CHECK-NEXT:    %[[S:.*]] = gpu.alloc  () : memref<16xf32>
// CHECK-NEXT:    memref.alloca() : memref<4xf32>
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    gpu.launch
// CHECK-NEXT:      %[[K:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:      memref.dealloc %[[K]] : memref<8xf32>
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.dealloc  %[[S]] : memref<16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @host_buffers(%t: index) -> memref<?x4xbf16> {
  %y = memref.alloc(%t) : memref<?x4xbf16>
  %s = memref.alloc() : memref<16xf32>
  %a = memref.alloca() : memref<4xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k = memref.alloc() : memref<8xf32>
    memref.dealloc %k : memref<8xf32>
    gpu.terminator
  }
  memref.dealloc %s : memref<16xf32>
  return %y : memref<?x4xbf16>
}

// -----

// Copies between dense buffers become one device-to-device gpu.memcpy.

// CHECK-LABEL: func.func @copy_dense
// CHECK-SAME:    (%[[A:.*]]: memref<?x4xf32>, %[[T:.*]]: index)
// CHECK:         %[[B:.*]] = gpu.alloc  (%[[T]]) : memref<?x4xf32>
// CHECK-NOT:     memref.copy
// CHECK:         gpu.memcpy  %[[B]], %[[A]] : memref<?x4xf32>, memref<?x4xf32>
// CHECK-NOT:     memref.copy
// CHECK:         return %[[B]]
func.func @copy_dense(%a: memref<?x4xf32>, %t: index) -> memref<?x4xf32> {
  %b = memref.alloc(%t) : memref<?x4xf32>
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  return %b : memref<?x4xf32>
}

// -----

// What bufferization makes of a tensor-form scan whose form is chosen at run
// time: the scf.if yields its fresh buffers behind a fully dynamic layout,
// and y is copied out of it. Both branches yield identity-layout buffers,
// so the copy is a gpu.memcpy of the buffer reinterpreted with its identity
// layout (gpu-to-llvm lowers gpu.memcpy only on identity layouts).

// CHECK-LABEL: func.func @copy_from_branches
// CHECK-SAME:    (%[[C:.*]]: i1, %[[T:.*]]: index)
// CHECK:         %[[IF:.*]] = scf.if %[[C]]
// CHECK:         } else {
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[OUT:.*]] = gpu.alloc  (%[[T]]) : memref<?x80x64xbf16>
// CHECK-NOT:     memref.copy
// CHECK:         %[[DENSE:.*]] = memref.reinterpret_cast %[[IF]] to offset: [0], sizes: [%{{.*}}, 80, 64], strides: [5120, 64, 1] : memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>> to memref<?x80x64xbf16>
// CHECK-NEXT:    gpu.memcpy  %[[OUT]], %[[DENSE]] : memref<?x80x64xbf16>, memref<?x80x64xbf16>
// CHECK-NOT:     memref.copy
// CHECK:         return %[[OUT]]
func.func @copy_from_branches(%c: i1, %t: index) -> memref<?x80x64xbf16> {
  %r = scf.if %c -> (memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>>) {
    %a = memref.alloc(%t) : memref<?x80x64xbf16>
    %ca = memref.cast %a : memref<?x80x64xbf16> to memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>>
    scf.yield %ca : memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>>
  } else {
    %b = memref.alloc(%t) : memref<?x80x64xbf16>
    %cb = memref.cast %b : memref<?x80x64xbf16> to memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>>
    scf.yield %cb : memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>>
  }
  %out = memref.alloc(%t) : memref<?x80x64xbf16>
  memref.copy %r, %out : memref<?x80x64xbf16, strided<[?, ?, ?], offset: ?>> to memref<?x80x64xbf16>
  return %out : memref<?x80x64xbf16>
}

// -----

// A strided layout that spells out the identity layout is dense too.

// CHECK-LABEL: func.func @copy_static_strided
// CHECK-SAME:    (%[[A:.*]]: memref<4x8xf32, strided<[8, 1]>>, %[[B:.*]]: memref<4x8xf32>)
// CHECK:         %[[DENSE:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [4, 8], strides: [8, 1]
// CHECK-NEXT:    gpu.memcpy  %[[B]], %[[DENSE]] : memref<4x8xf32>, memref<4x8xf32>
func.func @copy_static_strided(%a: memref<4x8xf32, strided<[8, 1]>>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32>
  return
}

// -----

// A strided view (columns 2..5 of each row) is no single memcpy: a copy
// kernel with one thread per element, its indices delinearized from the
// thread's linear id, at least one block.

// CHECK-LABEL: func.func @copy_strided_view
// CHECK-SAME:    (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<8x4xf32>)
// CHECK:         %[[VIEW:.*]] = memref.subview %[[A]]
// CHECK-NOT:     memref.copy
// CHECK-NOT:     gpu.memcpy
// CHECK:         %[[D0:.*]] = memref.dim %[[VIEW]], %c0
// CHECK:         %[[D1:.*]] = memref.dim %[[VIEW]], %c1
// CHECK:         %[[N:.*]] = arith.muli %[[D0]], %[[D1]]
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[N]], %[[C256:.*]] : index
// CHECK:         %[[GRID:.*]] = arith.maxui %[[BLOCKS]], %{{.*}} : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:           %[[I:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[N]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[J:.*]] = arith.remui %[[I]], %[[D1]] : index
// CHECK:             %[[K:.*]] = arith.divui %[[I]], %[[D1]] : index
// CHECK:             %[[V:.*]] = memref.load %[[VIEW]][%[[K]], %[[J]]]
// CHECK:             memref.store %[[V]], %[[B]][%[[K]], %[[J]]]
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @copy_strided_view(%a: memref<8x16xf32>, %b: memref<8x4xf32>) {
  %view = memref.subview %a[0, 2] [8, 4] [1, 1] : memref<8x16xf32> to memref<8x4xf32, strided<[16, 1], offset: 2>>
  memref.copy %view, %b : memref<8x4xf32, strided<[16, 1], offset: 2>> to memref<8x4xf32>
  return
}

// -----

// A contiguous buffer at an unknown offset is not dense from its base (which
// is what gpu.memcpy copies from): a copy kernel. Copies inside kernels stay.

// CHECK-LABEL: func.func @copy_offset
// CHECK-NOT:     gpu.memcpy
// CHECK:         gpu.launch
// CHECK:           memref.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>>
// CHECK:         gpu.launch
// CHECK:           memref.copy
// CHECK-NOT:     gpu.memcpy
// CHECK:         return
func.func @copy_offset(%a: memref<?xf32, strided<[1], offset: ?>>, %b: memref<?xf32>) {
  memref.copy %a, %b : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.copy %a, %b : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Constants (A, D, dt_bias held as arith.constant by a graph compiler)
// bufferize to host globals. Each global gets one device copy per function,
// made at the start of the entry block (dominating the use nested in the
// scf.if) and freed before every return.

memref.global "private" constant @A : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @D : memref<4xf32> = dense<0.5>

// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %[[HOST_A:.*]] = memref.get_global @A : memref<4xf32>
// CHECK-NEXT:    %[[DEV_A:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy  %[[DEV_A]], %[[HOST_A]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    %[[HOST_D:.*]] = memref.get_global @D : memref<4xf32>
// CHECK-NEXT:    %[[DEV_D:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy  %[[DEV_D]], %[[HOST_D]] : memref<4xf32>, memref<4xf32>
// CHECK-NOT:     memref.get_global
// CHECK:         gpu.launch
// CHECK:           memref.load %[[DEV_A]]
// CHECK:           memref.load %[[DEV_D]]
// CHECK:         scf.if
// CHECK:           gpu.launch
// CHECK:             memref.load %[[DEV_A]]
// CHECK-NOT:     memref.get_global
// CHECK:         cf.cond_br %{{.*}}, ^[[EXIT:.*]], ^[[EARLY:.*]]
// CHECK-NEXT:  ^[[EARLY]]:
// CHECK-NEXT:    gpu.dealloc  %[[DEV_A]] : memref<4xf32>
// CHECK-NEXT:    gpu.dealloc  %[[DEV_D]] : memref<4xf32>
// CHECK-NEXT:    return
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    gpu.dealloc  %[[DEV_A]] : memref<4xf32>
// CHECK-NEXT:    gpu.dealloc  %[[DEV_D]] : memref<4xf32>
// CHECK-NEXT:    return
func.func @constants(%out: memref<4xf32>, %c: i1) {
  %c1 = arith.constant 1 : index
  %a = memref.get_global @A : memref<4xf32>
  %d = memref.get_global @D : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %va = memref.load %a[%tx] : memref<4xf32>
    %vd = memref.load %d[%tx] : memref<4xf32>
    %s = arith.addf %va, %vd : f32
    memref.store %s, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  scf.if %c {
    %a2 = memref.get_global @A : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %va = memref.load %a2[%tx] : memref<4xf32>
      memref.store %va, %out[%tx] : memref<4xf32>
      gpu.terminator
    }
  }
  cf.cond_br %c, ^exit, ^early
^early:
  return
^exit:
  return
}

// -----

// A device copy the function returns belongs to the caller: not freed. A
// mutable global gets the device contents back before the return. An unused
// get_global is left alone.

memref.global "private" constant @table : memref<8xi32> = dense<7>
memref.global "private" @counter : memref<1xi32> = dense<0>

// CHECK-LABEL: func.func @escaping_and_mutable
// CHECK-NEXT:    %[[HOST_T:.*]] = memref.get_global @table : memref<8xi32>
// CHECK-NEXT:    %[[DEV_T:.*]] = gpu.alloc  () : memref<8xi32>
// CHECK-NEXT:    gpu.memcpy  %[[DEV_T]], %[[HOST_T]]
// CHECK-NEXT:    %[[HOST_C:.*]] = memref.get_global @counter : memref<1xi32>
// CHECK-NEXT:    %[[DEV_C:.*]] = gpu.alloc  () : memref<1xi32>
// CHECK-NEXT:    gpu.memcpy  %[[DEV_C]], %[[HOST_C]]
// CHECK-NOT:     memref.get_global
// CHECK:         memref.get_global @A_unused
// CHECK-NEXT:    %[[VIEW:.*]] = memref.cast %[[DEV_T]]
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[DEV_C]]
// CHECK:         gpu.terminator
// CHECK-NOT:     gpu.dealloc  %[[DEV_T]]
// CHECK:         gpu.memcpy  %[[HOST_C]], %[[DEV_C]] : memref<1xi32>, memref<1xi32>
// CHECK-NEXT:    gpu.dealloc  %[[DEV_C]] : memref<1xi32>
// CHECK-NOT:     gpu.dealloc  %[[DEV_T]]
// CHECK-NEXT:    return %[[VIEW]]
memref.global "private" constant @A_unused : memref<4xf32> = dense<0.0>
func.func @escaping_and_mutable() -> memref<?xi32> {
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table : memref<8xi32>
  %n = memref.get_global @counter : memref<1xi32>
  %unused = memref.get_global @A_unused : memref<4xf32>
  %view = memref.cast %t : memref<8xi32> to memref<?xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%tx] : memref<8xi32>
    memref.store %v, %n[%tx] : memref<1xi32>
    gpu.terminator
  }
  return %view : memref<?xi32>
}
