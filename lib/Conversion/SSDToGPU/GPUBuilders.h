//===- GPUBuilders.h - the scan algorithms as GPU kernels -------*- C++ -*-===//

#ifndef SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H
#define SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H

#include "ScanEmitter/ScanEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "ssd/Conversion/Passes.h"

#include <array>

namespace mlir {
namespace ssd {
namespace detail {

/// The op's model extents, which the GPU kernels need at compile time.
struct StaticExtents {
  int64_t heads, headDim, groups, dstate;
};

/// The static extents of `op`, or failure when one is dynamic.
FailureOr<StaticExtents> getStaticExtents(ChunkScanVarlenOp op);

/// What a kernel body sees: block and thread ids, and its workgroup
/// (shared-memory) buffers in the order they were requested.
struct KernelContext {
  gpu::KernelDim3 block, thread;
  SmallVector<Value> shared;
};

using KernelBodyFn =
    function_ref<void(ImplicitLocOpBuilder &, const KernelContext &)>;

/// The static shapes of a kernel's workgroup (shared-memory) f32 buffers.
using WorkgroupShapes = ArrayRef<SmallVector<int64_t, 2>>;

/// Most static shared memory ptxas accepts in one kernel (48 KiB). Above it
/// only dynamic shared memory can be used, with the runtime's opt-in.
constexpr int64_t kMaxStaticSharedMemoryBytes = 48 * 1024;

/// Shared memory per block of a kernel that `launchKernel` gives buffers of
/// `shapes`: the buffers, each at a 16-byte aligned offset, plus, when they
/// come from dynamic shared memory, the small static base that the NVVM
/// lowering declares for it (the driver holds static and dynamic shared
/// memory together to the chip's per-block maximum).
int64_t sharedMemoryPerBlock(WorkgroupShapes shapes);

/// gpu.launch over `grid` blocks of `block` threads, with one workgroup
/// buffer per entry of `shared` (f32, static shape). Up to
/// kMaxStaticSharedMemoryBytes they are workgroup attributions (static
/// shared memory); above, views of dynamic shared memory that the launch
/// sizes. A zero grid extent launches one idle block (CUDA rejects empty
/// launches), so the host code stays a straight chain of launches.
void launchKernel(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                  std::array<Value, 3> grid, std::array<int64_t, 3> block,
                  KernelBodyFn body, WorkgroupShapes shared = {});

/// A workgroup-memory memref type of f32 with the given shape.
MemRefType workgroupBufferType(MLIRContext *ctx, ArrayRef<int64_t> shape);

/// One thread for each index in [0, count).
void launchPerIndex(ImplicitLocOpBuilder &b, const ScanEmitter &e, Value count,
                    function_ref<void(ImplicitLocOpBuilder &, Value)> body);

/// Where a lane's values sit in the fragments of an m16n8k16 mma.sync:
/// rows `group` and `group + 8`, columns `pair`, `pair + 1` (+ 8 for k).
struct MmaLane {
  Value group; // lane / 4
  Value pair;  // 2 * (lane % 4)
};
MmaLane mmaLane(ImplicitLocOpBuilder &b, const ScanEmitter &e, Value lane);

using TileElementFn =
    function_ref<Value(ImplicitLocOpBuilder &, Value row, Value column)>;

/// acc (the 4 f32 of a 16x8 accumulator tile) += A[16 x 16] * B[16 x 8] on
/// tensor cores (mma.sync.m16n8k16.row.col, bf16 operands, f32
/// accumulation). `a(row, k)` and `b(k, column)` give f32 values in tile
/// coordinates. With `splitF32`, each operand is split into a high and a low
/// bf16 part and three products are accumulated (hi*hi + hi*lo + lo*hi),
/// which keeps about 16 significant bits: enough for f32 models.
void mmaAccumulate(ImplicitLocOpBuilder &b, const ScanEmitter &e,
                   const MmaLane &lane, TileElementFn a, TileElementFn bElem,
                   MutableArrayRef<Value> acc, bool splitF32);

/// Sum of `v` over the 32 lanes of a warp, in every lane (xor butterfly).
Value warpSum(ImplicitLocOpBuilder &b, Value v);

/// WriterOrder (see ScanEmitter.h) computed by three small kernels on
/// device buffers; no host synchronisation.
WriterOrder planWriterOrderOnDevice(ImplicitLocOpBuilder &b,
                                    const ScanEmitter &e);
void freeWriterOrderOnDevice(ImplicitLocOpBuilder &b, const WriterOrder &order);

/// Replace `op` (memref form, serial, static extents) with GPU kernels.
void buildSerialScanGPU(RewriterBase &rewriter, ChunkScanVarlenOp op,
                        const StaticExtents &extents,
                        const LowerToGPUOptions &options);

/// The shared memory one kernel of a form needs, for diagnostics.
struct KernelSharedMemory {
  StringRef kernel;
  int64_t bytes;
};

/// Shared memory of each kernel of the chunked form that stages tiles, at
/// the given extents (the chunk size does not change it).
SmallVector<KernelSharedMemory>
chunkedSharedMemory(const StaticExtents &extents);

/// Replace `op` (memref form, chunked, static extents) with GPU kernels.
void buildChunkedScanGPU(RewriterBase &rewriter, ChunkScanVarlenOp op,
                         const StaticExtents &extents, int64_t chunkSize);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOGPU_GPUBUILDERS_H
