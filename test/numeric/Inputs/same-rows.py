#!/usr/bin/env python3
"""`same-rows.py A B START END`: exits 0 when rows START..END-1 (tokens) of
A/y.npy and B/y.npy hold the same bits, else prints the first difference and
exits 1. Tells which form computed a sequence in a mixed launch."""
import os
import sys

import numpy as np

a_dir, b_dir, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
a = np.load(os.path.join(a_dir, "y.npy"))[start:end]
b = np.load(os.path.join(b_dir, "y.npy"))[start:end]
diff = np.argwhere(a.view(np.uint32) != b.view(np.uint32))
if diff.size:
    print("rows %d..%d differ first at %s: %r vs %r"
          % (start, end, tuple(diff[0] + [start, 0, 0]), a[tuple(diff[0])],
             b[tuple(diff[0])]))
    sys.exit(1)
print("rows %d..%d identical" % (start, end))
