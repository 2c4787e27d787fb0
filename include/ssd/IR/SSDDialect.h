//===- SSDDialect.h - ssd dialect -------------------------------*- C++ -*-===//

#ifndef SSD_IR_SSDDIALECT_H
#define SSD_IR_SSDDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ssd/IR/SSDOpsDialect.h.inc"

#endif // SSD_IR_SSDDIALECT_H
