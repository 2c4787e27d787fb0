//===- ir-pipeline-fuzzer.cpp - libFuzzer: ssd IR through the passes ------===//
//
// Parses the input as MLIR text, verifies it, and runs the ssd passes on it:
// ssd-select-form, then ssd-lower-to-loops (both with options derived from
// the input), or the whole --ssd-to-cpu pipeline. Seeds: the test .mlir
// files (fuzz/make-seeds.py). gpu-pipeline-fuzzer.cpp does the same for the
// GPU lowering; FuzzIR.h holds what both share.
//
// Only modules made of the ops an ssd program holds (builtin, func, ssd,
// arith, memref, tensor, scf, bufferization) are run through the passes, so
// that the target explores ssd's code rather than other dialects' passes.
//
// Properties checked (a violation aborts, which libFuzzer reports):
//   - an option outside its documented range fails the pipeline (values up
//     to 2^63 - 1 are drawn);
//   - a pipeline that succeeds leaves IR that verifies;
//   - ssd-lower-to-loops adds no stack allocation (memref.alloca) that is
//     dynamically sized or larger than 64 KiB (what overflowed the stack
//     for dstate 131072, issue 11).
// Crashes, hangs (-timeout) and memory blow-ups (-rss_limit_mb) are reported
// by libFuzzer itself.
//
//===----------------------------------------------------------------------===//

#include "FuzzIR.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/Transforms/FormSelection.h"

#include "llvm/Support/MathExtras.h"

namespace {

/// memref.alloca ops that are dynamically sized or above the stack budget.
int64_t largeStackAllocations(mlir::Operation *root) {
  int64_t count = 0;
  root->walk([&](mlir::memref::AllocaOp alloca) {
    mlir::MemRefType type = alloca.getType();
    if (!type.hasStaticShape())
      ++count;
    else if (type.getNumElements() *
                 std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) >
             mlir::ssd::limits::kMaxStackTileBytes)
      ++count;
  });
  return count;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ssd_fuzz::Session session;
  static const llvm::StringSet<> programDialects = {
      "builtin", "func",   "ssd", "arith",
      "memref",  "tensor", "scf", "bufferization"};
  ssd_fuzz::Input input(session, data, size, programDialects);
  if (!input.module)
    return 0;
  mlir::ModuleOp module = *input.module;

  ssd_fuzz::Draw draw(data, size);
  const char *forms[] = {"auto", "serial", "chunked", "chunked"};
  std::string form = draw.pick(forms);
  ssd_fuzz::Drawn chunkSize =
      ssd_fuzz::drawOption(draw, 1, mlir::ssd::kChunkSizeRange.max,
                           {1, 3, 8, 64, 256, 4096, 65536, 65537});
  ssd_fuzz::Drawn pTile = ssd_fuzz::drawOption(
      draw, 1, mlir::ssd::kSerialPTileRange.max, {1, 3, 16, 64, 1024});
  ssd_fuzz::Drawn minTokens = ssd_fuzz::drawOption(
      draw, 0, mlir::ssd::kMinChunkedTokensRange.max, {0, 1, 8, 65536});
  ssd_fuzz::Drawn vectorWidth = ssd_fuzz::drawOption(
      draw, 0, mlir::ssd::kVectorWidthRange.max, {0, 0, 1, 4, 16, 12});
  vectorWidth.inRange =
      vectorWidth.inRange &&
      llvm::isPowerOf2_64(std::max<int64_t>(vectorWidth.value, 1));
  bool wholeCPUPipeline = draw.bits(2) == 0;
  bool inRange = chunkSize.inRange && pTile.inRange && minTokens.inRange &&
                 vectorWidth.inRange;

  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  if (wholeCPUPipeline)
    os << "builtin.module(ssd-to-cpu{form=" << form
       << " chunk-size=" << chunkSize.value
       << " min-chunked-tokens=" << minTokens.value
       << " serial-p-tile=" << pTile.value
       << " vector-width=" << vectorWidth.value
       << " openmp=" << (draw.bits(1) ? "true" : "false") << "})";
  else
    os << "builtin.module(func.func(ssd-select-form{form=" << form
       << " chunk-size=" << chunkSize.value
       << " min-chunked-tokens-per-seq=" << minTokens.value
       << "}), ssd-lower-to-loops{serial-p-tile=" << pTile.value
       << " vector-width=" << vectorWidth.value << "})";

  int64_t stackBefore = largeStackAllocations(module);
  if (!ssd_fuzz::runPipeline("ir-pipeline-fuzzer", input.context, module,
                             pipeline, inRange))
    return 0;
  if (!wholeCPUPipeline && largeStackAllocations(module) > stackBefore)
    ssd_fuzz::violated("ir-pipeline-fuzzer",
                       "ssd-lower-to-loops added a dynamic or large "
                       "memref.alloca",
                       module);
  return 0;
}
