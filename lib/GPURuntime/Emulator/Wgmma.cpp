//===- Wgmma.cpp - Hopper's warpgroup MMA on the emulator -----------------===//
//
// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16} with both operands in
// shared memory, and its wgmma.fence, commit_group and wait_group (PTX ISA,
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions").
//
// A warpgroup is four consecutive warps, the first a multiple of four. Warp
// r of it owns rows 16r..16r+15 of the 64-row D, so each warp is computed on
// its own, as a warp collective, from its 16 rows of A and all of B. What
// the emulator checks, because a GPU gives garbage or hangs instead:
//  - the four warps of a warpgroup issue the same wgmma instructions in the
//    same order with the same descriptors (.aligned; the descriptors must be
//    the same across the warpgroup);
//  - operands lie inside the block's shared memory; their reads are
//    race-checked like loads of the warp and marked in flight until the
//    wgmma.wait_group that retires their group: a write to them before that
//    is a race;
//  - every warp issues a wgmma.fence before its first wgmma.mma_async after
//    the block's start or its last wgmma.wait_group (the fence orders the
//    warp's register and shared-memory accesses before the instruction's),
//    and none ends with instructions in flight;
//  - results are used (other than as the accumulators of the next
//    wgmma.mma_async) only after a wgmma.wait_group of the warp retired the
//    latest instruction of their call site: the rewriter puts a check before
//    each such use (wgmmaResultsReady).
//  - every shared word the instruction reads was, since its last write,
//    fenced by its writer with fence.proxy.async before a barrier that
//    precedes the read (proxyFenced), as the async proxy needs.
// Not modelled: results are computed and operands read at issue (the
// checks above stand in for the GPU's undefined values), the matrix base
// offset (reported as unsupported), and the hardware's accumulation order
// (f32, k in order, as mma.sync here).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <cstdio>
#include <cstring>

namespace ssd {
namespace emulator {
namespace {

/// The fields of a shared-memory matrix descriptor (PTX ISA, "Matrix
/// Descriptor Format"): start address, leading- and stride-dimension byte
/// offsets (each stored >> 4 in 14 bits), base offset, swizzle mode.
struct MatrixDescriptor {
  uint64_t start, leading, stride;
  unsigned baseOffset, swizzle;
};

MatrixDescriptor decode(uint64_t bits) {
  return {(bits & 0x3fff) << 4, ((bits >> 16) & 0x3fff) << 4,
          ((bits >> 32) & 0x3fff) << 4, unsigned((bits >> 49) & 7),
          unsigned(bits >> 62)};
}

/// The byte offset in shared memory of element (mn, k) of an operand, mn
/// its row (M for A, N for B) and k < 16 (16-bit elements), in the canonical
/// layouts of the PTX ISA ("Shared Memory Matrix Layout"; CUTLASS writes
/// them as CuTe layouts in make_gmma_desc). Without swizzle the operand is
/// made of core matrices of 8 rows of 16 bytes, and the leading offset
/// steps along K, the stride offset along M or N:
///  - K-major: row mn % 8 of a core matrix holds k % 8..: (mn / 8) SBO +
///    (k / 8) LBO + 16 (mn % 8) + 2 (k % 8);
///  - M/N-major: row k % 8 holds mn % 8..: (mn / 8) SBO + (k / 8) LBO +
///    16 (k % 8) + 2 (mn % 8).
/// With a swizzle of W bytes (128, 64 or 32) rows are W bytes long, and the
/// 16-byte chunk index within them (address bits 4..) is XORed with the
/// row's index in its W x 8 atom (address bits 7..), log2(W / 16) bits:
///  - K-major: rows mn of W bytes, 8 to an atom, the next 8 rows the stride
///    offset away (K = 16 fits a row; the leading offset is unused):
///    (mn / 8) SBO + W (mn % 8) + 2 k;
///  - M/N-major: rows k of W bytes (W / 2 elements of mn), the next W / 2
///    elements of mn the leading offset away, the next 8 rows of k the
///    stride offset: (mn / (W / 2)) LBO + (k / 8) SBO + W (k % 8) +
///    2 (mn % (W / 2)).
uint64_t elementOffset(const MatrixDescriptor &d, bool kMajor, unsigned mn,
                       unsigned k) {
  if (d.swizzle == 0)
    return kMajor ? d.start + (mn / 8) * d.stride + (k / 8) * d.leading +
                        16 * (mn % 8) + 2 * (k % 8)
                  : d.start + (mn / 8) * d.stride + (k / 8) * d.leading +
                        16 * (k % 8) + 2 * (mn % 8);
  const uint64_t width = 256 >> d.swizzle; // 1: 128, 2: 64, 3: 32 bytes
  const uint64_t linear =
      kMajor ? d.start + (mn / 8) * d.stride + width * (mn % 8) + 2 * k
             : d.start + (mn / (width / 2)) * d.leading + (k / 8) * d.stride +
                   width * (k % 8) + 2 * (mn % (width / 2));
  return linear ^ (((linear >> 7) & (width / 16 - 1)) << 4);
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)v);
  return text;
}

std::string instructionName(const WarpOp &op) {
  switch (op.kind) {
  case WarpOpKind::Wgmma:
    return "wgmma.mma_async m64n" + std::to_string(op.mode & kWgmmaNMask) +
           "k16 (descriptors A " + hex(op.descA) + ", B " + hex(op.descB) + ")";
  case WarpOpKind::WgmmaFence:
    return "wgmma.fence";
  case WarpOpKind::WgmmaCommit:
    return "wgmma.commit_group";
  default:
    return "wgmma.wait_group " + std::to_string(op.mode);
  }
}

bool fail(Worker &w, const std::string &message) {
  reportError(where(w) + ": " + message);
  w.aborted = true;
  return false;
}

void retire(Worker &w, std::vector<uint32_t> &words) {
  for (uint32_t word : words)
    --w.shadow[word].wgmmaReaders;
  words.clear();
}

/// The warpgroup's four warps must issue the same sequence: the first to
/// reach an instruction records it, the others compare.
bool agree(Worker &w, unsigned warp, const WarpOp &op) {
  const unsigned group = warp / 4;
  WgmmaWarp &self = w.wgmmaWarps[warp];
  WgmmaLog &log = w.wgmmaLogs[group];
  const uint64_t index = self.issued++;
  WgmmaIssue issue{op.descA, op.descB, op.mode,
                   op.site,  warp,     uint8_t(op.kind)};
  if (index - log.first >= log.records.size()) {
    log.records.push_back(issue);
  } else {
    const WgmmaIssue &first = log.records[index - log.first];
    if (first.kind != issue.kind || first.mode != issue.mode ||
        first.descA != issue.descA || first.descB != issue.descB) {
      WarpOp theirs{};
      theirs.kind = WarpOpKind(first.kind);
      theirs.mode = first.mode;
      theirs.descA = first.descA;
      theirs.descB = first.descB;
      return fail(w, "warp " + std::to_string(warp) + " issues " +
                         instructionName(op) + " (" +
                         siteText(*w.kernel, op.site) + ") where warp " +
                         std::to_string(first.warp) + " of its warpgroup " +
                         "issued " + instructionName(theirs) + " (" +
                         siteText(*w.kernel, first.site) +
                         "): the four warps of a warpgroup must issue the "
                         "same wgmma instructions, with the same descriptors");
    }
  }
  uint64_t least = UINT64_MAX;
  for (unsigned i = 4 * group; i < 4 * group + 4; ++i)
    least = std::min(least, w.wgmmaWarps[i].issued);
  while (log.first < least && !log.records.empty()) {
    log.records.pop_front();
    ++log.first;
  }
  return true;
}

/// wgmma reads shared memory through the async proxy, which sees a
/// generic-proxy write (a store, an atomic, a cp.async's deposit) only
/// after a fence.proxy.async of the writing thread: that fence must follow
/// the write and, unless the writer is in the reading warp, precede a
/// barrier before the read (a fence after the barrier may run after the
/// read on a GPU). Stricter than the PTX ISA in one place: cp.async
/// deposits count as generic-proxy writes.
bool proxyFenced(Worker &w, unsigned warp, uint64_t chunk, uint32_t site) {
  for (uint64_t word = chunk / 4; word < chunk / 4 + 4; ++word) {
    const Shadow &s = w.shadow[word];
    if (s.writeEpoch == 0)
      continue; // not written in this block: the unwritten-read check's
    const Thread &writer = w.threads[s.writer];
    const std::vector<uint32_t> &fences = writer.proxyFenceEpochs;
    const bool fenced = s.writeProxyFences < fences.size() &&
                        (fences[s.writeProxyFences] < w.epoch ||
                         writer.index / kWarpSize == warp);
    if (fenced || fences.size() > UINT16_MAX)
      continue;
    return fail(w, "wgmma.mma_async of warp " + std::to_string(warp) +
                       " reads " + sharedLocation(w, word * 4) + ", which " +
                       threadName(writer) + " wrote (" +
                       siteText(*w.kernel, s.writeSite) +
                       ") with no fence.proxy.async of that thread between "
                       "the write and a barrier before the read: the async "
                       "proxy may not see the write (" +
                       siteText(*w.kernel, site) + ")");
  }
  return true;
}

bool multiply(Worker &w, unsigned warp, Thread *lanes, const WarpOp &op) {
  WgmmaWarp &self = w.wgmmaWarps[warp];
  const unsigned n = op.mode & kWgmmaNMask;
  const std::string at = " (" + siteText(*w.kernel, op.site) + ")";
  if (!self.fenced)
    return fail(w, "warp " + std::to_string(warp) +
                       " issues wgmma.mma_async without a wgmma.fence since "
                       "the start of the block or its last "
                       "wgmma.wait_group" +
                       at);
  const MatrixDescriptor a = decode(op.descA), b = decode(op.descB);
  for (const MatrixDescriptor *d : {&a, &b})
    if (d->baseOffset)
      return fail(w, std::string("wgmma.mma_async operand ") +
                         (d == &a ? "A" : "B") +
                         " with a matrix base offset of " +
                         std::to_string(d->baseOffset) +
                         ", which the emulator does not implement" + at);
  const unsigned rank = warp % 4;
  // Operand values as f32: the warp's 16 rows of A, then B's n rows; k in
  // 0..15. The 16-byte chunks they lie in are checked and marked once each.
  float values[2][256][16];
  std::vector<uint64_t> chunks;
  for (unsigned operand = 0; operand < 2; ++operand) {
    const MatrixDescriptor &d = operand == 0 ? a : b;
    const bool kMajor =
        !(op.mode & (operand == 0 ? kWgmmaTransposeA : kWgmmaTransposeB));
    const bool negate =
        (op.mode & (operand == 0 ? kWgmmaNegateA : kWgmmaNegateB)) != 0;
    const unsigned rows = operand == 0 ? 16 : n;
    for (unsigned row = 0; row < rows; ++row) {
      const unsigned mn = operand == 0 ? 16 * rank + row : row;
      for (unsigned k = 0; k < 16; ++k) {
        const uint64_t offset = elementOffset(d, kMajor, mn, k);
        if (offset - offset % 16 + 16 > w.sharedBytes)
          return fail(w, std::string("wgmma.mma_async reads operand ") +
                             (operand == 0 ? "A" : "B") + " element (" +
                             std::to_string(mn) + ", k " + std::to_string(k) +
                             ") at shared offset " + std::to_string(offset) +
                             ", past the block's " +
                             std::to_string(w.sharedBytes) + " bytes" + at);
        chunks.push_back(offset - offset % 16);
        uint16_t bits;
        std::memcpy(&bits, w.shared + offset, sizeof(bits));
        const float v =
            (op.mode & kWgmmaF16) ? halfToFloat(bits) : bf16ToFloat(bits);
        values[operand][row][k] = negate ? -v : v;
      }
    }
  }
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  for (uint64_t chunk : chunks) {
    if (!proxyFenced(w, warp, chunk, op.site))
      return false;
    checkShared(w, lanes[0], chunk, 16, AccessRead, op.site);
    if (w.aborted)
      return false;
    for (uint64_t word = chunk / 4; word < chunk / 4 + 4; ++word) {
      if (w.shadow[word].wgmmaReaders == UINT8_MAX)
        return fail(w, "more than 255 wgmma.mma_async in flight read " +
                           sharedLocation(w, word * 4) + at);
      ++w.shadow[word].wgmmaReaders;
      self.open.push_back(uint32_t(word));
    }
  }
  // D fragment of lane l (g = l / 4, t = l % 4), register i: row g + 8
  // ((i / 2) % 2) of the warp's 16, column 8 (i / 4) + 2 t + i % 2.
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, t = lane % 4;
    const WarpOp &mine = lanes[lane].op;
    for (unsigned i = 0; i < n / 2; ++i) {
      const unsigned row = g + 8 * ((i / 2) % 2);
      const unsigned column = 8 * (i / 4) + 2 * t + i % 2;
      float sum = (op.mode & kWgmmaScaleD) ? mine.accumulators[i] : 0.0f;
      for (unsigned k = 0; k < 16; ++k)
        sum += values[0][row][k] * values[1][column][k];
      mine.results[i] = sum;
    }
  }
  self.lastSite = op.site;
  self.latestOfSite[op.site] = ++self.multiplies;
  ++w.mmas;
  w.cost.mmaFlops += 2ull * 16 * n * 16;
  w.cost.wgmmaFlops += 2ull * 16 * n * 16;
  if (w.costLevel != CostLevel::Off) {
    // Shared-memory reads per warpgroup: A's 64 x 16 and B's n x 16 bf16
    // once (B is one operand of the whole warpgroup: counted by its first
    // warp), at 128 bytes a wavefront, without bank conflicts (what the
    // swizzled layouts are for; an assumption, not checked on hardware).
    const uint64_t bytes = 16 * 32 + (rank == 0 ? uint64_t(n) * 32 : 0);
    w.cost.sharedWgmma.bytes += bytes;
    w.cost.sharedWgmma.transactions += (bytes + 127) / 128;
    if (rank == 0) {
      ++w.cost.wgmma;
      ++w.cost.sharedWgmma.instructions;
    }
  }
  return true;
}

} // namespace

bool computeWgmma(Worker &w, unsigned warp, Thread *lanes, const WarpOp &op) {
  const unsigned group = warp / 4;
  if (4 * (group + 1) * kWarpSize > w.threadCount)
    return fail(
        w, instructionName(op) + " in warp " + std::to_string(warp) +
               ", whose warpgroup (threads " + std::to_string(group * 128) +
               ".." + std::to_string(group * 128 + 127) + ") the block of " +
               std::to_string(w.threadCount) + " threads does not fill (" +
               siteText(*w.kernel, op.site) + ")");
  const unsigned warps = (w.threadCount + kWarpSize - 1) / kWarpSize;
  if (w.wgmmaWarps.size() < warps) {
    w.wgmmaWarps.resize(warps);
    w.wgmmaLogs.resize((warps + 3) / 4);
  }
  for (unsigned lane = 1; lane < kWarpSize; ++lane)
    if (lanes[lane].op.descA != op.descA || lanes[lane].op.descB != op.descB)
      return fail(w, threadName(lanes[lane]) + " gives " +
                         instructionName(lanes[lane].op) + " where " +
                         threadName(lanes[0]) + " gives " +
                         instructionName(op) +
                         ": the descriptors must be the same across the "
                         "warpgroup (" +
                         siteText(*w.kernel, op.site) + ")");
  if (!agree(w, warp, op))
    return false;
  WgmmaWarp &self = w.wgmmaWarps[warp];
  switch (op.kind) {
  case WarpOpKind::Wgmma:
    return multiply(w, warp, lanes, op);
  case WarpOpKind::WgmmaFence:
    self.fenced = true;
    return true;
  case WarpOpKind::WgmmaCommit:
    self.committed.push_back(std::move(self.open));
    self.open.clear();
    self.committedEnds.push_back(self.multiplies);
    return true;
  default:
    while (self.committed.size() > op.mode) {
      retire(w, self.committed.front());
      self.committed.pop_front();
      self.retired = self.committedEnds.front();
      self.committedEnds.pop_front();
    }
    self.fenced = false;
    return true;
  }
}

bool wgmmaResultsReady(const Worker &w, const Thread &t, uint32_t producer) {
  const unsigned warp = t.index / kWarpSize;
  if (warp >= w.wgmmaWarps.size())
    return true;
  const WgmmaWarp &state = w.wgmmaWarps[warp];
  auto latest = state.latestOfSite.find(producer);
  return latest == state.latestOfSite.end() || latest->second <= state.retired;
}

void resetWgmma(Worker &w) {
  // The shadow words are cleared with the block's shadow.
  for (WgmmaWarp &state : w.wgmmaWarps)
    state = WgmmaWarp();
  for (WgmmaLog &log : w.wgmmaLogs)
    log = WgmmaLog();
}

bool finishWgmma(Worker &w) {
  for (unsigned warp = 0; warp < w.wgmmaWarps.size(); ++warp) {
    const WgmmaWarp &state = w.wgmmaWarps[warp];
    const WgmmaWarp &first = w.wgmmaWarps[warp / 4 * 4];
    if (state.issued != first.issued)
      return fail(w, "warp " + std::to_string(warp) + " issued " +
                         std::to_string(state.issued) +
                         " wgmma instructions and warp " +
                         std::to_string(warp / 4 * 4) + " of its warpgroup " +
                         std::to_string(first.issued) +
                         ": the four warps of a warpgroup must issue the same "
                         "wgmma instructions");
    if (!state.open.empty() || !state.committed.empty())
      return fail(w, "warp " + std::to_string(warp) +
                         " ended with wgmma.mma_async in flight (" +
                         siteText(*w.kernel, state.lastSite) +
                         "): no wgmma.wait_group retired it");
  }
  return true;
}

} // namespace emulator
} // namespace ssd
