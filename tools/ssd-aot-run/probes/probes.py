#!/usr/bin/python3
"""Inputs and expected outputs of the GPU check's probes (mma-probe.mlir,
shfl-probe.mlir, wgmma-probe.mlir), run by `ssd-aot-run --call`.

  probes.py gen KIND FILE [--seed N]   write a probe's input (raw int32)
  probes.py expect KIND IN FILE        write the output the PTX ISA
                                       defines for that input
  probes.py diff KIND IN A B           compare two outputs, say where they
                                       differ; exit 1 if they do

KIND is mma, mma-round, shfl, wgmma or wgmma-round. The expected outputs are computed here from
the PTX ISA's definitions (the mma.m16n8k16 fragment tables; shfl.sync's
source-lane and predicate rules), independently of the emulator. Both
probes run 64 threads (two warps).

`mma` uses small integers: every result is exact, so any accumulation order
gives the same bits, and a difference is a fragment-layout error.
`mma-round` (the same kernel) uses bf16 values of mixed signs and
magnitudes (2^-8 to 2^8) and f32 accumulators, so the 16 products (exact in
f32) and C do not sum exactly: its expected output is the exact sum
rounded once to f32, and `diff` accepts two outputs that differ by at most
what two orders of 17 f32 roundings can (each within 17 * 2^-24 of
|C| + sum |a b| from the exact sum), and reports the largest difference in
units in the last place. The PTX ISA leaves the order and rounding of the
accumulation to the hardware; the emulator adds in k order with
round-to-nearest, so this probe measures how far a GPU's tensor cores are
from that.
`wgmma` (sm_90a, one warpgroup of 128 threads) fills a 16 KB shared-memory
image with small-integer bf16 values and runs
wgmma.mma_async.m64n16k16.f32.bf16.bf16 four times, A K- or M-major and B
K- or N-major, each operand read through a descriptor with its own swizzle
(none, 128, 64 or 32 bytes) and offsets: the expected D is computed here
from the PTX ISA's canonical layouts (`_wgmma_offset`), exact in f32. Its
output ends with the shared address of the kernel's dynamic shared memory
(the image starts at the first 1024-byte boundary in it), which `diff`
reports but does not compare (the emulator puts it at 0; where a GPU puts
it is a fact the kernels need). `wgmma-round` runs the same kernel on
values whose sums round, checked like mma-round: within two orders of 17
f32 roundings of the exact sum, the difference from the emulator (k order)
reported in ulp.
Only the standard library and NumPy.
"""

import argparse
import sys

import numpy as np

THREADS = 64
MMA_IN_WORDS, MMA_OUT_WORDS = 10, 4

# shfl.sync cases: (mode, b, c) with c = clamp | segmask << 8; b None means
# the per-lane source lane from the input (idx only).
SHFL_CASES = [
    ("idx", None, 0x1F),
    ("idx", None, 0x1805),   # segments of 8 lanes, clamp 5 within each
    ("up", 3, 0x0),
    ("up", 2, 0x1800),       # segments of 8 lanes
    ("down", 5, 0x1F),
    ("down", 3, 0x181F),
    ("bfly", 0x11, 0x1F),
    ("bfly", 5, 0x1C1F),     # segments of 4 lanes
]


KINDS = ["mma", "mma-round", "shfl", "wgmma", "wgmma-round"]

# wgmma: the image, then per case descriptor A and B (two words each), then C
# (8 words per thread); out: D per case and thread (8 words), then the
# image's shared address.
WGMMA_THREADS, WGMMA_N = 128, 16
WGMMA_IMAGE_WORDS = 4096
WGMMA_DESC_WORD = WGMMA_IMAGE_WORDS
WGMMA_C_WORD = WGMMA_DESC_WORD + 16
WGMMA_OUT_D_WORDS = 4 * WGMMA_THREADS * 8
# Per case, in the kernel's order: (A M-major, B N-major) and the swizzle
# code of A and B (0 none, 1 128-byte, 2 64-byte, 3 32-byte). A starts at
# byte 0 of the image, B at 8192.
WGMMA_CASES = [((False, False), (0, 1)), ((True, False), (2, 3)),
               ((False, True), (1, 0)), ((True, True), (1, 3))]
WGMMA_B_START = 8192


def output_bytes(kind):
    if kind in ("mma", "mma-round"):
        return THREADS * MMA_OUT_WORDS * 4
    if kind in ("wgmma", "wgmma-round"):
        return (WGMMA_OUT_D_WORDS + 1) * 4
    return len(SHFL_CASES) * THREADS * 2 * 4


def _bf16_bits(values):
    """bf16 bits of values exact in bf16."""
    f = np.asarray(values, dtype=np.float32)
    return (f.view(np.uint32) >> 16).astype(np.uint32)


def _fragments():
    """Per lane: the (row, col) of each A, B and C/D fragment element."""
    for lane in range(32):
        g, t = lane // 4, lane % 4
        a = [[(g + 8 * (r % 2), 2 * t + h + 8 * (r // 2)) for h in (0, 1)]
             for r in range(4)]
        b = [[(2 * t + h + 8 * r, g) for h in (0, 1)] for r in range(2)]
        c = [(g + 8 * (i // 2), 2 * t + i % 2) for i in range(4)]
        yield lane, a, b, c


def _mma_matrices(words):
    """A [w,16,16], B [w,16,8], C [w,16,8] from the input registers."""
    words = words.reshape(THREADS, MMA_IN_WORDS).astype(np.uint32)
    warps = THREADS // 32
    A = np.zeros((warps, 16, 16))
    B = np.zeros((warps, 16, 8))
    C = np.zeros((warps, 16, 8))
    for w in range(warps):
        for lane, a, b, c in _fragments():
            regs = words[32 * w + lane]
            for r in range(4):
                for h in range(2):
                    bits = (regs[r] >> (16 * h)) & 0xFFFF
                    A[w][a[r][h]] = np.array([bits << 16], np.uint32).view(np.float32)[0]
            for r in range(2):
                for h in range(2):
                    bits = (regs[4 + r] >> (16 * h)) & 0xFFFF
                    B[w][b[r][h]] = np.array([bits << 16], np.uint32).view(np.float32)[0]
            for i in range(4):
                C[w][c[i]] = np.array([regs[6 + i]], np.uint32).view(np.float32)[0]
    return A, B, C


def _pack_mma(matrices):
    """The input registers of each warp's A [16,16], B [16,8] and C [16,8]
    (bf16-exact A and B, f32 C) from `matrices(w)`, by fragment table."""
    warps = THREADS // 32
    words = np.zeros((THREADS, MMA_IN_WORDS), np.uint32)
    for w in range(warps):
        A, B, C = matrices(w)
        for lane, a, b, c in _fragments():
            regs = words[32 * w + lane]
            for r in range(4):
                lo, hi = _bf16_bits([A[a[r][0]], A[a[r][1]]])
                regs[r] = lo | (hi << 16)
            for r in range(2):
                lo, hi = _bf16_bits([B[b[r][0]], B[b[r][1]]])
                regs[4 + r] = lo | (hi << 16)
            for i in range(4):
                regs[6 + i] = np.array([C[c[i]]], np.float32).view(np.uint32)[0]
    return words.reshape(-1)


def gen_mma(rng):
    # Small integers: every product and partial sum is exact in f32, so any
    # accumulation order gives the same bits; C has a half so that no
    # result is zero (no sign-of-zero question).
    return _pack_mma(lambda w: (rng.integers(-8, 9, size=(16, 16)),
                                rng.integers(-8, 9, size=(16, 8)),
                                rng.integers(-64, 65, size=(16, 8)) + 0.5))


def _bf16_round_values(rng, shape):
    """bf16 values 2^e (1 + m / 128), e in [-8, 8], random signs."""
    e = rng.integers(-8, 9, size=shape)
    m = rng.integers(0, 128, size=shape)
    sign = rng.choice([-1.0, 1.0], size=shape)
    return sign * np.ldexp(1.0 + m / 128.0, e)


def gen_mma_round(rng):
    """Like gen_mma, with values whose sums round (see the module doc)."""
    return _pack_mma(lambda w: (_bf16_round_values(rng, (16, 16)),
                                _bf16_round_values(rng, (16, 8)),
                                np.float32(rng.uniform(-64, 64, size=(16, 8)))))


def _mma_outputs(words, scale=False):
    """D = A B + C per output word, in float64 (exact for both probes: 16
    products of 8-bit significands and one f32), or with scale=True the
    bound scale |C| + sum |a b| of each."""
    A, B, C = _mma_matrices(words)
    out = np.zeros((THREADS, MMA_OUT_WORDS))
    for w in range(A.shape[0]):
        D = np.abs(A[w]) @ np.abs(B[w]) + np.abs(C[w]) if scale else A[w] @ B[w] + C[w]
        for lane, _, _, c in _fragments():
            for i in range(4):
                out[32 * w + lane, i] = D[c[i]]
    return out.reshape(-1)


def expect_mma(words):
    A, B, C = _mma_matrices(words)
    out = np.zeros((THREADS, MMA_OUT_WORDS), np.uint32)
    for w in range(A.shape[0]):
        D = A[w] @ B[w] + C[w]
        for lane, _, _, c in _fragments():
            for i in range(4):
                out[32 * w + lane, i] = np.array([D[c[i]]], np.float32).view(np.uint32)[0]
    return out.reshape(-1)


def gen_shfl(rng):
    values = rng.integers(0, 2**32, size=THREADS, dtype=np.uint64).astype(np.uint32)
    sources = rng.integers(0, 32, size=THREADS).astype(np.uint32)
    return np.concatenate([values, sources])


def expect_shfl(words):
    """PTX ISA, shfl.sync: the source lane j and the predicate p."""
    values, sources = words[:THREADS], words[THREADS:2 * THREADS]
    out = np.zeros((len(SHFL_CASES), THREADS, 2), np.uint32)
    for k, (mode, b, c) in enumerate(SHFL_CASES):
        for tid in range(THREADS):
            warp, lane = tid // 32, tid % 32
            bval = int(sources[tid] if b is None else b) & 0x1F
            cval, segmask = c & 0x1F, (c >> 8) & 0x1F
            max_lane = (lane & segmask) | (cval & ~segmask & 0x1F)
            min_lane = lane & segmask
            if mode == "up":
                j = lane - bval
                p = j >= max_lane
            elif mode == "down":
                j = lane + bval
                p = j <= max_lane
            elif mode == "bfly":
                j = lane ^ bval
                p = j <= max_lane
            else:
                j = min_lane | (bval & ~segmask & 0x1F)
                p = j <= max_lane
            if not p:
                j = lane
            out[k, tid] = [values[32 * warp + j], 1 if p else 0]
    return out.reshape(-1)


def _wgmma_descriptor(start, swizzle, mn_major):
    """A descriptor of the canonical layouts probes.py writes: without
    swizzle LBO 128, SBO 256; with a swizzle of W bytes SBO 8 W and LBO 16 W
    (M/N-major) or 16 (K-major, unused)."""
    if swizzle == 0:
        lbo, sbo = 128, 256
    else:
        width = 256 >> swizzle
        lbo, sbo = (16 * width if mn_major else 16), 8 * width
    return ((start >> 4) & 0x3FFF) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | swizzle << 62


def _wgmma_offset(desc, mn_major, mn, k):
    """Byte offset of element (mn, k) (k < 16, 16-bit elements) of an operand
    in the PTX ISA's canonical layouts ("Shared Memory Matrix Layout"), as
    CUTLASS's make_gmma_desc states them in units of 16-byte groups:
    no swizzle, K-major ((8,m),(T,2)):((1T,SBO),(1,LBO)), M/N-major
    ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); swizzle W = 128/64/32 bytes,
    K-major ((8,m),(T,2)):((W/16 T,SBO),(1,T)), M/N-major
    ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO)), then Swizzle<log2(W/16),4,3>
    on the byte address (T = 8 elements of 16 bits)."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    swizzle = desc >> 62
    if swizzle == 0:
        inner = 16 * (k % 8) + 2 * (mn % 8) if mn_major else 16 * (mn % 8) + 2 * (k % 8)
        return start + (mn // 8) * sbo + (k // 8) * lbo + inner
    width = 256 >> swizzle
    if mn_major:
        half = width // 2
        linear = start + (mn // half) * lbo + (k // 8) * sbo + width * (k % 8) + 2 * (mn % half)
    else:
        linear = start + (mn // 8) * sbo + width * (mn % 8) + 2 * k
    return linear ^ (((linear >> 7) & (width // 16 - 1)) << 4)


def _wgmma_d_position(tid, i):
    """(row, column) of D register i of thread tid (PTX ISA, the register
    fragment of D for .m64nNk16)."""
    warp, lane = divmod(tid, 32)
    g, t = lane // 4, lane % 4
    return 16 * warp + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * t + i % 2


def gen_wgmma(rng):
    values = rng.integers(-8, 9, size=2 * WGMMA_IMAGE_WORDS)
    halves = _bf16_bits(values).reshape(-1, 2)
    image = halves[:, 0] | (halves[:, 1] << 16)
    descs = []
    for (a_mn, b_mn), (a_swizzle, b_swizzle) in WGMMA_CASES:
        for start, swizzle, mn in ((0, a_swizzle, a_mn), (WGMMA_B_START, b_swizzle, b_mn)):
            d = _wgmma_descriptor(start, swizzle, mn)
            descs += [d & 0xFFFFFFFF, d >> 32]
    c = (rng.integers(-64, 65, size=WGMMA_THREADS * 8) + 0.5).astype(np.float32)
    return np.concatenate([image.astype(np.uint32), np.array(descs, np.uint32),
                           c.view(np.uint32)])


def gen_wgmma_round(rng):
    """Like gen_wgmma, with values whose sums round (as mma-round)."""
    words = gen_wgmma(rng)
    values = _bf16_round_values(rng, 2 * WGMMA_IMAGE_WORDS)
    halves = _bf16_bits(values).reshape(-1, 2)
    words[:WGMMA_IMAGE_WORDS] = halves[:, 0] | (halves[:, 1] << 16)
    c = np.float32(rng.uniform(-64, 64, size=WGMMA_THREADS * 8))
    words[WGMMA_C_WORD:WGMMA_C_WORD + WGMMA_THREADS * 8] = c.view(np.uint32)
    return words


def _wgmma_outputs(words, scale=False):
    """D per output word (case, thread, register) in float64, exact for
    both probes (16 products of 8-bit significands and one f32); with
    scale=True the bound scale |C| + sum |a b| of each."""
    words = words.astype(np.uint32)
    image = words[:WGMMA_IMAGE_WORDS]
    elements = np.stack([image & 0xFFFF, image >> 16], axis=1).reshape(-1)

    def value(byte):
        return float(np.array([elements[byte // 2] << 16], np.uint32).view(np.float32)[0])

    c = words[WGMMA_C_WORD:WGMMA_C_WORD + WGMMA_THREADS * 8].view(np.float32)
    C = np.zeros((64, WGMMA_N))
    for tid in range(WGMMA_THREADS):
        for i in range(8):
            C[_wgmma_d_position(tid, i)] = c[8 * tid + i]
    out = np.zeros((4, WGMMA_THREADS, 8))
    for case, ((a_mn, b_mn), _) in enumerate(WGMMA_CASES):
        base = WGMMA_DESC_WORD + 4 * case
        da = int(words[base]) | int(words[base + 1]) << 32
        db = int(words[base + 2]) | int(words[base + 3]) << 32
        A = np.array([[value(_wgmma_offset(da, a_mn, m, k)) for k in range(16)]
                      for m in range(64)])
        B = np.array([[value(_wgmma_offset(db, b_mn, n, k)) for k in range(16)]
                      for n in range(WGMMA_N)])
        D = np.abs(A) @ np.abs(B).T + np.abs(C) if scale else A @ B.T + C
        for tid in range(WGMMA_THREADS):
            for i in range(8):
                out[case, tid, i] = D[_wgmma_d_position(tid, i)]
    return out.reshape(-1)


def expect_wgmma(words):
    """The exact D rounded once to f32, then where the emulator puts
    dynamic shared memory (0)."""
    d = _wgmma_outputs(words).astype(np.float32).view(np.uint32)
    return np.concatenate([d, np.zeros(1, np.uint32)])


def diff_wgmma_round(args, a, b):
    """As diff_mma_round, for the wgmma probe's D words."""
    a, b = a[:-1], b[:-1]
    words = _read(args.input)
    fa = a.view(np.float32).astype(np.float64)
    fb = b.view(np.float32).astype(np.float64)
    exact = _wgmma_outputs(words)
    bound = 2 * 17 * 2.0 ** -24 * _wgmma_outputs(words, scale=True)
    gap = np.abs(fa - fb)
    same = int(np.sum(a == b))
    print("wgmma-round: %d of %d words bit-identical, max difference %.1f ulp"
          " (%.3g of the bound)" % (same, a.size, float(np.max(gap / _ulp(exact))),
                                    float(np.max(gap / bound))))
    bad = np.nonzero(gap > bound)[0]
    for i in bad[:8]:
        case, rest = divmod(int(i), WGMMA_THREADS * 8)
        tid, reg = divmod(rest, 8)
        print("  case %d thread %d D%s: %r vs %r, exact %r, bound %.3g"
              % (case, tid, _wgmma_d_position(tid, reg), fa[i], fb[i], exact[i], bound[i]))
    return 1 if bad.size else 0


def diff_wgmma(a, b):
    if a[-1] != b[-1]:
        print("wgmma: dynamic shared memory at shared address 0x%x vs 0x%x"
              " (not compared)" % (a[-1], b[-1]))
    a, b = a[:-1], b[:-1]
    bad = np.nonzero(a != b)[0]
    if bad.size == 0:
        print("wgmma: %d words bit-identical" % a.size)
        return 0
    print("wgmma: %d of %d words differ" % (bad.size, a.size))
    for i in bad[:8]:
        case, rest = divmod(int(i), WGMMA_THREADS * 8)
        tid, reg = divmod(rest, 8)
        fa = np.array([a[i]], np.uint32).view(np.float32)[0]
        fb = np.array([b[i]], np.uint32).view(np.float32)[0]
        (a_mn, b_mn), swizzles = WGMMA_CASES[case]
        print("  case %d (A %s-major, B %s-major, swizzles %s) thread %d D%s: %r vs %r"
              % (case, "M" if a_mn else "K", "N" if b_mn else "K", swizzles, tid,
                 _wgmma_d_position(tid, reg), fa, fb))
    return 1


def _read(path):
    return np.fromfile(path, dtype="<u4")


def cmd_gen(args):
    rng = np.random.default_rng(args.seed)
    gen = {"mma": gen_mma, "mma-round": gen_mma_round, "shfl": gen_shfl,
           "wgmma": gen_wgmma, "wgmma-round": gen_wgmma_round}
    words = gen[args.kind](rng)
    words.astype("<u4").tofile(args.file)
    return 0


def cmd_expect(args):
    words = _read(args.input)
    if args.kind == "mma-round":
        # The exact sum, rounded once.
        out = _mma_outputs(words).astype(np.float32).view(np.uint32)
    elif args.kind in ("wgmma", "wgmma-round"):
        out = expect_wgmma(words)
    else:
        out = expect_mma(words) if args.kind == "mma" else expect_shfl(words)
    out.astype("<u4").tofile(args.file)
    return 0


def _ulp(x):
    """f32 units in the last place at |x| (the spacing above it)."""
    x = np.abs(np.asarray(x, np.float32))
    return np.spacing(np.maximum(x, np.finfo(np.float32).tiny)).astype(np.float64)


def diff_mma_round(args, a, b):
    fa = a.view(np.float32).astype(np.float64)
    fb = b.view(np.float32).astype(np.float64)
    exact = _mma_outputs(_read(args.input))
    bound = 2 * 17 * 2.0 ** -24 * _mma_outputs(_read(args.input), scale=True)
    gap = np.abs(fa - fb)
    ulps = gap / _ulp(exact)
    same = int(np.sum(a == b))
    print("mma-round: %d of %d words bit-identical, max difference %.1f ulp"
          " (%.3g of the bound)" % (same, a.size, float(np.max(ulps)),
                                    float(np.max(gap / bound))))
    bad = np.nonzero(gap > bound)[0]
    for i in bad[:8]:
        tid, e = divmod(int(i), MMA_OUT_WORDS)
        print("  thread %d D element %d: %r vs %r, exact %r, bound %.3g"
              % (tid, e, fa[i], fb[i], exact[i], bound[i]))
    return 1 if bad.size else 0


def cmd_diff(args):
    a, b = _read(args.a), _read(args.b)
    if a.shape != b.shape:
        print("%s: %d words, %s: %d words" % (args.a, a.size, args.b, b.size))
        return 1
    if args.kind == "mma-round":
        return diff_mma_round(args, a, b)
    if args.kind == "wgmma":
        return diff_wgmma(a, b)
    if args.kind == "wgmma-round":
        return diff_wgmma_round(args, a, b)
    bad = np.nonzero(a != b)[0]
    if bad.size == 0:
        print("%s: %d words bit-identical" % (args.kind, a.size))
        return 0
    print("%s: %d of %d words differ" % (args.kind, bad.size, a.size))
    for i in bad[:8]:
        if args.kind.startswith("mma"):
            tid, e = divmod(int(i), MMA_OUT_WORDS)
            fa = np.array([a[i]], np.uint32).view(np.float32)[0]
            fb = np.array([b[i]], np.uint32).view(np.float32)[0]
            print("  thread %d D element %d: %r vs %r" % (tid, e, fa, fb))
        else:
            case, rest = divmod(int(i), THREADS * 2)
            tid, what = divmod(rest, 2)
            mode, bb, c = SHFL_CASES[case]
            print("  case %d (%s b=%s c=0x%x) thread %d %s: %d vs %d"
                  % (case, mode, "lane" if bb is None else bb, c, tid,
                     "value" if what == 0 else "predicate", a[i], b[i]))
    return 1


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("kind", choices=KINDS)
    g.add_argument("file")
    g.add_argument("--seed", type=int, default=1)
    e = sub.add_parser("expect")
    e.add_argument("kind", choices=KINDS)
    e.add_argument("input")
    e.add_argument("file")
    d = sub.add_parser("diff")
    d.add_argument("kind", choices=KINDS)
    d.add_argument("input")
    d.add_argument("a")
    d.add_argument("b")
    s = sub.add_parser("bytes", help="output size of a probe")
    s.add_argument("kind", choices=KINDS)
    args = p.parse_args(argv)
    if args.cmd == "bytes":
        print(output_bytes(args.kind))
        return 0
    return {"gen": cmd_gen, "expect": cmd_expect, "diff": cmd_diff}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
