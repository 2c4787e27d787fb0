//===- FuzzIR.h - what the IR fuzz targets share ---------------*- C++ -*-===//
//
// The MLIR context kept across inputs, the parse of an input (with the
// upstream crashes kept out), the dialect filter, option values drawn from
// a hash of the input, and the check that a pipeline run ends as it must.
// Used by ir-pipeline-fuzzer.cpp (the CPU passes) and gpu-pipeline-fuzzer.cpp
// (the GPU lowering and pipelines).
//
//===----------------------------------------------------------------------===//

#ifndef SSD_FUZZ_FUZZIR_H
#define SSD_FUZZ_FUZZIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "ssd/InitSSD.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>

namespace ssd_fuzz {

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

/// Text that reaches a crash of MLIR 22.1.8 itself (stock mlir-opt crashes
/// on the same input; docs/testing.md, findings): such input is not parsed.
/// None of these ops is run through ssd's passes by the targets, and the
/// custom syntax of memref.global and gpu.launch, which the seeds and ssd's
/// own output use, cannot express the crashing forms.
inline bool reachesUpstreamCrash(const std::string &text) {
  for (const char *marker : {
           // the linalg.generic parser on a truncated function (SIGSEGV)
           "linalg.",
           // the memref.global verifier printing a null type, for an
           // initial value of another type (generic syntax only; SIGSEGV)
           "\"memref.global\"",
           // gpu.launch's verifier on an empty body (generic syntax only;
           // SIGSEGV)
           "\"gpu.launch\"",
           // vector.from_elements' parser building a huge vector (OOM)
           "vector.from_elements",
       })
    if (text.find(marker) != std::string::npos)
      return true;
  return false;
}

/// The input parsed and verified, or null. MLIR's lexer reads the NUL that
/// follows a source buffer as its end; parseSourceString does not add one
/// (it reads past a bare StringRef: the first finding of the IR target), so
/// the input is copied into a string.
inline mlir::OwningOpRef<mlir::ModuleOp>
parseInput(const uint8_t *data, size_t size, mlir::MLIRContext &context) {
  std::string text(reinterpret_cast<const char *>(data), size);
  if (reachesUpstreamCrash(text))
    return nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

/// True when every op of `root` is of one of `dialects`.
inline bool onlyDialects(mlir::Operation *root,
                         const llvm::StringSet<> &dialects) {
  bool ok = true;
  root->walk([&](mlir::Operation *op) {
    if (!dialects.contains(op->getName().getDialectNamespace()))
      ok = false;
  });
  return ok;
}

/// One input as a target sees it: its module when it parses, verifies, is
/// at most 64 KiB and holds only ops of `dialects` (else null), with the
/// diagnostics of rejected input and of failing passes kept off the output
/// for as long as the object lives.
class Input {
public:
  Input(Session &session, const uint8_t *data, size_t size,
        const llvm::StringSet<> &dialects)
      : context(session.get()),
        quiet(&context, [](mlir::Diagnostic &) { return mlir::success(); }) {
    if (size > 64 * 1024)
      return;
    module = parseInput(data, size, context);
    if (module && !onlyDialects(*module, dialects))
      module = nullptr;
  }
  mlir::MLIRContext &context;
  mlir::OwningOpRef<mlir::ModuleOp> module;

private:
  mlir::ScopedDiagnosticHandler quiet;
};

/// Option values from a hash of the input: deterministic per input, and
/// every input gets some combination.
class Draw {
public:
  Draw(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ data[i]) * 1099511628211ull;
  }
  /// `bits` bits of the hash.
  unsigned bits(unsigned count) {
    unsigned v = unsigned(hash >> used) & ((1u << count) - 1);
    used = (used + count) % 56;
    return v;
  }
  template <typename T, size_t N> const T &pick(const T (&values)[N]) {
    static_assert((N & (N - 1)) == 0, "a power of two of choices");
    unsigned count = 0;
    while ((size_t(1) << count) < N)
      ++count;
    return values[bits(count)];
  }

private:
  uint64_t hash = 14695981039346656037ull;
  unsigned used = 0;
};

/// An option value and whether it lies in the option's range.
struct Drawn {
  int64_t value;
  bool inRange;
};

/// Mostly one of `usual` (in the range or not), in 1 of 16 inputs the
/// maximum, and in 1 of 16 one past either end, 2^63 - 1 or -2^63 (the
/// option parser takes any int64).
inline Drawn drawOption(Draw &draw, int64_t min, int64_t max,
                        std::initializer_list<int64_t> usual) {
  switch (draw.bits(4)) {
  case 0:
    return {max, true};
  case 1: {
    const unsigned which = draw.bits(2);
    const int64_t odd[] = {max + 1, min - 1, INT64_MAX, INT64_MIN};
    return {odd[which], false};
  }
  default: {
    const int64_t *values = usual.begin();
    int64_t v = values[draw.bits(4) % usual.size()];
    return {v, v >= min && v <= max};
  }
  }
}

[[noreturn]] inline void violated(const char *target, const char *what,
                                  mlir::ModuleOp module) {
  std::fprintf(stderr, "%s: property violated: %s\n", target, what);
  if (module)
    module->print(llvm::errs());
  std::abort();
}

/// Runs `pipeline` on `module`. A pipeline with an option outside its range
/// must fail (when parsed or when its passes initialize); one that succeeds
/// must leave IR that verifies. Returns whether it succeeded.
inline bool runPipeline(const char *target, mlir::MLIRContext &context,
                        mlir::ModuleOp module, const std::string &pipeline,
                        bool optionsInRange) {
  mlir::PassManager pm(&context);
  pm.enableVerifier(false); // verified below, so that a bad output is a finding
  std::string parseErrors;
  llvm::raw_string_ostream errors(parseErrors);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, errors))) {
    if (optionsInRange) {
      std::fprintf(stderr, "%s: bad pipeline %s: %s\n", target,
                   pipeline.c_str(), parseErrors.c_str());
      std::abort();
    }
    return false;
  }
  bool ok = mlir::succeeded(pm.run(module));
  // SSD_FUZZ_VERBOSE=1: what ran and how it ended, to see what a
  // reproducer exercises.
  static const bool verbose = std::getenv("SSD_FUZZ_VERBOSE");
  if (verbose)
    std::fprintf(stderr, "%s: %s: %s\n", target, pipeline.c_str(),
                 ok ? "succeeded" : "failed");
  if (ok && !optionsInRange)
    violated(target, "an option outside its range was accepted", module);
  if (ok && mlir::failed(mlir::verify(module)))
    violated(target, "the passes succeeded but left IR that does not verify",
             module);
  return ok;
}

} // namespace ssd_fuzz

#endif // SSD_FUZZ_FUZZIR_H
