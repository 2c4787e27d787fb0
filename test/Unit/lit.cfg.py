# -*- Python -*-
# The GoogleTest unit tests of unittests/ (executables named *Tests), one lit
# test per gtest case.
import os

import lit.formats

config.name = "SSD-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.ssd_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# As in the main suite's sanitizer configuration (test/lit.cfg.py).
if config.ssd_sanitize.strip():
    config.environment["ASAN_OPTIONS"] = (
        "allocator_may_return_null=1:detect_leaks=0:abort_on_error=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
