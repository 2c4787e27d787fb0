//===- OutputKernel.cpp - launch 3: y and the final states ----------------===//
//
// Launch 3, the output kernel: 128 threads, two block roles:
//   - (chunk, head, 64 rows) blocks: y = (C S_prevᵀ) scaled by exp(cum_i)
//     per row, plus W X with W[i, j] = G[i, j] exp(cum_i - cum_j) d_j
//     (j <= i), plus D x; one accumulator tile on tensor cores, stored
//     from the fragments in pairs (OutputTile.cpp);
//   - (sequence, head, 512 state elements) blocks store the final state
//     of each writing sequence into its pool slot.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

void OutputKernelBuilder::emit(ImplicitLocOpBuilder &b) {
  const int64_t v = stateVector(), elements = x.headDim * x.dstate;
  const int64_t storeParts = llvm::divideCeil(elements, kOutputThreads * v);
  Value outputPerChunk = mul(b, rowTiles, x.heads);
  // With the fused output, the chunk kernel computed y: final states only.
  Value outputBlocks =
      fusedOutput ? idx(b, 0) : mul(b, maxChunks, outputPerChunk);
  Value storeBlocks = mul(b, seqBound, x.heads * storeParts);
  Value one = idx(b, 1);
  launchKernel(
      b, e, {add(b, outputBlocks, storeBlocks), one, one},
      {kOutputThreads, 1, 1},
      [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
        Value block = k.block.x;
        ImplicitLocOpBuilder f(b.getLoc(), b.getContext());
        if (fusedOutput) {
          f.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
        } else {
          auto ifOutput = scf::IfOp::create(b, TypeRange{},
                                            ult(b, block, outputBlocks), true);
          ImplicitLocOpBuilder o(b.getLoc(), b.getContext());
          o.setInsertionPoint(ifOutput.thenBlock()->getTerminator());
          Value chunk = divu(o, block, outputPerChunk);
          Value rest = arith::RemUIOp::create(o, block, outputPerChunk);
          Value head = divu(o, rest, rowTiles);
          Value rowTile = arith::RemUIOp::create(o, rest, rowTiles);
          Value used = toIndex(o, load(o, chunkBegin, {e.batch}));
          e.ifThen(o, ult(o, chunk, used), [&](ImplicitLocOpBuilder &o) {
            Value seq = toIndex(o, load(o, chunkSeq, {chunk}));
            Value j = sub(o, chunk, toIndex(o, load(o, chunkBegin, {seq})));
            Value begin = signedIndex(o, load(o, e.queryStartLoc, seq));
            Value end =
                signedIndex(o, load(o, e.queryStartLoc, add(o, seq, 1)));
            Value first = add(o, begin, mul(o, j, L));
            ChunkLocation c{seq, first, minu(o, idx(o, L), sub(o, end, first))};
            Value i0 = mul(o, rowTile, kRowTile);
            e.ifThen(o, ult(o, i0, c.len), [&](ImplicitLocOpBuilder &o) {
              emitOutputTile(o, {k, head, Value(), std::nullopt},
                             outputKernelLayout(), chunk, c, i0);
            });
          });

          // The final states of writing sequences into their pool slots:
          // every pool read happened in launch 2.
          f.setInsertionPoint(ifOutput.elseBlock()->getTerminator());
        }
        Value linear = sub(f, block, outputBlocks);
        Value entry = divu(f, linear, x.heads * storeParts);
        Value rest2 = remu(f, linear, x.heads * storeParts);
        Value head2 = divu(f, rest2, storeParts);
        Value part = remu(f, rest2, storeParts);
        Value tid = k.thread.x;
        Value element = mul(f, add(f, mul(f, part, kOutputThreads), tid), v);
        forChunkedSequence(f, entry, [&](ImplicitLocOpBuilder &f, Value seq) {
          SequenceInfo s = e.sequence(f, seq);
          // Fused: the final state sits in `finals` after the last chunk,
          // unless the chunk kernel stored it into the pool already (an
          // uncontested writer, the same vote as there; never an 8-bit
          // pool's, see fusedStoresFinals); a sequence without chunks
          // keeps its initial state.
          Value begin, end, empty, stored = boolean(f, false);
          if (fused) {
            begin = toIndex(f, load(f, chunkBegin, {seq}));
            end = toIndex(f, load(f, chunkBegin, {add(f, seq, idx(f, 1))}));
            empty = eq(f, begin, end);
          }
          if (fusedStoresFinals()) {
            Value contested = boolean(f, false);
            if (e.hasInitialState)
              contested = contestedWriter(
                  f, e, seq, tid, remu(f, tid, 32),
                  sharedView(f, k, 0, {kOutputThreads / 32}, f.getI32Type()),
                  kOutputThreads);
            stored =
                both(f, arith::XOrIOp::create(f, empty, boolean(f, true)),
                     arith::XOrIOp::create(f, contested, boolean(f, true)));
          }
          Value stores =
              both(f, both(f, s.writesState, ult(f, element, elements)),
                   arith::XOrIOp::create(f, stored, boolean(f, true)));
          e.ifThen(f, stores, [&](ImplicitLocOpBuilder &f) {
            Value p = divu(f, element, x.dstate);
            Value n = remu(f, element, x.dstate);
            Value final;
            if (fused) {
              final = ifValues(f, empty, [&](ImplicitLocOpBuilder &f) {
                        return ifValues(
                            f, s.readsInitial, [&](ImplicitLocOpBuilder &f) {
                              return SmallVector<Value>{
                                  loadPoolVector(f, {s.slot, head2, p, n})};
                            });
                      }).front();
              Value ended =
                  ifValues(f, arith::XOrIOp::create(f, empty, boolean(f, true)),
                           [&](ImplicitLocOpBuilder &f) {
                             return SmallVector<Value>{loadStateVector(
                                 f, finals, {entry, head2, p, n})};
                           })
                      .front();
              final = select(f, empty, final, ended);
            } else {
              final = loadStateVector(f, finals, {entry, head2, p, n});
            }
            // The final state holds o + len tokens.
            Value held = tokensBefore(f, seq);
            if (held)
              held = add(f, held, sub(f, s.end, s.begin));
            storePoolVector(f, final, {s.slot, head2, p, n}, held);
          });
        });
      },
      // The final-state blocks' vote: a flag per warp.
      fusedOutput ? 4 * (kOutputThreads / 32) : plan.launch3Bytes);
}
