"""A lit test format that runs each test file in several block orders: as
NAME (the emulator's default block order) and, with
SSD_GPU_EMULATOR_BLOCK_ORDER set, as NAME.random and, when asked for, as
NAME.reverse (see test/numeric-emu/lit.local.cfg).

A module of its own, not code in lit.local.cfg, because lit sends tests to
its worker processes by pickling them, which needs importable classes."""

import copy

import lit.formats
import lit.Test

BLOCK_ORDERS = {"reverse": "reverse", "random": "random:2026"}
# Orders every file runs in besides its own lit test in index order. To keep
# check-ssd within CI's budget the default is the seeded random order only:
# with more than two blocks in a chain it starts some block before the one
# it waits for, which is what the reverse order was there to force. `lit
# --param block-orders=all` (or SSD_BLOCK_ORDERS=all) adds the reverse order.
DEFAULT_ORDERS = ("random",)
# The slowest file (a third of the directory's time per order) runs in the
# random order alone, not in index order as well.
ORDERS_OF = {"model-shapes.test": ("random",)}
WITHOUT_INDEX_ORDER = ("model-shapes.test",)


class BlockOrderVariant(lit.Test.Test):
    """The test file `source` run under a lit name of its own (so its own
    %t) and the configuration `config`."""

    def __init__(self, suite, path_in_suite, config, source):
        super().__init__(suite, path_in_suite, config)
        self.source = source

    def getSourcePath(self):
        return self.source


class BlockOrderTest(lit.formats.ShTest):
    def __init__(self, execute_external=False, all_orders=False):
        super().__init__(execute_external)
        self.all_orders = all_orders

    def getTestsForPath(self, testSuite, path_in_suite, litConfig, localConfig):
        name_of_file = path_in_suite[-1]
        orders = tuple(BLOCK_ORDERS) if self.all_orders else DEFAULT_ORDERS
        for test in super().getTestsForPath(
            testSuite, path_in_suite, litConfig, localConfig
        ):
            if self.all_orders or name_of_file not in WITHOUT_INDEX_ORDER:
                yield test
            for name, order in BLOCK_ORDERS.items():
                wanted = orders if self.all_orders else ORDERS_OF.get(
                    name_of_file, orders)
                if name not in wanted:
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
