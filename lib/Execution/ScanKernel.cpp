//===- ScanKernel.cpp - compile one scan op and run it --------------------===//

#include "ssd/Execution/ScanKernel.h"

#include "ssd/Execution/JITTarget.h"
#include "ssd/Execution/ScanModule.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "ssd/GPURuntime/DeviceCall.h"
#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/GPURuntime/EmulatorReports.h"
#include "ssd/Pipelines/Pipelines.h"
#include "ssd/Runner/Npy.h"
#include "ssd/Transforms/ScanPlan.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace ssd;

//===----------------------------------------------------------------------===//
// ScanKernel
//===----------------------------------------------------------------------===//

struct ScanKernel::Impl {
  Target target = Target::CPU;
  /// The GPU runtime under the mgpu* calls (CUDA, GPU emulator), or null.
  const DeviceRuntime *device = nullptr;
  /// HostOperands indices passed as arguments, in order (the tensor form
  /// returns y, and constant weights are in the module).
  std::vector<size_t> arguments;
  bool returnsY = false;
  // The transformer must outlive the engine, which keeps a reference to it.
  std::function<llvm::Error(llvm::Module *)> transformer;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// The packed entry point, looked up when compiling: the JIT optimizes
  /// and generates code at the first lookup, which would otherwise land in
  /// the first call's time.
  void (*packed)(void **) = nullptr;
};

ScanKernel::ScanKernel() : impl(std::make_unique<Impl>()) {}
ScanKernel::~ScanKernel() = default;

void ssd::buildPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                        int64_t vectorWidth) {
  if (options.target == Target::CUDA) {
    mlir::ssd::SSDToNVVMPipelineOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.format = options.format;
    nvvm.form = options.form;
    nvvm.chunkSize = options.chunkSize;
    nvvm.fusedStatePassing = options.fusedStatePassing;
    nvvm.fusedOutput = options.fusedOutput;
    nvvm.headsPerBlock = options.headsPerBlock;
    nvvm.pipelineStages = options.pipelineStages;
    nvvm.cbInBlock = options.cbInBlock;
    nvvm.invariant = options.invariant;
    mlir::ssd::buildSSDToNVVMPipeline(pm, nvvm);
  } else if (options.target == Target::GPUEmulator) {
    mlir::ssd::SSDToGPUEmulatorPipelineOptions emu;
    emu.chip = options.chip;
    emu.form = options.form;
    emu.chunkSize = options.chunkSize;
    emu.fusedStatePassing = options.fusedStatePassing;
    emu.fusedOutput = options.fusedOutput;
    emu.headsPerBlock = options.headsPerBlock;
    emu.pipelineStages = options.pipelineStages;
    emu.cbInBlock = options.cbInBlock;
    emu.invariant = options.invariant;
    mlir::ssd::buildSSDToGPUEmulatorPipeline(pm, emu);
  } else {
    mlir::ssd::SSDToCPUPipelineOptions cpu;
    cpu.form = options.form;
    cpu.chunkSize = options.chunkSize;
    cpu.openmp = options.openmp;
    cpu.vectorWidth = vectorWidth;
    cpu.invariant = options.invariant;
    mlir::ssd::buildSSDToCPUPipeline(pm, cpu);
  }
}

mlir::ssd::Form ssd::formThatRuns(const ScanProblem &problem,
                                  const CompileOptions &options) {
  mlir::ssd::SSDSelectFormOptions select =
      options.target == Target::CPU
          ? mlir::ssd::SSDToCPUPipelineOptions().selectFormOptions()
          : mlir::ssd::SSDToNVVMPipelineOptions().selectFormOptions();
  mlir::ssd::ScanRequest request;
  request.form = options.form;
  request.chunkSize = options.chunkSize;
  request.thresholds = {select.minChunkedTokens, select.minChunkedTokensPerSeq,
                        select.serialForDenseCheckpoints,
                        select.serialForUnchunkedPools};
  if (isScaledPool(problem.poolDType))
    request.scaledPoolDstate = problem.N;
  request.tokens = problem.T;
  request.batch = problem.batch;
  if (problem.checkpointSlotsPresent)
    request.checkpointInterval = problem.checkpointInterval;
  request.tree = problem.tokenParentsPresent;
  return *mlir::ssd::planScan(request).form;
}

bool ssd::checkTreeOptions(const ScanProblem &problem,
                           const CompileOptions &options, std::string &error) {
  if (!problem.tokenParentsPresent)
    return true;
  if (options.form == mlir::ssd::FormChoice::Chunked) {
    error = "token_parents (a draft tree) needs the serial form: the chunked "
            "form follows a chain of tokens, not a token's parent";
    return false;
  }
  if (options.invariant) {
    error = "token_parents (a draft tree) cannot run invariant: the "
            "invariant kernels follow a chain of tokens, not a token's parent";
    return false;
  }
  return true;
}

bool ssd::checkCPUWorkspace(const ScanProblem &problem,
                            const CompileOptions &options, std::string &error) {
  bool chunked = formThatRuns(problem, options) == mlir::ssd::Form::chunked;
  int threads = options.openmp
                    ? int(std::max(1u, std::thread::hardware_concurrency()))
                    : 1;
  double need = cpuWorkspaceBytes(problem, chunked, options.chunkSize, threads);
  double have =
      double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (have <= 0 || need <= have)
    return true;
  char text[256];
  std::snprintf(text, sizeof text,
                "--target cpu: the %s form needs %.3g GiB of workspace "
                "for this launch, more than this machine's %.3g GiB of "
                "memory%s",
                chunked ? "chunked" : "serial", need / 1073741824.0,
                have / 1073741824.0, chunked ? " (try --form serial)" : "");
  error = text;
  return false;
}

bool ssd::printScanModule(const ScanProblem &problem,
                          const CompileOptions &options, std::string &ir,
                          std::string &error) {
  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  mlir::MLIRContext context(registry);
  ScanModuleOptions moduleOptions;
  moduleOptions.staticShapes = options.staticShapes;
  moduleOptions.tensorForm = options.tensorForm;
  moduleOptions.constantWeights = options.constantWeights;
  auto module = buildScanModule(context, problem, moduleOptions);
  if (!module) {
    error = "internal error: the generated module does not verify";
    return false;
  }
  llvm::raw_string_ostream out(ir);
  module->print(out);
  out << "\n";
  return true;
}

std::unique_ptr<ScanKernel> ScanKernel::compile(const ScanProblem &signature,
                                                const CompileOptions &options,
                                                std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A compile error is one line for ssd-run: the message, not the op dump.
  context.printOpOnDiagnostic(false);

  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);
  if (options.constantWeights && !options.tensorForm) {
    error = "constant weights need the tensor form";
    return nullptr;
  }
  ScanModuleOptions moduleOptions;
  moduleOptions.staticShapes = options.staticShapes;
  moduleOptions.tensorForm = options.tensorForm;
  moduleOptions.constantWeights = options.constantWeights;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      buildScanModule(context, signature, moduleOptions);
  if (!module) {
    error = "internal error: the generated module does not verify: " +
            llvm::StringRef(diagnostics).trim().str();
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
  // The host code's machine: the CPU target's scan, or the GPU targets'
  // launches (always the host).
  std::unique_ptr<llvm::TargetMachine> machine = createJITTargetMachine(
      options.target == Target::CPU ? options.cpu : "", error);
  if (!machine)
    return nullptr;
  mlir::PassManager pm(&context);
  CompileOptions pipeline = options;
  pipeline.openmp = openmp;
  // CUDA: the driver JIT-compiles the PTX, no ptxas needed.
  pipeline.format = mlir::ssd::BinaryFormat::Isa;
  buildPipeline(pm, pipeline, f32VectorWidth(*machine));
  if (mlir::failed(pm.run(*module))) {
    error = "compilation failed: " + llvm::StringRef(diagnostics).trim().str();
    return nullptr;
  }

  std::unique_ptr<ScanKernel> kernel(new ScanKernel());
  kernel->impl->transformer = mlir::makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, /*targetMachine=*/machine.get());
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = kernel->impl->transformer;
  llvm::SmallVector<llvm::StringRef, 2> libraries;
  if (openmp)
    libraries.push_back(SSD_OPENMP_LIBRARY);
  // Host code copies memrefs of non-identity layout (a tensor-form op's
  // result out of its runtime branch) with memrefCopy from the runner
  // utilities. The GPU pipelines turn such copies into device copies; should
  // one remain, it runs and touches device memory (the GPU emulator reports
  // that) instead of failing to link.
  libraries.push_back(SSD_C_RUNNER_UTILS_LIBRARY);
  engineOptions.sharedLibPaths = libraries;
  auto engine =
      mlir::ExecutionEngine::create(*module, engineOptions, std::move(machine));
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  kernel->impl->engine = std::move(*engine);
  kernel->impl->target = options.target;
  kernel->impl->device = device;
  std::vector<OperandLayout> layouts = operandLayouts(signature);
  for (size_t i = 0; i < layouts.size(); ++i) {
    bool returned = options.tensorForm && layouts[i].name == "outs";
    bool constant = options.constantWeights &&
                    (layouts[i].name == "A" || layouts[i].name == "D" ||
                     layouts[i].name == "dt_bias");
    if (!returned && !constant)
      kernel->impl->arguments.push_back(i);
  }
  kernel->impl->returnsY = options.tensorForm;
  if (device) {
    // The host code calls the mgpu* runtime; bind it explicitly rather than
    // relying on the process exporting its symbols.
    kernel->impl->engine->registerSymbols(
        [device](llvm::orc::MangleAndInterner interner) {
          llvm::orc::SymbolMap symbols;
          for (auto [name, address] : device->runtimeSymbols())
            symbols[interner(name)] = {
                llvm::orc::ExecutorAddr::fromPtr(address),
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
  // Generates the code now (after the runtime's symbols are bound), so that
  // no call pays for it.
  auto packed =
      kernel->impl->engine->lookupPacked("_mlir_ciface_chunk_scan_varlen");
  if (!packed) {
    error = "JIT compilation failed: " + llvm::toString(packed.takeError());
    return nullptr;
  }
  kernel->impl->packed = *packed;
  return kernel;
}

bool ScanKernel::run(HostOperands &operands, double &seconds,
                     std::string &error) {
  // The C interface of a function returning y takes a pointer to the result
  // descriptor first: allocated and aligned pointer, offset, 3 sizes and 3
  // strides.
  std::vector<int64_t> result(9, 0);
  auto invoke = [&](std::vector<void *> &descriptors, std::string &error) {
    std::vector<void *> pointers;
    if (impl->returnsY)
      pointers.push_back(result.data());
    for (size_t i : impl->arguments)
      pointers.push_back(descriptors[i]);
    std::vector<void *> args;
    for (void *&p : pointers)
      args.push_back(&p);
    impl->packed(args.data());
    return true;
  };
  // Where the returned y is, and how to give it back.
  const size_t yBytes = operands.bytes(operands.yIndex()).size();
  auto returnedY = [&](std::string &error) -> char * {
    auto *aligned = reinterpret_cast<char *>(result[1]);
    const int64_t *sizes = &result[3], *strides = &result[6];
    const int64_t elements = sizes[0] * sizes[1] * sizes[2];
    if (yBytes == 0)
      return aligned;
    bool contiguous = strides[2] == 1 && strides[1] == sizes[2] &&
                      strides[0] == sizes[1] * sizes[2];
    if (!result[0] || !contiguous || elements <= 0 ||
        yBytes % size_t(elements) != 0) {
      error = "internal error: the compiled function returned no contiguous y";
      return nullptr;
    }
    return aligned + result[2] * int64_t(yBytes / size_t(elements));
  };

  if (impl->device) {
    const DeviceRuntime &runtime = *impl->device;
    auto call = [&](std::vector<void *> &descriptors, std::string &error) {
      if (!invoke(descriptors, error))
        return false;
      if (!impl->returnsY)
        return true;
      // y came back in a device buffer of its own: move it where the
      // caller copies y from, and free it (the caller owns it).
      char *y = returnedY(error);
      if (!y)
        return false;
      // descriptors[i] is the StridedMemRefType of operand i: [1] is its
      // aligned pointer.
      auto *yDescriptor =
          static_cast<int64_t *>(descriptors[operands.yIndex()]);
      void *yOperand = reinterpret_cast<void *>(yDescriptor[1]);
      bool ok = runtime.synchronize(error) &&
                runtime.copyDeviceToDevice(yOperand, y, yBytes, error);
      runtime.release(reinterpret_cast<void *>(result[0]));
      return ok;
    };
    return ssd::runOnDevice(runtime, operands, call, seconds, error);
  }

  std::vector<void *> host;
  for (size_t i = 0; i < operands.size(); ++i)
    host.push_back(operands.bytes(i).data());
  std::vector<std::vector<int64_t>> descriptors = operands.descriptors(host);
  std::vector<void *> pointers;
  for (std::vector<int64_t> &d : descriptors)
    pointers.push_back(d.data());
  auto start = std::chrono::steady_clock::now();
  bool ok = invoke(pointers, error);
  seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (ok && impl->returnsY) {
    char *y = returnedY(error);
    if (!y)
      return false;
    std::memcpy(operands.bytes(operands.yIndex()).data(), y, yBytes);
    std::free(reinterpret_cast<void *>(result[0]));
  }
  return ok;
}

bool ScanKernel::runOnBuffers(const ScanProblem &problem,
                              const std::vector<void *> &data,
                              std::string &error) {
  if (impl->returnsY) {
    error = "internal error: runOnBuffers needs a kernel of the memref form";
    return false;
  }
  std::vector<OperandLayout> layouts = operandLayouts(problem);
  if (impl->device) {
    // The device targets' path is the one run() takes, on host copies.
    HostOperands operands(problem);
    for (size_t i = 0; i < layouts.size(); ++i) {
      size_t count = 1;
      for (int64_t extent : layouts[i].shape)
        count *= size_t(extent);
      std::vector<uint8_t> &bytes = operands.bytes(i);
      bytes.resize(count * elementBytes(layouts[i].elementType));
      if (!bytes.empty())
        std::memcpy(bytes.data(), data[i], bytes.size());
    }
    double seconds;
    if (!run(operands, seconds, error))
      return false;
    for (size_t i : operands.writtenIndices()) {
      std::vector<uint8_t> &bytes = operands.bytes(i);
      if (!bytes.empty())
        std::memcpy(data[i], bytes.data(), bytes.size());
    }
    return true;
  }
  std::vector<std::vector<int64_t>> shapes;
  shapes.reserve(layouts.size());
  for (OperandLayout &layout : layouts)
    shapes.push_back(std::move(layout.shape));
  std::vector<std::vector<int64_t>> descriptors =
      stridedDescriptors(shapes, data);
  std::vector<void *> pointers;
  for (size_t i : impl->arguments)
    pointers.push_back(descriptors[i].data());
  std::vector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  impl->packed(args.data());
  return true;
}
