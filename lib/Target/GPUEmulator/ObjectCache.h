//===- ObjectCache.h - compiled emulator kernels kept on disk ---*- C++ -*-===//
//
// Compiling a gpu.module for the GPU emulator (host code generation and a
// link) is most of what `ssd-run --target gpu-emu` spends; the same kernels
// are compiled again by every run of the same signature. With the
// environment variable SSD_GPU_EMULATOR_CACHE naming a folder, the linked
// shared object is kept there, keyed by the kernels' LLVM IR as MLIR
// translated it, the target's options, and the identity of the compiler
// doing it (the file holding this code: its size, inode and modification
// time), so a rebuilt compiler never reads an older one's objects.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_TARGET_GPUEMULATOR_OBJECTCACHE_H
#define SSD_LIB_TARGET_GPUEMULATOR_OBJECTCACHE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::ssd::emulator {

/// The cache's key for `module` compiled with `options` (any text that
/// changes the object: triple, optimization level, chip); none when the
/// cache is off (SSD_GPU_EMULATOR_CACHE unset or empty).
std::optional<std::string> objectCacheKey(const llvm::Module &module,
                                          llvm::StringRef options);

/// The object stored under `key`, if any.
std::optional<llvm::SmallVector<char, 0>> lookupObject(llvm::StringRef key);

/// Stores `object` under `key` (atomically: a temporary file renamed into
/// place, so concurrent compilers never read half an object). Failures are
/// ignored: the cache only saves time.
void storeObject(llvm::StringRef key, llvm::ArrayRef<char> object);

} // namespace mlir::ssd::emulator

#endif // SSD_LIB_TARGET_GPUEMULATOR_OBJECTCACHE_H
