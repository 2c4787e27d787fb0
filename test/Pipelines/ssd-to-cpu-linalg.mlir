// The scan between two elementwise linalg.generic ops, as a mixer holds it:
// --ssd-to-cpu lowers all of it, the result exports to LLVM IR, and runs,
// with and without OpenMP.
// RUN: ssd-opt %s --ssd-to-cpu | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: ssd-opt %s --ssd-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s
// RUN: ssd-opt %s --ssd-to-cpu="openmp=false" | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// LLVMIR: define {{.*}} @scan_between(

// One sequence of three tokens, one head, P = N = 1, dt = 1, B = C = 1 and
// A = -ln 2, so each step halves the state and adds 2x:
//   x      = 1, 2, 3
//   2x     = 2, 4, 6            (linalg.generic before the scan)
//   state  = 2, 1 + 4 = 5, 2.5 + 6 = 8.5 = y
//   y + 1  = 3, 6, 9.5          (linalg.generic after the scan)
// and the pool slot ends at the final state 8.5.
// CHECK:      sizes = [3, 1, 1]
// CHECK-NEXT: {{^\[\[\[3\]\],}}
// CHECK-NEXT: {{^ \[\[6\]\],}}
// CHECK-NEXT: {{^ \[\[9.5\]\]\]}}
// CHECK:      sizes = [1, 1, 1, 1]
// CHECK-NEXT: {{^\[\[\[\[8.5\]\]\]\]}}

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @scan_between(%x: tensor<3x1x1xf32>, %dt: tensor<3x1xf32>, %A: tensor<1xf32>,
    %B: tensor<3x1x1xf32>, %C: tensor<3x1x1xf32>, %pool: memref<1x1x1x1xf32>,
    %qsl: tensor<2xi32>, %ci: tensor<1xi32>) -> tensor<3x1x1xf32> {
  %e = tensor.empty() : tensor<3x1x1xf32>
  %x2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<3x1x1xf32>) outs(%e : tensor<3x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<3x1x1xf32>
  %y = ssd.chunk_scan_varlen x(%x2 : tensor<3x1x1xf32>) dt(%dt : tensor<3x1xf32>) A(%A : tensor<1xf32>)
      B(%B : tensor<3x1x1xf32>) C(%C : tensor<3x1x1xf32>) ssm_pool(%pool : memref<1x1x1x1xf32>)
      query_start_loc(%qsl : tensor<2xi32>) cache_indices(%ci : tensor<1xi32>) -> tensor<3x1x1xf32>
  %y1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y : tensor<3x1x1xf32>) outs(%e : tensor<3x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %a, %one : f32
    linalg.yield %r : f32
  } -> tensor<3x1x1xf32>
  return %y1 : tensor<3x1x1xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x = arith.constant dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>
  %dt = arith.constant dense<1.0> : tensor<3x1xf32>
  %A = arith.constant dense<-0.693147182> : tensor<1xf32>
  %B = arith.constant dense<1.0> : tensor<3x1x1xf32>
  %qsl = arith.constant dense<[0, 3]> : tensor<2xi32>
  %ci = arith.constant dense<0> : tensor<1xi32>
  %pool = memref.alloca() : memref<1x1x1x1xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%pool : memref<1x1x1x1xf32>)
  %y = call @scan_between(%x, %dt, %A, %B, %B, %pool, %qsl, %ci)
      : (tensor<3x1x1xf32>, tensor<3x1xf32>, tensor<1xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>,
         memref<1x1x1x1xf32>, tensor<2xi32>, tensor<1xi32>) -> tensor<3x1x1xf32>
  %ym = bufferization.to_buffer %y : tensor<3x1x1xf32> to memref<3x1x1xf32>
  %yu = memref.cast %ym : memref<3x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  %pu = memref.cast %pool : memref<1x1x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  return
}
