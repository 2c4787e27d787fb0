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

/// The rule's thresholds on the host CPU (the defaults above).
inline constexpr FormThresholds kCPUFormThresholds{};

/// Thresholds of `auto` for the GPU pipelines. Not yet measured on a GPU:
/// chunked once a launch has 1024 tokens and its sequences average 256, where
/// the serial kernel's token loop (one step per token per sequence) stops
/// being hidden by parallelism over heads and sequences.
inline constexpr FormThresholds kGPUFormThresholds{1024, 256, false};

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_FORMSELECTION_H
