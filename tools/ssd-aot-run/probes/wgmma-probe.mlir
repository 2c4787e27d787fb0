// The GPU check's wgmma probe (scripts/gpu-check.sh; test/aot/probes.test):
// one warpgroup (128 threads) copies a 16 KB image of shared memory from its
// input, then runs wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 four
// times, with A K- or M-major and B K- or N-major (the instruction's
// imm-trans-a/b, which must be immediates: four instructions), each with
// its pair of matrix descriptors from the input and the same C, so that the
// emulator and the hardware decode the same descriptors over the same bytes
// and their results can be compared bit for bit. The descriptors choose the
// swizzle and the leading and stride byte offsets (probes.py picks a
// different swizzle for each operand of each case).
//
//   in:  words 0-4095      the shared-memory image (bf16 pairs)
//        words 4096-4111   per case: descriptor A (low, high word), then B;
//                          start addresses relative to the image, which the
//                          kernel moves to the image's shared address
//        words 4112-5135   C: 8 f32 per thread, the fragment layout of D
//   out: words 0-4095      D: per case, per thread, 8 f32
//        word 4096         the shared address of dynamic shared memory
//                          (low 32 bits): the image starts at the first
//                          1024-byte boundary in it (the 128-byte swizzle's
//                          pattern is a function of address bits 4-9), and
//                          whether a GPU places the buffer on one is worth
//                          knowing for the kernels
//
// probes.py writes small integers (every sum exact in f32, so any order of
// accumulation gives the same bits) and computes the expected D from the PTX
// ISA's canonical layouts, independently of the emulator.
//
//   ssd-compile --module wgmma-probe.mlir --chip sm_90a --target cuda|gpu-emu -o wgmma.o
//   RUNNER --call module:wgmma_probe --input wgmma.in --output wgmma.out --output-bytes 16400
//
// The wgmma ops are in internal llvm.funcs that the kernel calls, as in
// mma-probe.mlir: the ssd pipeline's buffer deallocation rejects ops without
// memory effects in func.func bodies (the barrier too).

// After the image's copy: each thread's stores made visible to wgmma's
// async proxy (fence.proxy.async), then the block barrier that orders them
// before every warp's reads.
llvm.func internal @probe_publish_image() {
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  nvvm.barrier0
  llvm.return
}

llvm.func internal @probe_wgmma_kk(%da: i64, %db: i64, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %c4: f32, %c5: f32, %c6: f32, %c7: f32)
    -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> {
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s0 = llvm.insertvalue %c0, %u[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s1 = llvm.insertvalue %c1, %s0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s2 = llvm.insertvalue %c2, %s1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s3 = llvm.insertvalue %c3, %s2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s4 = llvm.insertvalue %c4, %s3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s5 = llvm.insertvalue %c5, %s4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s6 = llvm.insertvalue %c6, %s5[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s7 = llvm.insertvalue %c7, %s6[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %da, %db, %s7, #nvvm.shape<m = 64, n = 16, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return %d : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
}

llvm.func internal @probe_wgmma_mk(%da: i64, %db: i64, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %c4: f32, %c5: f32, %c6: f32, %c7: f32)
    -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> {
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s0 = llvm.insertvalue %c0, %u[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s1 = llvm.insertvalue %c1, %s0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s2 = llvm.insertvalue %c2, %s1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s3 = llvm.insertvalue %c3, %s2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s4 = llvm.insertvalue %c4, %s3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s5 = llvm.insertvalue %c5, %s4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s6 = llvm.insertvalue %c6, %s5[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s7 = llvm.insertvalue %c7, %s6[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %da, %db, %s7, #nvvm.shape<m = 64, n = 16, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <col>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return %d : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
}

llvm.func internal @probe_wgmma_kn(%da: i64, %db: i64, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %c4: f32, %c5: f32, %c6: f32, %c7: f32)
    -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> {
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s0 = llvm.insertvalue %c0, %u[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s1 = llvm.insertvalue %c1, %s0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s2 = llvm.insertvalue %c2, %s1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s3 = llvm.insertvalue %c3, %s2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s4 = llvm.insertvalue %c4, %s3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s5 = llvm.insertvalue %c5, %s4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s6 = llvm.insertvalue %c6, %s5[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s7 = llvm.insertvalue %c7, %s6[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %da, %db, %s7, #nvvm.shape<m = 64, n = 16, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return %d : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
}

llvm.func internal @probe_wgmma_mn(%da: i64, %db: i64, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %c4: f32, %c5: f32, %c6: f32, %c7: f32)
    -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> {
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s0 = llvm.insertvalue %c0, %u[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s1 = llvm.insertvalue %c1, %s0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s2 = llvm.insertvalue %c2, %s1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s3 = llvm.insertvalue %c3, %s2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s4 = llvm.insertvalue %c4, %s3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s5 = llvm.insertvalue %c5, %s4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s6 = llvm.insertvalue %c6, %s5[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %s7 = llvm.insertvalue %c7, %s6[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %da, %db, %s7, #nvvm.shape<m = 64, n = 16, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <col>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return %d : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
}

func.func @wgmma_probe(%in: memref<?xi32>, %out: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // The image in dynamic shared memory (a gpu.launch workgroup attribution
  // is not taken by the ssd pipeline's buffer deallocation), 1 KB more than
  // it needs: the image starts at the first 1024-byte boundary, where the
  // 128-byte swizzle's pattern starts, wherever the GPU puts the buffer.
  %image_bytes = arith.constant 17408 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %image_bytes {
    %dynamic = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %raw = memref.extract_aligned_pointer_as_index %dynamic : memref<?xi8, #gpu.address_space<workgroup>> -> index
    %k1024 = arith.constant 1024 : index
    %misalign = arith.remui %raw, %k1024 : index
    %pad_up = arith.subi %k1024, %misalign : index
    %pad = arith.remui %pad_up, %k1024 : index
    %smem = memref.view %dynamic[%pad][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xi32, #gpu.address_space<workgroup>>
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k128 = arith.constant 128 : index
    %k4096 = arith.constant 4096 : index
    %k4112 = arith.constant 4112 : index
    // The shared-memory image, word for word.
    scf.for %i = %tx to %k4096 step %k128 {
      %v = memref.load %in[%i] : memref<?xi32>
      memref.store %v, %smem[%i] : memref<4096xi32, #gpu.address_space<workgroup>>
    }
    llvm.call @probe_publish_image() : () -> ()
    // The image's shared address, >> 4, goes into each descriptor's start
    // address (bits 0-13): the input's descriptors are relative to it.
    %base = memref.extract_aligned_pointer_as_index %smem : memref<4096xi32, #gpu.address_space<workgroup>> -> index
    %base64 = arith.index_cast %base : index to i64
    %four = arith.constant 4 : i64
    %thirtytwo = arith.constant 32 : i64
    %start = arith.shrui %base64, %four : i64
    // C: 8 f32 words per thread.
    %cbase0 = arith.muli %tx, %k8 : index
    %cbase = arith.addi %cbase0, %k4112 : index
    %ci0 = arith.constant 0 : index
    %cx0 = arith.addi %cbase, %ci0 : index
    %cw0 = memref.load %in[%cx0] : memref<?xi32>
    %cv0 = arith.bitcast %cw0 : i32 to f32
    %ci1 = arith.constant 1 : index
    %cx1 = arith.addi %cbase, %ci1 : index
    %cw1 = memref.load %in[%cx1] : memref<?xi32>
    %cv1 = arith.bitcast %cw1 : i32 to f32
    %ci2 = arith.constant 2 : index
    %cx2 = arith.addi %cbase, %ci2 : index
    %cw2 = memref.load %in[%cx2] : memref<?xi32>
    %cv2 = arith.bitcast %cw2 : i32 to f32
    %ci3 = arith.constant 3 : index
    %cx3 = arith.addi %cbase, %ci3 : index
    %cw3 = memref.load %in[%cx3] : memref<?xi32>
    %cv3 = arith.bitcast %cw3 : i32 to f32
    %ci4 = arith.constant 4 : index
    %cx4 = arith.addi %cbase, %ci4 : index
    %cw4 = memref.load %in[%cx4] : memref<?xi32>
    %cv4 = arith.bitcast %cw4 : i32 to f32
    %ci5 = arith.constant 5 : index
    %cx5 = arith.addi %cbase, %ci5 : index
    %cw5 = memref.load %in[%cx5] : memref<?xi32>
    %cv5 = arith.bitcast %cw5 : i32 to f32
    %ci6 = arith.constant 6 : index
    %cx6 = arith.addi %cbase, %ci6 : index
    %cw6 = memref.load %in[%cx6] : memref<?xi32>
    %cv6 = arith.bitcast %cw6 : i32 to f32
    %ci7 = arith.constant 7 : index
    %cx7 = arith.addi %cbase, %ci7 : index
    %cw7 = memref.load %in[%cx7] : memref<?xi32>
    %cv7 = arith.bitcast %cw7 : i32 to f32
    // Case 0: A K-major, B K-major.
    %da0_ix = arith.constant 4096 : index
    %da0_ix1 = arith.constant 4097 : index
    %da0_lo = memref.load %in[%da0_ix] : memref<?xi32>
    %da0_hi = memref.load %in[%da0_ix1] : memref<?xi32>
    %da0_lo64 = arith.extui %da0_lo : i32 to i64
    %da0_hi64 = arith.extui %da0_hi : i32 to i64
    %da0_his = arith.shli %da0_hi64, %thirtytwo : i64
    %da0_rel = arith.ori %da0_lo64, %da0_his : i64
    %da0 = arith.addi %da0_rel, %start : i64
    %db0_ix = arith.constant 4098 : index
    %db0_ix1 = arith.constant 4099 : index
    %db0_lo = memref.load %in[%db0_ix] : memref<?xi32>
    %db0_hi = memref.load %in[%db0_ix1] : memref<?xi32>
    %db0_lo64 = arith.extui %db0_lo : i32 to i64
    %db0_hi64 = arith.extui %db0_hi : i32 to i64
    %db0_his = arith.shli %db0_hi64, %thirtytwo : i64
    %db0_rel = arith.ori %db0_lo64, %db0_his : i64
    %db0 = arith.addi %db0_rel, %start : i64
    %d0 = llvm.call @probe_wgmma_kk(%da0, %db0, %cv0, %cv1, %cv2, %cv3, %cv4, %cv5, %cv6, %cv7)
        : (i64, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %ob0_0 = arith.constant 0 : index
    %ob0_1 = arith.addi %ob0_0, %cbase0 : index
    %d0_0 = llvm.extractvalue %d0[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_0w = arith.bitcast %d0_0 : f32 to i32
    %o0_0 = arith.addi %ob0_1, %ci0 : index
    memref.store %d0_0w, %out[%o0_0] : memref<?xi32>
    %d0_1 = llvm.extractvalue %d0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_1w = arith.bitcast %d0_1 : f32 to i32
    %o0_1 = arith.addi %ob0_1, %ci1 : index
    memref.store %d0_1w, %out[%o0_1] : memref<?xi32>
    %d0_2 = llvm.extractvalue %d0[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_2w = arith.bitcast %d0_2 : f32 to i32
    %o0_2 = arith.addi %ob0_1, %ci2 : index
    memref.store %d0_2w, %out[%o0_2] : memref<?xi32>
    %d0_3 = llvm.extractvalue %d0[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_3w = arith.bitcast %d0_3 : f32 to i32
    %o0_3 = arith.addi %ob0_1, %ci3 : index
    memref.store %d0_3w, %out[%o0_3] : memref<?xi32>
    %d0_4 = llvm.extractvalue %d0[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_4w = arith.bitcast %d0_4 : f32 to i32
    %o0_4 = arith.addi %ob0_1, %ci4 : index
    memref.store %d0_4w, %out[%o0_4] : memref<?xi32>
    %d0_5 = llvm.extractvalue %d0[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_5w = arith.bitcast %d0_5 : f32 to i32
    %o0_5 = arith.addi %ob0_1, %ci5 : index
    memref.store %d0_5w, %out[%o0_5] : memref<?xi32>
    %d0_6 = llvm.extractvalue %d0[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_6w = arith.bitcast %d0_6 : f32 to i32
    %o0_6 = arith.addi %ob0_1, %ci6 : index
    memref.store %d0_6w, %out[%o0_6] : memref<?xi32>
    %d0_7 = llvm.extractvalue %d0[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0_7w = arith.bitcast %d0_7 : f32 to i32
    %o0_7 = arith.addi %ob0_1, %ci7 : index
    memref.store %d0_7w, %out[%o0_7] : memref<?xi32>
    // Case 1: A M-major, B K-major.
    %da1_ix = arith.constant 4100 : index
    %da1_ix1 = arith.constant 4101 : index
    %da1_lo = memref.load %in[%da1_ix] : memref<?xi32>
    %da1_hi = memref.load %in[%da1_ix1] : memref<?xi32>
    %da1_lo64 = arith.extui %da1_lo : i32 to i64
    %da1_hi64 = arith.extui %da1_hi : i32 to i64
    %da1_his = arith.shli %da1_hi64, %thirtytwo : i64
    %da1_rel = arith.ori %da1_lo64, %da1_his : i64
    %da1 = arith.addi %da1_rel, %start : i64
    %db1_ix = arith.constant 4102 : index
    %db1_ix1 = arith.constant 4103 : index
    %db1_lo = memref.load %in[%db1_ix] : memref<?xi32>
    %db1_hi = memref.load %in[%db1_ix1] : memref<?xi32>
    %db1_lo64 = arith.extui %db1_lo : i32 to i64
    %db1_hi64 = arith.extui %db1_hi : i32 to i64
    %db1_his = arith.shli %db1_hi64, %thirtytwo : i64
    %db1_rel = arith.ori %db1_lo64, %db1_his : i64
    %db1 = arith.addi %db1_rel, %start : i64
    %d1 = llvm.call @probe_wgmma_mk(%da1, %db1, %cv0, %cv1, %cv2, %cv3, %cv4, %cv5, %cv6, %cv7)
        : (i64, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %ob1_0 = arith.constant 1024 : index
    %ob1_1 = arith.addi %ob1_0, %cbase0 : index
    %d1_0 = llvm.extractvalue %d1[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_0w = arith.bitcast %d1_0 : f32 to i32
    %o1_0 = arith.addi %ob1_1, %ci0 : index
    memref.store %d1_0w, %out[%o1_0] : memref<?xi32>
    %d1_1 = llvm.extractvalue %d1[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_1w = arith.bitcast %d1_1 : f32 to i32
    %o1_1 = arith.addi %ob1_1, %ci1 : index
    memref.store %d1_1w, %out[%o1_1] : memref<?xi32>
    %d1_2 = llvm.extractvalue %d1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_2w = arith.bitcast %d1_2 : f32 to i32
    %o1_2 = arith.addi %ob1_1, %ci2 : index
    memref.store %d1_2w, %out[%o1_2] : memref<?xi32>
    %d1_3 = llvm.extractvalue %d1[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_3w = arith.bitcast %d1_3 : f32 to i32
    %o1_3 = arith.addi %ob1_1, %ci3 : index
    memref.store %d1_3w, %out[%o1_3] : memref<?xi32>
    %d1_4 = llvm.extractvalue %d1[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_4w = arith.bitcast %d1_4 : f32 to i32
    %o1_4 = arith.addi %ob1_1, %ci4 : index
    memref.store %d1_4w, %out[%o1_4] : memref<?xi32>
    %d1_5 = llvm.extractvalue %d1[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_5w = arith.bitcast %d1_5 : f32 to i32
    %o1_5 = arith.addi %ob1_1, %ci5 : index
    memref.store %d1_5w, %out[%o1_5] : memref<?xi32>
    %d1_6 = llvm.extractvalue %d1[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_6w = arith.bitcast %d1_6 : f32 to i32
    %o1_6 = arith.addi %ob1_1, %ci6 : index
    memref.store %d1_6w, %out[%o1_6] : memref<?xi32>
    %d1_7 = llvm.extractvalue %d1[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d1_7w = arith.bitcast %d1_7 : f32 to i32
    %o1_7 = arith.addi %ob1_1, %ci7 : index
    memref.store %d1_7w, %out[%o1_7] : memref<?xi32>
    // Case 2: A K-major, B N-major.
    %da2_ix = arith.constant 4104 : index
    %da2_ix1 = arith.constant 4105 : index
    %da2_lo = memref.load %in[%da2_ix] : memref<?xi32>
    %da2_hi = memref.load %in[%da2_ix1] : memref<?xi32>
    %da2_lo64 = arith.extui %da2_lo : i32 to i64
    %da2_hi64 = arith.extui %da2_hi : i32 to i64
    %da2_his = arith.shli %da2_hi64, %thirtytwo : i64
    %da2_rel = arith.ori %da2_lo64, %da2_his : i64
    %da2 = arith.addi %da2_rel, %start : i64
    %db2_ix = arith.constant 4106 : index
    %db2_ix1 = arith.constant 4107 : index
    %db2_lo = memref.load %in[%db2_ix] : memref<?xi32>
    %db2_hi = memref.load %in[%db2_ix1] : memref<?xi32>
    %db2_lo64 = arith.extui %db2_lo : i32 to i64
    %db2_hi64 = arith.extui %db2_hi : i32 to i64
    %db2_his = arith.shli %db2_hi64, %thirtytwo : i64
    %db2_rel = arith.ori %db2_lo64, %db2_his : i64
    %db2 = arith.addi %db2_rel, %start : i64
    %d2 = llvm.call @probe_wgmma_kn(%da2, %db2, %cv0, %cv1, %cv2, %cv3, %cv4, %cv5, %cv6, %cv7)
        : (i64, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %ob2_0 = arith.constant 2048 : index
    %ob2_1 = arith.addi %ob2_0, %cbase0 : index
    %d2_0 = llvm.extractvalue %d2[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_0w = arith.bitcast %d2_0 : f32 to i32
    %o2_0 = arith.addi %ob2_1, %ci0 : index
    memref.store %d2_0w, %out[%o2_0] : memref<?xi32>
    %d2_1 = llvm.extractvalue %d2[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_1w = arith.bitcast %d2_1 : f32 to i32
    %o2_1 = arith.addi %ob2_1, %ci1 : index
    memref.store %d2_1w, %out[%o2_1] : memref<?xi32>
    %d2_2 = llvm.extractvalue %d2[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_2w = arith.bitcast %d2_2 : f32 to i32
    %o2_2 = arith.addi %ob2_1, %ci2 : index
    memref.store %d2_2w, %out[%o2_2] : memref<?xi32>
    %d2_3 = llvm.extractvalue %d2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_3w = arith.bitcast %d2_3 : f32 to i32
    %o2_3 = arith.addi %ob2_1, %ci3 : index
    memref.store %d2_3w, %out[%o2_3] : memref<?xi32>
    %d2_4 = llvm.extractvalue %d2[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_4w = arith.bitcast %d2_4 : f32 to i32
    %o2_4 = arith.addi %ob2_1, %ci4 : index
    memref.store %d2_4w, %out[%o2_4] : memref<?xi32>
    %d2_5 = llvm.extractvalue %d2[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_5w = arith.bitcast %d2_5 : f32 to i32
    %o2_5 = arith.addi %ob2_1, %ci5 : index
    memref.store %d2_5w, %out[%o2_5] : memref<?xi32>
    %d2_6 = llvm.extractvalue %d2[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_6w = arith.bitcast %d2_6 : f32 to i32
    %o2_6 = arith.addi %ob2_1, %ci6 : index
    memref.store %d2_6w, %out[%o2_6] : memref<?xi32>
    %d2_7 = llvm.extractvalue %d2[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d2_7w = arith.bitcast %d2_7 : f32 to i32
    %o2_7 = arith.addi %ob2_1, %ci7 : index
    memref.store %d2_7w, %out[%o2_7] : memref<?xi32>
    // Case 3: A M-major, B N-major.
    %da3_ix = arith.constant 4108 : index
    %da3_ix1 = arith.constant 4109 : index
    %da3_lo = memref.load %in[%da3_ix] : memref<?xi32>
    %da3_hi = memref.load %in[%da3_ix1] : memref<?xi32>
    %da3_lo64 = arith.extui %da3_lo : i32 to i64
    %da3_hi64 = arith.extui %da3_hi : i32 to i64
    %da3_his = arith.shli %da3_hi64, %thirtytwo : i64
    %da3_rel = arith.ori %da3_lo64, %da3_his : i64
    %da3 = arith.addi %da3_rel, %start : i64
    %db3_ix = arith.constant 4110 : index
    %db3_ix1 = arith.constant 4111 : index
    %db3_lo = memref.load %in[%db3_ix] : memref<?xi32>
    %db3_hi = memref.load %in[%db3_ix1] : memref<?xi32>
    %db3_lo64 = arith.extui %db3_lo : i32 to i64
    %db3_hi64 = arith.extui %db3_hi : i32 to i64
    %db3_his = arith.shli %db3_hi64, %thirtytwo : i64
    %db3_rel = arith.ori %db3_lo64, %db3_his : i64
    %db3 = arith.addi %db3_rel, %start : i64
    %d3 = llvm.call @probe_wgmma_mn(%da3, %db3, %cv0, %cv1, %cv2, %cv3, %cv4, %cv5, %cv6, %cv7)
        : (i64, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %ob3_0 = arith.constant 3072 : index
    %ob3_1 = arith.addi %ob3_0, %cbase0 : index
    %d3_0 = llvm.extractvalue %d3[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_0w = arith.bitcast %d3_0 : f32 to i32
    %o3_0 = arith.addi %ob3_1, %ci0 : index
    memref.store %d3_0w, %out[%o3_0] : memref<?xi32>
    %d3_1 = llvm.extractvalue %d3[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_1w = arith.bitcast %d3_1 : f32 to i32
    %o3_1 = arith.addi %ob3_1, %ci1 : index
    memref.store %d3_1w, %out[%o3_1] : memref<?xi32>
    %d3_2 = llvm.extractvalue %d3[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_2w = arith.bitcast %d3_2 : f32 to i32
    %o3_2 = arith.addi %ob3_1, %ci2 : index
    memref.store %d3_2w, %out[%o3_2] : memref<?xi32>
    %d3_3 = llvm.extractvalue %d3[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_3w = arith.bitcast %d3_3 : f32 to i32
    %o3_3 = arith.addi %ob3_1, %ci3 : index
    memref.store %d3_3w, %out[%o3_3] : memref<?xi32>
    %d3_4 = llvm.extractvalue %d3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_4w = arith.bitcast %d3_4 : f32 to i32
    %o3_4 = arith.addi %ob3_1, %ci4 : index
    memref.store %d3_4w, %out[%o3_4] : memref<?xi32>
    %d3_5 = llvm.extractvalue %d3[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_5w = arith.bitcast %d3_5 : f32 to i32
    %o3_5 = arith.addi %ob3_1, %ci5 : index
    memref.store %d3_5w, %out[%o3_5] : memref<?xi32>
    %d3_6 = llvm.extractvalue %d3[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_6w = arith.bitcast %d3_6 : f32 to i32
    %o3_6 = arith.addi %ob3_1, %ci6 : index
    memref.store %d3_6w, %out[%o3_6] : memref<?xi32>
    %d3_7 = llvm.extractvalue %d3[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d3_7w = arith.bitcast %d3_7 : f32 to i32
    %o3_7 = arith.addi %ob3_1, %ci7 : index
    memref.store %d3_7w, %out[%o3_7] : memref<?xi32>
    // Where the GPU put dynamic shared memory (low 32 bits of its shared
    // address), by thread 0.
    %is0 = arith.cmpi eq, %tx, %k0 : index
    scf.if %is0 {
      %raw64 = arith.index_cast %raw : index to i64
      %raw32 = arith.trunci %raw64 : i64 to i32
      memref.store %raw32, %out[%k4096] : memref<?xi32>
    }
    gpu.terminator
  }
  return
}
