//===- Pipelines.h - ssd pass pipelines -------------------------*- C++ -*-===//
//
// Each pipeline is an options struct plus a build function, registered with
// `ssd-opt` under the same name; a graph compiler calls the same builders.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_PIPELINES_PIPELINES_H
#define SSD_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "ssd/Transforms/FormSelection.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace ssd {

/// Options of `--ssd-to-cpu`.
struct SSDToCPUPipelineOptions
    : public PassPipelineOptions<SSDToCPUPipelineOptions> {
  PassOptions::Option<std::string> form{
      *this, "form",
      llvm::cl::desc("auto (choose per op), chunked or serial"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> chunkSize{
      *this, "chunk-size", llvm::cl::desc("tokens per chunk of the chunked form"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> minChunkedTokens{
      *this, "min-chunked-tokens",
      llvm::cl::desc("fewest total tokens for which auto picks chunked"),
      llvm::cl::init(FormThresholds().minChunkedTokens)};
  PassOptions::Option<int64_t> minChunkedTokensPerSeq{
      *this, "min-chunked-tokens-per-seq",
      llvm::cl::desc("fewest tokens per sequence (T / batch) for which auto "
                     "picks chunked"),
      llvm::cl::init(FormThresholds().minChunkedTokensPerSeq)};
  PassOptions::Option<int64_t> serialPTile{
      *this, "serial-p-tile",
      llvm::cl::desc("head_dim rows per parallel task of the serial form"),
      llvm::cl::init(16)};
  PassOptions::Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("run the outer parallel loops on all cores through "
                     "OpenMP (the executable then needs libomp)"),
      llvm::cl::init(true)};
};

/// ssd ops (tensor or memref form) to the LLVM dialect for the host CPU:
/// select the form, bufferize, lower to loops, and lower to LLVM, with the
/// outer parallel loops as OpenMP worksharing loops when `openmp` is set.
void buildSSDToCPUPipeline(OpPassManager &pm,
                           const SSDToCPUPipelineOptions &options);

/// Registers `ssd-to-cpu` with the global pipeline registry.
void registerSSDPipelines();

/// Registers the ssd dialect and everything the ssd pipelines need from
/// upstream in a context: the dialects they produce, the bufferization
/// models of the dialects they bufferize, and the LLVM IR translations.
void registerSSDPipelineDependencies(DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_PIPELINES_PIPELINES_H
