//===- ssd-opt.cpp - mlir-opt with the ssd dialect and passes -------------===//
//
// Every upstream dialect, extension and pass, plus the ssd dialect, its passes
// and its pipelines: `ssd-opt` accepts whatever `mlir-opt` does.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "ssd/Conversion/Passes.h"
#include "ssd/IR/SSDDialect.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::ssd::registerSSDTransformsPasses();
  mlir::ssd::registerSSDConversionPasses();
  mlir::ssd::registerSSDPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::ssd::registerSSDPipelineDependencies(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "ssd optimizer driver: mlir-opt plus the ssd dialect\n",
      registry));
}
