//===- RunnerTestUtils.h - shared pieces of runner tests -------*- C++ -*-===//
//
// Hand-built problems, .npy images and temporary directories for the unit
// tests of lib/Runner (the reference scan, .npy I/O, input validation).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_UNITTESTS_RUNNER_RUNNERTESTUTILS_H
#define SSD_UNITTESTS_RUNNER_RUNNERTESTUTILS_H

#include "ssd/Runner/Npy.h"
#include "ssd/Runner/Problem.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace ssd {
namespace testing {

/// ln 2 in float: with A = -ln 2 and d = 1 the per-token decay exp(d A) is
/// 1/2 up to the rounding of ln 2, so expected values are small arithmetic
/// and a 1e-6 relative tolerance covers the rest.
inline constexpr float kLn2 = 0.69314718f;

/// |actual - expected| <= 1e-6 max(1, |expected|) element by element.
::testing::AssertionResult valuesNear(const std::vector<double> &actual,
                                      const std::vector<double> &expected);

/// Bit for bit: the contract keeps untouched slots' exact bits.
::testing::AssertionResult valuesExact(const std::vector<double> &actual,
                                       const std::vector<double> &expected);

/// The single-head, single-channel two-token problem most cases start from:
///   A = -ln2, dt = [1, 1], x = [2, 3], B = [1, 2], C = [4, 5],
///   one sequence of both tokens in slot 1 of a 2-slot pool holding [9, 9].
ScanProblem tinyProblem();

template <typename T>
NpyArray makeArray(const char *descr, std::vector<int64_t> shape,
                   const std::vector<T> &values) {
  NpyArray a;
  a.descr = descr;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

/// A hand-built .npy image: magic, version, header length, header dict, data.
std::string rawNpy(int major, const std::string &dict, const std::string &data);

/// A fixture with a fresh temporary directory, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;
  std::string path(const std::string &name) const { return dir + "/" + name; }
  void writeRaw(const std::string &name, const std::string &bytes) const;
  /// Writes `p` (an f32 problem) as an ssd-run input directory `name`. The
  /// masks take their length from their vectors so tests can make them
  /// wrong.
  void writeProblem(const std::string &name, const ScanProblem &p) const;

  std::string dir;
};

} // namespace testing
} // namespace ssd

#endif // SSD_UNITTESTS_RUNNER_RUNNERTESTUTILS_H
