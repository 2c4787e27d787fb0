//===- ChunkedScanGPU.cpp - the chunked SSD scan as GPU kernels -----------===//
//
// The decomposition of ChunkedScan.cpp (see there for the math), one kernel
// per phase, with the three chunk matmuls on tensor cores:
//
//   work list   1 thread: (sequence, chunk) -> first token, length
//   cumsum      thread per (chunk, head): d_t and cum_t (coalesced over heads)
//   states      block per (chunk, head), 8 warps:
//                 dS[P x N] = Xwᵀ[P x L] B[L x N],
//                 Xw[s, p] = exp(cum_last - cum_s) d_s x[s, p]
//   C Bᵀ        block per (chunk, group, 64x64 tile at or below the diagonal):
//                 G[L x L] = C[L x N] Bᵀ[N x L]
//   passing     block per (sequence, head): S_prev(k) along the chunks, then
//               the pool (two passes, see WriterOrder)
//   output      block per (chunk, head, 64 rows):
//                 y[i, p] = (exp(cum_i) C)[L x N] S_prevᵀ[N x P]
//                         + W[L x L] X[L x P],
//                 W[i, j] = G[i, j] exp(cum_i - cum_j) d_j for j <= i
//                         + D x
//
// Each matmul stages a [64 or P, 32] slice of both operands in workgroup
// memory (the decay weights applied while staging), then every warp runs
// m16n8k16 mma.sync steps on its 16x8 output tiles. bf16 operands, f32
// accumulators; f32 models split each operand into two bf16 (three products)
// to keep about 16 significant bits. Decays are exp(min(delta, 0)).
//
// The in-chunk log-decays cum_i - cum_j are differences of prefix sums that
// reach several hundred; in plain f32 the difference would keep the rounding
// error of every addition in between (the CPU form walks backwards instead,
// which a matmul tile cannot). So the prefix sums are compensated (TwoSum):
// cum = hi + lo, and hi_i - hi_j is exact for the nearby tokens whose decay
// matters (Sterbenz), with (lo_i - lo_j) restoring the rest.
//
//===----------------------------------------------------------------------===//

#include "GPUBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

namespace {

/// Rows of a chunk per block in the C Bᵀ and output kernels.
constexpr int64_t kRowTile = 64;
/// Extent of the reduction dimension staged in workgroup memory per step.
constexpr int64_t kStage = 32;
/// One unused column per row of every staged tile: the mma fragment reads
/// walk rows 2 or 8 apart, which with a row length that is a multiple of 32
/// words would all hit one shared-memory bank.
constexpr int64_t kBankPad = 1;

int64_t roundUp(int64_t v, int64_t m) { return llvm::divideCeil(v, m) * m; }

/// Output tiles of the matmul kernels, rounded up to whole 16x8 mma tiles:
/// chunk states are [P x N], the output [64 x P].
int64_t statesRows(const StaticExtents &x) { return roundUp(x.headDim, 16); }
int64_t statesCols(const StaticExtents &x) { return roundUp(x.dstate, 8); }
int64_t outputCols(const StaticExtents &x) { return roundUp(x.headDim, 8); }

/// The workgroup tiles each matmul kernel stages per reduction step (its
/// two operand slices). The kernels and the shared-memory check
/// (chunkedSharedMemory) both take them from here.
using TileShapes = SmallVector<SmallVector<int64_t, 2>, 2>;
TileShapes chunkStatesTiles(const StaticExtents &x) {
  return {{kStage, statesRows(x) + kBankPad},
          {kStage, statesCols(x) + kBankPad}};
}
TileShapes chunkCBTiles() {
  return {{kRowTile, kStage + kBankPad}, {kRowTile, kStage + kBankPad}};
}
TileShapes outputTiles(const StaticExtents &x) {
  return {{kRowTile, kStage + kBankPad}, {kStage, outputCols(x) + kBankPad}};
}

class ChunkedScanGPUBuilder {
public:
  ChunkedScanGPUBuilder(ImplicitLocOpBuilder &b, ChunkScanVarlenOp op,
                        const StaticExtents &x, int64_t chunkSize)
      : e(b, op, MathFlavor::NVVMApprox), x(x), chunkSize(chunkSize),
        splitF32(cast<MemRefType>(op.getX().getType()).getElementType().isF32()) {
  }

  void build(ImplicitLocOpBuilder &b) {
    allocate(b);
    Value one = e.index(b, 1);
    launchKernel(b, e, {one, one, one}, {1, 1, 1},
                 [&](ImplicitLocOpBuilder &b, const KernelContext &) {
                   e.fillChunkWorkList(b, list, chunkSize);
                 });
    emitCumsum(b);
    emitChunkStates(b);
    emitChunkCB(b);
    WriterOrder order = planWriterOrderOnDevice(b, e);
    emitStatePassing(b, order, 0);
    emitStatePassing(b, order, 1);
    emitOutput(b);
    // Every buffer is freed after the last launch that may use it.
    freeWriterOrderOnDevice(b, order);
    for (Value buffer : {list.begin, list.seq, list.first, list.len, dts,
                         cumHi, cumLo, states, cb})
      gpu::DeallocOp::create(b, Type(), ValueRange{}, buffer);
  }

private:
  ScanEmitter e;
  StaticExtents x;
  int64_t chunkSize;
  bool splitF32;
  ChunkWorkList list;
  Value dts, states, cb;   // as in ChunkedScan.cpp
  Value cumHi, cumLo;      // [T, H] f32: compensated in-chunk cumsum of d A
  Value maxChunkRows;          // min(L, T)

  Value idx(ImplicitLocOpBuilder &b, int64_t v) { return e.index(b, v); }
  Value add(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::AddIOp::create(b, l, r);
  }
  Value mul(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::MulIOp::create(b, l, r);
  }
  Value fmul(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::MulFOp::create(b, l, r);
  }
  Value ult(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, l, r);
  }
  Value both(ImplicitLocOpBuilder &b, Value l, Value r) {
    return arith::AndIOp::create(b, l, r);
  }
  Value load(ImplicitLocOpBuilder &b, Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  /// memref[indices] widened to f32 where `valid`, else 0 (no access).
  Value loadOrZero(ImplicitLocOpBuilder &b, Value valid, Value memref,
                   ValueRange indices) {
    SmallVector<Value> copy(indices);
    return e.ifElse(
        b, valid, e.f32,
        [&](ImplicitLocOpBuilder &b) { return e.loadF32(b, memref, copy); },
        [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); });
  }
  Value gpuAlloc(ImplicitLocOpBuilder &b, ArrayRef<Value> sizes, Type type) {
    SmallVector<int64_t> shape(sizes.size(), ShapedType::kDynamic);
    return gpu::AllocOp::create(b, MemRefType::get(shape, type), Type(),
                                ValueRange{}, sizes, ValueRange{})
        .getMemref();
  }

  void allocate(ImplicitLocOpBuilder &b) {
    Type index = b.getIndexType();
    list.maxChunks = e.maxChunkCount(b, chunkSize);
    maxChunkRows = arith::MinUIOp::create(b, idx(b, chunkSize), e.tokens);
    list.begin = gpuAlloc(b, {add(b, e.batch, idx(b, 1))}, index);
    list.seq = gpuAlloc(b, {list.maxChunks}, index);
    list.first = gpuAlloc(b, {list.maxChunks}, index);
    list.len = gpuAlloc(b, {list.maxChunks}, index);
    dts = gpuAlloc(b, {e.tokens, e.heads}, e.f32);
    cumHi = gpuAlloc(b, {e.tokens, e.heads}, e.f32);
    cumLo = gpuAlloc(b, {e.tokens, e.heads}, e.f32);
    states = gpuAlloc(b, {list.maxChunks, e.heads, e.headDim, e.dstate}, e.f32);
    cb = gpuAlloc(b, {list.maxChunks, e.groups, maxChunkRows, maxChunkRows},
                  e.f32);
  }

  /// cum_t as one f32 (for exp(cum_t), where its own rounding is harmless).
  Value cumAt(ImplicitLocOpBuilder &b, Value t, Value head) {
    return arith::AddFOp::create(b, load(b, cumHi, {t, head}),
                                 load(b, cumLo, {t, head}));
  }
  /// cum_i - cum_j from the compensated sums.
  Value cumDifference(ImplicitLocOpBuilder &b, Value ti, Value tj, Value head) {
    Value hi = arith::SubFOp::create(b, load(b, cumHi, {ti, head}),
                                     load(b, cumHi, {tj, head}));
    Value lo = arith::SubFOp::create(b, load(b, cumLo, {ti, head}),
                                     load(b, cumLo, {tj, head}));
    return arith::AddFOp::create(b, hi, lo);
  }

  /// Runs `body` for chunk k when k is below the number of chunks in use
  /// (kernels are launched over the maxChunks bound, known on the host).
  void ifChunkInUse(ImplicitLocOpBuilder &b, Value k,
                    function_ref<void(ImplicitLocOpBuilder &, ChunkInfo)> body) {
    Value used = load(b, list.begin, e.batch);
    e.ifThen(b, ult(b, k, used), [&](ImplicitLocOpBuilder &b) {
      body(b, e.chunkAt(b, list, k));
    });
  }

  /// Strided loop `for i = start; i < end; i += step` for cooperative
  /// staging by all threads of a block.
  void strided(ImplicitLocOpBuilder &b, Value start, int64_t end, int64_t step,
               function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
    scf::ForOp::create(b, start, idx(b, end), idx(b, step), ValueRange{},
                       [&](OpBuilder &nested, Location loc, Value i, ValueRange) {
                         ImplicitLocOpBuilder inner(loc, nested);
                         body(inner, i);
                         scf::YieldOp::create(inner);
                       });
  }

  using TileFn =
      function_ref<Value(ImplicitLocOpBuilder &, Value row, Value column)>;

  /// Stages a [rows x cols] tile into the workgroup buffer `buffer`, all
  /// `threads` threads of the block cooperating: element (r, c) is
  /// `value(r, c)` where `valid(r, c)`, else 0, with no memory access.
  void stageTile(ImplicitLocOpBuilder &b, Value tid, int64_t threads,
                 int64_t rows, int64_t cols, Value buffer, TileFn valid,
                 TileFn value) {
    strided(b, tid, rows * cols, threads, [&](ImplicitLocOpBuilder &b, Value i) {
      Value r = arith::DivUIOp::create(b, i, idx(b, cols));
      Value c = arith::RemUIOp::create(b, i, idx(b, cols));
      Value v = e.ifElse(
          b, valid(b, r, c), e.f32,
          [&](ImplicitLocOpBuilder &b) { return value(b, r, c); },
          [&](ImplicitLocOpBuilder &b) { return e.f32Const(b, 0.0); });
      memref::StoreOp::create(b, v, buffer, ValueRange{r, c});
    });
  }

  /// The tiled matmul core shared by the three matmul kernels. The output is
  /// a [rows x cols] tile (rows, cols multiples of 16 and 8) split into 16x8
  /// warp tiles, dealt round-robin to `warps` warps. `steps` reduction steps
  /// of kStage each: `stage(step)` fills the workgroup buffers (all threads),
  /// then each warp accumulates its tiles, reading operands with
  /// `a(step-local k, row)`... through `aAt(row, k)` / `bAt(k, col)` in
  /// stage-local coordinates. `epilogue(row, col, value)` runs for every
  /// accumulator element of a valid tile.
  void tiledMatmul(
      ImplicitLocOpBuilder &b, const KernelContext &k, int64_t warps,
      int64_t rows, int64_t cols, Value steps,
      function_ref<void(ImplicitLocOpBuilder &, Value step, Value tid)> stage,
      function_ref<Value(ImplicitLocOpBuilder &, Value row, Value kk)> aAt,
      function_ref<Value(ImplicitLocOpBuilder &, Value kk, Value col)> bAt,
      function_ref<void(ImplicitLocOpBuilder &, Value row, Value col, Value v)>
          epilogue) {
    Value lane = k.thread.x, warp = k.thread.y;
    Value tid = add(b, mul(b, warp, idx(b, 32)), lane);
    const int64_t tilesM = rows / 16, tilesN = cols / 8;
    const int64_t tiles = tilesM * tilesN;
    const int64_t perWarp = llvm::divideCeil(tiles, warps);
    MmaLane fragment = mmaLane(b, e, lane);

    // Warp tile j of this warp: index warp + warps * j, clamped so that a
    // warp with fewer tiles repeats a valid one (mma needs the whole warp)
    // and skips its epilogue.
    SmallVector<Value> tileRow, tileCol, tileValid;
    for (int64_t j = 0; j < perWarp; ++j) {
      Value t = add(b, warp, idx(b, warps * j));
      tileValid.push_back(ult(b, t, idx(b, tiles)));
      Value clamped = arith::MinUIOp::create(b, t, idx(b, tiles - 1));
      tileRow.push_back(
          mul(b, arith::DivUIOp::create(b, clamped, idx(b, tilesN)), idx(b, 16)));
      tileCol.push_back(
          mul(b, arith::RemUIOp::create(b, clamped, idx(b, tilesN)), idx(b, 8)));
    }

    SmallVector<Value> zeros(perWarp * 4, e.f32Const(b, 0.0));
    auto kLoop = scf::ForOp::create(
        b, idx(b, 0), steps, idx(b, 1), zeros,
        [&](OpBuilder &nested, Location loc, Value step, ValueRange accIn) {
          ImplicitLocOpBuilder b(loc, nested);
          stage(b, step, tid);
          gpu::BarrierOp::create(b);
          SmallVector<Value> acc(accIn.begin(), accIn.end());
          for (int64_t j = 0; j < perWarp; ++j)
            for (int64_t kk = 0; kk < kStage; kk += 16) {
              Value kBase = idx(b, kk);
              auto aTile = [&](ImplicitLocOpBuilder &b, Value r, Value c) {
                return aAt(b, add(b, tileRow[j], r), add(b, kBase, c));
              };
              auto bTile = [&](ImplicitLocOpBuilder &b, Value r, Value c) {
                return bAt(b, add(b, kBase, r), add(b, tileCol[j], c));
              };
              mmaAccumulate(b, e, fragment, aTile, bTile,
                            MutableArrayRef<Value>(acc).slice(4 * j, 4),
                            splitF32);
            }
          gpu::BarrierOp::create(b);
          scf::YieldOp::create(b, acc);
        });

    for (int64_t j = 0; j < perWarp; ++j)
      e.ifThen(b, tileValid[j], [&](ImplicitLocOpBuilder &b) {
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t c = 0; c < 2; ++c) {
            Value row = add(b, tileRow[j], add(b, fragment.group, idx(b, 8 * r)));
            Value col = add(b, tileCol[j], add(b, fragment.pair, idx(b, c)));
            epilogue(b, row, col, kLoop.getResult(4 * j + 2 * r + c));
          }
      });
  }

  // d_t and cum_t; thread per (chunk, head), consecutive heads in a warp so
  // that dt[t, :] is read coalesced.
  void emitCumsum(ImplicitLocOpBuilder &b) {
    Value headBlocks = idx(b, llvm::divideCeil(x.heads, 32));
    launchKernel(b, e, {list.maxChunks, headBlocks, idx(b, 1)}, {32, 1, 1},
                 [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
      Value head = add(b, mul(b, k.block.y, idx(b, 32)), k.thread.x);
      e.ifThen(b, ult(b, head, idx(b, x.heads)), [&](ImplicitLocOpBuilder &b) {
        ifChunkInUse(b, k.block.x, [&](ImplicitLocOpBuilder &b, ChunkInfo c) {
          Value a = e.loadF32(b, e.A, {head});
          Value zero = e.f32Const(b, 0.0);
          scf::ForOp::create(
              b, c.first, add(b, c.first, c.len), idx(b, 1),
              ValueRange{zero, zero},
              [&](OpBuilder &nested, Location loc, Value t, ValueRange sum) {
                ImplicitLocOpBuilder b(loc, nested);
                Value d = e.processedDt(b, t, head);
                memref::StoreOp::create(b, d, dts, ValueRange{t, head});
                // TwoSum: hi + step = next + err exactly.
                Value hi = sum[0], step = fmul(b, d, a);
                Value next = arith::AddFOp::create(b, hi, step);
                Value stepPart = arith::SubFOp::create(b, next, hi);
                Value hiPart = arith::SubFOp::create(b, next, stepPart);
                Value err = arith::AddFOp::create(
                    b, arith::SubFOp::create(b, hi, hiPart),
                    arith::SubFOp::create(b, step, stepPart));
                Value lo = arith::AddFOp::create(b, sum[1], err);
                memref::StoreOp::create(b, next, cumHi, ValueRange{t, head});
                memref::StoreOp::create(b, lo, cumLo, ValueRange{t, head});
                scf::YieldOp::create(b, ValueRange{next, lo});
              });
        });
      });
    });
  }

  // dS[p, n] = sum_s Xw[s, p] B[s, n] per (chunk, head).
  void emitChunkStates(ImplicitLocOpBuilder &b) {
    const int64_t warps = 8, rows = statesRows(x), cols = statesCols(x);
    launchKernel(
        b, e, {list.maxChunks, idx(b, x.heads), idx(b, 1)}, {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value head = k.block.y;
          Value xs = k.shared[0], bs = k.shared[1];
          ifChunkInUse(b, k.block.x, [&](ImplicitLocOpBuilder &b, ChunkInfo c) {
            Value group = e.groupOf(b, head);

            Value steps = arith::CeilDivUIOp::create(b, c.len, idx(b, kStage));
            auto stage = [&](ImplicitLocOpBuilder &b, Value step, Value tid) {
              Value s0 = mul(b, step, idx(b, kStage));
              // Xw[s, p] = exp(cum_last - cum_s) d_s x[s, p].
              stageTile(
                  b, tid, 32 * warps, kStage, rows, xs,
                  [&](ImplicitLocOpBuilder &b, Value r, Value p) {
                    return both(b, ult(b, add(b, s0, r), c.len),
                                ult(b, p, idx(b, x.headDim)));
                  },
                  [&](ImplicitLocOpBuilder &b, Value r, Value p) {
                    Value t = add(b, c.first, add(b, s0, r));
                    Value decay = e.decay(b, cumDifference(b, c.last, t, head));
                    return fmul(b, fmul(b, decay, load(b, dts, {t, head})),
                                e.loadF32(b, e.x, {t, head, p}));
                  });
              stageTile(
                  b, tid, 32 * warps, kStage, cols, bs,
                  [&](ImplicitLocOpBuilder &b, Value r, Value n) {
                    return both(b, ult(b, add(b, s0, r), c.len),
                                ult(b, n, idx(b, x.dstate)));
                  },
                  [&](ImplicitLocOpBuilder &b, Value r, Value n) {
                    return e.loadF32(b, e.B,
                                     {add(b, c.first, add(b, s0, r)), group, n});
                  });
            };
            tiledMatmul(
                b, k, warps, rows, cols, steps, stage,
                [&](ImplicitLocOpBuilder &b, Value p, Value s) {
                  return load(b, xs, {s, p});
                },
                [&](ImplicitLocOpBuilder &b, Value s, Value n) {
                  return load(b, bs, {s, n});
                },
                [&](ImplicitLocOpBuilder &b, Value p, Value n, Value v) {
                  e.ifThen(b,
                           both(b, ult(b, p, idx(b, x.headDim)),
                                ult(b, n, idx(b, x.dstate))),
                           [&](ImplicitLocOpBuilder &b) {
                             memref::StoreOp::create(
                                 b, v, states,
                                 ValueRange{k.block.x, head, p, n});
                           });
                });
          });
        },
        chunkStatesTiles(x));
  }

  // G[i, j] = sum_n C[i, n] B[j, n] per (chunk, group, tile pair j <= i).
  void emitChunkCB(ImplicitLocOpBuilder &b) {
    const int64_t warps = 4;
    Value rowTiles = arith::CeilDivUIOp::create(b, maxChunkRows, idx(b, kRowTile));
    launchKernel(
        b, e, {list.maxChunks, idx(b, x.groups), mul(b, rowTiles, rowTiles)},
        {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value group = k.block.y;
          Value iTile = arith::DivUIOp::create(b, k.block.z, rowTiles);
          Value jTile = arith::RemUIOp::create(b, k.block.z, rowTiles);
          Value cs = k.shared[0], bs = k.shared[1];
          ifChunkInUse(b, k.block.x, [&](ImplicitLocOpBuilder &b, ChunkInfo c) {
            Value i0 = mul(b, iTile, idx(b, kRowTile));
            Value j0 = mul(b, jTile, idx(b, kRowTile));
            Value needed = both(
                b,
                arith::CmpIOp::create(b, arith::CmpIPredicate::ule, jTile, iTile),
                ult(b, i0, c.len));
            e.ifThen(b, needed, [&](ImplicitLocOpBuilder &b) {
              Value steps = idx(b, llvm::divideCeil(x.dstate, kStage));
              auto stage = [&](ImplicitLocOpBuilder &b, Value step, Value tid) {
                Value n0 = mul(b, step, idx(b, kStage));
                // Rows i0.. of C and j0.. of B, columns n0.. of dstate.
                struct Operand {
                  Value buffer, source, first;
                };
                for (Operand o : {Operand{cs, e.C, i0}, Operand{bs, e.B, j0}})
                  stageTile(
                      b, tid, 32 * warps, kRowTile, kStage, o.buffer,
                      [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
                        return both(b, ult(b, add(b, n0, kk), idx(b, x.dstate)),
                                    ult(b, add(b, o.first, r), c.len));
                      },
                      [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
                        return e.loadF32(b, o.source,
                                         {add(b, c.first, add(b, o.first, r)),
                                          group, add(b, n0, kk)});
                      });
              };
              tiledMatmul(
                  b, k, warps, kRowTile, kRowTile, steps, stage,
                  [&](ImplicitLocOpBuilder &b, Value i, Value n) {
                    return load(b, cs, {i, n});
                  },
                  [&](ImplicitLocOpBuilder &b, Value n, Value j) {
                    return load(b, bs, {j, n});
                  },
                  [&](ImplicitLocOpBuilder &b, Value i, Value j, Value v) {
                    Value ti = add(b, i0, i), tj = add(b, j0, j);
                    e.ifThen(b, both(b, ult(b, ti, c.len), ult(b, tj, c.len)),
                             [&](ImplicitLocOpBuilder &b) {
                               memref::StoreOp::create(
                                   b, v, cb,
                                   ValueRange{k.block.x, group, ti, tj});
                             });
                  });
            });
          });
        },
        chunkCBTiles());
  }

  // S_prev(k) in place of dS_k, and the final state into the pool, for the
  // sequences of one pass.
  void emitStatePassing(ImplicitLocOpBuilder &b, const WriterOrder &order,
                        unsigned pass) {
    const int64_t threads = 256, elements = x.headDim * x.dstate;
    launchKernel(
        b, e, {e.batch, idx(b, x.heads), idx(b, 1)}, {threads, 1, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value seq = k.block.x, head = k.block.y;
          e.ifThen(b, e.inPass(b, order, seq, pass), [&](ImplicitLocOpBuilder &b) {
            SequenceInfo s = e.sequence(b, seq);
            Value firstChunk = load(b, list.begin, seq);
            Value endChunk = load(b, list.begin, add(b, seq, idx(b, 1)));
            strided(b, k.thread.x, elements, threads,
                    [&](ImplicitLocOpBuilder &b, Value i) {
              Value p = arith::DivUIOp::create(b, i, idx(b, x.dstate));
              Value n = arith::RemUIOp::create(b, i, idx(b, x.dstate));
              Value initial =
                  loadOrZero(b, s.readsInitial, e.pool, {s.slot, head, p, n});
              Value final = e.reduce(
                  b, firstChunk, endChunk, initial,
                  [&](ImplicitLocOpBuilder &b, Value chunk, Value state) -> Value {
                    ChunkInfo c = e.chunkAt(b, list, chunk);
                    Value decay = e.decay(b, cumAt(b, c.last, head));
                    Value contribution = load(b, states, {chunk, head, p, n});
                    memref::StoreOp::create(b, state, states,
                                            ValueRange{chunk, head, p, n});
                    return arith::AddFOp::create(b, fmul(b, decay, state),
                                                 contribution);
                  });
              e.ifThen(b, s.writesState, [&](ImplicitLocOpBuilder &b) {
                e.storeRounded(b, final, e.pool, {s.slot, head, p, n});
              });
            });
          });
        });
  }

  // y for 64 rows of a chunk and one head: two accumulations into the same
  // [64 x P] tile, then the skip term and the rounding store.
  void emitOutput(ImplicitLocOpBuilder &b) {
    const int64_t warps = 4, cols = outputCols(x);
    Value rowTiles = arith::CeilDivUIOp::create(b, maxChunkRows, idx(b, kRowTile));
    launchKernel(
        b, e, {list.maxChunks, idx(b, x.heads), rowTiles}, {32, warps, 1},
        [&](ImplicitLocOpBuilder &b, const KernelContext &k) {
          Value chunk = k.block.x, head = k.block.y;
          Value as = k.shared[0], bs = k.shared[1];
          ifChunkInUse(b, chunk, [&](ImplicitLocOpBuilder &b, ChunkInfo c) {
            Value i0 = mul(b, k.block.z, idx(b, kRowTile));
            e.ifThen(b, ult(b, i0, c.len), [&](ImplicitLocOpBuilder &b) {
              emitOutputTile(b, k, c, chunk, head, i0, as, bs, warps, cols);
            });
          });
        },
        outputTiles(x));
  }

  void emitOutputTile(ImplicitLocOpBuilder &b, const KernelContext &k,
                      const ChunkInfo &c, Value chunk, Value head, Value i0,
                      Value as, Value bs, int64_t warps, int64_t cols) {
    Value group = e.groupOf(b, head);
    // Reduction steps: N / kStage over dstate for the inter-chunk term, then
    // over the rows j < min(i0 + 64, len) for the intra-chunk term.
    Value interSteps = idx(b, llvm::divideCeil(x.dstate, kStage));
    Value rowsEnd = arith::MinUIOp::create(b, add(b, i0, idx(b, kRowTile)), c.len);
    Value intraSteps = arith::CeilDivUIOp::create(b, rowsEnd, idx(b, kStage));
    Value steps = add(b, interSteps, intraSteps);

    auto stage = [&](ImplicitLocOpBuilder &b, Value step, Value tid) {
      Value inter = ult(b, step, interSteps);
      auto ifInter = scf::IfOp::create(b, TypeRange{}, inter, true);
      {
        // A[i, n] = exp(cum_i) C[i, n];  B[n, p] = S_prev[p, n].
        ImplicitLocOpBuilder b(ifInter.getLoc(), ifInter.getContext());
        b.setInsertionPoint(ifInter.thenBlock()->getTerminator());
        Value n0 = mul(b, step, idx(b, kStage));
        stageTile(
            b, tid, 32 * warps, kRowTile, kStage, as,
            [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
              return both(b, ult(b, add(b, i0, r), c.len),
                          ult(b, add(b, n0, kk), idx(b, x.dstate)));
            },
            [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
              Value t = add(b, c.first, add(b, i0, r));
              return fmul(b, e.decay(b, cumAt(b, t, head)),
                          e.loadF32(b, e.C, {t, group, add(b, n0, kk)}));
            });
        stageTile(
            b, tid, 32 * warps, kStage, cols, bs,
            [&](ImplicitLocOpBuilder &b, Value kk, Value p) {
              return both(b, ult(b, add(b, n0, kk), idx(b, x.dstate)),
                          ult(b, p, idx(b, x.headDim)));
            },
            [&](ImplicitLocOpBuilder &b, Value kk, Value p) {
              return load(b, states, {chunk, head, p, add(b, n0, kk)});
            });
      }
      {
        // A[i, j] = G[i, j] exp(cum_i - cum_j) d_j (j <= i);  B[j, p] = x[j, p].
        ImplicitLocOpBuilder b(ifInter.getLoc(), ifInter.getContext());
        b.setInsertionPoint(ifInter.elseBlock()->getTerminator());
        Value j0 = mul(b, arith::SubIOp::create(b, step, interSteps),
                       idx(b, kStage));
        stageTile(
            b, tid, 32 * warps, kRowTile, kStage, as,
            [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
              Value row = add(b, i0, r);
              return both(b, ult(b, row, c.len),
                          arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                                add(b, j0, kk), row));
            },
            [&](ImplicitLocOpBuilder &b, Value r, Value kk) {
              Value row = add(b, i0, r), j = add(b, j0, kk);
              Value ti = add(b, c.first, row), tj = add(b, c.first, j);
              return fmul(b,
                          fmul(b, load(b, cb, {chunk, group, row, j}),
                               e.decay(b, cumDifference(b, ti, tj, head))),
                          load(b, dts, {tj, head}));
            });
        stageTile(
            b, tid, 32 * warps, kStage, cols, bs,
            [&](ImplicitLocOpBuilder &b, Value kk, Value p) {
              return both(b, ult(b, add(b, j0, kk), c.len),
                          ult(b, p, idx(b, x.headDim)));
            },
            [&](ImplicitLocOpBuilder &b, Value kk, Value p) {
              return e.loadF32(b, e.x, {add(b, c.first, add(b, j0, kk)), head, p});
            });
      }
    };

    Value dSkip = e.D ? e.loadF32(b, e.D, {head}) : Value();
    tiledMatmul(
        b, k, warps, kRowTile, cols, steps, stage,
        [&](ImplicitLocOpBuilder &b, Value i, Value kk) {
          return load(b, as, {i, kk});
        },
        [&](ImplicitLocOpBuilder &b, Value kk, Value p) {
          return load(b, bs, {kk, p});
        },
        [&](ImplicitLocOpBuilder &b, Value i, Value p, Value v) {
          Value row = add(b, i0, i);
          e.ifThen(b, both(b, ult(b, row, c.len), ult(b, p, idx(b, x.headDim))),
                   [&](ImplicitLocOpBuilder &b) {
                     Value t = add(b, c.first, row);
                     Value out = v;
                     if (dSkip)
                       out = arith::AddFOp::create(
                           b, out, fmul(b, dSkip, e.loadF32(b, e.x, {t, head, p})));
                     e.storeRounded(b, out, e.y, {t, head, p});
                   });
        });
  }
};

} // namespace

SmallVector<KernelSharedMemory>
mlir::ssd::detail::chunkedSharedMemory(const StaticExtents &extents) {
  return {{"chunk states", sharedMemoryPerBlock(chunkStatesTiles(extents))},
          {"C B^T", sharedMemoryPerBlock(chunkCBTiles())},
          {"output", sharedMemoryPerBlock(outputTiles(extents))}};
}

void mlir::ssd::detail::buildChunkedScanGPU(RewriterBase &rewriter,
                                            ChunkScanVarlenOp op,
                                            const StaticExtents &extents,
                                            int64_t chunkSize) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  ChunkedScanGPUBuilder(b, op, extents, chunkSize).build(b);
  rewriter.eraseOp(op);
}
