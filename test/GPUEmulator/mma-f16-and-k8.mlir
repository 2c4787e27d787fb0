// The other mma.sync variants the emulator implements, each checked against
// a product computed by hand, with every lane building its registers from
// the PTX ISA's fragment tables (g = %laneid / 4, t = %laneid % 4, two
// 16-bit values per b32 register, the lower index first/in the low half):
//
// 1. mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, operands as
//    vector<2xf16> (element 0 = lower index), same layout as bf16:
//    A register r: row g + 8 (r % 2), columns 2t, 2t + 1 (+ 8 when r >= 2);
//    B register r: rows 2t, 2t + 1 (+ 8 for r = 1), column g.
//    A[i][k] = (i - k) / 4, B[k][j] = k - 2 j, C[i][j] = i j (all exact in
//    f16 and every product and sum exact in f32); with sum_k k = 120 and
//    sum_k k^2 = 1240 over k = 0..15,
//      D[i][j] = (120 i - 32 i j - 1240 + 240 j) / 4 + i j
//              = 30 i - 7 i j + 60 j - 310.
//
// 2. mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 (operands as i32):
//    A register r (r = 0, 1): row g + 8 r, columns 2t, 2t + 1;
//    B register 0: rows 2t, 2t + 1, column g.
//    A[i][k] = i + k, B[k][j] = k - j, C[i][j] = 3 j - 2 i; with
//    sum_k k = 28 and sum_k k^2 = 140 over k = 0..7,
//      D[i][j] = 28 i - 8 i j + 140 - 28 j + 3 j - 2 i
//              = 26 i - 8 i j - 25 j + 140.
//
// 3. mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 (vector<2xf16>), same
//    layout as 2. A[i][k] = i - 2 k, B[k][j] = (k + j) / 8,
//    C[i][j] = j / 2 + 100:
//      D[i][j] = (28 i + 8 i j - 280 - 56 j) / 8 + j / 2 + 100
//              = 3.5 i + i j - 6.5 j + 65.
//
// C/D element e of every shape: row g + 8 (e / 2), column 2t + e % 2.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %h = memref.alloc() : memref<3x16x8xf32>
  %d = gpu.alloc () : memref<3x16x8xf32>

  // 1. m16n8k16, f16.
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %quarter = arith.constant 0.25 : f16
    %laneid = nvvm.read.ptx.sreg.laneid : i32
    %lane = arith.index_cast %laneid : i32 to index
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %g8 = arith.addi %g, %k8 : index
    %areg = memref.alloca() : memref<4xvector<2xf16>>
    scf.for %r = %k0 to %k4 step %k1 {
      %rm = arith.remui %r, %k2 : index
      %rd = arith.divui %r, %k2 : index
      %rowoff = arith.muli %rm, %k8 : index
      %row = arith.addi %g, %rowoff : index
      %coloff = arith.muli %rd, %k8 : index
      %col = arith.addi %t2, %coloff : index
      %col1 = arith.addi %col, %k1 : index
      // A[row][col] = (row - col) / 4
      %lo = arith.subi %row, %col : index
      %hi = arith.subi %row, %col1 : index
      %loi = arith.index_cast %lo : index to i32
      %hii = arith.index_cast %hi : index to i32
      %lof = arith.sitofp %loi : i32 to f16
      %hif = arith.sitofp %hii : i32 to f16
      %loq = arith.mulf %lof, %quarter : f16
      %hiq = arith.mulf %hif, %quarter : f16
      %v = vector.from_elements %loq, %hiq : vector<2xf16>
      memref.store %v, %areg[%r] : memref<4xvector<2xf16>>
    }
    %breg = memref.alloca() : memref<2xvector<2xf16>>
    scf.for %r = %k0 to %k2 step %k1 {
      %rowoff = arith.muli %r, %k8 : index
      %row = arith.addi %t2, %rowoff : index
      %row1 = arith.addi %row, %k1 : index
      // B[row][g] = row - 2 g
      %g2 = arith.muli %g, %k2 : index
      %lo = arith.subi %row, %g2 : index
      %hi = arith.subi %row1, %g2 : index
      %loi = arith.index_cast %lo : index to i32
      %hii = arith.index_cast %hi : index to i32
      %lof = arith.sitofp %loi : i32 to f16
      %hif = arith.sitofp %hii : i32 to f16
      %v = vector.from_elements %lof, %hif : vector<2xf16>
      memref.store %v, %breg[%r] : memref<2xvector<2xf16>>
    }
    %creg = memref.alloca() : memref<4xf32>
    scf.for %e = %k0 to %k4 step %k1 {
      %ed = arith.divui %e, %k2 : index
      %em = arith.remui %e, %k2 : index
      %rowoff = arith.muli %ed, %k8 : index
      %row = arith.addi %g, %rowoff : index
      %col = arith.addi %t2, %em : index
      // C[row][col] = row col
      %v = arith.muli %row, %col : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %creg[%e] : memref<4xf32>
    }
    %a0 = memref.load %areg[%k0] : memref<4xvector<2xf16>>
    %a1 = memref.load %areg[%k1] : memref<4xvector<2xf16>>
    %a2 = memref.load %areg[%k2] : memref<4xvector<2xf16>>
    %a3 = memref.load %areg[%k3] : memref<4xvector<2xf16>>
    %b0 = memref.load %breg[%k0] : memref<2xvector<2xf16>>
    %b1 = memref.load %breg[%k1] : memref<2xvector<2xf16>>
    %c0v = memref.load %creg[%k0] : memref<4xf32>
    %c1v = memref.load %creg[%k1] : memref<4xf32>
    %c2v = memref.load %creg[%k2] : memref<4xf32>
    %c3v = memref.load %creg[%k3] : memref<4xf32>
    %dd = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1]
                        C[%c0v, %c1v, %c2v, %c3v]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (vector<2xf16>, vector<2xf16>, f32)
          -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %dd[1] : !llvm.struct<(f32, f32, f32, f32)>
    %d2 = llvm.extractvalue %dd[2] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %dd[3] : !llvm.struct<(f32, f32, f32, f32)>
    %t21 = arith.addi %t2, %k1 : index
    memref.store %d0, %d[%k0, %g, %t2] : memref<3x16x8xf32>
    memref.store %d1, %d[%k0, %g, %t21] : memref<3x16x8xf32>
    memref.store %d2, %d[%k0, %g8, %t2] : memref<3x16x8xf32>
    memref.store %d3, %d[%k0, %g8, %t21] : memref<3x16x8xf32>
    gpu.terminator
  }

  // 2. m16n8k8, bf16.
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %sixteen = arith.constant 16 : i32
    %laneid = nvvm.read.ptx.sreg.laneid : i32
    %lane = arith.index_cast %laneid : i32 to index
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %g8 = arith.addi %g, %k8 : index
    %t21 = arith.addi %t2, %k1 : index
    %areg = memref.alloca() : memref<2xi32>
    scf.for %r = %k0 to %k2 step %k1 {
      %rowoff = arith.muli %r, %k8 : index
      %row = arith.addi %g, %rowoff : index
      // A[row][col] = row + col
      %lo = arith.addi %row, %t2 : index
      %hi = arith.addi %row, %t21 : index
      %loi = arith.index_cast %lo : index to i32
      %hii = arith.index_cast %hi : index to i32
      %lof = arith.sitofp %loi : i32 to bf16
      %hif = arith.sitofp %hii : i32 to bf16
      %lob = arith.bitcast %lof : bf16 to i16
      %hib = arith.bitcast %hif : bf16 to i16
      %low = arith.extui %lob : i16 to i32
      %high = arith.extui %hib : i16 to i32
      %highs = arith.shli %high, %sixteen : i32
      %packed = arith.ori %low, %highs : i32
      memref.store %packed, %areg[%r] : memref<2xi32>
    }
    // B register 0: B[2t][g], B[2t + 1][g] with B[k][j] = k - j.
    %blo = arith.subi %t2, %g : index
    %bhi = arith.subi %t21, %g : index
    %bloi = arith.index_cast %blo : index to i32
    %bhii = arith.index_cast %bhi : index to i32
    %blof = arith.sitofp %bloi : i32 to bf16
    %bhif = arith.sitofp %bhii : i32 to bf16
    %blob = arith.bitcast %blof : bf16 to i16
    %bhib = arith.bitcast %bhif : bf16 to i16
    %blow = arith.extui %blob : i16 to i32
    %bhigh = arith.extui %bhib : i16 to i32
    %bhighs = arith.shli %bhigh, %sixteen : i32
    %b0 = arith.ori %blow, %bhighs : i32
    %creg = memref.alloca() : memref<4xf32>
    scf.for %e = %k0 to %k4 step %k1 {
      %ed = arith.divui %e, %k2 : index
      %em = arith.remui %e, %k2 : index
      %rowoff = arith.muli %ed, %k8 : index
      %row = arith.addi %g, %rowoff : index
      %col = arith.addi %t2, %em : index
      // C[row][col] = 3 col - 2 row
      %c3col = arith.muli %col, %k3 : index
      %c2row = arith.muli %row, %k2 : index
      %v = arith.subi %c3col, %c2row : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %creg[%e] : memref<4xf32>
    }
    %a0 = memref.load %areg[%k0] : memref<2xi32>
    %a1 = memref.load %areg[%k1] : memref<2xi32>
    %c0v = memref.load %creg[%k0] : memref<4xf32>
    %c1v = memref.load %creg[%k1] : memref<4xf32>
    %c2v = memref.load %creg[%k2] : memref<4xf32>
    %c3v = memref.load %creg[%k3] : memref<4xf32>
    %dd = nvvm.mma.sync A[%a0, %a1] B[%b0] C[%c0v, %c1v, %c2v, %c3v]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 8>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %dd[1] : !llvm.struct<(f32, f32, f32, f32)>
    %d2 = llvm.extractvalue %dd[2] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %dd[3] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %d[%k1, %g, %t2] : memref<3x16x8xf32>
    memref.store %d1, %d[%k1, %g, %t21] : memref<3x16x8xf32>
    memref.store %d2, %d[%k1, %g8, %t2] : memref<3x16x8xf32>
    memref.store %d3, %d[%k1, %g8, %t21] : memref<3x16x8xf32>
    gpu.terminator
  }

  // 3. m16n8k8, f16.
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %eighth = arith.constant 0.125 : f16
    %half = arith.constant 0.5 : f32
    %hundred = arith.constant 100.0 : f32
    %laneid = nvvm.read.ptx.sreg.laneid : i32
    %lane = arith.index_cast %laneid : i32 to index
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %g8 = arith.addi %g, %k8 : index
    %t21 = arith.addi %t2, %k1 : index
    %areg = memref.alloca() : memref<2xvector<2xf16>>
    scf.for %r = %k0 to %k2 step %k1 {
      %rowoff = arith.muli %r, %k8 : index
      %row = arith.addi %g, %rowoff : index
      // A[row][col] = row - 2 col
      %c2lo = arith.muli %t2, %k2 : index
      %c2hi = arith.muli %t21, %k2 : index
      %lo = arith.subi %row, %c2lo : index
      %hi = arith.subi %row, %c2hi : index
      %loi = arith.index_cast %lo : index to i32
      %hii = arith.index_cast %hi : index to i32
      %lof = arith.sitofp %loi : i32 to f16
      %hif = arith.sitofp %hii : i32 to f16
      %v = vector.from_elements %lof, %hif : vector<2xf16>
      memref.store %v, %areg[%r] : memref<2xvector<2xf16>>
    }
    // B register 0: B[2t][g], B[2t + 1][g] with B[k][j] = (k + j) / 8.
    %blo = arith.addi %t2, %g : index
    %bhi = arith.addi %t21, %g : index
    %bloi = arith.index_cast %blo : index to i32
    %bhii = arith.index_cast %bhi : index to i32
    %blof = arith.sitofp %bloi : i32 to f16
    %bhif = arith.sitofp %bhii : i32 to f16
    %bloe = arith.mulf %blof, %eighth : f16
    %bhie = arith.mulf %bhif, %eighth : f16
    %b0 = vector.from_elements %bloe, %bhie : vector<2xf16>
    %creg = memref.alloca() : memref<4xf32>
    scf.for %e = %k0 to %k4 step %k1 {
      %em = arith.remui %e, %k2 : index
      %col = arith.addi %t2, %em : index
      // C[row][col] = col / 2 + 100
      %coli = arith.index_cast %col : index to i32
      %colf = arith.sitofp %coli : i32 to f32
      %colh = arith.mulf %colf, %half : f32
      %v = arith.addf %colh, %hundred : f32
      memref.store %v, %creg[%e] : memref<4xf32>
    }
    %a0 = memref.load %areg[%k0] : memref<2xvector<2xf16>>
    %a1 = memref.load %areg[%k1] : memref<2xvector<2xf16>>
    %c0v = memref.load %creg[%k0] : memref<4xf32>
    %c1v = memref.load %creg[%k1] : memref<4xf32>
    %c2v = memref.load %creg[%k2] : memref<4xf32>
    %c3v = memref.load %creg[%k3] : memref<4xf32>
    %dd = nvvm.mma.sync A[%a0, %a1] B[%b0] C[%c0v, %c1v, %c2v, %c3v]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         shape = #nvvm.shape<m = 16, n = 8, k = 8>}
        : (vector<2xf16>, vector<2xf16>, f32)
          -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %dd[1] : !llvm.struct<(f32, f32, f32, f32)>
    %d2 = llvm.extractvalue %dd[2] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %dd[3] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %d[%k2, %g, %t2] : memref<3x16x8xf32>
    memref.store %d1, %d[%k2, %g, %t21] : memref<3x16x8xf32>
    memref.store %d2, %d[%k2, %g8, %t2] : memref<3x16x8xf32>
    memref.store %d3, %d[%k2, %g8, %t21] : memref<3x16x8xf32>
    gpu.terminator
  }

  gpu.memcpy %h, %d : memref<3x16x8xf32>, memref<3x16x8xf32>
  %u = memref.cast %h : memref<3x16x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)

// 1. 30 i - 7 i j + 60 j - 310, 2. 26 i - 8 i j - 25 j + 140, 3. 3.5 i + i j - 6.5 j + 65.
// CHECK: rank = 3 offset = 0 sizes = [3, 16, 8] strides = [128, 8, 1] data =
// CHECK-NEXT: [-310, -250, -190, -130, -70, -10, 50, 110]
// CHECK-NEXT: [-280, -227, -174, -121, -68, -15, 38, 91]
// CHECK-NEXT: [-250, -204, -158, -112, -66, -20, 26, 72]
// CHECK-NEXT: [-220, -181, -142, -103, -64, -25, 14, 53]
// CHECK-NEXT: [-190, -158, -126, -94, -62, -30, 2, 34]
// CHECK-NEXT: [-160, -135, -110, -85, -60, -35, -10, 15]
// CHECK-NEXT: [-130, -112, -94, -76, -58, -40, -22, -4]
// CHECK-NEXT: [-100, -89, -78, -67, -56, -45, -34, -23]
// CHECK-NEXT: [-70, -66, -62, -58, -54, -50, -46, -42]
// CHECK-NEXT: [-40, -43, -46, -49, -52, -55, -58, -61]
// CHECK-NEXT: [-10, -20, -30, -40, -50, -60, -70, -80]
// CHECK-NEXT: [20, 3, -14, -31, -48, -65, -82, -99]
// CHECK-NEXT: [50, 26, 2, -22, -46, -70, -94, -118]
// CHECK-NEXT: [80, 49, 18, -13, -44, -75, -106, -137]
// CHECK-NEXT: [110, 72, 34, -4, -42, -80, -118, -156]
// CHECK-NEXT: [140, 95, 50, 5, -40, -85, -130, -175]
// CHECK-NEXT: [140, 115, 90, 65, 40, 15, -10, -35]
// CHECK-NEXT: [166, 133, 100, 67, 34, 1, -32, -65]
// CHECK-NEXT: [192, 151, 110, 69, 28, -13, -54, -95]
// CHECK-NEXT: [218, 169, 120, 71, 22, -27, -76, -125]
// CHECK-NEXT: [244, 187, 130, 73, 16, -41, -98, -155]
// CHECK-NEXT: [270, 205, 140, 75, 10, -55, -120, -185]
// CHECK-NEXT: [296, 223, 150, 77, 4, -69, -142, -215]
// CHECK-NEXT: [322, 241, 160, 79, -2, -83, -164, -245]
// CHECK-NEXT: [348, 259, 170, 81, -8, -97, -186, -275]
// CHECK-NEXT: [374, 277, 180, 83, -14, -111, -208, -305]
// CHECK-NEXT: [400, 295, 190, 85, -20, -125, -230, -335]
// CHECK-NEXT: [426, 313, 200, 87, -26, -139, -252, -365]
// CHECK-NEXT: [452, 331, 210, 89, -32, -153, -274, -395]
// CHECK-NEXT: [478, 349, 220, 91, -38, -167, -296, -425]
// CHECK-NEXT: [504, 367, 230, 93, -44, -181, -318, -455]
// CHECK-NEXT: [530, 385, 240, 95, -50, -195, -340, -485]
// CHECK-NEXT: [65, 58.5, 52, 45.5, 39, 32.5, 26, 19.5]
// CHECK-NEXT: [68.5, 63, 57.5, 52, 46.5, 41, 35.5, 30]
// CHECK-NEXT: [72, 67.5, 63, 58.5, 54, 49.5, 45, 40.5]
// CHECK-NEXT: [75.5, 72, 68.5, 65, 61.5, 58, 54.5, 51]
// CHECK-NEXT: [79, 76.5, 74, 71.5, 69, 66.5, 64, 61.5]
// CHECK-NEXT: [82.5, 81, 79.5, 78, 76.5, 75, 73.5, 72]
// CHECK-NEXT: [86, 85.5, 85, 84.5, 84, 83.5, 83, 82.5]
// CHECK-NEXT: [89.5, 90, 90.5, 91, 91.5, 92, 92.5, 93]
// CHECK-NEXT: [93, 94.5, 96, 97.5, 99, 100.5, 102, 103.5]
// CHECK-NEXT: [96.5, 99, 101.5, 104, 106.5, 109, 111.5, 114]
// CHECK-NEXT: [100, 103.5, 107, 110.5, 114, 117.5, 121, 124.5]
// CHECK-NEXT: [103.5, 108, 112.5, 117, 121.5, 126, 130.5, 135]
// CHECK-NEXT: [107, 112.5, 118, 123.5, 129, 134.5, 140, 145.5]
// CHECK-NEXT: [110.5, 117, 123.5, 130, 136.5, 143, 149.5, 156]
// CHECK-NEXT: [114, 121.5, 129, 136.5, 144, 151.5, 159, 166.5]
// CHECK-NEXT: [117.5, 126, 134.5, 143, 151.5, 160, 168.5, 177]
