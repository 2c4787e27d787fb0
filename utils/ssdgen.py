#!/usr/bin/python3
"""Inputs, references, checks and broken inputs for ssd-run.

  ssdgen.py gen OUTDIR --seqlens 0,1,5 [...]    write a random valid input dir
  ssdgen.py ref INPUTDIR OUTDIR [--dtype D] [--pool-dtype P] [--f32-state]
                 [--pool-rounding stochastic --rounding-seed N]
                                                float64 reference in NumPy
  ssdgen.py check INPUTDIR REFDIR OUTDIR --dtype D [--tol X] [--pool-dtype P]
                 [--suite TARGET/FORM]          compare an output dir to a
                                                reference dir (--suite: also
                                                the suite's bound, below)
  ssdgen.py bounds [--measured LOG]             the suite's bounds as the
                                                table of docs/testing.md
  ssdgen.py bad OUTDIR KIND                     write a deliberately broken dir
  ssdgen.py split INPUTDIR POOLDIR OUTDIR --sequence B --start J
                 --checkpoint-interval I        the rest of sequence B from its
                                                checkpoint after local token
                                                J - 1, as a call of its own
  ssdgen.py resume-check INPUTDIR FULLOUT SPLITDIR SPLITOUT --sequence B
                 --start J                      compare a split run with the
                                                uncut one
  ssdgen.py invariance gen|run|check ...        one problem as several
                                                schedules of calls, compared
                                                bit for bit (the invariant
                                                mode; ssdgen_invariance.py)

Only the standard library and NumPy. `ref` is an independent NumPy
transcription of the recurrence, used to cross-check the C++ reference: it
performs the same operations in the same order, so the two agree bit for bit
(checked with --tol 0). With checkpoints, `ref` and `check` take the
interval as ssd-run does (--checkpoint-interval). `--pool-dtype bf16` matches ssd-run's: the float32
values of ssm_pool.npy are rounded to bf16 on load and the written states to
bf16 on write; the output pool holds those bf16 values as float32. So does
`--pool-dtype f16`; `f8e4m3` and `i8` pools are their codes (uint8 bit
patterns, int8) with ssm_pool_scales.npy, quantized by a NumPy reading of
docs/overview.md ("Compressed state pools") of its own, Philox4x32-10
included (`--pool-rounding stochastic --rounding-seed N`), so that `ref`
cross-checks the C++ reference's stored bits too.

Two bounds (docs/testing.md, "Suite bounds"). The contract's (TOLERANCES,
docs/overview.md "Accuracy") is what users are promised on every target.
The numeric suite also holds each (target, form, model dtype) to its own
bound (SUITE_BOUNDS), a margin above the worst error the suite measured
there, on the error beyond the outputs' own rounding: what is left once
the op's and the reference's rounding to the output format are taken out
is the op's own arithmetic, at f32 scale whatever the model dtype. `check --suite TARGET/FORM` applies both; with SSDGEN_CHECK_LOG set
(lit --param check-log=FILE in test/numeric) it appends each such check's
errors to that file, and `bounds --measured FILE` prints the worst of them
next to the bounds.
"""

import argparse
import math
import os
import shutil
import sys

import numpy as np

import ssdgen_invariance

# docs/overview.md, Accuracy: max|out - ref| / max|ref| per model dtype, over
# y and over each written pool slot on its own.
TOLERANCES = {"f32": 5e-4, "f16": 1e-2, "bf16": 3e-2}

# docs/testing.md, "Suite bounds": (target, form, model dtype) -> the most y
# and each written pool slot may be off beyond their rounding (relative to
# max|ref|, as the tolerances): SUITE_MARGIN times the worst the numeric
# suite measured, rounded up to two significant digits, never below the f32
# row of the target and form (proposed_bound). `auto` may run either form,
# so it takes the larger of the two.
SUITE_MARGIN = 4
SUITE_BOUNDS = {
    ("cpu", "serial", "f32"): (5.2e-06, 1.4e-05),
    ("cpu", "serial", "f16"): (5.2e-06, 2.6e-05),
    ("cpu", "serial", "bf16"): (5.2e-06, 2.6e-05),
    ("cpu", "chunked", "f32"): (5.1e-06, 2.6e-05),
    ("cpu", "chunked", "f16"): (5.1e-06, 2.6e-05),
    ("cpu", "chunked", "bf16"): (5.1e-06, 2.6e-05),
    ("gpu-emu", "serial", "f32"): (8.8e-07, 1.3e-06),
    ("gpu-emu", "serial", "f16"): (8.8e-07, 1.3e-06),
    ("gpu-emu", "serial", "bf16"): (8.8e-07, 1.5e-06),
    # The GPU's chunked kernels give the tensor cores operands in the model
    # dtype (x weighted by its decay, C·Bᵀ for bf16, the state passed between
    # chunks: docs/gpu.md), roundings the reference does not make.
    ("gpu-emu", "chunked", "f32"): (4.2e-05, 6.2e-05),
    ("gpu-emu", "chunked", "f16"): (8.1e-04, 1.8e-03),
    ("gpu-emu", "chunked", "bf16"): (6.4e-03, 1.3e-02),
}

SUITE_FORMS = ("serial", "chunked", "auto")

# Significand bits (implicit one included) and smallest normal exponent of
# the output formats, for the spacing of their values.
FORMATS = {"f32": (24, -126), "f16": (11, -14), "bf16": (8, -126)}
PADDING = 0xFFFFFFFF

FLOAT_INPUTS = ["x", "dt", "A", "B", "C", "D", "dt_bias"]


# ----------------------------------------------------------------------------
# Rounding to the model dtype (round-to-nearest-even)
# ----------------------------------------------------------------------------

def _bf16_from_f32(f):
    """Round float32 values to bfloat16 (RNE), returned as float32."""
    bits = np.ascontiguousarray(f, dtype=np.float32).view(np.uint32)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    rounded = (bits.astype(np.uint64) + 0x7FFF + ((bits >> 16) & 1)) >> 16
    rounded = rounded.astype(np.uint32) << 16
    rounded = np.where(nan, bits | 0x00400000, rounded) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _round_to_odd_f32(d):
    """float64 -> float32 rounding to odd. A later RNE to a format with at
    least two fewer significand bits then equals one rounding of d."""
    d = np.asarray(d, dtype=np.float64)
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    exact = f.astype(np.float64) == d
    fmax = np.float32(np.finfo(np.float32).max)
    f = np.where(np.isinf(f) & np.isfinite(d), np.copysign(fmax, d), f)
    f = f.astype(np.float32)
    too_big = np.abs(f.astype(np.float64)) > np.abs(d)
    f = np.where(too_big, np.nextafter(f, np.float32(0)), f).astype(np.float32)
    bits = f.view(np.uint32)
    bits = np.where(exact | np.isnan(d), bits, bits | 1).astype(np.uint32)
    return bits.view(np.float32)


def round_to_dtype(a, dtype):
    """Round float32 or float64 values to the model dtype; float32 result."""
    a = np.asarray(a)
    if dtype == "f32":
        return a.astype(np.float32)
    if dtype == "f16":
        # NumPy converts float64 -> float16 directly, with a single rounding.
        return a.astype(np.float16).astype(np.float32)
    if a.dtype == np.float64:
        a = _round_to_odd_f32(a)
    return _bf16_from_f32(a.astype(np.float32))


# ----------------------------------------------------------------------------
# Compressed pools (docs/overview.md, "Compressed state pools")
# ----------------------------------------------------------------------------
# Written from the contract with NumPy's own conversions and a table of the
# f8E4M3FN values, not from the C++ (lib/Runner/PoolFormat.cpp) or the IR
# (PoolCodec): the checks compare them with this.

POOL_DTYPES = ["f32", "bf16", "f16", "f8e4m3", "i8"]
SCALED_POOLS = {"f8e4m3": 448.0, "i8": 127.0}
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 (Random123), elementwise over uint32 arrays (or ints);
    returns the four output words."""
    m32 = np.uint64(0xFFFFFFFF)
    c = [np.asarray(v, dtype=np.uint64) & m32 for v in (c0, c1, c2, c3)]
    k = [np.uint64(int(k0) & 0xFFFFFFFF), np.uint64(int(k1) & 0xFFFFFFFF)]
    for _ in range(10):
        p0 = np.uint64(PHILOX_M[0]) * c[0]
        p1 = np.uint64(PHILOX_M[1]) * c[2]
        c = [((p1 >> np.uint64(32)) ^ c[1] ^ k[0]) & m32, p1 & m32,
             ((p0 >> np.uint64(32)) ^ c[3] ^ k[1]) & m32, p0 & m32]
        k = [(k[0] + np.uint64(PHILOX_W[0])) & m32,
             (k[1] + np.uint64(PHILOX_W[1])) & m32]
    return [v.astype(np.uint32) for v in c]


def pool_bits(seed, slot, tokens, H, P, N):
    """[H, P, N] random words of a write of `tokens` tokens into `slot`:
    word n mod 4 of the call on counter (n div 4, h * P + p, slot, tokens),
    key the seed's halves."""
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    n = np.broadcast_to(np.arange(N, dtype=np.uint64), (H, P, N))
    row = np.broadcast_to(np.arange(H * P, dtype=np.uint64).reshape(H, P, 1),
                          (H, P, N))
    words = philox4x32_10(n // np.uint64(4), row, slot, tokens,
                          seed & 0xFFFFFFFF, seed >> 32)
    return np.choose((n % np.uint64(4)).astype(np.int64), words)


def _uniform(bits):
    """u = (bits >> 8) * 2^-24, in [0, 1)."""
    return (bits >> np.uint32(8)).astype(np.float64) * 2.0 ** -24


def f8_values():
    """The 127 non-negative finite f8E4M3FN values, by code 0..126."""
    out = []
    for code in range(127):
        e, m = code >> 3, code & 7
        out.append(m * 2.0 ** -9 if e == 0 else (1 + m / 8.0) * 2.0 ** (e - 7))
    return np.array(out)


F8_VALUES = f8_values()


def decode_f8(codes):
    codes = np.asarray(codes, dtype=np.uint8)
    mag = (codes & 0x7F).astype(np.int64)
    v = np.where(mag == 0x7F, np.nan, F8_VALUES[np.minimum(mag, 126)])
    return np.where(codes & 0x80, -v, v)


def decode_pool(codes, scales, pool_dtype):
    """What the op reads: float(code) * scale, one f32 multiplication."""
    if pool_dtype == "i8":
        v = codes.view(np.int8).astype(np.float32)
    else:
        v = decode_f8(codes.view(np.uint8)).astype(np.float32)
    return (v * scales.astype(np.float32)[..., None]).astype(np.float32)


def _stochastic_between(a, lo, hi, bits):
    """lo or hi for lo <= a <= hi: hi with probability (a - lo) / (hi - lo)."""
    gap = hi - lo
    frac = np.where(gap > 0, (a - lo) / np.where(gap > 0, gap, 1.0), 0.0)
    return np.where(_uniform(bits) < frac, hi, lo)


def round_f16(v, stochastic=False, bits=None):
    """float32 values rounded to float16 (held as float32)."""
    v = np.asarray(v, dtype=np.float32)
    with np.errstate(over="ignore"):
        nearest = v.astype(np.float16).astype(np.float32)
    if not stochastic:
        return nearest
    a = np.abs(v.astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        lo = a.astype(np.float16).astype(np.float64)
    lo = np.where(lo > a, np.nextafter(lo.astype(np.float16), np.float16(0))
                  .astype(np.float64), lo)
    # Past the largest float16 the grid of 2^15's binade goes on (gap 32):
    # what rounds up from 65504 overflows.
    with np.errstate(over="ignore"):
        hi = np.where(lo >= 65504.0, 65536.0,
                      np.nextafter(lo.astype(np.float16), np.float16(np.inf))
                      .astype(np.float64))
    lo = np.where(np.isinf(lo), 65536.0, lo)
    r = _stochastic_between(a, lo, hi, bits)
    with np.errstate(over="ignore"):
        r = np.copysign(r, v).astype(np.float16).astype(np.float32)
    return np.where(np.isfinite(v), r, nearest).astype(np.float32)


def round_bf16(v, stochastic=False, bits=None):
    """float32 values rounded to bf16 (held as float32)."""
    v = np.asarray(v, dtype=np.float32)
    nearest = _bf16_from_f32(v)
    if not stochastic:
        return nearest
    u = v.view(np.uint32).astype(np.uint64)
    up = (bits.astype(np.uint64) >> np.uint64(16)) < (u & np.uint64(0xFFFF))
    r = ((u & np.uint64(0xFFFF0000)) + np.where(up, 0x10000, 0)
         ).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(v), nearest, r).astype(np.float32)


def encode_rows(r, pool_dtype, stochastic=False, bits=None):
    """f32 rows r [..., N] of an 8-bit pool: (codes [..., N] uint8 holding
    the pattern, scales [...] float32)."""
    r = np.asarray(r, dtype=np.float32)
    qmax = np.float32(SCALED_POOLS[pool_dtype])
    with np.errstate(invalid="ignore"):
        m = np.max(np.abs(r), axis=-1) if r.shape[-1] else \
            np.zeros(r.shape[:-1], np.float32)
    m = np.where(np.any(np.isnan(r), axis=-1), np.float32(np.nan), m)
    m = m.astype(np.float32)
    ok = np.isfinite(m) & (m > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = np.where(m == 0, np.float32(0),
                         np.where(ok, m / qmax, np.float32(np.nan)))
        inv = np.where(ok, qmax / np.where(ok, m, 1), np.float32(0))
        p = (r * inv.astype(np.float32)[..., None]).astype(np.float32)
    p = np.where(ok[..., None] & np.isfinite(p), p, np.float32(0))
    a = np.minimum(np.abs(p.astype(np.float64)), float(qmax))
    if pool_dtype == "i8":
        q = (_stochastic_between(a, np.floor(a), np.floor(a) + 1, bits)
             if stochastic else np.rint(a))
        q = np.minimum(q, 127.0)
        codes = np.where(np.signbit(p), -q, q).astype(np.int8).view(np.uint8)
    else:
        i = np.clip(np.searchsorted(F8_VALUES, a, side="right") - 1, 0, 126)
        lo = F8_VALUES[i]
        hi = F8_VALUES[np.minimum(i + 1, 126)]
        if stochastic:
            mag = _stochastic_between(a, lo, hi, bits)
        else:
            # Nearest; a tie goes to the even code (its mantissa's last bit).
            up = (a - lo > hi - a) | ((a - lo == hi - a) & (i % 2 == 1))
            mag = np.where(up, hi, lo)
        code = np.searchsorted(F8_VALUES, mag).astype(np.uint8)
        codes = code | np.where(np.signbit(p), 0x80, 0).astype(np.uint8)
    codes = np.where(ok[..., None], codes, 0).astype(np.uint8)
    return codes, scale.astype(np.float32)


def store_state(state, pool_dtype, stochastic=False, bits=None):
    """A state [H, P, N] (float64) as its pool stores it: rounded to f32,
    then (values,) for f32, bf16, f16 or (codes, scales) for 8-bit."""
    s = np.asarray(state, dtype=np.float64).astype(np.float32)
    if pool_dtype in SCALED_POOLS:
        return encode_rows(s, pool_dtype, stochastic, bits)
    if pool_dtype == "bf16":
        return (round_bf16(s, stochastic, bits),)
    if pool_dtype == "f16":
        return (round_f16(s, stochastic, bits),)
    return (s,)


def pool_quantum(state, pool_dtype, scales=None):
    """The gap of the pool's grid at each value of f32 state(s) [..., N]
    (for 8-bit pools, of the row scaled by `scales`)."""
    a = np.abs(np.asarray(state, dtype=np.float64))
    if pool_dtype in ("bf16", "f16"):
        return _step(a, pool_dtype)
    if pool_dtype == "i8":
        return np.broadcast_to(scales[..., None].astype(np.float64), a.shape)
    sc = scales[..., None].astype(np.float64)
    pa = np.where(sc > 0, a / np.where(sc > 0, sc, 1), 0.0)
    _, e = np.frexp(pa)
    return np.ldexp(1.0, np.maximum(e - 1, -6) - 3) * sc


# ----------------------------------------------------------------------------
# Reading an input directory
# ----------------------------------------------------------------------------

def _path(d, name):
    return os.path.join(d, name + ".npy")


def load_inputs(d):
    """All files of an input dir as NumPy arrays (absent optionals: None)."""
    arrs = {}
    for name in FLOAT_INPUTS + ["ssm_pool", "ssm_pool_scales",
                                "query_start_loc", "cache_indices",
                                "has_initial_state", "update_state",
                                "checkpoint_slots", "checkpoint_offsets",
                                "token_parents"]:
        p = _path(d, name)
        arrs[name] = np.load(p) if os.path.exists(p) else None
    return arrs


def writers(arrs):
    """Per sequence: its slot (None for padding) and whether it writes."""
    ci = arrs["cache_indices"].reshape(-1).astype(np.int64) & 0xFFFFFFFF
    upd = arrs["update_state"]
    out = []
    for b, slot in enumerate(ci):
        slot = int(slot)
        if slot == PADDING:
            out.append((None, False))
        else:
            out.append((slot, upd is None or bool(upd[b])))
    return out


def checkpoint_boundaries(offset, length, interval):
    """(j, k) for each local token j after which a sequence of `length`
    tokens that held `offset` before the call reaches a multiple of the
    interval, k being that boundary's index in this call."""
    out = []
    for j in range(length):
        held = offset + j + 1
        if held % interval == 0:
            out.append((j, held // interval - offset // interval - 1))
    return out


def checkpoint_writes(arrs, interval):
    """[(sequence, local token j, slot)] of every checkpoint the call writes
    (docs/overview.md, "State checkpoints")."""
    slots = arrs.get("checkpoint_slots")
    if slots is None:
        return []
    if not interval:
        raise SystemExit("ssdgen: checkpoint_slots.npy needs "
                         "--checkpoint-interval")
    slots = slots.astype(np.int64) & 0xFFFFFFFF
    offsets = arrs.get("checkpoint_offsets")
    qsl = arrs["query_start_loc"]
    out = []
    for b, (slot, _) in enumerate(writers(arrs)):
        if slot is None:
            continue  # Padding writes no checkpoints.
        o = int(offsets[b]) if offsets is not None else 0
        for j, k in checkpoint_boundaries(o, int(qsl[b + 1] - qsl[b]),
                                          interval):
            if k < slots.shape[1] and slots[b, k] != PADDING:
                out.append((b, j, int(slots[b, k])))
    return out


def inv_softplus(d):
    return np.log(np.expm1(d))


# ----------------------------------------------------------------------------
# gen
# ----------------------------------------------------------------------------

def _mask(mode, batch, rng):
    if mode == "absent":
        return None
    if mode == "all":
        return np.ones(batch, dtype=np.bool_)
    if mode == "none":
        return np.zeros(batch, dtype=np.bool_)
    m = rng.random(batch) < 0.5
    if batch >= 2:  # "mixed" should really mix.
        m[0], m[1] = True, False
        rng.shuffle(m)
    return m


PARENTS_KINDS = ("tree", "chain", "roots")


def random_tree(n, max_depth, max_branching, rng, order="bfs"):
    """Parents of a random tree of n tokens (local indices, -1 for the
    sequence's initial state, the virtual root): each token has at most
    `max_branching` children (so has the initial state) and lies at most
    `max_depth` tokens below the initial state. The sequence's own limits
    are drawn in [1, max] and raised (depth first) until a tree of n tokens
    fits. Tokens are numbered in breadth-first or depth-first (preorder)
    order, so a parent always comes before its children."""
    depth = int(rng.integers(1, max_depth + 1))
    branching = int(rng.integers(1, max_branching + 1))

    def capacity(dep, br):
        return sum(br ** i for i in range(1, dep + 1))

    while capacity(depth, branching) < n:
        if depth < max_depth:
            depth += 1
        elif branching < max_branching:
            branching += 1
        else:
            raise SystemExit("ssdgen: %d tokens do not fit a tree of depth "
                             "%d and branching %d (--parents-depth, "
                             "--parents-branching)"
                             % (n, max_depth, max_branching))
    # Attach tokens one by one to a node with room (the initial state, index
    # -1, included): half the time the newest one, which grows a path (a
    # draft's main line), else one chosen uniformly (its side branches). The
    # tree is full only once it holds capacity(depth, branching) >= n
    # tokens, so there is always room.
    level = {-1: 0}
    children = {-1: []}
    open_nodes = [-1]
    for i in range(n):
        if rng.random() < 0.5:
            parent = open_nodes[-1]
        else:
            parent = open_nodes[int(rng.integers(len(open_nodes)))]
        children[parent].append(i)
        level[i], children[i] = level[parent] + 1, []
        if len(children[parent]) == branching:
            open_nodes.remove(parent)
        if level[i] < depth:
            open_nodes.append(i)
    if order == "bfs":
        visit, queue = [], list(children[-1])
        while queue:
            node = queue.pop(0)
            visit.append(node)
            queue += children[node]
    else:
        visit, stack = [], list(reversed(children[-1]))
        while stack:
            node = stack.pop()
            visit.append(node)
            stack += reversed(children[node])
    number = {-1: -1}
    for new, old in enumerate(visit):
        number[old] = new
    parent_of = {c: p for p, cs in children.items() for c in cs}
    return [number[parent_of[old]] for old in visit]


def token_parents(seqlens, kind, rng, order="bfs", chains=(),
                  chain_fraction=0.0, max_depth=8, max_branching=4):
    """token_parents [T] int32 for sequences of `seqlens` tokens: random
    trees (kind "tree"; the sequences in `chains`, and each other with
    probability `chain_fraction`, linear chains), every token's parent the
    one before it given explicitly ("chain": j - 1, -1 for j = 0), or every
    token a child of the initial state ("roots")."""
    if max_depth < 1 or max_branching < 1:
        raise SystemExit("ssdgen: --parents-depth and --parents-branching "
                         "must be >= 1")
    for b in chains:
        if not 0 <= b < len(seqlens):
            raise SystemExit("ssdgen: --parents-chains %d is not a sequence "
                             "index" % b)
    out = []
    for b, n in enumerate(seqlens):
        chain = list(range(-1, n - 1))
        if kind == "chain":
            out += chain
        elif kind == "roots":
            out += [-1] * n
        else:
            # Drawn for every sequence, so that listing one as a chain
            # leaves the others' trees as they were.
            linear = rng.random() < chain_fraction
            tree = random_tree(n, max_depth, max_branching, rng, order)
            out += chain if linear or b in chains else tree
    return np.array(out, dtype=np.int32)


def tree_shape(parents, qsl):
    """(sequences that are not chains, and of those the deepest token's
    depth and the most children of one node, the initial state included)
    of a token_parents array."""
    not_chains, deepest, widest = 0, 0, 0
    for b in range(len(qsl) - 1):
        lo, hi = int(qsl[b]), int(qsl[b + 1])
        p = [int(v) for v in parents[lo:hi]]
        if p == list(range(-1, hi - lo - 1)):
            continue
        not_chains += 1
        depth = []
        for j, v in enumerate(p):
            depth.append(1 if v < 0 else depth[v] + 1)
        deepest = max([deepest] + depth)
        counts = {}
        for v in p:
            counts[v] = counts.get(v, 0) + 1
        widest = max([widest] + list(counts.values()))
    return not_chains, deepest, widest


def generate(outdir, seqlens, H=4, P=8, N=16, G=2, slots=None, seed=0,
             with_D=True, with_dt_bias=True, initial="mixed", update="mixed",
             ci_shape="1d", ci_dtype="int32", padding=(), float16_files=False,
             tree=False, large_dt=0.0, checkpoint_interval=None,
             checkpoint_k=None, checkpoint_offsets=None,
             checkpoint_unused=False, checkpoint_slots_dtype="int32",
             parents=None, parents_order="bfs", parents_chains=(),
             parents_chain_fraction=0.0, parents_depth=8,
             parents_branching=4, pool_dtype="f32"):
    """Writes a valid input directory; returns the arrays written.

    With `parents` (PARENTS_KINDS), also token_parents.npy (token_parents()
    says what each kind is). Checkpoints then need interval 1 (the op's
    rule), K defaults to the longest sequence's token count less one (so
    that its last token's k >= K) and about a quarter of the entries are
    unused (-1) as with `checkpoint_unused`.

    With `checkpoint_interval`, also checkpoint_slots.npy ([batch, K], every
    entry a slot no sequence names in cache_indices, the pool grown to hold
    them) and, with `checkpoint_offsets` (a list, or "random"),
    checkpoint_offsets.npy. The interval itself is not written: ssd-run
    takes it as --checkpoint-interval."""
    if H % G:
        raise SystemExit("ssdgen: H=%d is not a multiple of G=%d" % (H, G))
    rng = np.random.default_rng(seed)
    batch = len(seqlens)
    if padding == "all":
        padding = list(range(batch))
    T = int(sum(seqlens))
    S = slots if slots is not None else 2 * batch + 2
    real = batch - len(set(padding))
    ck_offsets = None
    if parents is not None and parents not in PARENTS_KINDS:
        raise SystemExit("ssdgen: --parents %s is not one of %s"
                         % (parents, ", ".join(PARENTS_KINDS)))
    if checkpoint_interval is not None:
        if checkpoint_interval < 1:
            raise SystemExit("ssdgen: --checkpoint-interval must be >= 1")
        if parents is not None and checkpoint_interval != 1:
            raise SystemExit("ssdgen: --parents needs --checkpoint-interval 1 "
                             "(the op's rule with token_parents)")
        if parents is not None:
            checkpoint_unused = True
            if checkpoint_k is None:
                checkpoint_k = max([1, max(seqlens, default=0) - 1])
        # A generator of its own, so that the other arrays of a seed do not
        # depend on the checkpoint options.
        ck_rng = np.random.default_rng([seed, 21])
        if checkpoint_offsets == "random":
            ck_offsets = ck_rng.integers(0, 3 * checkpoint_interval,
                                         size=batch).astype(np.int32)
        elif checkpoint_offsets is not None:
            if len(checkpoint_offsets) != batch:
                raise SystemExit("ssdgen: --checkpoint-offsets needs %d "
                                 "values" % batch)
            ck_offsets = np.array(checkpoint_offsets, dtype=np.int32)
        if checkpoint_k is None:
            # Enough columns for every boundary any sequence reaches.
            checkpoint_k = max([len(checkpoint_boundaries(
                int(ck_offsets[b]) if ck_offsets is not None else 0,
                seqlens[b], checkpoint_interval)) for b in range(batch)]
                + [1])
        # Checkpoint slots are all distinct and none is a cache index: grow
        # the pool to hold both.
        need = (real if not tree else 1) + batch * checkpoint_k
        S = max(S, need) if slots is not None else S + batch * checkpoint_k
    elif checkpoint_offsets is not None or checkpoint_k is not None:
        raise SystemExit("ssdgen: checkpoint options need "
                         "--checkpoint-interval")
    if not tree and S < real:
        raise SystemExit("ssdgen: %d slots cannot hold %d distinct sequences"
                         % (S, real))
    if S < 1 and (tree or real > 0):
        raise SystemExit("ssdgen: need at least one slot")

    # Model ranges (docs/overview.md, Accuracy): A in [-16, -1], the
    # effective step d = softplus(dt + dt_bias) (or dt itself) log-uniform
    # in [1e-3, 1e-1].
    A = rng.uniform(-16.0, -1.0, size=H)
    d = np.exp(rng.uniform(np.log(1e-3), np.log(1e-1), size=(T, H)))
    if with_dt_bias:
        # Models initialise dt_bias as softplus⁻¹ of a step in the same range.
        dt_bias = inv_softplus(np.exp(rng.uniform(np.log(1e-3), np.log(1e-1),
                                                  size=H)))
        dt = inv_softplus(d) - dt_bias[None, :]
    else:
        dt_bias = None
        dt = d
    if large_dt > 0 and with_dt_bias:
        # A fraction of steps with v = dt + dt_bias > 20: the branch of
        # softplus that passes its argument through. Half of them just above
        # 20, half with v in (90, 120], where exp(v) overflows float32 to
        # inf: that is where a softplus that combined both branches
        # arithmetically (0 * inf = NaN) instead of selecting one fails.
        big = rng.uniform(size=(T, H)) < large_dt
        huge = rng.uniform(size=(T, H)) < 0.5
        v = np.where(huge, rng.uniform(90.0, 120.0, size=(T, H)),
                     rng.uniform(20.5, 24.0, size=(T, H)))
        dt = np.where(big, v - dt_bias[None, :], dt)
    arrs = {
        "x": rng.standard_normal((T, H, P)),
        "dt": dt,
        "A": A,
        "B": rng.standard_normal((T, G, N)),
        "C": rng.standard_normal((T, G, N)),
        "D": rng.standard_normal(H) if with_D else None,
        "dt_bias": dt_bias,
        "ssm_pool": rng.standard_normal((S, H, P, N)),
    }
    fdt = np.float16 if float16_files else np.float32
    for k in FLOAT_INPUTS + ["ssm_pool"]:
        if arrs[k] is not None:
            arrs[k] = arrs[k].astype(fdt)
    arrs["ssm_pool_scales"] = None
    if pool_dtype == "f16":
        arrs["ssm_pool"] = round_f16(arrs["ssm_pool"]).astype(fdt)
    elif pool_dtype in SCALED_POOLS:
        # Rows of realistic states: magnitudes spread over a few orders (a
        # generator of its own, so that the other arrays do not change), one
        # row all zero (scale 0), stored as the op stores them (nearest).
        pool_rng = np.random.default_rng([seed, 41])
        rows = arrs["ssm_pool"].astype(np.float32) * np.exp(
            pool_rng.normal(0.0, 1.5, size=(S, H, P)))[..., None]
        if rows.size:
            rows[0, 0, 0, :] = 0.0
        codes, scales = encode_rows(rows.astype(np.float32), pool_dtype)
        arrs["ssm_pool"] = codes.view(np.int8 if pool_dtype == "i8"
                                      else np.uint8)
        arrs["ssm_pool_scales"] = scales

    arrs["query_start_loc"] = np.concatenate(
        [[0], np.cumsum(seqlens)]).astype(np.int32)

    if tree:
        # Tree speculation: everyone reads one slot, only sequence 0 writes.
        slots_of = np.zeros(batch, dtype=np.int64) + int(rng.integers(S))
        initial, update = "all", "tree"
    else:
        if S >= batch:
            slots_of = rng.choice(S, size=batch, replace=False).astype(np.int64)
        else:
            # Fewer slots than sequences: the padding ones need none.
            slots_of = np.full(batch, PADDING, dtype=np.int64)
            real_seqs = [b for b in range(batch) if b not in set(padding)]
            slots_of[real_seqs] = rng.choice(S, size=len(real_seqs),
                                             replace=False)
    for i in padding:
        if not 0 <= i < batch:
            raise SystemExit("ssdgen: --padding %d is not a sequence index" % i)
        slots_of[i] = PADDING
    ci = slots_of.astype(np.uint32)
    ci = ci.astype(np.uint32) if ci_dtype == "uint32" else ci.view(np.int32)
    arrs["cache_indices"] = ci.reshape(1, batch) if ci_shape == "2d" else ci

    arrs["has_initial_state"] = _mask(initial, batch, rng)
    if update == "tree":
        u = np.zeros(batch, dtype=np.bool_)
        u[:1] = True
        arrs["update_state"] = u
    else:
        arrs["update_state"] = _mask(update, batch, rng)

    arrs["checkpoint_slots"] = arrs["checkpoint_offsets"] = None
    if checkpoint_interval is not None:
        named = {int(s) for s in slots_of if int(s) != PADDING}
        free = np.array([s for s in range(S) if s not in named],
                        dtype=np.int64)
        ck = ck_rng.permutation(free)[:batch * checkpoint_k].reshape(
            batch, checkpoint_k)
        if checkpoint_unused and ck.size:
            # About a quarter of the entries unused (-1), at least one.
            unused = ck_rng.random(ck.shape) < 0.25
            unused.reshape(-1)[int(ck_rng.integers(ck.size))] = True
            ck = np.where(unused, PADDING, ck)
        ck = ck.astype(np.uint32)
        arrs["checkpoint_slots"] = (ck if checkpoint_slots_dtype == "uint32"
                                    else ck.view(np.int32))
        arrs["checkpoint_offsets"] = ck_offsets

    arrs["token_parents"] = None
    if parents is not None:
        # A generator of its own, so that the other arrays of a seed do not
        # depend on the tree options.
        arrs["token_parents"] = token_parents(
            seqlens, parents, np.random.default_rng([seed, 31]),
            parents_order, parents_chains, parents_chain_fraction,
            parents_depth, parents_branching)

    os.makedirs(outdir, exist_ok=True)
    for k, v in arrs.items():
        p = _path(outdir, k)
        if os.path.exists(p):
            os.remove(p)  # A stale optional file would change the problem.
        if v is not None:
            np.save(p, v)
    return arrs


# ----------------------------------------------------------------------------
# ref
# ----------------------------------------------------------------------------

def _softplus(v):
    """softplus(v) = v for v > 20, else log1p(exp(v)), elementwise with the C
    library's exp and log1p (as the C++ reference calls them): NumPy's own
    vectorised exp may differ from it in the last bit."""
    return np.array([x if x > 20 else math.log1p(math.exp(x)) for x in v])


def _exp(v):
    return np.array([math.exp(x) for x in v])


def pool_input(arrs, pool_dtype):
    """The pool as the op sees it: float32, rounded to bf16 or f16 on load,
    or an 8-bit pool's codes decoded with their scales."""
    if pool_dtype in SCALED_POOLS:
        if arrs.get("ssm_pool_scales") is None:
            raise SystemExit("ssdgen: --pool-dtype %s needs "
                             "ssm_pool_scales.npy" % pool_dtype)
        return decode_pool(arrs["ssm_pool"], arrs["ssm_pool_scales"],
                           pool_dtype)
    pool = arrs["ssm_pool"].astype(np.float32)
    if pool_dtype == "f16":
        return round_f16(pool)
    return _bf16_from_f32(pool) if pool_dtype == "bf16" else pool


def pool_stored(arrs, pool_dtype):
    """The pool as stored in an input dir: (values,) or (codes, scales)."""
    if pool_dtype in SCALED_POOLS:
        return (arrs["ssm_pool"].view(np.uint8).copy(),
                arrs["ssm_pool_scales"].astype(np.float32).copy())
    return (pool_input(arrs, pool_dtype).copy(),)


def reference(arrs, dtype, pool_dtype="f32", interval=None, f32_state=False,
              tokens=None):
    """(y, pool) in float64: docs/overview.md's recurrence on rounded inputs,
    with the checkpoints of `interval` (needed with checkpoint_slots) and,
    with token_parents, each token's state updated from its parent's.

    With `f32_state`, the state is rounded to float32 after every token: an
    f32 pool then carries it exactly from one call to the next, so cutting a
    sequence into calls changes no bit (a positive control for `invariance
    check`, which must pass it); it stays within the f32 tolerance.

    Every operation is the C++ reference's (lib/Runner/Reference.cpp), in the
    same order (the state update, then the dot product with C summed over n
    in increasing order, then the D skip; exp and log1p from the C library),
    so that the two agree bit for bit: the cross-checks run with --tol 0.

    `tokens`, a dict when given, receives for each slot written the tokens
    its state holds (the counter of stochastic rounding)."""
    if tokens is None:
        tokens = {}
    offsets = arrs.get("checkpoint_offsets")
    def rounded(name):
        v = arrs[name]
        if v is None:
            return None
        return round_to_dtype(v.astype(np.float32), dtype).astype(np.float64)

    x, dt, A, B, C = (rounded(k) for k in ["x", "dt", "A", "B", "C"])
    D, dt_bias = rounded("D"), rounded("dt_bias")
    pool_in = pool_input(arrs, pool_dtype).astype(np.float64)
    T, H, P = x.shape
    G, N = B.shape[1], B.shape[2]
    heads_group = np.arange(H) // (H // G)
    qsl = arrs["query_start_loc"]
    init = arrs["has_initial_state"]
    y = np.zeros((T, H, P))
    pool = pool_in.copy()
    parents = arrs.get("token_parents")
    # (sequence, local token) -> checkpoint slot.
    ck = {(b, j): s for b, j, s in checkpoint_writes(arrs, interval)}
    for b, (slot, writes) in enumerate(writers(arrs)):
        if slot is not None and init is not None and init[b]:
            initial = pool_in[slot].copy()  # Readers see the pre-op state.
        else:
            initial = np.zeros(pool_in.shape[1:])
        # Draft trees: token j updates the state of its parent (the initial
        # state for -1); without token_parents the parent is token j - 1.
        # The final state is the last token's.
        states, state = [], initial
        for t in range(int(qsl[b]), int(qsl[b + 1])):
            if parents is not None:
                p = int(parents[t])
                state = initial if p == -1 else states[p]
            d = dt[t]
            if dt_bias is not None:
                d = _softplus(d + dt_bias)
            Bt, Ct = B[t][heads_group], C[t][heads_group]  # [H, N]
            state = (_exp(d * A)[:, None, None] * state
                     + d[:, None, None] * x[t][:, :, None] * Bt[:, None, :])
            if f32_state:
                state = state.astype(np.float32).astype(np.float64)
            acc = np.zeros((H, P))
            for n in range(N):
                acc = acc + state[:, :, n] * Ct[:, None, n]
            if D is not None:
                acc = acc + D[:, None] * x[t]
            y[t] = acc
            if parents is not None:
                states.append(state)
            o = int(offsets[b]) if offsets is not None else 0
            if (b, t - int(qsl[b])) in ck:
                pool[ck[(b, t - int(qsl[b]))]] = state
                tokens[ck[(b, t - int(qsl[b]))]] = o + t - int(qsl[b]) + 1
        if writes:
            pool[slot] = state
            tokens[slot] = ((int(offsets[b]) if offsets is not None else 0)
                            + int(qsl[b + 1] - qsl[b]))
    return y, pool


def round_pool(pool, pool_dtype):
    """The pool as written: float32, or bf16 values (held as float32)."""
    if pool_dtype == "bf16":
        return round_to_dtype(pool, "bf16")
    return pool.astype(np.float32)


def stored_reference(arrs, pool, tokens, pool_dtype, rounding="nearest",
                     seed=None):
    """The pool after the call as the op stores it: the input's stored pool
    with each written slot's state rounded to f32 and stored by the
    contract. (values,) or (codes, scales)."""
    stored = pool_stored(arrs, pool_dtype)
    stochastic = rounding == "stochastic"
    _, H, P, N = arrs["ssm_pool"].shape
    for slot, held in tokens.items():
        bits = pool_bits(seed, slot, held, H, P, N) if stochastic else None
        for a, v in zip(stored, store_state(pool[slot], pool_dtype,
                                            stochastic, bits)):
            a[slot] = v
    return stored


def save_pool(outdir, stored, pool_dtype):
    if pool_dtype in SCALED_POOLS:
        codes = stored[0].view(np.int8 if pool_dtype == "i8" else np.uint8)
        np.save(_path(outdir, "ssm_pool"), codes)
        np.save(_path(outdir, "ssm_pool_scales"), stored[1])
    else:
        np.save(_path(outdir, "ssm_pool"), stored[0].astype(np.float32))


def write_reference(inputdir, outdir, dtype, pool_dtype="f32", interval=None,
                    f32_state=False, rounding="nearest", seed=None):
    """The reference of an input dir as ssd-run would write its outputs:
    y rounded to the model dtype, the pool to the pool dtype. Returns the
    inputs."""
    arrs = load_inputs(inputdir)
    tokens = {}
    y, pool = reference(arrs, dtype, pool_dtype, interval, f32_state, tokens)
    os.makedirs(outdir, exist_ok=True)
    np.save(_path(outdir, "y"), round_to_dtype(y, dtype))
    if pool_dtype == "f32":
        np.save(_path(outdir, "ssm_pool"), round_pool(pool, pool_dtype))
    else:
        save_pool(outdir, stored_reference(arrs, pool, tokens, pool_dtype,
                                           rounding, seed), pool_dtype)
    return arrs


def pool_label(pool_dtype, rounding="nearest"):
    """" pool=..." as the tools print it (nothing for an f32 pool)."""
    if pool_dtype == "f32":
        return ""
    return " pool=%s%s" % (pool_dtype, " rounding=stochastic"
                           if rounding == "stochastic" else "")


def cmd_ref(args):
    if (args.pool_rounding == "stochastic") != (args.rounding_seed is not None):
        raise SystemExit("ssdgen: --pool-rounding stochastic and "
                         "--rounding-seed go together")
    arrs = write_reference(args.inputdir, args.outdir, args.dtype,
                           args.pool_dtype, args.checkpoint_interval,
                           args.f32_state, args.pool_rounding,
                           args.rounding_seed)
    print("ssdgen ref: wrote %s (T=%d, %d sequences, dtype %s%s)"
          % (args.outdir, arrs["x"].shape[0],
             len(arrs["query_start_loc"]) - 1, args.dtype,
             pool_label(args.pool_dtype, args.pool_rounding)
             .replace(" pool=", ", pool ")))
    return 0


# ----------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------

def _rel_err(out, ref):
    if out.size == 0:
        return 0.0
    diff = np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64)))
    scale = np.max(np.abs(ref.astype(np.float64)))
    return float(diff / scale) if scale > 0 else float(diff)


def _slot_rel_err(out, ref, slots):
    """The largest relative error of any one slot: each written slot is
    normalized by its own magnitude, so that a slot whose state is small (a
    sequence starting from zero) cannot hide its errors behind a large one."""
    return max([_rel_err(out[s], ref[s]) for s in slots], default=0.0)


def _step(v, fmt):
    """The spacing of `fmt` values at each |v|: from the largest power of two
    at most |v| (the smallest normal for subnormals and zero) to the next
    value of the format."""
    bits, emin = FORMATS[fmt]
    _, e = np.frexp(np.abs(v.astype(np.float64)))
    return np.ldexp(1.0, np.maximum(e - 1, emin) - (bits - 1))


def _beyond_rounding(out, ref, fmt):
    """max over elements of |out - ref| less half a step of `fmt` at each of
    the two values, relative to max|ref|: when both are one rounding to fmt
    of values x and r, at most |x - r| / max|ref| (|v - RN(v)| is at most
    half the step at RN(v)), so what is left is the error of the values
    before their rounding."""
    if out.size == 0:
        return 0.0
    o, r = out.astype(np.float64), ref.astype(np.float64)
    excess = np.abs(o - r) - 0.5 * (_step(o, fmt) + _step(r, fmt))
    diff = max(float(np.max(excess)), 0.0)
    scale = float(np.max(np.abs(r)))
    return diff / scale if scale > 0 else diff


def suite_bound(suite, dtype):
    """(y, pool) bound of SUITE_BOUNDS for "TARGET/FORM" and a model dtype,
    or a message saying why there is none."""
    target, _, form = suite.partition("/")
    if form not in SUITE_FORMS:
        return None, "--suite %s: FORM must be one of %s" % (
            suite, ", ".join(SUITE_FORMS))
    forms = ("serial", "chunked") if form == "auto" else (form,)
    rows = [SUITE_BOUNDS.get((target, f, dtype)) for f in forms]
    if None in rows:
        return None, ("no suite bound for %s %s (docs/testing.md, Suite "
                      "bounds, lists %s)" % (suite, dtype, ", ".join(
                          sorted({"%s/%s" % k[:2] for k in SUITE_BOUNDS}))))
    return (max(r[0] for r in rows), max(r[1] for r in rows)), None


def _log_suite_check(args, errors):
    """One line per suite check for `bounds --measured` (SSDGEN_CHECK_LOG):
    suite, dtypes, the errors beyond rounding (y, pool), the contract's
    errors (y, pool), the output dir."""
    log = os.environ.get("SSDGEN_CHECK_LOG")
    if not log:
        return
    with open(log, "a") as f:
        f.write("%s %s %s %s %s\n" % (
            args.suite, args.dtype, args.pool_dtype,
            " ".join("%.6e" % e for e in errors),
            os.path.abspath(args.outdir)))


def cmd_check(args):
    tol = args.tol if args.tol is not None else TOLERANCES[args.dtype]
    bound = None
    if args.suite is not None:
        bound, why = suite_bound(args.suite, args.dtype)
        if bound is None:
            print("FAIL: %s" % why)
            return 1

    def fail(msg):
        print("FAIL: %s" % msg)
        return 1

    pool_dtype = args.pool_dtype
    scaled = pool_dtype in SCALED_POOLS
    rounding = getattr(args, "pool_rounding", "nearest")
    stochastic = rounding == "stochastic"
    if stochastic and pool_dtype == "f32":
        return fail("--pool-rounding stochastic needs a narrow --pool-dtype")
    try:
        arrs = load_inputs(args.inputdir)
        ref_y = np.load(_path(args.refdir, "y"))
        ref_pool = np.load(_path(args.refdir, "ssm_pool"))
        out_y = np.load(_path(args.outdir, "y"))
        out_pool = np.load(_path(args.outdir, "ssm_pool"))
        ref_scales = out_scales = None
        if scaled:
            ref_scales = np.load(_path(args.refdir, "ssm_pool_scales"))
            out_scales = np.load(_path(args.outdir, "ssm_pool_scales"))
        in_pool = pool_input(arrs, pool_dtype)
    except (OSError, ValueError, SystemExit) as e:
        return fail("cannot load: %s" % e)

    # docs/overview.md, Files of ssd-run: an 8-bit pool is written back as
    # its codes (uint8 f8E4M3FN patterns or int8) and float32 scales.
    pool_file_dtype = {"i8": np.int8, "f8e4m3": np.uint8}.get(pool_dtype,
                                                             np.float32)
    files = [("y", out_y, ref_y, np.float32),
             ("ssm_pool", out_pool, ref_pool, pool_file_dtype)]
    if scaled:
        files.append(("ssm_pool_scales", out_scales, ref_scales, np.float32))
    for name, out, ref, want in files:
        if out.dtype != want or ref.dtype != want:
            return fail("%s.npy is %s (output) and %s (reference), not %s"
                        % (name, out.dtype, ref.dtype, np.dtype(want)))
        if out.shape != ref.shape:
            return fail("%s.npy shape %s != reference %s"
                        % (name, out.shape, ref.shape))
    if out_pool.shape != in_pool.shape:
        return fail("ssm_pool.npy shape %s != input %s"
                    % (out_pool.shape, in_pool.shape))
    if scaled and out_scales.shape != in_pool.shape[:3]:
        return fail("ssm_pool_scales.npy shape %s != [S, H, P] = %s"
                    % (out_scales.shape, list(in_pool.shape[:3])))
    if not np.all(np.isfinite(out_y)):
        return fail("y has %d non-finite values"
                    % int(np.sum(~np.isfinite(out_y))))
    # docs/overview.md, Files of ssd-run: y.npy is float32 holding
    # model-dtype values (rounded once).
    unrounded = round_to_dtype(out_y, args.dtype).view(np.uint32) != \
        out_y.view(np.uint32)
    if np.any(unrounded):
        return fail("y has %d values that are not %s values"
                    % (int(np.sum(unrounded)), args.dtype))

    # Checkpoint slots the call reaches are written slots too; the entries
    # it does not reach (k >= the boundaries it crosses) stay untouched.
    try:
        ck_written = {s for _, _, s in
                      checkpoint_writes(arrs, args.checkpoint_interval)}
    except SystemExit as e:
        return fail(str(e))
    written = sorted({s for s, w in writers(arrs) if w} | ck_written)
    untouched = [s for s in range(in_pool.shape[0]) if s not in written]
    if scaled:
        # Untouched: codes and scales as they came in, bit for bit.
        in_codes, in_scales = pool_stored(arrs, pool_dtype)
        same = ((out_pool.view(np.uint8) == in_codes).reshape(
            in_codes.shape[0], -1).all(axis=1)
            & (out_scales.view(np.uint32) == in_scales.view(np.uint32))
            .reshape(in_codes.shape[0], -1).all(axis=1))
        changed = [s for s in untouched if not same[s]]
        if changed:
            return fail("slots %s that no writer names changed their codes or "
                        "scales (must stay bit-identical)" % changed[:10])
        w_codes = out_pool.view(np.uint8)[written]
        w_scales = out_scales[written]
        if not np.all(np.isfinite(w_scales) & (w_scales >= 0)):
            return fail("a written pool row has a scale that is negative, "
                        "NaN or Inf")
        bad = (w_codes == 0x80) if pool_dtype == "i8" else \
            ((w_codes & 0x7F) == 0x7F)
        if np.any(bad):
            return fail("the pool has %d %s codes that are not numbers in "
                        "range" % (int(np.sum(bad)), pool_dtype))
        if not stochastic:
            # Nearest: a row's largest value is stored as +-Qmax.
            top = 127 if pool_dtype == "i8" else 0x7E
            mag = (np.abs(w_codes.view(np.int8).astype(np.int64))
                   if pool_dtype == "i8" else (w_codes & 0x7F).astype(np.int64))
            rows = w_scales > 0
            if np.any(rows & (mag.max(axis=-1) != top)):
                return fail("%d written rows of a nonzero scale do not store "
                            "their largest value as +-Qmax"
                            % int(np.sum(rows & (mag.max(axis=-1) != top))))
        out_pool_values = decode_pool(out_pool.view(np.uint8), out_scales,
                                      pool_dtype)
        ref_pool_values = decode_pool(ref_pool.view(np.uint8), ref_scales,
                                      pool_dtype)
    else:
        out_pool_values, ref_pool_values = out_pool, ref_pool
    if written and not np.all(np.isfinite(out_pool_values[written])):
        return fail("a written pool slot holds NaN or Inf")
    if pool_dtype in ("bf16", "f16"):
        rounded = round_f16 if pool_dtype == "f16" else _bf16_from_f32
        unrounded = rounded(out_pool).view(np.uint32) != \
            out_pool.view(np.uint32)
        if np.any(unrounded):
            return fail("the pool has %d values that are not %s values"
                        % (int(np.sum(unrounded)), pool_dtype))
    same = (out_pool_values.view(np.uint32) == in_pool.view(np.uint32)
            ).reshape(in_pool.shape[0], -1).all(axis=1)
    changed = [] if scaled else [s for s in untouched if not same[s]]
    if changed:
        return fail("slots %s that no writer names changed (must stay "
                    "bit-identical)" % changed[:10])

    y_err = _rel_err(out_y, ref_y)
    quantized = pool_dtype in ("f16", "f8e4m3", "i8") or stochastic
    if quantized and tol == 0:
        # Exact: the two references store the same bits.
        pairs = [(out_pool.view(np.uint8), ref_pool.view(np.uint8))]
        if scaled:
            pairs.append((out_scales.view(np.uint8), ref_scales.view(np.uint8)))
        identical = all(np.array_equal(a[written], b[written])
                        for a, b in pairs)
        pool_err = 0.0 if identical else max(
            _slot_rel_err(out_pool_values, ref_pool_values, written), 1e-300)
    elif quantized:
        # Each written value against the reference's f32 state: within half
        # a quantum of the pool's grid there (nearest) or one (stochastic),
        # plus the tolerance; the quantum of an 8-bit row follows from the
        # reference state's own row scale.
        _, states = reference(arrs, args.dtype, pool_dtype,
                              args.checkpoint_interval)
        errs = []
        for slot in written:
            r = states[slot].astype(np.float32).astype(np.float64)
            o = out_pool_values[slot].astype(np.float64)
            scales = (encode_rows(r, pool_dtype)[1] if scaled else None)
            q = np.maximum(pool_quantum(r, pool_dtype, scales),
                           pool_quantum(o, pool_dtype, scales))
            excess = np.maximum(
                np.abs(o - r) - (1.0 if stochastic else 0.5) * q, 0.0)
            if not r.size:
                continue
            if scaled:
                # Per row, as its scale and quantum are.
                m = np.max(np.abs(r), axis=-1)
                worst = np.max(excess, axis=-1)
                errs.append(float(np.max(np.where(m > 0, worst / np.where(
                    m > 0, m, 1), worst))))
            else:
                scale = float(np.max(np.abs(r)))
                worst = float(np.max(excess))
                errs.append(worst / scale if scale > 0 else worst)
        pool_err = max(errs, default=0.0)
    elif pool_dtype == "bf16" and tol > 0:
        # docs/overview.md, Accuracy: a bf16 pool holds the state rounded
        # once to bf16, and so does the reference's; the tolerance applies
        # to what is left beyond those two roundings. A zero tolerance stays
        # exact: the two references round the same double.
        pool_err = max([_beyond_rounding(out_pool[s], ref_pool[s], "bf16")
                        for s in written], default=0.0)
    else:
        pool_err = _slot_rel_err(out_pool, ref_pool, written)
    failures = []
    if y_err > tol:
        failures.append("y error %.3e is over the tolerance %.1e"
                        % (y_err, tol))
    if pool_err > tol:
        failures.append("pool error %.3e is over the tolerance %.1e"
                        % (pool_err, tol))
    suite = ""
    if bound is not None:
        y_beyond = _beyond_rounding(out_y, ref_y, args.dtype)
        pool_beyond = pool_err if quantized else max(
            [_beyond_rounding(out_pool[s], ref_pool[s], pool_dtype)
             for s in written], default=0.0)
        _log_suite_check(args, (y_beyond, pool_beyond, y_err, pool_err))
        suite = " suite=%s y_beyond=%.3e/%.1e pool_beyond=%.3e/%.1e" % (
            args.suite, y_beyond, bound[0], pool_beyond, bound[1])
        for name, value, limit in [("y", y_beyond, bound[0]),
                                   ("pool", pool_beyond, bound[1])]:
            if value > limit:
                failures.append(
                    "%s is %.3e beyond its rounding, over the suite's bound "
                    "%.1e for %s %s (docs/testing.md, Suite bounds)"
                    % (name, value, limit, args.suite, args.dtype))
    print("%s dtype=%s%s y_err=%.3e pool_err=%.3e tol=%.1e%s written_slots=%d "
          "%suntouched_slots=%d (bit-identical)"
          % ("FAIL" if failures else "PASS", args.dtype,
             pool_label(pool_dtype, rounding),
             y_err, pool_err, tol, suite, len(written),
             "checkpoint_slots=%d " % len(ck_written) if ck_written else "",
             len(untouched)))
    for msg in failures:
        print("FAIL: %s" % msg)
    return 1 if failures else 0


# ----------------------------------------------------------------------------
# bounds
# ----------------------------------------------------------------------------

def _round_up_2sig(v):
    """v rounded up to two significant digits (4.13e-06 -> 4.2e-06)."""
    if v <= 0:
        return 0.0
    e = math.floor(math.log10(v)) - 1
    return float("%.1e" % (math.ceil(round(v / 10.0 ** e, 9)) * 10.0 ** e))


def _where(outdir):
    """The lit test an output dir belongs to, and the dir's own name."""
    parts = outdir.split(os.sep)
    if "Output" in parts:
        i = len(parts) - 1 - parts[::-1].index("Output")
        return "/".join(parts[i + 1:]).replace(".tmp/", ": ")
    return outdir


def _measured(log):
    """(target, form, dtype) -> [(y, where), (pool, where)], the worst of
    each in a SSDGEN_CHECK_LOG file (of equal ones, the first by name, so
    that the order lit ran the tests in does not matter)."""
    worst = {}
    with open(log) as f:
        for line in f:
            suite, dtype, _, y, pool, _, _, outdir = line.split()
            target, _, form = suite.partition("/")
            row = worst.setdefault((target, form, dtype), [None, None])
            for i, v in enumerate((float(y), float(pool))):
                entry = (v, _where(outdir))
                if row[i] is None or (-entry[0], entry[1]) < (-row[i][0],
                                                              row[i][1]):
                    row[i] = entry
    return worst


def proposed_bound(worst, key):
    """SUITE_MARGIN times the worst of a (target, form, dtype) row, rounded
    up to two significant digits, never below the f32 row of its target and
    form: every model dtype's y and state are computed in f32, so any of
    them may be off by the f32 arithmetic's error (on elements below it,
    whose own rounding step is smaller still) where the measured worst was
    0 (no element off by more than its rounding)."""
    target, form, _ = key
    rows = [worst[k] for k in (key, (target, form, "f32")) if k in worst]
    return tuple(_round_up_2sig(SUITE_MARGIN * max(r[i][0] for r in rows))
                 for i in (0, 1))


def cmd_bounds(args):
    """The suite's bounds as docs/testing.md's table; with --measured, the
    worst error behind each, where, and the bound it gives; auto checks are
    held to the larger of their target's two forms."""
    worst = _measured(args.measured) if args.measured else {}
    status = 0
    print("| target | form | dtype | y | pool |%s" % (
        " measured worst y, pool (test: output) |" if worst else ""))
    print("|---|---|---|---:|---:|%s" % ("---|" if worst else ""))
    for key, (y, pool) in sorted(SUITE_BOUNDS.items()):
        line = "| %s | %s | %s | %.1e | %.1e |" % (key + (y, pool))
        if worst:
            row = worst.get(key, [(0.0, "-"), (0.0, "-")])
            line += " %.2e (%s), %.2e (%s) |" % (row[0] + row[1])
            if proposed_bound(worst, key) != (y, pool):
                line += " PROPOSED %.1e %.1e" % proposed_bound(worst, key)
        print(line)
    for key in sorted(worst):
        bound = (suite_bound("%s/%s" % key[:2], key[2])[0]
                 if key[1] in SUITE_FORMS else None)
        for i, name in enumerate(("y", "pool")):
            if bound is None or worst[key][i][0] > bound[i]:
                print("OVER: %s/%s %s %s %.2e (%s) > %s" % (
                    key + (name,) + worst[key][i] +
                    ("%.1e" % bound[i] if bound else "no bound",)))
                status = 1
    return status


# ----------------------------------------------------------------------------
# bad
# ----------------------------------------------------------------------------

def _base(outdir, **kw):
    """A small valid dir to break: 3 sequences of 2, 3, 1 tokens, 6 slots."""
    opts = dict(H=4, P=4, N=4, G=2, slots=6, seed=1, initial="mixed",
                update="all")
    opts.update(kw)
    return generate(outdir, [2, 3, 1], **opts)


def _save(d, name, arr, fortran=False):
    np.save(_path(d, name), np.asfortranarray(arr) if fortran else arr)


def _truncate(d, name, keep):
    p = _path(d, name)
    size = os.path.getsize(p)
    with open(p, "r+b") as f:
        f.truncate(size - keep if keep > 0 else size // 2)


def _bad_missing(d, a):
    os.remove(_path(d, "C"))
    return "C.npy"


def _bad_truncated(d, a):
    _truncate(d, "x", 100)
    return "x.npy"


def _bad_not_npy(d, a):
    with open(_path(d, "dt"), "w") as f:
        f.write("this is a text file, not an array\n")
    return "dt.npy"


def _write_raw_npy(d, name, header, payload):
    """A .npy file with exactly this header dict text (NumPy would not write
    it) and payload."""
    text = header.encode("latin-1")
    pad = (64 - (10 + len(text) + 1) % 64) % 64
    with open(_path(d, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + (len(text) + pad + 1).to_bytes(2, "little")
                + text + b" " * pad + b"\n" + payload)


def _bad_header_control_chars(d, a):
    # A header key and a dtype string holding newlines and other control
    # characters (the fuzzer's first finding, issue 11): the message must
    # still be one line.
    _write_raw_npy(d, "dt", "{'descr': '<f4', 'fortran_order': False, "
                   "'shape': (6, 4), 'de\nscr\n\n\x01': 1, }", b"")
    _write_raw_npy(d, "A", "{'descr': '<\nf4\r', 'fortran_order': False, "
                   "'shape': (4,), }", b"\0" * 16)
    return "dt.npy"


def _bad_wrong_dtype(d, a):
    _save(d, "x", a["x"].astype(np.float64))
    return "x.npy"


def _bad_int_dtype(d, a):
    _save(d, "A", a["A"].astype(np.int32))
    return "A.npy"


def _bad_qsl_dtype(d, a):
    _save(d, "query_start_loc", a["query_start_loc"].astype(np.int64))
    return "query_start_loc.npy"


def _bad_ci_dtype(d, a):
    _save(d, "cache_indices", a["cache_indices"].astype(np.int64))
    return "cache_indices.npy"


def _bad_mask_dtype(d, a):
    _save(d, "update_state", a["update_state"].astype(np.uint8))
    return "update_state.npy"


def _bad_fortran(d, a):
    _save(d, "B", a["B"], fortran=True)
    return "B.npy"


def _bad_wrong_rank(d, a):
    _save(d, "dt", a["dt"].reshape(-1))
    return "dt.npy"


def _bad_inconsistent(d, a):
    _save(d, "C", a["C"][:, :, :-1])
    return "C.npy"


def _bad_pool_shape(d, a):
    _save(d, "ssm_pool", a["ssm_pool"][:, :, :, :-1])
    return "ssm_pool.npy"


def _bad_groups(d, a):
    # G = 3 does not divide H = 4.
    T, _, N = a["B"].shape
    _save(d, "B", np.ones((T, 3, N), np.float32))
    _save(d, "C", np.ones((T, 3, N), np.float32))
    return "B.npy"


def _bad_qsl_start(d, a):
    q = a["query_start_loc"].copy()
    q[0] = 1
    _save(d, "query_start_loc", q)
    return "query_start_loc.npy"


def _bad_qsl_decreasing(d, a):
    q = a["query_start_loc"].copy()  # [0, 2, 5, 6] -> [0, 4, 3, 6]
    q[1], q[2] = 4, 3
    _save(d, "query_start_loc", q)
    return "query_start_loc.npy"


def _bad_qsl_end(d, a):
    q = a["query_start_loc"].copy()
    q[-1] -= 1
    _save(d, "query_start_loc", q)
    return "query_start_loc.npy"


def _bad_ci_range(d, a):
    ci = a["cache_indices"].copy()
    ci.reshape(-1)[1] = a["ssm_pool"].shape[0]
    _save(d, "cache_indices", ci)
    return "cache_indices.npy"


def _bad_ci_negative(d, a):
    ci = a["cache_indices"].copy()
    ci.reshape(-1)[1] = -2  # Only -1 means padding.
    _save(d, "cache_indices", ci)
    return "cache_indices.npy"


def _bad_ci_length(d, a):
    _save(d, "cache_indices", a["cache_indices"][:-1])
    return "cache_indices.npy"


def _bad_two_writers(d, a):
    ci = a["cache_indices"].copy()
    ci[2] = ci[0]
    _save(d, "cache_indices", ci)
    _save(d, "update_state", np.ones(3, np.bool_))
    return "cache_indices.npy"


def _bad_mask_length(d, a):
    _save(d, "has_initial_state", np.ones(4, np.bool_))
    return "has_initial_state.npy"


def _bad_update_length(d, a):
    _save(d, "update_state", np.ones(2, np.bool_))
    return "update_state.npy"


def _ck_base(d, **kw):
    """_base with checkpoints: interval 1, K = 2, offsets [0, 1, 0]; for the
    runs of these dirs ssd-run needs --checkpoint-interval 1."""
    opts = dict(checkpoint_interval=1, checkpoint_k=2,
                checkpoint_offsets=[0, 1, 0])
    opts.update(kw)
    shutil.rmtree(d)
    return _base(d, **opts)


def _ck_set(d, a, b, k, slot):
    """checkpoint_slots[b, k] = slot, in the file's dtype."""
    ck = a["checkpoint_slots"].copy()
    ck[b, k] = slot
    _save(d, "checkpoint_slots", ck)


def _bad_ck_range(d, a):
    a = _ck_base(d)
    _ck_set(d, a, 1, 1, a["ssm_pool"].shape[0])
    return "checkpoint_slots.npy"


def _bad_ck_negative(d, a):
    a = _ck_base(d)
    _ck_set(d, a, 1, 0, -2)  # Only -1 marks an unused entry.
    return "checkpoint_slots.npy"


def _bad_ck_duplicate(d, a):
    a = _ck_base(d)
    _ck_set(d, a, 2, 1, a["checkpoint_slots"][0, 0])
    return "checkpoint_slots.npy"


def _bad_ck_read(d, a):
    # A slot some sequence reads its initial state from.
    a = _ck_base(d)
    b = int(np.flatnonzero(a["has_initial_state"])[0])
    _ck_set(d, a, 1, 1, a["cache_indices"].reshape(-1)[b])
    return "checkpoint_slots.npy"


def _bad_ck_written(d, a):
    # A slot a sequence without initial state writes its final state to.
    a = _ck_base(d)
    b = int(np.flatnonzero(~a["has_initial_state"])[0])
    _ck_set(d, a, 0, 1, a["cache_indices"].reshape(-1)[b])
    return "checkpoint_slots.npy"


def _bad_ck_offset(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_offsets", np.array([0, -1, 0], np.int32))
    return "checkpoint_offsets.npy"


def _bad_ck_shape(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_slots", a["checkpoint_slots"][:-1])
    return "checkpoint_slots.npy"


def _bad_ck_rank(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_slots", a["checkpoint_slots"].reshape(-1))
    return "checkpoint_slots.npy"


def _bad_ck_dtype(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_slots", a["checkpoint_slots"].astype(np.int64))
    return "checkpoint_slots.npy"


def _bad_ck_offsets_shape(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_offsets", a["checkpoint_offsets"][:-1])
    return "checkpoint_offsets.npy"


def _bad_ck_offsets_dtype(d, a):
    a = _ck_base(d)
    _save(d, "checkpoint_offsets", a["checkpoint_offsets"].astype(np.uint32))
    return "checkpoint_offsets.npy"


def _bad_ck_offsets_alone(d, a):
    a = _ck_base(d)
    os.remove(_path(d, "checkpoint_slots"))
    return "checkpoint_offsets.npy"


def _tp_base(d):
    """_base with token_parents: sequences of 2, 3, 1 tokens, parents
    [-1, 0 | -1, -1, 0 | -1] (sequence 1 is a tree: tokens 0 and 1 both
    children of the initial state)."""
    shutil.rmtree(d)
    a = _base(d, parents="roots")
    a["token_parents"] = np.array([-1, 0, -1, -1, 0, -1], np.int32)
    _save(d, "token_parents", a["token_parents"])
    return a


def _ps_base(d, pool_dtype="i8"):
    """_base with an 8-bit pool (codes and ssm_pool_scales.npy)."""
    return _base(d, pool_dtype=pool_dtype)


def _bad_ps_missing(d, a):
    _ps_base(d)
    os.remove(_path(d, "ssm_pool_scales"))
    return "ssm_pool_scales.npy"


def _bad_ps_given(d, a):
    _save(d, "ssm_pool_scales",
          np.ones(a["ssm_pool"].shape[:3], dtype=np.float32))
    return "ssm_pool_scales.npy"


def _bad_ps_scales(change):
    def make(d, a):
        arrs = _ps_base(d)
        _save(d, "ssm_pool_scales", change(arrs["ssm_pool_scales"]))
        return "ssm_pool_scales.npy"
    return make


def _bad_ps_float_codes(d, a):
    _save(d, "ssm_pool_scales",
          np.ones(a["ssm_pool"].shape[:3], dtype=np.float32))
    return "ssm_pool.npy"


def _bad_ps_signed_codes(d, a):
    _ps_base(d, "i8")
    return "ssm_pool.npy"


def _bad_tp(change):
    """A bad kind: _tp_base's directory with token_parents.npy replaced by
    change(parents)."""
    def make(d, a):
        a = _tp_base(d)
        _save(d, "token_parents", change(a["token_parents"].copy()))
        return "token_parents.npy"
    return make


def _parent_at(t, value):
    """change for _bad_tp: token t's parent set to value."""
    def change(tp):
        tp[t] = value
        return tp
    return change


BAD_KINDS = {
    "missing-file": (_bad_missing, "a required file (C.npy) is absent"),
    "truncated": (_bad_truncated, "x.npy loses its last 100 bytes"),
    "not-npy": (_bad_not_npy, "dt.npy is a text file"),
    "header-control-chars": (_bad_header_control_chars,
                             "dt.npy's header has a key with newlines (and "
                             "A.npy's dtype string)"),
    "wrong-dtype": (_bad_wrong_dtype, "x.npy is float64"),
    "int-float-operand": (_bad_int_dtype, "A.npy is int32"),
    "qsl-dtype": (_bad_qsl_dtype, "query_start_loc.npy is int64"),
    "ci-dtype": (_bad_ci_dtype, "cache_indices.npy is int64"),
    "mask-dtype": (_bad_mask_dtype, "update_state.npy is uint8, not bool"),
    "fortran-order": (_bad_fortran, "B.npy is stored in Fortran order"),
    "wrong-rank": (_bad_wrong_rank, "dt.npy is flattened to rank 1"),
    "inconsistent-shapes": (_bad_inconsistent, "C.npy has N-1 columns"),
    "pool-shape": (_bad_pool_shape, "ssm_pool.npy has N-1 columns"),
    "groups": (_bad_groups, "B.npy and C.npy have G=3, which does not "
                            "divide H=4"),
    "qsl-start": (_bad_qsl_start, "query_start_loc does not start at 0"),
    "qsl-decreasing": (_bad_qsl_decreasing, "query_start_loc decreases"),
    "qsl-end": (_bad_qsl_end, "query_start_loc does not end at T"),
    "ci-out-of-range": (_bad_ci_range, "a cache index equals the slot count"),
    "ci-negative": (_bad_ci_negative, "a cache index is -2 (only -1 is "
                                      "padding)"),
    "ci-length": (_bad_ci_length, "cache_indices has batch-1 entries"),
    "two-writers": (_bad_two_writers, "two writing sequences name one slot"),
    "mask-length": (_bad_mask_length, "has_initial_state has batch+1 entries"),
    "update-length": (_bad_update_length, "update_state has batch-1 entries"),
    # Pools of 8-bit codes (run with --pool-dtype i8, except ps-given: the
    # default f32 pool, and ps-signed-codes: f8e4m3).
    "ps-missing": (_bad_ps_missing, "an i8 pool's ssm_pool_scales.npy is "
                   "missing"),
    "ps-given": (_bad_ps_given, "ssm_pool_scales.npy beside an f32 pool"),
    "ps-shape": (_bad_ps_scales(lambda sc: sc[:, :, :-1]),
                 "ssm_pool_scales has P-1 columns"),
    "ps-rank": (_bad_ps_scales(lambda sc: sc.reshape(sc.shape[0], -1)),
                "ssm_pool_scales is flattened to [S, H*P]"),
    "ps-dtype": (_bad_ps_scales(lambda sc: sc.astype(np.float64)),
                 "ssm_pool_scales.npy is float64"),
    "ps-float-codes": (_bad_ps_float_codes, "a float32 ssm_pool.npy (with "
                       "scales) run as an i8 pool"),
    "ps-signed-codes": (_bad_ps_signed_codes, "int8 codes run as an f8e4m3 "
                        "pool (uint8 bit patterns)"),
    # Checkpoints (run with --checkpoint-interval 1, except ck-offsets-alone).
    "ck-out-of-range": (_bad_ck_range, "a checkpoint slot equals the slot "
                                       "count"),
    "ck-negative": (_bad_ck_negative, "a checkpoint slot is -2 (only -1 is "
                                      "unused)"),
    "ck-duplicate": (_bad_ck_duplicate, "two checkpoint entries name one "
                                        "slot"),
    "ck-read-slot": (_bad_ck_read, "a checkpoint slot is a slot a sequence "
                                   "reads"),
    "ck-written-slot": (_bad_ck_written, "a checkpoint slot is a slot a "
                                         "sequence writes (and does not "
                                         "read)"),
    "ck-negative-offset": (_bad_ck_offset, "a checkpoint offset is -1"),
    "ck-shape": (_bad_ck_shape, "checkpoint_slots has batch-1 rows"),
    "ck-rank": (_bad_ck_rank, "checkpoint_slots is flattened to rank 1"),
    "ck-dtype": (_bad_ck_dtype, "checkpoint_slots.npy is int64"),
    "ck-offsets-shape": (_bad_ck_offsets_shape, "checkpoint_offsets has "
                                                "batch-1 entries"),
    "ck-offsets-dtype": (_bad_ck_offsets_dtype, "checkpoint_offsets.npy is "
                                                "uint32"),
    "ck-offsets-alone": (_bad_ck_offsets_alone, "checkpoint_offsets.npy "
                                                "without "
                                                "checkpoint_slots.npy"),
    # Draft trees (token_parents.npy; with checkpoints the interval must be
    # 1: run a valid --parents dir with another --checkpoint-interval).
    # Token 1 of sequence 1 (global 3) its own parent.
    "tp-self": (_bad_tp(_parent_at(3, 1)), "a token is its own parent"),
    # Token 0 of sequence 1 (global 2): its parent token 2, later.
    "tp-ahead": (_bad_tp(_parent_at(2, 2)), "a token's parent comes after it"),
    # Token 0 of sequence 2 (one token): no token 1.
    "tp-past-sequence": (_bad_tp(_parent_at(5, 1)), "a parent beyond the "
                         "tokens of a one-token sequence"),
    "tp-negative": (_bad_tp(_parent_at(4, -2)), "a parent is -2 (only -1 is "
                    "the initial state)"),
    "tp-dtype": (_bad_tp(lambda tp: tp.astype(np.int64)),
                 "token_parents.npy is int64"),
    "tp-shape": (_bad_tp(lambda tp: tp[:-1]), "token_parents has T-1 entries"),
    "tp-rank": (_bad_tp(lambda tp: tp.reshape(1, -1)),
                "token_parents is [1, T]"),
}


def make_bad(outdir, kind):
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    arrs = _base(outdir)
    fn, _ = BAD_KINDS[kind]
    return fn(outdir, arrs)


def cmd_bad(args):
    if args.kind == "all":
        for kind in BAD_KINDS:
            f = make_bad(os.path.join(args.outdir, kind), kind)
            print("%s: expect an error naming %s" % (kind, f))
    else:
        f = make_bad(args.outdir, args.kind)
        print("%s: expect an error naming %s" % (args.kind, f))
    return 0


# ----------------------------------------------------------------------------
# split / resume-check: resuming from a checkpoint
# ----------------------------------------------------------------------------

def _resume_point(arrs, b, start, interval):
    """(k, slot): the checkpoint of sequence b after its local token
    start - 1, which a resumed call starts from."""
    qsl = arrs["query_start_loc"]
    length = int(qsl[b + 1] - qsl[b])
    slots = arrs["checkpoint_slots"]
    if slots is None:
        raise SystemExit("ssdgen: the input has no checkpoint_slots.npy")
    if not 1 <= start < length + 1:
        raise SystemExit("ssdgen: --start %d is not in [1, %d]"
                         % (start, length))
    offsets = arrs["checkpoint_offsets"]
    o = int(offsets[b]) if offsets is not None else 0
    if (o + start) % interval:
        raise SystemExit("ssdgen: sequence %d holds %d tokens after local "
                         "token %d, not a multiple of %d"
                         % (b, o + start, start - 1, interval))
    k = (o + start) // interval - o // interval - 1
    row = slots[b].astype(np.int64) & 0xFFFFFFFF
    if k >= len(row) or row[k] == PADDING:
        raise SystemExit("ssdgen: boundary %d of sequence %d has no "
                         "checkpoint slot" % (k, b))
    return k, int(row[k]), o


def cmd_split(args):
    """The rest of one sequence as a call of its own, resuming from the
    checkpoint the uncut call wrote: tokens [start, length) of sequence B,
    its initial state read from the checkpoint slot (which it also writes
    its final state to), offset o + start, and the row's later checkpoint
    columns, with the pool the uncut call left (POOLDIR/ssm_pool.npy)."""
    arrs = load_inputs(args.inputdir)
    if arrs["token_parents"] is not None:
        # A resumed call continues one path; a tree's later tokens may
        # branch off any earlier one.
        raise SystemExit("ssdgen split: %s has token_parents.npy: a tree "
                         "sequence is not resumed from one checkpoint"
                         % args.inputdir)
    b, start = args.sequence, args.start
    k, slot, o = _resume_point(arrs, b, start, args.checkpoint_interval)
    qsl = arrs["query_start_loc"]
    lo, hi = int(qsl[b]) + start, int(qsl[b + 1])
    out = {name: arrs[name] for name in ["A", "D", "dt_bias"]}
    for name in ["x", "dt", "B", "C"]:
        out[name] = arrs[name][lo:hi]
    out["ssm_pool"] = np.load(_path(args.pooldir, "ssm_pool"))
    out["query_start_loc"] = np.array([0, hi - lo], np.int32)
    ci = arrs["cache_indices"]
    c = np.array([slot], np.uint32)
    out["cache_indices"] = c if ci.dtype == np.uint32 else c.view(np.int32)
    out["has_initial_state"] = np.ones(1, np.bool_)
    out["update_state"] = np.ones(1, np.bool_)
    ck = arrs["checkpoint_slots"]
    later = np.full((1, ck.shape[1]), PADDING, np.uint32)
    rest = (ck[b].astype(np.int64) & 0xFFFFFFFF)[k + 1:]
    later[0, :len(rest)] = rest
    out["checkpoint_slots"] = later if ck.dtype == np.uint32 \
        else later.view(np.int32)
    out["checkpoint_offsets"] = np.array([o + start], np.int32)
    if os.path.isdir(args.outdir):
        shutil.rmtree(args.outdir)
    os.makedirs(args.outdir)
    for name, v in out.items():
        if v is not None:
            np.save(_path(args.outdir, name), v)
    print("ssdgen split: wrote %s (tokens %d..%d of sequence %d, from "
          "checkpoint slot %d, offset %d)"
          % (args.outdir, start, hi - int(qsl[b]) - 1, b, slot, o + start))
    return 0


def cmd_resume_check(args):
    """A split run (SPLITOUT of SPLITDIR) against the uncut run (FULLOUT of
    INPUTDIR): the resumed tokens' y rows, the final state and the later
    checkpoints must agree within the dtype's tolerance."""
    tol = args.tol if args.tol is not None else TOLERANCES[args.dtype]
    arrs = load_inputs(args.inputdir)
    split = load_inputs(args.splitdir)
    b, start = args.sequence, args.start
    qsl = arrs["query_start_loc"]
    lo, hi = int(qsl[b]) + start, int(qsl[b + 1])
    full_y = np.load(_path(args.fullout, "y"))
    full_pool = np.load(_path(args.fullout, "ssm_pool"))
    split_y = np.load(_path(args.splitout, "y"))
    split_pool = np.load(_path(args.splitout, "ssm_pool"))
    y_err = _rel_err(split_y, full_y[lo:hi])
    errors = []
    slot = int(split["cache_indices"].astype(np.int64).reshape(-1)[0]
               & 0xFFFFFFFF)
    full_slot, full_writes = writers(arrs)[b]
    if full_writes:
        errors.append(_rel_err(split_pool[slot], full_pool[full_slot]))
    for s in (split["checkpoint_slots"].astype(np.int64) & 0xFFFFFFFF)[0]:
        if s != PADDING:
            errors.append(_rel_err(split_pool[s], full_pool[s]))
    state_err = max(errors, default=0.0)
    status = "PASS" if y_err <= tol and state_err <= tol else "FAIL"
    print("%s resume y_rows=%d y_err=%.3e states=%d state_err=%.3e tol=%.1e"
          % (status, hi - lo, y_err, len(errors), state_err, tol))
    if y_err > tol:
        print("FAIL: the resumed call's y rows are %.3e off the uncut call's "
              "tokens %d..%d of sequence %d (tolerance %.1e)"
              % (y_err, start, hi - int(qsl[b]) - 1, b, tol))
    if state_err > tol:
        print("FAIL: the resumed call's final state or later checkpoints are "
              "%.3e off the uncut call's (tolerance %.1e)" % (state_err, tol))
    return 0 if status == "PASS" else 1


# ----------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------

def _int_list(s):
    """Comma-separated integers; V*K stands for K copies of V (0*4096)."""
    out = []
    for v in s.split(","):
        if v.strip() == "":
            continue
        value, _, count = v.partition("*")
        out += [int(value)] * (int(count) if count else 1)
    return out


def _offsets(s):
    return "random" if s.strip() == "random" else _int_list(s)


def _index_list(s):
    return "all" if s.strip() == "all" else _int_list(s)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    g = sub.add_parser("gen", help="write a random valid input directory")
    g.add_argument("outdir")
    g.add_argument("--seqlens", type=_int_list, required=True,
                   help="comma-separated tokens per sequence, e.g. 0,1,5 "
                        "(V*K: K sequences of V tokens)")
    g.add_argument("--H", type=int, default=4)
    g.add_argument("--P", type=int, default=8)
    g.add_argument("--N", type=int, default=16)
    g.add_argument("--G", type=int, default=2)
    g.add_argument("--slots", type=int, default=None,
                   help="pool slots S (default 2*batch+2)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--no-D", dest="D", action="store_false")
    g.add_argument("--no-dt-bias", dest="dt_bias", action="store_false")
    g.add_argument("--initial", choices=["mixed", "none", "all", "absent"],
                   default="mixed", help="has_initial_state")
    g.add_argument("--update", choices=["mixed", "absent", "all", "none"],
                   default="mixed", help="update_state")
    g.add_argument("--ci-shape", choices=["1d", "2d"], default="1d")
    g.add_argument("--ci-dtype", choices=["int32", "uint32"], default="int32")
    g.add_argument("--padding", type=_index_list, default=[],
                   help="comma-separated sequence indices to make padding, "
                        "or 'all'")
    g.add_argument("--pool-dtype", choices=POOL_DTYPES, default="f32",
                   help="f16: pool values rounded to float16; f8e4m3, i8: "
                        "the pool as codes (uint8 f8E4M3FN patterns, int8) "
                        "and ssm_pool_scales.npy")
    g.add_argument("--float16-files", action="store_true",
                   help="store every float array as float16")
    g.add_argument("--large-dt", type=float, default=0.0,
                   help="fraction of dt entries with dt + dt_bias > 20 "
                        "(softplus passes them through)")
    g.add_argument("--tree", action="store_true",
                   help="tree speculation: all sequences read one slot, only "
                        "sequence 0 writes it (overrides --initial/--update)")
    tp = g.add_argument_group(
        "draft trees",
        "With --parents KIND, writes token_parents.npy [T] int32: the parent "
        "of each token as a local index of its sequence, -1 for the "
        "sequence's initial state. tree: a random tree per sequence (limits "
        "drawn per sequence up to --parents-depth and --parents-branching, "
        "raised until its tokens fit), numbered by --parents-order; chain: "
        "every token's parent the one before it, written out (the op "
        "without token_parents); roots: every token a child of the initial "
        "state. With checkpoints the interval must be 1; K then defaults to "
        "the longest sequence's token count less one (its last token has "
        "k >= K) and about a quarter of the entries are -1 "
        "(--checkpoint-unused).")
    tp.add_argument("--parents", choices=PARENTS_KINDS, default=None,
                    help="write token_parents.npy of this kind")
    tp.add_argument("--parents-order", choices=["bfs", "dfs"], default="bfs",
                    help="number each tree's tokens breadth-first or "
                         "depth-first (preorder)")
    tp.add_argument("--parents-chains", type=_int_list, default=[],
                    metavar="LIST",
                    help="with --parents tree: sequence indices that stay "
                         "linear chains (explicit parents j - 1)")
    tp.add_argument("--parents-chain-fraction", type=float, default=0.0,
                    metavar="F",
                    help="with --parents tree: each other sequence is a "
                         "chain with probability F")
    tp.add_argument("--parents-depth", type=int, default=8, metavar="D",
                    help="deepest token of a tree, counted from the initial "
                         "state (default 8)")
    tp.add_argument("--parents-branching", type=int, default=4, metavar="B",
                    help="most children of one node, the initial state "
                         "included (default 4)")
    ck = g.add_argument_group(
        "state checkpoints",
        "With --checkpoint-interval I, writes checkpoint_slots.npy [batch, K]: "
        "distinct slots that no sequence names in cache_indices (so none is "
        "read or written otherwise; the pool grows beyond --slots to hold "
        "them), padding sequences' rows included. The interval itself is not "
        "written: run ssd-run, ssdgen ref and ssdgen check with the same "
        "--checkpoint-interval I.")
    ck.add_argument("--checkpoint-interval", type=int, default=None,
                    metavar="I", help="tokens between checkpoints (>= 1)")
    ck.add_argument("--checkpoint-k", type=int, default=None, metavar="K",
                    help="columns of checkpoint_slots (default: the most "
                         "boundaries any sequence crosses, at least 1; "
                         "fewer leaves boundaries unwritten)")
    ck.add_argument("--checkpoint-offsets", type=_offsets, default=None,
                    metavar="LIST|random",
                    help="write checkpoint_offsets.npy: comma-separated "
                         "tokens each sequence held before the call, or "
                         "'random' (each in [0, 3*I)); absent by default")
    ck.add_argument("--checkpoint-unused", action="store_true",
                    help="make about a quarter of the entries (at least one) "
                         "-1, unused")
    ck.add_argument("--checkpoint-slots-dtype", choices=["int32", "uint32"],
                    default="int32")

    r = sub.add_parser("ref", help="float64 NumPy reference of an input dir")
    r.add_argument("inputdir")
    r.add_argument("outdir")
    r.add_argument("--dtype", choices=list(TOLERANCES), default="f32")
    r.add_argument("--pool-dtype", choices=POOL_DTYPES, default="f32",
                   help="pool element type (bf16, f16: rounded on load and "
                        "write; f8e4m3, i8: codes and ssm_pool_scales.npy)")
    r.add_argument("--pool-rounding", choices=["nearest", "stochastic"],
                   default="nearest")
    r.add_argument("--rounding-seed", type=int, default=None,
                   help="with --pool-rounding stochastic (required then)")
    r.add_argument("--checkpoint-interval", type=int, default=None,
                   metavar="I", help="as ssd-run's (with checkpoint_slots.npy)")
    r.add_argument("--f32-state", action="store_true",
                   help="round the state to float32 after every token (a "
                        "scan that split calls reproduce bit for bit)")

    c = sub.add_parser("check", help="compare OUTDIR to REFDIR within the "
                       "tolerances of docs/overview.md (Accuracy)")
    c.add_argument("inputdir")
    c.add_argument("refdir")
    c.add_argument("outdir")
    c.add_argument("--dtype", choices=list(TOLERANCES), default="f32")
    c.add_argument("--tol", type=float, default=None,
                   help="override the contract's tolerance for the dtype")
    c.add_argument("--pool-dtype", choices=POOL_DTYPES, default="f32",
                   help="pool element type of the run (bf16, f16: the input "
                        "pool is compared rounded, written slots must hold "
                        "values of the type; f8e4m3, i8: codes and scales, "
                        "untouched ones bit-identical, written values within "
                        "half a quantum (one when stochastic) of the NumPy "
                        "reference's state, plus the tolerance)")
    c.add_argument("--pool-rounding", choices=["nearest", "stochastic"],
                   default="nearest")
    c.add_argument("--checkpoint-interval", type=int, default=None,
                   metavar="I", help="as ssd-run's (with checkpoint_slots.npy): "
                   "the checkpoints the call reaches are written slots, the "
                   "entries it does not reach must stay bit-identical")
    c.add_argument("--suite", default=None, metavar="TARGET/FORM",
                   help="also hold y and the written slots to the suite's "
                        "bound for this target, form (serial, chunked, or "
                        "auto: either) and --dtype, on the error beyond "
                        "their rounding (docs/testing.md, Suite bounds)")

    bd = sub.add_parser("bounds", help="print the suite's bounds as the "
                        "table of docs/testing.md")
    bd.add_argument("--measured", default=None, metavar="LOG",
                    help="a SSDGEN_CHECK_LOG file: add the worst error of "
                         "each row, where it was measured, and the bound "
                         "it gives")

    kinds = "\n".join("  %-20s %s" % (k, v[1]) for k, v in BAD_KINDS.items())
    b = sub.add_parser(
        "bad", help="write a deliberately broken input directory",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="kinds (all = one subdirectory per kind):\n" + kinds)
    b.add_argument("outdir")
    b.add_argument("kind", choices=list(BAD_KINDS) + ["all"], metavar="KIND")

    sp = sub.add_parser(
        "split", help="the rest of one sequence from its checkpoint, as a "
        "call of its own (pool: the uncut run's output)")
    sp.add_argument("inputdir")
    sp.add_argument("pooldir", help="the uncut run's output dir")
    sp.add_argument("outdir")
    sp.add_argument("--sequence", type=int, required=True, metavar="B")
    sp.add_argument("--start", type=int, required=True, metavar="J",
                    help="first local token of the resumed call (the "
                         "checkpoint after token J-1 must exist)")
    sp.add_argument("--checkpoint-interval", type=int, required=True,
                    metavar="I")

    rc = sub.add_parser(
        "resume-check", help="compare a run of a split dir with the uncut "
        "run: y rows, final state, later checkpoints")
    rc.add_argument("inputdir")
    rc.add_argument("fullout")
    rc.add_argument("splitdir")
    rc.add_argument("splitout")
    rc.add_argument("--sequence", type=int, required=True, metavar="B")
    rc.add_argument("--start", type=int, required=True, metavar="J")
    rc.add_argument("--dtype", choices=list(TOLERANCES), default="f32")
    rc.add_argument("--tol", type=float, default=None)

    ssdgen_invariance.add_parser(sub)

    args = ap.parse_args(argv)
    if args.cmd == "invariance":
        return ssdgen_invariance.main(args)
    if args.cmd == "gen":
        arrs = generate(args.outdir, args.seqlens, H=args.H, P=args.P, N=args.N,
                        G=args.G, slots=args.slots, seed=args.seed,
                        with_D=args.D, with_dt_bias=args.dt_bias,
                        initial=args.initial, update=args.update,
                        ci_shape=args.ci_shape, ci_dtype=args.ci_dtype,
                        padding=args.padding, float16_files=args.float16_files,
                        tree=args.tree, large_dt=args.large_dt,
                        checkpoint_interval=args.checkpoint_interval,
                        checkpoint_k=args.checkpoint_k,
                        checkpoint_offsets=args.checkpoint_offsets,
                        checkpoint_unused=args.checkpoint_unused,
                        checkpoint_slots_dtype=args.checkpoint_slots_dtype,
                        parents=args.parents, parents_order=args.parents_order,
                        parents_chains=args.parents_chains,
                        parents_chain_fraction=args.parents_chain_fraction,
                        parents_depth=args.parents_depth,
                        parents_branching=args.parents_branching,
                        pool_dtype=args.pool_dtype)
        trees = ""
        if arrs["token_parents"] is not None:
            not_chains, depth, width = tree_shape(arrs["token_parents"],
                                                  arrs["query_start_loc"])
            trees = ", token_parents %s: %d of %d sequences not chains" % (
                args.parents, not_chains, len(args.seqlens))
            if not_chains:
                trees += " (depth %d, branching %d)" % (depth, width)
        print("ssdgen gen: wrote %s (T=%d, batch=%d, S=%d%s%s)"
              % (args.outdir, arrs["x"].shape[0], len(args.seqlens),
                 arrs["ssm_pool"].shape[0],
                 ", checkpoints K=%d every %d tokens"
                 % (arrs["checkpoint_slots"].shape[1], args.checkpoint_interval)
                 if arrs["checkpoint_slots"] is not None else "", trees))
        if args.large_dt > 0 and arrs["dt_bias"] is not None:
            v = (arrs["dt"].astype(np.float64)
                 + arrs["dt_bias"].astype(np.float64)[None, :])
            print("ssdgen gen: %d of %d steps have dt + dt_bias > 20, %d of "
                  "them > 88.73 (exp overflows float32)"
                  % (int(np.sum(v > 20)), v.size, int(np.sum(v > 88.73))))
        return 0
    if args.cmd == "ref":
        return cmd_ref(args)
    if args.cmd == "check":
        return cmd_check(args)
    if args.cmd == "bounds":
        return cmd_bounds(args)
    if args.cmd == "split":
        return cmd_split(args)
    if args.cmd == "resume-check":
        return cmd_resume_check(args)
    return cmd_bad(args)


if __name__ == "__main__":
    sys.exit(main())
