//===- SSDDialect.cpp - ssd dialect ---------------------------------------===//

#include "ssd/IR/SSDDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDLimits.h"
#include "ssd/IR/SSDOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ssd;

#include "ssd/IR/SSDEnums.cpp.inc"
#include "ssd/IR/SSDOpsDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ssd/IR/SSDAttrs.cpp.inc"

void SSDDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ssd/IR/SSDOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ssd/IR/SSDAttrs.cpp.inc"
      >();
}

LogicalResult ScanConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Form form, int64_t chunkSize,
    std::optional<int64_t> mixedMinTokens, std::optional<Fusion> fusion,
    std::optional<int64_t> outputRows, std::optional<int64_t> stateParts,
    std::optional<int64_t> headsPerBlock, std::optional<int64_t> sharedMemory) {
  if (chunkSize < 1 || chunkSize > limits::kMaxChunkSize)
    return emitError() << "chunk_size (" << chunkSize << ") must be in [1, "
                       << limits::kMaxChunkSize << "]";
  if (mixedMinTokens && form != Form::serial)
    return emitError() << "mixed_min_tokens is only valid with form = serial "
                          "(a chunked op runs every sequence chunked)";
  if (mixedMinTokens && *mixedMinTokens < 1)
    return emitError() << "mixed_min_tokens (" << *mixedMinTokens
                       << ") must be positive";
  int present = fusion.has_value() + outputRows.has_value() +
                stateParts.has_value() + headsPerBlock.has_value() +
                sharedMemory.has_value();
  if (present == 0)
    return success();
  if (present != 5)
    return emitError() << "fusion, output_rows, state_parts, heads_per_block "
                          "and shared_memory are the chunked kernels' "
                          "choices: all five or none";
  if (form != Form::chunked && !mixedMinTokens)
    return emitError() << "the chunked kernels' choices need form = chunked "
                          "or a mixed launch (mixed_min_tokens)";
  if (*outputRows < 1 || *stateParts < 1 || *sharedMemory < 1)
    return emitError() << "output_rows (" << *outputRows << "), state_parts ("
                       << *stateParts << ") and shared_memory ("
                       << *sharedMemory << ") must be positive";
  if (*headsPerBlock != 1 && *headsPerBlock != 2)
    return emitError() << "heads_per_block (" << *headsPerBlock
                       << ") must be 1 or 2";
  if (*headsPerBlock == 2 && *fusion != Fusion::state_and_output)
    return emitError() << "heads_per_block = 2 needs fusion = "
                          "state_and_output (a block of two heads computes "
                          "both heads' y)";
  if (*fusion == Fusion::state_and_output && *stateParts != 1)
    return emitError() << "fusion = state_and_output needs state_parts = 1 "
                          "(the block that computes y holds the chunk's whole "
                          "state), got "
                       << *stateParts;
  return success();
}
