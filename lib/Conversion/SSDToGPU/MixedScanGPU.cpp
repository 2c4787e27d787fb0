//===- MixedScanGPU.cpp - serial and chunked sequences in one launch ------===//
//
// Mixed launches (buildMixedScanGPU): only sequences of at least
// `minSequence` tokens run chunked. Their chunk counts are ceil(len / L),
// the others' 0; at most T / minSequence sequences qualify, which bounds
// the grids of launches 2 and 3 (block 0 of launch 1 lists them), and the
// three launches run only when T reaches minSequence at all.
//
//===----------------------------------------------------------------------===//

#include "ChunkedKernels.h"

using namespace mlir;
using namespace mlir::ssd;
using namespace mlir::ssd::detail;

void mlir::ssd::detail::buildMixedScanGPU(ImplicitLocOpBuilder &b,
                                          ChunkScanVarlenOp op,
                                          const ChunkedPlan &plan,
                                          const SerialTiling &tiling,
                                          int64_t minChunkedSequence) {
  // Order: the serial readers' pass, the chunked launches (pool reads in
  // the chunk kernel when state passing is fused, else in the state pass;
  // writes in the output kernel), then the contested serial writers.
  // A serial writer whose slot a chunked sequence reads is contested (the
  // vote counts readers of both forms), so it writes after the chunked
  // pool reads; a chunked writer writes in the output kernel, after every
  // serial reader but the contested writers, which read only their own
  // slots.
  std::unique_ptr<SerialPart> serial =
      makeSerialPart(b, op, plan.x, tiling, minChunkedSequence);
  ChunkedContext chunked(b, op, plan, minChunkedSequence);
  WorkspaceBuilder w;
  serial->declareWorkspace(b, w);
  chunked.declareWorkspace(b, w);
  SmallVector<Value> views = w.allocate(b, op);
  serial->bindWorkspace(views);
  chunked.bindWorkspace(views);
  serial->emitFirstLaunch(b);
  emitChunkedLaunches(b, chunked);
  serial->emitSecondLaunch(b);
}
