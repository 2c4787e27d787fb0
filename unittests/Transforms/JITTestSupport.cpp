//===- JITTestSupport.cpp - JIT-running lowered functions in tests --------===//

#include "JITTestSupport.h"

#include "ssd/Execution/JITTarget.h"
#include "ssd/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

std::unique_ptr<mlir::MLIRContext> ssd::test::createPipelineContext() {
  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

mlir::LogicalResult ssd::test::lowerToCPU(mlir::ModuleOp module) {
  mlir::PassManager pm(module.getContext());
  mlir::ssd::SSDToCPUPipelineOptions options;
  options.openmp = false;
  mlir::ssd::buildSSDToCPUPipeline(pm, options);
  return pm.run(module);
}

llvm::StringRef ssd::test::baselineCPU() {
  return llvm::Triple(llvm::sys::getProcessTriple()).isX86() ? "x86-64" : "";
}

std::unique_ptr<mlir::ExecutionEngine>
ssd::test::jitCompile(mlir::ModuleOp module, llvm::StringRef cpu,
                      std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::unique_ptr<llvm::TargetMachine> machine =
      createJITTargetMachine(cpu, error);
  if (!machine)
    return nullptr;
  // The transformer runs inside create, which keeps the machine.
  auto transformer = mlir::makeOptimizingTransformer(2, 0, machine.get());
  mlir::ExecutionEngineOptions options;
  options.transformer = transformer;
  auto created =
      mlir::ExecutionEngine::create(module, options, std::move(machine));
  if (!created) {
    error = llvm::toString(created.takeError());
    return nullptr;
  }
  return std::move(*created);
}
