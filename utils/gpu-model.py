#!/usr/bin/python3
"""A modelled H200 time for the GPU kernels, from the GPU emulator's counts.

  utils/gpu-model.py [--build build] [--cases prefill,decode] [--keep DIR]
      [--costs-dir DIR]   (keep each case's counters there; a later run
      with the same DIR models them without running the emulator)
  utils/gpu-model.py --from-costs FILE --tokens T   (FILE: the counters that
      ssd-run --emulator-costs printed; '-' for stdin)
  utils/gpu-model.py --from-costs FILE --seqlens 512,300 --P 64 --N 128
      [--form chunked] [--dtype bf16]   (the same, with the state chain's
      latency, which needs the launch's shape)
  utils/gpu-model.py --floor [--H 128 --P 64 --N 128 --G 1 --dtype bf16]
      [--heads-per-block 1,2,4,8] [--chunks-in-a-row 1,2]
      [--warps-per-sm 8,16,24,32] [--target 58]   (the least any chunked
      kernel can take under these terms: floor_terms below)
  --need MTOKS, with runs or --from-costs: what each call needs to run
      MTOKS million tokens/s, the factor its l2, shared and issue terms
      must all fall by (print_needs below)

Without a GPU the speed of the kernels can only be estimated. This script
runs the real kernels (`ssd-run --target gpu-emu --emulator-costs`) on model
shapes and turns the emulator's per-kernel counts into a time:

  terms per kernel (microseconds):
    tensor = (mma.sync flops / MMA_SYNC_FRACTION + wgmma flops)
             / dense tensor peak / fill
    dram   = DRAM sectors * 32 B / HBM bandwidth (reads of data the launch
             wrote shortly before are L2 hits, not DRAM: docs/gpu.md,
             "Cost counters")
    l2     = (sectors of global loads, stores, atomics and cp.async copies
             - DRAM sectors) * 32 B / L2 bandwidth: the L2 hits (every
             sector crosses L1 <-> L2; those from or to DRAM at the rate
             HBM moves them, which the dram term charges)
    shared = shared-memory wavefronts / (SMs * clock) / fill
    issue  = the SM cycles of the kernel's warp instructions (the
             emulator's `issue` counts per class) at 4 issues per SM per
             clock for all classes, and at each pipe's rate for its own
             (PIPES), whichever is more, / clock / fill
  clock    = 1.98 GHz for every term that counts SM cycles (tensor at
             4,096 dense flops per SM per clock, shared, issue)
  fill     = the share of the 132 SMs a launch's blocks occupy
  overlap  = min(1, resident warps per SM / WARPS_TO_OVERLAP), resident
             warps from registers and shared memory per block (ptxas -v,
             when ptxas is found; else 255 registers, labelled assumed)
  kernel   = max(terms) + (1 - overlap) * (sum(terms) - max(terms))
  chain    = the state chain's critical path, the one latency term: chunks
             in a row, each waiting for the one before (see CHAIN below);
             the kernel that runs the chain takes max(kernel, chain)
  call     = sum of kernel times + launches * launch overhead

The first model (still printed, as "max-of-3") took only the largest of
tensor, dram and shared at the dense peak, with L2 free and every SM full
and overlapping perfectly; it flattered kernels that spend L2 bandwidth or
run few warps. The terms are still optimistic in what they leave out
(latency within a block, the output's wait for C·Bᵀ tiles, instructions
the LLVM IR does not show), so the tokens/s printed (with the L2 at 5.5,
7.5 and 10 TB/s) are a ceiling for these kernels, not a measurement; the GPU check
(scripts/gpu-check.sh) measures the real thing. Every constant and its
source is below and in docs/performance.md. The model time is linear in the
tokens of a prefill (every chunk does the same work), so the long-prefill
rows are extrapolated from the per-token time of the run, and say so.

Only the standard library and NumPy (through ssdgen.py).
"""

import argparse
import collections
import itertools
import os
import re
import subprocess
import sys
import tempfile

from gpu_objects import objects

HERE = os.path.dirname(os.path.abspath(__file__))
SSDGEN = os.path.join(HERE, "ssdgen.py")

# H200 SXM: 132 SMs (the H100 whitepaper's SXM5 configuration of GH100, which
# the H200 keeps), 4.8 TB/s HBM3e (NVIDIA's H200 datasheet), and a kernel
# launch on a stream already busy with the previous kernel (CUDA graph-free
# launch overhead, a commonly measured 2-4 us; the low end, as a bound).
LAUNCH_US = 2.0
HBM_BYTES_PER_S = 4.8e12
SMS = 132
# One clock for every term that counts SM cycles (tensor, shared memory,
# instruction issue): 1.98 GHz, the GH100's maximum boost clock (NVIDIA's
# H100 SXM5 specification, 1,980 MHz; the H200 SXM is the same chip at the
# same clocks). NVIDIA's 989 TFLOP/s dense bf16 peak is 4,096 flops per SM
# per clock (512 dense FMA per tensor core, four per SM: the H100
# whitepaper) x 132 SMs at 1.83 GHz; at the model's clock the same SMs give
# 4,096 x 132 x 1.98 GHz = 1,070.5 TFLOP/s (the emulator's bound, CostTable.cpp,
# uses the same). A chip that runs tensor work below the boost clock takes
# longer than this: a bound, as every term here.
CLOCK_HZ = 1.98e9
TENSOR_FLOPS_PER_SM_CLOCK = 4096
TENSOR_FLOPS_PER_S = TENSOR_FLOPS_PER_SM_CLOCK * SMS * CLOCK_HZ
# L2 <-> SM bandwidth: NVIDIA publishes none for GH100. Public
# microbenchmarks of H100 put L2 read bandwidth between about 5.5 TB/s (Chips
# and Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023, on the
# 114-SM PCIe part) and about 10 TB/s (vendor-adjacent estimates for SXM);
# the model takes the low end, so a kernel that fits under it fits on the
# real chip, and prints the call at 7.5 and 10 TB/s beside it
# (L2_OTHER_BYTES_PER_S). These are rates of L2 hits: a sector that comes
# from DRAM crosses the L2 too, but at the rate HBM delivers it (the dram
# term), under the L2's own traffic, so the l2 term charges the sectors
# that did not come from (or go to) DRAM: the instructions' sectors less
# the launch's DRAM sectors (l2_hit_bytes).
L2_BYTES_PER_S = 5.5e12
L2_OTHER_BYTES_PER_S = (7.5e12, 10e12)
# Instruction issue (the emulator's `issue` counters: warp-level
# instructions per class, docs/gpu.md "Cost counters"). An SM has four
# schedulers that each issue one warp instruction per clock (the H100
# whitepaper's SM: four partitions, each with a warp scheduler and
# dispatch unit of 32 threads/clock), so every class shares 4 issues per SM
# per clock; each pipe also has its own rate, its lanes per SM per clock
# over 32 (the CUDA C++ Programming Guide, "Arithmetic Instructions",
# throughput table, compute capability 9.0, in results per clock per SM;
# which pipe runs what: Nsight Compute's Kernel Profiling Guide, "Pipelines"):
#   xu      16 lanes: 32-bit reciprocal, rsqrt, log2, exp2, sine, cosine
#           (the table's row: 16)
#   fma    128 lanes of 32-bit floating-point add, multiply, multiply-add;
#           integer multiplies and multiply-adds (IMAD, the address
#           arithmetic) run on its heavy half, 64 lanes (the table's 32-bit
#           integer multiply: 64): a cycle of the pipe per 4 fp32 or 2 imad
#           warp instructions
#   alu     64 lanes: other 32-bit integer add, shift, compare, logic
#           (the table: 64), and the conversions, which in these kernels
#           are nearly all f32 -> bf16/f16 packs (cvt.rn.bf16x2.f32): the
#           table's 16 a clock for "other type conversions" would put them
#           on the XU pipe, but Nsight Compute on the H200 measured that
#           pipe 8% busy in the chunk kernel, which its ex2 alone account
#           for (7.7% from the emulator's counts), and the ALU pipe 34%
#           (33% from the counts without the packs, 35% with)
#   shuffle 32 lanes: warp shuffle
#   lsu     32 lanes: loads and stores, shared and global (the whitepaper's
#           SM drawing: 8 LD/ST units per partition, 32 per SM), i.e. one
#           warp instruction per SM per clock; the bytes they move are the
#           shared and l2 terms' business
# Barriers, tensor instructions and branches take an issue slot and no
# pipe of their own here (mma's pipe is the tensor term; a barrier's cost
# is its wait, a latency the model does not price).
ISSUE_CLASSES = ("sfu", "fp32", "imad", "int", "convert", "shuffle",
                 "shared", "global", "barrier", "tensor", "branch")
ISSUES_PER_SM_CLOCK = 4
# pipe: {class: warp instructions per SM per clock}
PIPES = {"xu": {"sfu": 16 / 32},
         "fma": {"fp32": 128 / 32, "imad": 64 / 32},
         "alu": {"int": 64 / 32, "convert": 64 / 32},
         "shuffle": {"shuffle": 32 / 32},
         "lsu": {"shared": 32 / 32, "global": 32 / 32}}
# The kernels use mma.sync (the Ampere warp-level instruction) and, on
# sm_90a, some wgmma; the 989 TFLOP/s dense peak is what Hopper's warpgroup
# wgmma reaches. mma.sync is taken to reach 60% of it (an assumption in the
# range public H100 microbenchmarks report for the legacy path, to be
# replaced by the GPU check's measurement when a GPU is lent); the
# emulator's `wgmma flops` counter says which flops were wgmma's.
MMA_SYNC_FRACTION = 0.6
# Per SM on compute capability 9.0 (CUDA C++ Programming Guide, "Technical
# Specifications per Compute Capability"): 65,536 registers allocated per
# warp in units of 256, at most 255 per thread; 64 warps; 32 blocks; 228 KB
# of shared memory, of which the runtime reserves 1 KB per block.
REGISTERS_PER_SM = 65536
MAX_WARPS_PER_SM = 64
MAX_BLOCKS_PER_SM = 32
SHARED_BYTES_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024
# How many resident warps per SM let the other terms hide under the binding
# one: half of the 64 slots (an assumption: with 8 warps, one block of the
# current chunk kernel, an SM has a warp ready for only a fraction of the
# latency of a global load or an mma chain).
WARPS_TO_OVERLAP = 32
# Latency: the state chain. Bandwidth hides latency only where there is
# independent work; the chain over chunks has none, so it is priced apart.
# One L2 round trip as a chain of dependent steps sees it: public
# pointer-chasing measurements put an L2 hit at a few hundred cycles
# (Chips and Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth",
# 2023; 222-339 cycles across the SMs of an L40, arXiv 2606.22588). The
# model takes 0.6 us, about 1,200 cycles at 1.98 GHz, several times that,
# for the far L2 partition and a network loaded by every other block: a
# pessimistic figure, so that a chain that does not bind here does not
# bind on the chip.
L2_ROUND_TRIP_S = 0.6e-6
# The waiters' nanosleep backoff cap (kMaxBackoffNs, ChunkedKernels.h): a
# flag set just after a poll is seen at most this much later.
BACKOFF_CAP_S = 256e-9
# Tokens per chunk: the pipelines' default (kChunkSizeDefault), which the
# modelled runs use.
CHUNK_SIZE = 256

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
    # Speculative verify with a state per draft token: 16 sequences of 16
    # tokens as chains (written as explicit parents, so that the checkpoint
    # columns ssdgen leaves unused are the trees'), then as draft trees
    # (token_parents, depth <= 4), numbered breadth-first (most tokens
    # replay their parent's path) and depth-first. A ninth field: extra
    # `ssdgen gen` arguments; a --checkpoint-interval among them goes to
    # ssd-run too.
    "verify": [
        ("granite-4 verify 16x16 chains", 128, 64, 128, 1, [16] * 16,
         "serial", "bf16", ["--checkpoint-interval", "1", "--parents",
                            "chain"]),
        ("granite-4 verify 16x16 trees bfs", 128, 64, 128, 1, [16] * 16,
         "serial", "bf16", ["--checkpoint-interval", "1", "--parents", "tree",
                            "--parents-depth", "4", "--parents-order", "bfs"]),
        ("granite-4 verify 16x16 trees dfs", 128, 64, 128, 1, [16] * 16,
         "serial", "bf16", ["--checkpoint-interval", "1", "--parents", "tree",
                            "--parents-depth", "4", "--parents-order", "dfs"]),
    ],
    # Decode with the state in each pool type (a tenth field: extra ssd-run
    # arguments): the serial kernel reads and writes fewer bytes per state.
    "pools": [
        ("mamba2-2.7b decode 64 pool " + pool + (" stochastic" if sr else ""),
         80, 64, 128, 1, [1] * 64, "serial", "bf16", ["--pool-dtype", pool],
         ["--pool-rounding", "stochastic", "--rounding-seed", "1"] if sr
         else [])
        for pool, sr in [("f32", False), ("bf16", False), ("f16", False),
                         ("f8e4m3", False), ("i8", False), ("i8", True)]
    ],
}


def pool_state_bytes(case):
    """Bytes of one stored state element of the case's pool, with an 8-bit
    pool's row scale spread over its row of N."""
    extra = extra_gen_args(case)
    pool = extra[extra.index("--pool-dtype") + 1] if "--pool-dtype" in extra else "f32"
    element = {"f32": 4, "bf16": 2, "f16": 2, "f8e4m3": 1, "i8": 1}[pool]
    return element + (4 / case[3] if element == 1 else 0)


def extra_gen_args(case):
    """The case's extra `ssdgen gen` arguments (none for eight fields)."""
    return list(case[8]) if len(case) > 8 else []


# The planner's choices every case runs with (options of the command line).
PLAN = {"cb_in_block": False}


def extra_run_args(case):
    """The ssd-run arguments its inputs need (the checkpoint interval, the
    pool type) and the case's own (a tenth field)."""
    extra = extra_gen_args(case)
    run = []
    for flag in ("--checkpoint-interval", "--pool-dtype"):
        if flag in extra:
            i = extra.index(flag)
            run += extra[i:i + 2]
    return (run + (list(case[9]) if len(case) > 9 else [])
            + (["--cb-in-block"] if PLAN["cb_in_block"] else []))

KERNEL = re.compile(r"^kernel (\S+): launches (\d+)(?: blocks (\d+) threads (\d+))?")
GLOBAL = re.compile(r"^global\.(load|store|atomic|cp\.async): .* sectors (\d+)")
BOUNDS = re.compile(
    r"h200 lower bounds \(us\): tensor ([0-9.]+) dram ([0-9.]+) shared ([0-9.]+)")
DRAM = re.compile(r"dram: read sectors (\d+) written sectors (\d+)")
MMA_FLOPS = re.compile(r"^(wgmma|mma) flops: (\d+)")
L2 = re.compile(r"l2: read sectors (\d+)")
ISSUE = re.compile(r"issue \(warp instructions\):((?: [a-z0-9]+ \d+)+)$")


def parse_costs(text):
    kernels = []
    for line in text.splitlines():
        line = line.strip()
        m = KERNEL.match(line)
        if m:
            kernels.append({"name": m.group(1), "launches": int(m.group(2)),
                            "blocks": int(m.group(3) or 0),
                            "threads": int(m.group(4) or 0),
                            "bounds": (0.0, 0.0, 0.0), "dram": 0, "l2": 0,
                            "l2_traffic": 0, "mma flops": 0,
                            "wgmma flops": 0, "issue": {}})
            continue
        if not kernels:
            continue
        m = GLOBAL.match(line)
        if m:
            kernels[-1]["l2_traffic"] += 32 * int(m.group(2))
        m = MMA_FLOPS.match(line)
        if m:
            kernels[-1][m.group(1) + " flops"] = int(m.group(2))
        m = BOUNDS.search(line)
        if m:
            kernels[-1]["bounds"] = tuple(float(v) for v in m.groups())
        m = DRAM.search(line)
        if m:
            kernels[-1]["dram"] = 32 * (int(m.group(1)) + int(m.group(2)))
        m = L2.search(line)
        if m:
            kernels[-1]["l2"] = 32 * int(m.group(1))
        m = ISSUE.search(line)
        if m:
            fields = m.group(1).split()
            kernels[-1]["issue"] = {name: int(count) for name, count
                                    in zip(fields[::2], fields[1::2])}
    return kernels


def run_case(build, work, case, invariant=False, costs_dir=None):
    """(kernels, inputs) of one case. With `costs_dir`, the counters
    ssd-run printed are kept there (<case>.costs) and used again by a later
    run with the same directory instead of running the emulator again."""
    name, H, P, N, G, seqlens, form, dtype = case[:8]
    tag = re.sub(r"[^a-z0-9]+", "-", name.lower())
    inputs = os.path.join(work, tag, "in")
    outputs = os.path.join(work, tag, "out")
    subprocess.run([sys.executable, SSDGEN, "gen", inputs,
                    "--seqlens", ",".join(map(str, seqlens)),
                    "--H", str(H), "--P", str(P), "--N", str(N), "--G", str(G),
                    "--initial", "all", "--update", "all", "--seed", "7"]
                   + extra_gen_args(case),
                   check=True, stdout=subprocess.DEVNULL)
    saved = (os.path.join(costs_dir, tag + ("-invariant" if invariant else "")
                          + ("-cb-in-block" if PLAN["cb_in_block"] else "")
                          + ".costs") if costs_dir else None)
    if saved and os.path.exists(saved):
        with open(saved) as f:
            kernels = parse_costs(f.read())
        if kernels:
            return kernels, inputs
    run = subprocess.run([os.path.join(build, "bin", "ssd-run"),
                          "--inputs", inputs, "--outputs", outputs,
                          "--target", "gpu-emu", "--form", form,
                          "--dtype", dtype, "--emulator-costs"]
                         + (["--invariant"] if invariant else [])
                         + extra_run_args(case),
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gpu-model: {name}: ssd-run failed:\n{run.stderr}")
    kernels = parse_costs(run.stdout + run.stderr)
    if not kernels:
        sys.exit(f"gpu-model: {name}: no cost counters in ssd-run's output")
    if saved:
        os.makedirs(costs_dir, exist_ok=True)
        with open(saved, "w") as f:
            f.write(run.stdout + run.stderr)
    return kernels, inputs


def find_ptxas(given):
    """ptxas from --ptxas, CUDA_HOME/CUDA_PATH or PATH; None without one."""
    if given:
        return given if given != "none" else None
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")):
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    import shutil
    return shutil.which("ptxas")


def occupancy(kernel, resources):
    """(fill, resident warps per SM, registers, assumed) of one kernel: the
    share of the SMs its launches' blocks cover, and the warps resident on
    an SM given registers and shared memory (static and dynamic) per
    block."""
    launches = max(kernel["launches"], 1)
    blocks = kernel["blocks"] / launches
    if not kernel["blocks"]:
        return 0.0, 0, 0, False
    warps_per_block = -(-kernel["threads"] // kernel["blocks"] // 32)
    assumed = kernel["name"] not in resources
    registers, shared = resources.get(kernel["name"], (255, 0))
    registers_per_warp = -(-max(registers, 1) * 32 // 256) * 256
    per_sm = min(REGISTERS_PER_SM // (registers_per_warp * warps_per_block),
                 MAX_WARPS_PER_SM // warps_per_block, MAX_BLOCKS_PER_SM)
    if shared:
        per_sm = min(per_sm,
                     SHARED_BYTES_PER_SM // (shared + SHARED_RESERVED_PER_BLOCK))
    # A launch of fewer blocks than the SMs hold leaves slots empty.
    per_sm = max(1, min(per_sm, -(-int(blocks) // SMS)))
    return min(1.0, blocks / SMS), per_sm * warps_per_block, registers, assumed


# The state chain of one call: which kernel runs it ("chunk" or
# "after-chunk", chain_kernel), its hops, the us of one hop and of all.
Chain = collections.namedtuple("Chain", "kernel hops hop_us us")


def chain_path(P, N, seqlens, form, dtype):
    """The call's Chain, or None without one.

    Fused state passing (16-bit models) chains every chunk of the launch,
    across sequences too (one [H, P, N] state serves the whole chain): a
    hop is the waiter's poll seeing the flag (a round trip, plus up to the
    backoff cap), its read of S_prev and its write of S (P N f32 each, at
    the SM's share of the L2 bandwidth, each after a round trip), and the
    release of those stores (a round trip): in the chunk kernel, the first
    that runs mma ("chunk"). f32 models pass states in a launch of their
    own, the next with blocks ("after-chunk"): a thread walks its
    sequence's chunks, each chunk's load issued before the update of the
    one before, so a hop is
    one round trip, over the longest sequence. Only chunked sequences
    chain: every sequence in the chunked form, those of more than one
    token in a mixed launch (the modelled mixed case's prefill; the
    compiler's per-sequence threshold is not modelled)."""
    if form == "serial":
        return None
    chunked = [s for s in seqlens if s > 0 and (form == "chunked" or s > 1)]
    chunks = [-(-s // CHUNK_SIZE) for s in chunked]
    if not chunks:
        return None
    if dtype != "f32":
        state = P * N * 4
        hop = (3 * L2_ROUND_TRIP_S + BACKOFF_CAP_S
               + 2 * state / (L2_BYTES_PER_S / SMS)) * 1e6
        return Chain("chunk", sum(chunks), hop, sum(chunks) * hop)
    hop = L2_ROUND_TRIP_S * 1e6
    return Chain("after-chunk", max(chunks), hop, max(chunks) * hop)


def chain_kernel(kernels, chain):
    """The position in `kernels` of the kernel that runs `chain`: as
    chain_path names it, else (counters of other launches than expected)
    the chunk kernel, else the first kernel with blocks, so that a chain is
    never priced without being charged."""
    if not chain:
        return None
    with_blocks = [i for i, k in enumerate(kernels) if k["blocks"]]
    chunk = next((i for i in with_blocks if kernels[i]["bounds"][0] > 0),
                 None)
    if chain.kernel == "after-chunk" and chunk is not None:
        after = next((i for i in with_blocks if i > chunk), None)
        if after is not None:
            return after
    if chunk is not None:
        return chunk
    return with_blocks[0] if with_blocks else None


def l2_hit_bytes(kernel):
    """Bytes the l2 term charges: the instructions' sectors less those the
    launch moved to or from DRAM (each DRAM sector crosses the L2 once at
    least; its time is the dram term's)."""
    return max(0, kernel["l2_traffic"] - kernel["dram"])


def issue_terms(kernel, fill=1.0):
    """(us, what binds) of one kernel's instruction issue: the SM cycles
    its warp instructions need, at four issues per SM per clock for all
    classes together and at each pipe's rate for its classes, spread over
    the SMs its blocks fill."""
    counts = kernel.get("issue") or {}
    if not counts or fill <= 0:
        return 0.0, "-"
    cycles = {"dispatch": sum(counts.values())
              / (SMS * ISSUES_PER_SM_CLOCK)}
    for pipe, rates in PIPES.items():
        cycles[pipe] = sum(counts.get(c, 0) / rate
                           for c, rate in rates.items()) / SMS
    binding = max(cycles, key=cycles.get)
    return cycles[binding] / CLOCK_HZ / fill * 1e6, binding


def kernel_terms(kernel, resources, l2_bytes_per_s=None, scale=None,
                 warps=None):
    """The modelled terms (us) of one kernel and its time; `scale` (term ->
    factor) and `warps` (resident per SM) ask what the time would be with
    those terms or that occupancy (print_needs)."""
    tensor, dram, shared = kernel["bounds"]
    fill, resident, _, _ = occupancy(kernel, resources)
    warps = warps or resident
    if fill <= 0:
        return {"tensor": 0, "dram": dram, "l2": 0, "shared": 0,
                "issue": 0}, dram
    # The bound prices every flop at the dense peak; mma.sync's share at
    # MMA_SYNC_FRACTION of it.
    flops = kernel["mma flops"]
    wgmma_share = kernel["wgmma flops"] / flops if flops else 0.0
    tensor = tensor * (wgmma_share + (1 - wgmma_share) / MMA_SYNC_FRACTION)
    terms = {"tensor": tensor / fill, "dram": dram,
             "l2": l2_hit_bytes(kernel)
             / (l2_bytes_per_s or L2_BYTES_PER_S) * 1e6,
             "shared": shared / fill,
             "issue": issue_terms(kernel, fill)[0]}
    for term, factor in (scale or {}).items():
        terms[term] *= factor
    overlap = min(1.0, warps / WARPS_TO_OVERLAP)
    top = max(terms.values())
    return terms, top + (1 - overlap) * (sum(terms.values()) - top)


def call_model(kernels, resources=None, l2_bytes_per_s=None, chain=None,
               scale=None, warps=None):
    """(launches, modelled microseconds) of one call; `chain` from
    chain_path; `scale` and `warps` as kernel_terms takes them, for every
    kernel."""
    launches = sum(k["launches"] for k in kernels)
    total = 0.0
    chained = chain_kernel(kernels, chain)
    for i, k in enumerate(kernels):
        time = kernel_terms(k, resources or {}, l2_bytes_per_s, scale,
                            warps)[1]
        if i == chained:
            time = max(time, chain.us)
        total += time
    return launches, total + launches * LAUNCH_US


def max_of_three(kernels):
    """The first model: the largest emulator bound per kernel (us)."""
    launches = sum(k["launches"] for k in kernels)
    return sum(max(k["bounds"]) for k in kernels) + launches * LAUNCH_US


# The terms a kernel's design sets: the bytes it moves through the L2, its
# shared-memory wavefronts, its instructions. The tensor flops and the
# DRAM bytes are the algorithm's and the call's (every kernel of the form
# has them; the DRAM bytes are already within a few percent of the ideal),
# and so is the state chain's latency.
DESIGN_TERMS = ("l2", "shared", "issue")


def needed_scale(kernels, resources, chain, budget_us, terms=DESIGN_TERMS,
                 warps=None):
    """The factor by which `terms` of every kernel must all fall for the
    call to take budget_us under the model: 1.0 where it already does, None
    where it does not even with those terms at zero. The call's time rises
    with the factor, so a bisection finds it (to 1e-6)."""
    def call_us(factor):
        return call_model(kernels, resources, chain=chain,
                          scale={t: factor for t in terms},
                          warps=warps)[1]
    if call_us(1.0) <= budget_us:
        return 1.0
    if call_us(0.0) > budget_us:
        return None
    low, high = 0.0, 1.0
    while high - low > 1e-6:
        middle = (low + high) / 2
        if call_us(middle) <= budget_us:
            low = middle
        else:
            high = middle
    return low


def print_needs(label, kernels, resources, chain, tokens, target):
    """What the model says a call needs to run `target` Mtokens/s: the
    factor its design terms must all fall by, at the kernels' own
    occupancy and with every kernel at WARPS_TO_OVERLAP warps per SM (all
    terms hidden under the binding one), and whether any one term alone
    could get there at the kernels' own occupancy."""
    budget = tokens / target
    now = call_model(kernels, resources, chain=chain)[1]
    floor = call_model(kernels, resources, chain=chain,
                       scale={t: 0.0 for t in DESIGN_TERMS})[1]
    print("NEEDS of the MODEL for %gM tokens/s, %s: %.2f us a call (the "
          "model now %.2f us; %.2f us with l2, shared and issue at zero: "
          "tensor, dram, the state chain and launches)"
          % (target, label, budget, now, floor))

    def summed(factor):
        return ", ".join(
            "%s %.2f" % (t, factor * sum(kernel_terms(k, resources)[0][t]
                                         for k in kernels))
            for t in DESIGN_TERMS)

    for warps, where in ((None, "at the kernels' own warps/SM"),
                         (WARPS_TO_OVERLAP, "at %d warps/SM in every kernel"
                          % WARPS_TO_OVERLAP)):
        factor = needed_scale(kernels, resources, chain, budget, warps=warps)
        if factor is None:
            print("  %s: out of reach, whatever l2, shared and issue cost"
                  % where)
        elif factor >= 1.0:
            print("  %s: met as the kernels are" % where)
        else:
            print("  %s: l2, shared and issue each x%.3f (%s us summed over "
                  "the kernels)" % (where, factor, summed(factor)))
    for term in DESIGN_TERMS:
        if not any(kernel_terms(k, resources)[0][term] for k in kernels):
            continue  # nothing of it to take away
        factor = needed_scale(kernels, resources, chain, budget, (term,))
        if factor is None:
            print("  %s alone: not enough (%.2f us with it at zero)"
                  % (term, call_model(kernels, resources, chain=chain,
                                      scale={term: 0.0})[1]))
        elif factor < 1.0:
            print("  %s alone: x%.3f" % (term, factor))


# Columns of the table of runs.
COLUMNS = 19 + len(L2_OTHER_BYTES_PER_S)


def summarize(kernels, tokens, resources=None, chain=None,
              shape_given=False):
    resources = resources or {}
    launches, model = call_model(kernels, resources, chain=chain)
    print("MODEL, not a measurement (utils/gpu-model.py)")
    if chain:
        print("  state chain: %d hops of %.3f us, %.3f us"
              % (chain.hops, chain.hop_us, chain.us))
    elif shape_given:
        print("  state chain: none (no chunked sequence)")
    else:
        print("  state chain: not priced (no --seqlens)")
    chained = chain_kernel(kernels, chain)
    for i, k in enumerate(kernels):
        terms, time = kernel_terms(k, resources)
        fill, warps, registers, assumed = occupancy(k, resources)
        print("  %s: launches %d, terms (us) tensor %.3f dram %.3f l2 %.3f "
              "shared %.3f issue %.3f; SM fill %.2f, %d warps/SM (%d "
              "registers%s); %.3f us%s"
              % (k["name"], k["launches"], terms["tensor"], terms["dram"],
                 terms["l2"], terms["shared"], terms["issue"], fill, warps,
                 registers, ", assumed" if assumed else "", time,
                 "; runs the chain: %.3f us" % max(time, chain.us)
                 if i == chained else ""))
        if k["issue"]:
            print("    issue: %d warp instructions (%s), %.1f per token; "
                  "bound by %s"
                  % (sum(k["issue"].values()),
                     " ".join("%s %d" % (c, k["issue"].get(c, 0))
                              for c in ISSUE_CLASSES),
                     sum(k["issue"].values()) / tokens,
                     issue_terms(k, fill)[1]))
    print("launches %d, model %.2f us, %.2fM tokens/s (max-of-3 model %.2f "
          "us), DRAM %.1f KB/token, L2 traffic %.1f KB/token (L2 hits "
          "charged %.1f), L2 reads of data written in the launch %.1f "
          "KB/token"
          % (launches, model, tokens / model, max_of_three(kernels),
             sum(k["dram"] for k in kernels) / tokens / 1024,
             sum(k["l2_traffic"] for k in kernels) / tokens / 1024,
             sum(l2_hit_bytes(k) for k in kernels) / tokens / 1024,
             sum(k["l2"] for k in kernels) / tokens / 1024))
    print("L2 at " + ", ".join(
        "%.1f TB/s: %.2fM tokens/s"
        % (rate / 1e12,
           tokens / call_model(kernels, resources, rate, chain)[1])
        for rate in (L2_BYTES_PER_S,) + L2_OTHER_BYTES_PER_S))


def ptxas_resources(build, inputs, form, dtype, ptxas, chip="sm_90a",
                    invariant=False, run_args=()):
    """{kernel: (registers, shared bytes)} from `ptxas -v` on the PTX
    --ssd-to-nvvm makes of the module ssd-run compiles for `inputs` (static
    shared memory), plus the dynamic shared memory its launch asks for."""
    ir = subprocess.run([os.path.join(build, "bin", "ssd-run"), "--inputs",
                         inputs, "--print-ir", "--dtype", dtype]
                        # The plan's choices go to the pipeline below.
                        + [a for a in run_args if a != "--cb-in-block"],
                        capture_output=True, text=True, check=True).stdout
    lowered = subprocess.run(
        [os.path.join(build, "bin", "ssd-opt"), "-",
         "--ssd-to-nvvm=chip=%s format=isa form=%s invariant=%s%s"
         % (chip, form, "true" if invariant else "false",
            " cb-in-block=true" if PLAN["cb_in_block"] else "")],
        input=ir, capture_output=True, text=True, check=True).stdout
    # The emulator names a kernel after its gpu.module (the binary), whose
    # entry function may carry another name: key by the binary.
    resources = {}
    # Dynamic shared memory (arenas over ptxas's 48 KiB static limit) is
    # not in `ptxas -v`: it is the launch's operand, a constant of the
    # host function that launches the kernel.
    dynamic = {}
    for launch in re.finditer(r"gpu\.launch_func .*?@(\w+)::@\w+ .*?"
                              r"dynamic_shared_memory_size (%\w+)", lowered):
        host = lowered[:launch.start()].rfind("llvm.func")
        c = re.search(re.escape(launch.group(2)) +
                      r" = llvm\.mlir\.constant\((\d+) : i32\)",
                      lowered[host:launch.start()])
        if c:
            dynamic[launch.group(1)] = max(dynamic.get(launch.group(1), 0),
                                           int(c.group(1)))
    with tempfile.TemporaryDirectory() as scratch:
        for name, position, ptx in objects(lowered, "assembly"):
            if position:
                continue
            path = os.path.join(scratch, name + ".ptx")
            with open(path, "w") as f:
                f.write(ptx)
            info = subprocess.run([ptxas, "-arch=" + chip, "-v", path, "-o",
                                   os.devnull], capture_output=True, text=True)
            for line in (info.stdout + info.stderr).splitlines():
                u = re.search(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?",
                              line)
                if u:
                    registers, shared = resources.get(name, (0, 0))
                    resources[name] = (
                        max(registers, int(u.group(1))),
                        max(shared, int(u.group(2) or 0)))
    for name, bytes_ in dynamic.items():
        registers, shared = resources.get(name, (255, 0))
        resources[name] = (registers, shared + bytes_)
    return resources


def ideal_bytes(H, P, N, G, seqlens, dtype, state_element=4):
    """Bytes the op must move at least: x and y, B and C, dt (model dtype),
    and each sequence's state read and written once (`state_element` bytes
    per element: 4 for an f32 pool)."""
    element = 4 if dtype == "f32" else 2
    per_token = (2 * H * P + 2 * G * N + H) * element
    return (sum(seqlens) * per_token
            + len(seqlens) * 2 * H * P * N * state_element)


# The floor (--floor): what the model allows any kernel of the chunked form
# at a shape, from the work and the traffic its math cannot avoid, per
# token of a long prefill (the per-sequence state reads and writes amortize
# away). A block serves m heads of one group for c chunks in a row: it
# stages a chunk's B and C once and reads each C·Bᵀ piece once for its m
# heads, and passes the state through L2 once per c chunks (keeping it
# on the SM from one of its chunks to the next; today's kernels: m = c =
# 1).
# Shared-memory time is left out (0), every flop runs at the dense peak, and
# each bound is the least the form can move, so a kernel is at or above
# every figure here.
Floor = collections.namedtuple(
    "Floor", "tensor_s dram_s l2_s l2_bytes x_resident_bytes")


def floor_terms(H, P, N, G, dtype, m, c=1, chunk=CHUNK_SIZE):
    """Per-token lower bounds of one shape with m heads per block, c chunks
    in a row.

    tensor: per head dS = Xw^T B and C S_prev^T (2 P N flops a token each)
            and the causal (C B^T o decay) x, sum over rows i of (i + 1) 2 P
            flops, (L + 1) P a token; per group C B^T's causal half,
            (L + 1) N; f32 models multiply by three (high/low halves).
    dram:   x and y, B and C, dt once (ideal_bytes without the states).
    l2:     x read once (resident in the block) and y written once, dt;
            B and C staged once per block of m heads (H / m blocks a
            chunk), and once by the group's C B^T blocks; the C B^T
            pieces (causal half, (L + 1) / 2 a token, the model element)
            written once per group and read once per block; the state
            chain's f32 P x N read and written once per c chunks and
            head. The time charges the L2 hits, these bytes less the DRAM
            bytes (which cross the L2 at the dram term's rate).
    x_resident_bytes: the block's m heads' x for a whole chunk, which
            "read once" keeps in shared memory; where that is more than a
            block may have, x is read twice (once for dS, once for y) and
            x_resident_bytes is None."""
    e = 4 if dtype == "f32" else 2
    L = chunk
    flops = H * (4 * P * N + (L + 1) * P) + G * (L + 1) * N
    if dtype == "f32":
        flops *= 3
    dram = (2 * H * P + 2 * G * N + H) * e
    blocks = H / m
    pieces = (L + 1) / 2 * e
    x_resident = m * L * P * e
    if x_resident > SHARED_BYTES_PER_SM - SHARED_RESERVED_PER_BLOCK:
        x_resident = None
    l2 = ((2 if x_resident else 3) * H * P * e + H * e
          + 2 * N * e * (blocks + G)
          + pieces * (blocks + G)
          + 2 * P * N * 4 * H / (L * c))
    return Floor(flops / TENSOR_FLOPS_PER_S, dram / HBM_BYTES_PER_S,
                 (l2 - dram) / L2_BYTES_PER_S, l2, x_resident)


def overlapped(terms, warps):
    """The model's kernel time from its terms at `warps` per SM."""
    overlap = min(1.0, warps / WARPS_TO_OVERLAP)
    top = max(terms)
    return top + (1 - overlap) * (sum(terms) - top)


def print_floor(shapes, heads_per_block, chunks_per_block, warps_per_sm,
                target):
    print("FLOOR of the MODEL, not a measurement: the least any chunked "
          "kernel can take under utils/gpu-model.py's terms (shared memory "
          "free, every flop at the dense peak, L2 at %.1f TB/s, overlap "
          "min(1, warps/SM / %d)), per token of a long prefill"
          % (L2_BYTES_PER_S / 1e12, WARPS_TO_OVERLAP))
    print("| shape | heads/block | chunks in a row | L2 KB/token | x resident KB/block | "
          "tensor ns | dram ns | l2 ns | " +
          " | ".join("Mtok/s at %d warps/SM (%d registers)"
                     % (w, register_cap(w)) for w in warps_per_sm) +
          " | warps/SM for %gM tok/s |" % target)
    print("|" + "---|" * (9 + len(warps_per_sm)))
    for name, H, P, N, G, dtype in shapes:
        for m, c in itertools.product(heads_per_block, chunks_per_block):
            if (H // G) % m:
                continue
            f = floor_terms(H, P, N, G, dtype, m, c)
            terms = (f.tensor_s, f.dram_s, f.l2_s)
            rates = ["%.1f" % (1e-6 / overlapped(terms, w))
                     for w in warps_per_sm]
            need = next((w for w in range(1, MAX_WARPS_PER_SM + 1)
                         if 1e-6 / overlapped(terms, w) >= target), None)
            print(f"| {name} ({dtype}) | {m} | {c} | "
                  f"{f.l2_bytes / 1024:.1f} | "
                  + ("%.0f" % (f.x_resident_bytes / 1024)
                     if f.x_resident_bytes else "does not fit: x read twice")
                  + " | "
                  f"{f.tensor_s * 1e9:.2f} | {f.dram_s * 1e9:.2f} | "
                  f"{f.l2_s * 1e9:.2f} | " + " | ".join(rates) +
                  f" | {need if need else 'none'} |")


def register_cap(warps):
    """Registers a thread may hold with `warps` resident per SM (allocated
    per warp in units of 256, so per thread in multiples of 8)."""
    return min(255, REGISTERS_PER_SM // (32 * warps) // 8 * 8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--cases", default="prefill,decode,mixed,verify",
                    help="comma-separated: " + ",".join(CASES))
    ap.add_argument("--keep", default=None,
                    help="keep inputs and outputs under this directory")
    ap.add_argument("--costs-dir", default=None,
                    help="keep each case's counters here and use them "
                    "again instead of running the emulator (delete a file "
                    "to run its case again)")
    ap.add_argument("--from-costs", default=None,
                    help="model one run from its printed counters")
    ap.add_argument("--tokens", type=int, default=0,
                    help="with --from-costs: the run's total tokens")
    ap.add_argument("--seqlens", default=None,
                    help="with --from-costs: comma-separated sequence "
                    "lengths, to price the state chain")
    ap.add_argument("--P", type=int, default=0, help="with --seqlens")
    ap.add_argument("--N", type=int, default=0, help="with --seqlens")
    ap.add_argument("--form", default="chunked",
                    choices=["chunked", "serial", "auto"],
                    help="with --seqlens (auto: sequences of more than one "
                    "token count as chunked)")
    ap.add_argument("--dtype", default="bf16",
                    choices=["bf16", "f16", "f32"], help="with --seqlens")
    ap.add_argument("--ptxas", default=None,
                    help="ptxas for registers and shared memory per kernel "
                    "(default: CUDA_HOME, CUDA_PATH or PATH; 'none': assume "
                    "255 registers)")
    ap.add_argument("--invariant", action="store_true",
                    help="model the cases' ops marked invariant (one "
                    "token-serial kernel whatever the form)")
    ap.add_argument("--only", default=None,
                    help="comma-separated case names (e.g. 'granite-4 1x2048'): "
                    "run only these")
    ap.add_argument("--cb-in-block", action="store_true",
                    help="plan the chunked cases with C·Bᵀ in the chunk "
                    "kernel's state blocks (ssd-run --cb-in-block; its "
                    "--costs-dir files end in -cb-in-block)")
    ap.add_argument("--need", type=float, default=0.0, metavar="MTOKS",
                    help="also print what each modelled call needs to run "
                    "this many Mtokens/s: the factor its l2, shared and "
                    "issue terms must fall by, and whether one alone "
                    "suffices (default 0: not printed)")
    ap.add_argument("--floor", action="store_true",
                    help="print the model's floor per heads per block and "
                    "warps per SM (no runs): the prefill shapes, or the one "
                    "of --H --P --N --G --dtype")
    ap.add_argument("--H", type=int, default=0, help="with --floor")
    ap.add_argument("--G", type=int, default=1, help="with --floor")
    ap.add_argument("--heads-per-block", default="1,2,4,8",
                    help="with --floor: comma-separated")
    ap.add_argument("--chunks-in-a-row", default="1,2",
                    help="with --floor: comma-separated")
    ap.add_argument("--warps-per-sm", default="8,16,24,32",
                    help="with --floor: comma-separated")
    ap.add_argument("--target", type=float, default=58.0,
                    help="with --floor: Mtokens/s whose warps/SM to find")
    args = ap.parse_args()
    PLAN["cb_in_block"] = args.cb_in_block
    if args.cb_in_block and args.invariant:
        sys.exit("gpu-model: --cb-in-block plans the chunked kernels, which "
                 "--invariant does not run")
    if args.floor:
        lists = {}
        for flag in ("heads_per_block", "chunks_in_a_row", "warps_per_sm"):
            try:
                lists[flag] = [int(v) for v in getattr(args, flag).split(",")]
            except ValueError:
                lists[flag] = []
            if not lists[flag] or min(lists[flag]) < 1:
                sys.exit("gpu-model: --%s needs comma-separated integers >= 1"
                         % flag.replace("_", "-"))
        if args.target <= 0:
            sys.exit("gpu-model: --target needs a positive Mtokens/s")
        if args.H or args.P or args.N:
            if min(args.H, args.P, args.N, args.G) <= 0:
                sys.exit("gpu-model: --floor with a shape needs --H, --P, "
                         "--N and --G > 0")
            shapes = [("H%d P%d N%d G%d" % (args.H, args.P, args.N, args.G),
                       args.H, args.P, args.N, args.G, args.dtype)]
        else:
            shapes = []
            for name, H, P, N, G, _, _, dtype in CASES["prefill"]:
                shape = (name.split(" ")[0], H, P, N, G, dtype)
                if shape not in shapes:
                    shapes.append(shape)
        print_floor(shapes, lists["heads_per_block"],
                    lists["chunks_in_a_row"], lists["warps_per_sm"],
                    args.target)
        return
    if not args.need >= 0:  # negative or NaN; 0, the default, is off
        sys.exit("gpu-model: --need needs a positive Mtokens/s")
    ptxas = find_ptxas(args.ptxas)

    if args.from_costs:
        text = (sys.stdin.read() if args.from_costs == "-"
                else open(args.from_costs).read())
        kernels = parse_costs(text)
        chain = None
        tokens = args.tokens
        if args.seqlens:
            seqlens = [int(v) for v in args.seqlens.split(",")]
            if args.P <= 0 or args.N <= 0 or min(seqlens) < 0:
                sys.exit("gpu-model: --seqlens needs --P and --N > 0 and "
                         "lengths >= 0")
            chain = chain_path(args.P, args.N, seqlens, args.form,
                               args.dtype)
            tokens = tokens or sum(seqlens)
        if not kernels or tokens <= 0:
            sys.exit("gpu-model: --from-costs needs counters and --tokens > 0")
        summarize(kernels, tokens, chain=chain,
                  shape_given=bool(args.seqlens))
        if args.need > 0:
            print_needs("this run", kernels, {}, chain, tokens, args.need)
        return

    work = args.keep or tempfile.mkdtemp(prefix="ssd-gpu-model-")
    print("MODEL, not a measurement: the GPU emulator's counts against H200 "
          "peaks, L2 at %.1f TB/s, mma.sync at %.0f%% of the dense peak, "
          "overlap from occupancy (utils/gpu-model.py); registers from %s"
          % (L2_BYTES_PER_S / 1e12, MMA_SYNC_FRACTION * 100,
             ptxas if ptxas else "nowhere (no ptxas: 255 assumed)"))
    header = ("| case | launches | tensor us | dram us | l2 us | shared us | "
              "issue us | warp instructions/token | chain us | warps/SM | "
              "max-of-3 us | max-of-3 Mtok/s | model us | model Mtok/s | " +
              " | ".join("model Mtok/s at L2 %.1f TB/s" % (rate / 1e12)
                         for rate in L2_OTHER_BYTES_PER_S) +
              " | DRAM KB/token | x ideal | L2 KB/token | L2 hits KB/token | "
              "bound by |")
    print(header)
    print("|" + "---|" * COLUMNS)
    runs = {}
    needs = []
    mode = " invariant" if args.invariant else ""
    for group in args.cases.split(","):
        for case in CASES[group]:
            name, H, P, N, G, seqlens, form, dtype = case[:8]
            if args.only and name not in args.only.split(","):
                continue
            kernels, inputs = run_case(args.build, work, case,
                                       args.invariant, args.costs_dir)
            resources = (ptxas_resources(args.build, inputs, form, dtype, ptxas,
                                         invariant=args.invariant,
                                         run_args=extra_run_args(case))
                         if ptxas else {})
            # An invariant op runs the token-serial kernel whatever its form:
            # its state chain is the serial one.
            chain = chain_path(P, N, seqlens,
                               "serial" if args.invariant else form, dtype)
            launches, model = call_model(kernels, resources, chain=chain)
            if args.need > 0:
                needs.append(("%s (%s%s, %s)" % (name, form, mode, dtype),
                              kernels, resources, chain, sum(seqlens)))
            old = max_of_three(kernels)
            terms = {"tensor": 0.0, "dram": 0.0, "l2": 0.0, "shared": 0.0,
                     "issue": 0.0}
            # The pipe (or the dispatch) that binds the issue of the kernel
            # with the most issue time.
            issue_pipe, issue_top = "-", 0.0
            for k in kernels:
                for key, value in kernel_terms(k, resources)[0].items():
                    terms[key] += value
                us, pipe = issue_terms(k, occupancy(k, resources)[0])
                if us > issue_top:
                    issue_pipe, issue_top = pipe, us
            others = [call_model(kernels, resources, rate, chain)[1]
                      for rate in L2_OTHER_BYTES_PER_S]
            instructions = sum(sum(k["issue"].values()) for k in kernels)
            chain_us = "%.2f" % chain.us if chain else "-"
            warps = "/".join(
                "%d%s" % (occupancy(k, resources)[1],
                          "*" if occupancy(k, resources)[3] else "")
                for k in kernels if k["blocks"])
            tokens = sum(seqlens)
            dram_bytes = sum(k["dram"] for k in kernels)
            l2_bytes = sum(k["l2_traffic"] for k in kernels)
            l2_hits = sum(l2_hit_bytes(k) for k in kernels)
            ideal = ideal_bytes(H, P, N, G, seqlens, dtype,
                                pool_state_bytes(case))
            limiter = max(terms.items(), key=lambda kv: kv[1])[0]
            if launches * LAUNCH_US > max(terms.values()):
                limiter = "launches"
            if chain and chain.us > max(terms.values()):
                limiter = "chain"
            if limiter == "issue":
                limiter = "issue (%s)" % issue_pipe
            print(f"| {name} ({form}{mode}, {dtype}) | {launches} | "
                  f"{terms['tensor']:.2f} | {terms['dram']:.2f} | "
                  f"{terms['l2']:.2f} | {terms['shared']:.2f} | "
                  f"{terms['issue']:.2f} | {instructions / tokens:.0f} | "
                  f"{chain_us} | {warps} | "
                  f"{old:.2f} | {tokens / old:.1f} | {model:.2f} | "
                  f"{tokens / model:.1f} | "
                  + " | ".join(f"{tokens / m:.1f}" for m in others) + " | "
                  f"{dram_bytes / tokens / 1024:.1f} | "
                  f"{dram_bytes / ideal:.2f} | {l2_bytes / tokens / 1024:.1f} | "
                  f"{l2_hits / tokens / 1024:.1f} | {limiter} |")
            if group == "prefill":
                # A shape run at two lengths (same batch): the 64k-token row
                # on the line through them, so per-call and per-sequence
                # costs (the ring, the final states) stay what they are.
                key = (name.split(" ")[0], H, P, N, G, len(seqlens), form,
                       dtype)
                runs.setdefault(key, []).append(
                    (tokens, model, dram_bytes, launches, old))
                if len(runs[key]) == 2:
                    (t0, m0, d0, _, o0), (t1, m1, d1, _, o1) = runs[key]
                    t = 65536
                    batch = len(seqlens)
                    total = m1 + (m1 - m0) / (t1 - t0) * (t - t1)
                    total_old = o1 + (o1 - o0) / (t1 - t0) * (t - t1)
                    dram64 = d1 + (d1 - d0) / (t1 - t0) * (t - t1)
                    ideal64 = ideal_bytes(H, P, N, G, [t // batch] * batch,
                                          dtype)
                    # The chain does not grow with the line: at 64k tokens
                    # it is priced again, and bounds the call from below.
                    chain64 = chain_path(P, N, [t // batch] * batch, form,
                                         dtype)
                    if chain64:
                        total = max(total, chain64.us + launches * LAUNCH_US)
                    print(f"| {key[0]} {batch}x{t // batch} ({form}{mode}, "
                          f"{dtype}), extrapolated from the two rows above | "
                          f"{launches} | | | | | | | "
                          f"{'%.1f' % chain64.us if chain64 else ''} | | "
                          f"{total_old:.1f} | "
                          f"{t / total_old:.1f} | {total:.1f} | "
                          f"{t / total:.1f} | | | {dram64 / t / 1024:.1f} | "
                          f"{dram64 / ideal64:.2f} | | | |")
            if (group == "prefill" and len(seqlens) == 1
                    and not any(c[0].split(" ")[0] == name.split(" ")[0]
                                and c[5] != seqlens and c[7] == dtype
                                for c in CASES["prefill"])):
                per_token = (model - launches * LAUNCH_US) / tokens
                for t in (8192, 65536):
                    total = per_token * t + launches * LAUNCH_US
                    chain_t = chain_path(P, N, [t], form, dtype)
                    if chain_t:
                        total = max(total, chain_t.us + launches * LAUNCH_US)
                    print(f"| {name.split(' ')[0]} 1x{t} ({form}{mode}, {dtype}), "
                          f"extrapolated | {launches} | | | | | | | "
                          f"{'%.1f' % chain_t.us if chain_t else ''} | | | | "
                          f"{total:.1f} | {t / total:.1f} | | | | | | | |")
            if group == "verify":
                runs[name] = model
                chains = runs.get("granite-4 verify 16x16 chains")
                if name.endswith("trees dfs") and chains:
                    bfs = runs.get("granite-4 verify 16x16 trees bfs", 0.0)
                    print(f"|   draft trees take {bfs / chains:.2f}x "
                          f"(breadth-first) and {model / chains:.2f}x "
                          f"(depth-first) the chains' modelled time |"
                          + " |" * (COLUMNS - 1))
            if group in ("decode", "pools"):
                ideal = len(seqlens) * H * P * N * 2 * pool_state_bytes(case)
                copy_us = ideal / HBM_BYTES_PER_S * 1e6
                print(f"|   state bytes read+written once: {ideal / 1e6:.1f} MB;"
                      f" modelled DRAM traffic {dram_bytes / ideal:.2f}x that;"
                      f" a copy of those bytes at HBM peak takes "
                      f"{copy_us:.2f} us, the model {model:.2f} us "
                      f"({copy_us / model:.0%}) |" + " |" * (COLUMNS - 1))
    for need in needs:
        print_needs(*need, args.need)
    if not args.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
