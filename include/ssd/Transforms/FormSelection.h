//===- FormSelection.h - the rule that picks serial or chunked --*- C++ -*-===//
//
// One rule, used by ssd-select-form at compile time, emitted as IR for
// dynamic shapes, and evaluated by tools that report which form ran.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_TRANSFORMS_FORMSELECTION_H
#define SSD_TRANSFORMS_FORMSELECTION_H

#include <algorithm>
#include <cstdint>

namespace mlir {
namespace ssd {

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

  /// True when a launch of `tokens` tokens over `batch` sequences should run
  /// the chunked form: long launches of long sequences. Decode (one token per
  /// sequence), speculative verify (a few) and short launches stay serial.
  bool choosesChunked(int64_t tokens, int64_t batch) const {
    return tokens >= minChunkedTokens &&
           tokens >= minChunkedTokensPerSeq * std::max<int64_t>(batch, 1);
  }
};

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_FORMSELECTION_H
