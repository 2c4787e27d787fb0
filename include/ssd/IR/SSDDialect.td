//===- SSDDialect.td - ssd dialect definition -------------*- tablegen -*-===//

#ifndef SSD_IR_SSDDIALECT_TD
#define SSD_IR_SSDDIALECT_TD

include "mlir/IR/OpBase.td"

def SSD_Dialect : Dialect {
  let name = "ssd";
  let cppNamespace = "::mlir::ssd";
  let summary = "The Mamba-2 state-space-duality (SSD) scan and its lowering";
  let description = [{
    The `ssd` dialect holds one operation, `ssd.chunk_scan_varlen`: the forward
    Mamba-2 SSD scan over a packed batch of variable-length sequences whose
    recurrent states live in a mutable pool that the op reads and updates in
    place. Hybrid language models (Mamba-2, Codestral Mamba, Nemotron-H,
    Granite-4, Falcon-H1) run it in every prefill and decode step.

    The op comes in a tensor form (what a graph compiler holds: y is a result)
    and a memref form (what the lowering consumes: y is an output buffer). In
    both forms the state pool is a memref, updated in place.

    The dialect's passes pick an algorithm per op (`ssd-select-form`), lower
    each form to loops, and from there to the host CPU or to NVVM.
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // SSD_IR_SSDDIALECT_TD
