// A wait on a plain load (docs/gpu.md, "waits between blocks"): block 1
// spins until block 0 sets a flag, reading it with a plain (non-atomic,
// non-volatile) load. LLVM hoists that load out of the loop on the GPU, so
// once the flag reads 0 the loop never ends there. The emulator runs the
// optimized kernel and reports the loop without exit when the thread enters
// it, instead of hanging (the timeout only guards against a real hang).
//
// Started in order on one worker, block 0 sets the flag before block 1
// reads it (and stores flag + 6): the loop is never entered (the plain
// read of a word another block wrote is a race, so that check is off).
// RUN: sed -e '/VOLATILE/d' -e '/RELAXED/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.plain.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_RACECHECK=0 ssd-runner %t.plain.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// Started from the last block, block 1 reads 0 and enters the endless loop:
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not timeout 120 ssd-runner %t.plain.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=HANG
//
// Polled with a volatile load (ld.volatile: read every iteration), the same
// order is a wait that no running block can end, reported as a deadlock:
// RUN: sed -e '/PLAIN/d' -e '/RELAXED/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.volatile.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not timeout 120 ssd-runner %t.volatile.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=DEADLOCK
//
// Polled with a relaxed atomic load (ld.relaxed.gpu), likewise: a thread
// that reads a word again with nothing written to it in between waits for a
// write (docs/gpu.md), whatever kind of strong load it reads with. Two
// workers in order: block 1 waits (or not) until block 0's release store.
// RUN: sed -e '/PLAIN/d' -e '/VOLATILE/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.relaxed.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=2 ssd-runner %t.relaxed.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not timeout 120 ssd-runner %t.relaxed.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=RELAXED

// CHECK: [1, 7]

// HANG: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): thread (0,0,0) entered a loop that never exits, a hang on a GPU (main_kernel: a loop without exit, entered at {{.*}}; a wait on a plain load becomes one when the compiler hoists the load out of the loop: poll with ld.acquire or ld.volatile)
// HANG-NOT: error

// RELAXED: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): thread (0,0,0) waits for word 0x{{[0-9a-f]+}} (main_kernel: {{.*}}load atomic i32{{.*}} monotonic{{.*}}) that no running block will write: a deadlock

// DEADLOCK: ssd-gpu-emulator: error: kernel main_kernel block (1,0,0): thread (0,0,0) waits for word 0x{{[0-9a-f]+}} (main_kernel: {{.*}}load volatile i32{{.*}}) that no running block will write: a deadlock

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<2xi32>
  // [0]: the flag, [1]: block 1's result.
  %d = gpu.alloc () : memref<2xi32>
  gpu.memset %d, %zero : memref<2xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i6 = arith.constant 6 : i32
    %base = memref.extract_aligned_pointer_as_index %d : memref<2xi32> -> index
    %flagInt = arith.index_cast %base : index to i64
    %flagPtr = llvm.inttoptr %flagInt : i64 to !llvm.ptr
    %first = arith.cmpi eq, %bx, %k0 : index
    scf.if %first {
      llvm.store %i1, %flagPtr atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr
    } else {
      // The loop's result is used: MLIR deletes a loop without side effects
      // or results before LLVM sees it.
      %seen = scf.while : () -> i32 {
        %f = memref.load %d[%k0] : memref<2xi32> // PLAIN
        %f = llvm.load volatile %flagPtr {alignment = 4 : i64} : !llvm.ptr -> i32 // VOLATILE
        %f = llvm.load %flagPtr atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr -> i32 // RELAXED
        %unset = arith.cmpi eq, %f, %i0 : i32
        scf.condition(%unset) %f : i32
      } do {
      ^bb0(%ignored: i32):
        scf.yield
      }
      %r = arith.addi %seen, %i6 : i32
      memref.store %r, %d[%k1] : memref<2xi32>
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<2xi32>, memref<2xi32>
  %u = memref.cast %h : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
