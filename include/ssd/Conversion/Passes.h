//===- Passes.h - ssd conversion passes -------------------------*- C++ -*-===//

#ifndef SSD_CONVERSION_PASSES_H
#define SSD_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace ssd {

#define GEN_PASS_DECL
#include "ssd/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ssd/Conversion/Passes.h.inc"

/// Options of the loop lowering shared by the pass and the pattern entry
/// point.
struct LowerToLoopsOptions {
  /// head_dim rows per parallel task of the serial form.
  int64_t serialPTile = 16;
};

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
};

/// Adds the pattern that rewrites memref-form ssd.chunk_scan_varlen ops
/// carrying a `form` attribute (and static H, P, G, N) into gpu.launch
/// kernels.
void populateSSDToGPUPatterns(RewritePatternSet &patterns,
                              const LowerToGPUOptions &options = {});

} // namespace ssd
} // namespace mlir

#endif // SSD_CONVERSION_PASSES_H
