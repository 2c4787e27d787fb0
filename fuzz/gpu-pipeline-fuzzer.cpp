//===- gpu-pipeline-fuzzer.cpp - libFuzzer: ssd IR through the GPU lowering
//===//
//
// Parses the input as MLIR text, verifies it, and runs it through one of
// ssd's GPU lowerings, with options derived from the input:
//   - ssd-select-form, then ssd-plan-gpu-kernels and ssd-lower-to-gpu alone;
//   - --ssd-to-nvvm up to PTX text (format=isa: the NVPTX backend runs in
//     process, no ptxas);
//   - --ssd-to-gpu-emulator up to the host shared object (the kernels
//     compiled for the host and linked with ld.lld).
// Seeds: the test .mlir files (fuzz/make-seeds.py), as for
// ir-pipeline-fuzzer.cpp, whose parse, filters and checks (FuzzIR.h) this
// target shares.
//
// Only modules made of the ops an ssd program holds (builtin, func, ssd,
// arith, memref, tensor, scf, bufferization, gpu) go through the passes.
// Per-input cost is bounded by the shapes: a module with a static extent
// above 256 is skipped (a large dstate costs codegen time, not a new path),
// and a chunk size above 1024 is drawn as 1024 or 4096.
//
// Properties checked (a violation aborts, which libFuzzer reports):
//   - an option outside its documented range fails the pipeline;
//   - a pipeline that succeeds leaves IR that verifies.
// Crashes (such as the zero-extent ones of issue 23), hangs (-timeout) and
// memory blow-ups (-rss_limit_mb) are reported by libFuzzer itself.
//
//===----------------------------------------------------------------------===//

#include "FuzzIR.h"

#include "mlir/IR/BuiltinTypes.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/IR/SSDOps.h"
#include "ssd/Transforms/FormSelection.h"
#include "ssd/Transforms/GPUChip.h"

namespace {

/// Largest static extent of any shaped value (operand, result or block
/// argument) in `root`, and largest chunk_size attribute.
int64_t largestExtent(mlir::Operation *root) {
  int64_t largest = 0;
  auto consider = [&](mlir::Type type) {
    if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(type))
      if (shaped.hasRank())
        for (int64_t d : shaped.getShape())
          if (!mlir::ShapedType::isDynamic(d))
            largest = std::max(largest, d);
  };
  root->walk([&](mlir::Operation *op) {
    for (mlir::Type t : op->getResultTypes())
      consider(t);
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          consider(arg.getType());
    if (auto scan = llvm::dyn_cast<mlir::ssd::ChunkScanVarlenOp>(op))
      if (auto chunk = scan.getChunkSizeAttr())
        largest = std::max(largest, chunk.getInt() / 4);
  });
  return largest;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ssd_fuzz::Session session;
  static const llvm::StringSet<> programDialects = {
      "builtin", "func", "ssd",           "arith", "memref",
      "tensor",  "scf",  "bufferization", "gpu"};
  ssd_fuzz::Input input(session, data, size, programDialects);
  if (!input.module || largestExtent(*input.module) > 256)
    return 0;

  ssd_fuzz::Draw draw(data, size);
  const char *forms[] = {"auto", "serial", "chunked", "chunked"};
  const char *chips[] = {"sm_80", "sm_86", "sm_90a", "sm_90a"};
  const char *flags[] = {"true", "false"};
  std::string form = draw.pick(forms);
  ssd_fuzz::Drawn chunkSize = ssd_fuzz::drawOption(
      draw, 1, mlir::ssd::kChunkSizeRange.max, {1, 3, 16, 64, 64, 256, 1024});
  // The pass takes chunks up to 65536, the GPU kernels up to 4096 (an
  // error per op); above 1024 the cost, not the path, grows.
  if (chunkSize.inRange && chunkSize.value > 1024)
    chunkSize.value = 1024 + draw.bits(1) * 3072;
  ssd_fuzz::Drawn minTokens = ssd_fuzz::drawOption(
      draw, 0, mlir::ssd::kMinChunkedTokensRange.max, {0, 1, 8, 256, 1024});
  ssd_fuzz::Drawn rows = ssd_fuzz::drawOption(
      draw, 1, mlir::ssd::kSerialRowsPerWarpRange.max, {1, 2, 4, 4, 3, 8});
  ssd_fuzz::Drawn warps = ssd_fuzz::drawOption(
      draw, 1, mlir::ssd::kSerialWarpsPerBlockRange.max, {1, 2, 4, 4, 8});
  ssd_fuzz::Drawn heads = ssd_fuzz::drawOption(
      draw, 1, mlir::ssd::kHeadsPerBlockRange.max, {1, 2, 2});
  bool inRange = chunkSize.inRange && minTokens.inRange && rows.inRange &&
                 warps.inRange && heads.inRange;

  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  switch (draw.bits(2)) {
  case 0:
  case 1: {
    ssd_fuzz::Drawn shared =
        ssd_fuzz::drawOption(draw, 1, mlir::ssd::kSharedMemoryLimitRange.max,
                             {30000, 101376, 166912, 232448});
    inRange = inRange && shared.inRange;
    const char *matmuls[] = {"auto", "auto", "mma_sync", "wgmma"};
    const char *fragmentLoads[] = {"ldmatrix", "scalar"};
    const char *stagings[] = {"cp_async", "registers"};
    os << "builtin.module(func.func(ssd-select-form{form=" << form
       << " chunk-size=" << chunkSize.value
       << " min-chunked-tokens=" << minTokens.value
       << " min-chunked-tokens-per-seq=" << minTokens.value / 4
       << "}), ssd-plan-gpu-kernels{chip=" << draw.pick(chips)
       << " serial-rows-per-warp=" << rows.value
       << " serial-warps-per-block=" << warps.value
       << " shared-memory-limit=" << shared.value
       << " heads-per-block=" << heads.value << " matmul=" << draw.pick(matmuls)
       << " fragment-loads=" << draw.pick(fragmentLoads)
       << " staging=" << draw.pick(stagings)
       << " fused-state-passing=" << draw.pick(flags)
       << " fused-output=" << draw.pick(flags) << "}, ssd-lower-to-gpu)";
    break;
  }
  default: {
    ssd_fuzz::Drawn optLevel = ssd_fuzz::drawOption(
        draw, 0, mlir::ssd::kGPUOptLevelRange.max, {0, 1, 2});
    inRange = inRange && optLevel.inRange;
    // The option is an int: a value beyond it is a parse error, which is
    // what an out-of-range value must give anyway.
    bool emulator = draw.bits(1);
    os << "builtin.module("
       << (emulator ? "ssd-to-gpu-emulator{" : "ssd-to-nvvm{format=isa ")
       << "form=" << form << " chip=" << draw.pick(chips)
       << " chunk-size=" << chunkSize.value
       << " min-chunked-tokens=" << minTokens.value
       << " serial-rows-per-warp=" << rows.value
       << " serial-warps-per-block=" << warps.value
       << " heads-per-block=" << heads.value << " opt-level=" << optLevel.value
       << " fused-output=" << draw.pick(flags) << "})";
    break;
  }
  }
  ssd_fuzz::runPipeline("gpu-pipeline-fuzzer", input.context, *input.module,
                        pipeline, inRange);
  return 0;
}
