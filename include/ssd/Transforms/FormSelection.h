//===- FormSelection.h - the rule that picks serial or chunked --*- C++ -*-===//
//
// One rule, used by ssd-select-form at compile time, emitted as IR for
// dynamic shapes, and evaluated by tools that report which form ran; with it
// every default the rule and the chunked form take (the CPU and the GPU
// thresholds, the chunk size), which options, tools and pipelines read from
// here; their ranges are in ssd/Support/SettingRanges.h. Plain C++: the
// ahead-of-time runner, which links neither LLVM nor MLIR, reads it too.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_TRANSFORMS_FORMSELECTION_H
#define SSD_TRANSFORMS_FORMSELECTION_H

#include "ssd/Support/EnumName.h"
#include "ssd/Support/SettingRanges.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mlir {
namespace ssd {

/// What a `form` option asks for: the rule's choice per op, or one form for
/// every op.
enum class FormChoice { Auto, Chunked, Serial };

inline constexpr EnumName<FormChoice> kFormChoiceNames[] = {
    {FormChoice::Auto, "auto", "choose per op by the launch shape"},
    {FormChoice::Chunked, "chunked", "chunked form for every op"},
    {FormChoice::Serial, "serial", "token-serial form for every op"},
};

/// Tokens per chunk of the chunked form unless an option says otherwise.
inline constexpr int64_t kChunkSizeDefault = 256;
/// serial-p-tile's default (ssd-lower-to-loops, --ssd-to-cpu, and the
/// runner's workspace estimate, cpuWorkspaceBytes): head_dim rows per serial
/// task; 64-row tasks in 16-row blocks measured fastest (docs/performance.md).
inline constexpr int64_t kSerialPTileDefault = 64;

/// Defaults measured by the CPU benchmark (docs/performance.md): on the host
/// CPU the serial form was faster at every measured launch, decode through
/// 16k-token prefills, so the defaults keep `auto` serial up to sequences
/// averaging 64k tokens, past the measured range. GPU pipelines pass their
/// own thresholds.
struct FormThresholds {
  /// Fewest total tokens T for which the chunked form is chosen.
  int64_t minChunkedTokens = 65536;
  /// Fewest tokens per sequence on average (T / batch) for which the chunked
  /// form is chosen.
  int64_t minChunkedTokensPerSeq = 65536;
  /// With state checkpoints closer together than a chunk, every chunk holds
  /// one that the chunked form reaches by a serial walk from the chunk's
  /// entering state (ChunkedScan.cpp): it then does the serial form's state
  /// updates on top of its own work. Where total work decides (the CPU) such
  /// ops stay serial; the GPU's walks run in parallel over chunks, each at
  /// most a chunk long, against the serial kernel's walk over the whole
  /// sequence, so there the launch shape still decides.
  bool serialForDenseCheckpoints = true;
  /// The GPU chunked kernels encode an 8-bit pool's row only where one warp
  /// holds it (gpuChunkedRowLanes); where they cannot, the GPU pipelines keep
  /// such ops serial (and never mixed) rather than build kernels that fail.
  /// The CPU's chunked form writes any row.
  bool serialForUnchunkedPools = false;

  /// True when a launch of `tokens` tokens over `batch` sequences should run
  /// the chunked form: long launches of long sequences. Decode (one token per
  /// sequence), speculative verify (a few) and short launches stay serial.
  bool choosesChunked(int64_t tokens, int64_t batch) const {
    return tokens >= minChunkedTokens &&
           tokens >= minChunkedTokensPerSeq * std::max<int64_t>(batch, 1);
  }

  /// True when checkpoints every `interval` tokens (none: nullopt) make an
  /// op serial whatever its launch shape, for chunks of `chunkSize`.
  bool checkpointsKeepSerial(std::optional<int64_t> interval,
                             int64_t chunkSize) const {
    return serialForDenseCheckpoints && interval && *interval < chunkSize;
  }

  /// True when an op whose pool holds 8-bit rows of `scaledPoolDstate`
  /// columns (nullopt: another pool type) must stay serial.
  bool poolKeepsSerial(std::optional<int64_t> scaledPoolDstate) const;

  /// Per sequence, the same rule as for a launch of that one sequence: a
  /// sequence of at least this many tokens is worth the chunked form even
  /// when the rest of its launch is not.
  int64_t minChunkedSequence() const {
    return std::max<int64_t>({minChunkedTokens, minChunkedTokensPerSeq, 1});
  }
  /// True when a launch the rule keeps serial may still hold a sequence
  /// long enough for the chunked form (a mixed launch).
  bool mayMix(int64_t tokens, int64_t batch) const {
    return !choosesChunked(tokens, batch) && tokens >= minChunkedSequence();
  }
};

/// State elements a thread of the GPU chunked kernels' state passing and
/// final stores holds, four unless dstate is not a multiple of four.
inline constexpr int64_t kGPUChunkedStateVector = 4;
/// Most state elements such a thread holds so that one warp holds a whole
/// row of an 8-bit pool (dstate 512): 16 f32 registers a vector, three
/// vectors live in state passing.
inline constexpr int64_t kGPUMaxWholeRowStateVector = 16;

/// State elements a thread of those kernels holds: with `wholeRows` (an
/// 8-bit pool, whose row scale is a maximum over the row), dstate / 32 where
/// four a lane would spread a row of up to 512 over more than one warp.
inline int64_t gpuChunkedStateVector(int64_t dstate, bool wholeRows) {
  const int64_t v =
      dstate % kGPUChunkedStateVector == 0 ? kGPUChunkedStateVector : 1;
  const int64_t wide = dstate / 32;
  const bool wideIsPowerOf2 = wide > 0 && (wide & (wide - 1)) == 0;
  if (wholeRows && dstate / v > 32 && dstate % 32 == 0 && wideIsPowerOf2 &&
      wide <= kGPUMaxWholeRowStateVector)
    return wide;
  return v;
}

/// Threads of those kernels that hold one row of an 8-bit pool: its scale
/// is combined over them with shuffles, so they must be aligned lanes of
/// one warp (a power of two up to 32); 0 where they are not (dstate 384,
/// 1024, ...).
inline int64_t gpuChunkedRowLanes(int64_t dstate) {
  if (dstate < 1)
    return 0;
  const int64_t lanes = dstate / gpuChunkedStateVector(dstate, true);
  if (lanes < 1 || lanes > 32 || (lanes & (lanes - 1)) != 0)
    return 0;
  return lanes;
}

inline bool
FormThresholds::poolKeepsSerial(std::optional<int64_t> scaledPoolDstate) const {
  return serialForUnchunkedPools && scaledPoolDstate &&
         gpuChunkedRowLanes(*scaledPoolDstate) == 0;
}

/// The rule's thresholds on the host CPU (the defaults above).
inline constexpr FormThresholds kCPUFormThresholds{};

/// Thresholds of `auto` for the GPU pipelines. Not yet measured on a GPU:
/// chunked once a launch has 1024 tokens and its sequences average 256, where
/// the serial kernel's token loop (one step per token per sequence) stops
/// being hidden by parallelism over heads and sequences. Dense checkpoints
/// do not keep an op serial there; 8-bit pools the chunked kernels cannot
/// encode do.
inline constexpr FormThresholds kGPUFormThresholds{1024, 256, false, true};

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_FORMSELECTION_H
