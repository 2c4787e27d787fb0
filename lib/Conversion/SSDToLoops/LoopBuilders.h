//===- LoopBuilders.h - the two scan algorithms as loops --------*- C++ -*-===//

#ifndef SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H
#define SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H

#include "mlir/IR/PatternMatch.h"
#include "ssd/IR/SSDOps.h"

namespace mlir {
namespace ssd {
namespace detail {

/// Replace `op` (memref form, serial) with the token-serial loop nest.
void buildSerialScan(RewriterBase &rewriter, ChunkScanVarlenOp op,
                     int64_t pTile);
/// Replace `op` (memref form, chunked) with the chunked SSD loop nests.
void buildChunkedScan(RewriterBase &rewriter, ChunkScanVarlenOp op,
                      int64_t chunkSize);

} // namespace detail
} // namespace ssd
} // namespace mlir

#endif // SSD_LIB_CONVERSION_SSDTOLOOPS_LOOPBUILDERS_H
