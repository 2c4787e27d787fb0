//===- KernelLibrary.cpp - the C entry points of a kernel library ---------===//
//
// A kernel library is a shared object that `python3 -m ssd_torch.kernels
// build` links from ssd-compile's objects, this file, the registry
// (AotRegistry.h), one device selection library (AotDevice.h) with its
// runtime, and libSSDRunner.a's contract checks. It links neither LLVM nor
// MLIR, nor torch: the ssd_torch package calls it through ctypes with the
// tensors' device pointers, extents and strides and torch's current stream,
// so any torch that imports the package can launch the kernels
// (docs/python.md, "CUDA tensors").
//
// Every entry point is plain C and reports failures as one line in the
// caller's buffer. A launch runs on the caller's stream and workspace:
// nothing is allocated and nothing waits for the GPU, so a launch can be
// captured in a CUDA graph. A workspace request above the caller's buffer
// launches nothing and returns the size wanted (the caller grows its buffer
// and calls again).
//
// On the GPU emulator (a library of `--target gpu-emu` objects) the
// operands are CPU tensors: the emulator's kernels accept only its own
// device memory, so each launch copies the operands in, runs, and copies
// back what the call writes. That staging is the only difference between
// the two targets; the checks, the selection, the descriptors and the
// workspace protocol are the same code.
//
//===----------------------------------------------------------------------===//

#include "ssd/AOT/AotDevice.h"
#include "ssd/AOT/AotRegistry.h"
#include "ssd/GPURuntime/DeviceCall.h"
#include "ssd/Runner/Problem.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#define SSD_KERNELS_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// The entry points' version: the Python side refuses a library of another.
constexpr int kAbiVersion = 1;

void putError(const std::string &message, char *error, size_t size) {
  if (!error || !size)
    return;
  size_t n = std::min(message.size(), size - 1);
  std::memcpy(error, message.data(), n);
  error[n] = 0;
}

/// The variants selected so far (ssd_kernels_select's ids index it).
struct Selected {
  std::mutex mutex;
  std::vector<const ssd::aot::Variant *> variants;
};
Selected &selected() {
  static Selected s;
  return s;
}

const ssd::DeviceRuntime &device() { return ssd::aot::deviceRuntime(); }

bool onEmulator() { return std::string(device().name) == "gpu-emu"; }

/// Bytes spanned by an operand of `rank` extents and element strides.
size_t spanBytes(int64_t rank, const int64_t *sizes, const int64_t *strides,
                 int64_t elementBytes) {
  int64_t last = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return size_t(last + 1) * size_t(elementBytes);
}

/// The emulator's device copies of one launch's operands and workspace.
struct Staging {
  std::vector<void *> buffers;
  ~Staging() {
    for (void *p : buffers)
      device().release(p);
  }
};

} // namespace

SSD_KERNELS_EXPORT int ssd_kernels_abi_version() { return kAbiVersion; }

/// "cuda" or "gpu-emu": the runtime the library's kernels run on.
SSD_KERNELS_EXPORT const char *ssd_kernels_target() { return device().name; }

/// The registered variants, one line each: "KEY\tCHIP\tFORMAT\tTARGET".
/// Returns the bytes the whole list needs (with its terminating zero);
/// writes what fits of it into `buffer`.
SSD_KERNELS_EXPORT int64_t ssd_kernels_list(char *buffer, size_t size) {
  std::string text;
  for (const auto &[key, list] : ssd::aot::variants())
    for (const ssd::aot::Variant &v : list)
      text += key + "\t" + v.chip + "\t" + v.format + "\t" + v.target + "\n";
  putError(text, buffer, size);
  return int64_t(text.size() + 1);
}

/// The device the library runs on, for messages ("NVIDIA H200 (sm_90)").
SSD_KERNELS_EXPORT int64_t ssd_kernels_device(char *buffer, size_t size) {
  std::string error;
  std::string text = device().initialize(error) ? device().describeDevice()
                                                : "no device: " + error;
  putError(text, buffer, size);
  return int64_t(text.size() + 1);
}

/// The id of the variant of `key` that runs on this device (AotRegistry.h's
/// select), or -1 with a one-line error (none compiled for the key, none for
/// this device's chip, or compiled for the other runtime).
SSD_KERNELS_EXPORT int64_t ssd_kernels_select(const char *key, char *error,
                                              size_t size) {
  std::string why;
  if (!ssd::aot::lookup(key)) {
    putError("no variant compiled for '" + std::string(key) + "'", error, size);
    return -1;
  }
  const ssd::aot::Variant *v = ssd::aot::select(key, why);
  if (!v) {
    putError(why, error, size);
    return -1;
  }
  Selected &s = selected();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = std::find(s.variants.begin(), s.variants.end(), v);
  if (it != s.variants.end())
    return it - s.variants.begin();
  s.variants.push_back(v);
  return int64_t(s.variants.size() - 1);
}

/// The chip of a selected variant.
SSD_KERNELS_EXPORT const char *ssd_kernels_chip(int64_t id) {
  Selected &s = selected();
  std::lock_guard<std::mutex> lock(s.mutex);
  return id >= 0 && size_t(id) < s.variants.size()
             ? s.variants[size_t(id)]->chip.c_str()
             : "";
}

/// The extents' limits (ssd::checkLimits); `extents` is T, H, P, G, N.
/// 0 when they hold, else 1 with the one-line error.
SSD_KERNELS_EXPORT int ssd_kernels_check_limits(const int64_t *extents,
                                                char *error, size_t size) {
  ssd::ScanProblem p;
  p.T = extents[0], p.H = extents[1], p.P = extents[2], p.G = extents[3],
  p.N = extents[4];
  std::string why;
  if (ssd::checkLimits(p, why))
    return 0;
  putError(why, error, size);
  return 1;
}

/// The contract on the index operands' values, with the runner's own checks
/// (ssd::checkIndexContract, checkCheckpointContract, checkTreeContract) as
/// the CPU op runs them. `extents`: T, S, batch, K, the checkpoint interval,
/// then 0/1 for has_initial_state, update_state, checkpoint_slots,
/// checkpoint_offsets, token_parents present. `index`: host copies of
/// query_start_loc, cache_indices, has_initial_state, update_state,
/// checkpoint_slots, checkpoint_offsets, token_parents (row-major; null when
/// absent). 0 when they hold, else 1 with "OPERAND: what is wrong".
SSD_KERNELS_EXPORT int ssd_kernels_check_indices(const int64_t *extents,
                                                 const void *const *index,
                                                 char *error, size_t size) {
  ssd::ScanProblem p;
  p.T = extents[0], p.S = extents[1], p.batch = extents[2];
  p.checkpointK = extents[3], p.checkpointInterval = extents[4];
  p.hasInitialStatePresent = extents[5], p.updateStatePresent = extents[6];
  p.checkpointSlotsPresent = extents[7],
  p.checkpointOffsetsPresent = extents[8];
  p.tokenParentsPresent = extents[9];
  const size_t batch = size_t(p.batch);
  auto *q = static_cast<const int32_t *>(index[0]);
  p.queryStartLoc.assign(q, q + batch + 1);
  auto *ci = static_cast<const uint32_t *>(index[1]);
  p.cacheIndices.assign(ci, ci + batch);
  if (p.hasInitialStatePresent) {
    auto *m = static_cast<const uint8_t *>(index[2]);
    p.hasInitialState.assign(m, m + batch);
  }
  if (p.updateStatePresent) {
    auto *m = static_cast<const uint8_t *>(index[3]);
    p.updateState.assign(m, m + batch);
  }
  if (p.checkpointSlotsPresent) {
    auto *c = static_cast<const uint32_t *>(index[4]);
    p.checkpointSlots.assign(c, c + batch * size_t(p.checkpointK));
  }
  if (p.checkpointOffsetsPresent) {
    auto *o = static_cast<const int32_t *>(index[5]);
    p.checkpointOffsets.assign(o, o + batch);
  }
  if (p.tokenParentsPresent) {
    auto *t = static_cast<const int32_t *>(index[6]);
    p.tokenParents.assign(t, t + size_t(p.T));
  }
  std::string operand, why;
  if (!ssd::checkIndexContract(p, operand, why, "x") ||
      !ssd::checkCheckpointContract(p, operand, why)) {
    putError(operand + ": " + why, error, size);
    return 1;
  }
  if (!ssd::checkTreeContract(p, why)) {
    putError("token_parents: " + why, error, size);
    return 1;
  }
  return 0;
}

/// Launches the selected variant `id` on `operands` operands in the order
/// of ssd::operandLayouts (y last): `data[i]` its device address (a CPU
/// tensor's on the emulator), `ranks[i]` its rank, its extents and element
/// strides concatenated in `sizes` and `strides`, `elementBytes[i]`, and
/// `written[i]` 1 for what the call writes (y, the pool, its scales). The
/// launches go on `stream` (a CUstream; 0, torch's default stream, is the
/// legacy default stream) and take their workspace from `workspace`, a
/// device buffer of `workspaceBytes`.
/// Returns 0 when the call was queued (nothing waited for the GPU), 1 when
/// its workspace needs more than `workspaceBytes` (`*workspaceNeeded`;
/// nothing ran), -1 with a one-line error (nothing ran, or a launch
/// failed).
SSD_KERNELS_EXPORT int ssd_kernels_launch(
    int64_t id, int64_t operands, void *const *data, const int64_t *ranks,
    const int64_t *sizes, const int64_t *strides, const int64_t *elementBytes,
    const uint8_t *written, void *workspace, int64_t workspaceBytes,
    uint64_t stream, int64_t *workspaceNeeded, char *error, size_t size) {
  const ssd::aot::Variant *v = nullptr;
  {
    Selected &s = selected();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (id >= 0 && size_t(id) < s.variants.size())
      v = s.variants[size_t(id)];
  }
  if (!v) {
    putError("no selected variant has id " + std::to_string(id), error, size);
    return -1;
  }
  if (operands != v->operands) {
    putError("the variant takes " + std::to_string(v->operands) +
                 " operands, got " + std::to_string(operands),
             error, size);
    return -1;
  }
  const ssd::DeviceRuntime &rt = device();
  std::string why;
  if (!rt.initialize(why)) {
    putError(why, error, size);
    return -1;
  }
  const bool emulator = onEmulator();
  std::vector<void *> addresses(data, data + operands);
  std::vector<size_t> spans(static_cast<size_t>(operands), 0);
  Staging staging;
  {
    const int64_t *sz = sizes, *st = strides;
    for (int64_t i = 0; i < operands; ++i) {
      spans[size_t(i)] = spanBytes(ranks[i], sz, st, elementBytes[i]);
      sz += ranks[i];
      st += ranks[i];
    }
  }
  if (emulator) {
    for (int64_t i = 0; i < operands; ++i) {
      void *p = rt.allocate(spans[size_t(i)], why);
      if (!p || !rt.copyToDevice(p, data[i], spans[size_t(i)], why)) {
        if (p)
          rt.release(p);
        putError("staging operand #" + std::to_string(i) + ": " + why, error,
                 size);
        return -1;
      }
      staging.buffers.push_back(p);
      addresses[size_t(i)] = p;
    }
    void *w = rt.allocate(size_t(std::max<int64_t>(workspaceBytes, 0)), why);
    if (!w) {
      putError("staging the workspace: " + why, error, size);
      return -1;
    }
    staging.buffers.push_back(w);
    workspace = w;
  }
  // StridedMemRefType descriptors: allocated and aligned pointer, offset,
  // sizes, strides.
  std::vector<std::vector<int64_t>> descriptors(static_cast<size_t>(operands));
  std::vector<void *> pointers;
  {
    const int64_t *sz = sizes, *st = strides;
    for (int64_t i = 0; i < operands; ++i) {
      std::vector<int64_t> &d = descriptors[size_t(i)];
      int64_t address = reinterpret_cast<int64_t>(addresses[size_t(i)]);
      d = {address, address, 0};
      d.insert(d.end(), sz, sz + ranks[i]);
      d.insert(d.end(), st, st + ranks[i]);
      sz += ranks[i];
      st += ranks[i];
      pointers.push_back(d.data());
    }
  }
  // CU_STREAM_LEGACY: torch's default stream is handle 0, which the
  // runtime would take as "its own stream, waited for".
  void *onStream = reinterpret_cast<void *>(
      stream == 0 && !emulator ? uintptr_t(1) : uintptr_t(stream));
  int64_t requested = 0;
  rt.takeError(); // start from a clean slate
  rt.setStream(onStream);
  rt.setWorkspace(workspace, size_t(std::max<int64_t>(workspaceBytes, 0)),
                  &requested);
  bool called = ssd::callCInterface(v->function, pointers, why);
  rt.setWorkspace(nullptr, 0, nullptr);
  rt.setStream(nullptr);
  std::string failed = rt.takeError();
  if (workspaceNeeded)
    *workspaceNeeded = requested;
  if (!called) {
    putError(why, error, size);
    return -1;
  }
  if (requested > workspaceBytes)
    return 1;
  if (!failed.empty()) {
    putError(failed, error, size);
    return -1;
  }
  if (emulator)
    for (int64_t i = 0; i < operands; ++i)
      if (written[i] && !rt.copyToHost(data[i], addresses[size_t(i)],
                                       spans[size_t(i)], why)) {
        putError("copying back operand #" + std::to_string(i) + ": " + why,
                 error, size);
        return -1;
      }
  return 0;
}
