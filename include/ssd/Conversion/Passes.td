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

#endif // SSD_CONVERSION_PASSES_TD
