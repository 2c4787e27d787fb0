//===- GPUChip.h - the GPUs the GPU pipelines compile for -------*- C++ -*-===//
//
// The chip values that `chip` options (the GPU pipelines,
// ssd-attach-gpu-emulator-target) and the tools take, spelled once, with
// each chip's shared-memory limit and the kernels' default optimization
// level. Plain C++, like FormSelection.h.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_TRANSFORMS_GPUCHIP_H
#define SSD_TRANSFORMS_GPUCHIP_H

#include "ssd/Support/EnumName.h"
#include "ssd/Support/SettingRanges.h"

#include <cstdint>

namespace mlir {
namespace ssd {

/// The GPUs the GPU pipelines compile for.
enum class GPUChip { SM80, SM86, SM89, SM90, SM90a };

inline constexpr EnumName<GPUChip> kGPUChipNames[] = {
    {GPUChip::SM80, "sm_80", "Ampere A100"},
    {GPUChip::SM86, "sm_86", "Ampere A10, A40, RTX 30"},
    {GPUChip::SM89, "sm_89", "Ada L4, L40, RTX 40"},
    {GPUChip::SM90, "sm_90", "Hopper H100, H200"},
    {GPUChip::SM90a, "sm_90a", "Hopper with its architecture-specific PTX"},
};

/// The chip the GPU pipelines and tools compile for unless told otherwise.
inline constexpr GPUChip kDefaultGPUChip = GPUChip::SM90a;

/// The most shared memory one thread block may use on `chip`, with the
/// dynamic-size opt-in, in bytes (CUDA programming guide, compute
/// capabilities 8.0, 8.6/8.9, 9.0).
constexpr int64_t sharedMemoryLimitForChip(GPUChip chip) {
  switch (chip) {
  case GPUChip::SM80:
    return 166912;
  case GPUChip::SM86:
  case GPUChip::SM89:
    return 101376;
  case GPUChip::SM90:
  case GPUChip::SM90a:
    return 232448;
  }
  return 0;
}

/// Shared memory a kernel may use without the dynamic-size opt-in (every
/// chip): the most static shared memory ptxas accepts in one kernel, and
/// the size above which the runtime must raise the kernel's limit.
inline constexpr int64_t kStaticSharedMemoryLimit = 48 * 1024;

/// The optimization level of kernel code (NVVM, or the host code of the
/// emulated kernels) unless told otherwise (kGPUOptLevelRange has the rest).
inline constexpr int kGPUOptLevelDefault = 2;

/// The largest shared-memory-limit: the largest sharedMemoryLimitForChip.
static_assert(kSharedMemoryLimitRange.max ==
              sharedMemoryLimitForChip(GPUChip::SM90a));

/// The serial GPU kernel's tiling unless told otherwise (ssd-plan-gpu-kernels,
/// the GPU pipelines): head_dim rows of the state per warp, warps per block.
inline constexpr int64_t kSerialRowsPerWarpDefault = 4;
inline constexpr int64_t kSerialWarpsPerBlockDefault = 4;

/// The most heads of one group a chunk-kernel block serves unless told
/// otherwise (heads-per-block). One: on an H200 (2026-12-04) one head per
/// block (two 256-thread blocks per SM) ran the bf16 chunk kernel 8-14%
/// faster than two (one 512-thread block) at Granite-4, Mamba2-2.7B and
/// Codestral shapes, although two heads move fewer L2 bytes per token
/// (docs/performance.md, "Measured on an H200"). heads-per-block=2 stays
/// available.
inline constexpr int64_t kDefaultHeadsPerBlock = 1;

/// The most shared-memory stages of the chunked kernels' pipelined
/// reductions unless told otherwise (pipeline-stages): three, the planner
/// taking two where a third would cost a resident block. On an H200 the
/// chunk kernel is latency-bound (issue active 39% of cycles at 16 warps
/// per SM, L2 at 21% of its peak: docs/performance.md, "Measured on an
/// H200"), and with two stages a step's copies have only the step before
/// it to arrive.
inline constexpr int64_t kDefaultPipelineStages = 3;

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_GPUCHIP_H
