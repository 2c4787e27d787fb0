//===- SSDDialect.cpp - ssd dialect ---------------------------------------===//

#include "ssd/IR/SSDDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "ssd/IR/SSDAttrs.h"
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
