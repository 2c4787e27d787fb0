// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 on the emulator,
// checked against a product computed by hand: every lane builds its A, B and
// C registers from the PTX ISA's fragment table ("Matrix Fragments for
// mma.m16n8k16 with floating point type"), with
//   g = %laneid / 4, t = %laneid % 4, two bf16 per b32 register, the lower
//   index in the low 16 bits;
//   A register r (a_2r, a_2r+1): row g + 8 (r % 2), columns 2t, 2t + 1,
//     plus 8 when r >= 2;
//   B register r (b_2r, b_2r+1): rows 2t, 2t + 1, plus 8 when r = 1, column g;
//   C/D element i: row g + 8 (i / 2), column 2t + i % 2;
// and writes its four D elements to their (row, column) of a 16x8 buffer per
// warp. Two warps run their own mma.sync.
//
// Inputs (small integers: every bf16 value, product and partial sum is
// exact):
//   A[i][k] = i - k,  B[k][j] = k + j,  C[i][j] = 8 i + j + 1024 w (warp w)
// so, with sum_k k = 120 and sum_k k^2 = 1240 over k = 0..15,
//   D[i][j] = sum_k (i - k)(k + j) + C[i][j]
//           = 16 i j + 120 i - 120 j - 1240 + 8 i + j + 1024 w
//           = 16 i j + 128 i - 119 j - 1240 + 1024 w.
// Any permutation p of the k index of A (or B) alone, of the rows of A or of
// the columns of B, C or D changes the result: D[i][j] - D[i'][j] =
// (i - i')(16 j + 128) and D[i][j] - D[i][j'] = (j - j')(16 i - 119) are not
// 0, and sum_k (i - p(k))(k + j) differs from D - C by
// sum_k k^2 - sum_k p(k) k > 0 for p != identity.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s
//
// A wrong fragment layout must fail numerically: the same program with A
// registers 1 and 2 exchanged in the mma.sync (each lane passes row g + 8,
// columns 2t.. where row g, columns 2t + 8.. belong, and the other way
// round) computes, for the A' the mma then sees,
//   A'[i][k] = i - k + 16 for i < 8 and k >= 8,
//   A'[i][k] = i - k - 16 for i >= 8 and k < 8, A' = A elsewhere,
// so D'[i][j] = D[i][j] + 16 sum_{k=8..15} (k + j) = D[i][j] + 1472 + 128 j
// for i < 8, and D[i][j] - 16 sum_{k=0..7} (k + j) = D[i][j] - 448 - 128 j
// for i >= 8. SWAP checks those values; the correct matrix must not appear.
//
// RUN: sed -e 's/A\[%a0, %a1, %a2, %a3\]/A[%a0, %a2, %a1, %a3]/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s --check-prefix=SWAP
// RUN: sed -e 's/A\[%a0, %a1, %a2, %a3\]/A[%a0, %a2, %a1, %a3]/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | not FileCheck %s
//
// The same with B registers 0 and 1 exchanged: the mma sees
// B'[k][j] = B[k + 8][j] = k + j + 8 for k < 8 and k + j - 8 for k >= 8, so
// D'[i][j] = D[i][j] + 8 sum_{k<8} (i - k) - 8 sum_{k>=8} (i - k)
//          = D[i][j] + 8 (8 i - 28) - 8 (8 i - 92) = D[i][j] + 512.
//
// RUN: sed -e 's/B\[%b0, %b1\]/B[%b1, %b0]/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s --check-prefix=BSWAP

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %h = memref.alloc() : memref<2x16x8xf32>
  %d = gpu.alloc () : memref<2x16x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %k32 = arith.constant 32 : index
    %k1024 = arith.constant 1024 : index
    %sixteen = arith.constant 16 : i32
    %laneid = nvvm.read.ptx.sreg.laneid : i32
    %lane = arith.index_cast %laneid : i32 to index
    %w = arith.divui %tx, %k32 : index
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %g8 = arith.addi %g, %k8 : index

    // Registers as the fragment table lays them out.
    %areg = memref.alloca() : memref<4xi32>
    scf.for %r = %k0 to %k4 step %k1 {
      %rm = arith.remui %r, %k2 : index
      %rd = arith.divui %r, %k2 : index
      %rowoff = arith.muli %rm, %k8 : index
      %row = arith.addi %g, %rowoff : index
      %coloff = arith.muli %rd, %k8 : index
      %col = arith.addi %t2, %coloff : index
      %col1 = arith.addi %col, %k1 : index
      // A[row][col] = row - col
      %lo = arith.subi %row, %col : index
      %hi = arith.subi %row, %col1 : index
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
      memref.store %packed, %areg[%r] : memref<4xi32>
    }
    %breg = memref.alloca() : memref<2xi32>
    scf.for %r = %k0 to %k2 step %k1 {
      %rowoff = arith.muli %r, %k8 : index
      %row = arith.addi %t2, %rowoff : index
      %row1 = arith.addi %row, %k1 : index
      // B[row][g] = row + g
      %lo = arith.addi %row, %g : index
      %hi = arith.addi %row1, %g : index
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
      memref.store %packed, %breg[%r] : memref<2xi32>
    }
    %creg = memref.alloca() : memref<4xf32>
    scf.for %i = %k0 to %k4 step %k1 {
      %id = arith.divui %i, %k2 : index
      %im = arith.remui %i, %k2 : index
      %rowoff = arith.muli %id, %k8 : index
      %row = arith.addi %g, %rowoff : index
      %col = arith.addi %t2, %im : index
      // C[row][col] = 8 row + col + 1024 w
      %r8 = arith.muli %row, %k8 : index
      %v0 = arith.addi %r8, %col : index
      %ww = arith.muli %w, %k1024 : index
      %v = arith.addi %v0, %ww : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %creg[%i] : memref<4xf32>
    }
    %a0 = memref.load %areg[%k0] : memref<4xi32>
    %a1 = memref.load %areg[%k1] : memref<4xi32>
    %a2 = memref.load %areg[%k2] : memref<4xi32>
    %k3 = arith.constant 3 : index
    %a3 = memref.load %areg[%k3] : memref<4xi32>
    %b0 = memref.load %breg[%k0] : memref<2xi32>
    %b1 = memref.load %breg[%k1] : memref<2xi32>
    %c0v = memref.load %creg[%k0] : memref<4xf32>
    %c1v = memref.load %creg[%k1] : memref<4xf32>
    %c2v = memref.load %creg[%k2] : memref<4xf32>
    %c3v = memref.load %creg[%k3] : memref<4xf32>
    %dd = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1]
                        C[%c0v, %c1v, %c2v, %c3v]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %dd[0] : !llvm.struct<(f32, f32, f32, f32)>
    %d1 = llvm.extractvalue %dd[1] : !llvm.struct<(f32, f32, f32, f32)>
    %d2 = llvm.extractvalue %dd[2] : !llvm.struct<(f32, f32, f32, f32)>
    %d3 = llvm.extractvalue %dd[3] : !llvm.struct<(f32, f32, f32, f32)>
    %t21 = arith.addi %t2, %k1 : index
    memref.store %d0, %d[%w, %g, %t2] : memref<2x16x8xf32>
    memref.store %d1, %d[%w, %g, %t21] : memref<2x16x8xf32>
    memref.store %d2, %d[%w, %g8, %t2] : memref<2x16x8xf32>
    memref.store %d3, %d[%w, %g8, %t21] : memref<2x16x8xf32>
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<2x16x8xf32>, memref<2x16x8xf32>
  %u = memref.cast %h : memref<2x16x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)

// D for warp 0, then warp 1: 16 i j + 128 i - 119 j - 1240 + 1024 w.
// CHECK: rank = 3 offset = 0 sizes = [2, 16, 8] strides = [128, 8, 1] data =
// CHECK-NEXT: [-1240, -1359, -1478, -1597, -1716, -1835, -1954, -2073]
// CHECK-NEXT: [-1112, -1215, -1318, -1421, -1524, -1627, -1730, -1833]
// CHECK-NEXT: [-984, -1071, -1158, -1245, -1332, -1419, -1506, -1593]
// CHECK-NEXT: [-856, -927, -998, -1069, -1140, -1211, -1282, -1353]
// CHECK-NEXT: [-728, -783, -838, -893, -948, -1003, -1058, -1113]
// CHECK-NEXT: [-600, -639, -678, -717, -756, -795, -834, -873]
// CHECK-NEXT: [-472, -495, -518, -541, -564, -587, -610, -633]
// CHECK-NEXT: [-344, -351, -358, -365, -372, -379, -386, -393]
// CHECK-NEXT: [-216, -207, -198, -189, -180, -171, -162, -153]
// CHECK-NEXT: [-88, -63, -38, -13, 12, 37, 62, 87]
// CHECK-NEXT: [40, 81, 122, 163, 204, 245, 286, 327]
// CHECK-NEXT: [168, 225, 282, 339, 396, 453, 510, 567]
// CHECK-NEXT: [296, 369, 442, 515, 588, 661, 734, 807]
// CHECK-NEXT: [424, 513, 602, 691, 780, 869, 958, 1047]
// CHECK-NEXT: [552, 657, 762, 867, 972, 1077, 1182, 1287]
// CHECK-NEXT: [680, 801, 922, 1043, 1164, 1285, 1406, 1527]
// CHECK-NEXT: [-216, -335, -454, -573, -692, -811, -930, -1049]
// CHECK-NEXT: [-88, -191, -294, -397, -500, -603, -706, -809]
// CHECK-NEXT: [40, -47, -134, -221, -308, -395, -482, -569]
// CHECK-NEXT: [168, 97, 26, -45, -116, -187, -258, -329]
// CHECK-NEXT: [296, 241, 186, 131, 76, 21, -34, -89]
// CHECK-NEXT: [424, 385, 346, 307, 268, 229, 190, 151]
// CHECK-NEXT: [552, 529, 506, 483, 460, 437, 414, 391]
// CHECK-NEXT: [680, 673, 666, 659, 652, 645, 638, 631]
// CHECK-NEXT: [808, 817, 826, 835, 844, 853, 862, 871]
// CHECK-NEXT: [936, 961, 986, 1011, 1036, 1061, 1086, 1111]
// CHECK-NEXT: [1064, 1105, 1146, 1187, 1228, 1269, 1310, 1351]
// CHECK-NEXT: [1192, 1249, 1306, 1363, 1420, 1477, 1534, 1591]
// CHECK-NEXT: [1320, 1393, 1466, 1539, 1612, 1685, 1758, 1831]
// CHECK-NEXT: [1448, 1537, 1626, 1715, 1804, 1893, 1982, 2071]
// CHECK-NEXT: [1576, 1681, 1786, 1891, 1996, 2101, 2206, 2311]
// CHECK-NEXT: [1704, 1825, 1946, 2067, 2188, 2309, 2430, 2551]

// A registers 1 and 2 exchanged: D + 1472 + 128 j (i < 8), D - 448 - 128 j (i >= 8).
// SWAP: rank = 3 offset = 0 sizes = [2, 16, 8] strides = [128, 8, 1] data =
// SWAP-NEXT: [232, 241, 250, 259, 268, 277, 286, 295]
// SWAP-NEXT: [360, 385, 410, 435, 460, 485, 510, 535]
// SWAP-NEXT: [488, 529, 570, 611, 652, 693, 734, 775]
// SWAP-NEXT: [616, 673, 730, 787, 844, 901, 958, 1015]
// SWAP-NEXT: [744, 817, 890, 963, 1036, 1109, 1182, 1255]
// SWAP-NEXT: [872, 961, 1050, 1139, 1228, 1317, 1406, 1495]
// SWAP-NEXT: [1000, 1105, 1210, 1315, 1420, 1525, 1630, 1735]
// SWAP-NEXT: [1128, 1249, 1370, 1491, 1612, 1733, 1854, 1975]
// SWAP-NEXT: [-664, -783, -902, -1021, -1140, -1259, -1378, -1497]
// SWAP-NEXT: [-536, -639, -742, -845, -948, -1051, -1154, -1257]
// SWAP-NEXT: [-408, -495, -582, -669, -756, -843, -930, -1017]
// SWAP-NEXT: [-280, -351, -422, -493, -564, -635, -706, -777]
// SWAP-NEXT: [-152, -207, -262, -317, -372, -427, -482, -537]
// SWAP-NEXT: [-24, -63, -102, -141, -180, -219, -258, -297]
// SWAP-NEXT: [104, 81, 58, 35, 12, -11, -34, -57]
// SWAP-NEXT: [232, 225, 218, 211, 204, 197, 190, 183]
// SWAP-NEXT: [1256, 1265, 1274, 1283, 1292, 1301, 1310, 1319]
// SWAP-NEXT: [1384, 1409, 1434, 1459, 1484, 1509, 1534, 1559]
// SWAP-NEXT: [1512, 1553, 1594, 1635, 1676, 1717, 1758, 1799]
// SWAP-NEXT: [1640, 1697, 1754, 1811, 1868, 1925, 1982, 2039]
// SWAP-NEXT: [1768, 1841, 1914, 1987, 2060, 2133, 2206, 2279]
// SWAP-NEXT: [1896, 1985, 2074, 2163, 2252, 2341, 2430, 2519]
// SWAP-NEXT: [2024, 2129, 2234, 2339, 2444, 2549, 2654, 2759]
// SWAP-NEXT: [2152, 2273, 2394, 2515, 2636, 2757, 2878, 2999]
// SWAP-NEXT: [360, 241, 122, 3, -116, -235, -354, -473]
// SWAP-NEXT: [488, 385, 282, 179, 76, -27, -130, -233]
// SWAP-NEXT: [616, 529, 442, 355, 268, 181, 94, 7]
// SWAP-NEXT: [744, 673, 602, 531, 460, 389, 318, 247]
// SWAP-NEXT: [872, 817, 762, 707, 652, 597, 542, 487]
// SWAP-NEXT: [1000, 961, 922, 883, 844, 805, 766, 727]
// SWAP-NEXT: [1128, 1105, 1082, 1059, 1036, 1013, 990, 967]
// SWAP-NEXT: [1256, 1249, 1242, 1235, 1228, 1221, 1214, 1207]

// B registers exchanged: D + 512.
// BSWAP: rank = 3 offset = 0 sizes = [2, 16, 8] strides = [128, 8, 1] data =
// BSWAP-NEXT: [-728, -847, -966, -1085, -1204, -1323, -1442, -1561]
// BSWAP-NEXT: [-600, -703, -806, -909, -1012, -1115, -1218, -1321]
// BSWAP-NEXT: [-472, -559, -646, -733, -820, -907, -994, -1081]
// BSWAP-NEXT: [-344, -415, -486, -557, -628, -699, -770, -841]
// BSWAP-NEXT: [-216, -271, -326, -381, -436, -491, -546, -601]
// BSWAP-NEXT: [-88, -127, -166, -205, -244, -283, -322, -361]
// BSWAP-NEXT: [40, 17, -6, -29, -52, -75, -98, -121]
// BSWAP-NEXT: [168, 161, 154, 147, 140, 133, 126, 119]
// BSWAP-NEXT: [296, 305, 314, 323, 332, 341, 350, 359]
// BSWAP-NEXT: [424, 449, 474, 499, 524, 549, 574, 599]
// BSWAP-NEXT: [552, 593, 634, 675, 716, 757, 798, 839]
// BSWAP-NEXT: [680, 737, 794, 851, 908, 965, 1022, 1079]
// BSWAP-NEXT: [808, 881, 954, 1027, 1100, 1173, 1246, 1319]
// BSWAP-NEXT: [936, 1025, 1114, 1203, 1292, 1381, 1470, 1559]
// BSWAP-NEXT: [1064, 1169, 1274, 1379, 1484, 1589, 1694, 1799]
// BSWAP-NEXT: [1192, 1313, 1434, 1555, 1676, 1797, 1918, 2039]
// BSWAP-NEXT: [296, 177, 58, -61, -180, -299, -418, -537]
// BSWAP-NEXT: [424, 321, 218, 115, 12, -91, -194, -297]
// BSWAP-NEXT: [552, 465, 378, 291, 204, 117, 30, -57]
// BSWAP-NEXT: [680, 609, 538, 467, 396, 325, 254, 183]
// BSWAP-NEXT: [808, 753, 698, 643, 588, 533, 478, 423]
// BSWAP-NEXT: [936, 897, 858, 819, 780, 741, 702, 663]
// BSWAP-NEXT: [1064, 1041, 1018, 995, 972, 949, 926, 903]
// BSWAP-NEXT: [1192, 1185, 1178, 1171, 1164, 1157, 1150, 1143]
// BSWAP-NEXT: [1320, 1329, 1338, 1347, 1356, 1365, 1374, 1383]
// BSWAP-NEXT: [1448, 1473, 1498, 1523, 1548, 1573, 1598, 1623]
// BSWAP-NEXT: [1576, 1617, 1658, 1699, 1740, 1781, 1822, 1863]
// BSWAP-NEXT: [1704, 1761, 1818, 1875, 1932, 1989, 2046, 2103]
// BSWAP-NEXT: [1832, 1905, 1978, 2051, 2124, 2197, 2270, 2343]
// BSWAP-NEXT: [1960, 2049, 2138, 2227, 2316, 2405, 2494, 2583]
// BSWAP-NEXT: [2088, 2193, 2298, 2403, 2508, 2613, 2718, 2823]
// BSWAP-NEXT: [2216, 2337, 2458, 2579, 2700, 2821, 2942, 3063]
