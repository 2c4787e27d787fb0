//===- AotCompiler.h - ahead-of-time compilation of scan ops ----*- C++ -*-===//
//
// What `ssd-compile` does: compiles the op for the signature of each input
// directory (dtype, H, P, G, N, optional operands, cache-index layout; T,
// batch and the slot count stay dynamic) in each requested form, or a whole
// tensor/memref-level module in one form, through `--ssd-to-nvvm` (target
// "cuda") or `--ssd-to-gpu-emulator` ("gpu-emu"), into one host object
// file: host code calling the mgpu* runtime, the kernels embedded in it, and
// a constructor per function that registers it, with its key, target, chip
// and format, through `ssd_aot_register_chip_variant` (the ahead-of-time
// runner's registry; scan variants under ssd::variantKey, module functions
// as `module:<name>`). With several chips each function is compiled once per
// chip, under symbol names that include the chip.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_AOT_AOTCOMPILER_H
#define SSD_AOT_AOTCOMPILER_H

#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Runner/Problem.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssd {
namespace aot {

/// What to compile into one object file, and how.
struct CompileRequest {
  /// Input directories: one variant per distinct signature and form.
  std::vector<std::string> inputs;
  /// Or a module file (exclusive with `inputs`), compiled with one form;
  /// every public func.func gets a C interface (`_mlir_ciface_<name>`).
  std::string module;
  ModelDType dtype = ModelDType::F32;
  /// The pool of every --inputs variant (its files as ssd-run reads them)
  /// and its rounding; both show in the variants' keys. The seed of
  /// stochastic rounding is an operand, given at each call.
  PoolDType poolDType = PoolDType::F32;
  PoolRounding poolRounding = PoolRounding::NearestEven;
  /// The forms, as spelled in mlir::ssd::kFormChoiceNames (they name the
  /// variants).
  std::vector<std::string> forms = {"auto"};
  /// "cuda" or "gpu-emu": the runtime the kernels are for.
  std::string target = "cuda";
  /// Every function is compiled once per chip (the host code differs: kernel
  /// plans follow the chip's limits), registered with its chip; the runner
  /// picks one by the device's compute capability.
  std::vector<mlir::ssd::GPUChip> chips = {mlir::ssd::kDefaultGPUChip};
  /// target "cuda" only: isa (PTX), bin (cubin, needs ptxas) or fatbin
  /// (cubin and PTX, the PTX for newer devices; needs ptxas and fatbinary).
  mlir::ssd::BinaryFormat format = mlir::ssd::BinaryFormat::Isa;
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  /// The most heads a chunk-kernel block serves (heads-per-block); another
  /// bound than the default shows in the variants' keys, so that one
  /// executable can hold both, to compare them on a GPU.
  int64_t headsPerBlock = mlir::ssd::kDefaultHeadsPerBlock;
  /// The most stages of the chunked kernels' pipelined reductions
  /// (pipeline-stages); another bound than the default shows in the keys
  /// too.
  int64_t pipelineStages = mlir::ssd::kDefaultPipelineStages;
  /// C·Bᵀ in the chunk kernel's state blocks where the planner can
  /// (cb-in-block); the keys end in ` cb_in_block` then.
  bool cbInBlock = false;
  /// Every op invariant (pipeline option invariant); the variants' keys end
  /// in ` invariant`, so one executable can hold both kinds.
  bool invariant = false;
  /// The checkpoint interval of the input directories that hold
  /// checkpoint_slots.npy (0: none may); part of their signature.
  int64_t checkpointInterval = 0;
  /// The object file to write.
  std::string output;
};

/// Compiles `request` into its output object file. Prints a line per
/// compiled function, and a note per external function the object calls
/// that no ssd library defines, to stderr. False with a one-line `error`
/// otherwise.
bool compileObject(const CompileRequest &request, std::string &error);

} // namespace aot
} // namespace ssd

#endif // SSD_AOT_AOTCOMPILER_H
