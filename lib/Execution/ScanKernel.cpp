//===- ScanKernel.cpp - compile one scan op and run it --------------------===//

#include "ssd/Execution/ScanKernel.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "ssd/GPURuntime/DeviceCall.h"
#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/GPURuntime/EmulatorRuntime.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Runner/Npy.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <sstream>

using namespace ssd;


std::string ssd::buildScanModuleText(const ScanProblem &p, bool staticShapes,
                                     const std::string &functionName) {
  auto typeOf = [&](const OperandLayout &o) {
    std::ostringstream os;
    os << "memref<";
    // T and batch are the launch-dependent extents, and the pool's slot count
    // is the deployment's; every other extent is the model's and stays static.
    for (size_t i = 0; i < o.shape.size(); ++i) {
      bool tokenDim = (o.name == "x" || o.name == "dt" || o.name == "B" ||
                       o.name == "C" || o.name == "outs" ||
                       o.name == "ssm_pool") &&
                      i == 0;
      bool batchDim = o.name == "query_start_loc" || o.name == "has_initial_state" ||
                      o.name == "update_state" ||
                      (o.name == "cache_indices" && i == o.shape.size() - 1);
      if (!staticShapes && (tokenDim || batchDim))
        os << "?x";
      else
        os << o.shape[i] << "x";
    }
    os << o.elementType << ">";
    return os.str();
  };
  std::vector<OperandLayout> operands = operandLayouts(p);
  std::ostringstream args, op;
  for (size_t i = 0; i < operands.size(); ++i) {
    const OperandLayout &o = operands[i];
    std::string value = "%" + (o.name == "outs" ? std::string("y") : o.name);
    args << (i ? ",\n    " : "") << value << ": " << typeOf(o);
    op << (i ? (i % 3 == 0 ? "\n      " : " ") : "") << o.name << "(" << value
       << " : " << typeOf(o) << ")";
  }
  std::ostringstream module;
  module << "func.func @" << functionName << "(\n    " << args.str()
         << ") attributes {llvm.emit_c_interface} {\n"
         << "  ssd.chunk_scan_varlen " << op.str() << "\n  return\n}\n";
  return module.str();
}

//===----------------------------------------------------------------------===//
// ScanKernel
//===----------------------------------------------------------------------===//

struct ScanKernel::Impl {
  Target target = Target::CPU;
  /// The GPU runtime under the mgpu* calls (CUDA, GPU emulator), or null.
  const DeviceRuntime *device = nullptr;
  // The transformer must outlive the engine, which keeps a reference to it.
  std::function<llvm::Error(llvm::Module *)> transformer;
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

ScanKernel::ScanKernel() : impl(std::make_unique<Impl>()) {}
ScanKernel::~ScanKernel() = default;

std::unique_ptr<ScanKernel>
ScanKernel::compile(const ScanProblem &signature,
                       const CompileOptions &options, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);
  std::string text = buildScanModuleText(signature, options.staticShapes);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module) {
    error = "internal error: the generated module does not parse: " + diagnostics;
    return nullptr;
  }

  const DeviceRuntime *device =
      options.target == Target::CUDA          ? &cuda::deviceRuntime()
      : options.target == Target::GPUEmulator ? &emulator::deviceRuntime()
                                              : nullptr;
  // Fail before compiling when there is no GPU to run on.
  if (device && !device->initialize(error))
    return nullptr;
  // Errors of the emulated kernels come back through takeError(), reported
  // by the caller as one line.
  if (options.target == Target::GPUEmulator)
    emulator::setPrintErrors(false);
  bool openmp =
      !device && options.openmp && std::strlen(SSD_OPENMP_LIBRARY) > 0;
  mlir::PassManager pm(&context);
  if (options.target == Target::CUDA) {
    mlir::ssd::SSDToNVVMPipelineOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.format = "isa"; // the driver JIT-compiles the PTX: no ptxas needed
    nvvm.form = options.form;
    nvvm.chunkSize = options.chunkSize;
    mlir::ssd::buildSSDToNVVMPipeline(pm, nvvm);
  } else if (options.target == Target::GPUEmulator) {
    mlir::ssd::SSDToGPUEmulatorPipelineOptions emu;
    emu.chip = options.chip;
    emu.form = options.form;
    emu.chunkSize = options.chunkSize;
    mlir::ssd::buildSSDToGPUEmulatorPipeline(pm, emu);
  } else {
    mlir::ssd::SSDToCPUPipelineOptions cpu;
    cpu.form = options.form;
    cpu.chunkSize = options.chunkSize;
    cpu.openmp = openmp;
    mlir::ssd::buildSSDToCPUPipeline(pm, cpu);
  }
  if (mlir::failed(pm.run(*module))) {
    error = "compilation failed: " + diagnostics;
    return nullptr;
  }

  std::unique_ptr<ScanKernel> kernel(new ScanKernel());
  kernel->impl->transformer = mlir::makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = kernel->impl->transformer;
  llvm::SmallVector<llvm::StringRef, 1> libraries;
  if (openmp)
    libraries.push_back(SSD_OPENMP_LIBRARY);
  engineOptions.sharedLibPaths = libraries;
  auto engine = mlir::ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  kernel->impl->engine = std::move(*engine);
  kernel->impl->target = options.target;
  kernel->impl->device = device;
  if (device) {
    // The host code calls the mgpu* runtime; bind it explicitly rather than
    // relying on the process exporting its symbols.
    kernel->impl->engine->registerSymbols(
        [device](llvm::orc::MangleAndInterner interner) {
          llvm::orc::SymbolMap symbols;
          for (auto [name, address] : device->runtimeSymbols())
            symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                       llvm::JITSymbolFlags::Exported};
          return symbols;
        });
  }
  // Runs global constructors: for CUDA they load the kernels.
  kernel->impl->engine->initialize();
  if (device) {
    std::string loadError = device->takeError();
    if (!loadError.empty()) {
      error = "loading the kernels failed: " + loadError;
      return nullptr;
    }
  }
  return kernel;
}

bool ScanKernel::run(HostOperands &operands, double &seconds,
                     std::string &error) {
  auto invoke = [&](std::vector<void *> &descriptors, std::string &error) {
    std::vector<void *> args;
    for (void *&p : descriptors)
      args.push_back(&p);
    llvm::Error result =
        impl->engine->invokePacked("_mlir_ciface_chunk_scan_varlen", args);
    if (result) {
      error = "call failed: " + llvm::toString(std::move(result));
      return false;
    }
    return true;
  };
  if (impl->device)
    return ssd::runOnDevice(*impl->device, operands, invoke, seconds, error);

  std::vector<void *> host;
  for (size_t i = 0; i < operands.size(); ++i)
    host.push_back(operands.bytes(i).data());
  std::vector<std::vector<int64_t>> descriptors = operands.descriptors(host);
  std::vector<void *> pointers;
  for (std::vector<int64_t> &d : descriptors)
    pointers.push_back(d.data());
  auto start = std::chrono::steady_clock::now();
  bool ok = invoke(pointers, error);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
  return ok;
}
