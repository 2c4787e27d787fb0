// The cross-block race check (docs/gpu.md, "The GPU emulator": races
// between blocks in device memory) on a publication chain: the block with
// ticket t (an atomic counter taken at its start) waits until the block
// with ticket t - 1 published (thread 0 polls its flag with ld.acquire, then
// membar.gl and a block barrier), then every thread tx reads word tx of the
// predecessor's data and word tx of the data of ticket 0 (published to t
// only through the chain: transitively), and writes
//   data[t][tx] = data[t - 1][tx] + data[0][tx] + tx + 1 = (2t + 1)(tx + 1);
// then a block barrier and st.release.gpu of its flag by thread 0: PTX
// releases are cumulative, so it publishes what the barrier ordered before
// it (the other threads' stores), with no fence in those threads.
//
// Correct, in any start order and with any number of workers:
// RUN: sed -e '/VARIANT/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.ok.mlir
// RUN: ssd-runner %t.ok.mlir --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.ok.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.ok.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=4 ssd-runner %t.ok.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=4 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.ok.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// The poll as a relaxed load followed by thread 0's membar.gl (an acquire
// pattern) is as good:
// RUN: sed -e '/ACQUIRE-LOAD/d' -e '/VARIANT-RELAXED-LOAD/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.relaxed-fence.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.relaxed-fence.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// Without the acquire (a relaxed poll and no fence after it), thread 0 of
// ticket 1 reads the predecessor's data with nothing ordering it after the
// writes. One worker, so the blocks run one after the other and the poll
// never spins: the reads happen, and are reported.
// RUN: sed -e '/ACQUIRE-LOAD/d' -e '/ACQUIRE-FENCE/d' -e '/VARIANT-RELAXED-LOAD/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.no-acquire.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.no-acquire.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=NOSYNC
//
// Without the release (a plain store of the flag), the acquire poll itself
// reads a word another block wrote with a plain store: a race (and the
// data reads after it would be one too).
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-PLAIN-STORE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.no-release.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.no-release.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not ssd-runner %t.no-release.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=FLAG
// The check can be turned off (the shared-memory one with it):
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_RACECHECK=0 ssd-runner %t.no-release.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=OFF
//
// Fences in the writers change nothing:
// RUN: sed -e '/WRITER-FENCE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.writer-fence.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.writer-fence.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// Without the barrier before the release, only thread 0's stores are
// published by it (program order); thread 1's are not, even fenced.
// RUN: sed -e '/PUBLISH-BARRIER/d' -e '/WRITER-FENCE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.no-barrier.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.no-barrier.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=NOBARRIER

// An atomic read-modify-write is relaxed in PTX: MLIR gives
// memref.atomic_rmw `atomicrmw ... acq_rel`, but NVPTX emits a plain
// `atom.global.add` (no .sem: relaxed), so the emulator gives it no
// acquire or release of its own. As the flag's writer after the barrier
// and thread 0's fence.acq_rel.gpu (PTX's release pattern: a fence, then a
// relaxed write), it publishes like the release store:
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-ATOMIC-FLAG/s/VARIANT//' -e '/VARIANT-FLAG-FENCE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.atomic-flag.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.atomic-flag.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The atomic add alone publishes nothing: thread 0 of ticket 1 reads
// ticket 0's data unordered.
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-ATOMIC-FLAG/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.atomic-only.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.atomic-only.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=ATOMIC
// Nor does it after fences in every thread before the barrier: thread 0's
// fence precedes the barrier, so the other threads' stores do not precede
// it, and a fence publishes only what precedes it.
// RUN: sed -e '/RELEASE-STORE/d' -e '/WRITER-FENCE/s/VARIANT//' -e '/VARIANT-ATOMIC-FLAG/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.atomic-fenced-writers.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.atomic-fenced-writers.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=FENCED-WRITERS
// A cmpxchg keeps its ordering in PTX (atom.release.gpu.cas): with release
// semantics it publishes like the release store; relaxed
// (atom.relaxed.gpu.cas) and without the fences, it publishes nothing.
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-CAS-RELEASE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.cas-release.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.cas-release.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-CAS-RELAXED/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.cas-relaxed.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.cas-relaxed.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=ATOMIC
// A relaxed store of the flag (st.relaxed.gpu from LLVM's monotonic atomic,
// or st.volatile) is no release either: without a fence before it, it
// publishes nothing, and thread 0 of ticket 1 reads ticket 0's data
// unordered; after thread 0's fence (PTX's release pattern) it publishes
// like the release store.
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-RELAXED-STORE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.relaxed-store.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.relaxed-store.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-RELAXED-STORE/s/VARIANT//' -e '/VARIANT-FLAG-FENCE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.fenced-relaxed-store.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.fenced-relaxed-store.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-VOLATILE-STORE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.volatile-store.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 not ssd-runner %t.volatile-store.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: sed -e '/RELEASE-STORE/d' -e '/VARIANT-VOLATILE-STORE/s/VARIANT//' -e '/VARIANT-FLAG-FENCE/s/VARIANT//' -e '/VARIANT/d' %s \
// RUN:   | ssd-opt --ssd-gpu-lower-to-emulator > %t.fenced-volatile-store.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.fenced-volatile-store.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK-NOT: error
// CHECK: sizes = [265]
// CHECK-NEXT: [8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63, 66, 69, 72, 75, 78, 81, 84, 87, 90, 93, 96, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115, 120, 125, 130, 135, 140, 145, 150, 155, 160, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, 133, 140, 147, 154, 161, 168, 175, 182, 189, 196, 203, 210, 217, 224, 9, 18, 27, 36, 45, 54, 63, 72, 81, 90, 99, 108, 117, 126, 135, 144, 153, 162, 171, 180, 189, 198, 207, 216, 225, 234, 243, 252, 261, 270, 279, 288, 11, 22, 33, 44, 55, 66, 77, 88, 99, 110, 121, 132, 143, 154, 165, 176, 187, 198, 209, 220, 231, 242, 253, 264, 275, 286, 297, 308, 319, 330, 341, 352, 13, 26, 39, 52, 65, 78, 91, 104, 117, 130, 143, 156, 169, 182, 195, 208, 221, 234, 247, 260, 273, 286, 299, 312, 325, 338, 351, 364, 377, 390, 403, 416, 15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195, 210, 225, 240, 255, 270, 285, 300, 315, 330, 345, 360, 375, 390, 405, 420, 435, 450, 465, 480]

// Ticket 1 (block 1 in order), thread 0 reads word 0 of ticket 0's data
// (block 0): allocation offset 4 * 9.
// NOSYNC: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (1060 bytes)+36: thread (0,0,0) reads it (main_kernel: {{.*}}load i32{{.*}}) and thread (0,0,0) of block (0,0,0) wrote it earlier in this launch; nothing orders the two blocks
// NOSYNC-NOT: error

// FLAG: ssd-gpu-emulator: error: kernel main_kernel block ({{[0-9]}},0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (1060 bytes)+4: thread (0,0,0) reads it (main_kernel: {{.*}}load atomic i32{{.*}} acquire{{.*}}) and thread (0,0,0) of block ({{[0-9]}},0,0) wrote it earlier in this launch; nothing orders the two blocks
// FLAG-NOT: error

// OFF-NOT: error
// OFF: sizes = [265]
// OFF-NEXT: [8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63, 66, 69, 72, 75, 78, 81, 84, 87, 90, 93, 96, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115, 120, 125, 130, 135, 140, 145, 150, 155, 160, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, 133, 140, 147, 154, 161, 168, 175, 182, 189, 196, 203, 210, 217, 224, 9, 18, 27, 36, 45, 54, 63, 72, 81, 90, 99, 108, 117, 126, 135, 144, 153, 162, 171, 180, 189, 198, 207, 216, 225, 234, 243, 252, 261, 270, 279, 288, 11, 22, 33, 44, 55, 66, 77, 88, 99, 110, 121, 132, 143, 154, 165, 176, 187, 198, 209, 220, 231, 242, 253, 264, 275, 286, 297, 308, 319, 330, 341, 352, 13, 26, 39, 52, 65, 78, 91, 104, 117, 130, 143, 156, 169, 182, 195, 208, 221, 234, 247, 260, 273, 286, 299, 312, 325, 338, 351, 364, 377, 390, 403, 416, 15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195, 210, 225, 240, 255, 270, 285, 300, 315, 330, 345, 360, 375, 390, 405, 420, 435, 450, 465, 480]

// NOBARRIER: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (1060 bytes)+40: thread (1,0,0) reads it (main_kernel: {{.*}}load i32{{.*}}) and thread (1,0,0) of block (0,0,0) wrote it earlier in this launch; the release of block (0,0,0) that this thread acquired does not publish that access: it came after the release, or thread (1,0,0) of block (0,0,0) made it after the last block barrier before the release
// NOBARRIER-NOT: error

// FENCED-WRITERS: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (1060 bytes)+40: thread (1,0,0) reads it (main_kernel: {{.*}}load i32{{.*}}) and thread (1,0,0) of block (0,0,0) wrote it earlier in this launch; the release of block (0,0,0) that this thread acquired does not publish that access
// FENCED-WRITERS-NOT: error

// ATOMIC: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): global-memory race between blocks on device allocation #{{[0-9]+}} (1060 bytes)+36: thread (0,0,0) reads it (main_kernel: {{.*}}load i32{{.*}}) and thread (0,0,0) of block (0,0,0) wrote it earlier in this launch; the release of block (0,0,0) that this thread acquired does not publish that access: it came after the release, or thread (0,0,0) of block (0,0,0) made it after the last block barrier before the release
// ATOMIC-NOT: error

func.func @main() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<265xi32>
  // [0]: ticket counter, [1 + t]: flag of ticket t, [9 + 32 t + tx]: data.
  %d = gpu.alloc () : memref<265xi32>
  gpu.memset %d, %zero : memref<265xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%word : memref<1xi32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k9 = arith.constant 9 : index
    %k32 = arith.constant 32 : index
    %c4i = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %first = arith.cmpi eq, %tx, %k0 : index
    scf.if %first {
      %ticket = memref.atomic_rmw addi %i1, %d[%k0] : (i32, memref<265xi32>) -> i32
      memref.store %ticket, %word[%k0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %ticketI32 = memref.load %word[%k0] : memref<1xi32, #gpu.address_space<workgroup>>
    %t = arith.index_cast %ticketI32 : i32 to index
    %base = memref.extract_aligned_pointer_as_index %d : memref<265xi32> -> index
    %notFirst = arith.cmpi ugt, %t, %k0 : index
    %waits = arith.andi %first, %notFirst : i1
    scf.if %waits {
      %p = arith.subi %t, %k1 : index
      %flagAt = arith.addi %p, %k1 : index
      %flagByte = arith.muli %flagAt, %c4i : index
      %flagAddr = arith.addi %base, %flagByte : index
      %flagInt = arith.index_cast %flagAddr : index to i64
      %flagPtr = llvm.inttoptr %flagInt : i64 to !llvm.ptr
      scf.while : () -> () {
        %f = llvm.load %flagPtr atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32 // ACQUIRE-LOAD
        %f = llvm.load %flagPtr atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr -> i32 // VARIANT-RELAXED-LOAD
        %unset = arith.cmpi eq, %f, %i0 : i32
        scf.condition(%unset)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu> // ACQUIRE-FENCE
    }
    gpu.barrier
    %tI32 = arith.index_cast %t : index to i32
    %txI32 = arith.index_cast %tx : index to i32
    %own0 = arith.addi %txI32, %i1 : i32
    %inputs = scf.if %notFirst -> (i32) {
      %p = arith.subi %t, %k1 : index
      %prevRow = arith.muli %p, %k32 : index
      %prevAt0 = arith.addi %prevRow, %tx : index
      %prevAt = arith.addi %prevAt0, %k9 : index
      %prev = memref.load %d[%prevAt] : memref<265xi32>
      %firstAt = arith.addi %tx, %k9 : index
      %firstData = memref.load %d[%firstAt] : memref<265xi32>
      %s = arith.addi %prev, %firstData : i32
      scf.yield %s : i32
    } else {
      scf.yield %i0 : i32
    }
    %inc = arith.muli %own0, %i1 : i32
    %val = arith.addi %inputs, %inc : i32
    %row = arith.muli %t, %k32 : index
    %at0 = arith.addi %row, %tx : index
    %at = arith.addi %at0, %k9 : index
    memref.store %val, %d[%at] : memref<265xi32>
    nvvm.memory.barrier #nvvm.mem_scope<gpu> // VARIANT-WRITER-FENCE
    gpu.barrier // PUBLISH-BARRIER
    scf.if %first {
      %myFlag = arith.addi %t, %k1 : index
      %myByte = arith.muli %myFlag, %c4i : index
      %myAddr = arith.addi %base, %myByte : index
      %myInt = arith.index_cast %myAddr : index to i64
      %myPtr = llvm.inttoptr %myInt : i64 to !llvm.ptr
      llvm.store %i1, %myPtr atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr // RELEASE-STORE
      llvm.store %i1, %myPtr {alignment = 4 : i64} : i32, !llvm.ptr // VARIANT-PLAIN-STORE
      llvm.fence syncscope("device") release // VARIANT-FLAG-FENCE
      llvm.store %i1, %myPtr atomic syncscope("device") monotonic {alignment = 4 : i64} : i32, !llvm.ptr // VARIANT-RELAXED-STORE
      llvm.store volatile %i1, %myPtr {alignment = 4 : i64} : i32, !llvm.ptr // VARIANT-VOLATILE-STORE
      %old = memref.atomic_rmw addi %i1, %d[%myFlag] : (i32, memref<265xi32>) -> i32 // VARIANT-ATOMIC-FLAG
      %cas = llvm.cmpxchg %myPtr, %i0, %i1 syncscope("device") release monotonic {alignment = 4 : i64} : !llvm.ptr, i32 // VARIANT-CAS-RELEASE
      %cas = llvm.cmpxchg %myPtr, %i0, %i1 syncscope("device") monotonic monotonic {alignment = 4 : i64} : !llvm.ptr, i32 // VARIANT-CAS-RELAXED
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<265xi32>, memref<265xi32>
  %u = memref.cast %h : memref<265xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
