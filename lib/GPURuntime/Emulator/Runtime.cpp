//===- Runtime.cpp - mgpu* on the GPU emulator ----------------------------===//
//
// The functions MLIR's gpu-to-llvm host code calls, with the emulator
// underneath: kernel objects opened with dlopen from memory, launches run by
// the executor, device memory from DeviceMemory. Streams and events exist
// only as handles: every operation completes when it is issued, which is
// one of the orders a stream allows.
//
//===----------------------------------------------------------------------===//

#include "ssd/GPURuntime/EmulatorReports.h"

#include "ssd/GPURuntime/DeviceRuntime.h"

#include "CostStore.h"
#include "Emulator.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

using namespace ssd::emulator;

namespace {

//===----------------------------------------------------------------------===//
// Settings and errors
//===----------------------------------------------------------------------===//

/// A decimal seed: digits only, within 64 bits.
bool parseSeed(const std::string &text, uint64_t &seed) {
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  errno = 0;
  seed = std::strtoull(text.c_str(), nullptr, 10);
  return errno == 0;
}

uint64_t parseBytes(const char *text, uint64_t fallback) {
  if (!text || !*text)
    return fallback;
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || value <= 0)
    return fallback;
  switch (*end) {
  case 'k':
  case 'K':
    value *= 1024.0;
    break;
  case 'm':
  case 'M':
    value *= 1024.0 * 1024;
    break;
  case 'g':
  case 'G':
    value *= 1024.0 * 1024 * 1024;
    break;
  default:
    break;
  }
  return uint64_t(value);
}

struct ErrorState {
  std::mutex mutex;
  std::string first;
  bool pending = false;
  bool print = true;
  bool exitHandlerInstalled = false;
};

ErrorState &errors() {
  static ErrorState state;
  return state;
}

/// A program that never collected an emulator error (one run by
/// mlir-runner, say) must not exit with success.
void exitIfErrorPending() {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.pending) {
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(1);
  }
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

/// The signals a fault in host or kernel code raises, and the handlers that
/// were installed before ours (LLVM's stack-trace printer, say), which get
/// the faults that are not ours.
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE};
constexpr size_t kFaultSignalCount = std::size(kFaultSignals);
struct sigaction previousActions[kFaultSignalCount];

void writeMessage(const char *text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

const char *faultName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV (invalid memory access)";
  case SIGBUS:
    return "SIGBUS (bus error)";
  case SIGILL:
    return "SIGILL (illegal instruction, e.g. a trap)";
  case SIGTRAP:
    return "SIGTRAP (a trap)";
  case SIGFPE:
    return "SIGFPE (arithmetic fault, e.g. integer division by zero)";
  default:
    return "a signal";
  }
}

void onFault(int signal, siginfo_t *info, void *context);

void restoreDefaultAction(int signal) {
  struct sigaction action{};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
}

/// Installs onFault for every fault signal where it is not the handler
/// already (something installed after us, such as LLVM's stack-trace
/// printer, comes first otherwise), keeping what was there to chain to.
void installFaultHandler() {
  for (size_t i = 0; i < kFaultSignalCount; ++i) {
    struct sigaction current{};
    sigaction(kFaultSignals[i], nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onFault)
      continue;
    struct sigaction action{};
    action.sa_sigaction = onFault;
    // On the alternate signal stack of the thread (the executor's threads
    // have one): a fault that overflowed a fiber's stack is caught too.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(kFaultSignals[i], &action, &previousActions[i]);
  }
}

void onFault(int signal, siginfo_t *info, void *context) {
  uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  DeviceMemory &memory = DeviceMemory::get();
  char message[512];
  char thread[256];
  const bool inKernel = describeRunningThread(thread, sizeof(thread));
  if ((signal == SIGSEGV || signal == SIGBUS) && memory.inWindow(address)) {
    char where[160];
    memory.describe(address, where, sizeof(where));
    if (inKernel)
      std::snprintf(message, sizeof(message),
                    "ssd-gpu-emulator: error: %s: the kernel's code touched "
                    "device memory at 0x%" PRIxPTR
                    " (%s) without the emulator's checks\n",
                    thread, address, where);
    else
      std::snprintf(message, sizeof(message),
                    "ssd-gpu-emulator: error: host code accessed device "
                    "memory at 0x%" PRIxPTR " (%s); device memory is "
                    "reachable only through mgpuMemcpy and kernels\n",
                    address, where);
    writeMessage(message);
    _exit(1);
  }
  if (signal == SIGSEGV && inFiberStackGuard(address)) {
    std::snprintf(message, sizeof(message),
                  "ssd-gpu-emulator: error: %s: the emulated GPU thread "
                  "overflowed its stack (local arrays or calls too deep)\n",
                  inKernel ? thread : "a kernel");
    writeMessage(message);
    _exit(1);
  }
  if (inKernel) {
    // Kernel code faulted natively (not through the emulator's checks): a
    // GPU would report an error for the launch; the call cannot go on.
    std::snprintf(message, sizeof(message),
                  "ssd-gpu-emulator: error: %s: %s at 0x%" PRIxPTR
                  " in the kernel's code\n",
                  thread, faultName(signal), address);
    writeMessage(message);
    _exit(1);
  }
  // Not ours: let the previous handler (or the default action) have it,
  // once: a previous handler that chains back to this one ends in the
  // default action.
  static volatile sig_atomic_t chaining = 0;
  if (chaining) {
    restoreDefaultAction(signal);
    return;
  }
  chaining = 1;
  size_t i = 0;
  while (i + 1 < kFaultSignalCount && kFaultSignals[i] != signal)
    ++i;
  struct sigaction &previous = previousActions[i];
  if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  // The previous action takes the signal again: raised, since a trap or a
  // raised signal does not come back by itself when this handler returns.
  sigaction(signal, &previous, nullptr);
  raise(signal);
}

//===----------------------------------------------------------------------===//
// Kernel objects
//===----------------------------------------------------------------------===//

struct LoadedModule {
  void *handle = nullptr;
  int fd = -1;
  int computeCapability = 0;
  std::string name; ///< the gpu.module's
  size_t kernelCount = 0;
  std::vector<std::string> sites;
  const uint32_t *issue = nullptr; ///< __ssdemu_issue
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

std::map<std::string, std::string> parseFields(const char *text) {
  std::map<std::string, std::string> fields;
  std::stringstream stream(text ? text : "");
  std::string item;
  while (std::getline(stream, item, ';')) {
    size_t eq = item.find('=');
    if (eq != std::string::npos)
      fields[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return fields;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator))
    if (!item.empty())
      parts.push_back(item);
  return parts;
}

bool ensureInitialized() {
  std::string error;
  if (ssd::emulator::initialize(error))
    return true;
  reportError(error);
  return false;
}

LoadedModule *loadModule(const void *data, size_t size) {
  if (!ensureInitialized())
    return nullptr;
  const char *bytes = static_cast<const char *>(data);
  if (size < 20 || std::memcmp(bytes,
                               "\x7f"
                               "ELF",
                               4) != 0) {
    reportError("mgpuModuleLoad: the GPU binary is not an emulated kernel "
                "object (PTX or a cubin? compile with --ssd-to-gpu-emulator "
                "for the emulator, --ssd-to-nvvm for CUDA)");
    return nullptr;
  }
  uint16_t machine;
  std::memcpy(&machine, bytes + 18, sizeof(machine));
  if (machine == 190 /* EM_CUDA */) {
    reportError("mgpuModuleLoad: the GPU binary is a CUDA cubin; the "
                "emulator runs objects from --ssd-to-gpu-emulator");
    return nullptr;
  }
  auto module = std::make_unique<LoadedModule>();
  module->fd = memfd_create("ssd-gpu-emulator-kernels", MFD_CLOEXEC);
  if (module->fd < 0 ||
      write(module->fd, bytes, size) != static_cast<ssize_t>(size)) {
    reportError("mgpuModuleLoad: cannot stage the kernel object in memory");
    return nullptr;
  }
  std::string path = "/proc/self/fd/" + std::to_string(module->fd);
  module->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module->handle) {
    const char *why = dlerror();
    reportError(std::string("mgpuModuleLoad: cannot load the kernel object: ") +
                (why ? why : "unknown dlopen error"));
    close(module->fd);
    return nullptr;
  }
  auto info = parseFields(
      static_cast<const char *>(dlsym(module->handle, kModuleInfoSymbol)));
  if (info["abi"] != std::to_string(kABIVersion)) {
    reportError("mgpuModuleLoad: the kernel object was made for emulator ABI " +
                (info["abi"].empty() ? std::string("?") : info["abi"]) +
                ", this runtime implements " + std::to_string(kABIVersion));
    return nullptr;
  }
  module->name = info["module"];
  module->kernelCount = split(info["kernels"], ',').size();
  std::string chip = info["chip"];
  if (chip.rfind("sm_", 0) == 0)
    module->computeCapability = std::atoi(chip.c_str() + 3);
  if (auto *sites =
          static_cast<const char *>(dlsym(module->handle, kSitesSymbol)))
    module->sites = split(sites, '\n');
  module->issue =
      static_cast<const uint32_t *>(dlsym(module->handle, kIssueSymbol));
  // Fill the import slots; an import this runtime does not know is a
  // version mismatch.
  const char *names[] = {
#define SSD_EMULATOR_IMPORT_NAME(NAME) #NAME,
      SSD_EMULATOR_IMPORTS(SSD_EMULATOR_IMPORT_NAME)
#undef SSD_EMULATOR_IMPORT_NAME
  };
  for (const char *name : names) {
    void **slot = static_cast<void **>(
        dlsym(module->handle, (std::string(kImportPrefix) + name).c_str()));
    if (!slot)
      continue;
    void *address = importAddress(name);
    if (!address) {
      reportError(std::string("mgpuModuleLoad: runtime function '") + name +
                  "' is missing");
      return nullptr;
    }
    *slot = address;
  }
  return module.release();
}

Kernel *findKernel(LoadedModule &module, const char *name) {
  auto it = module.kernels.find(name);
  if (it != module.kernels.end())
    return it->second.get();
  auto kernel = std::make_unique<Kernel>();
  kernel->name = name;
  kernel->entry = reinterpret_cast<void (*)(void **)>(
      dlsym(module.handle, (std::string(kEntryPrefix) + name).c_str()));
  const char *infoText = static_cast<const char *>(
      dlsym(module.handle, (std::string(kKernelInfoPrefix) + name).c_str()));
  if (!kernel->entry || !infoText) {
    reportError(std::string("mgpuModuleGetFunction: no kernel named '") + name +
                "' in the module");
    return nullptr;
  }
  auto info = parseFields(infoText);
  kernel->params = split(info["params"], ',');
  kernel->staticShared = std::strtoull(info["shared"].c_str(), nullptr, 10);
  kernel->dynamicOffset = std::strtoull(info["dynamic"].c_str(), nullptr, 10);
  std::vector<std::string> extents = split(info["maxntid"], ',');
  for (size_t i = 0; i < 3 && i < extents.size(); ++i)
    kernel->maxThreads[i] =
        unsigned(std::strtoul(extents[i].c_str(), nullptr, 10));
  for (const std::string &buffer : split(info["buffers"], ',')) {
    size_t at = buffer.rfind('@'), plus = buffer.rfind('+');
    if (at == std::string::npos || plus == std::string::npos || plus < at)
      continue;
    kernel->buffers.push_back(
        {buffer.substr(0, at),
         std::strtoull(buffer.substr(at + 1, plus - at - 1).c_str(), nullptr,
                       10),
         std::strtoull(buffer.substr(plus + 1).c_str(), nullptr, 10)});
  }
  kernel->costName = module.name.empty()       ? kernel->name
                     : module.kernelCount == 1 ? module.name
                                               : module.name + "::" + name;
  kernel->computeCapability = module.computeCapability;
  kernel->sites = &module.sites;
  if (module.issue) {
    kernel->issueBlocks = module.issue[0];
    kernel->issueTable = module.issue + 1;
  }
  Kernel *result = kernel.get();
  module.kernels[name] = std::move(kernel);
  return result;
}

/// The checks cuLaunchKernel makes (or a GPU would fail on), with the
/// emulator's messages. False when the launch must not run.
bool checkLaunch(const Kernel &kernel, const LaunchConfig &c, void **params,
                 size_t paramCount) {
  const std::string name = "launch of kernel " + kernel.name + ": ";
  uint64_t threads = uint64_t(c.block[0]) * c.block[1] * c.block[2];
  if (!c.grid[0] || !c.grid[1] || !c.grid[2] || !threads) {
    reportError(name + "empty grid or block");
    return false;
  }
  if (c.grid[1] > 65535 || c.grid[2] > 65535 || c.block[0] > 1024 ||
      c.block[1] > 1024 || c.block[2] > 64 || threads > 1024) {
    reportError(name + "grid (" + std::to_string(c.grid[0]) + "," +
                std::to_string(c.grid[1]) + "," + std::to_string(c.grid[2]) +
                ") x block (" + std::to_string(c.block[0]) + "," +
                std::to_string(c.block[1]) + "," + std::to_string(c.block[2]) +
                ") exceeds the CUDA limits");
    return false;
  }
  for (int i = 0; i < 3; ++i)
    if (kernel.maxThreads[i] && c.block[i] > kernel.maxThreads[i]) {
      reportError(name + "block extent " + std::to_string(c.block[i]) +
                  " in dimension " + std::to_string(i) +
                  " exceeds the kernel's maxntid " +
                  std::to_string(kernel.maxThreads[i]));
      return false;
    }
  uint64_t shared = kernel.dynamicOffset + c.dynamicShared;
  uint64_t limit = maxSharedMemoryPerBlock(kernel.computeCapability);
  if (shared > limit) {
    reportError(name + "needs " + std::to_string(shared) +
                " bytes of shared memory, more than the " +
                std::to_string(limit) + " a block may use on sm_" +
                std::to_string(kernel.computeCapability));
    return false;
  }
  if (paramCount && paramCount != kernel.params.size()) {
    reportError(name + std::to_string(paramCount) +
                " parameters passed, the kernel takes " +
                std::to_string(kernel.params.size()));
    return false;
  }
  DeviceMemory &memory = DeviceMemory::get();
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (kernel.params[i] != "p")
      continue;
    uintptr_t pointer = *static_cast<uintptr_t *>(params[i]);
    if (pointer == 0 || memory.find(pointer))
      continue;
    char text[32];
    std::snprintf(text, sizeof(text), "0x%" PRIxPTR, pointer);
    reportError(name + "argument #" + std::to_string(i) + " is " + text +
                (memory.inWindow(pointer)
                     ? ", a device address outside every live allocation "
                       "(freed memory?)"
                     : ", a host pointer, not device memory"));
    return false;
  }
  return true;
}

/// The host-window address for a copy of `bytes` at `pointer`, which may be
/// host memory (returned as is) or device memory (checked).
char *copyAddress(void *pointer, size_t bytes, const char *what,
                  std::string &error) {
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  DeviceMemory &memory = DeviceMemory::get();
  if (!memory.inWindow(address))
    return static_cast<char *>(pointer);
  std::string why;
  char *host = memory.translate(address, bytes, why);
  if (!host)
    error = std::string(what) + " of " + std::to_string(bytes) +
            " bytes at device address " + std::to_string(address) + " " + why;
  return host;
}

bool copy(void *dst, const void *src, size_t bytes, const char *caller,
          std::string &error) {
  if (!bytes)
    return true;
  char *to = copyAddress(dst, bytes, "destination", error);
  if (!to)
    return false;
  char *from = copyAddress(const_cast<void *>(src), bytes, "source", error);
  if (!from)
    return false;
  (void)caller;
  std::memmove(to, from, bytes);
  return true;
}

/// A distinct non-null handle for streams and events.
void *newHandle() {
  static std::atomic<uintptr_t> next{0x5344};
  return reinterpret_cast<void *>(next.fetch_add(16));
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared with the executor
//===----------------------------------------------------------------------===//

namespace ssd {
namespace emulator {

void reportError(const std::string &message) {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (e.print)
    std::fprintf(stderr, "ssd-gpu-emulator: error: %s\n", message.c_str());
  if (!e.pending) {
    e.first = message;
    e.pending = true;
  }
  if (!e.exitHandlerInstalled) {
    e.exitHandlerInstalled = true;
    std::atexit(exitIfErrorPending);
  }
}

bool hasError() {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.pending;
}

Counters &counters() {
  static Counters c;
  return c;
}

const Settings &settings() {
  static const Settings s = [] {
    Settings s;
    unsigned cores = std::thread::hardware_concurrency();
    s.threads = cores ? cores : 1;
    if (const char *t = std::getenv("SSD_GPU_EMULATOR_THREADS"))
      if (int n = std::atoi(t); n > 0)
        s.threads = unsigned(n);
    s.memory = parseBytes(std::getenv("SSD_GPU_EMULATOR_MEMORY"), s.memory);
    if (const char *r = std::getenv("SSD_GPU_EMULATOR_RACECHECK"))
      s.raceCheck = std::string(r) != "0";
    if (const char *o = std::getenv("SSD_GPU_EMULATOR_BLOCK_ORDER")) {
      const std::string order = o;
      if (order == "reverse")
        s.blockOrder = BlockOrder::Reverse;
      else if (order.rfind("random:", 0) == 0 &&
               parseSeed(order.substr(7), s.blockOrderSeed))
        s.blockOrder = BlockOrder::Random;
      else if (!order.empty() && order != "forward")
        s.badBlockOrder = order;
    }
    if (const char *p = std::getenv("SSD_GPU_EMULATOR_ISSUE_PROFILE"))
      s.issueProfile = p;
    if (const char *p = std::getenv("SSD_GPU_EMULATOR_ACCESS_PROFILE"))
      s.accessProfile = p;
    if (const char *c = std::getenv("SSD_GPU_EMULATOR_COSTS")) {
      std::string level = c;
      if (level == "off" || level == "0")
        s.costs = CostLevel::Off;
      else if (level == "counts" || level == "1")
        s.costs = CostLevel::Counts;
    }
    return s;
  }();
  return s;
}

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

bool initialize(std::string &error) {
  static std::once_flag once;
  static bool ok = false;
  static std::string failure;
  std::call_once(once, [] {
    ok = DeviceMemory::get().initialize(failure);
    if (ok)
      installFaultHandler();
  });
  if (!ok)
    error = failure;
  return ok;
}

std::string describeDevice() {
  return "GPU emulator (" + std::to_string(settings().threads) + " threads, " +
         std::to_string(DeviceMemory::get().capacity() >> 20) +
         " MiB device memory)";
}

void *allocate(size_t bytes, std::string &error) {
  if (!initialize(error))
    return nullptr;
  // Zero-byte arrays still get a distinct valid pointer.
  return DeviceMemory::get().allocate(bytes ? bytes : 4, error);
}

void release(void *device) {
  if (device)
    DeviceMemory::get().release(device);
}

bool copyToDevice(void *device, const void *host, size_t bytes,
                  std::string &error) {
  return copy(device, host, bytes, "copyToDevice", error);
}

bool copyToHost(void *host, const void *device, size_t bytes,
                std::string &error) {
  return copy(host, device, bytes, "copyToHost", error);
}

bool copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                        std::string &error) {
  return copy(dst, src, bytes, "copyDeviceToDevice", error);
}

bool synchronize(std::string &error) {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  if (!e.pending)
    return true;
  error = e.first;
  return false;
}

std::string takeError() {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  std::string first;
  std::swap(first, e.first);
  e.pending = false;
  return first;
}

void setPrintErrors(bool print) {
  ErrorState &e = errors();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.print = print;
}

Statistics statistics() {
  Counters &c = counters();
  Statistics s;
  s.launches = c.launches;
  s.blocks = c.blocks;
  s.threads = c.threads;
  s.barriers = c.barriers;
  s.warpCollectives = c.warpCollectives;
  s.mmas = c.mmas;
  s.globalAccesses = c.globalAccesses;
  s.sharedAccesses = c.sharedAccesses;
  s.deviceAllocations = c.deviceAllocations;
  s.workspaceAllocations = c.workspaceAllocations;
  return s;
}

} // namespace emulator
} // namespace ssd

//===----------------------------------------------------------------------===//
// The functions MLIR's gpu-to-llvm host code calls (MLIR 22 signatures).
//===----------------------------------------------------------------------===//

// The library is built with hidden visibility: these are what it exports.
#pragma GCC visibility push(default)
extern "C" {

void *mgpuModuleLoad(void *data, size_t size) { return loadModule(data, size); }

void *mgpuModuleLoadJIT(void *, int) {
  reportError("mgpuModuleLoadJIT: the GPU binary is PTX (compiled with "
              "--ssd-to-nvvm format=isa); the emulator runs objects from "
              "--ssd-to-gpu-emulator");
  return nullptr;
}

void mgpuModuleUnload(void *module) {
  auto *m = static_cast<LoadedModule *>(module);
  if (!m)
    return;
  dlclose(m->handle);
  close(m->fd);
  delete m;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    return nullptr; // the failed load was reported
  return findKernel(*static_cast<LoadedModule *>(module), name);
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void * /*stream*/,
                      void **params, void ** /*extra*/, size_t paramCount) {
  // After an error the device state is unknown, as after a CUDA fault: no
  // later launch runs on it (an allocation that failed returned null, and a
  // kernel must never see that null).
  if (!function || hasError())
    return;
  const Kernel &kernel = *static_cast<Kernel *>(function);
  auto extent = [](intptr_t v) {
    return v < 0 || v > INT32_MAX ? 0u : unsigned(v);
  };
  LaunchConfig config{{extent(gridX), extent(gridY), extent(gridZ)},
                      {extent(blockX), extent(blockY), extent(blockZ)},
                      uint64_t(smem < 0 ? 0 : smem)};
  if (!checkLaunch(kernel, config, params, paramCount))
    return;
  // Again at every launch: a handler installed since (LLVM's stack-trace
  // printer, say) would otherwise see a fault of the kernel first.
  installFaultHandler();
  runLaunch(kernel, config, params);
}

void *mgpuStreamCreate() { return newHandle(); }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}
void mgpuStreamWaitEvent(void *, void *) {}
void *mgpuEventCreate() { return newHandle(); }
void mgpuEventDestroy(void *) {}
void mgpuEventSynchronize(void *) {}
void mgpuEventRecord(void *, void *) {}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  if (!ensureInitialized() || sizeBytes == 0)
    return nullptr;
  if (isHostShared) {
    reportError("mgpuMemAlloc: host-shared (managed) memory is not supported "
                "by the emulator");
    return nullptr;
  }
  std::string error;
  void *pointer = DeviceMemory::get().allocate(sizeBytes, error);
  if (!pointer)
    reportError("mgpuMemAlloc: " + error);
  counters().deviceAllocations++;
  return pointer;
}

void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (!ptr)
    return;
  if (!DeviceMemory::get().release(ptr)) {
    char text[32];
    std::snprintf(text, sizeof(text), "%p", ptr);
    reportError(std::string("mgpuMemFree: ") + text +
                " is not a live device allocation (double free?)");
  }
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void * /*stream*/) {
  if (hasError())
    return;
  std::string error;
  if (!copy(dst, src, sizeBytes, "mgpuMemcpy", error))
    reportError("mgpuMemcpy: " + error);
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *) {
  if (hasError() || !count)
    return;
  std::string error;
  char *to = copyAddress(dst, count * 4, "destination", error);
  if (!to || !DeviceMemory::get().inWindow(reinterpret_cast<uintptr_t>(dst))) {
    reportError("mgpuMemset32: " +
                (error.empty() ? std::string("not device memory") : error));
    return;
  }
  for (size_t i = 0; i < count; ++i)
    std::memcpy(to + 4 * i, &value, 4);
  if (settings().costs != CostLevel::Off)
    recordMemsetCosts(uint64_t(count) * 4);
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  if (hasError() || !count)
    return;
  std::string error;
  char *to = copyAddress(dst, count * 2, "destination", error);
  if (!to || !DeviceMemory::get().inWindow(reinterpret_cast<uintptr_t>(dst))) {
    reportError("mgpuMemset16: " +
                (error.empty() ? std::string("not device memory") : error));
    return;
  }
  for (size_t i = 0; i < count; ++i)
    std::memcpy(to + 2 * i, &value, 2);
  if (settings().costs != CostLevel::Off)
    recordMemsetCosts(uint64_t(count) * 2);
}

} // extern "C"
#pragma GCC visibility pop

std::vector<std::pair<const char *, void *>> ssd::emulator::runtimeSymbols() {
  return {SSD_MGPU_FUNCTIONS(SSD_MGPU_SYMBOL)};
}

const ssd::DeviceRuntime &ssd::emulator::deviceRuntime() {
  static const DeviceRuntime runtime{
      "gpu-emu", initialize, describeDevice, allocate, release, copyToDevice,
      copyToHost, copyDeviceToDevice, synchronize, takeError, runtimeSymbols,
      // Launches complete when issued: any stream is as good as another.
      [](void *) {},
      // Which device the emulator pretends to be when an ahead-of-time
      // executable chooses among a key's per-chip variants (its limits come
      // from each module's own chip): an H100/H200 unless told otherwise.
      [] {
        const char *cc = std::getenv("SSD_GPU_EMULATOR_COMPUTE_CAPABILITY");
        return cc && *cc ? std::atoi(cc) : 90;
      },
      setCallerWorkspace};
  return runtime;
}
