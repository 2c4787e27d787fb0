"""Checks the non-finite values of ssd-run outputs (invariant-nonfinite.test).

nan_words.py DIR DTYPE FIRST: every NaN in y.npy (written as f32; DTYPE is
the model's, whose 16-bit quiet NaN widens to 0x7FC00000 for bf16 and f16
alike) and in ssm_pool.npy has the bits 0x7FC00000, and both hold at least
one NaN or infinity (a check that sees none checks nothing), while y's
tokens from FIRST on (the sequences after the poisoned one) are all finite.
"""
import sys

import numpy as np


def check(directory, dtype, first):
    status = 0
    y = np.load(directory + "/y.npy")
    if not np.all(np.isfinite(y[first:])):
        print("FAIL y: tokens from %d on are not all finite" % first)
        status = 1
    for name in ("y", "ssm_pool"):
        words = np.load("%s/%s.npy" % (directory, name)).astype(
            np.float32).view(np.uint32).ravel()
        values = words.view(np.float32)
        nans = words[np.isnan(values)]
        infs = np.count_nonzero(np.isinf(values))
        if nans.size + infs == 0:
            print("FAIL %s: no NaN or infinity" % name)
            status = 1
            continue
        odd = np.unique(nans[nans != 0x7FC00000])
        if odd.size:
            print("FAIL %s (%s): NaNs stored as %s" % (
                name, dtype, ", ".join("0x%08X" % w for w in odd[:4])))
            status = 1
        else:
            print("PASS %s (%s): %d NaNs, all 0x7FC00000; %d infinities" % (
                name, dtype, nans.size, infs))
    return status


if __name__ == "__main__":
    sys.exit(check(sys.argv[1], sys.argv[2], int(sys.argv[3])))
