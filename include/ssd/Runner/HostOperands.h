//===- HostOperands.h - an op's operands in host memory ---------*- C++ -*-===//
//
// The operands of one ssd.chunk_scan_varlen call laid out as the compiled
// function reads them (model-dtype arrays as f32 or 16-bit patterns, masks as
// bytes), the descriptors that pass them, and the signature that decides
// which compiled function fits a problem. Plain C++: shared by the JIT
// runner, the ahead-of-time runner and the benchmarks.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_RUNNER_HOSTOPERANDS_H
#define SSD_RUNNER_HOSTOPERANDS_H

#include "ssd/Runner/Problem.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssd {

/// One operand of the op: its keyword, shape and memref element type.
struct OperandLayout {
  std::string name; ///< keyword in the op syntax ("outs" for y)
  std::vector<int64_t> shape;
  std::string elementType;
};

/// The op's operands for `problem`, in operand order; absent optional
/// operands are skipped.
std::vector<OperandLayout> operandLayouts(const ScanProblem &problem);

/// Bytes of one element of a memref element type of OperandLayout ("f32",
/// "bf16", "i1", "f8E4M3FN", "i64", ...).
size_t elementBytes(const std::string &elementType);

/// StridedMemRefType-shaped descriptors (allocated and aligned pointer,
/// offset, sizes, row-major strides) of row-major buffers of `shapes` at
/// `data`.
std::vector<std::vector<int64_t>>
stridedDescriptors(const std::vector<std::vector<int64_t>> &shapes,
                   const std::vector<void *> &data);

/// What a compiled function is specialised to: dtype, H, P, G, N, the pool
/// type and rounding, which optional operands are present, the cache-index
/// layout and, with checkpoints, the slots' element type, K and the interval
/// (T, batch and the slot count stay dynamic). Equal keys mean the same
/// function fits.
std::string signatureKey(const ScanProblem &problem);

/// The kernel choices an ahead-of-time compiled variant is built with,
/// besides its signature. Named fields rather than positional arguments:
/// two integers and two flags in a row are easy to swap at a call site.
struct VariantChoices {
  /// The form asked for: "auto", "serial" or "chunked".
  std::string form = "auto";
  int64_t chunkSize = mlir::ssd::kChunkSizeDefault;
  /// The chunked kernels' bound on the heads a block serves.
  int64_t headsPerBlock = mlir::ssd::kDefaultHeadsPerBlock;
  /// The chunked kernels' bound on their operand ring's stages.
  int64_t pipelineStages = mlir::ssd::kDefaultPipelineStages;
  /// C·Bᵀ computed in the chunk kernel's state blocks.
  bool cbInBlock = false;
  /// The op marked invariant (one token-serial kernel).
  bool invariant = false;
};

/// The key under which an ahead-of-time compiled variant registers (and the
/// AOT runner looks it up): the signature, the form, the chunk size and,
/// when the chunked kernels were given another bound on the heads a block
/// serves or on their pipeline stages, those too, " cb_in_block" where they
/// compute C·Bᵀ in the state blocks, and " invariant" for an invariant op.
std::string variantKey(const ScanProblem &problem,
                       const VariantChoices &choices);

/// Bytes the CPU loops of ssd-lower-to-loops allocate on the heap for one
/// call on `p` (as a double: the product can exceed 64 bits for absurd
/// extents), for `threads` tasks running at once: the serial form's work
/// lists and heap state tiles, or the chunked form's workspaces ([K, H, P, N]
/// chunk states and [K, G, R, R] C Bᵀ with K = ceil(T / L) + min(batch, T)
/// and R = min(L, T); lib/Conversion/SSDToLoops/ChunkedScan.cpp).
double cpuWorkspaceBytes(const ScanProblem &p, bool chunked, int64_t chunkSize,
                         int threads);

class HostOperands {
public:
  explicit HostOperands(const ScanProblem &problem);

  size_t size() const { return buffers.size(); }
  std::vector<uint8_t> &bytes(size_t i) { return buffers[i].bytes; }
  const std::vector<int64_t> &shape(size_t i) const { return buffers[i].shape; }
  size_t yIndex() const { return yPosition; }
  size_t poolIndex() const { return poolPosition; }
  /// ssm_pool_scales (8-bit pools only).
  size_t scalesIndex() const { return scalesPosition; }
  /// The operands a call writes, which a device call copies back: y, the
  /// pool and, for an 8-bit pool, its scales.
  std::vector<size_t> writtenIndices() const;

  /// StridedMemRefType-shaped descriptors (allocated and aligned pointer,
  /// offset, sizes, row-major strides) of the operands living at `data[i]`.
  std::vector<std::vector<int64_t>>
  descriptors(const std::vector<void *> &data) const;

  /// y as float32 holding model-dtype values, and the pool as float32 (an
  /// 8-bit pool decoded, code * scale).
  void readOutputs(std::vector<float> &y, std::vector<float> &pool) const;
  /// The same with the pool as stored (8-bit codes and scales as they are).
  void readOutputs(std::vector<float> &y, PoolContents &pool) const;

private:
  struct Buffer {
    std::vector<uint8_t> bytes;
    std::vector<int64_t> shape;
  };
  const ScanProblem &problem;
  std::vector<Buffer> buffers; // in operand order
  size_t yPosition = 0, poolPosition = 0, scalesPosition = 0;
};

} // namespace ssd

#endif // SSD_RUNNER_HOSTOPERANDS_H
