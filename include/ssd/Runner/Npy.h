//===- Npy.h - Minimal NumPy .npy reader and writer -------------*- C++ -*-===//
//
// Reads and writes the NumPy .npy container (format versions 1.0, 2.0 and
// 3.0) for the handful of little-endian, C-ordered dtypes ssd-run needs.
// Plain C++17 with no exceptions: every failure is reported as a one-line
// message that names the file and the problem.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_RUNNER_NPY_H
#define SSD_RUNNER_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssd {

/// An array as stored in a .npy file: the dtype string exactly as NumPy
/// spells it ("<f4", "<f2", "<f8", "<i4", "<u4", "|b1", "|u1", "|i1"), the
/// shape (empty for a 0-d array) and the raw little-endian element bytes in C
/// order.
struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  /// Product of the shape (1 for a 0-d array).
  int64_t numElements() const;
};

/// Size in bytes of one element of `descr`, or 0 when the dtype is not one
/// of the supported ones.
int64_t npyItemSize(const std::string &descr);

/// Reads `path`. On failure returns false and sets `error` to a single line
/// such as "x.npy: truncated data (expected 4096 bytes, found 100)".
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// The same for a whole file already in memory (its bytes become the
/// array's data); `path` only names it in messages.
bool parseNpy(const std::string &path, std::vector<uint8_t> &&bytes,
              NpyArray &out, std::string &error);

/// Writes `a` to `path` (format 1.0, or 2.0 when the header needs it).
/// Fails when the dtype is unsupported or `data` does not match the shape.
bool writeNpy(const std::string &path, const NpyArray &a, std::string &error);

/// IEEE binary16 conversion, round-to-nearest-even, with subnormals,
/// overflow to infinity and NaN preserved (quietened).
uint16_t floatToHalfBits(float v);
float halfBitsToFloat(uint16_t bits);

/// bfloat16 conversion, round-to-nearest-even, NaN preserved (quietened).
uint16_t floatToBF16Bits(float v);
float bf16BitsToFloat(uint16_t bits);

} // namespace ssd

#endif // SSD_RUNNER_NPY_H
