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
    `chunk_size`. Lowering passes read the attribute, so each lowering can be
    tested with the choice pinned.

    With `form=auto` the rule is: chunked when the launch has at least
    `min-chunked-tokens` tokens and its sequences average at least
    `min-chunked-tokens-per-seq` tokens (T >= that times batch); serial
    otherwise (decode, speculative verify, short launches). When T and batch
    are static the choice is made here. When either is dynamic the op is
    replaced by an `scf.if` on the runtime values whose branches hold one op
    of each form.

    Ops that already carry a form are left alone, so a graph compiler can pin
    the form of some ops and let the pass choose for the rest.

    The default thresholds come from the CPU benchmark (docs/performance.md).
  }];
  let options = [
    Option<"form", "form", "std::string", /*default=*/"\"auto\"",
           "auto (choose by the rule), chunked or serial (force one form)">,
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"256",
           "tokens per chunk of the chunked form">,
    Option<"minChunkedTokens", "min-chunked-tokens", "int64_t",
           /*default=*/"FormThresholds().minChunkedTokens",
           "fewest total tokens T for which auto picks the chunked form">,
    Option<"minChunkedTokensPerSeq", "min-chunked-tokens-per-seq", "int64_t",
           /*default=*/"FormThresholds().minChunkedTokensPerSeq",
           "fewest tokens per sequence on average (T / batch) for which auto "
           "picks the chunked form">
  ];
  let statistics = [
    Statistic<"numSerial", "num-serial", "ops fixed to the serial form">,
    Statistic<"numChunked", "num-chunked", "ops fixed to the chunked form">,
    Statistic<"numRuntimeSelected", "num-runtime-selected",
              "ops replaced by a runtime branch between both forms">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SSDDeviceAllocs : Pass<"ssd-device-allocs"> {
  let summary = "Allocate host-side buffers on the GPU";
  let description = [{
    Rewrites `memref.alloc` / `memref.dealloc` outside GPU kernels into
    `gpu.alloc` / `gpu.dealloc`. After bufferization, the buffers it created
    (the y of a tensor-form scan, the results of elementwise ops around it)
    are host allocations; when the ops that read and write them become GPU
    kernels, those buffers must live on the device. Allocations inside
    `gpu.launch` or `gpu.func` bodies and `memref.alloca` are left alone.
    Part of `--ssd-to-nvvm`; a host whose graph keeps some buffers on the
    host should run its own placement instead.
  }];
  let statistics = [
    Statistic<"numMoved", "num-moved", "allocations moved to the device">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // SSD_TRANSFORMS_PASSES_TD
