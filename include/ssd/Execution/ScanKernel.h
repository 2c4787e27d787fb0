//===- ScanKernel.h - compile one scan op and run it ------------*- C++ -*-===//
//
// What `ssd-run` and `ssd-bench` share: the module holding one memref-form
// op for a problem's signature, its compilation (through `--ssd-to-cpu`, or
// `--ssd-to-nvvm` / `--ssd-to-gpu-emulator` with the host code JIT-compiled
// against the CUDA or emulator runtime in lib/GPURuntime) and calls on host
// buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_EXECUTION_SCANKERNEL_H
#define SSD_EXECUTION_SCANKERNEL_H

#include "ssd/IR/SSDAttrs.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Transforms/FormSelection.h"

#include <memory>
#include <string>
#include <vector>

namespace ssd {

enum class Target {
  CPU,         ///< --ssd-to-cpu, run by the JIT
  CUDA,        ///< --ssd-to-nvvm, kernels on the GPU through the CUDA driver
  GPUEmulator, ///< --ssd-to-gpu-emulator, the same kernels on the emulator
};

struct CompileOptions {
  Target target = Target::CPU;
  /// CUDA, GPU emulator: the GPU.
  mlir::ssd::GPUChip chip = mlir::ssd::kDefaultGPUChip;
  mlir::ssd::FormChoice form = mlir::ssd::FormChoice::Auto;
  /// CUDA: what the kernels are compiled into (ScanKernel runs PTX).
  mlir::ssd::BinaryFormat format = mlir::ssd::BinaryFormat::Isa;
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  bool staticShapes = false; ///< else T, batch and pool slots are dynamic
  bool openmp = true;        ///< outer loops on all cores
  /// CPU: the LLVM CPU to JIT-compile for (JITTarget.h); empty: the host.
  /// The serial form's vectors take that CPU's widest registers.
  std::string cpu;
  /// CUDA, GPU emulator: chunk states passed inside the chunk kernel (pass
  /// option fused-state-passing of ssd-plan-gpu-kernels).
  bool fusedStatePassing = mlir::ssd::kDefaultFusedStatePassing;
  /// CUDA, GPU emulator: y computed in the chunk kernel (pass option
  /// fused-output of ssd-lower-to-gpu).
  bool fusedOutput = mlir::ssd::kDefaultFusedOutput;
  /// CUDA, GPU emulator: the most heads a chunk-kernel block serves where
  /// the chip and shapes allow (pipeline option heads-per-block).
  int64_t headsPerBlock = mlir::ssd::kDefaultHeadsPerBlock;
  /// CUDA, GPU emulator: the most shared-memory stages of the chunked
  /// kernels' pipelined reductions (pipeline option pipeline-stages).
  int64_t pipelineStages = mlir::ssd::kDefaultPipelineStages;
  /// CUDA, GPU emulator: C·Bᵀ in the chunk kernel's state blocks where the
  /// fused output runs on wgmma (pipeline option cb-in-block).
  bool cbInBlock = false;
  /// The tensor form (operands as tensors, y returned) instead of the memref
  /// form, as a graph compiler holds the op; with `constantWeights`, A, D
  /// and dt_bias are constants in the module, from the signature problem.
  bool tensorForm = false;
  bool constantWeights = false;
  /// The op is invariant (pipeline option invariant): bit-identical results
  /// however it is batched, split, formed or targeted.
  bool invariant = false;
};

/// Adds the pipeline of `options.target` (`--ssd-to-cpu`, `--ssd-to-nvvm`
/// or `--ssd-to-gpu-emulator`) with the options' form, chunk size, chip,
/// format, openmp and invariant to `pm`; the CPU's serial form with vectors of
/// `vectorWidth` f32 lanes (0: the host's widest).
void buildPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                   int64_t vectorWidth = 0);

/// The form in which code compiled with `options` runs `problem`: the form
/// asked for, or under `auto` the choice ssd-select-form makes (at compile
/// time for static shapes, in the compiled code for dynamic ones) with the
/// options the target's pipeline gives it.
mlir::ssd::Form formThatRuns(const ScanProblem &problem,
                             const CompileOptions &options);

/// A draft tree (token_parents) runs the serial form only and not in the
/// invariant mode: false, with a one-line error naming the choice that
/// cannot serve it, when `options` ask for the chunked form or invariance.
bool checkTreeOptions(const ScanProblem &problem, const CompileOptions &options,
                      std::string &error);

/// The CPU loops allocate their workspace with malloc and cannot report
/// failure: false, with a one-line error naming the form and both sizes,
/// when code compiled with `options` would need more for `problem` than
/// this machine's memory.
bool checkCPUWorkspace(const ScanProblem &problem,
                       const CompileOptions &options, std::string &error);

/// The module ScanKernel::compile starts from for `problem` and `options`
/// (before any pass), printed by MLIR's printer into `ir`.
bool printScanModule(const ScanProblem &problem, const CompileOptions &options,
                     std::string &ir, std::string &error);

/// One compiled op, callable on any problem with the signature it was
/// compiled for (with dynamic shapes: any T, batch and pool size).
class ScanKernel {
public:
  ~ScanKernel();
  static std::unique_ptr<ScanKernel> compile(const ScanProblem &signature,
                                             const CompileOptions &options,
                                             std::string &error);
  /// Runs the op in place on `operands`; `seconds` gets the call's wall time
  /// (CUDA: of the compiled call, which ends with a stream synchronisation;
  /// the copies to and from the device are outside it).
  bool run(HostOperands &operands, double &seconds, std::string &error);
  /// Runs the op in place on caller-owned row-major buffers: `data[i]` holds
  /// operand i of operandLayouts(problem) (y included), and `problem` gives
  /// the extents and flags only (its arrays may be empty). On the CPU the
  /// compiled code works on them directly; on the GPU targets they are
  /// copied to the device and y and the pool copied back once the call
  /// succeeded. Memref form only.
  bool runOnBuffers(const ScanProblem &problem, const std::vector<void *> &data,
                    std::string &error);

private:
  ScanKernel();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace ssd

#endif // SSD_EXECUTION_SCANKERNEL_H
