//===- Passes.h - ssd conversion passes -------------------------*- C++ -*-===//

#ifndef SSD_CONVERSION_PASSES_H
#define SSD_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "ssd/Transforms/FormSelection.h"

namespace mlir {
class RewritePatternSet;
namespace ssd {

/// Default shared memory per thread block the GPU kernels may use, in bytes:
/// 99 KiB, the opt-in maximum of sm_86 and sm_89, the smallest among the
/// chips the project supports (sm_80 allows 166912, sm_90 and sm_90a
/// 232448). The default of the pass option `shared-memory-limit`.
constexpr int64_t kDefaultSharedMemoryLimit = 101376;

/// Defaults of the pass options `ldmatrix` and `cp-async`: whether the
/// chunked kernels load tensor-core fragments with ldmatrix and copy raw
/// operand tiles with cp.async (see LowerToGPUOptions).
constexpr bool kDefaultLdmatrix = true;
constexpr bool kDefaultAsyncCopies = true;
/// Default of the pass option `fused-state-passing`: whether the chunked
/// form passes chunk states inside the chunk kernel (a decoupled look-back)
/// instead of in a launch of its own.
constexpr bool kDefaultFusedStatePassing = true;

#define GEN_PASS_DECL
#include "ssd/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ssd/Conversion/Passes.h.inc"

/// Options of the loop lowering shared by the pass and the pattern entry
/// point.
struct LowerToLoopsOptions {
  /// head_dim rows per parallel task of the serial form.
  int64_t serialPTile = 64;
  /// f32 lanes of the serial form's vectors (a power of two); 0: the host's
  /// widest, hostF32VectorWidth().
  int64_t vectorWidth = 0;
};

/// f32 lanes of the host CPU's widest vector registers: 16 with AVX-512, 8
/// with AVX, 4 with SSE or NEON, else 1.
int64_t hostF32VectorWidth();

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops
/// carrying a `form` attribute into scf loops, for hosts that run it in
/// their own greedy or conversion driver.
void populateSSDToLoopsPatterns(RewritePatternSet &patterns,
                                const LowerToLoopsOptions &options = {});

/// Options of the GPU lowering shared by the pass and the pattern entry
/// point.
struct LowerToGPUOptions {
  /// head_dim rows of the state per warp in the serial kernel.
  int64_t serialRowsPerWarp = 4;
  /// Warps per thread block in the serial kernel.
  int64_t serialWarpsPerBlock = 4;
  /// Most shared memory one thread block may use, in bytes (the target
  /// chip's opt-in maximum). An op whose kernels need more is not lowered;
  /// the pass reports it.
  int64_t sharedMemoryLimit = kDefaultSharedMemoryLimit;
  /// Load tensor-core fragments from shared memory with ldmatrix (else with
  /// one 32-bit shared load per fragment register).
  bool ldmatrix = kDefaultLdmatrix;
  /// Copy operand tiles that need no conversion from global to shared
  /// memory with cp.async, double-buffered (else through registers).
  bool asyncCopies = kDefaultAsyncCopies;
  /// Pass chunk states inside the chunk kernel: each (chunk, head) block
  /// takes a ticket, waits for its predecessor chunk's published state and
  /// publishes its own (two launches instead of three). 16-bit models only:
  /// f32 models keep three launches (register budget, ChunkedScanGPU.cpp).
  bool fusedStatePassing = kDefaultFusedStatePassing;
};

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops
/// carrying a `form` attribute (and static H, P, G, N) into gpu.launch
/// kernels. Ops the kernels cannot take (see the pass) are left unchanged.
void populateSSDToGPUPatterns(RewritePatternSet &patterns,
                              const LowerToGPUOptions &options = {});

} // namespace ssd
} // namespace mlir

#endif // SSD_CONVERSION_PASSES_H
