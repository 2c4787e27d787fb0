// RUN: ssd-opt %s -ssd-device-allocs | FileCheck %s

// Host allocations (what bufferization creates) move to the device; those
// inside kernels and stack allocations stay.

// CHECK-LABEL: func.func @host_buffers
// CHECK-SAME:    (%[[T:.*]]: index)
// CHECK:         %[[Y:.*]] = gpu.alloc  (%[[T]]) : memref<?x4xbf16>
// CHECK:         %[[S:.*]] = gpu.alloc  () : memref<16xf32>
// CHECK:         memref.alloca() : memref<4xf32>
// CHECK:         gpu.launch
// CHECK:           memref.alloc() : memref<8xf32>
// CHECK:           memref.dealloc %{{.*}} : memref<8xf32>
// CHECK:         gpu.dealloc  %[[S]] : memref<16xf32>
// CHECK:         return %[[Y]]
// CHECK-NOT:     memref.dealloc
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
