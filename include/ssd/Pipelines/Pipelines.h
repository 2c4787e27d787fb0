//===- Pipelines.h - ssd pass pipelines -------------------------*- C++ -*-===//
//
// Each pipeline is an options struct plus a build function, registered with
// `ssd-opt` under the same name; a graph compiler calls the same builders.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_PIPELINES_PIPELINES_H
#define SSD_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
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

/// Thresholds of `auto` for the GPU pipeline. Not yet measured on a GPU:
/// chunked once a launch has 1024 tokens and its sequences average 256, where
/// the serial kernel's token loop (one step per token per sequence) stops
/// being hidden by parallelism over heads and sequences.
inline constexpr FormThresholds kProvisionalGPUThresholds{1024, 256};

/// Options of `--ssd-to-nvvm`.
struct SSDToNVVMPipelineOptions
    : public PassPipelineOptions<SSDToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a (the "
                     "PTX ISA version follows the chip)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX text, JIT-compiled by the driver; needs no CUDA "
                     "toolkit), bin (cubin, needs ptxas) or fatbin (needs "
                     "ptxas and fatbinary)"),
      llvm::cl::init("isa")};
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
      llvm::cl::init(kProvisionalGPUThresholds.minChunkedTokens)};
  PassOptions::Option<int64_t> minChunkedTokensPerSeq{
      *this, "min-chunked-tokens-per-seq",
      llvm::cl::desc("fewest tokens per sequence (T / batch) for which auto "
                     "picks chunked"),
      llvm::cl::init(kProvisionalGPUThresholds.minChunkedTokensPerSeq)};
  PassOptions::Option<int64_t> serialRowsPerWarp{
      *this, "serial-rows-per-warp",
      llvm::cl::desc("head_dim rows of the state per warp (serial kernel)"),
      llvm::cl::init(4)};
  PassOptions::Option<int64_t> serialWarpsPerBlock{
      *this, "serial-warps-per-block",
      llvm::cl::desc("warps per thread block (serial kernel)"),
      llvm::cl::init(4)};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("NVVM optimization level"),
      llvm::cl::init(2)};
};

/// The PTX ISA feature string (e.g. "+ptx80") for a chip, or "" when the
/// chip is not one the pipeline supports.
std::string ptxFeaturesForChip(llvm::StringRef chip);

/// A one-line message when the options name an unknown chip or format.
std::optional<std::string>
checkSSDToNVVMOptions(const SSDToNVVMPipelineOptions &options);

/// ssd ops (tensor or memref form) to a module holding one gpu.binary per
/// kernel plus host code in the LLVM dialect that launches them through the
/// mgpu* runtime functions. With options that checkSSDToNVVMOptions rejects,
/// the pipeline is a single pass that reports the problem and fails;
/// format=bin/fatbin without ptxas fails in gpu-module-to-binary with a
/// message naming ptxas.
void buildSSDToNVVMPipeline(OpPassManager &pm,
                            const SSDToNVVMPipelineOptions &options);

/// ssd ops (tensor or memref form) to the LLVM dialect for the host CPU:
/// select the form, bufferize, lower to loops, and lower to LLVM, with the
/// outer parallel loops as OpenMP worksharing loops when `openmp` is set.
void buildSSDToCPUPipeline(OpPassManager &pm,
                           const SSDToCPUPipelineOptions &options);

/// Registers `ssd-to-cpu` and `ssd-to-nvvm` with the global pipeline
/// registry.
void registerSSDPipelines();

/// Registers the ssd dialect and everything the ssd pipelines need from
/// upstream in a context: the dialects they produce, the bufferization
/// models of the dialects they bufferize, and the LLVM IR translations.
void registerSSDPipelineDependencies(DialectRegistry &registry);

} // namespace ssd
} // namespace mlir

#endif // SSD_PIPELINES_PIPELINES_H
