/*===- SanitizerPrelude.h - included first in AddressSanitizer builds -----===*
 *
 * -DSSD_SANITIZE=address force-includes this header in every source of the
 * project (CMakeLists.txt). The project's code is instrumented, but the
 * libLLVM.so and libMLIR.so it links are not. LLVM's headers (BumpPtrAllocator
 * and the allocators built on it) poison a slab when instrumented code creates
 * it and unpoison each object they hand out, while the uninstrumented copies
 * of the same inline functions inside libMLIR.so hand out objects from that
 * slab without unpoisoning them: the next access from instrumented code is a
 * false "use-after-poison" (MLIR's attribute and type storage mixes both).
 * So the instrumented code leaves poisoning to nobody, as libMLIR.so does:
 * the interface is declared here, and its two calls become no-ops before
 * llvm/Support/Compiler.h uses them (its #include of the same header is then
 * a no-op thanks to the include guard). Every other ASan check stays on.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SSD_SANITIZER_PRELUDE_H
#define SSD_SANITIZER_PRELUDE_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif
#endif

#endif /* SSD_SANITIZER_PRELUDE_H */
