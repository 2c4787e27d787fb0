//===- SSDOps.h - ssd dialect operations ------------------------*- C++ -*-===//

#ifndef SSD_IR_SSDOPS_H
#define SSD_IR_SSDOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ssd/IR/SSDAttrs.h"
#include "ssd/IR/SSDDialect.h"

#define GET_OP_CLASSES
#include "ssd/IR/SSDOps.h.inc"

#endif // SSD_IR_SSDOPS_H
