//===- SSDAttrs.td - ssd dialect attributes ---------------*- tablegen -*-===//

#ifndef SSD_IR_SSDATTRS_TD
#define SSD_IR_SSDATTRS_TD

include "ssd/IR/SSDDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def SSD_FormSerial : I32EnumAttrCase<"serial", 0>;
def SSD_FormChunked : I32EnumAttrCase<"chunked", 1>;

def SSD_Form : I32EnumAttr<"Form", "algorithm that computes a chunk_scan_varlen op",
    [SSD_FormSerial, SSD_FormChunked]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_FormAttr : EnumAttr<SSD_Dialect, SSD_Form, "form"> {
  let summary = "the algorithm chosen for a chunk_scan_varlen op";
  let description = [{
    `#ssd<form serial>`: the token-serial recurrence, parallel over (sequence,
    head, P-tile); for decode, speculative verify and short launches.

    `#ssd<form chunked>`: the SSD block decomposition over chunks of
    `chunk_size` tokens whose three matmuls per chunk run on tensor cores; for
    long prefills.

    `ssd-select-form` attaches it; the lowering passes read it.
  }];
}

def SSD_PoolRoundingNearestEven : I32EnumAttrCase<"nearest_even", 0>;
def SSD_PoolRoundingStochastic : I32EnumAttrCase<"stochastic", 1>;

def SSD_PoolRounding : I32EnumAttr<"PoolRounding",
    "how a chunk_scan_varlen op rounds the states it writes into its pool",
    [SSD_PoolRoundingNearestEven, SSD_PoolRoundingStochastic]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_PoolRoundingAttr
    : EnumAttr<SSD_Dialect, SSD_PoolRounding, "pool_rounding"> {
  let summary = "the rounding of every state written into a narrow pool";
  let description = [{
    `#ssd<pool_rounding nearest_even>` (the default when the attribute is
    absent): every value written into a bf16, f16 or 8-bit pool is rounded
    to the nearest representable value, ties to even.

    `#ssd<pool_rounding stochastic>`: it is rounded to one of its two
    neighbours at random, away from zero with probability equal to its
    distance from the neighbour nearer zero in units of the gap between
    them, with bits from Philox4x32-10 keyed by the op's `rounding_seed`
    (docs/overview.md, "Compressed state pools", gives the generator, the
    counter of each element and the decision exactly).
  }];
}

def SSD_FusionNone : I32EnumAttrCase<"none", 0>;
def SSD_FusionState : I32EnumAttrCase<"state", 1>;
def SSD_FusionStateAndOutput : I32EnumAttrCase<"state_and_output", 2>;

def SSD_Fusion : I32EnumAttr<"Fusion",
    "which launches of the chunked GPU kernels are fused into the first",
    [SSD_FusionNone, SSD_FusionState, SSD_FusionStateAndOutput]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_MatmulMmaSync : I32EnumAttrCase<"mma_sync", 0>;
def SSD_MatmulWgmma : I32EnumAttrCase<"wgmma", 1>;

def SSD_Matmul : I32EnumAttr<"Matmul",
    "tensor-core instruction family of the chunked GPU kernels' products",
    [SSD_MatmulMmaSync, SSD_MatmulWgmma]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_FragmentLoadsLdmatrix : I32EnumAttrCase<"ldmatrix", 0>;
def SSD_FragmentLoadsScalar : I32EnumAttrCase<"scalar", 1>;

def SSD_FragmentLoads : I32EnumAttr<"FragmentLoads",
    "how mma.sync operand fragments are read from shared memory",
    [SSD_FragmentLoadsLdmatrix, SSD_FragmentLoadsScalar]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_StagingCpAsync : I32EnumAttrCase<"cp_async", 0>;
def SSD_StagingRegisters : I32EnumAttrCase<"registers", 1>;

def SSD_Staging : I32EnumAttr<"Staging",
    "how raw operand tiles move from global to shared memory",
    [SSD_StagingCpAsync, SSD_StagingRegisters]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_ScanConfigAttr : AttrDef<SSD_Dialect, "ScanConfig"> {
  let mnemonic = "scan_config";
  let summary = "the plan of a chunk_scan_varlen op, which the lowerings read";
  let description = [{
    Everything a lowering needs to know about how one `ssd.chunk_scan_varlen`
    op runs. The planning passes write it (`ssd-select-form` the algorithm,
    `ssd-plan-gpu-kernels` the GPU kernels' choices) and the lowerings read
    it and nothing else: a config written by hand, or by a tuner, is lowered
    as written or refused with a one-line reason.

    The algorithm (`ssd-select-form`):
    - `form`: `serial` or `chunked`;
    - `chunk_size`: tokens per chunk of the chunked form (also of the
      chunked sequences of a mixed launch);
    - `mixed_min_tokens` (serial only; absent: no mixing): a lowering that
      can mix the forms in one call (the GPU's) runs each sequence of at
      least that many tokens in the chunked form, the others serially; one
      that cannot runs every sequence serially, which is what `form` says;
    - `invariant` (printed only when true): the plan of an `invariant` op
      (the op's description says what that promises). Its GPU plan runs
      the serial kernel whatever the form, so it neither mixes nor takes
      the chunked kernels' choices below.

    The GPU kernels (`ssd-plan-gpu-kernels`; `ssd-lower-to-gpu` needs them),
    all three or none:
    - `chip`: the GPU they are planned for (`"sm_80"`, `"sm_86"`,
      `"sm_89"`, `"sm_90"`, `"sm_90a"`), which bounds the shared memory
      and the instructions below;
    - `serial_rows_per_warp` (1 to 32) and `serial_warps_per_block` (1 to
      32): the serial kernel's tiling.

    The chunked kernels, where they run (`form = chunked`, or a mixed
    launch), all nine or none:
    - `fusion`: `none` (three launches), `state` (state passing fused into
      the chunk launch; 16-bit models), `state_and_output` (y computed
      there too; one state part);
    - `output_rows`: rows of y per pass of the fused output (64 or 128);
    - `state_parts`: blocks per chunk and head over dstate (it must divide
      the 16-column tiles of N and leave at most 64 accumulators a thread);
    - `heads_per_block`: heads a block of the chunk launch serves, 1 or 2
      (2 with `fusion = state_and_output`, `matmul = wgmma` and an even
      number of heads per group);
    - `matmul`: `mma_sync`, or `wgmma` (sm_90a): C·Bᵀ on wgmma, and dS and
      the fused output where head_dim is 49 to 64 and a block has 128 state
      columns; the rest on mma.sync;
    - `fragment_loads`: `ldmatrix` or `scalar` (one load per register) for
      the products on mma.sync;
    - `staging`: `cp_async` (asynchronous copies of raw tiles) or
      `registers` (loads, then stores to shared memory);
    - `pipeline_stages` (2 to 4; printed only when not 2, and absent means
      2): shared-memory stages of each pipelined reduction's staged
      operands, so that a step's copies are issued `pipeline_stages - 1`
      steps before the step reads them (2: a double buffer; more help
      `staging = cp_async` only). Not one of the nine: a config without
      the chunked kernels' choices has no stages to set;
    - `cb_in_block` (printed only when true; absent means false): each
      block of the chunk launch computes C·Bᵀ for its own output rows from
      the B and C tiles it stages, on wgmma, instead of reading it from the
      tiles that blocks of their own compute once per chunk and group (no
      C·Bᵀ blocks, workspace or waits). Needs `fusion = state_and_output`,
      `matmul = wgmma` and `heads_per_block = 1`; like `pipeline_stages`,
      not one of the nine;
    - `blocks_per_sm`: blocks of the chunk launch asked to fit one SM
      (registers capped to match; 0: no request);
    - `shared_memory`: bytes per block of the largest launch, as the
      kernels of these choices need them (the lowering checks it, and that
      the chip has them).

    Example: `#ssd.scan_config<form = serial, chunk_size = 256>` after
    `ssd-select-form`; after `ssd-plan-gpu-kernels` for a bf16 prefill on an
    H100:
    `#ssd.scan_config<form = chunked, chunk_size = 256, chip = "sm_90a",
    serial_rows_per_warp = 4, serial_warps_per_block = 4, fusion =
    state_and_output, output_rows = 128, state_parts = 1, heads_per_block =
    1, matmul = wgmma, fragment_loads = ldmatrix, staging = cp_async,
    pipeline_stages = 3, blocks_per_sm = 2, shared_memory = 92320>`.
  }];
  let parameters = (ins
    EnumParameter<SSD_Form>:$form,
    "int64_t":$chunk_size,
    OptionalParameter<"std::optional<int64_t>">:$mixed_min_tokens,
    DefaultValuedParameter<"bool", "false">:$invariant,
    OptionalParameter<"::mlir::StringAttr">:$chip,
    OptionalParameter<"std::optional<int64_t>">:$serial_rows_per_warp,
    OptionalParameter<"std::optional<int64_t>">:$serial_warps_per_block,
    OptionalParameter<"std::optional<::mlir::ssd::Fusion>">:$fusion,
    OptionalParameter<"std::optional<int64_t>">:$output_rows,
    OptionalParameter<"std::optional<int64_t>">:$state_parts,
    OptionalParameter<"std::optional<int64_t>">:$heads_per_block,
    OptionalParameter<"std::optional<::mlir::ssd::Matmul>">:$matmul,
    OptionalParameter<"std::optional<::mlir::ssd::FragmentLoads>">:$fragment_loads,
    OptionalParameter<"std::optional<::mlir::ssd::Staging>">:$staging,
    DefaultValuedParameter<"int64_t", "2">:$pipeline_stages,
    DefaultValuedParameter<"bool", "false">:$cb_in_block,
    OptionalParameter<"std::optional<int64_t>">:$blocks_per_sm,
    OptionalParameter<"std::optional<int64_t>">:$shared_memory
  );
  let builders = [
    AttrBuilder<(ins "::mlir::ssd::Form":$form, "int64_t":$chunkSize,
                     CArg<"std::optional<int64_t>", "std::nullopt">:$mixedMinTokens,
                     CArg<"const std::optional<::mlir::ssd::GPUKernelChoices> &",
                          "std::nullopt">:$gpu,
                     CArg<"bool", "false">:$invariant)>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The GPU kernels' choices, where ssd-plan-gpu-kernels (or a hand) has
    /// recorded them.
    std::optional<::mlir::ssd::GPUKernelChoices> getGPUChoices() const;
    /// The same plan with the GPU kernels' choices replaced.
    ScanConfigAttr
    withGPUChoices(const std::optional<::mlir::ssd::GPUKernelChoices> &gpu) const;
    /// The same plan without mixing (a mixed launch the chunked kernels
    /// cannot take runs every sequence serially).
    ScanConfigAttr withoutMixing() const;
    /// The same plan, invariant or not.
    ScanConfigAttr withInvariant(bool invariant) const;
  }];
}

def SSD_GPUEmulatorTargetAttr
    : AttrDef<SSD_Dialect, "GPUEmulatorTarget"> {
  let mnemonic = "gpu_emulator_target";
  let summary = "GPU target that runs a gpu.module's kernels on the host CPU";
  let description = [{
    A `gpu.module` target, like `#nvvm.target`, whose serialization runs the
    NVVM kernels on the host CPU under the ssd GPU emulator instead of
    compiling them to PTX. `gpu-module-to-binary` translates the module to
    LLVM IR (the IR the NVPTX backend would receive), rewrites every
    GPU-specific operation into a call to the emulator runtime (special
    registers, barriers, warp shuffles and votes, `mma.sync`, approximate
    math, and every global or shared memory access, which the runtime checks),
    compiles it for the host and links it into a shared object. Before the
    rewriting the IR gets what the NVVM target gives it: the LLVM pipeline of
    level `O` on an NVPTX target machine for `chip`, and multiply-adds fused
    where NVPTX fuses them (as exact fmas). Host code is lowered exactly as for a GPU (`mgpu*` calls);
    linked with the emulator runtime instead of the CUDA one, the program runs
    its kernels on the CPU. `chip` is the GPU the kernels were generated for:
    it sets the shared-memory limits the runtime enforces.

    Formats of `gpu-module-to-binary`: `bin` and `fatbin` give the shared
    object; `isa` the host assembly and `llvm` the rewritten LLVM IR, for
    reading. Any NVVM operation or external function the emulator does not
    implement makes serialization fail with a message naming it.

    Example: `gpu.module @kernels [#ssd.gpu_emulator_target<chip = "sm_90a">]`.
    `ssd-attach-gpu-emulator-target` puts it in place of `#nvvm.target`.
  }];
  let parameters = (ins
    DefaultValuedParameter<"int", "2",
        "optimization level of the kernels: the LLVM pipeline of the NVVM "
        "target at that level runs before the rewriting">:$O,
    StringRefParameter<"GPU the kernels were generated for",
        "\"sm_90a\"">:$chip,
    StringRefParameter<"PTX features of the NVVM target it replaces",
        "\"\"">:$features
  );
  let assemblyFormat = [{ (`<` struct($O, $chip, $features)^ `>`)? }];
}

#endif // SSD_IR_SSDATTRS_TD
