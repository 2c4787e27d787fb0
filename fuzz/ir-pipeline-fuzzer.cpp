//===- ir-pipeline-fuzzer.cpp - libFuzzer: ssd IR through the passes ------===//
//
// Parses the input as MLIR text, verifies it, and runs the ssd passes on it:
// ssd-select-form, then ssd-lower-to-loops (both with options derived from
// the input), or the whole --ssd-to-cpu pipeline. Seeds: the test .mlir
// files (fuzz/make-seeds.sh).
//
// Only modules made of the ops an ssd program holds (builtin, func, ssd,
// arith, memref, tensor, scf, bufferization) are run through the passes, so
// that the target explores ssd's code rather than other dialects' passes.
//
// Properties checked (a violation aborts, which libFuzzer reports):
//   - a pipeline that succeeds leaves IR that verifies;
//   - ssd-lower-to-loops adds no stack allocation (memref.alloca) that is
//     dynamically sized or larger than 64 KiB (what overflowed the stack
//     for dstate 131072, issue 11).
// Crashes, hangs (-timeout) and memory blow-ups (-rss_limit_mb) are reported
// by libFuzzer itself.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/InitSSD.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

struct Session {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned uses = 0;

  Session() {
    mlir::ssd::registerAllSSD(registry);
    fresh();
  }
  /// A new context now and then: uniqued types and attributes of earlier
  /// inputs would otherwise accumulate for the whole run.
  mlir::MLIRContext &get() {
    if (++uses % 256 == 0)
      fresh();
    return *context;
  }
  void fresh() {
    context = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
    context->printStackTraceOnDiagnostic(false);
  }
};

bool onlySSDProgramOps(mlir::Operation *root) {
  static const llvm::StringSet<> dialects = {
      "builtin", "func",   "ssd", "arith",
      "memref",  "tensor", "scf", "bufferization"};
  bool ok = true;
  root->walk([&](mlir::Operation *op) {
    if (!dialects.contains(op->getName().getDialectNamespace()))
      ok = false;
  });
  return ok;
}

/// memref.alloca ops that are dynamically sized or above the stack budget.
int64_t largeStackAllocations(mlir::Operation *root) {
  int64_t count = 0;
  root->walk([&](mlir::memref::AllocaOp alloca) {
    mlir::MemRefType type = alloca.getType();
    if (!type.hasStaticShape())
      ++count;
    else if (type.getNumElements() *
                 std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) >
             ::ssd::limits::kMaxStackTileBytes)
      ++count;
  });
  return count;
}

[[noreturn]] void violated(const char *what, mlir::ModuleOp module) {
  std::fprintf(stderr, "ir-pipeline-fuzzer: property violated: %s\n", what);
  module->print(llvm::errs());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Session session;
  if (size > 64 * 1024)
    return 0;
  mlir::MLIRContext &context = session.get();
  // Diagnostics of rejected input are expected; keep them off the output.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  // MLIR's lexer reads the NUL that follows a source buffer as its end;
  // parseSourceString does not add one (it reads past a bare StringRef: the
  // first finding of this target), so the input is copied into a string.
  std::string text(reinterpret_cast<const char *>(data), size);
  // MLIR 22.1.8's linalg.generic parser crashes on some malformed input
  // (stock mlir-opt too: fuzz/regressions/ir/upstream-linalg-generic-parse,
  // docs/testing.md). That parser is upstream's to fuzz, and no linalg op is
  // run through the passes here anyway, so such input is not parsed.
  if (text.find("linalg.") != std::string::npos)
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module || !onlySSDProgramOps(*module) ||
      mlir::failed(mlir::verify(*module)))
    return 0;

  // Options from a hash of the input: deterministic per input, and every
  // input gets some combination.
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ data[i]) * 16777619u;
  const char *forms[] = {"auto", "serial", "chunked", "chunked"};
  const int64_t chunkSizes[] = {1, 3, 8, 64, 256, 4096, 65536, 65537};
  const int64_t pTiles[] = {1, 3, 16, 1024};
  std::string form = forms[hash & 3];
  int64_t chunkSize = chunkSizes[(hash >> 2) & 7];
  int64_t pTile = pTiles[(hash >> 5) & 3];
  bool wholeCPUPipeline = ((hash >> 7) & 3) == 0;

  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  if (wholeCPUPipeline)
    os << "builtin.module(ssd-to-cpu{form=" << form
       << " chunk-size=" << chunkSize << " serial-p-tile=" << pTile
       << " openmp=" << ((hash >> 9) & 1 ? "true" : "false") << "})";
  else
    os << "builtin.module(func.func(ssd-select-form{form=" << form
       << " chunk-size=" << chunkSize
       << "}), ssd-lower-to-loops{serial-p-tile=" << pTile << "})";

  mlir::PassManager pm(&context);
  pm.enableVerifier(false); // verified below, so that a bad output is a finding
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm))) {
    std::fprintf(stderr, "ir-pipeline-fuzzer: bad pipeline %s\n",
                 pipeline.c_str());
    std::abort();
  }
  int64_t stackBefore = largeStackAllocations(*module);
  if (mlir::failed(pm.run(*module)))
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    violated("the passes succeeded but left IR that does not verify", *module);
  if (!wholeCPUPipeline && largeStackAllocations(*module) > stackBefore)
    violated("ssd-lower-to-loops added a dynamic or large memref.alloca",
             *module);
  return 0;
}
