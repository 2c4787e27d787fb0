//===- Passes.td - ssd conversion passes ------------------*- tablegen -*-===//

#ifndef SSD_CONVERSION_PASSES_TD
#define SSD_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SSDLowerToLoops : Pass<"ssd-lower-to-loops"> {
  let summary = "Lower memref-form ssd.chunk_scan_varlen ops to scf loops";
  let description = [{
    Replaces each memref-form `ssd.chunk_scan_varlen` op with the loop nest
    of the algorithm its `form` attribute names (set by `ssd-select-form`):

    - serial: `scf.parallel` over (sequence, head, P-tile); the state tile
      lives in f32 across an `scf.for` over the sequence's tokens.
    - chunked: a work list of chunks that never cross a sequence boundary,
      then `scf.parallel` phases over (chunk, head): prefix sums of d*A, the
      chunk states Bᵀ(decay d x), C Bᵀ per (chunk, group), a serial pass over
      each sequence's chunks that carries the state into the pool, and the
      chunk output. Workspace buffers are allocated and freed here, sized
      from T, batch and `chunk_size`.

    The loops are target-independent (arith, math, memref, scf) and use index
    (64-bit) arithmetic for every address. Ops without a form, or still in
    the tensor form, are reported as errors.
  }];
  let options = [
    Option<"serialPTile", "serial-p-tile", "int64_t", /*default=*/"16",
           "head_dim rows per parallel task of the serial form">
  ];
  let statistics = [
    Statistic<"numSerialLowered", "num-serial", "serial-form ops lowered">,
    Statistic<"numChunkedLowered", "num-chunked", "chunked-form ops lowered">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def SSDLowerToGPU : Pass<"ssd-lower-to-gpu"> {
  let summary = "Lower memref-form ssd.chunk_scan_varlen ops to GPU kernels";
  let description = [{
    Replaces each memref-form `ssd.chunk_scan_varlen` op with `gpu.launch`
    kernels for the form its `form` attribute names, plus the host-side
    `gpu.alloc`/`gpu.dealloc` of their workspaces. The op's memrefs must be
    device-accessible; H, P, G and N must be static (they fix the register
    and shared-memory tiling), T, batch and the pool's slot count may be
    dynamic.

    - serial: a grid over (P-tile, head, sequence); each warp owns
      `serial-rows-per-warp` rows of the state with dstate split across its
      32 lanes, the state lives in registers across the token loop, C·S is
      reduced with warp shuffles, pool loads and stores are coalesced along
      dstate. Decode (one token per sequence) is the common case.
    - chunked: a work list of (sequence, chunk) built on the device, then
      one kernel per phase of the SSD decomposition over (chunk, head) tiles
      staged in workgroup memory; the chunk matmuls (C Bᵀ, Bᵀ X, C S) run on
      tensor cores through `nvvm.mma.sync` m16n8k16 with f16 or bf16
      operands and f32 accumulation.

    exp and log are emitted as the PTX approximations (`ex2.approx`,
    `lg2.approx`), so the kernels need no libdevice.

    Shared memory: a kernel whose workgroup tiles fit in 48 KiB (the most
    static shared memory ptxas accepts) declares them as workgroup
    attributions; a larger one (chunk states at head_dim 128, dstate 256)
    carves them out of dynamic shared memory (`gpu.dynamic_shared_memory`,
    sized by the launch), which the runtime opts the kernel into. A kernel
    needing more than `shared-memory-limit` bytes, the target chip's
    per-block maximum, is an error naming the kernel, the bytes and the
    shapes.
  }];
  let options = [
    Option<"serialRowsPerWarp", "serial-rows-per-warp", "int64_t",
           /*default=*/"4", "head_dim rows of the state per warp (serial)">,
    Option<"serialWarpsPerBlock", "serial-warps-per-block", "int64_t",
           /*default=*/"4", "warps per thread block (serial)">,
    Option<"sharedMemoryLimit", "shared-memory-limit", "int64_t",
           /*default=*/"::mlir::ssd::kDefaultSharedMemoryLimit",
           "most shared memory per thread block, in bytes: the chip's opt-in "
           "maximum (default 101376, that of sm_86/sm_89; sm_80 allows "
           "166912, sm_90/sm_90a 232448)">
  ];
  let statistics = [
    Statistic<"numSerialKernels", "num-serial", "serial-form ops lowered">,
    Statistic<"numChunkedKernels", "num-chunked", "chunked-form ops lowered">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // SSD_CONVERSION_PASSES_TD
