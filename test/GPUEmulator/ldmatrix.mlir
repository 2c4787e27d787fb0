// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16 on the emulator, every
// lane's registers checked against the PTX ISA ("Warp-level matrix load
// instruction: ldmatrix"):
//  - lanes 8i..8i+7 give the addresses of rows 0..7 of matrix i (i < .num);
//    each row is 8 consecutive 16-bit elements (16 bytes); the addresses of
//    the other lanes (8 .num and up) are not used (sm_80 and later);
//  - lane l receives, per matrix, one 32-bit register holding row l / 4,
//    elements 2 (l % 4) (low half) and 2 (l % 4) + 1 (high half);
//  - .trans: the same for the transposed matrix, so the low half is row
//    2 (l % 4), element l / 4 and the high half row 2 (l % 4) + 1.
//
// The block's 32 threads fill a 256-element i16 buffer with buf[p] = p (lane
// l writes slot l: elements 8l..8l+7), then lane l gives the address of slot
// 31 - l. So row r of matrix m (given by lane 8m + r) is slot 31 - 8m - r:
//   M_m[r][c] = 8 (31 - 8m - r) + c = 248 - 64m - 8r + c,
// and lane l, with g = l / 4 and t = l % 4, must receive
//   plain:  low = M_m[g][2t]  = 248 - 64m - 8g + 2t,  high = low + 1,
//   .trans: low = M_m[2t][g]  = 248 - 64m - 16t + g,  high = low - 8.
// Each lane stores low, high of matrix 0, then of matrix 1, ... to row l of
// the output; the six launches print x1, x2, x4, x1.trans, x2.trans,
// x4.trans. For x1 and x2, lanes 8 .num and up give the (valid) addresses
// of other matrices, which must not be used.
//
// RUN: ssd-opt %s --ssd-gpu-lower-to-emulator \
// RUN:   | ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   | FileCheck %s
//
// The row addresses must be 16-byte aligned shared memory: lane 5 giving an
// address 4 bytes into its row is an error naming the lane, the row and
// the matrix (byte offset 2 (8 (31 - 5)) + 4 = 420).
// RUN: sed -e 's/constant 0 : index \/\/ MISALIGN/constant 4 : index/' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator \
// RUN:   | not ssd-runner - --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALIGN
// ALIGN: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): thread (5,0,0) gives ldmatrix the row address of shared offset 420, not 16-byte aligned (row 5 of matrix 0; main_kernel: %{{.*}} = {{(tail )?}}call i32 @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16.p3(ptr addrspace(3) %{{.*}}))
// ALIGN-NOT: error

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d0 = gpu.alloc () : memref<32x2xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> i32
    %lo0 = arith.andi %r, %mask : i32
    %hi0 = arith.shrui %r, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d0[%tx, %col0a] : memref<32x2xi32>
    memref.store %hi0, %d0[%tx, %col0b] : memref<32x2xi32>
    gpu.terminator
  }
  %h0 = memref.alloc() : memref<32x2xi32>
  gpu.memcpy %h0, %d0 : memref<32x2xi32>, memref<32x2xi32>
  %u0 = memref.cast %h0 : memref<32x2xi32> to memref<*xi32>
  call @printMemrefI32(%u0) : (memref<*xi32>) -> ()
  %d1 = gpu.alloc () : memref<32x4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 2 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
    %v0 = llvm.extractvalue %r[0] : !llvm.struct<(i32, i32)>
    %lo0 = arith.andi %v0, %mask : i32
    %hi0 = arith.shrui %v0, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d1[%tx, %col0a] : memref<32x4xi32>
    memref.store %hi0, %d1[%tx, %col0b] : memref<32x4xi32>
    %v1 = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32)>
    %lo1 = arith.andi %v1, %mask : i32
    %hi1 = arith.shrui %v1, %sixteen : i32
    %col1a = arith.constant 2 : index
    %col1b = arith.constant 3 : index
    memref.store %lo1, %d1[%tx, %col1a] : memref<32x4xi32>
    memref.store %hi1, %d1[%tx, %col1b] : memref<32x4xi32>
    gpu.terminator
  }
  %h1 = memref.alloc() : memref<32x4xi32>
  gpu.memcpy %h1, %d1 : memref<32x4xi32>, memref<32x4xi32>
  %u1 = memref.cast %h1 : memref<32x4xi32> to memref<*xi32>
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  %d2 = gpu.alloc () : memref<32x8xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    %v0 = llvm.extractvalue %r[0] : !llvm.struct<(i32, i32, i32, i32)>
    %lo0 = arith.andi %v0, %mask : i32
    %hi0 = arith.shrui %v0, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d2[%tx, %col0a] : memref<32x8xi32>
    memref.store %hi0, %d2[%tx, %col0b] : memref<32x8xi32>
    %v1 = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32, i32, i32)>
    %lo1 = arith.andi %v1, %mask : i32
    %hi1 = arith.shrui %v1, %sixteen : i32
    %col1a = arith.constant 2 : index
    %col1b = arith.constant 3 : index
    memref.store %lo1, %d2[%tx, %col1a] : memref<32x8xi32>
    memref.store %hi1, %d2[%tx, %col1b] : memref<32x8xi32>
    %v2 = llvm.extractvalue %r[2] : !llvm.struct<(i32, i32, i32, i32)>
    %lo2 = arith.andi %v2, %mask : i32
    %hi2 = arith.shrui %v2, %sixteen : i32
    %col2a = arith.constant 4 : index
    %col2b = arith.constant 5 : index
    memref.store %lo2, %d2[%tx, %col2a] : memref<32x8xi32>
    memref.store %hi2, %d2[%tx, %col2b] : memref<32x8xi32>
    %v3 = llvm.extractvalue %r[3] : !llvm.struct<(i32, i32, i32, i32)>
    %lo3 = arith.andi %v3, %mask : i32
    %hi3 = arith.shrui %v3, %sixteen : i32
    %col3a = arith.constant 6 : index
    %col3b = arith.constant 7 : index
    memref.store %lo3, %d2[%tx, %col3a] : memref<32x8xi32>
    memref.store %hi3, %d2[%tx, %col3b] : memref<32x8xi32>
    gpu.terminator
  }
  %h2 = memref.alloc() : memref<32x8xi32>
  gpu.memcpy %h2, %d2 : memref<32x8xi32>, memref<32x8xi32>
  %u2 = memref.cast %h2 : memref<32x8xi32> to memref<*xi32>
  call @printMemrefI32(%u2) : (memref<*xi32>) -> ()
  %d3 = gpu.alloc () : memref<32x2xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 1 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> i32
    %lo0 = arith.andi %r, %mask : i32
    %hi0 = arith.shrui %r, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d3[%tx, %col0a] : memref<32x2xi32>
    memref.store %hi0, %d3[%tx, %col0b] : memref<32x2xi32>
    gpu.terminator
  }
  %h3 = memref.alloc() : memref<32x2xi32>
  gpu.memcpy %h3, %d3 : memref<32x2xi32>, memref<32x2xi32>
  %u3 = memref.cast %h3 : memref<32x2xi32> to memref<*xi32>
  call @printMemrefI32(%u3) : (memref<*xi32>) -> ()
  %d4 = gpu.alloc () : memref<32x4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 2 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
    %v0 = llvm.extractvalue %r[0] : !llvm.struct<(i32, i32)>
    %lo0 = arith.andi %v0, %mask : i32
    %hi0 = arith.shrui %v0, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d4[%tx, %col0a] : memref<32x4xi32>
    memref.store %hi0, %d4[%tx, %col0b] : memref<32x4xi32>
    %v1 = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32)>
    %lo1 = arith.andi %v1, %mask : i32
    %hi1 = arith.shrui %v1, %sixteen : i32
    %col1a = arith.constant 2 : index
    %col1b = arith.constant 3 : index
    memref.store %lo1, %d4[%tx, %col1a] : memref<32x4xi32>
    memref.store %hi1, %d4[%tx, %col1b] : memref<32x4xi32>
    gpu.terminator
  }
  %h4 = memref.alloc() : memref<32x4xi32>
  gpu.memcpy %h4, %d4 : memref<32x4xi32>, memref<32x4xi32>
  %u4 = memref.cast %h4 : memref<32x4xi32> to memref<*xi32>
  call @printMemrefI32(%u4) : (memref<*xi32>) -> ()
  %d5 = gpu.alloc () : memref<32x8xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<256xi16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k31 = arith.constant 31 : index
    %sixteen = arith.constant 16 : i32
    %mask = arith.constant 65535 : i32
    %first = arith.muli %tx, %k8 : index
    scf.for %c = %c0 to %k8 step %k1 {
      %p = arith.addi %first, %c : index
      %pi = arith.index_cast %p : index to i16
      memref.store %pi, %buf[%p] : memref<256xi16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %base = memref.extract_aligned_pointer_as_index %buf : memref<256xi16, #gpu.address_space<workgroup>> -> index
    %slot = arith.subi %k31, %tx : index
    %rowoff = arith.muli %slot, %k16 : index
    %is5 = arith.cmpi eq, %tx, %c5 : index
    %bad = arith.constant 0 : index // MISALIGN
    %misalign = arith.select %is5, %bad, %c0 : index
    %rowaddr0 = arith.addi %base, %rowoff : index
    %rowaddr = arith.addi %rowaddr0, %misalign : index
    %ai = arith.index_cast %rowaddr : index to i64
    %ptr = llvm.inttoptr %ai : i64 to !llvm.ptr<3>
    %r = nvvm.ldmatrix %ptr {num = 4 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    %v0 = llvm.extractvalue %r[0] : !llvm.struct<(i32, i32, i32, i32)>
    %lo0 = arith.andi %v0, %mask : i32
    %hi0 = arith.shrui %v0, %sixteen : i32
    %col0a = arith.constant 0 : index
    %col0b = arith.constant 1 : index
    memref.store %lo0, %d5[%tx, %col0a] : memref<32x8xi32>
    memref.store %hi0, %d5[%tx, %col0b] : memref<32x8xi32>
    %v1 = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32, i32, i32)>
    %lo1 = arith.andi %v1, %mask : i32
    %hi1 = arith.shrui %v1, %sixteen : i32
    %col1a = arith.constant 2 : index
    %col1b = arith.constant 3 : index
    memref.store %lo1, %d5[%tx, %col1a] : memref<32x8xi32>
    memref.store %hi1, %d5[%tx, %col1b] : memref<32x8xi32>
    %v2 = llvm.extractvalue %r[2] : !llvm.struct<(i32, i32, i32, i32)>
    %lo2 = arith.andi %v2, %mask : i32
    %hi2 = arith.shrui %v2, %sixteen : i32
    %col2a = arith.constant 4 : index
    %col2b = arith.constant 5 : index
    memref.store %lo2, %d5[%tx, %col2a] : memref<32x8xi32>
    memref.store %hi2, %d5[%tx, %col2b] : memref<32x8xi32>
    %v3 = llvm.extractvalue %r[3] : !llvm.struct<(i32, i32, i32, i32)>
    %lo3 = arith.andi %v3, %mask : i32
    %hi3 = arith.shrui %v3, %sixteen : i32
    %col3a = arith.constant 6 : index
    %col3b = arith.constant 7 : index
    memref.store %lo3, %d5[%tx, %col3a] : memref<32x8xi32>
    memref.store %hi3, %d5[%tx, %col3b] : memref<32x8xi32>
    gpu.terminator
  }
  %h5 = memref.alloc() : memref<32x8xi32>
  gpu.memcpy %h5, %d5 : memref<32x8xi32>, memref<32x8xi32>
  %u5 = memref.cast %h5 : memref<32x8xi32> to memref<*xi32>
  call @printMemrefI32(%u5) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)

// x1: low = 248 - 64m - 8g + 2t, high = low + 1
// CHECK: sizes = [32, 2]
// CHECK-NEXT: {{\[}}[248, 249]
// CHECK-NEXT:  [250, 251]
// CHECK-NEXT:  [252, 253]
// CHECK-NEXT:  [254, 255]
// CHECK-NEXT:  [240, 241]
// CHECK-NEXT:  [242, 243]
// CHECK-NEXT:  [244, 245]
// CHECK-NEXT:  [246, 247]
// CHECK-NEXT:  [232, 233]
// CHECK-NEXT:  [234, 235]
// CHECK-NEXT:  [236, 237]
// CHECK-NEXT:  [238, 239]
// CHECK-NEXT:  [224, 225]
// CHECK-NEXT:  [226, 227]
// CHECK-NEXT:  [228, 229]
// CHECK-NEXT:  [230, 231]
// CHECK-NEXT:  [216, 217]
// CHECK-NEXT:  [218, 219]
// CHECK-NEXT:  [220, 221]
// CHECK-NEXT:  [222, 223]
// CHECK-NEXT:  [208, 209]
// CHECK-NEXT:  [210, 211]
// CHECK-NEXT:  [212, 213]
// CHECK-NEXT:  [214, 215]
// CHECK-NEXT:  [200, 201]
// CHECK-NEXT:  [202, 203]
// CHECK-NEXT:  [204, 205]
// CHECK-NEXT:  [206, 207]
// CHECK-NEXT:  [192, 193]
// CHECK-NEXT:  [194, 195]
// CHECK-NEXT:  [196, 197]
// CHECK-NEXT:  [198, 199]
// x2: low = 248 - 64m - 8g + 2t, high = low + 1
// CHECK: sizes = [32, 4]
// CHECK-NEXT: {{\[}}[248, 249, 184, 185]
// CHECK-NEXT:  [250, 251, 186, 187]
// CHECK-NEXT:  [252, 253, 188, 189]
// CHECK-NEXT:  [254, 255, 190, 191]
// CHECK-NEXT:  [240, 241, 176, 177]
// CHECK-NEXT:  [242, 243, 178, 179]
// CHECK-NEXT:  [244, 245, 180, 181]
// CHECK-NEXT:  [246, 247, 182, 183]
// CHECK-NEXT:  [232, 233, 168, 169]
// CHECK-NEXT:  [234, 235, 170, 171]
// CHECK-NEXT:  [236, 237, 172, 173]
// CHECK-NEXT:  [238, 239, 174, 175]
// CHECK-NEXT:  [224, 225, 160, 161]
// CHECK-NEXT:  [226, 227, 162, 163]
// CHECK-NEXT:  [228, 229, 164, 165]
// CHECK-NEXT:  [230, 231, 166, 167]
// CHECK-NEXT:  [216, 217, 152, 153]
// CHECK-NEXT:  [218, 219, 154, 155]
// CHECK-NEXT:  [220, 221, 156, 157]
// CHECK-NEXT:  [222, 223, 158, 159]
// CHECK-NEXT:  [208, 209, 144, 145]
// CHECK-NEXT:  [210, 211, 146, 147]
// CHECK-NEXT:  [212, 213, 148, 149]
// CHECK-NEXT:  [214, 215, 150, 151]
// CHECK-NEXT:  [200, 201, 136, 137]
// CHECK-NEXT:  [202, 203, 138, 139]
// CHECK-NEXT:  [204, 205, 140, 141]
// CHECK-NEXT:  [206, 207, 142, 143]
// CHECK-NEXT:  [192, 193, 128, 129]
// CHECK-NEXT:  [194, 195, 130, 131]
// CHECK-NEXT:  [196, 197, 132, 133]
// CHECK-NEXT:  [198, 199, 134, 135]
// x4: low = 248 - 64m - 8g + 2t, high = low + 1
// CHECK: sizes = [32, 8]
// CHECK-NEXT: {{\[}}[248, 249, 184, 185, 120, 121, 56, 57]
// CHECK-NEXT:  [250, 251, 186, 187, 122, 123, 58, 59]
// CHECK-NEXT:  [252, 253, 188, 189, 124, 125, 60, 61]
// CHECK-NEXT:  [254, 255, 190, 191, 126, 127, 62, 63]
// CHECK-NEXT:  [240, 241, 176, 177, 112, 113, 48, 49]
// CHECK-NEXT:  [242, 243, 178, 179, 114, 115, 50, 51]
// CHECK-NEXT:  [244, 245, 180, 181, 116, 117, 52, 53]
// CHECK-NEXT:  [246, 247, 182, 183, 118, 119, 54, 55]
// CHECK-NEXT:  [232, 233, 168, 169, 104, 105, 40, 41]
// CHECK-NEXT:  [234, 235, 170, 171, 106, 107, 42, 43]
// CHECK-NEXT:  [236, 237, 172, 173, 108, 109, 44, 45]
// CHECK-NEXT:  [238, 239, 174, 175, 110, 111, 46, 47]
// CHECK-NEXT:  [224, 225, 160, 161, 96, 97, 32, 33]
// CHECK-NEXT:  [226, 227, 162, 163, 98, 99, 34, 35]
// CHECK-NEXT:  [228, 229, 164, 165, 100, 101, 36, 37]
// CHECK-NEXT:  [230, 231, 166, 167, 102, 103, 38, 39]
// CHECK-NEXT:  [216, 217, 152, 153, 88, 89, 24, 25]
// CHECK-NEXT:  [218, 219, 154, 155, 90, 91, 26, 27]
// CHECK-NEXT:  [220, 221, 156, 157, 92, 93, 28, 29]
// CHECK-NEXT:  [222, 223, 158, 159, 94, 95, 30, 31]
// CHECK-NEXT:  [208, 209, 144, 145, 80, 81, 16, 17]
// CHECK-NEXT:  [210, 211, 146, 147, 82, 83, 18, 19]
// CHECK-NEXT:  [212, 213, 148, 149, 84, 85, 20, 21]
// CHECK-NEXT:  [214, 215, 150, 151, 86, 87, 22, 23]
// CHECK-NEXT:  [200, 201, 136, 137, 72, 73, 8, 9]
// CHECK-NEXT:  [202, 203, 138, 139, 74, 75, 10, 11]
// CHECK-NEXT:  [204, 205, 140, 141, 76, 77, 12, 13]
// CHECK-NEXT:  [206, 207, 142, 143, 78, 79, 14, 15]
// CHECK-NEXT:  [192, 193, 128, 129, 64, 65, 0, 1]
// CHECK-NEXT:  [194, 195, 130, 131, 66, 67, 2, 3]
// CHECK-NEXT:  [196, 197, 132, 133, 68, 69, 4, 5]
// CHECK-NEXT:  [198, 199, 134, 135, 70, 71, 6, 7]
// x1.trans: low = 248 - 64m - 16t + g, high = low - 8
// CHECK: sizes = [32, 2]
// CHECK-NEXT: {{\[}}[248, 240]
// CHECK-NEXT:  [232, 224]
// CHECK-NEXT:  [216, 208]
// CHECK-NEXT:  [200, 192]
// CHECK-NEXT:  [249, 241]
// CHECK-NEXT:  [233, 225]
// CHECK-NEXT:  [217, 209]
// CHECK-NEXT:  [201, 193]
// CHECK-NEXT:  [250, 242]
// CHECK-NEXT:  [234, 226]
// CHECK-NEXT:  [218, 210]
// CHECK-NEXT:  [202, 194]
// CHECK-NEXT:  [251, 243]
// CHECK-NEXT:  [235, 227]
// CHECK-NEXT:  [219, 211]
// CHECK-NEXT:  [203, 195]
// CHECK-NEXT:  [252, 244]
// CHECK-NEXT:  [236, 228]
// CHECK-NEXT:  [220, 212]
// CHECK-NEXT:  [204, 196]
// CHECK-NEXT:  [253, 245]
// CHECK-NEXT:  [237, 229]
// CHECK-NEXT:  [221, 213]
// CHECK-NEXT:  [205, 197]
// CHECK-NEXT:  [254, 246]
// CHECK-NEXT:  [238, 230]
// CHECK-NEXT:  [222, 214]
// CHECK-NEXT:  [206, 198]
// CHECK-NEXT:  [255, 247]
// CHECK-NEXT:  [239, 231]
// CHECK-NEXT:  [223, 215]
// CHECK-NEXT:  [207, 199]
// x2.trans: low = 248 - 64m - 16t + g, high = low - 8
// CHECK: sizes = [32, 4]
// CHECK-NEXT: {{\[}}[248, 240, 184, 176]
// CHECK-NEXT:  [232, 224, 168, 160]
// CHECK-NEXT:  [216, 208, 152, 144]
// CHECK-NEXT:  [200, 192, 136, 128]
// CHECK-NEXT:  [249, 241, 185, 177]
// CHECK-NEXT:  [233, 225, 169, 161]
// CHECK-NEXT:  [217, 209, 153, 145]
// CHECK-NEXT:  [201, 193, 137, 129]
// CHECK-NEXT:  [250, 242, 186, 178]
// CHECK-NEXT:  [234, 226, 170, 162]
// CHECK-NEXT:  [218, 210, 154, 146]
// CHECK-NEXT:  [202, 194, 138, 130]
// CHECK-NEXT:  [251, 243, 187, 179]
// CHECK-NEXT:  [235, 227, 171, 163]
// CHECK-NEXT:  [219, 211, 155, 147]
// CHECK-NEXT:  [203, 195, 139, 131]
// CHECK-NEXT:  [252, 244, 188, 180]
// CHECK-NEXT:  [236, 228, 172, 164]
// CHECK-NEXT:  [220, 212, 156, 148]
// CHECK-NEXT:  [204, 196, 140, 132]
// CHECK-NEXT:  [253, 245, 189, 181]
// CHECK-NEXT:  [237, 229, 173, 165]
// CHECK-NEXT:  [221, 213, 157, 149]
// CHECK-NEXT:  [205, 197, 141, 133]
// CHECK-NEXT:  [254, 246, 190, 182]
// CHECK-NEXT:  [238, 230, 174, 166]
// CHECK-NEXT:  [222, 214, 158, 150]
// CHECK-NEXT:  [206, 198, 142, 134]
// CHECK-NEXT:  [255, 247, 191, 183]
// CHECK-NEXT:  [239, 231, 175, 167]
// CHECK-NEXT:  [223, 215, 159, 151]
// CHECK-NEXT:  [207, 199, 143, 135]
// x4.trans: low = 248 - 64m - 16t + g, high = low - 8
// CHECK: sizes = [32, 8]
// CHECK-NEXT: {{\[}}[248, 240, 184, 176, 120, 112, 56, 48]
// CHECK-NEXT:  [232, 224, 168, 160, 104, 96, 40, 32]
// CHECK-NEXT:  [216, 208, 152, 144, 88, 80, 24, 16]
// CHECK-NEXT:  [200, 192, 136, 128, 72, 64, 8, 0]
// CHECK-NEXT:  [249, 241, 185, 177, 121, 113, 57, 49]
// CHECK-NEXT:  [233, 225, 169, 161, 105, 97, 41, 33]
// CHECK-NEXT:  [217, 209, 153, 145, 89, 81, 25, 17]
// CHECK-NEXT:  [201, 193, 137, 129, 73, 65, 9, 1]
// CHECK-NEXT:  [250, 242, 186, 178, 122, 114, 58, 50]
// CHECK-NEXT:  [234, 226, 170, 162, 106, 98, 42, 34]
// CHECK-NEXT:  [218, 210, 154, 146, 90, 82, 26, 18]
// CHECK-NEXT:  [202, 194, 138, 130, 74, 66, 10, 2]
// CHECK-NEXT:  [251, 243, 187, 179, 123, 115, 59, 51]
// CHECK-NEXT:  [235, 227, 171, 163, 107, 99, 43, 35]
// CHECK-NEXT:  [219, 211, 155, 147, 91, 83, 27, 19]
// CHECK-NEXT:  [203, 195, 139, 131, 75, 67, 11, 3]
// CHECK-NEXT:  [252, 244, 188, 180, 124, 116, 60, 52]
// CHECK-NEXT:  [236, 228, 172, 164, 108, 100, 44, 36]
// CHECK-NEXT:  [220, 212, 156, 148, 92, 84, 28, 20]
// CHECK-NEXT:  [204, 196, 140, 132, 76, 68, 12, 4]
// CHECK-NEXT:  [253, 245, 189, 181, 125, 117, 61, 53]
// CHECK-NEXT:  [237, 229, 173, 165, 109, 101, 45, 37]
// CHECK-NEXT:  [221, 213, 157, 149, 93, 85, 29, 21]
// CHECK-NEXT:  [205, 197, 141, 133, 77, 69, 13, 5]
// CHECK-NEXT:  [254, 246, 190, 182, 126, 118, 62, 54]
// CHECK-NEXT:  [238, 230, 174, 166, 110, 102, 46, 38]
// CHECK-NEXT:  [222, 214, 158, 150, 94, 86, 30, 22]
// CHECK-NEXT:  [206, 198, 142, 134, 78, 70, 14, 6]
// CHECK-NEXT:  [255, 247, 191, 183, 127, 119, 63, 55]
// CHECK-NEXT:  [239, 231, 175, 167, 111, 103, 47, 39]
// CHECK-NEXT:  [223, 215, 159, 151, 95, 87, 31, 23]
// CHECK-NEXT:  [207, 199, 143, 135, 79, 71, 15, 7]
