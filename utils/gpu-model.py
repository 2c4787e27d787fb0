#!/usr/bin/python3
"""A modelled H200 time for the GPU kernels, from the GPU emulator's counts.

  utils/gpu-model.py [--build build] [--cases prefill,decode] [--keep DIR]
  utils/gpu-model.py --from-costs FILE --tokens T   (FILE: the counters that
      ssd-run --emulator-costs printed; '-' for stdin)

Without a GPU the speed of the kernels can only be estimated. This script
runs the real kernels (`ssd-run --target gpu-emu --emulator-costs`) on model
shapes and turns the emulator's per-kernel counts into a time:

  kernel time = max(mma flops / tensor peak,
                    DRAM sectors * 32 B / HBM bandwidth (reads of data the
                      launch wrote shortly before are L2 hits, not DRAM:
                      docs/gpu.md, "Cost counters"),
                    shared-memory wavefronts / (SMs * clock))
  call time   = sum of kernel times + launches * launch overhead

Every term is a lower bound for its kernel (the emulator prints them as
`h200 lower bounds (us)`): no latency, occupancy, instruction issue or cache
model, and mma.sync reaches less than the dense peak that wgmma does. So
the tokens/s it prints are a ceiling for these kernels, not a measurement;
the GPU check (scripts/gpu-check.sh) measures the real thing. The model
time is linear in the tokens of a prefill (every chunk does the same work),
so the long-prefill rows are extrapolated from the per-token time of the
run, and say so.

Only the standard library and NumPy (through ssdgen.py).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SSDGEN = os.path.join(HERE, "ssdgen.py")

# H200 SXM: the peaks the emulator's bounds use, and a kernel launch on a
# stream already busy with the previous kernel (CUDA graph-free launch
# overhead, a commonly measured 2-4 us; the low end, as a bound).
LAUNCH_US = 2.0
HBM_BYTES_PER_S = 4.8e12

# name, H, P, N, G, seqlens, form, dtype
CASES = {
    "prefill": [
        ("granite-4 1x2048", 128, 64, 128, 1, [2048], "chunked", "bf16"),
        ("granite-4 1x8192", 128, 64, 128, 1, [8192], "chunked", "bf16"),
        ("granite-4 8x256", 128, 64, 128, 1, [256] * 8, "chunked", "bf16"),
        ("granite-4 8x1024", 128, 64, 128, 1, [1024] * 8, "chunked", "bf16"),
        ("mamba2-2.7b 1x2048", 80, 64, 128, 1, [2048], "chunked", "bf16"),
        ("granite-4 1x2048 f32", 128, 64, 128, 1, [2048], "chunked", "f32"),
    ],
    "decode": [
        ("granite-4 decode 64", 128, 64, 128, 1, [1] * 64, "serial", "bf16"),
        ("mamba2-2.7b decode 256", 80, 64, 128, 1, [1] * 256, "serial", "bf16"),
    ],
    "mixed": [
        ("granite-4 1x1024 + 63x1", 128, 64, 128, 1, [1024] + [1] * 63,
         "auto", "bf16"),
    ],
}

KERNEL = re.compile(r"^kernel (\S+): launches (\d+)")
BOUNDS = re.compile(
    r"h200 lower bounds \(us\): tensor ([0-9.]+) dram ([0-9.]+) shared ([0-9.]+)")
DRAM = re.compile(r"dram: read sectors (\d+) written sectors (\d+)")
L2 = re.compile(r"l2: read sectors (\d+)")


def parse_costs(text):
    kernels = []
    for line in text.splitlines():
        line = line.strip()
        m = KERNEL.match(line)
        if m:
            kernels.append({"name": m.group(1), "launches": int(m.group(2)),
                            "bounds": (0.0, 0.0, 0.0), "dram": 0, "l2": 0})
            continue
        if not kernels:
            continue
        m = BOUNDS.search(line)
        if m:
            kernels[-1]["bounds"] = tuple(float(v) for v in m.groups())
        m = DRAM.search(line)
        if m:
            kernels[-1]["dram"] = 32 * (int(m.group(1)) + int(m.group(2)))
        m = L2.search(line)
        if m:
            kernels[-1]["l2"] = 32 * int(m.group(1))
    return kernels


def run_case(build, work, case):
    name, H, P, N, G, seqlens, form, dtype = case
    tag = re.sub(r"[^a-z0-9]+", "-", name.lower())
    inputs = os.path.join(work, tag, "in")
    outputs = os.path.join(work, tag, "out")
    subprocess.run([sys.executable, SSDGEN, "gen", inputs,
                    "--seqlens", ",".join(map(str, seqlens)),
                    "--H", str(H), "--P", str(P), "--N", str(N), "--G", str(G),
                    "--initial", "all", "--update", "all", "--seed", "7"],
                   check=True, stdout=subprocess.DEVNULL)
    run = subprocess.run([os.path.join(build, "bin", "ssd-run"),
                          "--inputs", inputs, "--outputs", outputs,
                          "--target", "gpu-emu", "--form", form,
                          "--dtype", dtype, "--emulator-costs"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gpu-model: {name}: ssd-run failed:\n{run.stderr}")
    kernels = parse_costs(run.stdout + run.stderr)
    if not kernels:
        sys.exit(f"gpu-model: {name}: no cost counters in ssd-run's output")
    return kernels


def call_model(kernels):
    """(launches, modelled microseconds) of one call."""
    launches = sum(k["launches"] for k in kernels)
    return launches, (sum(max(k["bounds"]) for k in kernels)
                      + launches * LAUNCH_US)


def summarize(kernels, tokens):
    launches, model = call_model(kernels)
    print("MODEL, not a measurement (utils/gpu-model.py)")
    for k in kernels:
        print("  %s: launches %d, lower bounds (us) tensor %.3f dram %.3f "
              "shared %.3f" % ((k["name"], k["launches"]) + k["bounds"]))
    print("launches %d, model %.2f us, %.2fM tokens/s, DRAM %.1f KB/token, "
          "L2 reads of data written in the launch %.1f KB/token"
          % (launches, model, tokens / model,
             sum(k["dram"] for k in kernels) / tokens / 1024,
             sum(k["l2"] for k in kernels) / tokens / 1024))


def ideal_bytes(H, P, N, G, seqlens, dtype):
    """Bytes the op must move at least: x and y, B and C, dt (model dtype),
    and each sequence's state read and written once (f32 pool)."""
    element = 4 if dtype == "f32" else 2
    per_token = (2 * H * P + 2 * G * N + H) * element
    return sum(seqlens) * per_token + len(seqlens) * 2 * H * P * N * 4


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--cases", default="prefill,decode,mixed",
                    help="comma-separated: " + ",".join(CASES))
    ap.add_argument("--keep", default=None,
                    help="keep inputs and outputs under this directory")
    ap.add_argument("--from-costs", default=None,
                    help="model one run from its printed counters")
    ap.add_argument("--tokens", type=int, default=0,
                    help="with --from-costs: the run's total tokens")
    args = ap.parse_args()

    if args.from_costs:
        text = (sys.stdin.read() if args.from_costs == "-"
                else open(args.from_costs).read())
        kernels = parse_costs(text)
        if not kernels or args.tokens <= 0:
            sys.exit("gpu-model: --from-costs needs counters and --tokens > 0")
        summarize(kernels, args.tokens)
        return

    work = args.keep or tempfile.mkdtemp(prefix="ssd-gpu-model-")
    print("MODEL, not a measurement: lower bounds from the GPU emulator's "
          "counts against H200 peaks (utils/gpu-model.py)")
    header = ("| case | launches | tensor us | dram us | shared us | "
              "model us | model Mtok/s | DRAM KB/token | x ideal | "
              "L2 KB/token | bound by |")
    print(header)
    print("|" + "---|" * 11)
    runs = {}
    for group in args.cases.split(","):
        for case in CASES[group]:
            name, H, P, N, G, seqlens, form, dtype = case
            kernels = run_case(args.build, work, case)
            launches, model = call_model(kernels)
            tensor = sum(k["bounds"][0] for k in kernels)
            dram = sum(k["bounds"][1] for k in kernels)
            shared = sum(k["bounds"][2] for k in kernels)
            tokens = sum(seqlens)
            dram_bytes = sum(k["dram"] for k in kernels)
            l2_bytes = sum(k["l2"] for k in kernels)
            ideal = ideal_bytes(H, P, N, G, seqlens, dtype)
            limiter = max(("tensor", tensor), ("dram", dram),
                          ("shared", shared), key=lambda kv: kv[1])[0]
            if launches * LAUNCH_US > max(tensor, dram, shared):
                limiter = "launches"
            print(f"| {name} ({form}, {dtype}) | {launches} | {tensor:.2f} | "
                  f"{dram:.2f} | {shared:.2f} | {model:.2f} | "
                  f"{tokens / model:.1f} | {dram_bytes / tokens / 1024:.1f} | "
                  f"{dram_bytes / ideal:.2f} | {l2_bytes / tokens / 1024:.1f} | "
                  f"{limiter} |")
            if group == "prefill":
                # A shape run at two lengths (same batch): the 64k-token row
                # on the line through them, so per-call and per-sequence
                # costs (the ring, the final states) stay what they are.
                key = (name.split(" ")[0], H, P, N, G, len(seqlens), form,
                       dtype)
                runs.setdefault(key, []).append(
                    (tokens, model, dram_bytes, launches))
                if len(runs[key]) == 2:
                    (t0, m0, d0, _), (t1, m1, d1, _) = runs[key]
                    t = 65536
                    batch = len(seqlens)
                    total = m1 + (m1 - m0) / (t1 - t0) * (t - t1)
                    dram64 = d1 + (d1 - d0) / (t1 - t0) * (t - t1)
                    ideal64 = ideal_bytes(H, P, N, G, [t // batch] * batch,
                                          dtype)
                    print(f"| {key[0]} {batch}x{t // batch} ({form}, "
                          f"{dtype}), extrapolated from the two rows above | "
                          f"{launches} | | | | {total:.1f} | "
                          f"{t / total:.1f} | {dram64 / t / 1024:.1f} | "
                          f"{dram64 / ideal64:.2f} | | |")
            if (group == "prefill" and len(seqlens) == 1
                    and not any(c[0].split(" ")[0] == name.split(" ")[0]
                                and c[5] != seqlens and c[7] == dtype
                                for c in CASES["prefill"])):
                per_token = (model - launches * LAUNCH_US) / tokens
                for t in (8192, 65536):
                    total = per_token * t + launches * LAUNCH_US
                    print(f"| {name.split(' ')[0]} 1x{t} ({form}, {dtype}), "
                          f"extrapolated | {launches} | | | | {total:.1f} | "
                          f"{t / total:.1f} | | | | |")
            if group == "decode":
                ideal = len(seqlens) * H * P * N * 4 * 2
                copy_us = ideal / HBM_BYTES_PER_S * 1e6
                print(f"|   state bytes read+written once: {ideal / 1e6:.1f} MB;"
                      f" modelled DRAM traffic {dram_bytes / ideal:.2f}x that;"
                      f" a copy of those bytes at HBM peak takes "
                      f"{copy_us:.2f} us, the model {model:.2f} us "
                      f"({copy_us / model:.0%}) | | | | | | | | | | |")
    if not args.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
