// State checkpoints through --ssd-to-cpu with values checked by hand, both
// forms. Every token has x = dt = 1, B = C = 1 and A = -ln 2, so each step
// halves the state and adds 1: from zero, the state after local token j is
// 2 - 2^-j (1, 1.5, 1.75, 1.875, 1.9375, 1.96875, 1.984375, 1.9921875).
// Interval 2, K = 3 columns, the pool's 12 slots start at -1 (N = 2 values
// each). The sequences:
//   0: 6 tokens, offset 1 (boundaries after j = 0, 2, 4: k = 0, 1, 2),
//      slots [3, -1, 5], update_state false: slot 3 = 1, k = 1 skipped,
//      slot 5 = 1.9375, its own slot 0 stays -1;
//   1: 8 tokens, offset 0 (boundaries after j = 1, 3, 5, 7: k = 0..3),
//      slots [1, 2, 4], writes slot 7: slot 1 = 1.5, 2 = 1.875, 4 = 1.96875,
//      k = 3 >= K not written, slot 7 = 1.9921875;
//   2: padding, 2 tokens, slots [8, -1, -1]: nothing written;
//   3: 1 token, offset 3 (holds 4 after it: boundary k = 0), slots
//      [9, -1, -1], writes slot 10: both 1 (the one-token path).
// With chunk size 4 the chunked form meets boundaries inside chunks
// (sequence 0's j = 0, 2, 4; sequence 1's j = 1, 5) and at chunk ends
// (sequence 1's j = 3, and j = 7, past K).
// TARGETS: cpu
// RUN: ssd-opt %s --ssd-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:     --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s

// The serial form, then the chunked one:
// CHECK:      sizes = [24]
// CHECK-NEXT: [-1,  -1,  1.5,  1.5,  1.875,  1.875,  1,  1,  1.96875,  1.96875,  1.9375,  1.9375,  -1,  -1,  1.99219,  1.99219,  -1,  -1,  1,  1,  1,  1,  -1,  -1]
// CHECK:      sizes = [24]
// CHECK-NEXT: [-1,  -1,  1.5,  1.5,  1.875,  1.875,  1,  1,  1.96875,  1.96875,  1.9375,  1.9375,  -1,  -1,  1.99219,  1.99219,  -1,  -1,  1,  1,  1,  1,  -1,  -1]

!tok = memref<17x1x1xf32>
!bc = memref<17x1x2xf32>
!pool = memref<12x1x1x2xf32>

memref.global "private" constant @qsl : memref<5xi32> = dense<[0, 6, 14, 16, 17]>
memref.global "private" constant @ci : memref<4xi32> = dense<[0, 7, -1, 10]>
memref.global "private" constant @upd : memref<4xi1> = dense<[false, true, true, true]>
memref.global "private" constant @cs : memref<4x3xi32> =
    dense<[[3, -1, 5], [1, 2, 4], [8, -1, -1], [9, -1, -1]]>
memref.global "private" constant @co : memref<4xi32> = dense<[1, 0, 0, 3]>

func.func @serial(%x: !tok, %dt: memref<17x1xf32>, %A: memref<1xf32>, %B: !bc, %pool: !pool,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %upd: memref<4xi1>, %cs: memref<4x3xi32>,
    %co: memref<4xi32>, %y: !tok) {
  ssd.chunk_scan_varlen x(%x : !tok) dt(%dt : memref<17x1xf32>) A(%A : memref<1xf32>)
      B(%B : !bc) C(%B : !bc) ssm_pool(%pool : !pool)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<4xi32>)
      update_state(%upd : memref<4xi1>) checkpoint_slots(%cs : memref<4x3xi32>)
      checkpoint_offsets(%co : memref<4xi32>) checkpoint_interval(2)
      outs(%y : !tok) {form = #ssd<form serial>}
  return
}

func.func @chunked(%x: !tok, %dt: memref<17x1xf32>, %A: memref<1xf32>, %B: !bc, %pool: !pool,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %upd: memref<4xi1>, %cs: memref<4x3xi32>,
    %co: memref<4xi32>, %y: !tok) {
  ssd.chunk_scan_varlen x(%x : !tok) dt(%dt : memref<17x1xf32>) A(%A : memref<1xf32>)
      B(%B : !bc) C(%B : !bc) ssm_pool(%pool : !pool)
      query_start_loc(%qsl : memref<5xi32>) cache_indices(%ci : memref<4xi32>)
      update_state(%upd : memref<4xi1>) checkpoint_slots(%cs : memref<4x3xi32>)
      checkpoint_offsets(%co : memref<4xi32>) checkpoint_interval(2)
      outs(%y : !tok) {form = #ssd<form chunked>, chunk_size = 4}
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// Fills the buffers, runs one form and prints the pool.
func.func @run(%form: index) {
  %c0 = arith.constant 0 : index
  %minus1 = arith.constant -1.0 : f32
  %one = arith.constant 1.0 : f32
  %x = memref.alloc() : !tok
  linalg.fill ins(%one : f32) outs(%x : !tok)
  %dt = memref.alloc() : memref<17x1xf32>
  linalg.fill ins(%one : f32) outs(%dt : memref<17x1xf32>)
  %A = memref.alloc() : memref<1xf32>
  %a = arith.constant -0.693147182 : f32
  linalg.fill ins(%a : f32) outs(%A : memref<1xf32>)
  %B = memref.alloc() : !bc
  linalg.fill ins(%one : f32) outs(%B : !bc)
  %pool = memref.alloc() : !pool
  linalg.fill ins(%minus1 : f32) outs(%pool : !pool)
  %y = memref.alloc() : !tok
  %qsl = memref.get_global @qsl : memref<5xi32>
  %ci = memref.get_global @ci : memref<4xi32>
  %upd = memref.get_global @upd : memref<4xi1>
  %cs = memref.get_global @cs : memref<4x3xi32>
  %co = memref.get_global @co : memref<4xi32>
  %isSerial = arith.cmpi eq, %form, %c0 : index
  scf.if %isSerial {
    func.call @serial(%x, %dt, %A, %B, %pool, %qsl, %ci, %upd, %cs, %co, %y)
        : (!tok, memref<17x1xf32>, memref<1xf32>, !bc, !pool, memref<5xi32>, memref<4xi32>,
           memref<4xi1>, memref<4x3xi32>, memref<4xi32>, !tok) -> ()
  } else {
    func.call @chunked(%x, %dt, %A, %B, %pool, %qsl, %ci, %upd, %cs, %co, %y)
        : (!tok, memref<17x1xf32>, memref<1xf32>, !bc, !pool, memref<5xi32>, memref<4xi32>,
           memref<4xi1>, memref<4x3xi32>, memref<4xi32>, !tok) -> ()
  }
  %flat = memref.collapse_shape %pool [[0, 1, 2, 3]] : !pool into memref<24xf32>
  %pu = memref.cast %flat : memref<24xf32> to memref<*xf32>
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
