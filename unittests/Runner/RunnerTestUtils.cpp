//===- RunnerTestUtils.cpp - shared pieces of the runner unit tests -------===//

#include "RunnerTestUtils.h"

#include <cstdio>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ssd;
using namespace ssd::testing;

namespace {

::testing::AssertionResult compare(const std::vector<double> &actual,
                                   const std::vector<double> &expected,
                                   bool exact) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure()
           << "size " << actual.size() << ", expected " << expected.size();
  for (size_t i = 0; i < actual.size(); ++i) {
    const double tolerance =
        exact ? 0.0 : 1e-6 * std::max(1.0, std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance))
      return ::testing::AssertionFailure()
             << "element " << i << " is " << actual[i] << ", expected "
             << expected[i] << (exact ? " (bit for bit)" : "");
  }
  return ::testing::AssertionSuccess();
}

void removeTree(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    if (DIR *d = ::opendir(path.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..")
          removeTree(path + "/" + n);
      }
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

} // namespace

::testing::AssertionResult
ssd::testing::valuesNear(const std::vector<double> &actual,
                         const std::vector<double> &expected) {
  return compare(actual, expected, /*exact=*/false);
}

::testing::AssertionResult
ssd::testing::valuesExact(const std::vector<double> &actual,
                          const std::vector<double> &expected) {
  return compare(actual, expected, /*exact=*/true);
}

ScanProblem ssd::testing::tinyProblem() {
  ScanProblem p;
  p.T = 2;
  p.H = p.P = p.G = p.N = 1;
  p.S = 2;
  p.batch = 1;
  p.A = {-kLn2};
  p.dt = {1, 1};
  p.x = {2, 3};
  p.B = {1, 2};
  p.C = {4, 5};
  p.pool = {9, 9};
  p.queryStartLoc = {0, 2};
  p.cacheIndices = {1};
  return p;
}

std::string ssd::testing::rawNpy(int major, const std::string &dict,
                                 const std::string &data) {
  std::string h = dict + "\n";
  std::string s = std::string("\x93NUMPY", 6) + char(major) + char(0);
  s += char(h.size() & 0xff);
  s += char(h.size() >> 8);
  if (major >= 2)
    s += std::string(2, '\0');
  return s + h + data;
}

void TempDirTest::SetUp() {
  char pattern[] = "/tmp/ssd-unittest.XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr)
      << "cannot create a temporary directory";
  dir = pattern;
}

void TempDirTest::TearDown() {
  if (!dir.empty())
    removeTree(dir);
}

void TempDirTest::writeRaw(const std::string &name,
                           const std::string &bytes) const {
  FILE *f = std::fopen(path(name).c_str(), "wb");
  ASSERT_NE(f, nullptr) << path(name);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

void TempDirTest::writeProblem(const std::string &name,
                               const ScanProblem &p) const {
  const std::string d = path(name);
  ::mkdir(d.c_str(), 0777);
  std::string e;
  auto f32 = [&](const char *file, std::vector<int64_t> shape,
                 const std::vector<float> &v) {
    ASSERT_TRUE(writeNpy(d + "/" + file, makeArray<float>("<f4", shape, v), e))
        << e;
  };
  f32("x.npy", {p.T, p.H, p.P}, p.x);
  f32("dt.npy", {p.T, p.H}, p.dt);
  f32("A.npy", {p.H}, p.A);
  f32("B.npy", {p.T, p.G, p.N}, p.B);
  f32("C.npy", {p.T, p.G, p.N}, p.C);
  if (p.hasD)
    f32("D.npy", {p.H}, p.D);
  if (p.hasDtBias)
    f32("dt_bias.npy", {p.H}, p.dtBias);
  f32("ssm_pool.npy", {p.S, p.H, p.P, p.N}, p.pool);
  ASSERT_TRUE(
      writeNpy(d + "/query_start_loc.npy",
               makeArray<int32_t>("<i4", {p.batch + 1}, p.queryStartLoc), e))
      << e;
  ASSERT_TRUE(writeNpy(
      d + "/cache_indices.npy",
      makeArray<uint32_t>(p.cacheIndicesUnsigned ? "<u4" : "<i4",
                          p.cacheIndicesRow ? std::vector<int64_t>{1, p.batch}
                                            : std::vector<int64_t>{p.batch},
                          p.cacheIndices),
      e))
      << e;
  if (p.hasInitialStatePresent)
    ASSERT_TRUE(
        writeNpy(d + "/has_initial_state.npy",
                 makeArray<uint8_t>("|b1", {int64_t(p.hasInitialState.size())},
                                    p.hasInitialState),
                 e))
        << e;
  if (p.updateStatePresent)
    ASSERT_TRUE(
        writeNpy(d + "/update_state.npy",
                 makeArray<uint8_t>("|b1", {int64_t(p.updateState.size())},
                                    p.updateState),
                 e))
        << e;
}
