//===- Passes.h - ssd conversion passes -------------------------*- C++ -*-===//

#ifndef SSD_CONVERSION_PASSES_H
#define SSD_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "ssd/IR/SSDAttrs.h"
#include "ssd/Support/EnumOption.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"
#include "ssd/Transforms/Passes.h"

#include <string>

namespace mlir {
namespace ssd {

/// What the `matmul` option of ssd-plan-gpu-kernels asks for.
enum class MatmulChoice { Auto, MmaSync, Wgmma };

inline constexpr EnumName<MatmulChoice> kMatmulChoiceNames[] = {
    {MatmulChoice::Auto, "auto",
     "wgmma where the chip has it (sm_90a), else mma.sync"},
    {MatmulChoice::MmaSync, "mma_sync", "mma.sync on every chip"},
    {MatmulChoice::Wgmma, "wgmma", "wgmma (sm_90a only)"},
};

inline constexpr EnumName<FragmentLoads> kFragmentLoadsNames[] = {
    {FragmentLoads::ldmatrix, "ldmatrix", "ldmatrix, four 8x8 matrices each"},
    {FragmentLoads::scalar, "scalar",
     "one 32-bit load per register (two 16-bit loads when transposed)"},
};

inline constexpr EnumName<Staging> kStagingNames[] = {
    {Staging::cp_async, "cp_async",
     "cp.async copies of raw tiles, double-buffered"},
    {Staging::registers, "registers",
     "loads into registers, then stores to shared memory"},
};

} // namespace ssd
} // namespace mlir

SSD_ENUM_PASS_OPTION(::mlir::ssd::MatmulChoice);
SSD_ENUM_PASS_OPTION(::mlir::ssd::FragmentLoads);
SSD_ENUM_PASS_OPTION(::mlir::ssd::Staging);

namespace mlir {
class RewritePatternSet;
namespace ssd {
class ChunkScanVarlenOp;

/// Default of `fused-state-passing` (ssd-plan-gpu-kernels): whether the
/// chunked form passes chunk states inside the chunk kernel (a decoupled
/// look-back) instead of in a launch of its own.
constexpr bool kDefaultFusedStatePassing = true;
/// Default of `fused-output`: whether, with fused state passing, the chunk
/// kernel's (chunk, head) blocks also compute y.
constexpr bool kDefaultFusedOutput = true;

#define GEN_PASS_DECL
#include "ssd/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ssd/Conversion/Passes.h.inc"

/// f32 lanes of the host CPU's widest vector registers: 16 with AVX-512, 8
/// with AVX, 4 with SSE or NEON, else 1.
int64_t hostF32VectorWidth();

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops
/// carrying a `form` attribute into scf loops, for hosts that run it in
/// their own greedy or conversion driver.
/// `options` are those of the pass, ssd-lower-to-loops.
void populateSSDToLoopsPatterns(RewritePatternSet &patterns,
                                const SSDLowerToLoopsOptions &options = {});

/// The GPU kernels' choices for `op` (memref form, with the config of
/// ssd-select-form) under the options of ssd-plan-gpu-kernels: `op`'s
/// config completed as the pass completes it, or a one-line reason why the
/// kernels cannot take it. A config that already records the choices comes
/// back as it is.
FailureOr<ScanConfigAttr>
planGPUKernels(ChunkScanVarlenOp op, const SSDPlanGPUKernelsOptions &options,
               std::string &whyNot);

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops whose
/// config records the GPU kernels' choices (ssd-plan-gpu-kernels) into
/// gpu.launch kernels. Ops the kernels cannot take (see ssd-lower-to-gpu)
/// are left unchanged, with the reason given to the driver's match-failure
/// listener.
void populateSSDToGPUPatterns(RewritePatternSet &patterns);

} // namespace ssd
} // namespace mlir

#endif // SSD_CONVERSION_PASSES_H
