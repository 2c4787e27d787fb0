#!/usr/bin/python3
"""How far a long decode drifts when its state lives in a compressed pool.

  PYTHONPATH=build/python_packages utils/pool-drift.py [--steps 1024]
      [--H 80 --P 64 --N 128 --G 1] [--seed 0] [--dtype bf16]

One sequence decodes `steps` tokens, one call per token, its state read
from its pool slot and written back at every step (Mamba2-2.7B's shapes by
default, inputs in the ranges of docs/overview.md "Accuracy": A in
[-16, -1], d log-uniform in [1e-3, 1e-1], so some heads remember for
hundreds of steps). It runs once per pool type and rounding, and compares
each run with the same decode through an f32 pool, whose state is never
rounded:

  y err      max over steps |y - y_f32| / max |y_f32|
  state err  max |S - S_f32| / max |S_f32| of the final state (decoded)
  bias       mean(S - S_f32) / mean|S_f32| of the final state: nearest
             rounding may drift one way, stochastic rounding should not

Stochastic rounding runs twice: with a new seed per call (what a server
should do: successive writes of the slot draw independent bits) and with
one seed for every call (without checkpoint_offsets each step's write
holds one token, so every step draws the same bits: the rounding errors of
an element then correlate from step to step). A measurement, not a test;
docs/performance.md records its output.
"""

import argparse
import math
import sys

import torch

import ssd_torch

QMAX = {"i8": 127.0, "f8e4m3": 448.0}


def decode_f8(codes):
    c = codes.to(torch.int64)
    sign = torch.where(c & 0x80 != 0, -1.0, 1.0).double()
    e, m = (c >> 3) & 15, (c & 7).double()
    value = torch.where(e == 0, m * 2.0 ** -9,
                        (1 + m / 8) * torch.pow(2.0, (e - 7).double()))
    return sign * torch.where((c & 0x7f) == 0x7f, float("nan"), value)


def decoded(pool, scales, kind):
    if kind == "i8":
        return pool.double() * scales.double()[..., None]
    if kind == "f8e4m3":
        return decode_f8(pool) * scales.double()[..., None]
    return pool.double()


def inputs(args):
    g = torch.Generator().manual_seed(args.seed)
    T, H, P, G, N = args.steps, args.H, args.P, args.G, args.N
    dtype = {"f32": torch.float32, "bf16": torch.bfloat16,
             "f16": torch.float16}[args.dtype]
    d = torch.exp(torch.empty(T, H).uniform_(math.log(1e-3), math.log(1e-1),
                                             generator=g))
    return dict(x=torch.randn(T, H, P, generator=g).to(dtype),
                dt=d.to(dtype),
                A=torch.empty(H).uniform_(-16, -1, generator=g).to(dtype),
                B=torch.randn(T, G, N, generator=g).to(dtype),
                C=torch.randn(T, G, N, generator=g).to(dtype),
                D=torch.randn(H, generator=g).to(dtype))


def decode_run(a, kind, rounding, seeds):
    """y of every step and the final state (float64) of one decode."""
    T, H, P = a["x"].shape
    N = a["B"].shape[2]
    storage = {"f32": torch.float32, "bf16": torch.bfloat16,
               "f16": torch.float16, "i8": torch.int8,
               "f8e4m3": torch.uint8}[kind]
    pool = torch.zeros(1, H, P, N, dtype=storage)
    extra = {}
    if kind in QMAX:
        extra["ssm_pool_scales"] = torch.zeros(1, H, P)
    if kind == "f8e4m3":
        extra["pool_dtype"] = "f8e4m3"
    qsl = torch.tensor([0, 1], dtype=torch.int32)
    ci = torch.zeros(1, dtype=torch.int32)
    ys = []
    for t in range(T):
        kw = dict(extra)
        if rounding != "nearest":
            kw.update(pool_rounding="stochastic",
                      rounding_seed=seeds(t))
        y = ssd_torch.chunk_scan_varlen_(
            a["x"][t:t + 1], a["dt"][t:t + 1], a["A"], a["B"][t:t + 1],
            a["C"][t:t + 1], pool, qsl, ci, D=a["D"],
            has_initial_state=torch.tensor([t > 0]), form="serial", **kw)
        ys.append(y.double())
    scales = extra["ssm_pool_scales"][0] if kind in QMAX else None
    return torch.cat(ys), decoded(pool[0], scales, kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1024)
    ap.add_argument("--H", type=int, default=80)
    ap.add_argument("--P", type=int, default=64)
    ap.add_argument("--N", type=int, default=128)
    ap.add_argument("--G", type=int, default=1)
    ap.add_argument("--dtype", default="f32", choices=["f32", "bf16", "f16"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    a = inputs(args)
    print(f"pool-drift: {args.steps} decode steps, H={args.H} P={args.P} "
          f"N={args.N} G={args.G} model {args.dtype}, against an f32 pool")
    y_ref, s_ref = decode_run(a, "f32", "nearest", None)
    y_scale = y_ref.abs().max().item()
    s_scale = s_ref.abs().max().item()
    s_mean = s_ref.abs().mean().item()
    print(f"{'pool':8} {'rounding':22} {'y err':>10} {'state err':>10} "
          f"{'bias':>10}")
    runs = [("nearest", None), ("stochastic", lambda t: 1000 + t),
            ("stochastic-one-seed", lambda t: 1000)]
    for kind in ["bf16", "f16", "f8e4m3", "i8"]:
        for rounding, seeds in runs:
            y, s = decode_run(a, kind, rounding, seeds)
            y_err = (y - y_ref).abs().max().item() / y_scale
            s_err = (s - s_ref).abs().max().item() / s_scale
            bias = (s - s_ref).mean().item() / s_mean
            label = {"nearest": "nearest-even",
                     "stochastic": "stochastic (seed/call)",
                     "stochastic-one-seed": "stochastic (one seed)"}[rounding]
            print(f"{kind:8} {label:22} {y_err:10.3e} {s_err:10.3e} "
                  f"{bias:+10.2e}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
