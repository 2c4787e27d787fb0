//===- CostTable.cpp - the cost counters as a table -----------------------===//
//
// formatCosts (EmulatorReports.h): a block of lines per kernel, and its
// lower bounds on an H200 (docs/gpu.md, "Cost counters").
//
//===----------------------------------------------------------------------===//

#include "ssd/GPURuntime/EmulatorABI.h"
#include "ssd/GPURuntime/EmulatorReports.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

using namespace ssd::emulator;

namespace {

/// H200 SXM peaks for the lower bounds, at one clock for every unit: 132
/// SMs at 1.98 GHz (the GH100's maximum boost clock); 4,096 dense bf16/f16
/// tensor flops per SM per clock (NVIDIA's 989 TFLOP/s is this at 1.83
/// GHz), 1,070 TFLOP/s at 1.98; 4.8 TB/s HBM3e; one shared-memory
/// wavefront (128 bytes) per SM per clock.
constexpr double kClock = 1.98e9;
constexpr double kSMs = 132;
constexpr double kTensorFlopsPerSecond = 4096 * kSMs * kClock;
constexpr double kDramBytesPerSecond = 4.8e12;
constexpr double kWavefrontsPerSecond = kSMs * kClock;

const char *mmaName(unsigned index) {
  switch (MmaKind(index + 1)) {
  case MmaKind::M16N8K16BF16:
    return "m16n8k16.bf16";
  case MmaKind::M16N8K16F16:
    return "m16n8k16.f16";
  case MmaKind::M16N8K8BF16:
    return "m16n8k8.bf16";
  case MmaKind::M16N8K8F16:
    return "m16n8k8.f16";
  }
  return "?";
}

void appendf(std::string &out, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void appendf(std::string &out, const char *format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  if (n > 0)
    out.append(buffer, std::min<size_t>(size_t(n), sizeof(buffer) - 1));
}

void traffic(std::string &out, const char *name, const MemoryTraffic &t,
             const char *unit) {
  if (!t.instructions)
    return;
  appendf(out,
          "  %s: instructions %" PRIu64 " bytes %" PRIu64 " %s %" PRIu64
          " (%.2f per instruction)",
          name, t.instructions, t.bytes, unit, t.transactions,
          double(t.transactions) / double(t.instructions));
  if (std::strcmp(unit, "wavefronts") == 0)
    appendf(out, " bank-conflict wavefronts %" PRIu64, t.conflicts);
  out += '\n';
}

} // namespace

std::string ssd::emulator::formatCosts(const std::vector<KernelCost> &costs) {
  std::string out;
  for (const KernelCost &k : costs) {
    const CostCounters &c = k.counters;
    appendf(out,
            "kernel %s: launches %" PRIu64 " blocks %" PRIu64
            " threads %" PRIu64 " warps %" PRIu64 "\n",
            k.kernel.c_str(), c.launches, c.blocks, c.threads, c.warps);
    appendf(out, "  sync: barriers %" PRIu64 " warp-collectives %" PRIu64 "\n",
            c.barriers, c.warpCollectives);
    for (unsigned i = 0; i < 4; ++i)
      if (c.mma[i])
        appendf(out, "  mma.sync %s: %" PRIu64 "\n", mmaName(i), c.mma[i]);
    if (c.mmaFlops)
      appendf(out, "  mma flops: %" PRIu64 "\n", c.mmaFlops);
    if (c.wgmma)
      appendf(out, "  wgmma.mma_async: %" PRIu64 "\n", c.wgmma);
    if (c.wgmmaFlops)
      appendf(out, "  wgmma flops: %" PRIu64 "\n", c.wgmmaFlops);
    if (c.ldmatrix)
      appendf(out,
              "  ldmatrix: instructions %" PRIu64 " matrices %" PRIu64 "\n",
              c.ldmatrix, c.ldmatrixMatrices);
    if (c.cpAsync)
      appendf(out,
              "  cp.async: copies %" PRIu64 " zero-filled bytes %" PRIu64 "\n",
              c.cpAsync, c.cpAsyncZeroFill);
    traffic(out, "shared.load", c.sharedLoad, "wavefronts");
    traffic(out, "shared.store", c.sharedStore, "wavefronts");
    traffic(out, "shared.atomic", c.sharedAtomic, "wavefronts");
    traffic(out, "shared.ldmatrix", c.sharedLdmatrix, "wavefronts");
    traffic(out, "shared.cp.async", c.sharedCpAsync, "wavefronts");
    traffic(out, "shared.wgmma", c.sharedWgmma, "wavefronts");
    traffic(out, "global.load", c.globalLoad, "sectors");
    traffic(out, "global.store", c.globalStore, "sectors");
    traffic(out, "global.atomic", c.globalAtomic, "sectors");
    traffic(out, "global.cp.async", c.globalCpAsync, "sectors");
    if (c.dramReadSectors || c.dramWriteSectors)
      appendf(out,
              "  dram: read sectors %" PRIu64 " written sectors %" PRIu64
              " (%" PRIu64 " bytes)\n",
              c.dramReadSectors, c.dramWriteSectors,
              32 * (c.dramReadSectors + c.dramWriteSectors));
    if (c.l2ReadSectors)
      appendf(out,
              "  l2: read sectors %" PRIu64
              " written earlier in the launch (%" PRIu64 " bytes)\n",
              c.l2ReadSectors, 32 * c.l2ReadSectors);
    if (c.earlyGroupings)
      appendf(out, "  early groupings: %" PRIu64 "\n", c.earlyGroupings);
    const uint64_t wavefronts =
        c.sharedLoad.transactions + c.sharedStore.transactions +
        c.sharedAtomic.transactions + c.sharedLdmatrix.transactions +
        c.sharedCpAsync.transactions + c.sharedWgmma.transactions;
    appendf(out,
            "  h200 lower bounds (us): tensor %.3f dram %.3f shared %.3f\n",
            1e6 * double(c.mmaFlops) / kTensorFlopsPerSecond,
            1e6 * 32.0 * double(c.dramReadSectors + c.dramWriteSectors) /
                kDramBytesPerSecond,
            1e6 * double(wavefronts) / kWavefrontsPerSecond);
    uint64_t issued = 0;
    for (uint64_t n : c.issue)
      issued += n;
    if (issued) {
      out += "  issue (warp instructions):";
      for (unsigned i = 0; i < kIssueClasses; ++i)
        appendf(out, " %s %" PRIu64, kIssueClassNames[i], c.issue[i]);
      out += '\n';
    }
  }
  return out;
}
