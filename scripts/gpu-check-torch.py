"""The torch leg of the GPU check (scripts/gpu-check.sh; docs/python.md,
"CUDA tensors"), run by run.sh on the GPU machine from the payload's
torch/ directory: ssd_torch's pure-Python path (no compiled extension) on
CUDA tensors, through the kernel library packed with it.

    PYTHONPATH=torch python3 torch/gpu-check-torch.py torch/libssd_kernels.so \\
        GRANITE_KEY prefill.log decode.log

1. checkpoints (with offsets), masks, D, dt_bias, a bf16 model: y and the
   pool against reference.py (the tests' float64 recurrence) within the
   tolerances of docs/overview.md, unwritten slots bit-identical; again with
   check_indices=True, bit for bit;
2. the same call captured in a CUDA graph and replayed on new inputs:
   bit-identical to the eager call, and within the reference's tolerance;
3. an int8 pool with stochastic rounding (seed as a device tensor): y
   against the reference, written rows within one code of it, the rest
   bit-identical;
4. one-line errors, pool untouched: a signature the library lacks, and an
   index rule with check_indices=True;
5. timing at the benchmark's shapes (Granite-4-H-Small's SSM), eager and
   (decode) graph replays, beside ssd-aot-run's times from the same run.

Prints one line per check and `torch: N passed, M failed`; exit 1 on a
failure, 2 when there is no CUDA torch. With SSD_GPU_CHECK_TORCH_DRY=1 and
a library of `--target gpu-emu` it runs 1, 3 and 4 on CPU tensors through
the GPU emulator (how the script itself is checked without a GPU).
"""

import os
import re
import sys
import time

import torch

dry = os.environ.get("SSD_GPU_CHECK_TORCH_DRY") == "1"
if not dry and not torch.cuda.is_available():
    print("torch: skipped (torch %s has no CUDA device here)" % torch.__version__)
    sys.exit(2)

import ssd_torch  # noqa: E402
from reference import TOLERANCES, make_inputs, reference, rel_err  # noqa: E402

library_path, granite_key, prefill_log, decode_log = sys.argv[1:5]
dev = torch.device("cpu") if dry else torch.device("cuda", torch.cuda.current_device())
lib = ssd_torch.load_kernels(library_path, None if dry else dev)
sync = (lambda: None) if dry else torch.cuda.synchronize
passed = failed = 0


def report(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("torch: %s: ok" % what)
    else:
        failed += 1
        print("torch: FAIL %s" % what)


def bits(t):
    return t.contiguous().view(torch.uint8)


def to(a, device):
    """Copies on `device` (copies on the CPU too: the op writes the pool)."""
    return {k: (v.to(device, copy=True) if isinstance(v, torch.Tensor) else v)
            for k, v in a.items()}


OPERANDS = ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc", "cache_indices")


def call(a, kw):
    return ssd_torch.chunk_scan_varlen_(*[a[k] for k in OPERANDS], D=a.get("D"),
                                        dt_bias=a.get("dt_bias"), kernels=lib, **kw)


def checkpoint_case(seed):
    seqlens = [1, 70, 5, 130, 0, 33]
    batch, K = len(seqlens), 4
    S = batch + 2 + batch * K
    a = make_inputs(seqlens, H=4, P=64, G=1, N=128, S=S, dtype=torch.bfloat16,
                    seed=seed)
    g = torch.Generator().manual_seed(seed)
    a["cache_indices"] = torch.randperm(batch + 2, generator=g)[:batch].to(torch.int32)
    ck = torch.arange(batch + 2, S, dtype=torch.int32).reshape(batch, K)
    ck[torch.rand(batch, K, generator=g) < 0.25] = -1
    kw = dict(has_initial_state=torch.tensor([True, False, True, True, True, False]),
              update_state=torch.tensor([True, True, False, True, True, True]),
              checkpoint_slots=ck, checkpoint_interval=32,
              checkpoint_offsets=torch.randint(0, 32, (batch,), generator=g,
                                               dtype=torch.int32),
              form="auto", chunk_size=64)
    return a, kw


def written_slots(a, kw, pool_out, pool_before):
    """Slots the call may write: final states and checkpoints."""
    ci = a["cache_indices"].tolist()
    update = kw.get("update_state")
    slots = {s for b, s in enumerate(ci) if s != -1 and (update is None or bool(update[b]))}
    if kw.get("checkpoint_slots") is not None:
        slots |= {s for s in kw["checkpoint_slots"].reshape(-1).tolist() if s != -1}
    return slots


def against_reference(a, kw, y, pool, pool_before_decoded, decode=None, extra_tol=0.0):
    """y and the written slots within tolerance of reference.py; the other
    slots bit-identical to `a`'s pool before the call."""
    yr, pr = reference(a["x"], a["dt"], a["A"], a["B"], a["C"], pool_before_decoded,
                       a["query_start_loc"], a["cache_indices"], a.get("D"),
                       a.get("dt_bias"), kw.get("has_initial_state"),
                       kw.get("update_state"), kw.get("checkpoint_slots"),
                       kw.get("checkpoint_offsets"), kw.get("checkpoint_interval"))
    tol = TOLERANCES[a["x"].dtype]
    errors = [rel_err(y.cpu(), yr)]
    out = decode(pool) if decode else pool.cpu()
    written = written_slots(a, kw, pool, None)
    # Slots a checkpoint names but no boundary reaches keep their bits; the
    # reference leaves them as they were too, so compare all named slots.
    for s in written:
        errors.append(rel_err(out[s], pr[s]))
    unwritten_same = all(torch.equal(bits(pool[s].cpu()), bits(a["ssm_pool"][s]))
                         for s in range(pool.shape[0]) if s not in written)
    return max(errors) <= tol + extra_tol and unwritten_same, max(errors)


a, kw = checkpoint_case(21)
gkw = to(kw, dev)


def checkpoints_check():
    """1. Checkpoints, masks, D, dt_bias."""
    ga = to(a, dev)
    gpool = ga["ssm_pool"]
    y = call(ga, gkw)
    sync()
    ok, err = against_reference(a, kw, y, gpool, a["ssm_pool"])
    report(ok, "checkpoints, masks, D, dt_bias (bf16): max rel err %.2e" % err)
    ga2 = to(a, dev)
    y2 = call(ga2, dict(gkw, check_indices=True))
    report(torch.equal(bits(y2), bits(y)) and
           torch.equal(bits(ga2["ssm_pool"]), bits(gpool)),
           "check_indices=True gives the same bits")


def graph_check():
    """2. The same call in a CUDA graph, replayed on new inputs."""
    static = to(a, dev)
    pool_init = static["ssm_pool"].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):  # warm-up: the workspace of the side stream
            static["ssm_pool"].copy_(pool_init)
            call(static, gkw)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    static["ssm_pool"].copy_(pool_init)
    with torch.cuda.graph(graph):
        y_static = call(static, gkw)
    b, _ = checkpoint_case(22)  # new x, dt, B, C, pool contents; same indices
    for k in ("x", "dt", "B", "C"):
        static[k].copy_(b[k].to(dev))
    static["ssm_pool"].copy_(b["ssm_pool"].to(dev))
    graph.replay()
    sync()
    eager = to(dict(a, **{k: b[k] for k in ("x", "dt", "B", "C", "ssm_pool")}), dev)
    y_eager = call(eager, gkw)
    sync()
    same = torch.equal(bits(y_static), bits(y_eager)) and \
        torch.equal(bits(static["ssm_pool"]), bits(eager["ssm_pool"]))
    bb = dict(a, **{k: b[k] for k in ("x", "dt", "B", "C", "ssm_pool")})
    ok, err = against_reference(bb, kw, y_static, static["ssm_pool"], b["ssm_pool"])
    report(same and ok, "CUDA graph replay on new inputs: %s the eager call, max rel "
           "err %.2e" % ("bit-identical to" if same else "DIFFERS from", err))



def int8_check():
    """3. An int8 pool with stochastic rounding, the seed a device tensor."""
    c = make_inputs([1, 9, 130, 1], H=4, P=64, G=1, N=128, dtype=torch.bfloat16,
                    seed=23)
    m = c["ssm_pool"].abs().amax(-1)
    scales = (m / 127).float()
    codes = torch.round(c["ssm_pool"] / scales[..., None]).clamp(-127, 127).to(torch.int8)
    c["ssm_pool"] = codes
    decoded = codes.double() * scales.double()[..., None]
    ckw = dict(has_initial_state=torch.tensor([True, False, True, True]),
               pool_rounding="stochastic", form="auto", chunk_size=64)
    gc = to(c, dev)
    gscales = scales.to(dev, copy=True)
    y = call(gc, dict(to(ckw, dev), ssm_pool_scales=gscales,
                      rounding_seed=torch.tensor(5, dtype=torch.int64, device=dev)))
    sync()
    ok, err = against_reference(
        c, ckw, y, gc["ssm_pool"], decoded,
        decode=lambda p: p.cpu().double() * gscales.cpu().double()[..., None],
        extra_tol=1.0 / 127)
    unwritten = [s for s in range(codes.shape[0])
                 if s not in written_slots(c, ckw, None, None)]
    ok = ok and all(torch.equal(gscales[s].cpu(), scales[s]) for s in unwritten)
    report(ok, "int8 pool, stochastic rounding: max rel err %.2e" % err)


def errors_check():
    """4. One-line errors, the pool untouched."""
    d = to(make_inputs([2, 3], H=2, P=64, G=1, N=128, seed=24), dev)
    before = d["ssm_pool"].clone()
    try:
        call(d, dict(form="serial"))
        ok, text = False, "no error"
    except RuntimeError as e:
        text = str(e)
        ok = "python3 -m ssd_torch.kernels build" in text and "\n" not in text
    report(ok and torch.equal(d["ssm_pool"], before), "missing variant: %s" % text[:160])
    e = to(a, dev)
    e["cache_indices"] = torch.tensor([4, 1, 0, 4, 2, 3], dtype=torch.int32, device=dev)
    before = e["ssm_pool"].clone()
    try:
        call(e, dict(gkw, check_indices=True))
        ok, text = False, "no error"
    except ValueError as err:
        text = str(err)
        ok = text.startswith("cache_indices: sequences 0 and 3 both write slot 4")
    report(ok and torch.equal(e["ssm_pool"], before), "check_indices=True: %s" % text[:120])


def guarded(check):
    """A check that raises fails with its error's first line; the rest run."""
    try:
        check()
    except Exception as e:  # noqa: BLE001
        report(False, "%s: %s: %s" % (check.__name__, type(e).__name__,
                                      str(e).splitlines()[0] if str(e) else ""))


for check in ([checkpoints_check, int8_check, errors_check] if dry else
              [checkpoints_check, graph_check, int8_check, errors_check]):
    guarded(check)


if dry:
    print("torch: %d passed, %d failed (dry run on the GPU emulator)" % (passed, failed))
    sys.exit(1 if failed else 0)


# 5. Timing at the benchmark's shapes, beside the AOT runner's.
def runner_times(path):
    times = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and re.fullmatch(r"\d+", f[0]) and re.fullmatch(r"\d+", f[1]):
                times[(int(f[0]), int(f[1]))] = float(f[2])
    except OSError:
        pass
    return times


m_ = re.search(r"H=(\d+) P=(\d+) G=(\d+) N=(\d+)", granite_key)
H, P, G, N = (int(v) for v in m_.groups())


def granite(batch, length):
    T = batch * length
    g = torch.Generator(device="cpu").manual_seed(7)
    t = dict(x=torch.randn(T, H, P, generator=g).bfloat16(),
             dt=torch.full((T, H), -3.0).bfloat16(),
             A=-torch.rand(H, generator=g).bfloat16() - 1,
             B=torch.randn(T, G, N, generator=g).bfloat16(),
             C=torch.randn(T, G, N, generator=g).bfloat16(),
             D=torch.randn(H, generator=g).bfloat16(),
             dt_bias=torch.zeros(H).bfloat16(),
             ssm_pool=torch.zeros(batch, H, P, N),
             query_start_loc=torch.arange(0, T + 1, length, dtype=torch.int32),
             cache_indices=torch.arange(batch, dtype=torch.int32))
    return to(t, dev), dict(has_initial_state=torch.ones(batch, dtype=torch.bool,
                                                         device=dev),
                            form="auto", chunk_size=256)


def best_of(fn, reps):
    best = 1e30
    for r in range(reps + 1):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        if r:
            best = min(best, time.perf_counter() - start)
    return best * 1e3


def timing():
    """5. Eager calls and (decode) graph replays beside ssd-aot-run."""
    prefill, decode = runner_times(prefill_log), runner_times(decode_log)
    print("torch: timing on %s, chip %s (best of reps, call + synchronize, ms) beside "
          "ssd-aot-run's" % (lib.describe_device(), lib.chip(granite_key)))
    print("torch: %8s %6s %10s %10s %10s" % ("T", "batch", "torch", "graph", "ssd-aot-run"))
    for kind, batch, length in [("prefill", 1, 8192), ("prefill", 8, 1024),
                                ("decode", 1, 1), ("decode", 32, 1), ("decode", 256, 1)]:
        t, tkw = granite(batch, length)
        eager_ms = best_of(lambda: call(t, tkw), 3 if kind == "prefill" else 10)
        graph_ms = float("nan")
        if kind == "decode":
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                call(t, tkw)
            torch.cuda.current_stream().wait_stream(s)
            gr = torch.cuda.CUDAGraph()
            with torch.cuda.graph(gr):
                call(t, tkw)
            graph_ms = best_of(gr.replay, 10)
        runner = (prefill if kind == "prefill" else decode).get((batch * length, batch))
        print("torch: %8d %6d %10.4f %10.4f %10s" % (
            batch * length, batch, eager_ms, graph_ms,
            "%.4f" % runner if runner is not None else "-"))


guarded(timing)
print("torch: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
