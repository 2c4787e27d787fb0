// The CPU loops serve any strided view (docs/overview.md, Layouts): x at an
// element offset of 1, B with rows 9 elements apart at offset 3, and the
// pool at a dynamic offset of 1, through --ssd-to-cpu, in both forms.
// RUN: ssd-opt %s --ssd-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s

// One sequence of three tokens, one head, P = 1, N = 8, dt = 1, B = C = 1,
// A = -ln 2: each step halves the state and adds x, so every state column
// runs 1, 2.5, 4.25 and y = 8 x that: 8, 20, 34; the pool slot ends at
// 4.25. The elements around the views stay as they were (-1).
// The serial form, then the chunked one:
// CHECK:      sizes = [3]
// CHECK-NEXT: [8,  20,  34]
// CHECK:      sizes = [10]
// CHECK-NEXT: [-1,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  -1]
// CHECK:      sizes = [3]
// CHECK-NEXT: [8,  20,  34]
// CHECK:      sizes = [10]
// CHECK-NEXT: [-1,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  4.25,  -1]

!x = memref<3x1x1xf32, strided<[1, 1, 1], offset: 1>>
!b = memref<3x1x8xf32, strided<[9, 8, 1], offset: 3>>
!pool = memref<1x1x1x8xf32, strided<[8, 8, 8, 1], offset: ?>>

func.func @serial(%x: !x, %dt: memref<3x1xf32>, %A: memref<1xf32>, %B: !b, %pool: !pool,
    %qsl: memref<2xi32>, %ci: memref<1xi32>, %y: memref<3x1x1xf32>) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : memref<3x1xf32>) A(%A : memref<1xf32>)
      B(%B : !b) C(%B : !b) ssm_pool(%pool : !pool)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      outs(%y : memref<3x1x1xf32>) {form = #ssd<form serial>}
  return
}

func.func @chunked(%x: !x, %dt: memref<3x1xf32>, %A: memref<1xf32>, %B: !b, %pool: !pool,
    %qsl: memref<2xi32>, %ci: memref<1xi32>, %y: memref<3x1x1xf32>) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : memref<3x1xf32>) A(%A : memref<1xf32>)
      B(%B : !b) C(%B : !b) ssm_pool(%pool : !pool)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      outs(%y : memref<3x1x1xf32>) {form = #ssd<form chunked>, chunk_size = 2}
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// Fills the buffers, runs `scan` and prints y and the pool's buffer.
func.func @run(%form: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %minus1 = arith.constant -1.0 : f32
  %one = arith.constant 1.0 : f32
  %xs = memref.alloc() : memref<4xf32>
  linalg.fill ins(%minus1 : f32) outs(%xs : memref<4xf32>)
  scf.for %t = %c0 to %c3 step %c1 {
    %i = arith.addi %t, %c1 : index
    %ti = arith.index_cast %i : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    memref.store %tf, %xs[%i] : memref<4xf32>
  }
  %x = memref.reinterpret_cast %xs to offset: [1], sizes: [3, 1, 1], strides: [1, 1, 1]
      : memref<4xf32> to !x
  %bs = memref.alloc() : memref<30xf32>
  linalg.fill ins(%minus1 : f32) outs(%bs : memref<30xf32>)
  %b = memref.reinterpret_cast %bs to offset: [3], sizes: [3, 1, 8], strides: [9, 8, 1]
      : memref<30xf32> to !b
  linalg.fill ins(%one : f32) outs(%b : !b)
  %ps = memref.alloc() : memref<10xf32>
  linalg.fill ins(%minus1 : f32) outs(%ps : memref<10xf32>)
  %pool = memref.reinterpret_cast %ps to offset: [%c1], sizes: [1, 1, 1, 8], strides: [8, 8, 8, 1]
      : memref<10xf32> to !pool
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%pool : !pool)
  %dt = memref.alloc() : memref<3x1xf32>
  linalg.fill ins(%one : f32) outs(%dt : memref<3x1xf32>)
  %A = memref.alloc() : memref<1xf32>
  %a = arith.constant -0.693147182 : f32
  linalg.fill ins(%a : f32) outs(%A : memref<1xf32>)
  %qsl = memref.alloc() : memref<2xi32>
  %i0 = arith.constant 0 : i32
  %i3 = arith.constant 3 : i32
  memref.store %i0, %qsl[%c0] : memref<2xi32>
  memref.store %i3, %qsl[%c1] : memref<2xi32>
  %ci = memref.alloc() : memref<1xi32>
  memref.store %i0, %ci[%c0] : memref<1xi32>
  %y = memref.alloc() : memref<3x1x1xf32>
  %isSerial = arith.cmpi eq, %form, %c0 : index
  scf.if %isSerial {
    func.call @serial(%x, %dt, %A, %b, %pool, %qsl, %ci, %y)
        : (!x, memref<3x1xf32>, memref<1xf32>, !b, !pool, memref<2xi32>, memref<1xi32>,
           memref<3x1x1xf32>) -> ()
  } else {
    func.call @chunked(%x, %dt, %A, %b, %pool, %qsl, %ci, %y)
        : (!x, memref<3x1xf32>, memref<1xf32>, !b, !pool, memref<2xi32>, memref<1xi32>,
           memref<3x1x1xf32>) -> ()
  }
  %yf = memref.collapse_shape %y [[0, 1, 2]] : memref<3x1x1xf32> into memref<3xf32>
  %yu = memref.cast %yf : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  %pu = memref.cast %ps : memref<10xf32> to memref<*xf32>
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  call @run(%c0) : (index) -> ()
  call @run(%c1) : (index) -> ()
  return
}
