//===- SSDOps.td - ssd dialect operations -----------------*- tablegen -*-===//

#ifndef SSD_IR_SSDOPS_TD
#define SSD_IR_SSDOPS_TD

include "ssd/IR/SSDDialect.td"
include "ssd/IR/SSDAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

class SSD_Op<string mnemonic, list<Trait> traits = []>
    : Op<SSD_Dialect, mnemonic, traits>;

// Element types and shapes are checked by the op verifier, which names the
// operand and the numbers involved; the ODS constraints only fix the kind of
// container so that the op never holds an unranked or non-shaped value.
def SSD_TensorOrMemRef : AnyTypeOf<[AnyRankedTensor, AnyMemRef],
                                   "ranked tensor or memref">;

def SSD_ChunkScanVarlenOp : SSD_Op<"chunk_scan_varlen", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Mamba-2 SSD scan over packed variable-length sequences, "
                "with the recurrent state updated in place in a pool";
  let description = [{
    Forward Mamba-2 state-space-duality (SSD) scan over a packed batch of
    variable-length sequences. Each sequence reads its recurrent state from a
    slot of `ssm_pool`, scans its tokens, produces `y`, and writes its final
    state back into the same slot, in place.

    Shapes: T total tokens, H heads, P head_dim, G groups, N dstate,
    S pool slots, batch sequences.

    Operands (in the order of the reference function):

    | operand             | shape              | element type                |
    |---------------------|--------------------|-----------------------------|
    | `x`                 | [T, H, P]          | model dtype (f32, f16, bf16)|
    | `dt`                | [T, H]             | model dtype                 |
    | `A`                 | [H]                | model dtype, `-exp(A_log)`  |
    | `B`                 | [T, G, N]          | model dtype                 |
    | `C`                 | [T, G, N]          | model dtype                 |
    | `D` (optional)      | [H]                | model dtype                 |
    | `dt_bias` (optional)| [H]                | model dtype                 |
    | `ssm_pool`          | [S, H, P, N]       | f32, bf16, f16, f8E4M3FN, i8 (storage only) |
    | `ssm_pool_scales` (8-bit pools) | [S, H, P] | f32, one scale per row |
    | `query_start_loc`   | [batch + 1]        | i32                         |
    | `has_initial_state` (optional) | [batch] | i1                          |
    | `cache_indices`     | [batch] or [1, batch] | i32 or ui32, read unsigned |
    | `update_state` (optional) | [batch]      | i1                          |
    | `checkpoint_slots` (optional) | [batch, K] | i32 or ui32, read unsigned |
    | `checkpoint_offsets` (optional) | [batch]  | i32, >= 0                   |
    | `token_parents` (optional) | [T]         | i32, in [-1, j)             |
    | `rounding_seed` (stochastic) | [] (0-d)  | i64                         |
    | `y`                 | [T, H, P]          | model dtype                 |

    Semantics, for every sequence b over tokens
    t in [query_start_loc[b], query_start_loc[b+1]):

    ```
    slot = cache_indices[b]
    S    = has_initial_state[b] ? ssm_pool[slot] : 0      # [H, P, N], f32
    for t in order, for every head h, with g = h / (H / G):
      d        = dt_bias ? softplus(dt[t,h] + dt_bias[h]) : dt[t,h]
      S[h]     = exp(d * A[h]) * S[h] + d * outer(x[t,h,:], B[t,g,:])
      y[t,h,:] = S[h] @ C[t,g,:] (+ D[h] * x[t,h,:] when D is present)
    if update_state is absent or update_state[b]: ssm_pool[slot] = S
    ```

    `softplus(v) = v > 20 ? v : log1p(exp(v))`. Arithmetic accumulates in
    f32; y is rounded once to the model dtype; a narrow pool is rounded on
    write (below).

    Compressed pools: the pool holds f32, bf16, f16, or 8-bit codes
    (f8E4M3FN, or i8 in -127..127) with one f32 scale per row
    S[h, p, :] in `ssm_pool_scales` [S, H, P], which is present exactly for
    the 8-bit types and is read and written in place with the pool (a
    checkpoint slot gets its rows' scales too). Writing a row r of N values,
    with Qmax = 448 (f8E4M3FN) or 127 (i8):

    ```
    m = max_n |r[n]|
    m == 0:        scale = 0, every code 0
    m not finite:  scale = NaN, every code 0   (the damage shows on read)
    otherwise:     scale = m / Qmax, inv = Qmax / m   (each one f32 division)
                   code[n] = round(r[n] * inv)  (product in f32, then
                   rounded to the 8-bit type, saturating at +-Qmax)
    ```

    and reading gives `code[n] * scale`. bf16 and f16 pools round each
    value. `pool_rounding` (`#ssd<pool_rounding nearest_even>` by default,
    or `stochastic`) names the rounding of every write; the stochastic one
    draws its bits from Philox4x32-10 keyed by the 0-d i64 operand
    `rounding_seed`, present exactly then (docs/overview.md, "Compressed
    state pools", gives the counter of each element).

    In-place pool contract:
    - `ssm_pool` (and `ssm_pool_scales`) are always memrefs; the op reads
      and writes them in place and has no other effect on memory (other
      memref operands are read, the `y`
      output memref is written).
    - A slot that no writing sequence names stays bit-identical; so does the
      slot of a sequence whose `update_state` is false, although it was read.
    - Several sequences may name one slot if at most one of them writes it.
    - Cache index 0xFFFFFFFF (-1 as i32) marks a padding sequence: it starts
      from zero and writes no state; its rows of `y` are still computed.
    - A sequence of length 0 produces no rows of `y`; if it writes, it writes
      its initial state.

    State checkpoints (prefix caching, speculative decoding): with
    `checkpoint_slots` present, `checkpoint_interval = I` (attribute, >= 1)
    is present too, and sequence b also writes the state it holds at every
    interval boundary it crosses, counted from its absolute start. With
    o = checkpoint_offsets[b] (0 when the operand is absent: the tokens the
    sequence held before this call), after its local token j the sequence
    holds o + j + 1 tokens; when that is a multiple of I it is boundary

    ```
    k = (o + j + 1) / I - floor(o / I) - 1
    if k < K and checkpoint_slots[b, k] != -1 and cache_indices[b] != -1:
      ssm_pool[checkpoint_slots[b, k]] = S   # the state after token j
    ```

    rounded like a final state. Boundaries past K are not written;
    checkpoints are written whatever `update_state[b]` says (a verify call
    keeps one state per draft token and leaves the main slot alone); I = 1
    gives one state per token. Checkpoint slots must be distinct from one
    another across the call and from every slot the call reads or writes;
    every read still sees the pool as it was before the call.

    Tree verification (speculative draft trees): with `token_parents`, the
    j-th token of a sequence (t = query_start_loc[b] + j) continues the state
    of its parent, the sequence's token p = token_parents[t] (a local index,
    0 <= p < j), or the sequence's initial state when p = -1, instead of the
    state of the token before it:

    ```
    S_t      = exp(d * A[h]) * S_parent + d * outer(x[t,h,:], B[t,g,:])
    y[t,h,:] = S_t @ C[t,g,:] (+ D[h] * x[t,h,:])
    ```

    The final state is the state of the sequence's last token. The op then
    takes checkpoints only with `checkpoint_interval = 1`, so that column j
    of `checkpoint_slots` receives the state of token j (the engine keeps
    the accepted node's state). Parents outside [-1, j) are invalid input.
    Only the serial form serves trees (a chunk's closed form assumes a
    chain): `form chunked`, a config that mixes in chunked launches, and
    the invariant mode refuse them; `ssd-select-form` picks the serial form.
    Without `token_parents` every token's parent is the one before it, and
    a chain written as explicit parents gives the same bits.

    Two forms of the op:
    - tensor form: every operand but `ssm_pool` is a tensor, and `y` is the
      result;
    - memref form: every operand is a memref, `y` is passed with `outs(...)`
      and the op has no results.

    The optional `form` attribute (`#ssd<form serial>` or
    `#ssd<form chunked>`) and `chunk_size` name the algorithm: pinned by hand
    or by a graph compiler, or chosen by `ssd-select-form`, which also
    records its whole plan in `config` (`#ssd.scan_config<...>`); where both
    are present they agree. The lowerings read `config`, and an op without
    one as if it carried the plan `form` and `chunk_size` give.

    The optional `invariant` keyword (`ssd.chunk_scan_varlen invariant x(...)`,
    set by hand or by `ssd-select-form invariant=true`) promises batch
    invariance: every sequence's rows of `y` and every state it writes
    (final state, checkpoints) are bit-identical however the call is
    scheduled: batched with any other sequences, padding or slots, split
    across calls at any token (the state carried through an f32 pool slot
    with `has_initial_state`), in either form and any chunk size, on any
    target and thread count. A bf16 pool keeps all of it but the split (its
    state is rounded between the calls). The op computes one canonical
    per-token arithmetic for that (docs/overview.md); its config, when
    present, says `invariant = true` too.

    Example (memref form, decode of 8 sequences, Mamba2-2.7B shapes):

    ```mlir
    ssd.chunk_scan_varlen
        x(%x : memref<8x80x64xbf16>) dt(%dt : memref<8x80xbf16>)
        A(%A : memref<80xbf16>) B(%B : memref<8x1x128xbf16>)
        C(%C : memref<8x1x128xbf16>) D(%D : memref<80xbf16>)
        dt_bias(%dt_bias : memref<80xbf16>)
        ssm_pool(%pool : memref<64x80x64x128xf32>)
        query_start_loc(%qsl : memref<9xi32>)
        has_initial_state(%init : memref<8xi1>)
        cache_indices(%slots : memref<8xi32>)
        outs(%y : memref<8x80x64xbf16>)
    ```
  }];

  let arguments = (ins
    SSD_TensorOrMemRef:$x,
    SSD_TensorOrMemRef:$dt,
    SSD_TensorOrMemRef:$A,
    SSD_TensorOrMemRef:$B,
    SSD_TensorOrMemRef:$C,
    Optional<SSD_TensorOrMemRef>:$D,
    Optional<SSD_TensorOrMemRef>:$dt_bias,
    AnyMemRef:$ssm_pool,
    Optional<AnyMemRef>:$ssm_pool_scales,
    SSD_TensorOrMemRef:$query_start_loc,
    Optional<SSD_TensorOrMemRef>:$has_initial_state,
    SSD_TensorOrMemRef:$cache_indices,
    Optional<SSD_TensorOrMemRef>:$update_state,
    Optional<SSD_TensorOrMemRef>:$checkpoint_slots,
    Optional<SSD_TensorOrMemRef>:$checkpoint_offsets,
    Optional<SSD_TensorOrMemRef>:$token_parents,
    Optional<SSD_TensorOrMemRef>:$rounding_seed,
    Optional<AnyMemRef>:$y_out,
    OptionalAttr<SSD_FormAttr>:$form,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$chunk_size,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$checkpoint_interval,
    OptionalAttr<SSD_ScanConfigAttr>:$config,
    OptionalAttr<SSD_PoolRoundingAttr>:$pool_rounding,
    UnitAttr:$invariant
  );
  let results = (outs Optional<AnyRankedTensor>:$y);

  let assemblyFormat = [{
    (`invariant` $invariant^)?
    `x` `(` $x `:` type($x) `)`
    `dt` `(` $dt `:` type($dt) `)`
    `A` `(` $A `:` type($A) `)`
    `B` `(` $B `:` type($B) `)`
    `C` `(` $C `:` type($C) `)`
    (`D` `(` $D^ `:` type($D) `)`)?
    (`dt_bias` `(` $dt_bias^ `:` type($dt_bias) `)`)?
    `ssm_pool` `(` $ssm_pool `:` type($ssm_pool) `)`
    (`ssm_pool_scales` `(` $ssm_pool_scales^ `:` type($ssm_pool_scales)
        `)`)?
    `query_start_loc` `(` $query_start_loc `:` type($query_start_loc) `)`
    (`has_initial_state` `(` $has_initial_state^ `:`
        type($has_initial_state) `)`)?
    `cache_indices` `(` $cache_indices `:` type($cache_indices) `)`
    (`update_state` `(` $update_state^ `:` type($update_state) `)`)?
    (`checkpoint_slots` `(` $checkpoint_slots^ `:` type($checkpoint_slots)
        `)`)?
    (`checkpoint_offsets` `(` $checkpoint_offsets^ `:`
        type($checkpoint_offsets) `)`)?
    (`checkpoint_interval` `(` $checkpoint_interval^ `)`)?
    (`token_parents` `(` $token_parents^ `:` type($token_parents) `)`)?
    (`rounding_seed` `(` $rounding_seed^ `:` type($rounding_seed) `)`)?
    (`outs` `(` $y_out^ `:` type($y_out) `)`)?
    attr-dict (`->` type($y)^)?
  }];

  let extraClassDeclaration = [{
    /// True for the tensor form (y is a result), false for the memref form.
    bool hasTensorSemantics() { return getNumResults() == 1; }
    /// The value that holds y: the result in the tensor form, the `outs`
    /// buffer in the memref form.
    ::mlir::Value getYValue() {
      return hasTensorSemantics() ? ::mlir::Value(getY())
                                  : ::mlir::Value(getYOut());
    }
    /// True when every checkpoint boundary ends a chunk of `chunkSize`
    /// tokens (chunks start every chunkSize tokens of a sequence): no
    /// checkpoint_offsets and an interval that is a multiple of the chunk
    /// size. False without checkpoints.
    bool checkpointsEndChunks(int64_t chunkSize);
  }];

  let hasVerifier = 1;
}

// No MemoryEffectsOpInterface on purpose: an op of unknown effects is never
// trivially dead, so canonicalization cannot drop the request before
// `ssd-apply-kernel-occupancy` consumes it.
def SSD_KernelOccupancyOp : SSD_Op<"kernel_occupancy"> {
  let summary = "Blocks of the enclosing GPU kernel that must fit one SM";
  let description = [{
    A request, from the code that built a kernel, to the code generator: keep
    registers low enough that `min_blocks_per_sm` blocks of the enclosing
    kernel (`gpu.launch` body or `gpu.func`) are resident on one
    multiprocessor at once. A kernel whose shared memory and warp count were
    planned for that many blocks per SM otherwise gets whatever register
    count the assembler prefers, which may leave room for one.

    `ssd-lower-to-gpu` emits it; `ssd-apply-kernel-occupancy`, after kernel
    outlining, turns it into the kernel function's `nvvm.minctasm` (the PTX
    directive `.minnctapersm`, which caps ptxas's register allocation at
    65536 / (blocks x threads per block)) and erases it. It emits no code.

    ```mlir
    gpu.launch blocks(...) threads(...) {
      ssd.kernel_occupancy min_blocks_per_sm = 2
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$min_blocks_per_sm);
  let assemblyFormat = "`min_blocks_per_sm` `=` $min_blocks_per_sm attr-dict";
  let hasVerifier = 1;
}

#endif // SSD_IR_SSDOPS_TD
