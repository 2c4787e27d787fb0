//===- ScanKernel.cpp - compile one scan op and run it --------------------===//

#include "ssd/Execution/ScanKernel.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "ssd/GPURuntime/CudaRuntime.h"
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

namespace {

const char *elementTypeName(ModelDType t) {
  switch (t) {
  case ModelDType::F32:
    return "f32";
  case ModelDType::F16:
    return "f16";
  case ModelDType::BF16:
    return "bf16";
  }
  return "f32";
}

/// The operands of the op in operand order, each with its shape and the
/// element type of its memref. Absent optional operands are skipped.
struct OperandLayout {
  std::string name;
  std::vector<int64_t> shape;
  std::string elementType;
};

std::vector<OperandLayout> operandLayouts(const ScanProblem &p) {
  std::string model = elementTypeName(p.dtype);
  std::vector<OperandLayout> operands = {
      {"x", {p.T, p.H, p.P}, model},
      {"dt", {p.T, p.H}, model},
      {"A", {p.H}, model},
      {"B", {p.T, p.G, p.N}, model},
      {"C", {p.T, p.G, p.N}, model}};
  if (p.hasD)
    operands.push_back({"D", {p.H}, model});
  if (p.hasDtBias)
    operands.push_back({"dt_bias", {p.H}, model});
  operands.push_back({"ssm_pool", {p.S, p.H, p.P, p.N}, "f32"});
  operands.push_back({"query_start_loc", {p.batch + 1}, "i32"});
  if (p.hasInitialStatePresent)
    operands.push_back({"has_initial_state", {p.batch}, "i1"});
  std::vector<int64_t> indexShape = {p.batch};
  if (p.cacheIndicesRow)
    indexShape.insert(indexShape.begin(), 1);
  operands.push_back(
      {"cache_indices", indexShape, p.cacheIndicesUnsigned ? "ui32" : "i32"});
  if (p.updateStatePresent)
    operands.push_back({"update_state", {p.batch}, "i1"});
  operands.push_back({"outs", {p.T, p.H, p.P}, model});
  return operands;
}

} // namespace

std::string ssd::buildScanModuleText(const ScanProblem &p, bool staticShapes) {
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
  module << "func.func @chunk_scan_varlen(\n    " << args.str()
         << ") attributes {llvm.emit_c_interface} {\n"
         << "  ssd.chunk_scan_varlen " << op.str() << "\n  return\n}\n";
  return module.str();
}

//===----------------------------------------------------------------------===//
// HostOperands
//===----------------------------------------------------------------------===//

namespace {

void appendModelArray(std::vector<uint8_t> &bytes, const std::vector<float> &v,
                      ModelDType t) {
  if (t == ModelDType::F32) {
    bytes.resize(v.size() * 4);
    if (!v.empty())
      std::memcpy(bytes.data(), v.data(), bytes.size());
    return;
  }
  bytes.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t bits = t == ModelDType::F16 ? floatToHalfBits(v[i])
                                         : floatToBF16Bits(v[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
}

template <typename T>
std::vector<uint8_t> rawBytes(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

} // namespace

HostOperands::HostOperands(const ScanProblem &p) : problem(p) {
  for (const OperandLayout &o : operandLayouts(p)) {
    Buffer buffer;
    buffer.shape = o.shape;
    if (o.name == "x")
      appendModelArray(buffer.bytes, p.x, p.dtype);
    else if (o.name == "dt")
      appendModelArray(buffer.bytes, p.dt, p.dtype);
    else if (o.name == "A")
      appendModelArray(buffer.bytes, p.A, p.dtype);
    else if (o.name == "B")
      appendModelArray(buffer.bytes, p.B, p.dtype);
    else if (o.name == "C")
      appendModelArray(buffer.bytes, p.C, p.dtype);
    else if (o.name == "D")
      appendModelArray(buffer.bytes, p.D, p.dtype);
    else if (o.name == "dt_bias")
      appendModelArray(buffer.bytes, p.dtBias, p.dtype);
    else if (o.name == "ssm_pool") {
      poolIndex = buffers.size();
      buffer.bytes = rawBytes(p.pool);
    } else if (o.name == "query_start_loc")
      buffer.bytes = rawBytes(p.queryStartLoc);
    else if (o.name == "has_initial_state")
      buffer.bytes = rawBytes(p.hasInitialState);
    else if (o.name == "cache_indices")
      buffer.bytes = rawBytes(p.cacheIndices);
    else if (o.name == "update_state")
      buffer.bytes = rawBytes(p.updateState);
    else if (o.name == "outs") {
      yIndex = buffers.size();
      buffer.bytes.assign(static_cast<size_t>(p.T * p.H * p.P) *
                              (p.dtype == ModelDType::F32 ? 4 : 2),
                          0);
    }
    buffers.push_back(std::move(buffer));
  }
}

void HostOperands::readOutputs(std::vector<float> &y,
                               std::vector<float> &pool) const {
  const std::vector<uint8_t> &yBytes = buffers[yIndex].bytes;
  size_t count = static_cast<size_t>(problem.T * problem.H * problem.P);
  y.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (problem.dtype == ModelDType::F32) {
      std::memcpy(&y[i], yBytes.data() + 4 * i, 4);
      continue;
    }
    uint16_t bits;
    std::memcpy(&bits, yBytes.data() + 2 * i, 2);
    y[i] = problem.dtype == ModelDType::F16 ? halfBitsToFloat(bits)
                                            : bf16BitsToFloat(bits);
  }
  const std::vector<uint8_t> &poolBytes = buffers[poolIndex].bytes;
  pool.resize(poolBytes.size() / 4);
  if (!pool.empty())
    std::memcpy(pool.data(), poolBytes.data(), poolBytes.size());
}

//===----------------------------------------------------------------------===//
// ScanKernel
//===----------------------------------------------------------------------===//

struct ScanKernel::Impl {
  Target target = Target::CPU;
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

  const bool cuda = options.target == Target::CUDA;
  // Fail before compiling when there is no GPU to run on.
  if (cuda && !ssd::cuda::initialize(error))
    return nullptr;
  bool openmp =
      !cuda && options.openmp && std::strlen(SSD_OPENMP_LIBRARY) > 0;
  mlir::PassManager pm(&context);
  if (cuda) {
    mlir::ssd::SSDToNVVMPipelineOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.format = "isa"; // the driver JIT-compiles the PTX: no ptxas needed
    nvvm.form = options.form;
    nvvm.chunkSize = options.chunkSize;
    mlir::ssd::buildSSDToNVVMPipeline(pm, nvvm);
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
  if (cuda) {
    // The host code calls the mgpu* runtime; bind it explicitly rather than
    // relying on the process exporting its symbols.
    kernel->impl->engine->registerSymbols(
        [](llvm::orc::MangleAndInterner interner) {
          llvm::orc::SymbolMap symbols;
          for (auto [name, address] : ssd::cuda::runtimeSymbols())
            symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                       llvm::JITSymbolFlags::Exported};
          return symbols;
        });
  }
  // Runs global constructors: for CUDA they load the kernels.
  kernel->impl->engine->initialize();
  if (cuda) {
    std::string loadError = ssd::cuda::takeError();
    if (!loadError.empty()) {
      error = "loading the kernels failed: " + loadError;
      return nullptr;
    }
  }
  return kernel;
}

bool ScanKernel::run(HostOperands &operands, double &seconds,
                        std::string &error) {
  const bool cuda = impl->target == Target::CUDA;
  // Device copies of every operand, freed on every path out.
  std::vector<void *> device;
  struct Release {
    std::vector<void *> &buffers;
    ~Release() {
      for (void *p : buffers)
        ssd::cuda::release(p);
    }
  } release{device};
  if (cuda) {
    for (HostOperands::Buffer &buffer : operands.buffers) {
      void *p = ssd::cuda::allocate(buffer.bytes.size(), error);
      if (!p)
        return false;
      device.push_back(p);
      if (!ssd::cuda::copyToDevice(p, buffer.bytes.data(), buffer.bytes.size(),
                                   error))
        return false;
    }
  }

  // One StridedMemRefType-shaped descriptor per operand: allocated and
  // aligned pointers, offset, sizes, row-major strides.
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < operands.buffers.size(); ++i) {
    HostOperands::Buffer &buffer = operands.buffers[i];
    std::vector<int64_t> d;
    auto pointer = reinterpret_cast<int64_t>(
        cuda ? device[i] : static_cast<void *>(buffer.bytes.data()));
    d.push_back(pointer);
    d.push_back(pointer);
    d.push_back(0);
    d.insert(d.end(), buffer.shape.begin(), buffer.shape.end());
    std::vector<int64_t> strides(buffer.shape.size(), 1);
    for (int i = static_cast<int>(buffer.shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * buffer.shape[i + 1];
    d.insert(d.end(), strides.begin(), strides.end());
    descriptors.push_back(std::move(d));
  }
  std::vector<void *> descriptorPointers;
  for (std::vector<int64_t> &d : descriptors)
    descriptorPointers.push_back(d.data());
  std::vector<void *> args;
  for (void *&p : descriptorPointers)
    args.push_back(&p);

  auto start = std::chrono::steady_clock::now();
  llvm::Error result =
      impl->engine->invokePacked("_mlir_ciface_chunk_scan_varlen", args);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
  if (result) {
    error = "call failed: " + llvm::toString(std::move(result));
    return false;
  }
  if (cuda) {
    if (!ssd::cuda::synchronize(error)) {
      error = "the kernels failed: " + error;
      return false;
    }
    for (size_t i : {operands.yIndex, operands.poolIndex}) {
      HostOperands::Buffer &buffer = operands.buffers[i];
      if (!ssd::cuda::copyToHost(buffer.bytes.data(), device[i],
                                 buffer.bytes.size(), error))
        return false;
    }
  }
  return true;
}
