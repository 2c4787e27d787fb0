//===- Dialects.h - C API of the ssd dialect ----------------------*- C -*-===//
//
// The C interface of ssd, as upstream dialects give theirs (the headers of
// mlir-c/Dialect): the dialect handle, the registration of everything its
// pipelines need, and of its passes and pipelines so that
// mlirParsePassPipeline can name them ("builtin.module(ssd-to-cpu)").
// Library: libSSDCAPI.so (CMake package target SSD::SSDCAPI), which also
// carries the MLIR C API functions of mlir-c/IR.h and mlir-c/Pass.h: Debian's
// libMLIR.so has none of them.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_C_DIALECTS_H
#define SSD_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(SSD, ssd);

/// Inserts the ssd dialect, its interface models, and everything the ssd
/// pipelines produce or translate (the dialects of the lowered IR, their
/// bufferization models, the LLVM IR translations) into `registry`: what a
/// context needs before it runs ssd-to-cpu.
MLIR_CAPI_EXPORTED void mlirSSDRegisterDialects(MlirDialectRegistry registry);

/// Registers every ssd pass (ssd-select-form, ssd-lower-to-loops, ...) and
/// every ssd pipeline (ssd-to-cpu, ssd-to-nvvm, ...) with the global
/// registries. Safe to call more than once.
MLIR_CAPI_EXPORTED void mlirSSDRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif // SSD_C_DIALECTS_H
