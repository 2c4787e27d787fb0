// The cross-block race check (docs/gpu.md, "The GPU emulator") without any
// synchronisation between two blocks of 32 threads: block 0 writes
// d[tx] = tx + 1 and block 1 reads d[tx] into d[32 + tx] (READ lines), or
// both blocks write d[64 + tx] (WRITE lines).
//
// Block 1 reading what block 0 wrote in the same launch: blocks started in
// order, the read comes second (a read after a write); from the last block,
// the write comes second (a write after a read). Either is reported.
// RUN: sed -e '/WRITE-SAME/d' -e '/VARIANT/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.read.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.read.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not ssd-runner %t.read.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=WAR
// RUN: env SSD_GPU_EMULATOR_THREADS=2 not ssd-runner %t.read.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=ANY
//
// Two blocks writing the same words:
// RUN: sed -e '/READ-OTHER/d' -e '/VARIANT/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.write.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.write.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=WAW
//
// Data written before the launch (the host's memset) or by an earlier
// launch is no race: the stream orders launches. The read variant as two
// launches of one block each (the writer, then the reader):
// RUN: sed -e '/WRITE-SAME/d' -e '/TWO-BLOCKS/d' -e 's/^ *\/\/ SECOND-LAUNCH//' \
// RUN:   -e '/VARIANT-ONE-BLOCK/s/VARIANT//' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.launches.mlir
// RUN: ssd-runner %t.launches.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=LAUNCHES

// RAW: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (384 bytes)+0: thread (0,0,0) reads it (main_kernel: {{.*}}load i32{{.*}}) and thread (0,0,0) of block (0,0,0) wrote it earlier in this launch; nothing orders the two blocks
// RAW-NOT: error
// WAR: ssd-gpu-emulator: error: kernel main_kernel block (0,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (384 bytes)+0: thread (0,0,0) writes it (main_kernel: store i32{{.*}}) and thread (0,0,0) of block (1,0,0) read it earlier in this launch; nothing orders the two blocks
// WAR-NOT: error
// ANY: ssd-gpu-emulator: error: kernel main_kernel block ({{[01]}},0,0): global-memory race between blocks on device allocation
// WAW: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (384 bytes)+256: thread (0,0,0) writes it (main_kernel: store i32{{.*}}) and thread (0,0,0) of block (0,0,0) wrote it earlier in this launch; nothing orders the two blocks
// WAW-NOT: error
// LAUNCHES-NOT: error
// LAUNCHES: sizes = [96]
// LAUNCHES-NEXT: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 0,

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %grid = arith.constant 2 : index // TWO-BLOCKS
  %grid = arith.constant 1 : index // VARIANT-ONE-BLOCK
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<96xi32>
  %d = gpu.alloc () : memref<96xi32>
  gpu.memset %d, %zero : memref<96xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k32 = arith.constant 32 : index
    %k64 = arith.constant 64 : index
    %i1 = arith.constant 1 : i32
    %b = arith.addi %bx, %c0 : index
    %txI32 = arith.index_cast %tx : index to i32
    %v = arith.addi %txI32, %i1 : i32
    %isWriter = arith.cmpi eq, %b, %k0 : index
    scf.if %isWriter {
      memref.store %v, %d[%tx] : memref<96xi32> // READ-OTHER
    } else {
      %r = memref.load %d[%tx] : memref<96xi32> // READ-OTHER
      %to = arith.addi %tx, %k32 : index // READ-OTHER
      memref.store %r, %d[%to] : memref<96xi32> // READ-OTHER
    }
    %same = arith.addi %tx, %k64 : index // WRITE-SAME
    memref.store %v, %d[%same] : memref<96xi32> // WRITE-SAME
    gpu.terminator
  }
  // SECOND-LAUNCH %second = arith.constant 1 : index
  // SECOND-LAUNCH gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid, %gy = %c1, %gz = %c1)
  // SECOND-LAUNCH            threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
  // SECOND-LAUNCH   %k0 = arith.constant 0 : index
  // SECOND-LAUNCH   %k32 = arith.constant 32 : index
  // SECOND-LAUNCH   %k64 = arith.constant 64 : index
  // SECOND-LAUNCH   %i1 = arith.constant 1 : i32
  // SECOND-LAUNCH   %b = arith.addi %bx, %second : index
  // SECOND-LAUNCH   %txI32 = arith.index_cast %tx : index to i32
  // SECOND-LAUNCH   %v = arith.addi %txI32, %i1 : i32
  // SECOND-LAUNCH   %isWriter = arith.cmpi eq, %b, %k0 : index
  // SECOND-LAUNCH   scf.if %isWriter {
  // SECOND-LAUNCH     memref.store %v, %d[%tx] : memref<96xi32> // READ-OTHER
  // SECOND-LAUNCH   } else {
  // SECOND-LAUNCH     %r = memref.load %d[%tx] : memref<96xi32> // READ-OTHER
  // SECOND-LAUNCH     %to = arith.addi %tx, %k32 : index // READ-OTHER
  // SECOND-LAUNCH     memref.store %r, %d[%to] : memref<96xi32> // READ-OTHER
  // SECOND-LAUNCH   }
  // SECOND-LAUNCH   %same = arith.addi %tx, %k64 : index // WRITE-SAME
  // SECOND-LAUNCH   memref.store %v, %d[%same] : memref<96xi32> // WRITE-SAME
  // SECOND-LAUNCH   gpu.terminator
  // SECOND-LAUNCH }
  gpu.memcpy %h, %d : memref<96xi32>, memref<96xi32>
  %u = memref.cast %h : memref<96xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
