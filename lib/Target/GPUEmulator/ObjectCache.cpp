//===- ObjectCache.cpp - compiled emulator kernels kept on disk -----------===//

#include "ObjectCache.h"

#include "ssd/GPURuntime/EmulatorABI.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <sys/stat.h>
#include <utime.h>

using namespace llvm;

namespace {

StringRef cacheFolder() {
  const char *folder = std::getenv("SSD_GPU_EMULATOR_CACHE");
  return folder ? StringRef(folder) : StringRef();
}

/// The file this code was loaded from (the tool, or a shared library that
/// embeds the compiler), as size, inode and modification time: any rebuild
/// changes it.
std::string compilerIdentity() {
  static const std::string identity = [] {
    Dl_info info;
    struct stat status;
    if (!dladdr(reinterpret_cast<void *>(&compilerIdentity), &info) ||
        !info.dli_fname || stat(info.dli_fname, &status) != 0)
      return std::string();
    return std::string(info.dli_fname) + ":" + std::to_string(status.st_size) +
           ":" + std::to_string(status.st_ino) + ":" +
           std::to_string(status.st_mtim.tv_sec) + "." +
           std::to_string(status.st_mtim.tv_nsec);
  }();
  return identity;
}

SmallString<256> pathOf(StringRef key) {
  SmallString<256> path(cacheFolder());
  sys::path::append(path, key + ".so");
  return path;
}

} // namespace

std::optional<std::string>
mlir::ssd::emulator::objectCacheKey(const Module &module, StringRef options) {
  if (cacheFolder().empty())
    return std::nullopt;
  std::string identity = compilerIdentity();
  if (identity.empty())
    return std::nullopt; // no way to tell compilers apart: no cache
  SHA256 hash;
  std::string text;
  raw_string_ostream os(text);
  os << "ssd-gpu-emulator-object\n"
     << LLVM_VERSION_STRING << "\nabi " << ::ssd::emulator::kABIVersion << "\n"
     << identity << "\n"
     << options << "\n";
  module.print(os, nullptr);
  hash.update(text);
  return toHex(hash.final(), /*LowerCase=*/true);
}

std::optional<SmallVector<char, 0>>
mlir::ssd::emulator::lookupObject(StringRef key) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(pathOf(key), /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  StringRef bytes = (*file)->getBuffer();
  // Marks the object used, for whoever prunes the folder by age.
  utime(pathOf(key).c_str(), nullptr);
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}

void mlir::ssd::emulator::storeObject(StringRef key, ArrayRef<char> object) {
  if (sys::fs::create_directories(cacheFolder()))
    return;
  SmallString<256> temporary;
  int fd;
  if (sys::fs::createUniqueFile(pathOf(key) + ".%%%%%%%%.tmp", fd, temporary))
    return;
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    if (os.has_error()) {
      os.clear_error();
      sys::fs::remove(temporary);
      return;
    }
  }
  if (sys::fs::rename(temporary, pathOf(key)))
    sys::fs::remove(temporary);
}
