//===- Passes.h - ssd transformation passes ---------------------*- C++ -*-===//

#ifndef SSD_TRANSFORMS_PASSES_H
#define SSD_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "ssd/Support/EnumOption.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"

// Options of these types (here and in the pipelines) name the valid values
// when they reject one.
SSD_ENUM_PASS_OPTION(::mlir::ssd::FormChoice);
SSD_ENUM_PASS_OPTION(::mlir::ssd::GPUChip);

namespace mlir {
class DialectRegistry;
namespace ssd {

#define GEN_PASS_DECL
#include "ssd/Transforms/Passes.h.inc"

/// Registers the ssd transformation passes with the global pass registry.
#define GEN_PASS_REGISTRATION
#include "ssd/Transforms/Passes.h.inc"

/// Attaches BufferizableOpInterface to ssd.chunk_scan_varlen, so that
/// one-shot-bufferize turns the tensor form into the memref form.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_PASSES_H
