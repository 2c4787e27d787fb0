//===- JITTarget.cpp - the CPU a JIT compiles for -------------------------===//

#include "ssd/Execution/JITTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

std::unique_ptr<llvm::TargetMachine>
ssd::createJITTargetMachine(llvm::StringRef cpu, std::string &error) {
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = "cannot describe the host to the JIT: " +
            llvm::toString(builder.takeError());
    return nullptr;
  }
  auto create = [&]() -> std::unique_ptr<llvm::TargetMachine> {
    llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
        builder->createTargetMachine();
    if (!machine) {
      error = "cannot create the JIT's target machine: " +
              llvm::toString(machine.takeError());
      return nullptr;
    }
    return std::move(*machine);
  };
  std::unique_ptr<llvm::TargetMachine> host = create();
  if (!host || cpu.empty())
    return host;

  // Checked on the host's subtarget first: LLVM prints a warning of its own
  // when it is handed an unknown CPU.
  const llvm::Triple &triple = builder->getTargetTriple();
  if (!host->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    error = "CPU '" + cpu.str() + "' is not one LLVM knows for " +
            triple.str() + " (e.g. " +
            (triple.isX86() ? "x86-64, x86-64-v2, x86-64-v3, x86-64-v4"
                            : "generic, neoverse-n1") +
            ")";
    return nullptr;
  }
  // The named CPU's own features only, none of the host's.
  builder->setCPU(cpu.str());
  builder->getFeatures() = llvm::SubtargetFeatures();
  std::unique_ptr<llvm::TargetMachine> machine = create();
  if (!machine)
    return nullptr;

  // getHostCPUFeatures names every ISA feature it can detect, each true or
  // false; a feature of the named CPU that the host reports false would be
  // an illegal instruction at run time.
  const llvm::MCSubtargetInfo *subtarget = machine->getMCSubtargetInfo();
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  std::string missing;
  for (const llvm::SubtargetFeatureKV &feature :
       subtarget->getAllProcessorFeatures()) {
    if (!subtarget->getFeatureBits().test(feature.Value))
      continue;
    auto it = hostFeatures.find(feature.Key);
    if (it != hostFeatures.end() && !it->second)
      missing += (missing.empty() ? "" : ",") + std::string(feature.Key);
  }
  if (!missing.empty()) {
    error = "CPU '" + cpu.str() + "' has features this host lacks (" + missing +
            "): its code cannot run here";
    return nullptr;
  }
  return machine;
}

int64_t ssd::f32VectorWidth(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  auto has = [&](const char *feature) {
    for (const llvm::SubtargetFeatureKV &kv :
         subtarget->getAllProcessorFeatures())
      if (llvm::StringRef(kv.Key) == feature)
        return subtarget->getFeatureBits().test(kv.Value);
    return false;
  };
  if (has("avx512f"))
    return 16;
  if (has("avx"))
    return 8;
  if (has("sse2") || has("neon"))
    return 4;
  return 1;
}
