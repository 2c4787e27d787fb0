//===- consumer.cpp - a host compiler using ssd through its C++ API -------===//
//
// What a graph compiler does with ssd (docs/embedding.md), in one program:
//   1. register the dialect and what the pipelines need in its registry;
//   2. build the CPU pipeline from the options struct and run it;
//   3. run a pipeline by name from text, as `--pass-pipeline=` would;
//   4. run its own pass sequence with ssd's lowering patterns in its own
//      greedy rewrite driver.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "ssd/InitSSD.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// A decode step of four sequences (one token each) at small shapes, in the
// tensor form a graph compiler holds.
static const char *kModule = R"mlir(
func.func @decode(%x: tensor<4x8x16xf32>, %dt: tensor<4x8xf32>,
                  %A: tensor<8xf32>, %B: tensor<4x2x32xf32>,
                  %C: tensor<4x2x32xf32>, %pool: memref<6x8x16x32xf32>,
                  %qsl: tensor<5xi32>, %slots: tensor<4xi32>)
    -> tensor<4x8x16xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<4x8x16xf32>) dt(%dt : tensor<4x8xf32>)
      A(%A : tensor<8xf32>) B(%B : tensor<4x2x32xf32>) C(%C : tensor<4x2x32xf32>)
      ssm_pool(%pool : memref<6x8x16x32xf32>) query_start_loc(%qsl : tensor<5xi32>)
      cache_indices(%slots : tensor<4xi32>) -> tensor<4x8x16xf32>
  return %y : tensor<4x8x16xf32>
}
)mlir";

/// Counts the ops of `module` by dialect namespace.
static void summarize(const char *what, ModuleOp module) {
  int ssdOps = 0, llvmOps = 0, scfOps = 0, other = 0;
  module.walk([&](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns == "ssd")
      ++ssdOps;
    else if (ns == "llvm")
      ++llvmOps;
    else if (ns == "scf")
      ++scfOps;
    else if (op != module.getOperation())
      ++other;
  });
  llvm::outs() << what << ": ssd=" << ssdOps << " scf=" << scfOps
               << " llvm=" << llvmOps << " other=" << other << "\n";
}

static OwningOpRef<ModuleOp> parse(MLIRContext &context) {
  return parseSourceString<ModuleOp>(kModule, &context);
}

int main() {
  // 1. Registration: the dialect (and its bufferization model), everything
  //    the pipelines produce, and the passes and pipelines by name.
  DialectRegistry registry;
  ssd::registerSSDDialect(registry);
  ssd::registerSSDDependencies(registry);
  ssd::registerSSDPasses();
  MLIRContext context(registry);

  OwningOpRef<ModuleOp> module = parse(context);
  if (!module)
    return 1;
  summarize("parsed", *module);

  // 2. The CPU pipeline from its options struct (the options of
  //    --ssd-to-cpu).
  ssd::SSDToCPUPipelineOptions cpu;
  cpu.form = ssd::FormChoice::Serial;
  cpu.openmp = false;
  PassManager pm(&context);
  ssd::buildSSDToCPUPipeline(pm, cpu);
  if (failed(pm.run(*module)))
    return 1;
  summarize("buildSSDToCPUPipeline", *module);

  // 3. The same pipeline by name, with options, from text (anchored on the
  //    pass manager's op: what --pass-pipeline takes inside
  //    `builtin.module(...)`).
  module = parse(context);
  PassManager byName(&context);
  if (failed(parsePassPipeline(
          "ssd-to-cpu{form=chunked chunk-size=2 openmp=false}", byName)) ||
      failed(byName.run(*module)))
    return 1;
  summarize("ssd-to-cpu by name", *module);

  // 4. The host's own sequence: form selection and bufferization as passes,
  //    then the loop lowering as patterns in the host's greedy driver.
  module = parse(context);
  PassManager host(&context);
  ssd::SSDSelectFormOptions select;
  select.form = ssd::FormChoice::Serial;
  host.addPass(ssd::createSSDSelectForm(select));
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  host.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (failed(host.run(*module)))
    return 1;
  RewritePatternSet patterns(&context);
  ssd::populateSSDToLoopsPatterns(patterns);
  if (failed(applyPatternsGreedily(*module, std::move(patterns))))
    return 1;
  summarize("populateSSDToLoopsPatterns", *module);
  return 0;
}
