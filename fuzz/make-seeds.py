#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets from the test inputs.

  make-seeds.py npy OUTDIR   input sets of ssd-run: directories written by
                             utils/ssdgen.py (valid ones of many shapes and
                             options, and every broken kind of `ssdgen bad`),
                             packed in ssd-npy-fuzzer's input format
  make-seeds.py pool OUTDIR  input sets with compressed pools (every
                             --pool-dtype of ssdgen gen, and the ps-* bad
                             kinds), packed in ssd-pool-fuzzer's format
  make-seeds.py ir OUTDIR    every ssd op of the test and example .mlir files:
                             each split-input-file case on its own

Nothing here is committed: scripts/fuzz.sh writes the seeds afresh for every
run, so they follow the tests. Only the standard library and NumPy (through
ssdgen).
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SSDGEN = os.path.join(ROOT, "utils", "ssdgen.py")
# The file order of ssd-npy-fuzzer (kFiles in npy-loader-fuzzer.cpp).
FILES = ["x", "dt", "A", "B", "C", "D", "dt_bias", "ssm_pool",
         "query_start_loc", "cache_indices", "has_initial_state",
         "update_state", "checkpoint_slots", "checkpoint_offsets",
         "token_parents"]

# ssdgen gen arguments: the shapes and options the numeric tests use.
GEN = [
    "--seqlens 5,0,17,1,8,30 --seed 1",
    "--seqlens 9,1,0,24,7 --float16-files --seed 2",
    "--seqlens 3,5 --no-D --no-dt-bias --initial absent --update absent --ci-shape 2d --ci-dtype uint32",
    "--seqlens 3,3,2,4,1,3 --tree --seed 31",
    "--seqlens 6,9,1,0,12 --padding 0,2,4 --initial all --update all --seed 23",
    "--seqlens 0,0,0,0 --seed 8",
    "--seqlens= --seed 10",
    "--seqlens 1,1,1,1 --H 2 --P 3 --N 5 --G 1 --slots 4 --seed 3",
    "--seqlens 2,7 --H 6 --G 3 --large-dt 0.25 --seed 11",
    "--seqlens 0 --padding all --slots 0 --H 1 --P 1 --N 7 --G 1",
    "--seqlens 5,0,9,4 --checkpoint-interval 2 --checkpoint-offsets random --checkpoint-unused --padding 1 --seed 12",
    "--seqlens 3,7 --checkpoint-interval 1 --checkpoint-k 4 --checkpoint-slots-dtype uint32 --seed 13",
]


def pack(directory, options):
    """One input of ssd-npy-fuzzer: the options byte, then a record per file."""
    out = bytearray([options])
    for index, name in enumerate(FILES):
        path = os.path.join(directory, name + ".npy")
        if os.path.exists(path):
            data = open(path, "rb").read()
            out += struct.pack("<BI", index, len(data)) + data
    return bytes(out)


def npy_seeds(outdir):
    os.makedirs(outdir, exist_ok=True)
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        # (directory, checkpoint interval: 0 for none)
        dirs = []
        for i, args in enumerate(GEN):
            d = os.path.join(tmp, "gen%d" % i)
            subprocess.run([sys.executable, SSDGEN, "gen", d] + args.split(),
                           check=True, stdout=subprocess.DEVNULL)
            words = args.split()
            interval = (int(words[words.index("--checkpoint-interval") + 1])
                        if "--checkpoint-interval" in words else 0)
            dirs.append((d, interval))
        bad = os.path.join(tmp, "bad")
        subprocess.run([sys.executable, SSDGEN, "bad", bad, "all"], check=True,
                       stdout=subprocess.DEVNULL)
        # The ck-* kinds are broken for --checkpoint-interval 1.
        dirs += [(os.path.join(bad, k), 1 if k.startswith("ck-") else 0)
                 for k in sorted(os.listdir(bad))]
        for i, (d, interval) in enumerate(dirs):
            # Options: model dtype f32, f16, bf16 in turn; every third set
            # with a bf16 pool; bits 3-7 the checkpoint interval.
            options = (i % 3) | (4 if i % 3 == 1 else 0) | (interval << 3)
            with open(os.path.join(outdir, "seed-%03d" % i), "wb") as f:
                f.write(pack(d, options))
            count += 1
    return count


# ssd-pool-fuzzer's files: the npy fuzzer's and the 8-bit pools' scales.
POOL_FILES = FILES + ["ssm_pool_scales"]
POOL_TYPES = ["f32", "bf16", "f16", "f8e4m3", "i8"]


def pool_seeds(outdir):
    os.makedirs(outdir, exist_ok=True)
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        # (directory, pool type, checkpoint interval)
        dirs = []
        for i, args in enumerate(GEN[:3] + GEN[-2:]):
            for pool in POOL_TYPES:
                d = os.path.join(tmp, "gen%d-%s" % (i, pool))
                subprocess.run([sys.executable, SSDGEN, "gen", d, "--pool-dtype",
                                pool] + args.split(), check=True,
                               stdout=subprocess.DEVNULL)
                words = args.split()
                interval = (int(words[words.index("--checkpoint-interval") + 1])
                            if "--checkpoint-interval" in words else 0)
                dirs.append((d, pool, interval))
        for kind in ["ps-missing", "ps-given", "ps-shape", "ps-rank",
                     "ps-dtype", "ps-float-codes", "ps-signed-codes"]:
            d = os.path.join(tmp, kind)
            subprocess.run([sys.executable, SSDGEN, "bad", d, kind],
                           check=True, stdout=subprocess.DEVNULL)
            pool = {"ps-given": "f32", "ps-signed-codes": "f8e4m3"}.get(kind,
                                                                        "i8")
            dirs.append((d, pool, 0))
        for i, (d, pool, interval) in enumerate(dirs):
            # Every other set rounds stochastically, with seed i.
            options = (POOL_TYPES.index(pool) | (8 if i % 2 else 0)
                       | (interval << 4))
            out = bytearray([options]) + struct.pack("<q", i)
            for index, name in enumerate(POOL_FILES):
                path = os.path.join(d, name + ".npy")
                if os.path.exists(path):
                    data = open(path, "rb").read()
                    out += struct.pack("<BI", index, len(data)) + data
            with open(os.path.join(outdir, "seed-%03d" % i), "wb") as f:
                f.write(bytes(out))
            count += 1
    return count


def ir_seeds(outdir):
    os.makedirs(outdir, exist_ok=True)
    count = 0
    for top in ["test", "examples"]:
        for root, _, names in sorted(os.walk(os.path.join(ROOT, top))):
            for name in sorted(names):
                if not name.endswith(".mlir"):
                    continue
                text = open(os.path.join(root, name), errors="replace").read()
                for case in text.split("// -----"):
                    if "ssd.chunk_scan_varlen" not in case:
                        continue
                    with open(os.path.join(outdir, "seed-%04d" % count), "w") as f:
                        f.write(case)
                    count += 1
    return count


def main(argv):
    if len(argv) != 3 or argv[1] not in ("npy", "pool", "ir"):
        sys.stderr.write(__doc__)
        return 2
    if os.path.isdir(argv[2]):
        shutil.rmtree(argv[2])
    n = {"npy": npy_seeds, "pool": pool_seeds, "ir": ir_seeds}[argv[1]](argv[2])
    print("make-seeds: %d %s seeds in %s" % (n, argv[1], argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
