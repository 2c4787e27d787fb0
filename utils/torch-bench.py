"""Times ssd_torch.chunk_scan_varlen_ (docs/performance.md, "PyTorch op").

    PYTHONPATH=build/python_packages /usr/bin/python3 utils/torch-bench.py \
        [--threads N] [--reps N] [--batch 16,64,256]

1. Call overhead: a decode step at H=2 P=16 N=16 G=1, batch 1 (the kernel's
   own work is a few hundred flops), through the Python wrapper and through
   torch.ops.ssd.chunk_scan_varlen_ directly; compare with
   `ssd-bench --H 2 --P 16 --N 16 --G 1 --form serial --case decode:1`, the
   same kernel called from C++.
2. Decode at Mamba2-2.7B shapes (H=80 P=64 N=128 G=1, f32, D, dt_bias,
   has_initial_state, slot b for sequence b of a pool of batch slots), as
   `ssd-bench --model mamba2 --form serial --case decode:B` runs it.
Each number is the best of --reps timed calls after a warm-up call.
"""

import argparse
import time

import torch

import ssd_torch


def inputs(batch, H, P, N, G):
    g = torch.Generator().manual_seed(0)
    return dict(
        x=torch.randn(batch, H, P, generator=g),
        dt=torch.empty(batch, H).uniform_(-3, -1, generator=g),
        A=-torch.empty(H).uniform_(1, 16, generator=g),
        B=torch.randn(batch, G, N, generator=g),
        C=torch.randn(batch, G, N, generator=g),
        ssm_pool=torch.randn(batch, H, P, N, generator=g),
        query_start_loc=torch.arange(batch + 1, dtype=torch.int32),
        cache_indices=torch.arange(batch, dtype=torch.int32),
        D=torch.randn(H, generator=g),
        dt_bias=-torch.rand(H, generator=g),
        has_initial_state=torch.ones(batch, dtype=torch.bool))


def best(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--batch", default="16,64,256")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print("torch %s, %d threads (torch.get_num_threads), best of %d"
          % (torch.__version__, torch.get_num_threads(), args.reps))

    a = inputs(1, 2, 16, 16, 1)
    pos = [a[k] for k in ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc",
                          "cache_indices")]
    wrapper = best(lambda: ssd_torch.chunk_scan_varlen_(
        *pos, D=a["D"], dt_bias=a["dt_bias"], has_initial_state=a["has_initial_state"],
        form="serial"), args.reps * 50)
    op = torch.ops.ssd.chunk_scan_varlen_
    direct = best(lambda: op(*pos, a["D"], a["dt_bias"], a["has_initial_state"], None,
                             "serial", None, "cpu"), args.reps * 50)
    print("call, H=2 P=16 N=16 decode:1: ssd_torch %.1f us, torch.ops %.1f us"
          % (wrapper * 1e6, direct * 1e6))

    for batch in [int(b) for b in args.batch.split(",")]:
        a = inputs(batch, 80, 64, 128, 1)
        pos = [a[k] for k in ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc",
                              "cache_indices")]
        t = best(lambda: ssd_torch.chunk_scan_varlen_(
            *pos, D=a["D"], dt_bias=a["dt_bias"],
            has_initial_state=a["has_initial_state"], form="serial"), args.reps)
        print("decode:%-4d mamba2 f32: %.3f ms/call" % (batch, t * 1e3))


if __name__ == "__main__":
    main()
