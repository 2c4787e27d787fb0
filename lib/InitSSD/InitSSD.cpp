//===- InitSSD.cpp - everything a host compiler registers for ssd ---------===//

#include "ssd/InitSSD.h"

#include "mlir/IR/DialectRegistry.h"

#include <mutex>

using namespace mlir;

void mlir::ssd::registerSSDDialect(DialectRegistry &registry) {
  registry.insert<SSDDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::ssd::registerSSDDependencies(DialectRegistry &registry) {
  registerSSDPipelineDependencies(registry);
}

void mlir::ssd::registerSSDPasses() {
  // Pass registration tolerates repeats, pipeline registration does not
  // promise to: register once per process (a plugin loaded both as dialect
  // and as pass plugin calls this twice).
  static std::once_flag once;
  std::call_once(once, [] {
    registerSSDTransformsPasses();
    registerSSDConversionPasses();
    registerSSDPipelines();
  });
}

void mlir::ssd::registerAllSSD(DialectRegistry &registry) {
  registerSSDDialect(registry);
  registerSSDDependencies(registry);
  registerSSDPasses();
}
