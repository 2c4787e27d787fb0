// Waits between blocks (docs/gpu.md, "Waits between blocks"): a chain in
// which block k waits until block k - 1 published its running sum (data,
// membar.gl, st.release of a flag; the waiter polls with ld.acquire), then
// publishes sum_k = sum_{k-1} + k + 1, so out[k] = (k + 1)(k + 2) / 2.
//
// With a ticket (an atomic counter taken when the block starts) as the
// chain position, every wait is for a block that is running or done, in
// any start order and with any number of workers:
// RUN: sed -e '/BLOCKIDX/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.ticket.mlir
// RUN: ssd-runner %t.ticket.mlir --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.ticket.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=4 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse ssd-runner %t.ticket.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// The L2 rule of the cost model (docs/gpu.md, "Cost counters"): every read
// here is of a sector the launch wrote before (the 68 bytes of %d are
// sectors 0-2; block k reads its predecessor's flag, sector 0, and sum,
// sector 1, after blocks wrote them; block 0 reads nothing), so they are
// L2 hits and no DRAM read is counted; the writes (tickets, flags, sums)
// touch all three sectors. One worker, blocks in order: deterministic.
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.ticket.mlir --emulator-costs \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=L2
// L2: kernel main_kernel: launches 1 blocks 8 threads 256 warps 8
// L2: dram: read sectors 0 written sectors 3 (96 bytes)
// L2-NEXT: l2: read sectors 2 written earlier in the launch (64 bytes)
//
// With blockIdx.x as the position the kernel relies on blocks starting in
// index order, which a GPU does not promise. Started in order it happens to
// work; started from the last block, the first wait can never end: one
// worker reports it at once, and so do two (each spins on a block that no
// running block will finish) instead of hanging.
// RUN: sed -e '/TICKET/d' %s | ssd-opt --ssd-gpu-lower-to-emulator > %t.blockidx.mlir
// RUN: env SSD_GPU_EMULATOR_THREADS=1 ssd-runner %t.blockidx.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: env SSD_GPU_EMULATOR_THREADS=1 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not ssd-runner %t.blockidx.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: env SSD_GPU_EMULATOR_THREADS=2 SSD_GPU_EMULATOR_BLOCK_ORDER=reverse not ssd-runner %t.blockidx.mlir \
// RUN:   --shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=DEADLOCK

// The ticket counter, the 8 flags, the 8 sums.
// CHECK: sizes = [17]
// CHECK-NEXT: [8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 6, 10, 15, 21, 28, 36]

// DEADLOCK: ssd-gpu-emulator: error: kernel main_kernel block ({{[0-9]}},0,0): thread (0,0,0) waits for word 0x{{[0-9a-f]+}} (main_kernel: {{.*}}load atomic i32{{.*}} acquire{{.*}}) that no running block will write: a deadlock

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  %h = memref.alloc() : memref<17xi32>
  // [0]: ticket counter, [1 + k]: flag of block k, [9 + k]: sum of block k.
  %d = gpu.alloc () : memref<17xi32>
  gpu.memset %d, %zero : memref<17xi32>, i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%word : memref<1xi32, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k9 = arith.constant 9 : index
    %c4i = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %first = arith.cmpi eq, %tx, %k0 : index
    scf.if %first {
      %ticket = memref.atomic_rmw addi %i1, %d[%k0] : (i32, memref<17xi32>) -> i32
      memref.store %ticket, %word[%k0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %ticketI32 = memref.load %word[%k0] : memref<1xi32, #gpu.address_space<workgroup>>
    %t = arith.index_cast %ticketI32 : i32 to index // TICKET
    %t = arith.addi %bx, %k0 : index // BLOCKIDX
    %base = memref.extract_aligned_pointer_as_index %d : memref<17xi32> -> index
    scf.if %first {
      %notFirst = arith.cmpi ugt, %t, %k0 : index
      %prev = scf.if %notFirst -> (i32) {
        %p = arith.subi %t, %k1 : index
        %flagAt = arith.addi %p, %k1 : index
        %flagByte = arith.muli %flagAt, %c4i : index
        %flagAddr = arith.addi %base, %flagByte : index
        %flagInt = arith.index_cast %flagAddr : index to i64
        %flagPtr = llvm.inttoptr %flagInt : i64 to !llvm.ptr
        scf.while : () -> () {
          %f = llvm.load %flagPtr atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
          %unset = arith.cmpi eq, %f, %i0 : i32
          scf.condition(%unset)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %sumAt = arith.addi %p, %k9 : index
        %s = memref.load %d[%sumAt] : memref<17xi32>
        scf.yield %s : i32
      } else {
        scf.yield %i0 : i32
      }
      %tI32 = arith.index_cast %t : index to i32
      %inc = arith.addi %tI32, %i1 : i32
      %sum = arith.addi %prev, %inc : i32
      %mySum = arith.addi %t, %k9 : index
      memref.store %sum, %d[%mySum] : memref<17xi32>
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %myFlag = arith.addi %t, %k1 : index
      %myByte = arith.muli %myFlag, %c4i : index
      %myAddr = arith.addi %base, %myByte : index
      %myInt = arith.index_cast %myAddr : index to i64
      %myPtr = llvm.inttoptr %myInt : i64 to !llvm.ptr
      llvm.store %i1, %myPtr atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr
    }
    gpu.terminator
  }
  gpu.memcpy %h, %d : memref<17xi32>, memref<17xi32>
  %u = memref.cast %h : memref<17xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(memref<*xi32>)
