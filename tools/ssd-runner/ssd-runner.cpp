//===- ssd-runner.cpp - run a lowered module on the GPU emulator or CUDA --===//
//
//   ssd-runner FILE.mlir [--entry-point=main] [--shared-libs=A.so,B.so]
//              [--gpu=emulator|cuda] [--emulator-costs]
//
// The counterpart of mlir-runner for modules compiled by the ssd GPU
// pipelines (--ssd-to-gpu-emulator, --ssd-gpu-lower-to-emulator,
// --ssd-to-nvvm): it knows the ssd dialect (whose #ssd.gpu_emulator_target
// the gpu.binary objects carry) and binds the mgpu* functions to the GPU
// emulator runtime (default) or the CUDA runtime. The entry point takes no
// arguments and returns nothing; --shared-libs adds libraries such as
// libmlir_runner_utils.so for printMemrefF32. The exit status is 1 when the
// GPU runtime recorded an error (already printed). --emulator-costs prints
// the emulator's cost counters per kernel after the run (docs/gpu.md, "Cost
// counters").
//
//===----------------------------------------------------------------------===//

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/GPURuntime/EmulatorReports.h"
#include "ssd/InitSSD.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace llvm;

static cl::OptionCategory category("ssd-runner options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input file>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> entryPoint("entry-point",
                                       cl::desc("function to run"),
                                       cl::init("main"), cl::cat(category));
static cl::list<std::string> sharedLibs("shared-libs",
                                        cl::desc("libraries to load"),
                                        cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> gpu("gpu", cl::desc("emulator (default) or cuda"),
                                cl::init("emulator"), cl::cat(category));
static cl::opt<bool> emulatorCosts(
    "emulator-costs",
    cl::desc("print the GPU emulator's cost counters per kernel after the run"),
    cl::init(false), cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // --help lists the runner's flags, not every option linked into libLLVM.
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "ssd module runner\n");
  if (gpu != "emulator" && gpu != "cuda") {
    errs() << "ssd-runner: unknown --gpu '" << gpu
           << "' (expected emulator or cuda)\n";
    return 2;
  }
  if (emulatorCosts && gpu != "emulator") {
    errs() << "ssd-runner: --emulator-costs needs --gpu=emulator\n";
    return 2;
  }
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();

  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDDialect(registry);
  mlir::ssd::registerSSDDependencies(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputFile, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1;

  std::string error;
  const bool emulator = gpu == "emulator";
  const ssd::DeviceRuntime &runtime =
      emulator ? ssd::emulator::deviceRuntime() : ssd::cuda::deviceRuntime();
  if (!emulator && !runtime.initialize(error)) {
    errs() << "ssd-runner: " << error << "\n";
    return 1;
  }
  auto transformer = mlir::makeOptimizingTransformer(2, 0, nullptr);
  mlir::ExecutionEngineOptions options;
  options.transformer = transformer;
  SmallVector<StringRef> libraries(sharedLibs.begin(), sharedLibs.end());
  options.sharedLibPaths = libraries;
  auto engine = mlir::ExecutionEngine::create(*module, options);
  if (!engine) {
    errs() << "ssd-runner: JIT compilation failed: "
           << toString(engine.takeError()) << "\n";
    return 1;
  }
  (*engine)->registerSymbols([&](orc::MangleAndInterner interner) {
    orc::SymbolMap symbols;
    for (auto [name, address] : runtime.runtimeSymbols())
      symbols[interner(name)] = {orc::ExecutorAddr::fromPtr(address),
                                 JITSymbolFlags::Exported};
    return symbols;
  });
  (*engine)->initialize();
  if (Error e = (*engine)->invokePacked(entryPoint)) {
    errs() << "ssd-runner: " << toString(std::move(e)) << "\n";
    return 1;
  }
  if (emulatorCosts) {
    std::fflush(stdout); // after what the program printed
    outs() << "emulator costs:\n"
           << ssd::emulator::formatCosts(ssd::emulator::takeCosts());
  }
  outs().flush();
  std::string failure = runtime.takeError();
  if (!failure.empty()) {
    if (!emulator)
      errs() << "ssd-runner: " << failure << "\n";
    return 1;
  }
  return 0;
}
