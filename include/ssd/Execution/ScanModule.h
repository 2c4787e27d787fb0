//===- ScanModule.h - the module holding one scan op ------------*- C++ -*-===//
//
// The module that `ssd-run`, `ssd-bench` and `ssd-compile` compile for a
// problem's signature: one func holding one ssd.chunk_scan_varlen op, before
// any pass.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_EXECUTION_SCANMODULE_H
#define SSD_EXECUTION_SCANMODULE_H

#include "ssd/Runner/Problem.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace ssd {

/// How buildScanModule writes the op.
struct ScanModuleOptions {
  bool staticShapes = false;
  bool tensorForm = false;
  /// A, D, dt_bias as `arith.constant` tensors holding the problem's values
  /// (tensor form only).
  bool constantWeights = false;
  std::string functionName = "chunk_scan_varlen";
};

/// The module for `problem`'s signature: one func, `@chunk_scan_varlen`
/// (`options.functionName`) with `llvm.emit_c_interface`, holding the op.
/// In the memref form its arguments are the op's memrefs in operand order;
/// in the tensor form they are tensors (the pool stays a memref), the
/// function returns y and, with constant weights, A, D and dt_bias are
/// constants rather than arguments. T, batch and the pool's slot count are
/// dynamic unless `options.staticShapes`. Loads the dialects it needs.
mlir::OwningOpRef<mlir::ModuleOp>
buildScanModule(mlir::MLIRContext &context, const ScanProblem &problem,
                const ScanModuleOptions &options = {});

} // namespace ssd

#endif // SSD_EXECUTION_SCANMODULE_H
