//===- Target.cpp - the GPU emulator's gpu.module target ------------------===//
//
// Serialization of #ssd.gpu_emulator_target: translate the gpu.module to
// LLVM IR, optimize it as the NVVM target would (same pipeline, same
// multiply-add contraction: Contraction.cpp), rewrite the kernels for the
// host (KernelToHost.cpp) and compile them for the host CPU, and link a shared
// object with ld.lld, the way the NVVM target compiles PTX and runs ptxas. The
// host code around the launches is untouched: it loads the object with
// mgpuModuleLoad.
//
//===----------------------------------------------------------------------===//

#include "ssd/Target/GPUEmulator/Target.h"

#include "KernelToHost.h"
#include "ObjectCache.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "ssd/GPURuntime/EmulatorABI.h"
#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDDialect.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;

namespace {

/// Host symbols an emulated kernel object may leave for the dynamic linker:
/// what the host backend emits calls to for memory intrinsics and for
/// target-independent math intrinsics without an instruction. Anything else
/// means the kernels call something the emulator does not provide.
const llvm::StringSet<> &allowedHostSymbols() {
  static const llvm::StringSet<> symbols = {
      "memcpy",    "memmove", "memset", "fmaf",       "fma",       "exp2f",
      "exp2",      "expf",    "exp",    "exp10f",     "exp10",     "logf",
      "log",       "log2f",   "log2",   "log10f",     "log10",     "sinf",
      "sin",       "cosf",    "cos",    "tanf",       "tan",       "powf",
      "pow",       "fmodf",   "fmod",   "sqrtf",      "sqrt",      "floorf",
      "floor",     "ceilf",   "ceil",   "truncf",     "trunc",     "roundf",
      "round",     "rintf",   "rint",   "ldexpf",     "ldexp",     "fminf",
      "fmin",      "fmaxf",   "fmax",   "nearbyintf", "nearbyint", "roundevenf",
      "roundeven", "sincosf", "sincos", "tanhf",      "tanh"};
  return symbols;
}

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

class GPUEmulatorSerializer {
public:
  GPUEmulatorSerializer(gpu::GPUModuleOp module,
                        mlir::ssd::GPUEmulatorTargetAttr target,
                        const gpu::TargetOptions &options)
      : module(module), target(target), options(options) {}

  std::optional<SmallVector<char, 0>> run() {
    std::call_once(initializeOnce, [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    std::string triple = llvm::sys::getProcessTriple();
    std::string error;
    const llvm::Target *host =
        llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
    if (!host)
      return fail("no LLVM target for the host (" + triple + "): " + error);
    // Generic CPU: an ahead-of-time compiled object may run on another host.
    int optLevel = std::clamp(target.getO(), 0, 3);
    std::unique_ptr<llvm::TargetMachine> machine(host->createTargetMachine(
        llvm::Triple(triple), "", "", llvm::TargetOptions(), llvm::Reloc::PIC_,
        std::nullopt,
        optLevel == 0 ? llvm::CodeGenOptLevel::None
                      : llvm::CodeGenOptLevel::Default));
    if (!machine)
      return fail("cannot create a target machine for " + triple);

    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, context, module.getName());
    if (!llvmModule)
      return fail("failed to translate the kernels to LLVM IR");
    if (auto callback = options.getInitialLlvmIRCallback())
      callback(*llvmModule);

    // Linked objects may come from the on-disk cache (ObjectCache.h), unless
    // a caller wants to see the IR along the way.
    std::optional<std::string> cacheKey;
    const auto compilationTarget = options.getCompilationTarget();
    if ((compilationTarget == gpu::CompilationTarget::Binary ||
         compilationTarget == gpu::CompilationTarget::Fatbin) &&
        !options.getLinkedLlvmIRCallback() &&
        !options.getOptimizedLlvmIRCallback() && !options.getISACallback()) {
      cacheKey = mlir::ssd::emulator::objectCacheKey(
          *llvmModule, triple + ";O" + std::to_string(optLevel) + ";" +
                           target.getChip().str());
      if (cacheKey)
        if (auto cached = mlir::ssd::emulator::lookupObject(*cacheKey))
          return cached;
    }

    // The kernels first get the optimization their GPU code gets, on the
    // NVPTX target, so that the emulator runs what the PTX would do (a
    // load hoisted out of a spin loop, loads merged or removed, scalar
    // accesses vectorized as NVPTX's code generator does), then the
    // multiply-adds the NVPTX instruction selector fuses become exact fmas.
    // Only then are memory accesses rewritten into runtime calls; the host
    // backend compiles the result without a second IR pipeline (the code is
    // optimized already, and the runtime calls pin every access).
    if (!optimizeForGPU(*llvmModule, optLevel))
      return std::nullopt;
    if (std::optional<std::string> why =
            mlir::ssd::emulator::whyInvariantKernelsFuse(
                mlir::ssd::emulator::contractLikeNVPTX(*llvmModule)))
      return fail(*why);
    if (auto callback = options.getOptimizedLlvmIRCallback())
      callback(*llvmModule);

    llvmModule->setTargetTriple(llvm::Triple(triple));
    llvmModule->setDataLayout(machine->createDataLayout());
    if (!mlir::ssd::emulator::rewriteKernelsForHost(*llvmModule,
                                                    target.getChip(), error))
      return fail(error);
    if (auto callback = options.getLinkedLlvmIRCallback())
      callback(*llvmModule);

    SmallVector<char, 0> result;
    llvm::raw_svector_ostream os(result);
    switch (options.getCompilationTarget()) {
    case gpu::CompilationTarget::Offload:
      llvmModule->print(os, nullptr);
      return result;
    case gpu::CompilationTarget::Assembly:
      if (!emit(*llvmModule, *machine, llvm::CodeGenFileType::AssemblyFile, os))
        return std::nullopt;
      return result;
    case gpu::CompilationTarget::Binary:
    case gpu::CompilationTarget::Fatbin:
      if (!emit(*llvmModule, *machine, llvm::CodeGenFileType::ObjectFile, os))
        return std::nullopt;
      std::optional<SmallVector<char, 0>> linked = link(result);
      if (linked && cacheKey)
        mlir::ssd::emulator::storeObject(*cacheKey, *linked);
      return linked;
    }
    return fail("unknown compilation target");
  }

private:
  gpu::GPUModuleOp module;
  mlir::ssd::GPUEmulatorTargetAttr target;
  const gpu::TargetOptions &options;
  static std::once_flag initializeOnce, initializeNVPTXOnce;

  std::nullopt_t fail(const Twine &message) {
    module.emitError() << "gpu emulator: " << message;
    return std::nullopt;
  }

  /// The optimization gpu-module-to-binary gives the kernels of an NVVM
  /// target with the same opt-level (mlir::ModuleToObject::optimizeModule):
  /// the default pipeline of that level on an NVPTX target machine for the
  /// chip, with the target's default options (fp-contract "on": only
  /// operations marked contract fuse).
  bool optimizeForGPU(llvm::Module &llvmModule, int optLevel) {
    std::call_once(initializeNVPTXOnce, [] {
      LLVMInitializeNVPTXTargetInfo();
      LLVMInitializeNVPTXTarget();
      LLVMInitializeNVPTXTargetMC();
    });
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *nvptx =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!nvptx) {
      fail("no NVPTX target in this LLVM: " + error);
      return false;
    }
    std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
        triple, target.getChip(), target.getFeatures(), llvm::TargetOptions(),
        std::nullopt));
    if (!machine) {
      fail("cannot create an NVPTX target machine for " + target.getChip());
      return false;
    }
    machine->setOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
    llvmModule.setTargetTriple(triple);
    llvmModule.setDataLayout(machine->createDataLayout());
    if (llvm::Error failure = makeOptimizingTransformer(
            optLevel, /*sizeLevel=*/0, machine.get())(&llvmModule)) {
      fail("optimizing the kernels failed: " +
           llvm::toString(std::move(failure)));
      return false;
    }
    return optLevel == 0 || vectorizeAccessesLikeNVPTX(llvmModule, *machine);
  }

  /// NVPTX's code generator runs IR passes of its own before instruction
  /// selection (at any opt-level above 0; `llc -debug-pass=Structure`):
  /// GEP splitting, straight-line strength reduction and CSE, which line
  /// up the addresses, then the load-store vectorizer, which merges
  /// adjacent scalar accesses that the default pipeline leaves (it splits a
  /// vector load whose elements are only extracted, for one) into the
  /// ld.v2/ld.v4 the PTX has. Without them the emulator would count such an
  /// access as two instructions over half-used sectors, and check a weaker
  /// alignment than the merged access needs. Left out: NVPTX's own passes
  /// (kernel parameters, allocas, names), atomic expansion, address-space
  /// inference and loop strength reduction, which change where an access
  /// is addressed from (its address space, its induction variable) but not
  /// its width: the emulator checks generic and global accesses alike, and
  /// keeps a thread's private arrays on the host stack, which it recognizes
  /// by their allocas (an induction variable of LSR's would hide them).
  static constexpr const char *kNVPTXCodegenIRPasses =
      "function(sroa,separate-const-offset-from-gep,"
      "speculative-execution<only-if-divergent-target>,slsr,early-cse,"
      "nary-reassociate,early-cse,load-store-vectorizer,sroa)";
  bool vectorizeAccessesLikeNVPTX(llvm::Module &llvmModule,
                                  llvm::TargetMachine &machine) {
    llvm::PassBuilder builder(&machine);
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager cgscc;
    llvm::ModuleAnalysisManager modules;
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    llvm::ModulePassManager passes;
    if (llvm::Error failure =
            builder.parsePassPipeline(passes, kNVPTXCodegenIRPasses)) {
      fail("cannot build NVPTX's code generation IR passes: " +
           llvm::toString(std::move(failure)));
      return false;
    }
    passes.run(llvmModule, modules);
    return true;
  }

  bool emit(llvm::Module &llvmModule, llvm::TargetMachine &machine,
            llvm::CodeGenFileType type, llvm::raw_pwrite_stream &os) {
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, os, nullptr, type)) {
      fail("the host target cannot emit this file type");
      return false;
    }
    codegen.run(llvmModule);
    return true;
  }

  static std::string findLinker() {
    if (const char *path = std::getenv("SSD_GPU_EMULATOR_LINKER"))
      return path;
    if (llvm::sys::fs::can_execute(SSD_EMULATOR_LINKER))
      return SSD_EMULATOR_LINKER;
    if (llvm::ErrorOr<std::string> found =
            llvm::sys::findProgramByName("ld.lld"))
      return *found;
    return "";
  }

  static std::string findBuiltins() {
    if (const char *path = std::getenv("SSD_GPU_EMULATOR_BUILTINS"))
      return path;
    return llvm::sys::fs::exists(SSD_EMULATOR_BUILTINS) ? SSD_EMULATOR_BUILTINS
                                                        : "";
  }

  /// The relocatable object linked into a shared object, whose only
  /// undefined symbols are libc/libm functions.
  std::optional<SmallVector<char, 0>> link(const SmallVector<char, 0> &object) {
    std::string linker = findLinker();
    if (linker.empty())
      return fail("ld.lld not found (install lld-22, or set "
                  "SSD_GPU_EMULATOR_LINKER)");
    TempFile input, output, log;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("ssd-gpu-emulator", "o", fd,
                                           input.path) ||
        llvm::sys::fs::createTemporaryFile("ssd-gpu-emulator", "so",
                                           output.path) ||
        llvm::sys::fs::createTemporaryFile("ssd-gpu-emulator", "log", log.path))
      return fail("cannot create temporary files");
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os.write(object.data(), object.size());
    }
    SmallVector<StringRef> args = {linker,        "-shared",        "-o",
                                   output.path,   input.path,       "-z",
                                   "noexecstack", "--build-id=none"};
    // Conversions to bf16/f16 and other soft-float helpers the host backend
    // may call come from compiler-rt's builtins, linked in statically.
    std::string builtins = findBuiltins();
    if (!builtins.empty())
      args.push_back(builtins);
    std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                            log.path.str()};
    std::string message;
    int status = llvm::sys::ExecuteAndWait(linker, args, std::nullopt,
                                           redirects, 0, 0, &message);
    if (status != 0) {
      auto logText = llvm::MemoryBuffer::getFile(log.path);
      std::string text = logText ? (*logText)->getBuffer().trim().str() : "";
      return fail("linking the kernels with " + linker +
                  " failed: " + (text.empty() ? message : text));
    }
    auto linked = llvm::MemoryBuffer::getFile(output.path);
    if (!linked)
      return fail("cannot read the linked kernels");
    if (!checkUndefinedSymbols(**linked))
      return std::nullopt;
    StringRef bytes = (*linked)->getBuffer();
    return SmallVector<char, 0>(bytes.begin(), bytes.end());
  }

  bool checkUndefinedSymbols(const llvm::MemoryBuffer &linked) {
    auto file =
        llvm::object::ObjectFile::createObjectFile(linked.getMemBufferRef());
    if (!file) {
      llvm::consumeError(file.takeError());
      fail("the linked kernels are not an object file");
      return false;
    }
    auto *elf = dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
    if (!elf) {
      fail("the linked kernels are not an ELF file");
      return false;
    }
    for (const llvm::object::ELFSymbolRef &symbol :
         elf->getDynamicSymbolIterators()) {
      llvm::Expected<uint32_t> flags = symbol.getFlags();
      llvm::Expected<StringRef> name = symbol.getName();
      if (!flags || !name) {
        llvm::consumeError(flags.takeError());
        llvm::consumeError(name.takeError());
        continue;
      }
      if ((*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty() &&
          !allowedHostSymbols().contains(*name)) {
        fail("the compiled kernels need host symbol '" + *name +
             "', which the emulator does not provide");
        return false;
      }
    }
    return true;
  }
};

std::once_flag GPUEmulatorSerializer::initializeOnce;
std::once_flag GPUEmulatorSerializer::initializeNVPTXOnce;

class GPUEmulatorTargetAttrImpl
    : public gpu::TargetAttrInterface::FallbackModel<
          GPUEmulatorTargetAttrImpl> {
public:
  std::optional<SmallVector<char, 0>>
  serializeToObject(Attribute attribute, Operation *module,
                    const gpu::TargetOptions &options) const {
    auto gpuModule = dyn_cast<gpu::GPUModuleOp>(module);
    if (!gpuModule) {
      module->emitError("gpu emulator: expected a gpu.module");
      return std::nullopt;
    }
    return GPUEmulatorSerializer(
               gpuModule, cast<mlir::ssd::GPUEmulatorTargetAttr>(attribute),
               options)
        .run();
  }

  Attribute createObject(Attribute attribute, Operation *module,
                         const SmallVector<char, 0> &object,
                         const gpu::TargetOptions &options) const {
    gpu::CompilationTarget format = options.getCompilationTarget();
    // A fatbin request gets the same shared object as bin: there is one
    // host architecture.
    if (format == gpu::CompilationTarget::Fatbin)
      format = gpu::CompilationTarget::Binary;
    MLIRContext *context = attribute.getContext();
    return gpu::ObjectAttr::get(
        context, attribute, format,
        StringAttr::get(context, StringRef(object.data(), object.size())),
        /*properties=*/nullptr, /*kernels=*/nullptr);
  }
};

} // namespace

void mlir::ssd::registerGPUEmulatorTargetInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, mlir::ssd::SSDDialect *) {
    mlir::ssd::GPUEmulatorTargetAttr::attachInterface<
        GPUEmulatorTargetAttrImpl>(*context);
  });
}
