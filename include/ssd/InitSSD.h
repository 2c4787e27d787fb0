//===- InitSSD.h - everything a host compiler registers for ssd -*- C++ -*-===//
//
// One header for embedding ssd in another compiler (docs/embedding.md):
//
//   mlir::DialectRegistry registry;
//   mlir::ssd::registerSSDDialect(registry);      // parse/print/bufferize ssd
//   mlir::ssd::registerSSDDependencies(registry); // + what the pipelines emit
//   mlir::ssd::registerSSDPasses();               // passes, pipelines
//
// and, without going through the registries, the pipeline builders with their
// options structs (ssd/Pipelines/Pipelines.h), the pass constructors
// (ssd/Transforms/Passes.h, ssd/Conversion/Passes.h) and the pattern entry
// points of each lowering (populateSSDToLoopsPatterns), all included here.
//
// These are thin wrappers over the functions the tools use (ssd-opt registers
// the same passes, pipelines and options), so a pipeline added to
// registerSSDPipelines() is registered here too. Library: SSDInit (CMake
// package target SSD::SSDInit).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_INITSSD_H
#define SSD_INITSSD_H

#include "ssd/Conversion/Passes.h"
#include "ssd/IR/SSDDialect.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Transforms/Passes.h"

namespace mlir {
class DialectRegistry;
namespace ssd {

/// The ssd dialect and the interface models of its ops: enough to parse,
/// print and verify ssd IR and to bufferize its tensor form with the host's
/// own one-shot-bufferize.
void registerSSDDialect(DialectRegistry &registry);

/// Everything the ssd pipelines need in a context besides the ssd dialect:
/// the dialects they produce, the bufferization models of the upstream
/// dialects they bufferize, and the LLVM IR translations used to JIT or
/// export the result. (Also registers the ssd dialect; a host that registers
/// all upstream dialects and extensions itself needs only
/// registerSSDDialect.)
void registerSSDDependencies(DialectRegistry &registry);

/// Registers every ssd pass (ssd-select-form, ssd-lower-to-loops) and every
/// ssd pipeline (ssd-to-cpu, ...) with the global pass and pipeline
/// registries, so that textual pipelines (`parsePassPipeline`,
/// `--pass-pipeline=`) can name them. Safe to call more than once.
void registerSSDPasses();

/// registerSSDDialect + registerSSDDependencies + registerSSDPasses.
void registerAllSSD(DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_INITSSD_H
