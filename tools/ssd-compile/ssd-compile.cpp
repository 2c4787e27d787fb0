//===- ssd-compile.cpp - ahead-of-time compilation of scan ops for CUDA ---===//
//
//   ssd-compile --inputs DIR [--inputs DIR ...] [--dtype f32|f16|bf16]
//               [--forms auto,serial,chunked] [--chunk-size N]
//               [--chip sm_90a] [--format isa|bin] -o FILE.o
//
// Compiles the op for the signature of each input directory (dtype, H, P, G,
// N, optional operands, cache-index layout; T, batch and the slot count stay
// dynamic) in each requested form, through --ssd-to-nvvm, into one host
// object file: kernels embedded as PTX (isa, JIT-compiled by the driver) or
// cubin (bin, needs ptxas), host code calling the mgpu* runtime, and a
// constructor per variant that registers it with the ahead-of-time runner.
// Linked with libSSDAotRunner.a, libSSDCudaRuntime.a and libSSDRunner.a (see
// docs/gpu.md) it makes an executable that needs only the NVIDIA driver.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "ssd/Execution/ScanKernel.h"
#include "ssd/Pipelines/Pipelines.h"
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

#include <cstdio>
#include <string>
#include <vector>

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "ssd-compile: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::vector<std::string> inputs;
  std::string dtype = "f32", forms = "auto", chip = "sm_90a", format = "isa",
              output;
  int64_t chunkSize = 256;
};

bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string &into) {
      if (i + 1 >= argc) {
        error = "flag '" + arg + "' needs a value";
        return false;
      }
      into = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--inputs") {
      if (!value(v))
        return false;
      o.inputs.push_back(v);
    } else if (arg == "--dtype") {
      if (!value(o.dtype))
        return false;
    } else if (arg == "--forms") {
      if (!value(o.forms))
        return false;
    } else if (arg == "--chip") {
      if (!value(o.chip))
        return false;
    } else if (arg == "--format") {
      if (!value(o.format))
        return false;
    } else if (arg == "-o") {
      if (!value(o.output))
        return false;
    } else if (arg == "--chunk-size") {
      if (!value(v))
        return false;
      char *end = nullptr;
      o.chunkSize = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || o.chunkSize < 1 || o.chunkSize > 4096) {
        error = "--chunk-size must be an integer in [1, 4096], got '" + v + "'";
        return false;
      }
    } else {
      error = "unknown flag '" + arg + "'";
      return false;
    }
  }
  if (o.inputs.empty()) {
    error = "at least one --inputs DIR is required";
    return false;
  }
  if (o.output.empty()) {
    error = "-o FILE.o is required";
    return false;
  }
  if (o.format != "isa" && o.format != "bin") {
    error = "unknown --format '" + o.format + "' (expected isa or bin)";
    return false;
  }
  return true;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos)
      end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

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

/// Adds a constructor that registers `function` under `key` with the
/// ahead-of-time runner (ssd_aot_register in libSSDAotRunner.a).
void addRegistration(llvm::Module &m, const std::string &function,
                     const std::string &key, int operands) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  llvm::FunctionCallee reg = m.getOrInsertFunction(
      "ssd_aot_register",
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                              {ptr, ptr, llvm::Type::getInt32Ty(ctx)}, false));
  llvm::Function *ctor = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::InternalLinkage, function + "_register", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", ctor));
  b.CreateCall(reg, {b.CreateGlobalString(key), m.getFunction(function),
                     b.getInt32(operands)});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(m, ctor, /*Priority=*/65535);
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error))
    return fail(error);
  ssd::ModelDType dtype;
  if (!ssd::parseModelDType(o.dtype, dtype))
    return fail("unknown --dtype '" + o.dtype + "' (expected f32, f16 or bf16)");
  std::vector<std::string> forms = split(o.forms);
  for (const std::string &f : forms)
    if (f != "auto" && f != "serial" && f != "chunked")
      return fail("unknown form '" + f + "' in --forms (expected auto, serial, chunked)");

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::DialectRegistry registry;
  mlir::ssd::registerSSDPipelineDependencies(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnosticStream);

  llvm::LLVMContext llvmContext;
  auto linked = std::make_unique<llvm::Module>("ssd-aot", llvmContext);
  std::vector<std::string> done;
  for (const std::string &dir : o.inputs) {
    ssd::ScanProblem problem;
    if (!ssd::loadProblem(dir, dtype, problem, error))
      return fail(error);
    for (const std::string &form : forms) {
      std::string key = ssd::signatureKey(problem) + " form=" + form +
                        " chunk=" + std::to_string(o.chunkSize);
      if (std::find(done.begin(), done.end(), key) != done.end())
        continue; // another input directory had the same signature
      done.push_back(key);
      std::string name = hashName(key);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::parseSourceString<mlir::ModuleOp>(
              ssd::buildScanModuleText(problem, false, name), &context);
      if (!module)
        return fail("internal error: generated module does not parse: " +
                    diagnostics);
      mlir::ssd::SSDToNVVMPipelineOptions nvvm;
      nvvm.chip = o.chip;
      nvvm.format = o.format;
      nvvm.form = form;
      nvvm.chunkSize = o.chunkSize;
      mlir::PassManager pm(&context);
      mlir::ssd::buildSSDToNVVMPipeline(pm, nvvm);
      if (mlir::failed(pm.run(*module)))
        return fail("compiling " + key + " failed: " + diagnostics);
      std::unique_ptr<llvm::Module> variant =
          mlir::translateModuleToLLVMIR(*module, llvmContext, name);
      if (!variant)
        return fail("translating " + key + " to LLVM IR failed: " + diagnostics);
      addRegistration(*variant, "_mlir_ciface_" + name, key,
                      static_cast<int>(ssd::operandLayouts(problem).size()));
      if (llvm::Linker::linkModules(*linked, std::move(variant)))
        return fail("linking the variant " + key + " failed");
      std::fprintf(stderr, "ssd-compile: %s -> %s\n", key.c_str(), name.c_str());
    }
  }

  // Host object for x86-64 in general (the machine that runs it may differ
  // from this one), position independent.
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target)
    return fail("no LLVM target for " + triple + ": " + error);
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), "x86-64", "", targetOptions, llvm::Reloc::PIC_));
  linked->setTargetTriple(llvm::Triple(triple));
  linked->setDataLayout(machine->createDataLayout());
  std::error_code ec;
  llvm::raw_fd_ostream out(o.output, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail(o.output + ": " + ec.message());
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return fail("the host target cannot emit object files");
  codegen.run(*linked);
  out.flush();
  return 0;
}
