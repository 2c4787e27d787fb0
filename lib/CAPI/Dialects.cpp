//===- Dialects.cpp - C API of the ssd dialect ----------------------------===//

#include "ssd-c/Dialects.h"

#include "ssd/InitSSD.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(SSD, ssd, mlir::ssd::SSDDialect)

void mlirSSDRegisterDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &r = *unwrap(registry);
  mlir::ssd::registerSSDDialect(r);
  mlir::ssd::registerSSDDependencies(r);
}

void mlirSSDRegisterPasses(void) { mlir::ssd::registerSSDPasses(); }
