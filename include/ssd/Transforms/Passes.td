//===- Passes.td - ssd transformation passes --------------*- tablegen -*-===//

#ifndef SSD_TRANSFORMS_PASSES_TD
#define SSD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SSDSelectForm : Pass<"ssd-select-form"> {
  let summary = "Choose the serial or chunked algorithm for each "
                "ssd.chunk_scan_varlen op";
  let description = [{
    Records on every `ssd.chunk_scan_varlen` op the algorithm that computes
    it, as `form = #ssd<form serial>` or `form = #ssd<form chunked>` plus
    `chunk_size`, and the whole plan as `config = #ssd.scan_config<...>`
    (form, chunk size, and for a serial launch that may hold a long sequence
    the mixed launch's per-sequence threshold), computed once by `planScan`
    (ssd/Transforms/ScanPlan.h), the function the runner reads too.
    Lowering passes read the config (or, on an op pinned by hand without
    one, the plan its form and chunk size name), so each lowering can be
    tested with the choice pinned.

    With `form=auto` the rule is: chunked when the launch has at least
    `min-chunked-tokens` tokens and its sequences average at least
    `min-chunked-tokens-per-seq` tokens (T >= that times batch); serial
    otherwise (decode, speculative verify, short launches). When T and batch
    are static the choice is made here. When either is dynamic the op is
    replaced by an `scf.if` on the runtime values whose branches hold one op
    of each form.

    State checkpoints weigh in too: with `serial-for-dense-checkpoints`
    (the CPU default), an op whose `checkpoint_interval` is below the chunk
    size stays serial whatever its launch shape, since every chunk would
    hold a checkpoint the chunked form reaches by a serial walk (it would do
    the serial form's state updates on top of its own work). The GPU
    pipelines turn it off: there the walks run in parallel over chunks, each
    at most a chunk long, while the serial kernel walks whole sequences.

    8-bit pools (i8, f8E4M3FN) weigh in on the GPU: the chunked kernels
    take a row's scale as the maximum over the lanes of one warp, so they
    encode rows of dstate a power of two up to 128, 256 or 512 only. With
    `serial-for-unchunked-pools` (the GPU pipelines' default) an op with an
    8-bit pool of any other dstate stays serial, without a mixed launch's
    threshold and without a runtime branch, rather than get chunked kernels
    the lowering refuses. Pinning `form = chunked` on such an op still
    fails there, in one line.

    Ops that already carry a form are left alone, so a graph compiler can pin
    the form of some ops and let the pass choose for the rest.

    With `invariant=true` every op is marked `invariant` (the op's
    description says what that promises) and its config says
    `invariant = true`; an op whose form is pinned gets the mark too (and
    its config, if it has one, loses a mixed launch's threshold: an
    invariant op never mixes; chunked GPU kernels' choices in it are an
    error). An op marked invariant by hand stays so whatever the option
    says. The form is chosen as without it: the invariant lowerings compute
    the same bits in either form.

    The default thresholds come from the CPU benchmark (docs/performance.md).
    Each integer option is checked once, before any op: `chunk-size` 1 to
    65536 (the op's limit), `min-chunked-tokens` and
    `min-chunked-tokens-per-seq` 0 to 2^31 - 1 (the most tokens a launch
    holds); anything else is an error naming the option, the value and the
    range.

    With T and batch dynamic (`form=auto`, default thresholds; operands
    abridged):

    ```mlir
    ssd.chunk_scan_varlen x(%x : memref<?x4x8xbf16>) ... outs(%y : memref<?x4x8xbf16>)
    // becomes
    %T = memref.dim %x, %c0 : memref<?x4x8xbf16>
    %n = memref.dim %qsl, %c0 : memref<?xi32>
    %batch = arith.subi %n, %c1 : index
    %atLeastOne = arith.maxsi %batch, %c1 : index
    %longLaunch = arith.cmpi sge, %T, %c65536 : index
    %bound = arith.muli %atLeastOne, %c65536 : index
    %longSequences = arith.cmpi sge, %T, %bound : index
    %chunked = arith.andi %longLaunch, %longSequences : i1
    scf.if %chunked {
      ssd.chunk_scan_varlen ... {chunk_size = 256 : i64,
          config = #ssd.scan_config<form = chunked, chunk_size = 256>,
          form = #ssd<form chunked>}
    } else {
      ssd.chunk_scan_varlen ... {config = #ssd.scan_config<form = serial,
          chunk_size = 256, mixed_min_tokens = 65536>, form = #ssd<form serial>}
    }
    ```

    With T and batch static, the op just gets its attributes, e.g.
    `{config = #ssd.scan_config<form = serial, chunk_size = 256>,
    form = #ssd<form serial>}` for a decode launch.
  }];
  let options = [
    Option<"form", "form", "::mlir::ssd::FormChoice",
           /*default=*/"::mlir::ssd::FormChoice::Auto",
           "auto (choose by the rule), chunked or serial (force one form)",
           "::mlir::ssd::EnumValues{::mlir::ssd::kFormChoiceNames}">,
    Option<"chunkSize", "chunk-size", "int64_t",
           /*default=*/"::mlir::ssd::kChunkSizeDefault",
           "tokens per chunk of the chunked form">,
    Option<"minChunkedTokens", "min-chunked-tokens", "int64_t",
           /*default=*/"::mlir::ssd::kCPUFormThresholds.minChunkedTokens",
           "fewest total tokens T for which auto picks the chunked form">,
    Option<"minChunkedTokensPerSeq", "min-chunked-tokens-per-seq", "int64_t",
           /*default=*/"::mlir::ssd::kCPUFormThresholds.minChunkedTokensPerSeq",
           "fewest tokens per sequence on average (T / batch) for which auto "
           "picks the chunked form">,
    Option<"serialForDenseCheckpoints", "serial-for-dense-checkpoints", "bool",
           /*default=*/"::mlir::ssd::kCPUFormThresholds.serialForDenseCheckpoints",
           "auto keeps an op serial when its checkpoint_interval is below the "
           "chunk size (true on the CPU; the GPU pipelines pass false)">,
    Option<"serialForUnchunkedPools", "serial-for-unchunked-pools", "bool",
           /*default=*/"::mlir::ssd::kCPUFormThresholds.serialForUnchunkedPools",
           "auto keeps an op serial, never mixed, when its pool holds 8-bit "
           "rows the GPU chunked kernels cannot encode (false on the CPU; "
           "the GPU pipelines pass true)">,
    Option<"invariant", "invariant", "bool", /*default=*/"false",
           "mark every op invariant (bit-identical results however it is "
           "batched, split or lowered) and record it in its config">
  ];
  let statistics = [
    Statistic<"numSerial", "num-serial", "ops fixed to the serial form">,
    Statistic<"numChunked", "num-chunked", "ops fixed to the chunked form">,
    Statistic<"numRuntimeSelected", "num-runtime-selected",
              "ops replaced by a runtime branch between both forms">,
    Statistic<"numMarkedInvariant", "num-marked-invariant",
              "ops marked invariant by the invariant option">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SSDDeviceAllocs : Pass<"ssd-device-allocs"> {
  let summary = "Move the host side's buffers and copies onto the GPU";
  let description = [{
    After bufferization, the buffers it created (the y of a tensor-form
    scan, the results of elementwise ops around it) are host allocations,
    its copies host loops, and its constants host globals; once the ops
    that read and write them are GPU kernels, every one of them must live
    on, or act on, the device. Outside GPU kernels (`gpu.launch` and
    `gpu.func` bodies, `gpu.module`s), this pass rewrites:

    - `memref.alloc` / `memref.dealloc` into `gpu.alloc` / `gpu.dealloc`
      (`memref.alloca` stays);
    - `memref.copy` into `gpu.memcpy` when both sides are dense from their
      base pointer (identity layout, a strided layout equal to it, or a
      `memref.cast` / `scf.if` result of such buffers), else into a copy
      kernel (one thread per element) for strided views;
    - `memref.get_global` (a constant such as A, D or dt_bias) into a device
      buffer: one `gpu.alloc` per global and function, filled from the host
      global with `gpu.memcpy` at the start of the entry block, and freed
      with `gpu.dealloc` before each return, unless the function may return
      it (then the caller owns it). A global that is not `constant` gets
      the device contents copied back before each return.

    So no host code dereferences a buffer. Part of `--ssd-to-nvvm`, where
    `gpu-async-region` later makes the allocations and copies asynchronous;
    a host whose graph keeps some buffers on the host should run its own
    placement instead.

    ```mlir
    %b = memref.alloc() : memref<8xf32>
    memref.copy %a, %b : memref<8xf32> to memref<8xf32>
    memref.dealloc %b : memref<8xf32>
    // becomes
    %b = gpu.alloc () : memref<8xf32>
    gpu.memcpy %b, %a : memref<8xf32>, memref<8xf32>
    gpu.dealloc %b : memref<8xf32>
    ```
  }];
  let statistics = [
    Statistic<"numMoved", "num-moved", "allocations moved to the device">,
    Statistic<"numMemcpys", "num-memcpys",
              "memref.copy ops rewritten into gpu.memcpy">,
    Statistic<"numCopyKernels", "num-copy-kernels",
              "memref.copy ops rewritten into copy kernels">,
    Statistic<"numGlobals", "num-globals",
              "device copies made of host globals">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def SSDAttachGPUEmulatorTarget : Pass<"ssd-attach-gpu-emulator-target"> {
  let summary = "Target gpu.modules at the GPU emulator instead of NVVM";
  let description = [{
    Replaces every `#nvvm.target` of every `gpu.module` with an
    `#ssd.gpu_emulator_target` carrying the same chip, features and
    optimization level, so that `gpu-module-to-binary` produces a host
    object that the GPU emulator runtime executes instead of PTX. A module
    without targets gets an emulator target with this pass's `chip` and `O`.
    `--ssd-to-gpu-emulator` runs it right before `gpu-module-to-binary`, so
    the kernels the emulator executes are exactly those `--ssd-to-nvvm`
    hands to the NVPTX backend.

    ```mlir
    gpu.module @k [#nvvm.target<chip = "sm_80", features = "+ptx70">] {...}
    // becomes
    gpu.module @k [#ssd.gpu_emulator_target<chip = "sm_80", features = "+ptx70">] {...}
    ```
  }];
  let options = [
    Option<"chip", "chip", "::mlir::ssd::GPUChip",
           /*default=*/"::mlir::ssd::kDefaultGPUChip",
           "GPU recorded for modules that have no NVVM target",
           "::mlir::ssd::EnumValues{::mlir::ssd::kGPUChipNames}">,
    Option<"optLevel", "O", "int",
           /*default=*/"::mlir::ssd::kGPUOptLevelDefault",
           "host optimization level for modules that have no NVVM target, "
           "0 to 3">
  ];
  let statistics = [
    Statistic<"numRetargeted", "num-retargeted",
              "NVVM targets replaced by the emulator target">
  ];
  let dependentDialects = ["::mlir::ssd::SSDDialect"];
}

def SSDApplyKernelOccupancy
    : Pass<"ssd-apply-kernel-occupancy", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Turn ssd.kernel_occupancy requests into the kernels' "
                "nvvm.minctasm";
  let description = [{
    Runs on outlined kernels (after `gpu-kernel-outlining`, before
    `convert-gpu-to-nvvm`). Each `ssd.kernel_occupancy` in a kernel
    `gpu.func` sets the function's `nvvm.minctasm` to its
    `min_blocks_per_sm` and is erased; `convert-gpu-to-nvvm` keeps the
    attribute and the NVPTX backend writes it as `.minnctapersm`, which
    bounds ptxas's registers per thread so that many blocks fit one SM.
    To help it get there, the kernel's index arithmetic that integer range
    analysis proves to fit 32 bits (thread and lane positions, offsets
    inside tiles, counters of loops with static bounds) is narrowed to i32
    (upstream's int-range narrowing patterns); what derives from the
    kernel's dynamic arguments stays 64-bit. Kernels without a request are
    left as they are: narrowing flips ptxas's own register choice for some
    (the serial scan with checkpoints spilled 8 bytes on sm_80). Kernel
    outlining keeps no attribute of a `gpu.launch` but the body it
    clones, which is why the request travels as an op. Two requests in one
    kernel that disagree, or one that disagrees with an `nvvm.minctasm`
    already there, are an error naming both values.

    ```mlir
    gpu.func @k() kernel {
      ssd.kernel_occupancy min_blocks_per_sm = 2
      ...
    }
    // becomes
    gpu.func @k() kernel attributes {nvvm.minctasm = 2 : i32} {
      ...
    }
    ```
  }];
  let statistics = [
    Statistic<"numKernels", "num-kernels",
              "kernels given a minimum of resident blocks per SM">
  ];
}

def SSDExternDynamicSharedMemory
    : Pass<"ssd-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the kernels' dynamic shared memory extern, as PTX "
                "spells a launch-sized buffer";
  let description = [{
    Runs on a GPU module after `convert-gpu-to-nvvm`, which gives
    `gpu.dynamic_shared_memory` an internal zero-length array in the shared
    address space. The NVPTX backend prints that definition as a one-byte
    static variable, so every access past its first byte is out of bounds
    (ptxas: "Potential out of bound access", undefined behaviour in PTX).
    Each such global (address space 3, `!llvm.array<0 x i8>`-like, no
    initializer) becomes an external declaration, which NVPTX prints as
    `.extern .shared .align A .b8 name[];`, keeping its alignment. Other
    globals are left as they are. The GPU emulator treats a declared shared
    array as the launch's dynamic shared memory, as it did the definition.

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0()
        {addr_space = 3 : i32, alignment = 16 : i64, dso_local}
        : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0()
        {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let statistics = [
    Statistic<"numDeclared", "num-declared",
              "dynamic shared memory globals made external declarations">
  ];
}

def SSDCheckLLVMOnly : Pass<"ssd-check-llvm-only", "::mlir::ModuleOp"> {
  let summary = "Fail on the first op that is not in the LLVM or OpenMP "
                "dialect";
  let description = [{
    The last pass of `--ssd-to-cpu`. A conversion to the LLVM dialect that
    finds no pattern for an op leaves it in place, wired to its converted
    neighbours through `builtin.unrealized_conversion_cast`, and the module
    then fails only later, when it is exported to LLVM IR. This pass turns
    that into a diagnostic at the op: anything but the module itself and ops
    of the `llvm` and `omp` dialects (both translate to LLVM IR) is an error
    naming the op, so a pipeline lowers what it accepts or says what it
    could not.

    ```mlir
    llvm.func @f(%arg0: !llvm.ptr) {
      linalg.generic ... ins(%0 : memref<3xf32>) outs(%1 : memref<3xf32>) {...}
    }
    // error: 'linalg.generic' op was not lowered to the LLVM dialect
    ```
  }];
}

def SSDScopeParallelAllocas
    : Pass<"ssd-scope-parallel-allocas", "::mlir::ModuleOp"> {
  let summary = "Release each scf.parallel iteration's stack allocations "
                "when the loop runs sequentially";
  let description = [{
    `scf.parallel` is an automatic allocation scope: a `memref.alloca` in its
    body lives for one iteration. `scf-to-openmp` keeps that (it wraps each
    body in `memref.alloca_scope`), but `scf-to-cf` lowers the loop to a
    plain sequential loop and the allocas then pile up on the stack for the
    whole loop: the serial form's per-task state tile, 32 KiB at P-tile 64
    and N = 128, overflowed an 8 MiB stack at a few hundred tasks. This pass
    brackets the body of every `scf.parallel` that holds an alloca (outside
    any nested allocation scope) with `llvm.intr.stacksave` and
    `llvm.intr.stackrestore`, what `memref.alloca_scope` lowers to, without
    the scope's single-block region (the body's own loops become blocks in
    `scf-to-cf`). `--ssd-to-cpu` runs it when OpenMP is off.

    ```mlir
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %tile = memref.alloca() : memref<64x128xf32>
      ...
      scf.reduce
    }
    // becomes
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %stack = llvm.intr.stacksave : !llvm.ptr
      %tile = memref.alloca() : memref<64x128xf32>
      ...
      llvm.intr.stackrestore %stack : !llvm.ptr
      scf.reduce
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numScoped", "num-scoped-loops",
              "scf.parallel bodies given a stack save and restore">,
  ];
}

def SSDExpandFloatConversions : Pass<"ssd-expand-float-conversions"> {
  let summary = "Expand conversions between f32 and f16 or bf16 into integer "
                "arithmetic";
  let description = [{
    An `arith.extf` or `arith.truncf` between f32 and a 16-bit float becomes
    one instruction only on CPUs that have one (AVX512-BF16 or ARMv8.6 BF16
    for bf16, F16C or ARMv8 for f16). Elsewhere LLVM's backend calls a
    compiler-rt builtin (`__truncsfbf2`, `__truncsfhf2`, `__extendhfsf2`)
    that Debian 12's libgcc lacks and that a JIT links only if asked. This
    pass writes each such conversion as integer and f32 arithmetic with the
    same result (round to nearest even; NaN stays NaN, overflow gives
    infinity, subnormals are exact), so the code runs on any CPU with no
    runtime library. bf16 uses upstream's `arith-expand` bf16 patterns, f16
    the pass's own. Extensions from f16 to f64 go through f32 (exact).

    Arithmetic on 16-bit floats must already be in f32
    (`arith-emulate-unsupported-floats`, `math-extend-to-supported-types`;
    `--ssd-to-cpu` runs both first). A 16-bit conversion the pass cannot
    expand exactly (from f64, or with a rounding mode other than nearest
    even) is an error at the op, not a silent libcall.

    ```mlir
    %y = arith.truncf %x : f32 to f16
    // becomes (abridged)
    %bits = arith.bitcast %x : f32 to i32
    %magnitude = arith.andi %bits, %c0x7fffffff : i32
    ...  // NaN / overflow, subnormal and normal cases, selected
    %h = arith.trunci %withSign : i32 to i16
    %y = arith.bitcast %h : i16 to f16
    ```
  }];
  let statistics = [
    Statistic<"numExpanded", "num-expanded",
              "16-bit float conversions written as integer arithmetic">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // SSD_TRANSFORMS_PASSES_TD
