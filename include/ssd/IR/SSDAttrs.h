//===- SSDAttrs.h - ssd dialect attributes ----------------------*- C++ -*-===//

#ifndef SSD_IR_SSDATTRS_H
#define SSD_IR_SSDATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "ssd/IR/SSDEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ssd/IR/SSDAttrs.h.inc"

#endif // SSD_IR_SSDATTRS_H
