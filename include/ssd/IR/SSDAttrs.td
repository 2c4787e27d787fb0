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

def SSD_FusionNone : I32EnumAttrCase<"none", 0>;
def SSD_FusionState : I32EnumAttrCase<"state", 1>;
def SSD_FusionStateAndOutput : I32EnumAttrCase<"state_and_output", 2>;

def SSD_Fusion : I32EnumAttr<"Fusion",
    "which launches of the chunked GPU kernels are fused into the first",
    [SSD_FusionNone, SSD_FusionState, SSD_FusionStateAndOutput]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_ScanConfigAttr : AttrDef<SSD_Dialect, "ScanConfig"> {
  let mnemonic = "scan_config";
  let summary = "the plan ssd-select-form chose for a chunk_scan_varlen op";
  let description = [{
    Everything a lowering needs to know about how one `ssd.chunk_scan_varlen`
    op runs, decided once by `ssd-select-form` after every option and
    resource check (the plain-C++ `planScan`, ssd/Transforms/ScanPlan.h) and
    only read by the lowerings:

    - `form`: the algorithm, `serial` or `chunked`;
    - `chunk_size`: tokens per chunk of the chunked form (also of the
      chunked sequences of a mixed launch);
    - `mixed_min_tokens` (serial only; absent: no mixing): a lowering that
      can mix the forms in one call (the GPU's) runs each sequence of at
      least that many tokens in the chunked form, the others serially; one
      that cannot runs every sequence serially, which is what `form` says;
    - for GPU pipelines, where chunked kernels run (`form = chunked`, or a
      mixed launch), the chunked kernels' choices, all five or none:
      `fusion` (`none`: three launches; `state`: state passing fused into
      the chunk launch; `state_and_output`: y computed there too),
      `output_rows` (rows of y per pass of the fused output),
      `state_parts` (blocks per chunk and head over dstate),
      `heads_per_block` (heads a block of the chunk launch serves, 1 or 2;
      2 only with `fusion = state_and_output`) and `shared_memory` (bytes
      per block of the largest launch).

    An op without it lowers as if it carried the plan its lowering computes
    from the op's `form` and `chunk_size` through the same function.

    Example: `#ssd.scan_config<form = chunked, chunk_size = 256>`.
  }];
  let parameters = (ins
    EnumParameter<SSD_Form>:$form,
    "int64_t":$chunk_size,
    OptionalParameter<"std::optional<int64_t>">:$mixed_min_tokens,
    OptionalParameter<"std::optional<::mlir::ssd::Fusion>">:$fusion,
    OptionalParameter<"std::optional<int64_t>">:$output_rows,
    OptionalParameter<"std::optional<int64_t>">:$state_parts,
    OptionalParameter<"std::optional<int64_t>">:$heads_per_block,
    OptionalParameter<"std::optional<int64_t>">:$shared_memory
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when the chunked GPU kernels' choices are recorded.
    bool hasKernelChoices() { return getFusion().has_value(); }
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
