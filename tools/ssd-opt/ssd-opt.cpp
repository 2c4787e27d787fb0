//===- ssd-opt.cpp - mlir-opt with the ssd dialect and passes -------------===//
//
// Every upstream dialect, extension and pass, plus the ssd dialect, its passes
// and its pipelines: `ssd-opt` accepts whatever `mlir-opt` does. It registers
// ssd through the same calls a host compiler makes (ssd/InitSSD.h).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "ssd/InitSSD.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::ssd::registerAllSSD(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "ssd optimizer driver: mlir-opt plus the ssd dialect\n",
      registry));
}
