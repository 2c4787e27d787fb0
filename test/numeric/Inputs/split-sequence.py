#!/usr/bin/env python3
"""`split-sequence.py IN SEQ K OUT [POOL]`: one sequence of an ssdgen input
folder as a call of its own, for invariance tests. Without POOL, OUT holds
its first K tokens (it writes its slot); with POOL (a folder with the first
call's ssm_pool.npy), OUT holds the tokens after K, starting from that pool
(has_initial_state set). Only for 1-d cache_indices, without checkpoints."""
import os
import sys

import numpy as np

src, seq, k, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pool_dir = sys.argv[5] if len(sys.argv) > 5 else None
arrays = {f[:-4]: np.load(os.path.join(src, f))
          for f in os.listdir(src) if f.endswith(".npy")}
qsl = arrays["query_start_loc"]
lo, hi = int(qsl[seq]), int(qsl[seq + 1])
first, last = (lo, lo + k) if pool_dir is None else (lo + k, hi)
for name in ("x", "dt", "B", "C"):
    arrays[name] = arrays[name][first:last]
arrays["query_start_loc"] = np.array([0, last - first], dtype=qsl.dtype)
arrays["cache_indices"] = arrays["cache_indices"][seq:seq + 1]
arrays["update_state"] = np.array([True])
if pool_dir is None:
    if "has_initial_state" in arrays:
        arrays["has_initial_state"] = arrays["has_initial_state"][seq:seq + 1]
else:
    arrays["ssm_pool"] = np.load(os.path.join(pool_dir, "ssm_pool.npy"))
    arrays["has_initial_state"] = np.array([True])
os.makedirs(out, exist_ok=True)
for name, a in arrays.items():
    np.save(os.path.join(out, name + ".npy"), a)
