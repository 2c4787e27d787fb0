// The layout check of host code from ssd-lower-to-gpu (docs/overview.md,
// Layouts): the chunked kernels copy x in 16-byte pieces (cp.async), so
// before the first launch of a call the host code checks x's start address
// (aligned pointer + offset x 2 bytes) and its dynamic strides against 16
// bytes. A view the kernels cannot serve ends the call with one line naming
// the operand, the address or stride and the alignment, and no kernel runs.
// x is [T, H, P] = [4, 2, 64] (two heads, so that the head dimension's
// stride is checked too, not only the rows'):
//  - x_offset_1: a view at a dynamic bf16 element offset of 1 (the
//    reproducer of issue 18, which used to kill the process with SIGSEGV);
//  - x_pointer_2: a view whose aligned pointer itself is 2 bytes past a
//    16-byte boundary (memref.view at byte shift 2), offset 0;
//  - x_row_stride: rows 130 elements (260 bytes) apart;
//  - x_head_stride: heads 65 elements (130 bytes) apart, rows 136 (272
//    bytes, a multiple of 16) apart.
// The dense view at an offset of 8 elements (16 bytes), and a view with
// heads 72 elements (144 bytes) and rows 144 apart, run: one sequence of 4
// tokens, x = dt = B = C = 1 and A = 0, so the state after token t is t
// everywhere and y = 64 t in both heads. (After an error the program goes on, and prints a y that
// no copy filled: the emulator skips every later launch and copy; its cost
// counters show that no kernel ran a block.)
//
// RUN: ssd-opt %s --ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu | ssd-opt --ssd-gpu-lower-to-emulator > %t.mlir
// RUN: not ssd-runner %t.mlir --entry-point=x_offset_1 --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=OFFSET,NONE
// RUN: not ssd-runner %t.mlir --entry-point=x_pointer_2 --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=OFFSET,NONE
// RUN: not ssd-runner %t.mlir --entry-point=x_row_stride --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=STRIDE,NONE
// RUN: not ssd-runner %t.mlir --entry-point=x_head_stride --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=HEAD-STRIDE,NONE
// RUN: ssd-runner %t.mlir --entry-point=x_offset_8 --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=ALIGNED,LAUNCHED
// RUN: ssd-runner %t.mlir --entry-point=x_head_stride_72 --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=ALIGNED,LAUNCHED

// OFFSET: ssd-gpu-emulator: error: ssd-lower-to-gpu layout check: operand 'x' starts at device address 0x{{[0-9a-f]*}}2 (aligned pointer + offset x element bytes), not 16-byte aligned as its GPU kernels access it; no kernel of the call ran
// OFFSET-NOT: error

// STRIDE: ssd-gpu-emulator: error: ssd-lower-to-gpu layout check: operand 'x' has a stride of 260 bytes in dimension 0, not a multiple of 16 bytes as its GPU kernels access it; no kernel of the call ran
// STRIDE-NOT: error

// HEAD-STRIDE: ssd-gpu-emulator: error: ssd-lower-to-gpu layout check: operand 'x' has a stride of 130 bytes in dimension 1, not a multiple of 16 bytes as its GPU kernels access it; no kernel of the call ran
// HEAD-STRIDE-NOT: error

// The cost counters list the device memsets of @run (no blocks) and no
// kernel that ran a block.
// NONE: emulator costs:
// NONE-NOT: blocks {{[1-9]}}

// ALIGNED-NOT: error
// ALIGNED:      [64{{(, 64)*}}]
// ALIGNED-NEXT: [128{{(, 128)*}}]
// ALIGNED-NEXT: [192{{(, 192)*}}]
// ALIGNED-NEXT: [256{{(, 256)*}}]
// LAUNCHED: emulator costs:
// LAUNCHED: kernel {{.*}}: launches 1 blocks {{[1-9]}}

!x = memref<?x2x64xbf16, strided<[?, ?, 1], offset: ?>>

func.func @scan(%x: !x, %dt: memref<?x2xbf16>, %A: memref<2xbf16>,
    %B: memref<?x1x64xbf16>, %pool: memref<?x2x64x64xf32>, %qsl: memref<?xi32>,
    %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : !x) dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>) ssm_pool(%pool : memref<?x2x64x64xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// Runs @scan on x (device memory) with the other operands set up as above,
// and prints y, one row per token (head 0, then head 1).
func.func @run(%x: !x) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : bf16
  %zero = arith.constant 0.0 : bf16
  %zero32 = arith.constant 0.0 : f32
  %dt = gpu.alloc () : memref<4x2xbf16>
  %A = gpu.alloc () : memref<2xbf16>
  %B = gpu.alloc () : memref<4x1x64xbf16>
  %pool = gpu.alloc () : memref<1x2x64x64xf32>
  %y = gpu.alloc () : memref<4x2x64xbf16>
  gpu.memset %dt, %one : memref<4x2xbf16>, bf16
  gpu.memset %A, %zero : memref<2xbf16>, bf16
  gpu.memset %B, %one : memref<4x1x64xbf16>, bf16
  gpu.memset %pool, %zero32 : memref<1x2x64x64xf32>, f32
  %hqsl = memref.alloc() : memref<2xi32>
  %hci = memref.alloc() : memref<1xi32>
  %i0 = arith.constant 0 : i32
  %i4 = arith.constant 4 : i32
  memref.store %i0, %hqsl[%c0] : memref<2xi32>
  memref.store %i4, %hqsl[%c1] : memref<2xi32>
  memref.store %i0, %hci[%c0] : memref<1xi32>
  %qsl = gpu.alloc () : memref<2xi32>
  %ci = gpu.alloc () : memref<1xi32>
  gpu.memcpy %qsl, %hqsl : memref<2xi32>, memref<2xi32>
  gpu.memcpy %ci, %hci : memref<1xi32>, memref<1xi32>
  %dtd = memref.cast %dt : memref<4x2xbf16> to memref<?x2xbf16>
  %Bd = memref.cast %B : memref<4x1x64xbf16> to memref<?x1x64xbf16>
  %poold = memref.cast %pool : memref<1x2x64x64xf32> to memref<?x2x64x64xf32>
  %qsld = memref.cast %qsl : memref<2xi32> to memref<?xi32>
  %cid = memref.cast %ci : memref<1xi32> to memref<?xi32>
  %yd = memref.cast %y : memref<4x2x64xbf16> to memref<?x2x64xbf16>
  call @scan(%x, %dtd, %A, %Bd, %poold, %qsld, %cid, %yd)
      : (!x, memref<?x2xbf16>, memref<2xbf16>, memref<?x1x64xbf16>, memref<?x2x64x64xf32>,
         memref<?xi32>, memref<?xi32>, memref<?x2x64xbf16>) -> ()
  %hy = memref.alloc() : memref<4x2x64xbf16>
  gpu.memcpy %hy, %y : memref<4x2x64xbf16>, memref<4x2x64xbf16>
  %print = memref.alloc() : memref<4x128xf32>
  scf.for %t = %c0 to %c4 step %c1 {
    scf.for %h = %c0 to %c2 step %c1 {
      scf.for %p = %c0 to %c64 step %c1 {
        %v = memref.load %hy[%t, %h, %p] : memref<4x2x64xbf16>
        %f = arith.extf %v : bf16 to f32
        %hp = arith.muli %h, %c64 : index
        %column = arith.addi %hp, %p : index
        memref.store %f, %print[%t, %column] : memref<4x128xf32>
      }
    }
  }
  %u = memref.cast %print : memref<4x128xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// x at element `offset` of a device buffer of 1024 bf16 ones, rows
// `rowStride` and heads `headStride` elements apart.
func.func @view(%offset: index, %rowStride: index, %headStride: index) -> !x {
  %one = arith.constant 1.0 : bf16
  %buffer = gpu.alloc () : memref<1024xbf16>
  gpu.memset %buffer, %one : memref<1024xbf16>, bf16
  %view = memref.reinterpret_cast %buffer to offset: [%offset], sizes: [4, 2, 64],
      strides: [%rowStride, %headStride, 1] : memref<1024xbf16> to !x
  return %view : !x
}

func.func @x_offset_1() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %x = call @view(%c1, %c128, %c64) : (index, index, index) -> !x
  call @run(%x) : (!x) -> ()
  return
}

func.func @x_offset_8() {
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %x = call @view(%c8, %c128, %c64) : (index, index, index) -> !x
  call @run(%x) : (!x) -> ()
  return
}

func.func @x_row_stride() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c130 = arith.constant 130 : index
  %x = call @view(%c0, %c130, %c64) : (index, index, index) -> !x
  call @run(%x) : (!x) -> ()
  return
}

func.func @x_head_stride() {
  %c0 = arith.constant 0 : index
  %c65 = arith.constant 65 : index
  %c136 = arith.constant 136 : index
  %x = call @view(%c0, %c136, %c65) : (index, index, index) -> !x
  call @run(%x) : (!x) -> ()
  return
}

func.func @x_head_stride_72() {
  %c0 = arith.constant 0 : index
  %c72 = arith.constant 72 : index
  %c144 = arith.constant 144 : index
  %x = call @view(%c0, %c144, %c72) : (index, index, index) -> !x
  call @run(%x) : (!x) -> ()
  return
}

func.func @x_pointer_2() {
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : bf16
  %raw = gpu.alloc () : memref<1040xi8>
  %view = memref.view %raw[%c2][] : memref<1040xi8> to memref<4x2x64xbf16>
  gpu.memset %view, %one : memref<4x2x64xbf16>, bf16
  %x = memref.cast %view : memref<4x2x64xbf16> to !x
  call @run(%x) : (!x) -> ()
  return
}
