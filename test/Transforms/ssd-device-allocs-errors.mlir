// RUN: ssd-opt %s -ssd-device-allocs -split-input-file -verify-diagnostics

// A global whose layout is not the identity cannot be mirrored by gpu.alloc
// and gpu.memcpy (both need the identity layout).

memref.global "private" constant @strided : memref<4xf32, strided<[2]>> = dense<1.0>

func.func @strided_global(%out: memref<4xf32, strided<[2]>>) {
  // expected-error @+1 {{ssd-device-allocs: cannot place global @strided on the device: its type 'memref<4xf32, strided<[2]>>' has a non-identity layout}}
  %g = memref.get_global @strided : memref<4xf32, strided<[2]>>
  memref.copy %g, %out : memref<4xf32, strided<[2]>> to memref<4xf32, strided<[2]>>
  return
}

// -----

func.func @unranked_copy(%a: memref<*xf32>, %b: memref<*xf32>) {
  // expected-error @+1 {{ssd-device-allocs: cannot copy an unranked memref on the device (its rank fixes the copy)}}
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
