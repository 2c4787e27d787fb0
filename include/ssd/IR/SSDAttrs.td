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
