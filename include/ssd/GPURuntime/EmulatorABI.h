//===- EmulatorABI.h - emulated kernels and the runtime --------*- C++ -*-===//
//
// The GPU emulator runs the NVVM kernels of a gpu.module on the host CPU. The
// `#ssd.gpu_emulator_target` serializer (lib/Target/GPUEmulator) rewrites the
// kernels' LLVM IR so that every special register, barrier, warp collective,
// tensor-core op (mma.sync, ldmatrix, wgmma), asynchronous copy (cp.async),
// approximate math function and memory access becomes a call
// into the emulator runtime (lib/GPURuntime/Emulator), then compiles the
// result into a host shared object that the runtime's mgpuModuleLoad opens.
// This header is everything both sides must agree on; it has no
// dependencies so that the runtime builds without LLVM.
//
// A kernel object exports:
//   __ssdemu_module          C string "abi=<N>;chip=<sm_XY>;kernels=<k1>,<k2>;
//                            module=<gpu.module name>"
//   __ssdemu_sites           C string, one line per call site of the
//                            runtime ("<kernel>: <what>"); site ids index it
//   __ssdemu_import_<name>   a pointer slot per runtime entry point it
//                            calls, filled by the loader (no symbol of the
//                            runtime is looked up by the dynamic linker)
//   __ssdemu_entry_<kernel>  void(void **params): the kernel, taking its
//                            arguments the way cuLaunchKernel does
//   __ssdemu_issue           uint32_t array: the number of counted basic
//                            blocks B, then per block kIssueClasses
//                            instruction counts (IssueClass), for the cost
//                            model's instruction issue (a kernel object
//                            without it counts none)
//   __ssdemu_kinfo_<kernel>  C string "params=<codes>;shared=<static bytes>;
//                            maxntid=<x>,<y>,<z>;
//                            buffers=<name>@<offset>+<bytes>,..."
//                            where each parameter code is p (pointer), or
//                            i<bits> / f<bits> for scalars.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_GPURUNTIME_EMULATORABI_H
#define SSD_GPURUNTIME_EMULATORABI_H

#include "ssd/Transforms/GPUChip.h"

#include <cstdint>

namespace ssd {
namespace emulator {

/// Bumped whenever anything below changes meaning.
constexpr uint32_t kABIVersion = 8;

/// Symbol names and prefixes of a kernel object.
constexpr const char *kModuleInfoSymbol = "__ssdemu_module";
constexpr const char *kSitesSymbol = "__ssdemu_sites";
constexpr const char *kImportPrefix = "__ssdemu_import_";
constexpr const char *kEntryPrefix = "__ssdemu_entry_";
constexpr const char *kKernelInfoPrefix = "__ssdemu_kinfo_";
constexpr const char *kIssueSymbol = "__ssdemu_issue";

/// The runtime entry points a kernel object may import, with their C
/// signatures (`site` is an index into __ssdemu_sites):
///
///   uint32_t sreg(uint32_t which)                         SpecialRegister
///   void     barrier(uint32_t site, uint32_t id, uint32_t threads)
///            (threads == 0: every thread of the block)
///   void     syncwarp(uint32_t site, uint32_t mask)
///   uint32_t shfl(uint32_t site, uint32_t mode, uint32_t mask,
///                 uint32_t value, uint32_t laneOrDelta, uint32_t clamp,
///                 uint8_t *inRange)                        ShuffleMode
///   uint32_t vote(uint32_t site, uint32_t mode, uint32_t mask,
///                 uint32_t predicate)                      VoteMode
///   void     mma(uint32_t site, uint32_t kind, const uint32_t *a,
///                const uint32_t *b, const float *c, float *d)  MmaKind
///   void    *global(void *address, uint64_t bytes, uint32_t flags,
///                   uint32_t site)   -> the address to access on the host
///   void    *shared(void *address, uint64_t bytes, uint32_t flags,
///                   uint32_t site)   (address in this block's shared memory)
///            (flags: AccessFlags, with the access's alignment in the
///            bits of kAccessAlignShift)
///   void    *shared_base()           this block's shared memory
///   float    math_f32(uint32_t op, float x)                MathOp
///   double   math_f64(uint32_t op, double x)               MathOp
///   void     trap(uint32_t site)
///   void     ldmatrix(uint32_t site, uint32_t mode, void *row,
///                     uint32_t *result)                   LdmatrixMode
///            (row: this lane's row address, in shared memory; result: the
///            lane's `matrices` registers, one per matrix)
///   void     cp_async(uint32_t site, void *dst, void *src, uint32_t bytes,
///                     uint32_t srcBytes)
///            (dst in shared memory, src in global memory; bytes is the
///            cp-size, 4, 8 or 16; srcBytes the src-size, bytes when the
///            instruction has none; the rest of dst is zero-filled)
///   void     cp_async_commit(uint32_t site)
///   void     cp_async_wait(uint32_t site, uint32_t pendingGroups)
///            (cp.async.wait_group N; cp.async.wait_all is a commit and a
///            wait for 0)
///   void     fence(uint32_t site)
///            (membar.gl / membar.sys / fence.sc.cluster, or an LLVM fence
///            wider than the block: orders the thread's device-memory
///            accesses for the cross-block race check)
///   void     hang(uint32_t site)
///            (control entered code from which no path leaves the kernel
///            or device function: a loop without exit, which hangs a GPU)
///   void     wgmma(uint32_t site, uint32_t mode, uint64_t descA,
///                  uint64_t descB, const float *c, float *d)  WgmmaMode
///            (wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}: the
///            lane's N / 2 accumulator registers in c, its results in d;
///            descA and descB are the shared-memory matrix descriptors)
///   void     wgmma_check(uint32_t site, uint32_t producer)
///            (before a use of wgmma.mma_async results, other than as the
///            accumulators of the next one: the thread's warp must have
///            retired the latest instruction of call site `producer`)
///   void     proxy_fence(uint32_t site)
///            (fence.proxy.async covering shared memory: the thread's
///            earlier shared-memory writes become visible to the async
///            proxy, which wgmma reads through)
///   void     wgmma_fence(uint32_t site)
///   void     wgmma_commit(uint32_t site)
///   void     wgmma_wait(uint32_t site, uint32_t pendingGroups)
///            (wgmma.fence / commit_group / wait_group N, .sync.aligned)
///   uint32_t *issue_counts()
///            this thread's execution counters of the basic blocks of
///            __ssdemu_issue: block b's is at [b * kIssueLanes] (the lanes of
///            a warp interleaved); the code adds 1 on entering a block
#define SSD_EMULATOR_IMPORTS(X)                                                \
  X(sreg)                                                                      \
  X(barrier)                                                                   \
  X(syncwarp)                                                                  \
  X(shfl)                                                                      \
  X(vote)                                                                      \
  X(mma)                                                                       \
  X(global)                                                                    \
  X(shared)                                                                    \
  X(shared_base)                                                               \
  X(math_f32)                                                                  \
  X(math_f64)                                                                  \
  X(trap)                                                                      \
  X(ldmatrix)                                                                  \
  X(cp_async)                                                                  \
  X(cp_async_commit)                                                           \
  X(cp_async_wait)                                                             \
  X(fence)                                                                     \
  X(hang)                                                                      \
  X(wgmma)                                                                     \
  X(wgmma_check)                                                               \
  X(proxy_fence)                                                               \
  X(wgmma_fence)                                                               \
  X(wgmma_commit)                                                              \
  X(wgmma_wait)                                                                \
  X(issue_counts)

enum class SpecialRegister : uint32_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  WarpSize,
};

enum class ShuffleMode : uint32_t { Idx = 0, Up = 1, Down = 2, Bfly = 3 };

enum class VoteMode : uint32_t { All = 0, Any = 1, Uni = 2, Ballot = 3 };

/// mma.sync variants: shape, operand type, accumulator f32, A row-major and
/// B column-major (the only layouts of these shapes in the PTX ISA).
enum class MmaKind : uint32_t {
  M16N8K16BF16 = 1, ///< a: 4 x b32 (2 bf16 each), b: 2 x b32, c/d: 4 x f32
  M16N8K16F16 = 2,  ///< a: 4 x b32 (2 f16 each), b: 2 x b32, c/d: 4 x f32
  M16N8K8BF16 = 3,  ///< a: 2 x b32, b: 1 x b32, c/d: 4 x f32
  M16N8K8F16 = 4,   ///< a: 2 x b32, b: 1 x b32, c/d: 4 x f32
};

/// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16: the number of 8x8
/// matrices in the low byte, kLdmatrixTrans for .trans.
enum LdmatrixMode : uint32_t {
  kLdmatrixMatricesMask = 0xff,
  kLdmatrixTrans = 0x100,
};

/// wgmma.mma_async variants the emulator runs (m64nNk16, f32 accumulator,
/// both operands from shared memory): N in the low bits, then the operand
/// type and the instruction's immediates.
enum WgmmaMode : uint32_t {
  kWgmmaNMask = 0x1ff,       ///< N: 8 to 256, a multiple of 8
  kWgmmaF16 = 0x200,         ///< operands f16 (else bf16)
  kWgmmaScaleD = 0x400,      ///< D = A B + D (else D = A B)
  kWgmmaNegateA = 0x800,     ///< imm-scale-a = -1
  kWgmmaNegateB = 0x1000,    ///< imm-scale-b = -1
  kWgmmaTransposeA = 0x2000, ///< imm-trans-a = 1 (A M-major)
  kWgmmaTransposeB = 0x4000, ///< imm-trans-b = 1 (B N-major)
};

/// Flags of a memory access.
enum AccessFlags : uint32_t {
  AccessRead = 0,
  AccessWrite = 1,
  /// A read-modify-write by one thread, atomically. Relaxed unless
  /// AccessAcquire and/or AccessRelease say otherwise, as in the PTX the GPU
  /// gets: NVPTX emits atomicrmw as a plain (relaxed) `atom` whatever its
  /// LLVM ordering, and cmpxchg as atom.{acquire,release,acq_rel}.cas.
  AccessAtomic = 2,
  AccessReadWrite = 4, ///< both (memmove-style helpers)
  /// An atomic load with acquire (or stronger) ordering: a flag poll, which
  /// the runtime watches for spin waits between blocks.
  AccessAcquire = 8,
  /// An atomic store with release (or stronger) ordering: a publication.
  AccessRelease = 16,
  /// A strong access without ordering of its own: an atomic load or store
  /// that is relaxed (monotonic), or a volatile one. Not race-checked; it
  /// publishes or acquires only together with a fence of its thread.
  AccessRelaxed = 32,
};

/// Bits 8-13 of an access's flags: log2 of the alignment in bytes that the
/// access promises (the LLVM `align` of the load, store, atomic or memcpy
/// side), which the NVPTX backend relies on: it emits vectors of that width
/// and merges neighbouring accesses up to it, and a GPU faults on an
/// address that breaks it. The runtime checks the device address (global)
/// or the offset in the block's shared memory against it.
constexpr uint32_t kAccessAlignShift = 8;
constexpr uint32_t kAccessAlignMask = 0x3f << kAccessAlignShift;
inline uint32_t accessAlignFlags(uint64_t alignment) {
  uint32_t log2 = 0;
  while (log2 < 63 && (uint64_t(2) << log2) <= alignment)
    ++log2;
  return log2 << kAccessAlignShift;
}
inline uint64_t accessAlignment(uint32_t flags) {
  return uint64_t(1) << ((flags & kAccessAlignMask) >> kAccessAlignShift);
}

/// Unary math functions: the PTX approximations (computed exactly, with the
/// flush-to-zero of the .ftz forms applied to input and result) and the
/// libdevice functions the kernels may call.
enum class MathOp : uint32_t {
  Ex2Approx,
  Ex2ApproxFtz,
  Lg2Approx,
  Lg2ApproxFtz,
  RcpApprox,
  RcpApproxFtz,
  SqrtApprox,
  SqrtApproxFtz,
  RsqrtApprox,
  RsqrtApproxFtz,
  SinApprox,
  SinApproxFtz,
  CosApprox,
  CosApproxFtz,
  TanhApprox,
  // libdevice (__nv_*): the host's libm, not bit-identical to libdevice.
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log1p,
  Sqrt,
  Rsqrt,
  Tanh,
  Sin,
  Cos,
  Erf,
  Fabs,
  Floor,
  Ceil,
  Trunc,
  Round,
};

/// Classes of instructions for the cost model's instruction issue, by the
/// SM pipe that executes them (docs/gpu.md, "Cost counters"). The
/// rewriter counts each basic block's instructions of the kernel's LLVM IR
/// (as optimized for the GPU, before the rewrite) per class; the runtime
/// counts how often each warp executed each block (the most any of its
/// lanes did) and multiplies.
enum class IssueClass : uint32_t {
  Sfu,     ///< ex2/lg2/rcp/sqrt/rsqrt/sin/cos/tanh approximations (MUFU)
  Fp32,    ///< f32 add/mul/fma/min/max/compare; f16/bf16 per pair; f64 x2
  Imad,    ///< integer multiplies and multiply-adds (address arithmetic)
  Int,     ///< other integer and logic ops, compares, select; i64 x2 (but
           ///< and/or/xor of a zext'd i32 and a constant x1)
  Convert, ///< conversions between float types and to/from integers
  Shuffle, ///< shfl.sync, vote
  Shared,  ///< shared-memory loads, stores, atomics, ldmatrix, cp.async
  Global,  ///< global-memory loads, stores, atomics
  Barrier, ///< bar.sync / barrier0, bar.warp.sync, fences
  Tensor,  ///< mma.sync, wgmma.mma_async (per warp)
  Branch,  ///< conditional branches, switches, calls
};
constexpr unsigned kIssueClasses = 11;
/// IssueClass's names in reports, in its order.
constexpr const char *kIssueClassNames[kIssueClasses] = {
    "sfu",    "fp32",   "imad",    "int",    "convert", "shuffle",
    "shared", "global", "barrier", "tensor", "branch"};
constexpr uint32_t kIssueLanes = 32; ///< the interleave of issue_counts

/// Shared memory a kernel may use without the dynamic-size opt-in, and the
/// per-block maximum with it by compute capability: the limit of the chip
/// the GPU pipelines compile for at that capability (GPUChip.h); the static
/// limit for any other.
constexpr uint64_t kStaticSharedLimit = mlir::ssd::kStaticSharedMemoryLimit;
inline uint64_t maxSharedMemoryPerBlock(int computeCapability) {
  using mlir::ssd::GPUChip;
  switch (computeCapability) {
  case 80:
    return mlir::ssd::sharedMemoryLimitForChip(GPUChip::SM80);
  case 86:
    return mlir::ssd::sharedMemoryLimitForChip(GPUChip::SM86);
  case 89:
    return mlir::ssd::sharedMemoryLimitForChip(GPUChip::SM89);
  case 90:
    return mlir::ssd::sharedMemoryLimitForChip(GPUChip::SM90);
  default:
    return kStaticSharedLimit;
  }
}

} // namespace emulator
} // namespace ssd

#endif // SSD_GPURUNTIME_EMULATORABI_H
