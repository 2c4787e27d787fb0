//===- ScanConfigTest.cpp - a config built without checks is verified -----===//
//
// `#ssd.scan_config` checks its fields where it is parsed (test/IR/
// invalid-scan-config.mlir) or built with getChecked; a pass that builds
// one with get, as a planner or a graph compiler does, can attach a config
// no parser would accept. The op's verifier, run after every pass, must
// refuse it with the attribute's own reason before a lowering reads the
// choices (a serial_rows_per_warp of 0 divides by zero there).
//
//===----------------------------------------------------------------------===//

#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDDialect.h"
#include "ssd/IR/SSDOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

namespace {

using namespace mlir;

constexpr const char *kModule = R"mlir(
func.func @decode(%x: memref<4x2x8xf32>, %dt: memref<4x2xf32>, %A: memref<2xf32>,
    %B: memref<4x1x8xf32>, %C: memref<4x1x8xf32>, %pool: memref<4x2x8x8xf32>,
    %qsl: memref<5xi32>, %ci: memref<4xi32>, %y: memref<4x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<4x2x8xf32>) dt(%dt : memref<4x2xf32>)
      A(%A : memref<2xf32>) B(%B : memref<4x1x8xf32>) C(%C : memref<4x1x8xf32>)
      ssm_pool(%pool : memref<4x2x8x8xf32>) query_start_loc(%qsl : memref<5xi32>)
      cache_indices(%ci : memref<4xi32>) outs(%y : memref<4x2x8xf32>)
      {config = #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90a",
                                 serial_rows_per_warp = 4, serial_warps_per_block = 4>}
  return
}
)mlir";

class ScanConfigTest : public ::testing::Test {
protected:
  ScanConfigTest() {
    context.loadDialect<ssd::SSDDialect, func::FuncDialect,
                        memref::MemRefDialect>();
    module = parseSourceString<ModuleOp>(kModule, &context);
  }

  ssd::ChunkScanVarlenOp scanOp() {
    ssd::ChunkScanVarlenOp found;
    module->walk([&](ssd::ChunkScanVarlenOp op) { found = op; });
    return found;
  }

  /// Puts a serial config built with `get` (no checks) on the op, as a pass
  /// in C++ can; false if the module has no op.
  bool attachUncheckedSerialConfig(llvm::StringRef chip, int64_t rowsPerWarp) {
    ssd::ChunkScanVarlenOp op = scanOp();
    if (!op)
      return false;
    ssd::GPUKernelChoices gpu;
    gpu.chip = chip.str();
    gpu.serialRowsPerWarp = rowsPerWarp;
    gpu.serialWarpsPerBlock = 4;
    op->setAttr("config", ssd::ScanConfigAttr::get(&context, ssd::Form::serial,
                                                   256, std::nullopt, gpu));
    return true;
  }

  /// Verifies the module; returns the diagnostics it emitted, one a line.
  std::string verifyModule(bool &ok) {
    std::string messages;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      messages += diag.str() + "\n";
      return success();
    });
    ok = succeeded(verify(*module));
    return messages;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ScanConfigTest, AParsedConfigVerifies) {
  ASSERT_TRUE(module);
  bool ok = false;
  EXPECT_EQ(verifyModule(ok), "");
  EXPECT_TRUE(ok);
}

TEST_F(ScanConfigTest, AnUncheckedConfigIsRefusedByTheOp) {
  ASSERT_TRUE(module);
  ASSERT_TRUE(attachUncheckedSerialConfig("sm_90a", /*rowsPerWarp=*/0));
  bool ok = true;
  std::string messages = verifyModule(ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(messages, "'ssd.chunk_scan_varlen' op config: serial_rows_per_warp "
                      "must be in [1, 32], got 0\n");
}

TEST_F(ScanConfigTest, AnUnknownChipBuiltWithoutChecksIsRefused) {
  ASSERT_TRUE(module);
  ASSERT_TRUE(attachUncheckedSerialConfig("sm_70", /*rowsPerWarp=*/4));
  bool ok = true;
  std::string messages = verifyModule(ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(messages.find("op config: chip \"sm_70\" is not one of"),
            std::string::npos)
      << messages;
}

TEST_F(ScanConfigTest, EditsKeepTheInvariantMark) {
  ssd::GPUKernelChoices gpu;
  gpu.chip = "sm_90a";
  gpu.serialRowsPerWarp = 4;
  gpu.serialWarpsPerBlock = 4;
  auto config = ssd::ScanConfigAttr::get(&context, ssd::Form::serial, 256,
                                         /*mixedMinTokens=*/std::nullopt,
                                         /*gpu=*/std::nullopt,
                                         /*invariant=*/true);
  EXPECT_TRUE(config.getInvariant());
  EXPECT_TRUE(config.withGPUChoices(gpu).getInvariant());
  EXPECT_TRUE(config.withoutMixing().getInvariant());
  EXPECT_FALSE(config.withInvariant(false).getInvariant());
  EXPECT_EQ(config.withInvariant(false).withInvariant(true), config);
}

TEST_F(ScanConfigTest, AnUncheckedInvariantPlanWithChunkedKernelsIsRefused) {
  ASSERT_TRUE(module);
  ssd::ChunkScanVarlenOp op = scanOp();
  ASSERT_TRUE(op);
  ssd::GPUKernelChoices gpu;
  gpu.chip = "sm_90a";
  gpu.serialRowsPerWarp = 4;
  gpu.serialWarpsPerBlock = 4;
  gpu.chunked = ssd::ChunkedKernelChoices{};
  gpu.chunked->outputRows = 64;
  gpu.chunked->sharedMemory = 1024;
  op.setInvariant(true);
  op.setConfigAttr(ssd::ScanConfigAttr::get(&context, ssd::Form::chunked, 256,
                                            std::nullopt, gpu,
                                            /*invariant=*/true));
  bool ok = true;
  std::string messages = verifyModule(ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(messages.find("op config: invariant = true runs every sequence in "
                          "the serial GPU kernel: the chunked kernels' "
                          "choices (fusion, "),
            std::string::npos)
      << messages;
}

} // namespace
