//===- AotCompiler.cpp - ahead-of-time compilation of scan ops ------------===//

#include "ssd/AOT/AotCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "ssd/Execution/ScanKernel.h"
#include "ssd/Execution/ScanModule.h"
#include "ssd/GPURuntime/DeviceRuntime.h"
#include "ssd/Runner/HostOperands.h"
#include "ssd/Runner/Problem.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <cstdio>
#include <dlfcn.h>
#include <set>
#include <string>
#include <vector>

using namespace ssd;
using namespace ssd::aot;

namespace {

/// FNV-1a: a stable short name for a variant.
std::string hashName(const std::string &key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key)
    h = (h ^ c) * 1099511628211ull;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "ssd_aot_%016llx",
                static_cast<unsigned long long>(h));
  return buffer;
}

std::string chipName(mlir::ssd::GPUChip chip) {
  return mlir::ssd::enumName(mlir::ssd::kGPUChipNames, chip);
}

/// How the kernels are embedded, as the registry records it: the GPU
/// emulator's shared objects run only on their chip, like a cubin ("bin").
std::string formatName(const CompileRequest &o) {
  return o.target == "gpu-emu"
             ? "bin"
             : mlir::ssd::enumName(mlir::ssd::kBinaryFormatNames, o.format);
}

/// Adds a constructor that registers `function` under `key`, compiled for
/// `target` and `chip`, with the ahead-of-time runner
/// (ssd_aot_register_chip_variant in AotRegistry.cpp).
void addRegistration(llvm::Module &m, const std::string &function,
                     const std::string &key, int operands,
                     const CompileRequest &o, mlir::ssd::GPUChip chip) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  llvm::FunctionCallee reg = m.getOrInsertFunction(
      "ssd_aot_register_chip_variant",
      llvm::FunctionType::get(
          llvm::Type::getVoidTy(ctx),
          {ptr, ptr, llvm::Type::getInt32Ty(ctx), ptr, ptr, ptr}, false));
  llvm::Function *ctor = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::InternalLinkage, function + "_register", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", ctor));
  b.CreateCall(reg, {b.CreateGlobalString(key), m.getFunction(function),
                     b.getInt32(operands), b.CreateGlobalString(o.target),
                     b.CreateGlobalString(chipName(chip)),
                     b.CreateGlobalString(formatName(o))});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(m, ctor, /*Priority=*/65535);
}

/// Compiles `module` with `form` through --ssd-to-nvvm (--target cuda) or
/// --ssd-to-gpu-emulator (--target gpu-emu) and translates it to LLVM IR in
/// `llvmContext`; null with `error` set otherwise.
std::unique_ptr<llvm::Module>
compileForDevice(mlir::ModuleOp module, const CompileRequest &o,
                 mlir::ssd::GPUChip chip, const std::string &form,
                 const std::string &name, llvm::LLVMContext &llvmContext,
                 std::string &diagnostics, std::string &error) {
  CompileOptions compile;
  compile.target = o.target == "gpu-emu" ? Target::GPUEmulator : Target::CUDA;
  compile.chip = chip;
  compile.format = o.format;
  compile.form = *mlir::ssd::parseEnumName(mlir::ssd::kFormChoiceNames, form);
  compile.chunkSize = o.chunkSize;
  compile.headsPerBlock = o.headsPerBlock;
  compile.pipelineStages = o.pipelineStages;
  compile.cbInBlock = o.cbInBlock;
  compile.invariant = o.invariant;
  mlir::PassManager pm(module.getContext());
  buildPipeline(pm, compile);
  if (mlir::failed(pm.run(module))) {
    error = "compiling " + name + " failed: " + diagnostics;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> result =
      mlir::translateModuleToLLVMIR(module, llvmContext, name);
  if (!result)
    error = "translating " + name + " to LLVM IR failed: " + diagnostics;
  return result;
}

/// Writes `linked` as a host object file for x86-64 in general (the machine
/// that runs it may differ from this one), position independent.
bool emitObject(llvm::Module &linked, const std::string &output,
                std::string &error) {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target) {
    error = "no LLVM target for " + triple + ": " + error;
    return false;
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), "x86-64", "", targetOptions, llvm::Reloc::PIC_));
  linked.setTargetTriple(llvm::Triple(triple));
  linked.setDataLayout(machine->createDataLayout());
  std::error_code ec;
  llvm::raw_fd_ostream out(output, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = output + ": " + ec.message();
    return false;
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return false;
  }
  codegen.run(linked);
  out.flush();
  return true;
}

/// --inputs: one variant per signature and form, linked into `linked`.
bool compileVariants(const CompileRequest &o, mlir::MLIRContext &context,
                     llvm::Module &linked, std::string &diagnostics,
                     std::string &error) {
  std::vector<std::string> done;
  for (const std::string &dir : o.inputs) {
    // The interval applies to the directories with checkpoints only, so
    // that one object can hold variants with and without them.
    int64_t interval =
        ssd::checkpointSlotsPath(dir).empty() ? 0 : o.checkpointInterval;
    ssd::ScanProblem problem;
    if (!ssd::loadProblem(dir, o.dtype, problem, error, o.poolDType, interval))
      return false;
    problem.poolRounding = o.poolRounding;
    for (const std::string &form : o.forms) {
      // Only the serial kernels follow a token's parent.
      if (problem.tokenParentsPresent && (form == "chunked" || o.invariant)) {
        error = dir + ": token_parents (a draft tree) " +
                (o.invariant ? std::string("cannot be compiled invariant")
                             : "cannot take the chunked form") +
                ": only the serial kernels follow a token's parent";
        return false;
      }
      ssd::VariantChoices choices;
      choices.form = form;
      choices.chunkSize = o.chunkSize;
      choices.headsPerBlock = o.headsPerBlock;
      choices.pipelineStages = o.pipelineStages;
      choices.cbInBlock = o.cbInBlock;
      choices.invariant = o.invariant;
      std::string key = ssd::variantKey(problem, choices);
      if (std::find(done.begin(), done.end(), key) != done.end())
        continue; // another input directory had the same signature
      done.push_back(key);
      for (mlir::ssd::GPUChip chip : o.chips) {
        // One function per chip: the name hashes both.
        std::string name = hashName(key + " chip=" + chipName(chip));
        ssd::ScanModuleOptions moduleOptions;
        moduleOptions.functionName = name;
        mlir::OwningOpRef<mlir::ModuleOp> module =
            ssd::buildScanModule(context, problem, moduleOptions);
        if (!module) {
          error = "internal error: generated module does not verify: " +
                  diagnostics;
          return false;
        }
        std::unique_ptr<llvm::Module> variant =
            compileForDevice(*module, o, chip, form, key, linked.getContext(),
                             diagnostics, error);
        if (!variant)
          return false;
        addRegistration(*variant, "_mlir_ciface_" + name, key,
                        static_cast<int>(ssd::operandLayouts(problem).size()),
                        o, chip);
        if (llvm::Linker::linkModules(linked, std::move(variant))) {
          error = "linking the variant " + key + " failed";
          return false;
        }
        std::fprintf(stderr, "ssd-compile: %s -> %s (%s, %s %s)\n", key.c_str(),
                     name.c_str(), o.target.c_str(), chipName(chip).c_str(),
                     formatName(o).c_str());
      }
    }
  }
  return true;
}

/// Appends `suffix` to every symbol `m` defines for the linker (functions
/// and globals other than LLVM's own), so that the same module compiled for
/// several chips links into one object; references follow the rename.
void suffixExternalSymbols(llvm::Module &m, const std::string &suffix) {
  auto rename = [&](llvm::GlobalValue &g) {
    if (!g.isDeclaration() && !g.hasLocalLinkage() &&
        !g.getName().starts_with("llvm."))
      g.setName(g.getName() + suffix);
  };
  for (llvm::Function &f : m)
    rename(f);
  for (llvm::GlobalVariable &g : m.globals())
    rename(g);
}

/// --module: every public function of the file, registered as
/// `module:<name>`, once per chip; the operand count is that of the C
/// interface (results first, then arguments). With one chip the symbols keep
/// the module's names (`_mlir_ciface_<name>`); with several each chip's get
/// `_<chip>` appended.
bool compileModule(const CompileRequest &o, const std::string &form,
                   mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                   llvm::Module &linked, std::string &diagnostics,
                   std::string &error) {
  mlir::OwningOpRef<mlir::ModuleOp> parsed =
      mlir::parseSourceFile<mlir::ModuleOp>(o.module, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!parsed) {
    error = "cannot parse " + o.module + ": " + diagnostics;
    return false;
  }
  for (mlir::ssd::GPUChip chip : o.chips) {
    // A copy per chip: the pipeline rewrites the module in place.
    mlir::OwningOpRef<mlir::ModuleOp> module = parsed->clone();
    std::vector<std::pair<std::string, int>> functions;
    for (auto func : module->getOps<mlir::func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      func->setAttr("llvm.emit_c_interface", mlir::UnitAttr::get(&context));
      mlir::FunctionType type = func.getFunctionType();
      functions.push_back(
          {func.getName().str(),
           static_cast<int>(type.getNumInputs() + type.getNumResults())});
    }
    if (functions.empty()) {
      error = o.module + " holds no public func.func";
      return false;
    }
    std::unique_ptr<llvm::Module> compiled =
        compileForDevice(*module, o, chip, form, o.module, linked.getContext(),
                         diagnostics, error);
    if (!compiled)
      return false;
    std::string suffix = o.chips.size() > 1 ? "_" + chipName(chip) : "";
    if (!suffix.empty())
      suffixExternalSymbols(*compiled, suffix);
    for (auto &[name, operands] : functions) {
      addRegistration(*compiled, "_mlir_ciface_" + name + suffix,
                      "module:" + name, operands, o, chip);
      std::fprintf(stderr, "ssd-compile: %s form=%s -> module:%s (%s, %s %s)\n",
                   o.module.c_str(), form.c_str(), name.c_str(),
                   o.target.c_str(), chipName(chip).c_str(),
                   formatName(o).c_str());
    }
    if (llvm::Linker::linkModules(linked, std::move(compiled))) {
      error = "linking " + o.module + " failed";
      return false;
    }
  }
  return true;
}

/// Removes internal functions nothing calls. gpu-kernel-outlining copies the
/// device functions a kernel calls (e.g. an `llvm.func internal` holding NVVM
/// intrinsics) into the kernel's gpu.module and leaves the original on the
/// host, where it is dead and could not be compiled for the host CPU.
void removeDeadInternalFunctions(llvm::Module &m) {
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::Function &f : llvm::make_early_inc_range(m))
      if (f.hasLocalLinkage() && f.use_empty()) {
        f.eraseFromParent();
        changed = true;
      }
  }
}

/// Prints a note for each external function the object calls that neither
/// the GPU runtimes (SSD_MGPU_FUNCTIONS), the AOT runner nor the C library
/// defines (e.g. memrefCopy or printMemrefF32 from host code lowered from
/// memref ops), naming the library of the LLVM installation that defines it, so
/// that the link line can say what the executable needs.
void noteExternalCalls(llvm::Module &linked, const std::string &output) {
  struct Library {
    std::string path;
    void *handle;
  };
  static std::vector<Library> libraries = [] {
    std::vector<Library> result;
    for (const char *name :
         {"libmlir_c_runner_utils.so", "libmlir_runner_utils.so"}) {
      std::string path = std::string(SSD_LLVM_LIBRARY_DIR) + "/" + name;
      if (void *h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL))
        result.push_back({path, h});
    }
    return result;
  }();
  // What both GPU runtimes define (DeviceRuntime.h's list).
#define SSD_MGPU_NAME(NAME) #NAME,
  static const std::set<std::string> runtimeDefined = {
      SSD_MGPU_FUNCTIONS(SSD_MGPU_NAME)};
#undef SSD_MGPU_NAME
  void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_LOCAL);
  void *libm = dlopen("libm.so.6", RTLD_LAZY | RTLD_LOCAL);
  for (llvm::Function &f : linked) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty())
      continue;
    std::string name = f.getName().str();
    if (runtimeDefined.count(name) || name == "ssd_aot_register_chip_variant" ||
        (libc && dlsym(libc, name.c_str())) ||
        (libm && dlsym(libm, name.c_str())))
      continue;
    const Library *found = nullptr;
    for (const Library &l : libraries)
      if (dlsym(l.handle, name.c_str())) {
        found = &l;
        break;
      }
    if (found) {
      std::string dir = found->path.substr(0, found->path.rfind('/'));
      std::fprintf(stderr,
                   "ssd-compile: note: %s calls %s, defined in %s: add it to "
                   "the link (-Wl,-rpath,%s)\n",
                   output.c_str(), name.c_str(), found->path.c_str(),
                   dir.c_str());
    } else {
      std::fprintf(stderr,
                   "ssd-compile: note: %s calls %s, which no ssd library "
                   "defines: add a library that does to the link\n",
                   output.c_str(), name.c_str());
    }
  }
}

} // namespace

bool ssd::aot::compileObject(const CompileRequest &o, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  // What a --module may hold besides ssd ops: linalg on tensors, bufferized
  // by the pipeline's one-shot-bufferize like the host's own ops.
  registry.insert<mlir::linalg::LinalgDialect>();
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);

  llvm::LLVMContext llvmContext;
  auto linked = std::make_unique<llvm::Module>("ssd-aot", llvmContext);
  if (!o.module.empty()) {
    if (!compileModule(o, o.forms[0], context, sourceMgr, *linked, diagnostics,
                       error))
      return false;
  } else if (!compileVariants(o, context, *linked, diagnostics, error)) {
    return false;
  }
  removeDeadInternalFunctions(*linked);
  noteExternalCalls(*linked, o.output);
  if (!emitObject(*linked, o.output, error))
    return false;
  return true;
}
