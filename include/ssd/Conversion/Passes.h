//===- Passes.h - ssd conversion passes -------------------------*- C++ -*-===//

#ifndef SSD_CONVERSION_PASSES_H
#define SSD_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"

namespace mlir {
class RewritePatternSet;
namespace ssd {

/// Default shared memory per thread block the GPU kernels may use, in bytes:
/// that of sm_86 and sm_89 (99 KiB), the smallest among the chips the
/// project supports. The default of the pass option `shared-memory-limit`.
constexpr int64_t kDefaultSharedMemoryLimit =
    sharedMemoryLimitForChip(GPUChip::SM86);

/// Defaults of the pass options `ldmatrix` and `cp-async`: whether the
/// chunked kernels load tensor-core fragments with ldmatrix and copy raw
/// operand tiles with cp.async.
constexpr bool kDefaultLdmatrix = true;
constexpr bool kDefaultAsyncCopies = true;
/// Default of the pass option `fused-state-passing`: whether the chunked
/// form passes chunk states inside the chunk kernel (a decoupled look-back)
/// instead of in a launch of its own.
constexpr bool kDefaultFusedStatePassing = true;
/// Default of the pass option `fused-output`: whether, with fused state
/// passing, the chunk kernel's (chunk, head) blocks also compute y.
constexpr bool kDefaultFusedOutput = true;
/// Default of the pass option `wgmma`: off, since wgmma needs sm_90a; the
/// GPU pipelines turn it on when they compile for that chip.
constexpr bool kDefaultWgmma = false;
/// Default of the pass option `pair-heads`: where wgmma and the fused output
/// run and a group has an even number of heads, a chunk-kernel block serves
/// two heads.
constexpr bool kDefaultPairHeads = true;

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

/// The options of ssd-lower-to-gpu (generated from Passes.td), under the
/// name the GPU kernel builders take them by.
using LowerToGPUOptions = SSDLowerToGPUOptions;

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops
/// carrying a `form` attribute (and static H, P, G, N) into gpu.launch
/// kernels. Ops the kernels cannot take (see the pass) are left unchanged.
/// `options` are those of the pass, ssd-lower-to-gpu.
void populateSSDToGPUPatterns(RewritePatternSet &patterns,
                              const SSDLowerToGPUOptions &options = {});

} // namespace ssd
} // namespace mlir

#endif // SSD_CONVERSION_PASSES_H
