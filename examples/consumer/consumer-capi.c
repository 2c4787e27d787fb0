//===- consumer-capi.c - a C host using ssd through its C API -------------===//
//
// The C side of the consumer project: links SSD::SSDCAPI only, parses a
// decode step, runs ssd-to-cpu by name with MLIR's C pass manager and counts
// the ssd ops left (none).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "ssd-c/Dialects.h"

#include <stdio.h>
#include <string.h>

static const char *kModule =
    "func.func @decode(%x: memref<2x4x8xf32>, %dt: memref<2x4xf32>,\n"
    "    %A: memref<4xf32>, %B: memref<2x1x16xf32>, %C: memref<2x1x16xf32>,\n"
    "    %pool: memref<3x4x8x16xf32>, %qsl: memref<3xi32>,\n"
    "    %slots: memref<2xi32>, %y: memref<2x4x8xf32>) {\n"
    "  ssd.chunk_scan_varlen x(%x : memref<2x4x8xf32>)\n"
    "      dt(%dt : memref<2x4xf32>) A(%A : memref<4xf32>)\n"
    "      B(%B : memref<2x1x16xf32>) C(%C : memref<2x1x16xf32>)\n"
    "      ssm_pool(%pool : memref<3x4x8x16xf32>)\n"
    "      query_start_loc(%qsl : memref<3xi32>)\n"
    "      cache_indices(%slots : memref<2xi32>) outs(%y : memref<2x4x8xf32>)\n"
    "  return\n"
    "}\n";

static void count(MlirOperation op, int *ssd, int *llvm) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length > 4 && !strncmp(name.data, "ssd.", 4))
    ++*ssd;
  if (name.length > 5 && !strncmp(name.data, "llvm.", 5))
    ++*llvm;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        count(o, ssd, llvm);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirSSDRegisterDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirSSDRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString("builtin.module(ssd-to-cpu)"), NULL,
          NULL)))
    return 1;
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 1;
  int ssd = 0, llvm = 0;
  count(mlirModuleGetOperation(module), &ssd, &llvm);
  printf("C API, ssd-to-cpu by name: ssd=%d llvm>0=%d\n", ssd, llvm > 0);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
