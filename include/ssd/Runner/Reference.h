//===- Reference.h - Double-precision reference of the SSD scan -*- C++ -*-===//
//
// The token-serial recurrence of docs/overview.md ("The op"), evaluated in
// double on the (already rounded) inputs of a ScanProblem. It is deliberately
// the most direct transcription possible: it is what every compiled form is
// checked against.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_RUNNER_REFERENCE_H
#define SSD_RUNNER_REFERENCE_H

#include "ssd/Runner/Problem.h"

#include <string>
#include <vector>

namespace ssd {

/// softplus(v) = v for v > 20, else log1p(exp(v)).
double referenceSoftplus(double v);

/// y: [T,H,P]. pool: [S,H,P,N], starting as a copy of p.pool; only the slots
/// of writing sequences and the checkpoint slots of checkpoint boundaries
/// change (checkpoints hold the state after their token). With token_parents
/// each token continues its parent's state (the initial state for -1) and the
/// final state is the last token's. Padding sequences
/// start from zero and write nothing. p must have passed loadProblem's
/// validation (or be built to the same rules).
///
/// Work and memory follow the launch's content, not its declared extents:
/// sequences without tokens that write nothing are skipped, and the [H, P, N]
/// state is only allocated for a sequence with tokens. Returns false (with a
/// one-line message in `error` when given) if that allocation fails.
bool referenceScan(const ScanProblem &p, std::vector<double> &y,
                   std::vector<double> &pool, std::string *error = nullptr);

/// The same with the pool as the op stores it: every state written (final,
/// checkpoint, or the initial state of a writer without tokens) is rounded
/// to f32 and then stored by the contract of docs/overview.md ("Compressed
/// state pools") for p.poolDType, p.poolRounding and p.roundingSeed
/// (ssd/Runner/PoolFormat.h); `pool` starts as p's stored pool.
bool referenceScan(const ScanProblem &p, std::vector<double> &y,
                   PoolContents &pool, std::string *error = nullptr);

/// y rounded once to the model dtype (held as float), pool rounded to
/// float32, or once to bf16 for a bf16 pool (held as float).
void roundOutputs(const ScanProblem &p, const std::vector<double> &y,
                  const std::vector<double> &pool, std::vector<float> &yOut,
                  std::vector<float> &poolOut);

} // namespace ssd

#endif // SSD_RUNNER_REFERENCE_H
