//===- JITTestSupport.h - JIT-running lowered functions in tests -*- C++
//-*-===//
//
// Tests that check the numbers compiled code produces lower a module through
// `--ssd-to-cpu`, JIT-compile it for a chosen CPU and call its
// `memref<?xIn> -> memref<?xOut>` functions on host buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_UNITTESTS_TRANSFORMS_JITTESTSUPPORT_H
#define SSD_UNITTESTS_TRANSFORMS_JITTESTSUPPORT_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

namespace ssd::test {

/// A context with every dialect the pipelines need, loaded.
std::unique_ptr<mlir::MLIRContext> createPipelineContext();

/// Lowers `module` in place through `--ssd-to-cpu` without OpenMP.
mlir::LogicalResult lowerToCPU(mlir::ModuleOp module);

/// The CPU whose code has the fewest instructions to fall back on: "x86-64"
/// (SSE2 only: no FMA, F16C or AVX) on x86 hosts, else the host ("").
llvm::StringRef baselineCPU();

/// `module` (lowered) JIT-compiled at -O2 for `cpu` (empty: the host); null
/// with `error` set when that fails.
std::unique_ptr<mlir::ExecutionEngine>
jitCompile(mlir::ModuleOp module, llvm::StringRef cpu, std::string &error);

/// Runs `_mlir_ciface_<name>(memref<?xIn>, memref<?xOut>)` on `in`.
template <typename Out, typename In>
std::vector<Out> runUnary(mlir::ExecutionEngine &engine, llvm::StringRef name,
                          std::vector<In> &in) {
  std::vector<Out> out(in.size());
  StridedMemRefType<In, 1> inRef{
      in.data(), in.data(), 0, {int64_t(in.size())}, {1}};
  StridedMemRefType<Out, 1> outRef{
      out.data(), out.data(), 0, {int64_t(out.size())}, {1}};
  auto symbol = engine.lookup(("_mlir_ciface_" + name).str());
  if (!symbol) {
    ADD_FAILURE() << llvm::toString(symbol.takeError());
    return out;
  }
  auto fn = reinterpret_cast<void (*)(StridedMemRefType<In, 1> *,
                                      StridedMemRefType<Out, 1> *)>(*symbol);
  fn(&inRef, &outRef);
  return out;
}

} // namespace ssd::test

#endif // SSD_UNITTESTS_TRANSFORMS_JITTESTSUPPORT_H
