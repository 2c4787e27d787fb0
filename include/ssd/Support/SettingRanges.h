//===- SettingRanges.h - the range of every integer setting ------*- C++
//-*-===//
//
// Each integer setting of the project (pass and pipeline options, the plan's
// fields, the tools' flags, the torch op's arguments) has one documented
// range, defined here once and read by every place that checks it: the
// attribute verifier, the passes' `initialize`, the pipelines, ssd-run,
// ssd-compile, ssd-bench, the ahead-of-time runner and the torch op. Where the
// range depends on the target (the chunk size: the op's limit on the CPU, the
// GPU kernels' cap on a GPU) a function picks it. One wording for every
// message:
//
//   <setting> must be in [<min>, <max>], got <value>
//
// Plain C++: the ahead-of-time runner, which links neither LLVM nor MLIR,
// reads it too.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_SETTINGRANGES_H
#define SSD_SUPPORT_SETTINGRANGES_H

#include "ssd/IR/SSDLimits.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace ssd {

/// The closed range [min, max] of one integer setting.
struct SettingRange {
  int64_t min, max;

  constexpr bool contains(int64_t value) const {
    return value >= min && value <= max;
  }
  /// "must be in [min, max], got value": what follows the setting's name in
  /// every message about it.
  std::string describe(int64_t value) const {
    return "must be in [" + std::to_string(min) + ", " + std::to_string(max) +
           "], got " + std::to_string(value);
  }
};

/// Tokens per chunk on the CPU: the op's own limit.
inline constexpr SettingRange kChunkSizeRange{1, limits::kMaxChunkSize};
/// Tokens per chunk of the GPU kernels: their C Bᵀ workspace grows as the
/// square of the chunk and their grid as the square of its 64-row tiles.
inline constexpr SettingRange kGPUChunkSizeRange{1, 4096};
/// The chunk size a target takes (`gpu`: one of the GPU targets, the GPU
/// emulator included).
constexpr SettingRange chunkSizeRange(bool gpu) {
  return gpu ? kGPUChunkSizeRange : kChunkSizeRange;
}

/// min-chunked-tokens and min-chunked-tokens-per-seq: 0 (every launch
/// chunked) up to the most tokens a launch holds (its product with the
/// batch stays far from 64-bit overflow).
inline constexpr SettingRange kMinChunkedTokensRange{0, limits::kMaxTokens};
/// serial-p-tile of the CPU lowering: head_dim rows per serial task.
inline constexpr SettingRange kSerialPTileRange{1, limits::kMaxSerialPTile};
/// vector-width of the CPU lowering: 0 (the host's widest) or a power of
/// two up to the maximum; 64 lanes is already twice any vector register
/// file today.
inline constexpr SettingRange kVectorWidthRange{0, 64};

/// The serial GPU kernel's head_dim rows per warp (lane r of a warp stores
/// row r of y) and warps per block (1024 threads, every chip's most).
inline constexpr SettingRange kSerialRowsPerWarpRange{1, 32};
inline constexpr SettingRange kSerialWarpsPerBlockRange{1, 32};
/// Shared memory per block the GPU kernels may plan for, in bytes: up to the
/// largest any supported chip allows (sm_90's 227 KiB); each chip's own
/// limit (GPUChip.h) caps it further.
inline constexpr SettingRange kSharedMemoryLimitRange{1, 232448};
/// Heads a block of the chunk kernel serves.
inline constexpr SettingRange kHeadsPerBlockRange{1, 2};
/// Shared-memory stages of the chunked kernels' pipelined reductions: 2 is
/// a double buffer; each more lets copies run one more step ahead.
inline constexpr SettingRange kPipelineStagesRange{2, 4};
/// Blocks of the chunk kernel asked to fit one SM (0: no request; 32 is
/// the most resident blocks any supported chip has).
inline constexpr SettingRange kBlocksPerSMRange{0, 32};
/// Optimization level of the kernel code (LLVM's -O0 to -O3).
inline constexpr SettingRange kGPUOptLevelRange{0, 3};

/// The message for `value` of the setting `name` outside `range`, prefixed
/// with `owner` (a pass, pipeline or tool) when given; empty when it is in
/// range.
inline std::string whyOutOfRange(const std::string &owner,
                                 const std::string &name, SettingRange range,
                                 int64_t value) {
  if (range.contains(value))
    return "";
  return (owner.empty() ? "" : owner + ": ") + name + " " +
         range.describe(value);
}

} // namespace ssd
} // namespace mlir

#endif // SSD_SUPPORT_SETTINGRANGES_H
