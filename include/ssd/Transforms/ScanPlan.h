//===- ScanPlan.h - the one decision per scan op ----------------*- C++ -*-===//
//
// What ssd-select-form decides for one op from the options and the launch
// shape, as a plain-C++ function: the pass writes its result on the op
// (#ssd.scan_config), and the runner and ssd-run take the form and the
// workspace estimate from the same function instead of re-deriving them.
// Its decision is the dialect's Form; everything else is plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_TRANSFORMS_SCANPLAN_H
#define SSD_TRANSFORMS_SCANPLAN_H

#include "ssd/IR/SSDAttrs.h"
#include "ssd/Transforms/FormSelection.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace ssd {

/// What the plan depends on: the options of ssd-select-form and the op.
struct ScanRequest {
  FormChoice form = FormChoice::Auto;
  /// The option's chunk size, unless the op pins its own.
  int64_t chunkSize = kChunkSizeDefault;
  FormThresholds thresholds = kCPUFormThresholds;
  /// Total tokens T and sequences; nullopt where known only at run time.
  std::optional<int64_t> tokens, batch;
  /// The op's checkpoint_interval, if it has checkpoints.
  std::optional<int64_t> checkpointInterval;
  /// The op is invariant (by the option or by hand).
  bool invariant = false;
  /// The op has token_parents (a draft tree): only the serial form, never
  /// mixed with chunked launches, serves it.
  bool tree = false;
  /// The op's dstate when its pool holds 8-bit rows with a scale each
  /// (FormThresholds::poolKeepsSerial), else nullopt.
  std::optional<int64_t> scaledPoolDstate;
};

/// The decision for one op.
struct ScanPlan {
  /// nullopt: the launch shape is known only at run time, and `auto` puts
  /// both forms behind a branch on it (forForm gives each branch's plan).
  std::optional<Form> form;
  int64_t chunkSize = kChunkSizeDefault;
  /// For a serial op whose launch may still hold a sequence long enough
  /// for the chunked form: the per-sequence threshold of a mixed launch.
  std::optional<int64_t> mixedMinTokens;
  /// An invariant op: it runs one arithmetic in every form, so it never
  /// mixes (its GPU plan is the serial kernel's only).
  bool invariant = false;

  /// The plan of the branch that runs `chunkedForm` when the shape is
  /// known only at run time: the serial branch may mix.
  ScanPlan forForm(Form branch) const {
    ScanPlan plan = *this;
    plan.form = branch;
    if (branch == Form::chunked)
      plan.mixedMinTokens.reset();
    return plan;
  }
};

/// The rule of FormSelection.h applied once: a forced form wins; under
/// `auto`, a tree is serial and never mixes, so is an 8-bit pool the
/// target's chunked kernels cannot write, dense checkpoints keep an op
/// serial (where the thresholds say so), a static shape decides by
/// FormThresholds::choosesChunked, and a serial launch that may hold a long
/// sequence may mix unless the op is invariant.
inline ScanPlan planScan(const ScanRequest &request) {
  const FormThresholds &rule = request.thresholds;
  ScanPlan plan;
  plan.chunkSize = request.chunkSize;
  plan.invariant = request.invariant;
  const bool mayMix = !request.invariant && !request.tree;
  if (request.form != FormChoice::Auto) {
    plan.form =
        request.form == FormChoice::Chunked ? Form::chunked : Form::serial;
    return plan;
  }
  if (request.tree || rule.poolKeepsSerial(request.scaledPoolDstate)) {
    plan.form = Form::serial;
    return plan;
  }
  if (rule.checkpointsKeepSerial(request.checkpointInterval,
                                 request.chunkSize)) {
    plan.form = Form::serial;
    return plan;
  }
  if (!request.tokens || !request.batch) {
    if (mayMix)
      plan.mixedMinTokens = rule.minChunkedSequence();
    return plan;
  }
  plan.form = rule.choosesChunked(*request.tokens, *request.batch)
                  ? Form::chunked
                  : Form::serial;
  if (mayMix && rule.mayMix(*request.tokens, *request.batch))
    plan.mixedMinTokens = rule.minChunkedSequence();
  return plan;
}

} // namespace ssd
} // namespace mlir

#endif // SSD_TRANSFORMS_SCANPLAN_H
