//===- SSDAttrs.h - ssd dialect attributes ----------------------*- C++ -*-===//

#ifndef SSD_IR_SSDATTRS_H
#define SSD_IR_SSDATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "ssd/IR/SSDEnums.h.inc"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace ssd {

/// The chunked GPU kernels' choices of a #ssd.scan_config, as one value:
/// what ssd-plan-gpu-kernels decides and ssd-lower-to-gpu builds from (the
/// attribute's description says what each one means).
struct ChunkedKernelChoices {
  Fusion fusion = Fusion::none;
  int64_t outputRows = 0;
  int64_t stateParts = 1;
  int64_t headsPerBlock = 1;
  Matmul matmul = Matmul::mma_sync;
  FragmentLoads fragmentLoads = FragmentLoads::ldmatrix;
  Staging staging = Staging::cp_async;
  /// A config without pipeline_stages has the classic double buffer.
  int64_t pipelineStages = 2;
  /// C·Bᵀ computed by each state block for its own output rows (cb_in_block).
  bool cbInBlock = false;
  int64_t blocksPerSM = 0;
  int64_t sharedMemory = 0;
};

/// The GPU kernels' choices of a #ssd.scan_config: the chip they are planned
/// for, the serial kernel's tiling and, where chunked kernels run, theirs.
struct GPUKernelChoices {
  std::string chip;
  int64_t serialRowsPerWarp = 0;
  int64_t serialWarpsPerBlock = 0;
  std::optional<ChunkedKernelChoices> chunked;
};

} // namespace ssd
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "ssd/IR/SSDAttrs.h.inc"

#endif // SSD_IR_SSDATTRS_H
