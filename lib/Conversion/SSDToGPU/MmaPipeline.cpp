//===- MmaPipeline.cpp - operand staging and pipelined k-steps ------------===//
//
// Tensor cores: operands are staged as bf16 (f16 for f16 models; f32 models
// split each value into two bf16, three products, see WarpMma.cpp) in
// swizzled shared tiles read by ldmatrix, in k-steps of 32, double-buffered
// with one barrier per step: the next step's operands are fetched (cp.async
// for tiles copied as they are: x, B, C and S_prev of 16-bit models;
// registers for the scaled ones: decay-weighted x and W) while the current
// one multiplies.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;
using namespace mlir::ssd::detail::ir;

/// cond ? then() : zeros, for several values; `then` runs only when cond.
SmallVector<Value> ChunkedKernelParts::ifValues(
    ImplicitLocOpBuilder &b, Value cond,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then) {
  SmallVector<Type> types;
  auto ifOp = scf::IfOp::create(
      b, cond,
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        SmallVector<Value> values = then(inner);
        for (Value v : values)
          types.push_back(v.getType());
        scf::YieldOp::create(inner, values);
      },
      [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder inner(loc, nested);
        SmallVector<Value> zeros;
        for (Type t : types)
          zeros.push_back(zeroOf(inner, t));
        scf::YieldOp::create(inner, zeros);
      });
  return SmallVector<Value>(ifOp.getResults());
}

/// for (i = lower; i < upper; ++i) with loop-carried values.
SmallVector<Value> ChunkedKernelParts::forLoop(
    ImplicitLocOpBuilder &b, Value lower, Value upper, ValueRange init,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, Value, ValueRange)>
        body) {
  auto loop = scf::ForOp::create(
      b, lower, upper, idx(b, 1), init,
      [&](OpBuilder &nested, Location loc, Value i, ValueRange args) {
        ImplicitLocOpBuilder inner(loc, nested);
        scf::YieldOp::create(inner, body(inner, i, args));
      });
  return SmallVector<Value>(loop.getResults());
}

/// cond ? then() : otherwise.
SmallVector<Value> ChunkedKernelParts::ifValuesElse(
    ImplicitLocOpBuilder &b, Value cond, ValueRange otherwise,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(b, TypeRange(otherwise), cond, true);
  {
    ImplicitLocOpBuilder inner(b.getLoc(), b.getContext());
    inner.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(inner, then(inner));
    inner.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(inner, otherwise);
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// 8 consecutive elements of `memref` along its last dimension, from
/// `indices` (the last one a multiple of 8), as vector<8xf32>; elements
/// at or past `extent` along that dimension, or all when !valid, are 0.
/// Never touches memory it does not return.
Value ChunkedKernelParts::loadEight(ImplicitLocOpBuilder &b, Value memref,
                                    SmallVector<Value> indices, int64_t extent,
                                    Value valid) {
  auto type = cast<MemRefType>(memref.getType());
  Type element = type.getElementType();
  auto f32x8 = VectorType::get({8}, b.getF32Type());
  if (extent % 8 == 0) {
    return ifValues(b, valid,
                    [&](ImplicitLocOpBuilder &b) {
                      Value v = vectorLoad(b, VectorType::get({8}, element),
                                           memref, indices, 16);
                      if (!element.isF32())
                        v = arith::ExtFOp::create(b, f32x8, v);
                      return SmallVector<Value>{v};
                    })
        .front();
  }
  SmallVector<Value> values;
  Value col0 = indices.back();
  for (int64_t q = 0; q < 8; ++q) {
    SmallVector<Value> at(indices);
    at.back() = add(b, col0, q);
    Value ok = both(b, valid, ult(b, at.back(), extent));
    values.push_back(e.ifElse(
        b, ok, b.getF32Type(),
        [&](ImplicitLocOpBuilder &b) { return e.loadF32(b, memref, at); },
        [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); }));
  }
  return vector::FromElementsOp::create(b, f32x8, values);
}

/// Whether a tile of `memref` (16-bit model element) can be copied to
/// shared memory as it is: rows of whole 16-byte chunks.
bool ChunkedKernelParts::copiesRaw(Value memref, int64_t extent) const {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  return element == mmaType && extent % 8 == 0 && !plan.split;
}

/// Copies 8 elements of `memref` at `indices` (zeros when !valid) into
/// chunk (row, col) of `tile`: with cp.async, returning nothing, or as a
/// load whose value `depositRaw` stores.
SmallVector<Value>
ChunkedKernelParts::fetchRaw(ImplicitLocOpBuilder &b, Value memref,
                             SmallVector<Value> indices, Value valid,
                             const SwizzledTile &tile, Value row, Value col) {
  if (async) {
    // src-size 0 zero-fills without reading; the address stays in bounds
    // anyway (the callers clamp rows).
    Value srcElements = select(b, valid, idx(b, 8), idx(b, 0));
    Value r = tile.bufferRow(b, row);
    nvgpu::DeviceAsyncCopyOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile.buffer,
        ValueRange{r, tile.physicalColumn(b, r, col)}, memref, indices,
        b.getIndexAttr(8), srcElements, b.getUnitAttr());
    return {};
  }
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  return ifValues(b, valid, [&](ImplicitLocOpBuilder &b) {
    return SmallVector<Value>{
        vectorLoad(b, VectorType::get({8}, element), memref, indices, 16)};
  });
}

/// Fetches 8 elements of B or C (`memref`) at row `row` of chunk `c` and
/// state column `col` into `values`: copied as they are into chunk (r, n)
/// of `stage` when `raw`, else loaded as f32. Rows past the chunk and
/// columns past N are zeros; the token is clamped to the chunk's last, so
/// no address leaves the sequence.
void ChunkedKernelParts::fetchStateOperand(
    ImplicitLocOpBuilder &b, Value memref, bool raw, const ChunkLocation &c,
    Value group, Value row, Value col, const SwizzledTile &stage, Value r,
    Value n, SmallVector<Value> &values) {
  Value lastToken = sub(b, add(b, c.first, c.len), idx(b, 1));
  Value valid = both(b, ult(b, row, c.len), ult(b, col, x.dstate));
  Value t = minu(b, add(b, c.first, row), lastToken);
  if (raw)
    llvm::append_range(
        values, fetchRaw(b, memref, {t, group, col}, valid, stage, r, n));
  else
    values.push_back(loadEight(b, memref, {t, group, col}, x.dstate, valid));
}

void ChunkedKernelParts::depositRaw(ImplicitLocOpBuilder &b, ValueRange fetched,
                                    const SwizzledTile &tile, Value row,
                                    Value col) {
  if (!fetched.empty())
    tile.storeChunk(b, row, col, fetched.front());
}

/// Stores 8 f32 values as the mma element (and their low parts for f32
/// models).
void ChunkedKernelParts::depositConverted(ImplicitLocOpBuilder &b, Value values,
                                          const MmaOperand &operand, Value row,
                                          Value col) {
  operand.high.storeChunk(b, row, col, toMmaElement(b, values, plan.element));
  if (operand.split())
    operand.low.storeChunk(b, row, col, mmaLowPart(b, values, plan.element));
}

/// One reduction of `steps` steps (at least 1) over a ring of
/// plan.stages shared-memory stages: step s reads stage s mod stages, and
/// the copies of step s + stages - 1 are issued while step s computes, so
/// each cp.async has stages - 1 steps to land (two stages: the classic
/// double buffer). `fetch` issues the step's copies into a stage and
/// returns the values that `deposit` stores into it after the current
/// step's mma; `compute` runs the mma of a stage. One barrier per step;
/// the stages are free again when it returns.
///
/// Why it is safe: every thread commits one cp.async group per step (empty
/// ones included), stages - 1 in the prologue, so at step s its groups are
/// those of steps 0 .. s + stages - 2 and `wait_group stages - 2` completes
/// step s's own; the barrier after it makes every thread's copies visible
/// and says every thread is done with step s - 1, whose stage (s - 1 mod
/// stages = s + stages - 1 mod stages) the copies issued after the barrier
/// overwrite. `asyncProxyReads`: the mma are wgmma, which read the stages
/// through the async proxy, so each thread fences its deposits (the
/// cp.async ones once waited for, the stored ones of earlier steps) with
/// fence.proxy.async ahead of the barrier that precedes the reads; and
/// `compute` leaves its wgmma group in flight (warpgroupMatmul with
/// `retire` false): it runs on the tensor cores while the warps deposit a
/// later stage, which it does not read, and is retired (wait_group 0) at
/// the next step's barrier, before anyone overwrites the stage it read,
/// and after the last step, before the results are read.
///
/// `prepare` (three stages or more): an operand built from copies that
/// must land first (read back from shared memory, scaled, stored into a
/// stage). Step s + 1's is built after step s's mma, so each step waits for
/// its successor's copies too (`wait_group stages - 3`: they were issued
/// stages - 2 steps before), and step 0's before the loop. The stage it
/// writes, s + 1 mod stages, is neither the one step s reads nor the one
/// step s - 1's wgmma read (retired by then anyway).
SmallVector<Value> ChunkedKernelParts::pipelinedReduction(
    ImplicitLocOpBuilder &b, Value steps, ValueRange accInit, FetchFn fetch,
    DepositFn deposit, ComputeFn compute, bool asyncProxyReads,
    PrepareFn prepare) {
  const int64_t stages = plan.stages;
  assert((!prepare || (async && stages >= 3)) &&
         "prepared stages need copies a step ahead of their use");
  Value zero = idx(b, 0), one = idx(b, 1);
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value step = s == 0 ? zero : idx(b, s);
    auto prologue = [&](ImplicitLocOpBuilder &b) {
      SmallVector<Value> fetched = fetch(b, step, step);
      deposit(b, fetched, step, step);
    };
    // The first step always runs; the later ones only where there are
    // that many.
    if (s == 0)
      prologue(b);
    else
      e.ifThen(b, ult(b, step, steps), prologue);
    if (async)
      NVVM::CpAsyncCommitGroupOp::create(b);
  }
  if (prepare) {
    // Step 0's copies, visible to every thread, then its prepared stage.
    NVVM::CpAsyncWaitGroupOp::create(b, stages - 2);
    gpu::BarrierOp::create(b);
    prepare(b, zero, zero);
  }
  SmallVector<Value> acc = forLoop(
      b, zero, steps, accInit,
      [&](ImplicitLocOpBuilder &b, Value step,
          ValueRange acc) -> SmallVector<Value> {
        Value stage = remu(b, step, stages);
        // The stage before this step's: a double buffer's other one.
        Value nextStage = stages == 2
                              ? sub(b, one, stage)
                              : select(b, eq(b, stage, zero),
                                       idx(b, stages - 1), sub(b, stage, one));
        if (asyncProxyReads)
          NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
        if (async)
          NVVM::CpAsyncWaitGroupOp::create(b, stages - (prepare ? 3 : 2));
        if (asyncProxyReads)
          NVVM::FenceProxyOp::create(
              b, NVVM::ProxyKind::async_shared,
              NVVM::SharedSpaceAttr::get(b.getContext(),
                                         NVVM::SharedSpace::shared_cta));
        // The step's operands are visible; every thread is done with the
        // stage the copies issued next overwrite.
        gpu::BarrierOp::create(b);
        Value next = add(b, step, stages - 1);
        Value hasNext = ult(b, next, steps);
        SmallVector<Value> fetched =
            ifValues(b, hasNext, [&](ImplicitLocOpBuilder &b) {
              return fetch(b, next, nextStage);
            });
        if (async)
          NVVM::CpAsyncCommitGroupOp::create(b);
        SmallVector<Value> out = compute(b, step, stage, acc);
        e.ifThen(b, hasNext, [&](ImplicitLocOpBuilder &b) {
          deposit(b, fetched, next, nextStage);
        });
        if (prepare) {
          Value following = add(b, step, 1);
          e.ifThen(b, ult(b, following, steps), [&](ImplicitLocOpBuilder &b) {
            prepare(b, following,
                    select(b, eq(b, stage, idx(b, stages - 1)), zero,
                           add(b, stage, 1)));
          });
        }
        return out;
      });
  if (asyncProxyReads)
    NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
  gpu::BarrierOp::create(b);
  return acc;
}

/// The warp's mma steps on one stage, skipped by warps without tiles.
/// `bStaged` false: B is a resident tile, read from column `bK` on.
SmallVector<Value>
ChunkedKernelParts::warpStep(ImplicitLocOpBuilder &b, const MmaLane &lane,
                             const WarpTile &tile, const MmaOperand &a,
                             const MmaOperand &bOp, Value stage, ValueRange acc,
                             bool bStaged, Value bK) {
  return ifValuesElse(b, tile.active, acc, [&](ImplicitLocOpBuilder &b) {
    MmaOperand as = atStage(b, a, stage);
    MmaOperand bs = bStaged ? atStage(b, bOp, stage) : bOp;
    SmallVector<Value> out(acc.begin(), acc.end());
    warpMatmul(b, lane, tile, as, bs, 0, kStep, plan.element, loads, out, bK);
    return out;
  });
}

MmaOperand ChunkedKernelParts::operand(ImplicitLocOpBuilder &b,
                                       const KernelContext &k,
                                       int64_t highOffset, int64_t lowOffset,
                                       int64_t rows, int64_t cols, bool kRows,
                                       Value shift, int64_t stages) {
  MmaOperand o;
  if (!stages)
    stages = plan.stages;
  o.high = sharedTile(b, k, highOffset, rows, cols, mmaType, stages, shift);
  if (plan.split)
    o.low = sharedTile(b, k, lowOffset, rows, cols, mmaType, stages, shift);
  o.kRows = kRows;
  return o;
}

/// Every (row, 8-column chunk) of a [rows x cols] tile, dealt to `threads`
/// threads: `body(i, row, col)` for the i-th chunk of this thread. Values
/// the body appends to `*collected` (fetches) stay usable after the loop
/// (a chunk index past the tile gives zeros).
void ChunkedKernelParts::forEachChunk(
    ImplicitLocOpBuilder &b, Value tid, int64_t threads, int64_t rows,
    int64_t cols,
    function_ref<void(ImplicitLocOpBuilder &, int64_t, Value, Value)> body,
    SmallVector<Value> *collected) {
  const int64_t chunksPerRow = cols / 8, total = rows * chunksPerRow;
  for (int64_t i = 0; i * threads < total; ++i) {
    Value c = add(b, tid, i * threads);
    Value row = divu(b, c, chunksPerRow);
    Value col = mul(b, remu(b, c, chunksPerRow), 8);
    if ((i + 1) * threads <= total) {
      body(b, i, row, col);
      continue;
    }
    Value inTile = ult(b, c, total);
    if (!collected) {
      e.ifThen(b, inTile,
               [&](ImplicitLocOpBuilder &b) { body(b, i, row, col); });
      continue;
    }
    size_t before = collected->size();
    SmallVector<Value> results =
        ifValues(b, inTile, [&](ImplicitLocOpBuilder &b) {
          body(b, i, row, col);
          SmallVector<Value> added(collected->begin() + before,
                                   collected->end());
          collected->resize(before);
          return added;
        });
    collected->append(results.begin(), results.end());
  }
}

MmaOperand ChunkedKernelParts::atStage(ImplicitLocOpBuilder &b,
                                       const MmaOperand &o, Value stage) {
  MmaOperand s = o;
  s.high = o.high.stage(b, stage);
  if (o.split())
    s.low = o.low.stage(b, stage);
  return s;
}

/// For each pair of horizontally adjacent accumulators (columns col and
/// col + 1) of the warp's tile: `body(row, col, first, second)`.
void ChunkedKernelParts::forEachAccumulatorPair(
    ImplicitLocOpBuilder &b, const MmaLane &lane, const WarpTile &tile,
    ValueRange acc,
    function_ref<void(ImplicitLocOpBuilder &, Value, Value, Value, Value)>
        body) {
  forEachAccumulator(
      b, lane, tile,
      [&](ImplicitLocOpBuilder &b, Value row, Value col, int64_t i) {
        if (i % 2 == 0)
          body(b, row, col, acc[i], acc[i + 1]);
      });
}

/// Stores `first`, `second` at indices ..col and ..col+1 of `memref`
/// (rounded to its element type) where the columns are below `extent`:
/// one 2-element store when both are and `pairs` (the row stride is even,
/// so the pair is aligned), else one or two scalar stores.
void ChunkedKernelParts::storePair(ImplicitLocOpBuilder &b, Value memref,
                                   SmallVector<Value> indices, Value extent,
                                   Value first, Value second, bool pairs,
                                   Value tokensHeld) {
  Value col = indices.back();
  Value bothIn = ult(b, add(b, col, 1), extent);
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  // The pool, rounded stochastically: the codec rounds, with the element's
  // own bits (its column in the counter).
  bool stochastic = memref == e.pool && codec.stochastic;
  auto siteAt = [&](Value n) {
    return PoolWriteSite{indices[0], indices[1], indices[2], n, tokensHeld};
  };
  auto storeScalar = [&](ImplicitLocOpBuilder &b, Value v, Value at) {
    SmallVector<Value> i(indices);
    i.back() = at;
    if (stochastic)
      memref::StoreOp::create(
          b, codec.encode(b, v, /*inverse=*/Value(), siteAt(at)), memref, i);
    else
      e.storeRounded(b, v, memref, i);
  };
  if (pairs) {
    auto ifBoth = scf::IfOp::create(b, TypeRange{}, bothIn, true);
    ImplicitLocOpBuilder t(b.getLoc(), b.getContext());
    t.setInsertionPoint(ifBoth.thenBlock()->getTerminator());
    Value v = vector::FromElementsOp::create(
        t, VectorType::get({2}, t.getF32Type()), ValueRange{first, second});
    if (stochastic)
      v = codec.encode(t, v, /*inverse=*/Value(), siteAt(col));
    else if (!element.isF32())
      v = arith::TruncFOp::create(t, VectorType::get({2}, element), v);
    vectorStore(t, v, memref, indices, 2 * element.getIntOrFloatBitWidth() / 8);
    t.setInsertionPoint(ifBoth.elseBlock()->getTerminator());
    e.ifThen(t, ult(t, col, extent),
             [&](ImplicitLocOpBuilder &b) { storeScalar(b, first, col); });
    return;
  }
  e.ifThen(b, ult(b, col, extent),
           [&](ImplicitLocOpBuilder &b) { storeScalar(b, first, col); });
  e.ifThen(b, bothIn, [&](ImplicitLocOpBuilder &b) {
    storeScalar(b, second, add(b, col, 1));
  });
}

/// Elements ..col and ..col+1 of `memref` along its last dimension as
/// f32 (0 at or past `extent`): one 2-element load when the extent is
/// even (col is even, so both are inside or neither), else two; `toF32`
/// widens what is loaded (a 2-vector or a scalar).
std::pair<Value, Value> ChunkedKernelParts::loadPairAs(
    ImplicitLocOpBuilder &b, Value memref, SmallVector<Value> indices,
    int64_t extent, function_ref<Value(ImplicitLocOpBuilder &, Value)> toF32) {
  Value col = indices.back();
  if (extent % 2 == 0) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    Value pair = ifValues(b, ult(b, col, extent), [&](ImplicitLocOpBuilder &b) {
                   Value v = vectorLoad(
                       b, VectorType::get({2}, element), memref, indices,
                       2 * element.getIntOrFloatBitWidth() / 8);
                   return SmallVector<Value>{toF32(b, v)};
                 }).front();
    auto at = [&](int64_t q) {
      return vector::ExtractOp::create(b, pair, ArrayRef<int64_t>{q})
          .getResult();
    };
    return {at(0), at(1)};
  }
  SmallVector<Value> both;
  for (int64_t q = 0; q < 2; ++q) {
    SmallVector<Value> at(indices);
    at.back() = add(b, col, q);
    both.push_back(e.ifElse(
        b, ult(b, at.back(), extent), b.getF32Type(),
        [&](ImplicitLocOpBuilder &b) { return toF32(b, load(b, memref, at)); },
        [&](ImplicitLocOpBuilder &b) { return f32(b, 0.0); }));
  }
  return {both[0], both[1]};
}

std::pair<Value, Value> ChunkedKernelParts::loadPair(ImplicitLocOpBuilder &b,
                                                     Value memref,
                                                     SmallVector<Value> indices,
                                                     int64_t extent) {
  return loadPairAs(b, memref, indices, extent,
                    [](ImplicitLocOpBuilder &b, Value v) -> Value {
                      Type f32 = b.getF32Type();
                      if (auto vector = dyn_cast<VectorType>(v.getType()))
                        f32 = vector.clone(f32);
                      if (v.getType() == f32)
                        return v;
                      return arith::ExtFOp::create(b, f32, v);
                    });
}

/// The pool's elements ..col and ..col+1 of row (slot, head, p) as f32 (0
/// at or past `extent`): loadPair's, decoded as loadPoolVector decodes
/// them (an 8-bit row's codes times the row's one scale, element by
/// element, so the same bits as launch 2's wider vectors).
std::pair<Value, Value>
ChunkedKernelParts::loadPoolPair(ImplicitLocOpBuilder &b,
                                 SmallVector<Value> indices, int64_t extent) {
  if (!codec.scaled())
    return loadPair(b, e.pool, indices, extent);
  Value scale = codec.loadScale(b, indices[0], indices[1], indices[2]);
  return loadPairAs(b, e.pool, indices, extent,
                    [&](ImplicitLocOpBuilder &b, Value codes) {
                      return codec.decode(b, codes, scale);
                    });
}
