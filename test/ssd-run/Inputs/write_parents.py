"""Writes DIR/token_parents.npy from a comma-separated list (and an optional
dtype), for the tests of ssd-run's token_parents checks."""
import sys

import numpy as np

directory, values = sys.argv[1], sys.argv[2]
dtype = sys.argv[3] if len(sys.argv) > 3 else "int32"
parents = [int(v) for v in values.split(",")] if values else []
np.save(directory + "/token_parents.npy", np.array(parents, dtype=dtype))
