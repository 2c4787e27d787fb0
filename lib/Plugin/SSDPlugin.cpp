//===- SSDPlugin.cpp - ssd as a plugin of a stock mlir-opt ----------------===//
//
// One shared library that is both a dialect plugin and a pass plugin:
//
//   mlir-opt --load-dialect-plugin=SSDPlugin.so --load-pass-plugin=SSDPlugin.so
//       --pass-pipeline='builtin.module(ssd-to-cpu)' in.mlir
//
// It links libMLIR.so like Debian's mlir-opt, so it registers into the tool's
// own registries. Either entry point registers the dialect's passes and
// pipelines, so the pass plugin flag alone is enough to run pipelines on IR
// that the tool can already parse, and the dialect plugin flag alone is
// enough for both parsing and passes. Do not load it into a tool that links
// the ssd libraries itself (ssd-opt): the dialect would be defined twice.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "ssd/InitSSD.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SSD", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            ssd::registerSSDDialect(*registry);
            ssd::registerSSDDependencies(*registry);
            ssd::registerSSDPasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SSDPasses", LLVM_VERSION_STRING,
          []() { ssd::registerSSDPasses(); }};
}
