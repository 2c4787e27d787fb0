"""A lit test format that runs each test file three times: as NAME (the
emulator's default block order) and, with SSD_GPU_EMULATOR_BLOCK_ORDER set,
as NAME.reverse and NAME.random (see test/numeric-emu/lit.local.cfg).

A module of its own, not code in lit.local.cfg, because lit sends tests to
its worker processes by pickling them, which needs importable classes."""

import copy

import lit.formats
import lit.Test

BLOCK_ORDERS = {"reverse": "reverse", "random": "random:2026"}
# The slowest file (a third of the directory's time per order) runs in the
# random order besides the default only, to keep check-ssd within CI's
# budget; every other test covers the reverse order.
ORDERS_OF = {"model-shapes.test": ("random",)}


class BlockOrderVariant(lit.Test.Test):
    """The test file `source` run under a lit name of its own (so its own
    %t) and the configuration `config`."""

    def __init__(self, suite, path_in_suite, config, source):
        super().__init__(suite, path_in_suite, config)
        self.source = source

    def getSourcePath(self):
        return self.source


class BlockOrderTest(lit.formats.ShTest):
    def getTestsForPath(self, testSuite, path_in_suite, litConfig, localConfig):
        for test in super().getTestsForPath(
            testSuite, path_in_suite, litConfig, localConfig
        ):
            yield test
            for name, order in BLOCK_ORDERS.items():
                if name not in ORDERS_OF.get(path_in_suite[-1], (name,)):
                    continue
                config = copy.copy(localConfig)
                config.environment = dict(
                    localConfig.environment, SSD_GPU_EMULATOR_BLOCK_ORDER=order
                )
                yield BlockOrderVariant(
                    testSuite,
                    path_in_suite[:-1] + (path_in_suite[-1] + "." + name,),
                    config,
                    test.getSourcePath(),
                )
