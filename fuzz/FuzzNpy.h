//===- FuzzNpy.h - what the .npy input fuzz targets share -------*- C++ -*-===//
//
// The input files a record of an input names, by index, and how a target
// reports a property it found violated. Used by npy-loader-fuzzer.cpp (the
// first kNpyFileCount files) and pool-loader-fuzzer.cpp (all of them, the
// compressed pool's scales last).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_FUZZ_FUZZNPY_H
#define SSD_FUZZ_FUZZNPY_H

#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace ssd_fuzz {

inline const char *const kProblemFiles[] = {"x.npy",
                                            "dt.npy",
                                            "A.npy",
                                            "B.npy",
                                            "C.npy",
                                            "D.npy",
                                            "dt_bias.npy",
                                            "ssm_pool.npy",
                                            "query_start_loc.npy",
                                            "cache_indices.npy",
                                            "has_initial_state.npy",
                                            "update_state.npy",
                                            "checkpoint_slots.npy",
                                            "checkpoint_offsets.npy",
                                            "token_parents.npy",
                                            "ssm_pool_scales.npy"};
/// The npy target's files: every one but the scales (its input format,
/// index % 15, predates them).
constexpr size_t kNpyFileCount = 15;
constexpr size_t kPoolFileCount =
    sizeof(kProblemFiles) / sizeof(kProblemFiles[0]);

/// Aborts, which libFuzzer reports with the input: `target` found `what`
/// violated.
[[noreturn]] inline void violated(const char *target, const char *what,
                                  const std::string &detail) {
  std::fprintf(stderr, "%s: property violated: %s: %s\n", target, what,
               detail.c_str());
  std::abort();
}

/// The files of an input's records from byte `pos` on: each record is
/// [file index: 1 byte][length: 4 bytes, little-endian][bytes], index %
/// `fileCount` naming the file; a record cut short takes what is left, and
/// a file named twice keeps its last record.
inline std::map<std::string, std::vector<uint8_t>>
readRecords(const uint8_t *data, size_t size, size_t pos, size_t fileCount) {
  std::map<std::string, std::vector<uint8_t>> files;
  while (pos < size) {
    const char *name = kProblemFiles[data[pos] % fileCount];
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i)
      if (pos + 1 + i < size)
        length |= uint32_t(data[pos + 1 + i]) << (8 * i);
    pos += 5;
    size_t available = pos < size ? size - pos : 0;
    size_t taken = std::min<size_t>(length, available);
    files[name].assign(data + std::min(pos, size),
                       data + std::min(pos, size) + taken);
    pos += taken;
  }
  return files;
}

/// A loader's rejection of the set "in/...": one line that names a file.
inline void checkRejection(const char *target, const std::string &error) {
  if (error.empty())
    violated(target, "rejection without a message", error);
  if (error.find('\n') != std::string::npos)
    violated(target, "rejection message of more than one line", error);
  if (error.compare(0, 3, "in/") != 0)
    violated(target, "rejection message does not name a file", error);
}

/// Whether the reference is cheap enough to run on `p` for every input
/// (batch + tokens x state + slots x state below 2^22).
inline bool smallEnoughForTheReference(const ssd::ScanProblem &p) {
  double state = double(p.H) * double(p.P) * double(p.N);
  double work = double(p.batch) + double(p.T) * state + double(p.S) * state;
  return work <= double(1 << 22);
}

/// The host operands of an accepted problem have the layout's count and
/// each its shape's bytes.
inline void checkHostOperands(const char *target, const ssd::ScanProblem &p,
                              ssd::HostOperands &operands) {
  std::vector<ssd::OperandLayout> layouts = ssd::operandLayouts(p);
  if (layouts.size() != operands.size())
    violated(target, "operand count", "");
  for (size_t i = 0; i < layouts.size(); ++i) {
    int64_t count = 1;
    for (int64_t extent : layouts[i].shape)
      count *= extent;
    if (operands.bytes(i).size() !=
        size_t(count) * ssd::elementBytes(layouts[i].elementType))
      violated(target, "host operand bytes", layouts[i].name);
  }
}

} // namespace ssd_fuzz

#endif // SSD_FUZZ_FUZZNPY_H
