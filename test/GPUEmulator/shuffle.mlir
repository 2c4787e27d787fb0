// shfl.sync and vote.sync on the emulator against the PTX ISA's definitions,
// for every lane of a warp. Lane l holds the value 100 + l. For shfl.sync
// (PTX ISA, "shfl.sync"), with b the lane or offset and c the clamp (bits
// 0-4) and segment mask (bits 8-12):
//   bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31,
//   maxLane = (l & segmask) | (cval & ~segmask), minLane = l & segmask,
//   up:   j = l - bval, valid = j >= maxLane
//   down: j = l + bval, valid = j <= maxLane
//   bfly: j = l ^ bval, valid = j <= maxLane
//   idx:  j = minLane | (bval & ~segmask), valid = j <= maxLane
//   result = value of lane j if valid, else the lane's own value.
// Row r of VALUES / VALID below is case r; lanes that do not execute a case
// (partial member masks) leave -1 in both.
//
//  0 gpu.shuffle xor 1 (f32), width 32: 100 + (l ^ 1), all valid
//  1 gpu.shuffle xor 5 (i32): 100 + (l ^ 5), all valid
//  2 gpu.shuffle down 3, width 32 (c = 31): l <= 28: 103 + l, else own
//  3 gpu.shuffle up 2, width 32 (c = 0): l >= 2: 98 + l, else own
//  4 gpu.shuffle idx 7: 107 everywhere
//  5 gpu.shuffle idx 31 - l: 131 - l
//  6 shfl.sync.bfly 8, c = 0x181f (segments of 8): maxLane = (l & 24) | 7;
//    bit 3 of l set: j = l - 8 <= maxLane, valid (a segment may read the
//    one below it); clear: j = l + 8 > maxLane, own value
//  7 shfl.sync.down 5, c = 0x101f (segments of 16): valid iff l % 16 <= 10
//  8 shfl.sync.up 3, c = 0x1800 (segments of 8): maxLane = l & 24, valid
//    iff l % 8 >= 3
//  9 shfl.sync.idx 2, c = 0x181f: j = (l & 24) + 2, valid
// 10 shfl.sync.idx 13, c = 0x1c1f (segments of 4): j = (l & 28) | (13 & 3)
//    = (l & 28) + 1, valid
// 11 shfl.sync.idx 31 - l, c = 15 (clamp 15, one segment): j = 31 - l,
//    valid iff l >= 16, else own
// 12 shfl.sync.bfly b = 35, c = 31: bval = 35 & 31 = 3, j = l ^ 3, valid
// 13 gpu.shuffle down 4, width 16, executed by lanes 0-15 (the lowering
//    passes member mask 0xffff and c = 15): valid iff l <= 11
// 14 gpu.shuffle up 1, width 16, lanes 0-15: the lowering passes mask 0xffff
//    and c = 32 - 16 = 16 in the clamp field (not the segment mask), so
//    maxLane = 16 and j = l - 1 >= 16 never holds: every lane keeps its own
//    value, invalid (CUDA's __shfl_up_sync puts 32 - width in the segment
//    mask instead; this is what upstream MLIR 22 emits, run as PTX defines)
// 15 gpu.shuffle xor 2, width 8, lanes 0-7 (mask 0xff, c = 7): 100 + (l ^ 2)
//
// vote.sync (VOTES, one row per case; "all"/"uni" over the member lanes,
// ballot bit l = predicate of member lane l):
//  0 ballot, full mask, l % 3 == 0: 0x49249249 = 1227133513
//  1 any, l == 17: 1          2 any, l > 31: 0
//  3 all, l < 32: 1           4 all, l != 5: 0
//  5 uni, l < 32: 1           6 uni, l < 16: 0
//  7 ballot, even lanes only, mask 0x55555555, l % 4 == 0:
//    0x11111111 = 286331153 (odd lanes -1)
//  8 ballot, lanes 8-15, mask 0xff00, l odd: 0xaa00 = 43520
//  9 all, lanes 8-15, mask 0xff00, l >= 8: 1 (the other lanes' predicate,
//    false, does not count)
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %hv = memref.alloc() : memref<16x32xi32>
  %hp = memref.alloc() : memref<16x32xi32>
  %hvote = memref.alloc() : memref<10x32xi32>
  %vals = gpu.alloc () : memref<16x32xi32>
  %ok = gpu.alloc () : memref<16x32xi32>
  %votes = gpu.alloc () : memref<10x32xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %true = arith.constant true
    %m1 = arith.constant -1 : i32
    %i1c = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i5 = arith.constant 5 : i32
    %i7 = arith.constant 7 : i32
    %i8 = arith.constant 8 : i32
    %i13 = arith.constant 13 : i32
    %i15 = arith.constant 15 : i32
    %i16 = arith.constant 16 : i32
    %i17 = arith.constant 17 : i32
    %i31 = arith.constant 31 : i32
    %i32 = arith.constant 32 : i32
    %i35 = arith.constant 35 : i32
    %i100 = arith.constant 100 : i32
    %i0 = arith.constant 0 : i32
    %x0 = arith.constant 0 : index
    %x1 = arith.constant 1 : index
    %x2 = arith.constant 2 : index
    %x3 = arith.constant 3 : index
    %x4 = arith.constant 4 : index
    %x5 = arith.constant 5 : index
    %x6 = arith.constant 6 : index
    %x7 = arith.constant 7 : index
    %x8 = arith.constant 8 : index
    %x9 = arith.constant 9 : index
    %x10 = arith.constant 10 : index
    %x11 = arith.constant 11 : index
    %x12 = arith.constant 12 : index
    %x13 = arith.constant 13 : index
    %x14 = arith.constant 14 : index
    %x15 = arith.constant 15 : index
    %segs8 = arith.constant 0x181f : i32
    %segs16 = arith.constant 0x101f : i32
    %segs8up = arith.constant 0x1800 : i32
    %segs4 = arith.constant 0x1c1f : i32
    %lane = nvvm.read.ptx.sreg.laneid : i32
    %v = arith.addi %lane, %i100 : i32
    %vf = arith.sitofp %v : i32 to f32
    %rev = arith.subi %i31, %lane : i32

    %s0, %p0 = gpu.shuffle xor %vf, %i1c, %i32 : f32
    %s0i = arith.fptosi %s0 : f32 to i32
    %p0i = arith.extui %p0 : i1 to i32
    memref.store %s0i, %vals[%x0, %tx] : memref<16x32xi32>
    memref.store %p0i, %ok[%x0, %tx] : memref<16x32xi32>

    %s1, %p1 = gpu.shuffle xor %v, %i5, %i32 : i32
    %p1i = arith.extui %p1 : i1 to i32
    memref.store %s1, %vals[%x1, %tx] : memref<16x32xi32>
    memref.store %p1i, %ok[%x1, %tx] : memref<16x32xi32>

    %s2, %p2 = gpu.shuffle down %v, %i3, %i32 : i32
    %p2i = arith.extui %p2 : i1 to i32
    memref.store %s2, %vals[%x2, %tx] : memref<16x32xi32>
    memref.store %p2i, %ok[%x2, %tx] : memref<16x32xi32>

    %s3, %p3 = gpu.shuffle up %v, %i2, %i32 : i32
    %p3i = arith.extui %p3 : i1 to i32
    memref.store %s3, %vals[%x3, %tx] : memref<16x32xi32>
    memref.store %p3i, %ok[%x3, %tx] : memref<16x32xi32>

    %s4, %p4 = gpu.shuffle idx %v, %i7, %i32 : i32
    %p4i = arith.extui %p4 : i1 to i32
    memref.store %s4, %vals[%x4, %tx] : memref<16x32xi32>
    memref.store %p4i, %ok[%x4, %tx] : memref<16x32xi32>

    %s5, %p5 = gpu.shuffle idx %v, %rev, %i32 : i32
    %p5i = arith.extui %p5 : i1 to i32
    memref.store %s5, %vals[%x5, %tx] : memref<16x32xi32>
    memref.store %p5i, %ok[%x5, %tx] : memref<16x32xi32>

    %r6 = nvvm.shfl.sync bfly %m1, %v, %i8, %segs8 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s6 = llvm.extractvalue %r6[0] : !llvm.struct<(i32, i1)>
    %p6 = llvm.extractvalue %r6[1] : !llvm.struct<(i32, i1)>
    %p6i = arith.extui %p6 : i1 to i32
    memref.store %s6, %vals[%x6, %tx] : memref<16x32xi32>
    memref.store %p6i, %ok[%x6, %tx] : memref<16x32xi32>

    %r7 = nvvm.shfl.sync down %m1, %v, %i5, %segs16 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s7 = llvm.extractvalue %r7[0] : !llvm.struct<(i32, i1)>
    %p7 = llvm.extractvalue %r7[1] : !llvm.struct<(i32, i1)>
    %p7i = arith.extui %p7 : i1 to i32
    memref.store %s7, %vals[%x7, %tx] : memref<16x32xi32>
    memref.store %p7i, %ok[%x7, %tx] : memref<16x32xi32>

    %r8 = nvvm.shfl.sync up %m1, %v, %i3, %segs8up {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s8 = llvm.extractvalue %r8[0] : !llvm.struct<(i32, i1)>
    %p8 = llvm.extractvalue %r8[1] : !llvm.struct<(i32, i1)>
    %p8i = arith.extui %p8 : i1 to i32
    memref.store %s8, %vals[%x8, %tx] : memref<16x32xi32>
    memref.store %p8i, %ok[%x8, %tx] : memref<16x32xi32>

    %r9 = nvvm.shfl.sync idx %m1, %v, %i2, %segs8 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s9 = llvm.extractvalue %r9[0] : !llvm.struct<(i32, i1)>
    %p9 = llvm.extractvalue %r9[1] : !llvm.struct<(i32, i1)>
    %p9i = arith.extui %p9 : i1 to i32
    memref.store %s9, %vals[%x9, %tx] : memref<16x32xi32>
    memref.store %p9i, %ok[%x9, %tx] : memref<16x32xi32>

    %r10 = nvvm.shfl.sync idx %m1, %v, %i13, %segs4 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s10 = llvm.extractvalue %r10[0] : !llvm.struct<(i32, i1)>
    %p10 = llvm.extractvalue %r10[1] : !llvm.struct<(i32, i1)>
    %p10i = arith.extui %p10 : i1 to i32
    memref.store %s10, %vals[%x10, %tx] : memref<16x32xi32>
    memref.store %p10i, %ok[%x10, %tx] : memref<16x32xi32>

    %r11 = nvvm.shfl.sync idx %m1, %v, %rev, %i15 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s11 = llvm.extractvalue %r11[0] : !llvm.struct<(i32, i1)>
    %p11 = llvm.extractvalue %r11[1] : !llvm.struct<(i32, i1)>
    %p11i = arith.extui %p11 : i1 to i32
    memref.store %s11, %vals[%x11, %tx] : memref<16x32xi32>
    memref.store %p11i, %ok[%x11, %tx] : memref<16x32xi32>

    %r12 = nvvm.shfl.sync bfly %m1, %v, %i35, %i31 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
    %s12 = llvm.extractvalue %r12[0] : !llvm.struct<(i32, i1)>
    %p12 = llvm.extractvalue %r12[1] : !llvm.struct<(i32, i1)>
    %p12i = arith.extui %p12 : i1 to i32
    memref.store %s12, %vals[%x12, %tx] : memref<16x32xi32>
    memref.store %p12i, %ok[%x12, %tx] : memref<16x32xi32>

    // Cases 13-15: only the lanes below the width execute the shuffle.
    memref.store %m1, %vals[%x13, %tx] : memref<16x32xi32>
    memref.store %m1, %ok[%x13, %tx] : memref<16x32xi32>
    memref.store %m1, %vals[%x14, %tx] : memref<16x32xi32>
    memref.store %m1, %ok[%x14, %tx] : memref<16x32xi32>
    memref.store %m1, %vals[%x15, %tx] : memref<16x32xi32>
    memref.store %m1, %ok[%x15, %tx] : memref<16x32xi32>
    %lt16 = arith.cmpi ult, %lane, %i16 : i32
    scf.if %lt16 {
      %s13, %p13 = gpu.shuffle down %v, %i4, %i16 : i32
      %p13i = arith.extui %p13 : i1 to i32
      memref.store %s13, %vals[%x13, %tx] : memref<16x32xi32>
      memref.store %p13i, %ok[%x13, %tx] : memref<16x32xi32>
      %s14, %p14 = gpu.shuffle up %v, %i1c, %i16 : i32
      %p14i = arith.extui %p14 : i1 to i32
      memref.store %s14, %vals[%x14, %tx] : memref<16x32xi32>
      memref.store %p14i, %ok[%x14, %tx] : memref<16x32xi32>
    }
    %lt8 = arith.cmpi ult, %lane, %i8 : i32
    scf.if %lt8 {
      %s15, %p15 = gpu.shuffle xor %v, %i2, %i8 : i32
      %p15i = arith.extui %p15 : i1 to i32
      memref.store %s15, %vals[%x15, %tx] : memref<16x32xi32>
      memref.store %p15i, %ok[%x15, %tx] : memref<16x32xi32>
    }

    // vote.sync
    %l3 = arith.remui %lane, %i3 : i32
    %q0 = arith.cmpi eq, %l3, %i0 : i32
    %b0 = nvvm.vote.sync ballot %m1, %q0 -> i32
    memref.store %b0, %votes[%x0, %tx] : memref<10x32xi32>
    %q1 = arith.cmpi eq, %lane, %i17 : i32
    %b1 = nvvm.vote.sync any %m1, %q1 -> i1
    %b1i = arith.extui %b1 : i1 to i32
    memref.store %b1i, %votes[%x1, %tx] : memref<10x32xi32>
    %q2 = arith.cmpi ugt, %lane, %i31 : i32
    %b2 = nvvm.vote.sync any %m1, %q2 -> i1
    %b2i = arith.extui %b2 : i1 to i32
    memref.store %b2i, %votes[%x2, %tx] : memref<10x32xi32>
    %q3 = arith.cmpi ult, %lane, %i32 : i32
    %b3 = nvvm.vote.sync all %m1, %q3 -> i1
    %b3i = arith.extui %b3 : i1 to i32
    memref.store %b3i, %votes[%x3, %tx] : memref<10x32xi32>
    %q4 = arith.cmpi ne, %lane, %i5 : i32
    %b4 = nvvm.vote.sync all %m1, %q4 -> i1
    %b4i = arith.extui %b4 : i1 to i32
    memref.store %b4i, %votes[%x4, %tx] : memref<10x32xi32>
    %b5 = nvvm.vote.sync uni %m1, %q3 -> i1
    %b5i = arith.extui %b5 : i1 to i32
    memref.store %b5i, %votes[%x5, %tx] : memref<10x32xi32>
    %b6 = nvvm.vote.sync uni %m1, %lt16 -> i1
    %b6i = arith.extui %b6 : i1 to i32
    memref.store %b6i, %votes[%x6, %tx] : memref<10x32xi32>

    memref.store %m1, %votes[%x7, %tx] : memref<10x32xi32>
    memref.store %m1, %votes[%x8, %tx] : memref<10x32xi32>
    memref.store %m1, %votes[%x9, %tx] : memref<10x32xi32>
    %odd = arith.andi %lane, %i1c : i32
    %even = arith.cmpi eq, %odd, %i0 : i32
    scf.if %even {
      %evenmask = arith.constant 0x55555555 : i32
      %l4 = arith.remui %lane, %i4 : i32
      %q7 = arith.cmpi eq, %l4, %i0 : i32
      %b7 = nvvm.vote.sync ballot %evenmask, %q7 -> i32
      memref.store %b7, %votes[%x7, %tx] : memref<10x32xi32>
    }
    %ge8 = arith.cmpi uge, %lane, %i8 : i32
    %mid = arith.andi %ge8, %lt16 : i1
    scf.if %mid {
      %midmask = arith.constant 0xff00 : i32
      %q8 = arith.cmpi ne, %odd, %i0 : i32
      %b8 = nvvm.vote.sync ballot %midmask, %q8 -> i32
      memref.store %b8, %votes[%x8, %tx] : memref<10x32xi32>
      %b9 = nvvm.vote.sync all %midmask, %ge8 -> i1
      %b9i = arith.extui %b9 : i1 to i32
      memref.store %b9i, %votes[%x9, %tx] : memref<10x32xi32>
    }
    gpu.terminator
  }
  gpu.memcpy %hv, %vals : memref<16x32xi32>, memref<16x32xi32>
  gpu.memcpy %hp, %ok : memref<16x32xi32>, memref<16x32xi32>
  gpu.memcpy %hvote, %votes : memref<10x32xi32>, memref<10x32xi32>
  %uv = memref.cast %hv : memref<16x32xi32> to memref<*xi32>
  %up = memref.cast %hp : memref<16x32xi32> to memref<*xi32>
  %uvote = memref.cast %hvote : memref<10x32xi32> to memref<*xi32>
  call @printMemrefI32(%uv) : (memref<*xi32>) -> ()
  call @printMemrefI32(%up) : (memref<*xi32>) -> ()
  call @printMemrefI32(%uvote) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)

// VALUES (rows = cases):
// CHECK: rank = 2 offset = 0 sizes = [16, 32] strides = [32, 1] data =
// CHECK-NEXT: [101, 100, 103, 102, 105, 104, 107, 106, 109, 108, 111, 110, 113, 112, 115, 114, 117, 116, 119, 118, 121, 120, 123, 122, 125, 124, 127, 126, 129, 128, 131, 130]
// CHECK-NEXT: [105, 104, 107, 106, 101, 100, 103, 102, 113, 112, 115, 114, 109, 108, 111, 110, 121, 120, 123, 122, 117, 116, 119, 118, 129, 128, 131, 130, 125, 124, 127, 126]
// CHECK-NEXT: [103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 129, 130, 131]
// CHECK-NEXT: [100, 101, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129]
// CHECK-NEXT: [107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107, 107]
// CHECK-NEXT: [131, 130, 129, 128, 127, 126, 125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100]
// CHECK-NEXT: [100, 101, 102, 103, 104, 105, 106, 107, 100, 101, 102, 103, 104, 105, 106, 107, 116, 117, 118, 119, 120, 121, 122, 123, 116, 117, 118, 119, 120, 121, 122, 123]
// CHECK-NEXT: [105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 111, 112, 113, 114, 115, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 127, 128, 129, 130, 131]
// CHECK-NEXT: [100, 101, 102, 100, 101, 102, 103, 104, 108, 109, 110, 108, 109, 110, 111, 112, 116, 117, 118, 116, 117, 118, 119, 120, 124, 125, 126, 124, 125, 126, 127, 128]
// CHECK-NEXT: [102, 102, 102, 102, 102, 102, 102, 102, 110, 110, 110, 110, 110, 110, 110, 110, 118, 118, 118, 118, 118, 118, 118, 118, 126, 126, 126, 126, 126, 126, 126, 126]
// CHECK-NEXT: [101, 101, 101, 101, 105, 105, 105, 105, 109, 109, 109, 109, 113, 113, 113, 113, 117, 117, 117, 117, 121, 121, 121, 121, 125, 125, 125, 125, 129, 129, 129, 129]
// CHECK-NEXT: [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100]
// CHECK-NEXT: [103, 102, 101, 100, 107, 106, 105, 104, 111, 110, 109, 108, 115, 114, 113, 112, 119, 118, 117, 116, 123, 122, 121, 120, 127, 126, 125, 124, 131, 130, 129, 128]
// CHECK-NEXT: [104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 112, 113, 114, 115, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// CHECK-NEXT: [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// CHECK-NEXT: [102, 103, 100, 101, 106, 107, 104, 105, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// VALID (rows = cases):
// CHECK: rank = 2 offset = 0 sizes = [16, 32] strides = [32, 1] data =
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]
// CHECK-NEXT: [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
// CHECK-NEXT: [0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// VOTES (rows = cases):
// CHECK: rank = 2 offset = 0 sizes = [10, 32] strides = [32, 1] data =
// CHECK-NEXT: [1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513, 1227133513]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// CHECK-NEXT: [286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1, 286331153, -1]
// CHECK-NEXT: [-1, -1, -1, -1, -1, -1, -1, -1, 43520, 43520, 43520, 43520, 43520, 43520, 43520, 43520, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
// CHECK-NEXT: [-1, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
