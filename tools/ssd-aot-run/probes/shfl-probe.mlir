// The GPU check's shuffle probe (scripts/gpu-check.sh; test/aot/probes.test):
// shfl.sync in all four modes (idx, up, down, bfly), each over the whole
// warp and within segments (the c operand's segment mask), with the source
// lane of idx taken per lane from the input, so that the emulator and the
// hardware can be compared bit for bit. Two warps of 32 threads.
//
//   in:  word tid: the value of thread tid; word 64 + tid: its idx source
//        lane (0-31)
//   out: for each case k (probes.py SHFL_CASES) and thread tid, words
//        2 (64 k + tid) and 2 (64 k + tid) + 1: the value received and the
//        predicate (1 when the source lane is in range)
//
//   ssd-compile --module shfl-probe.mlir --target cuda|gpu-emu -o shfl.o
//   RUNNER --call module:shfl_probe --input shfl.in --output shfl.out --output-bytes 4096
//
// The nvvm.shfl.sync ops are in internal llvm.funcs the kernel calls (see
// mma-probe.mlir for why).

llvm.func internal @shfl_idx(%v: i32, %b: i32, %c: i32) -> !llvm.struct<(i32, i1)> {
  %m = llvm.mlir.constant(-1 : i32) : i32
  %r = nvvm.shfl.sync idx %m, %v, %b, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  llvm.return %r : !llvm.struct<(i32, i1)>
}
llvm.func internal @shfl_up(%v: i32, %b: i32, %c: i32) -> !llvm.struct<(i32, i1)> {
  %m = llvm.mlir.constant(-1 : i32) : i32
  %r = nvvm.shfl.sync up %m, %v, %b, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  llvm.return %r : !llvm.struct<(i32, i1)>
}
llvm.func internal @shfl_down(%v: i32, %b: i32, %c: i32) -> !llvm.struct<(i32, i1)> {
  %m = llvm.mlir.constant(-1 : i32) : i32
  %r = nvvm.shfl.sync down %m, %v, %b, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  llvm.return %r : !llvm.struct<(i32, i1)>
}
llvm.func internal @shfl_bfly(%v: i32, %b: i32, %c: i32) -> !llvm.struct<(i32, i1)> {
  %m = llvm.mlir.constant(-1 : i32) : i32
  %r = nvvm.shfl.sync bfly %m, %v, %b, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  llvm.return %r : !llvm.struct<(i32, i1)>
}

func.func @shfl_probe(%in: memref<?xi32>, %out: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    %v = memref.load %in[%tx] : memref<?xi32>
    %si = arith.addi %tx, %k64 : index
    %src = memref.load %in[%si] : memref<?xi32>
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i5 = arith.constant 5 : i32
    %i17 = arith.constant 17 : i32
    %whole = arith.constant 0x1f : i32
    %seg8 = arith.constant 0x181f : i32
    %seg8c5 = arith.constant 0x1805 : i32
    %seg8up = arith.constant 0x1800 : i32
    %seg4 = arith.constant 0x1c1f : i32
    %zero = arith.constant 0 : i32
    // Case k writes out[2 (64 k + tid)] and the word after it.
    %o0 = arith.muli %tx, %k2 : index
    %r0 = llvm.call @shfl_idx(%v, %src, %whole) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r1 = llvm.call @shfl_idx(%v, %src, %seg8c5) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r2 = llvm.call @shfl_up(%v, %i3, %zero) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r3 = llvm.call @shfl_up(%v, %i2, %seg8up) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r4 = llvm.call @shfl_down(%v, %i5, %whole) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r5 = llvm.call @shfl_down(%v, %i3, %seg8) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r6 = llvm.call @shfl_bfly(%v, %i17, %whole) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %r7 = llvm.call @shfl_bfly(%v, %i5, %seg4) : (i32, i32, i32) -> !llvm.struct<(i32, i1)>
    %x0 = llvm.extractvalue %r0[0] : !llvm.struct<(i32, i1)>
    %x1 = llvm.extractvalue %r1[0] : !llvm.struct<(i32, i1)>
    %x2 = llvm.extractvalue %r2[0] : !llvm.struct<(i32, i1)>
    %x3 = llvm.extractvalue %r3[0] : !llvm.struct<(i32, i1)>
    %x4 = llvm.extractvalue %r4[0] : !llvm.struct<(i32, i1)>
    %x5 = llvm.extractvalue %r5[0] : !llvm.struct<(i32, i1)>
    %x6 = llvm.extractvalue %r6[0] : !llvm.struct<(i32, i1)>
    %x7 = llvm.extractvalue %r7[0] : !llvm.struct<(i32, i1)>
    %p0 = llvm.extractvalue %r0[1] : !llvm.struct<(i32, i1)>
    %p1 = llvm.extractvalue %r1[1] : !llvm.struct<(i32, i1)>
    %p2 = llvm.extractvalue %r2[1] : !llvm.struct<(i32, i1)>
    %p3 = llvm.extractvalue %r3[1] : !llvm.struct<(i32, i1)>
    %p4 = llvm.extractvalue %r4[1] : !llvm.struct<(i32, i1)>
    %p5 = llvm.extractvalue %r5[1] : !llvm.struct<(i32, i1)>
    %p6 = llvm.extractvalue %r6[1] : !llvm.struct<(i32, i1)>
    %p7 = llvm.extractvalue %r7[1] : !llvm.struct<(i32, i1)>
    %q0 = arith.extui %p0 : i1 to i32
    %q1 = arith.extui %p1 : i1 to i32
    %q2 = arith.extui %p2 : i1 to i32
    %q3 = arith.extui %p3 : i1 to i32
    %q4 = arith.extui %p4 : i1 to i32
    %q5 = arith.extui %p5 : i1 to i32
    %q6 = arith.extui %p6 : i1 to i32
    %q7 = arith.extui %p7 : i1 to i32
    %e0 = arith.addi %o0, %k128 : index
    %e1 = arith.addi %e0, %k128 : index
    %e2 = arith.addi %e1, %k128 : index
    %e3 = arith.addi %e2, %k128 : index
    %e4 = arith.addi %e3, %k128 : index
    %e5 = arith.addi %e4, %k128 : index
    %e6 = arith.addi %e5, %k128 : index
    %f0 = arith.addi %o0, %k1 : index
    %f1 = arith.addi %e0, %k1 : index
    %f2 = arith.addi %e1, %k1 : index
    %f3 = arith.addi %e2, %k1 : index
    %f4 = arith.addi %e3, %k1 : index
    %f5 = arith.addi %e4, %k1 : index
    %f6 = arith.addi %e5, %k1 : index
    %f7 = arith.addi %e6, %k1 : index
    memref.store %x0, %out[%o0] : memref<?xi32>
    memref.store %q0, %out[%f0] : memref<?xi32>
    memref.store %x1, %out[%e0] : memref<?xi32>
    memref.store %q1, %out[%f1] : memref<?xi32>
    memref.store %x2, %out[%e1] : memref<?xi32>
    memref.store %q2, %out[%f2] : memref<?xi32>
    memref.store %x3, %out[%e2] : memref<?xi32>
    memref.store %q3, %out[%f3] : memref<?xi32>
    memref.store %x4, %out[%e3] : memref<?xi32>
    memref.store %q4, %out[%f4] : memref<?xi32>
    memref.store %x5, %out[%e4] : memref<?xi32>
    memref.store %q5, %out[%f5] : memref<?xi32>
    memref.store %x6, %out[%e5] : memref<?xi32>
    memref.store %q6, %out[%f6] : memref<?xi32>
    memref.store %x7, %out[%e6] : memref<?xi32>
    memref.store %q7, %out[%f7] : memref<?xi32>
    gpu.terminator
  }
  return
}
