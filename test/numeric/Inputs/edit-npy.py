#!/usr/bin/env python3
"""Edits one array of an ssdgen input directory in place, for tests that need
a problem ssdgen does not generate: `edit-npy.py DIR NAME STATEMENT` loads
DIR/NAME.npy as `a` (and numpy as np), runs STATEMENT, and saves `a`."""
import os
import sys

import numpy as np

directory, name, statement = sys.argv[1:4]
path = os.path.join(directory, name + ".npy")
a = np.load(path)
exec(statement, {"np": np, "a": a})
np.save(path, a)
