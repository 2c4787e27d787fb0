//===- NpyTest.cpp - the .npy reader and writer ---------------------------===//
//
// Every dtype ssd-run reads or writes round-trips; version 2 and 3 headers
// and the header spellings NumPy produces are read; each broken file gives a
// one-line error that names the file and the problem.
//
//===----------------------------------------------------------------------===//

#include "RunnerTestUtils.h"

#include <sys/stat.h>

using namespace ssd;
using namespace ssd::testing;

namespace {

class NpyTest : public TempDirTest {
protected:
  /// The error readNpy gives for `name`, which must fail with one line.
  std::string readError(const std::string &name) {
    NpyArray a;
    std::string error;
    EXPECT_FALSE(readNpy(path(name), a, error)) << name << " was accepted";
    EXPECT_EQ(error.find('\n'), std::string::npos) << "not one line: " << error;
    return error;
  }
  const std::string sixteenBytes = std::string(16, '\0');
};

TEST_F(NpyTest, RoundTripsEveryDType) {
  struct Case {
    const char *name;
    NpyArray a;
  };
  std::vector<Case> cases = {
      {"f4", makeArray<float>("<f4", {2, 3}, {1, -2, 3.5f, 0, 1e-30f, 7})},
      {"f2", makeArray<uint16_t>("<f2", {4}, {0x3c00, 0x2e66, 0x8000, 0x7bff})},
      {"f8", makeArray<double>("<f8", {2, 2}, {0.1, -1e300, 3, 4})},
      {"i4", makeArray<int32_t>("<i4", {3}, {0, -1, 2147483647})},
      {"u4", makeArray<uint32_t>("<u4", {1, 3}, {0, 0xffffffffu, 7})},
      {"b1", makeArray<uint8_t>("|b1", {5}, {1, 0, 0, 1, 1})},
      {"u1", makeArray<uint8_t>("|u1", {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 255})},
      {"scalar", makeArray<float>("<f4", {}, {42})},
      {"empty", makeArray<float>("<f4", {0, 3}, {})},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    std::string file = path(std::string("rt_") + c.name + ".npy");
    std::string error;
    NpyArray back;
    ASSERT_TRUE(writeNpy(file, c.a, error)) << error;
    ASSERT_TRUE(readNpy(file, back, error)) << error;
    EXPECT_EQ(back.descr, c.a.descr);
    EXPECT_EQ(back.shape, c.a.shape);
    EXPECT_EQ(back.data, c.a.data);
    struct stat st;
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ((int64_t(st.st_size) - int64_t(c.a.data.size())) % 64, 0)
        << "data starts 64-byte aligned";
  }
  EXPECT_EQ(cases[7].a.numElements(), 1);
  EXPECT_EQ(cases[8].a.numElements(), 0);
}

// Version 2.0 and 3.0 headers (4-byte length), double quotes, keys in any
// order, with or without a trailing comma.
TEST_F(NpyTest, ReadsVersion2And3Headers) {
  writeRaw("v2.npy", rawNpy(2,
                            "{\"descr\": \"<i4\", \"fortran_order\": False, "
                            "\"shape\": (2, 2)}",
                            sixteenBytes));
  writeRaw("v3.npy",
           rawNpy(3, "{'shape': (4,), 'fortran_order': False, 'descr': '<f4',}",
                  sixteenBytes));
  NpyArray a;
  std::string error;
  ASSERT_TRUE(readNpy(path("v2.npy"), a, error)) << error;
  EXPECT_EQ(a.descr, "<i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  ASSERT_TRUE(readNpy(path("v3.npy"), a, error)) << error;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{4}));
}

TEST_F(NpyTest, BrokenFilesGiveOneLineNamingTheProblem) {
  writeRaw("magic.npy", "hello, this is not numpy");
  EXPECT_NE(
      readError("magic.npy").find("magic.npy: not a .npy file (bad magic)"),
      std::string::npos);

  writeRaw("trunc.npy",
           rawNpy(1,
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }",
                  sixteenBytes.substr(0, 10)));
  EXPECT_NE(
      readError("trunc.npy")
          .find("trunc.npy: truncated data (expected 32 bytes, found 10)"),
      std::string::npos);

  writeRaw("trail.npy",
           rawNpy(1,
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                  sixteenBytes.substr(0, 9)));
  EXPECT_NE(readError("trail.npy").find("trailing data"), std::string::npos);

  writeRaw("i8.npy",
           rawNpy(1,
                  "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                  sixteenBytes));
  EXPECT_NE(readError("i8.npy").find("i8.npy: unsupported dtype '<i8'"),
            std::string::npos);

  writeRaw("big.npy",
           rawNpy(1,
                  "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }",
                  sixteenBytes));
  EXPECT_NE(readError("big.npy").find("unsupported dtype '>f4'"),
            std::string::npos);

  writeRaw("fortran.npy", rawNpy(1,
                                 "{'descr': '<f4', 'fortran_order': True, "
                                 "'shape': (2, 2), }",
                                 sixteenBytes));
  EXPECT_NE(readError("fortran.npy")
                .find("fortran.npy: Fortran order is not supported"),
            std::string::npos);

  writeRaw("hdr.npy",
           rawNpy(1, "{'descr': '<f4', 'shape': (2, 2)", sixteenBytes));
  EXPECT_NE(readError("hdr.npy").find("malformed header"), std::string::npos);

  writeRaw("shorthdr.npy", std::string("\x93NUMPY\x01\x00\xff\x00{", 11));
  EXPECT_NE(readError("shorthdr.npy").find("truncated header"),
            std::string::npos);

  EXPECT_NE(readError("nonexistent.npy").find("nonexistent.npy: cannot open"),
            std::string::npos);
}

TEST_F(NpyTest, WriteRejectsDataThatDoesNotMatchTheShape) {
  std::string error;
  EXPECT_FALSE(
      writeNpy(path("bad.npy"), makeArray<float>("<f4", {3}, {1, 2}), error));
}

} // namespace
