//===- MixerHarness.h - inputs and check of the Mamba-2 mixer example -----===//
//
// The plain C++ half of the mixer runners (no MLIR, no LLVM): seeded inputs
// in model ranges for one mixed prefill/decode launch, the operands in the
// layout the compiled function reads, and the check of its output and
// updated pool against an independent computation (the projection split on
// the host, the double-precision reference scan, the D skip and SiLU gate in
// double) with the tolerances of docs/overview.md (Accuracy). Shared by
// mixer-run (JIT, CPU) and mixer-aot (ahead-of-time, GPU; mixer-aot-main.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_EXAMPLES_MIXERHARNESS_H
#define SSD_EXAMPLES_MIXERHARNESS_H

#include "ssd/Runner/Problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssd {
namespace mixer {

/// Model shapes of the function
/// (zxbcdt [?, dInProj], A [H], D [H], dt_bias [H], pool [?, H, P, N],
///  query_start_loc [?], has_initial_state [?], cache_indices [?]) -> out,
/// with dInProj = 2*H*P + 2*G*N + H.
struct Shapes {
  int64_t H = 0, P = 0, N = 0, G = 0, dInProj = 0;
};

/// The shapes of examples/mamba2-mixer/mixer.mlir (Mamba2-2.7B).
Shapes mamba2Shapes();

/// A host array in the layout the compiled code reads, with its memref
/// descriptor (allocated and aligned pointers, offset, sizes, row-major
/// strides).
struct HostArray {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape;
  std::vector<int64_t> descriptor;

  /// The descriptor of these bytes, or of a copy of them at `base` (e.g. on
  /// the device).
  void *describe(void *base = nullptr);
};

/// One launch's inputs, in float (model-rounded) and integer form.
struct Inputs {
  int64_t T = 0, batch = 0, S = 0;
  std::vector<float> zxbcdt, A, D, dtBias, pool;
  std::vector<int32_t> queryStartLoc, cacheIndices;
  std::vector<uint8_t> hasInitialState;
};

/// Seeded inputs in the ranges models use (docs/overview.md, Accuracy): one
/// sequence per entry of `seqlens`, two slots no sequence names, the second
/// to last sequence padding (index -1), every third one starting from zero.
Inputs makeInputs(const Shapes &s, ssd::ModelDType dtype,
                  const std::vector<int32_t> &seqlens, uint64_t seed);

/// The eight operands in argument order.
std::vector<HostArray> operandArrays(const Shapes &s, const Inputs &in,
                                     ssd::ModelDType dtype);

size_t itemSize(ssd::ModelDType dtype);

/// Reads the [T, H*P] output from `aligned` (a host copy of the result
/// buffer from its aligned pointer on) with the rank-2 result descriptor
/// `result` (allocated, aligned, offset, sizes[2], strides[2]).
std::vector<float> readOutput(const uint8_t *aligned, const int64_t *result,
                              const Shapes &s, const Inputs &in,
                              ssd::ModelDType dtype);

/// Bytes of the result buffer from its aligned pointer to its last element.
size_t outputExtent(const int64_t *result, ssd::ModelDType dtype);

/// The tolerance of `dtype` (docs/overview.md, Accuracy).
double tolerance(ssd::ModelDType dtype);

/// Compares `out` and `poolOut` (the updated pool) with the expected
/// values, prints the errors and PASS or FAIL; true on PASS. `label` heads
/// the report (`mamba2 mixer NAME: dtype=... LABEL T=...`).
/// `wrongExpected` leaves the D skip out of the expected output.
bool check(const Shapes &s, const Inputs &in, ssd::ModelDType dtype,
           const std::vector<float> &out, const std::vector<float> &poolOut,
           const std::string &name, const std::string &label,
           bool wrongExpected);

/// Parses a comma-separated list of sequence lengths.
bool parseSeqlens(const std::string &text, std::vector<int32_t> &out);

} // namespace mixer
} // namespace ssd

#endif // SSD_EXAMPLES_MIXERHARNESS_H
