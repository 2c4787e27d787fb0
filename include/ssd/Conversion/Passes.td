//===- Passes.td - ssd conversion passes ------------------*- tablegen -*-===//

#ifndef SSD_CONVERSION_PASSES_TD
#define SSD_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SSDLowerToLoops : Pass<"ssd-lower-to-loops"> {
  let summary = "Lower memref-form ssd.chunk_scan_varlen ops to scf loops";
  let description = [{
    Replaces each memref-form `ssd.chunk_scan_varlen` op with the loop nest
    of the algorithm its `form` attribute names (set by `ssd-select-form`):

    - serial: `scf.parallel` over (head, P-tile, sequence); the state tile
      lives in f32 across an `scf.for` over the sequence's tokens, its rows
      in `vector` ops of `vector-width` lanes (two FMAs per element and
      token: the tile is kept scaled by the product of the decays).
    - chunked: a work list of chunks that never cross a sequence boundary,
      then `scf.parallel` phases over (chunk, head): prefix sums of d*A, the
      chunk states Bᵀ(decay d x), C Bᵀ per (chunk, group), a serial pass over
      each sequence's chunks that carries the state into the pool, and the
      chunk output. Workspace buffers are allocated and freed here, sized
      from T, batch and `chunk_size`.

    The loops are target-independent (arith, math, memref, scf) and use index
    (64-bit) arithmetic for every address. Ops without a form, or still in
    the tensor form, are reported as errors.

    Both options are checked once, before any op is lowered: `serial-p-tile`
    1 to 1024, `vector-width` 0 or a power of two up to 64; anything else is
    an error naming the option, the value and the range.

    A serial op (operands and loop bodies abridged; 16 lanes on a host with
    AVX-512):

    ```mlir
    ssd.chunk_scan_varlen x(%x : memref<?x4x8xbf16>) ... {form = #ssd<form serial>}
    // becomes
    %readers = memref.alloc(%slots) : memref<?xi32>
    %contested = memref.alloc(%batch) : memref<?xi1>
    %active = memref.alloc(%batch) : memref<?xindex>
    %n:2 = scf.for %b = %c0 to %batch step %c1
        iter_args(%others = %c0, %writers = %c0) -> (index, index) {...}
    scf.parallel (%h, %tile, %i) = (%c0, %c0, %c0) to (%H, %tiles, %n#0)
        step (%c1, %c1, %c1) {
      %state = memref.alloca() : memref<8x16xf32>
      %last = scf.for %t = %begin to %end step %c1
          iter_args(%scale = %one) -> (f32) {
        ... vector.fma ... : vector<16xf32>
      }
    }
    // the contested writers, after all the others
    scf.parallel (%h, %tile, %i) = (%c0, %c0, %c0) to (%H, %tiles, %n#1)
        step (%c1, %c1, %c1) {...}
    memref.dealloc %active : memref<?xindex>
    ```
  }];
  let options = [
    Option<"serialPTile", "serial-p-tile", "int64_t",
           /*default=*/"::mlir::ssd::kSerialPTileDefault",
           "head_dim rows per parallel task of the serial form, 1 to 1024">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "f32 lanes of the serial form's state vectors, a power of two up "
           "to 64; 0 takes the host's widest (16 with AVX-512, 8 with AVX, "
           "4 with SSE or NEON)">
  ];
  let statistics = [
    Statistic<"numSerialLowered", "num-serial", "serial-form ops lowered">,
    Statistic<"numChunkedLowered", "num-chunked", "chunked-form ops lowered">
  ];
  // LLVM: the invariant mode's llvm.fma (ScanEmitter/CanonicalMath.h).
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SSDLowerToGPU : Pass<"ssd-lower-to-gpu"> {
  let summary = "Lower memref-form ssd.chunk_scan_varlen ops to GPU kernels";
  let description = [{
    Replaces each memref-form `ssd.chunk_scan_varlen` op with `gpu.launch`
    kernels built from its plan, `#ssd.scan_config`, and nothing else: the
    form and chunk size (`ssd-select-form`) and the GPU kernels' choices
    (`ssd-plan-gpu-kernels`, or written by hand), which it checks against
    the op before building anything (a choice the kernels cannot honour for
    the op's shapes is an error naming it). An op whose config lacks the GPU
    kernels' choices is an error: run `ssd-plan-gpu-kernels` first. The
    op's memrefs must be device-accessible; H, P, G and N must be static
    (they fix the register and shared-memory tiling), T, batch and the
    pool's slot count may be dynamic. Nothing is allocated per call: the
    workspaces are views of one device buffer that the host code gets from
    the runtime, `func.func private @ssdGPUWorkspace(i64) -> memref<?xi8>`
    (declared in the module, `llvm.emit_c_interface`; the runtimes define
    `_mlir_ciface_ssdGPUWorkspace`). Each op's kernels are built once; the
    operands' layouts they need are read off them (static strides and
    offsets are checked here, the rest by host code before the first
    launch).

    - serial: a grid over (sequence, head, P-tile); each warp owns
      `serial_rows_per_warp` rows of the state with dstate split across its
      32 lanes (vectors of 4 consecutive columns), the state lives in
      registers across the token loop (past 64 values a lane, dstate is
      scanned in pieces of columns, each with its own token loop, y's sums
      over the pieces kept in the workspace), C·S is reduced with warp shuffles,
      pool loads and stores are coalesced along dstate. Decode (one token
      per sequence) is the common case. Writers whose slot another sequence
      reads run in a second launch (a flag per sequence in the workspace).
    - chunked: up to three launches. A chunk kernel (chunk states Xwᵀ B per
      chunk and head, with the in-chunk cumsum as a parallel compensated
      scan, and C Bᵀ per chunk and group; each block locates its chunk with
      an in-block prefix over the batch), state passing (pool reads), and
      the output kernel (C S_prevᵀ and the masked C Bᵀ X on one accumulator
      tile, plus the pool writes); `fusion` folds state passing, and the
      output, into the chunk kernel (a decoupled look-back). The matmuls run
      on tensor cores, `matmul = mma_sync` through `nvvm.mma.sync` m16n8k16
      with f16 or bf16 operands in swizzled shared tiles and f32
      accumulation (`fragment_loads`: ldmatrix or one load per register;
      `staging`: cp.async double-buffered copies or loads and stores), or
      `matmul = wgmma` (sm_90a) with the block's warpgroups' `wgmma.mma_async`
      reading their operands from the staged tiles through shared-memory
      descriptors (the tiles' XOR swizzle is the canonical one; they are
      moved onto 1024-byte boundaries at run time): C Bᵀ as m64n32k16
      halves, and, where head_dim is 49 to 64 and a block has 128 state
      columns, dS and the fused output's two products as m64n64k16 halves
      (B and S_prev staged as 64-column panels). Each stage is made visible
      to the async proxy with `fence.proxy.async` before the barrier that
      precedes the reads. With `heads_per_block = 2`, a block of 512
      threads serves two heads of one group: each head a team of 256
      threads running the one-head code in lockstep with the other on its
      own copy of the layout, the chunk's B and C staged once by the whole
      block; its C Bᵀ blocks compute m64n16k16 quarters.

    exp and log are emitted as the PTX approximations (`ex2.approx`,
    `lg2.approx`), so the kernels need no libdevice.

    Shared memory: a kernel whose arena fits in 48 KiB (the most static
    shared memory ptxas accepts) declares it as a workgroup attribution; a
    larger one takes it from dynamic shared memory
    (`gpu.dynamic_shared_memory`, sized by the launch), which the runtime
    opts the kernel into. The bytes the kernels need must be the config's
    `shared_memory`, which the chip must have.

    A serial op without `has_initial_state` (nobody reads the pool, so one
    launch; operands abridged):

    ```mlir
    ssd.chunk_scan_varlen x(%x : memref<?x4x8xbf16>) ... {config =
        #ssd.scan_config<form = serial, chunk_size = 256, chip = "sm_90a",
        serial_rows_per_warp = 4, serial_warps_per_block = 4>, ...}
    // becomes a grid over (sequence, head, P-tile) of 32 lanes x 4 warps
    gpu.launch blocks(%seq, %head, %tile) in (%gx = %batch, %gy = %c4, %gz = %tiles)
               threads(%lane, %warp, %z) in (%tx = %c32, %ty = %c4, %tz = %c1) {
      ...
      %decay = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%arg) : (f32) -> f32
      ...
      gpu.terminator
    }
    ```
  }];
  let statistics = [
    Statistic<"numSerialKernels", "num-serial", "serial-form ops lowered">,
    Statistic<"numChunkedKernels", "num-chunked", "chunked-form ops lowered">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SSDPlanGPUKernels : Pass<"ssd-plan-gpu-kernels"> {
  let summary = "Record the GPU kernels' choices in each scan op's "
                "#ssd.scan_config";
  let description = [{
    Completes the plan `ssd-select-form` recorded on every memref-form
    `ssd.chunk_scan_varlen` op with every choice the GPU kernels make, so
    that `ssd-lower-to-gpu` builds them from the attribute alone: the
    `chip`, the serial kernel's tiling (`serial_rows_per_warp`,
    `serial_warps_per_block`) and, where chunked kernels run (a chunked
    op, or a serial op whose launch may mix), theirs: `fusion` (state
    passing, and the output, inside the chunk kernel: 16-bit models, off for
    checkpoints that do not all end a chunk, and the fused output off where
    it does not fit the shared memory), `output_rows`, `state_parts`,
    `heads_per_block` (up to `heads-per-block` where wgmma and the fused
    output run, a group has a multiple of that many heads and their copies
    of the layout fit), `matmul` (wgmma where the chip has it, unless
    `matmul` says otherwise), `fragment_loads`, `staging`,
    `pipeline_stages` (the most up to `pipeline-stages` that keeps the
    blocks an SM's shared memory holds; 2 for a block of several heads,
    whose threads are at their register cap, and for staging through
    registers), `blocks_per_sm` and
    `shared_memory`. A mixed launch whose chunked part the kernels
    cannot take loses its `mixed_min_tokens` (every sequence then runs
    serially, as its form says). Ops with no state elements (head_dim or
    dstate 0) get no chunked choices: their chunked tiles have nothing to
    tile, and the lowering runs them on the serial kernel.

    A config that already records the GPU kernels' choices (written by hand
    or a tuner) is kept as it is. Ops without a config, or in the tensor
    form, are left for `ssd-lower-to-gpu` to report.

    Each option is checked once, before any op: `shared-memory-limit` 1 to
    232448 (and never more than the chip has), `heads-per-block` 1 to 2,
    `pipeline-stages` 2 to 4, `serial-rows-per-warp` and `serial-warps-per-block` 1 to 32, and
    `matmul=wgmma` needs `chip=sm_90a`.

    ```mlir
    ssd.chunk_scan_varlen ... {chunk_size = 256 : i64,
        config = #ssd.scan_config<form = chunked, chunk_size = 256>, ...}
    // becomes, for a bf16 model with H = G = 1, P = 64, N = 128, on sm_80
    ssd.chunk_scan_varlen ... {chunk_size = 256 : i64,
        config = #ssd.scan_config<form = chunked, chunk_size = 256,
            chip = "sm_80", serial_rows_per_warp = 4,
            serial_warps_per_block = 4, fusion = state_and_output,
            output_rows = 128, state_parts = 1, heads_per_block = 1,
            matmul = mma_sync, fragment_loads = ldmatrix,
            staging = cp_async, blocks_per_sm = 2, shared_memory = ...>, ...}
    ```
  }];
  let options = [
    Option<"chip", "chip", "::mlir::ssd::GPUChip",
           /*default=*/"::mlir::ssd::kDefaultGPUChip",
           "the GPU the kernels are planned for: its shared memory and "
           "instructions bound the choices",
           "::mlir::ssd::EnumValues{::mlir::ssd::kGPUChipNames}">,
    Option<"sharedMemoryLimit", "shared-memory-limit", "int64_t",
           /*default=*/"::mlir::ssd::kSharedMemoryLimitRange.max",
           "most shared memory per thread block, in bytes, 1 to 232448; "
           "never more than the chip's opt-in maximum (sm_80 166912, "
           "sm_86/sm_89 101376, sm_90/sm_90a 232448)">,
    Option<"fusedStatePassing", "fused-state-passing", "bool",
           /*default=*/"::mlir::ssd::kDefaultFusedStatePassing",
           "pass chunk states inside the chunk kernel with a decoupled "
           "look-back (16-bit models: two launches instead of three)">,
    Option<"fusedOutput", "fused-output", "bool",
           /*default=*/"::mlir::ssd::kDefaultFusedOutput",
           "with fused state passing, compute y in the chunk kernel's "
           "blocks once their state is published (S_prev and x stay on "
           "chip; the last launch only stores final states)">,
    Option<"headsPerBlock", "heads-per-block", "int64_t",
           /*default=*/"::mlir::ssd::kDefaultHeadsPerBlock",
           "most heads of one group a chunk-kernel block serves, 1 to 2 "
           "(more than one with wgmma and the fused output: the chunk's B "
           "and C are staged once for all of them)">,
    Option<"matmul", "matmul", "::mlir::ssd::MatmulChoice",
           /*default=*/"::mlir::ssd::MatmulChoice::Auto",
           "tensor-core instructions of the chunked kernels",
           "::mlir::ssd::EnumValues{::mlir::ssd::kMatmulChoiceNames}">,
    Option<"fragmentLoads", "fragment-loads", "::mlir::ssd::FragmentLoads",
           /*default=*/"::mlir::ssd::FragmentLoads::ldmatrix",
           "how the mma.sync products read their fragments",
           "::mlir::ssd::EnumValues{::mlir::ssd::kFragmentLoadsNames}">,
    Option<"staging", "staging", "::mlir::ssd::Staging",
           /*default=*/"::mlir::ssd::Staging::cp_async",
           "how raw operand tiles reach shared memory",
           "::mlir::ssd::EnumValues{::mlir::ssd::kStagingNames}">,
    Option<"cbInBlock", "cb-in-block", "bool", /*default=*/"false",
           "compute C·Bᵀ in each block of the chunk launch for its own "
           "output rows, where the fused output runs on wgmma with one head "
           "a block (cb_in_block), instead of in C·Bᵀ blocks of its own">,
    Option<"pipelineStages", "pipeline-stages", "int64_t",
           /*default=*/"::mlir::ssd::kDefaultPipelineStages",
           "most shared-memory stages of the chunked kernels' pipelined "
           "reductions, 2 to 4 (fewer where more would cost a resident "
           "block or not fit the shared memory)">,
    Option<"serialRowsPerWarp", "serial-rows-per-warp", "int64_t",
           /*default=*/"::mlir::ssd::kSerialRowsPerWarpDefault",
           "head_dim rows of the state per warp (serial kernel), 1 to 32 "
           "(lane r stores row r)">,
    Option<"serialWarpsPerBlock", "serial-warps-per-block", "int64_t",
           /*default=*/"::mlir::ssd::kSerialWarpsPerBlockDefault",
           "warps per thread block (serial kernel), 1 to 32">
  ];
  let statistics = [
    Statistic<"numPlanned", "num-planned",
              "ops whose GPU kernels' choices were recorded">,
    Statistic<"numChunkedPlanned", "num-chunked-planned",
              "ops whose chunked kernels' choices were recorded">,
    Statistic<"numFusedOutputOff", "num-fused-output-off",
              "ops whose fused output does not fit the shared memory (y "
              "then computed in a launch of its own)">,
    Statistic<"numMixingOff", "num-mixing-off",
              "mixed launches whose chunked part the kernels cannot take "
              "(run serially)">
  ];
}

#endif // SSD_CONVERSION_PASSES_TD
