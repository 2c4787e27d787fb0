// The GPU check's mma probe (scripts/gpu-check.sh; test/aot/probes.test):
// one mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 per warp, two
// warps, every operand register taken as is from the input, so that the
// emulator and the hardware see the same registers and their results can be
// compared bit for bit.
//
//   in:  10 words per thread (64 threads): A registers 0-3 (two bf16 each,
//        the lower index in the low half), B registers 0-1, C elements 0-3
//        (f32 bits)
//   out: 4 words per thread: D elements 0-3 (f32 bits)
//
// probes.py writes inputs whose products and sums are exact in f32 (small
// integers, C with a half so that no result is zero), so that any order of
// accumulation gives the same bits, and computes the expected D from the
// PTX ISA's fragment tables.
//
//   ssd-compile --module mma-probe.mlir --target cuda|gpu-emu -o mma.o
//   RUNNER --call module:mma_probe --input mma.in --output mma.out --output-bytes 1024
//
// The nvvm.mma.sync is in an internal llvm.func that the kernel calls: the
// ssd pipeline's buffer deallocation rejects ops without memory effects
// (nvvm.mma.sync has none) in func.func bodies, and does not look into
// llvm.func. gpu-kernel-outlining copies it into the kernel's module (where
// it is inlined); ssd-compile drops the dead host copy.

llvm.func internal @probe_mma_bf16(%a0: i32, %a1: i32, %a2: i32, %a3: i32,
                                   %b0: i32, %b1: i32, %c0: f32, %c1: f32,
                                   %c2: f32, %c3: f32)
    -> !llvm.struct<(f32, f32, f32, f32)> {
  %d = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0, %c1, %c2, %c3]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       multiplicandAPtxType = #nvvm.mma_type<bf16>,
       multiplicandBPtxType = #nvvm.mma_type<bf16>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>}
      : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return %d : !llvm.struct<(f32, f32, f32, f32)>
}

func.func @mma_probe(%in: memref<?xi32>, %out: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k5 = arith.constant 5 : index
    %k6 = arith.constant 6 : index
    %k7 = arith.constant 7 : index
    %k8 = arith.constant 8 : index
    %k9 = arith.constant 9 : index
    %k10 = arith.constant 10 : index
    %base = arith.muli %tx, %k10 : index
    %i1 = arith.addi %base, %k1 : index
    %i2 = arith.addi %base, %k2 : index
    %i3 = arith.addi %base, %k3 : index
    %i4 = arith.addi %base, %k4 : index
    %i5 = arith.addi %base, %k5 : index
    %i6 = arith.addi %base, %k6 : index
    %i7 = arith.addi %base, %k7 : index
    %i8 = arith.addi %base, %k8 : index
    %i9 = arith.addi %base, %k9 : index
    %a0 = memref.load %in[%base] : memref<?xi32>
    %a1 = memref.load %in[%i1] : memref<?xi32>
    %a2 = memref.load %in[%i2] : memref<?xi32>
    %a3 = memref.load %in[%i3] : memref<?xi32>
    %b0 = memref.load %in[%i4] : memref<?xi32>
    %b1 = memref.load %in[%i5] : memref<?xi32>
    %c0w = memref.load %in[%i6] : memref<?xi32>
    %c1w = memref.load %in[%i7] : memref<?xi32>
    %c2w = memref.load %in[%i8] : memref<?xi32>
    %c3w = memref.load %in[%i9] : memref<?xi32>
    %c0v = arith.bitcast %c0w : i32 to f32
    %c1v = arith.bitcast %c1w : i32 to f32
    %c2v = arith.bitcast %c2w : i32 to f32
    %c3v = arith.bitcast %c3w : i32 to f32
    %d = llvm.call @probe_mma_bf16(%a0, %a1, %a2, %a3, %b0, %b1,
                                   %c0v, %c1v, %c2v, %c3v)
        : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32)
          -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %d[1] : !llvm.struct<(f32, f32, f32, f32)>
    %d2 = llvm.extractvalue %d[2] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %d[3] : !llvm.struct<(f32, f32, f32, f32)>
    %d0w = arith.bitcast %d0 : f32 to i32
    %d1w = arith.bitcast %d1 : f32 to i32
    %d2w = arith.bitcast %d2 : f32 to i32
    %d3w = arith.bitcast %d3 : f32 to i32
    %o0 = arith.muli %tx, %k4 : index
    %o1 = arith.addi %o0, %k1 : index
    %o2 = arith.addi %o0, %k2 : index
    %o3 = arith.addi %o0, %k3 : index
    memref.store %d0w, %out[%o0] : memref<?xi32>
    memref.store %d1w, %out[%o1] : memref<?xi32>
    memref.store %d2w, %out[%o2] : memref<?xi32>
    memref.store %d3w, %out[%o3] : memref<?xi32>
    gpu.terminator
  }
  return
}
