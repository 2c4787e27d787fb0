// dstate N = 0 (issue 23): no state has elements, so y = D x, in both forms,
// on the GPU emulator (both run the serial kernel, without its warp
// reduction) and on the CPU (the same module with host buffers), which agree.
// ssd-run refuses N = 0 in its input files, so this runs the op directly.
// RUN: ssd-opt %s --ssd-to-gpu-emulator | ssd-runner - \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s
// RUN: sed -e 's/gpu.alloc ()/memref.alloc()/' \
// RUN:     -e 's/gpu.memcpy \(%[a-z0-9]*\), \(%[a-z0-9]*\) : \([^,]*\), .*/memref.copy \2, \1 : \3 to \3/' %s \
// RUN:   | ssd-opt --ssd-to-cpu=openmp=false | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Two tokens of one sequence, H = 1, P = 2, D = 0.5: y = 0.5 x.
// CHECK-NOT: error
// CHECK:      [0.5,    1]],
// CHECK-NEXT: [1.5,    2]]]
// CHECK:      [0.5,    1]],
// CHECK-NEXT: [1.5,    2]]]

memref.global "private" constant @x : memref<2x1x2xf32> = dense<[[[1.0, 2.0]], [[3.0, 4.0]]]>
memref.global "private" constant @dt : memref<2x1xf32> = dense<[[0.5], [0.25]]>
memref.global "private" constant @A : memref<1xf32> = dense<[-1.0]>
memref.global "private" constant @D : memref<1xf32> = dense<[0.5]>
memref.global "private" constant @dt_bias : memref<1xf32> = dense<[0.0]>
memref.global "private" constant @qsl : memref<2xi32> = dense<[0, 2]>
memref.global "private" constant @ci : memref<1xi32> = dense<[0]>
memref.global "private" constant @init : memref<1xi1> = dense<[true]>

func.func @main() {
  %x = memref.get_global @x : memref<2x1x2xf32>
  %dt = memref.get_global @dt : memref<2x1xf32>
  %A = memref.get_global @A : memref<1xf32>
  %D = memref.get_global @D : memref<1xf32>
  %dt_bias = memref.get_global @dt_bias : memref<1xf32>
  %qsl = memref.get_global @qsl : memref<2xi32>
  %ci = memref.get_global @ci : memref<1xi32>
  %init = memref.get_global @init : memref<1xi1>
  %B = gpu.alloc () : memref<2x1x0xf32>
  %C = gpu.alloc () : memref<2x1x0xf32>
  %pool = gpu.alloc () : memref<1x1x2x0xf32>
  %y1 = gpu.alloc () : memref<2x1x2xf32>
  %y2 = gpu.alloc () : memref<2x1x2xf32>
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x0xf32>) C(%C : memref<2x1x0xf32>) D(%D : memref<1xf32>) dt_bias(%dt_bias : memref<1xf32>)
      ssm_pool(%pool : memref<1x1x2x0xf32>) query_start_loc(%qsl : memref<2xi32>) has_initial_state(%init : memref<1xi1>)
      cache_indices(%ci : memref<1xi32>) outs(%y1 : memref<2x1x2xf32>) {form = #ssd<form serial>}
  ssd.chunk_scan_varlen x(%x : memref<2x1x2xf32>) dt(%dt : memref<2x1xf32>) A(%A : memref<1xf32>)
      B(%B : memref<2x1x0xf32>) C(%C : memref<2x1x0xf32>) D(%D : memref<1xf32>) dt_bias(%dt_bias : memref<1xf32>)
      ssm_pool(%pool : memref<1x1x2x0xf32>) query_start_loc(%qsl : memref<2xi32>) has_initial_state(%init : memref<1xi1>)
      cache_indices(%ci : memref<1xi32>) outs(%y2 : memref<2x1x2xf32>) {form = #ssd<form chunked>, chunk_size = 64 : i64}
  %h1 = memref.alloca() : memref<2x1x2xf32>
  gpu.memcpy %h1, %y1 : memref<2x1x2xf32>, memref<2x1x2xf32>
  %u1 = memref.cast %h1 : memref<2x1x2xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %h2 = memref.alloca() : memref<2x1x2xf32>
  gpu.memcpy %h2, %y2 : memref<2x1x2xf32>, memref<2x1x2xf32>
  %u2 = memref.cast %h2 : memref<2x1x2xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
