//===- BlockSync.cpp - flags, tickets and waits between blocks -----------===//
//
// How blocks of the chunk kernel order themselves (FusedStatePassing.cpp says
// what for): a ticket per block from a counter, so that a block only waits
// for a smaller ticket (one running or done); flags a block publishes with a
// release, after a barrier that orders its threads' stores before it, and
// another block acquires before a barrier hands them to its threads; counts
// of the C Bᵀ tiles stored and of the heads done reading them.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

/// A generic pointer to element `indices` of an i32 or f32 memref, for the
/// atomic loads and stores that memref ops cannot express.
Value ChunkedKernelParts::elementPointer(ImplicitLocOpBuilder &b, Value memref,
                                         ValueRange indices) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, memref);
  Value linear = meta.getOffset();
  for (auto [i, stride] : llvm::zip_equal(indices, meta.getStrides()))
    linear = add(b, linear, mul(b, i, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value address = arith::IndexCastUIOp::create(b, b.getI64Type(),
                                               add(b, base, mul(b, linear, 4)));
  return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                                  address);
}

/// ld.acquire.gpu of an i32.
Value ChunkedKernelParts::loadAcquire(ImplicitLocOpBuilder &b, Value memref,
                                      ValueRange indices) {
  return LLVM::LoadOp::create(
      b, b.getI32Type(), elementPointer(b, memref, indices), 4,
      /*isVolatile=*/false, /*isNonTemporal=*/false,
      /*isInvariant=*/false,
      /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire, "device");
}

/// st.release.gpu of an i32.
void ChunkedKernelParts::storeRelease(ImplicitLocOpBuilder &b, Value v,
                                      Value memref, ValueRange indices) {
  LLVM::StoreOp::create(b, v, elementPointer(b, memref, indices), 4,
                        /*isVolatile=*/false, /*isNonTemporal=*/false,
                        /*isInvariantGroup=*/false,
                        LLVM::AtomicOrdering::release, "device");
}

/// fence.acq_rel.gpu: with a relaxed write after it, PTX's release
/// pattern. Cumulative: what a bar.sync ordered before it (the other
/// threads' stores) is published too. (NVPTX drops the ordering of an
/// atomicrmw and emits a relaxed `atom`, so an atomic publishes only
/// behind this fence.)
void ChunkedKernelParts::releaseFenceGPU(ImplicitLocOpBuilder &b) {
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::release, "device");
}

/// Adds one to the flag `index` builds for the whole block: thread 0's
/// release fence, then a (relaxed) atom.add. The caller's barrier before
/// it orders every thread's accesses before the fence, which is cumulative
/// over them. (The index is built inside thread 0's branch, where only it
/// is live.)
void ChunkedKernelParts::countIn(
    ImplicitLocOpBuilder &b, Value tid,
    function_ref<Value(ImplicitLocOpBuilder &)> index) {
  e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
    releaseFenceGPU(b);
    memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(b, 1), flags,
                                ValueRange{index(b)});
  });
}

/// Spins (thread 0 of the block) until flags[index] is nonzero, or
/// reaches `expected` (i32), with ld.acquire.gpu: the block's barrier
/// after the wait hands what it acquired to the other threads. Between
/// polls the thread sleeps, 32 ns doubling to kMaxBackoffNs, so that
/// waiting blocks leave the SM's issue slots and the L2 to the blocks
/// they wait for; the cap bounds the latency a wait adds once the flag
/// is set (about one L2 round trip).
void ChunkedKernelParts::waitForFlag(ImplicitLocOpBuilder &b, Value index,
                                     Value expected) {
  scf::WhileOp::create(
      b, TypeRange{b.getI32Type()}, ValueRange{i32(b, 32)},
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        ImplicitLocOpBuilder w(loc, nested);
        Value seen = loadAcquire(w, flags, {index});
        Value unset = expected
                          ? cmp(w, arith::CmpIPredicate::ult, seen, expected)
                          : eq(w, seen, i32(w, 0));
        scf::ConditionOp::create(w, unset, args);
      },
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        ImplicitLocOpBuilder w(loc, nested);
        NVVM::NanosleepOp::create(w, args[0]);
        Value doubled = arith::ShLIOp::create(w, args[0], i32(w, 1));
        scf::YieldOp::create(w, ValueRange{arith::MinUIOp::create(
                                    w, doubled, i32(w, kMaxBackoffNs))});
      });
}

/// The block's logical index: a ticket from the launch's counter, taken
/// by thread 0 and broadcast through shared word 0. Blocks are numbered in
/// the order they start, so a block that waits for a smaller ticket waits
/// for a block that is running or done: forward progress on a GPU that
/// starts blocks in any order.
Value ChunkedKernelParts::takeTicket(ImplicitLocOpBuilder &b,
                                     const KernelContext &k, Value tid) {
  Value word = sharedView(b, k, 0, {1}, b.getI32Type());
  e.ifThen(b, eq(b, tid, idx(b, 0)), [&](ImplicitLocOpBuilder &b) {
    Value ticket = memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi, i32(b, 1), flags, ValueRange{idx(b, 0)});
    store(b, ticket, word, {idx(b, 0)});
  });
  gpu::BarrierOp::create(b);
  Value ticket = toIndex(b, load(b, word, {idx(b, 0)}));
  gpu::BarrierOp::create(b);
  return ticket;
}

/// Index in `flags` of the count of chunk `chunk`'s stored C Bᵀ tiles of
/// group `group` (fused output).
Value ChunkedKernelParts::cbCountOf(ImplicitLocOpBuilder &b, Value chunk,
                                    Value group) {
  return add(b, mul(b, chunk, flagsPerChunk()),
             add(b, group, idx(b, 1 + x.heads * plan.stateParts)));
}

/// Index in `flags` of the count of heads of group `group` done reading
/// chunk `chunk`'s C Bᵀ tiles (fused output: the ring slot's reuse).
Value ChunkedKernelParts::cbReadersOf(ImplicitLocOpBuilder &b, Value chunk,
                                      Value group) {
  return add(b, cbCountOf(b, chunk, group), idx(b, x.groups));
}
