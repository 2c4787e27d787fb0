"""The lit test format of test/numeric: each test file runs once per target
it declares, and on the GPU emulator once more per block order
(docs/testing.md, "The numeric suite").

A file names its targets on a line of its own, `TARGETS: cpu gpu-emu` (or
one of them), and is written once: its RUN lines say `%target` where
ssd-run takes `--target`, and check the summary line against FileCheck's
`-DTARGET=%target` (`ssd-run: [[TARGET]] form=serial`). Each target also
sets a lit feature, `target-cpu` or `target-gpu-emu`, so a RUN line only
one target needs reads `RUN: %if target-cpu %{ ... %}`. The file FILE
gives the lit tests

  FILE.cpu             --target cpu
  FILE.gpu-emu.random  --target gpu-emu, blocks started in a seeded random
                       order (SSD_GPU_EMULATOR_BLOCK_ORDER=random:2026)
  FILE.gpu-emu         the same in index order (only with all_orders)
  FILE.gpu-emu.reverse the same in reverse order (only with all_orders)

each with its own %t. A file without a TARGETS: line (one that compares
targets with each other in one test, such as pool-bf16.test) is an
ordinary lit test, FILE, with no %target.

A GPU starts a launch's blocks in no promised order (docs/gpu.md, "waits
between blocks"), and every order must give the same bits, so the numeric
checks hold in any one of them. The seeded random order is the adversarial
one: with more than two blocks in a chain it starts some block before the
one it waits for, which is what the reverse order was there to force, and
it starts blocks out of ticket order, which the index order never does. So
by default each gpu-emu file runs in the random order alone; the index and
reverse orders are left to `lit --param block-orders=all` (or
SSD_BLOCK_ORDERS=all), for CI's budget (docs/testing.md, "Time"). A RUN
line that sets SSD_GPU_EMULATOR_BLOCK_ORDER itself overrides the variant's.

A module of its own, not code in lit.local.cfg, because lit sends tests to
its worker processes by pickling them, which needs importable classes."""

import copy
import re

import lit.formats
import lit.Test

TARGETS = ("cpu", "gpu-emu")
BLOCK_ORDERS = {"reverse": "reverse", "random": "random:2026"}
# The orders every gpu-emu file runs in, unless all_orders.
DEFAULT_ORDERS = ("random",)

_TARGETS_LINE = re.compile(r"\bTARGETS:(.*)")


def declared_targets(path):
    """The targets the file's TARGETS: line names, or None without one."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = _TARGETS_LINE.search(line)
            if match:
                return match.group(1).split()
    return None


class TargetVariant(lit.Test.Test):
    """The test file `source` run under a lit name of its own (so its own
    %t) and the configuration `config`."""

    def __init__(self, suite, path_in_suite, config, source):
        super().__init__(suite, path_in_suite, config)
        self.source = source

    def getSourcePath(self):
        return self.source


class TargetTest(lit.formats.ShTest):
    def __init__(self, execute_external=False, targets=TARGETS,
                 all_orders=False):
        super().__init__(execute_external)
        # The targets this build runs; a file's other targets give no test.
        self.targets = tuple(targets)
        self.all_orders = all_orders

    def _variant(self, test_suite, path_in_suite, local_config, source,
                 suffix, target, environment=None):
        config = copy.copy(local_config)
        config.substitutions = [("%target", target)] + list(
            local_config.substitutions)
        config.available_features = set(local_config.available_features) | {
            "target-" + target}
        if environment:
            config.environment = dict(local_config.environment, **environment)
        return TargetVariant(
            test_suite,
            path_in_suite[:-1] + (path_in_suite[-1] + suffix,),
            config,
            source,
        )

    def getTestsForPath(self, testSuite, path_in_suite, litConfig,
                        localConfig):
        # The suffixes and excludes (the sanitizer build's among them) pick
        # the files.
        for test in super().getTestsForPath(testSuite, path_in_suite,
                                            litConfig, localConfig):
            yield from self._variants(test, litConfig, localConfig)

    def _variants(self, test, litConfig, localConfig):
        testSuite, path_in_suite = test.suite, test.path_in_suite
        source = test.getSourcePath()
        targets = declared_targets(source)
        if targets is None:
            # A file that compares targets with each other names them in its
            # RUN lines and runs once, as an ordinary lit test.
            yield test
            return
        unknown = [target for target in targets if target not in TARGETS]
        if unknown or not targets:
            litConfig.error("%s: TARGETS: names %s; the targets are %s" %
                            (source, " ".join(targets) or "nothing",
                             ", ".join(TARGETS)))
            return
        for target in targets:
            if target not in self.targets:
                continue
            suffix = "." + target
            if target == "cpu":
                yield self._variant(testSuite, path_in_suite, localConfig,
                                    source, suffix, target)
                continue
            orders = (("index",) + tuple(BLOCK_ORDERS) if self.all_orders
                      else DEFAULT_ORDERS)
            if "index" in orders:
                yield self._variant(testSuite, path_in_suite, localConfig,
                                    source, suffix, target)
            for order_name, order in BLOCK_ORDERS.items():
                if order_name in orders:
                    yield self._variant(
                        testSuite, path_in_suite, localConfig, source,
                        suffix + "." + order_name, target,
                        {"SSD_GPU_EMULATOR_BLOCK_ORDER": order})
