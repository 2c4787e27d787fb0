"""The Mamba-2 mixer example (examples/mamba2-torch/mixer.py): prefill and
decode steps through ssd_torch agree with the same layer on a plain torch
recurrence, and with one prefill of each request's whole sequence."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "mamba2-torch"))
import mixer  # noqa: E402


def test_mixer_prefill_then_decode():
    worst, full_worst, pool_diff = mixer.run(decode_steps=3)
    assert worst <= 5e-4, worst
    assert full_worst <= 5e-4, full_worst
    assert pool_diff <= 5e-4, pool_diff
