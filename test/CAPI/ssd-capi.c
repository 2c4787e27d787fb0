//===- ssd-capi.c - the ssd C API from a C program ------------------------===//
//
// Compiled as C (not C++) into ssd-capi-test, linked against libSSDCAPI.so
// only: parses a decode step in the tensor form, runs ssd-to-cpu by name
// through MLIR's C pass manager and prints the result; then an error a C host
// sees.
//
//===----------------------------------------------------------------------===//

// RUN: ssd-capi-test 2>&1 | FileCheck %s

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "ssd-c/Dialects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#error "this test checks that the C API compiles as C"
#endif

static const char *kModule =
    "func.func @decode(%x: tensor<4x8x16xf32>, %dt: tensor<4x8xf32>,\n"
    "    %A: tensor<8xf32>, %B: tensor<4x2x32xf32>, %C: tensor<4x2x32xf32>,\n"
    "    %pool: memref<6x8x16x32xf32>, %qsl: tensor<5xi32>,\n"
    "    %slots: tensor<4xi32>) -> tensor<4x8x16xf32> {\n"
    "  %y = ssd.chunk_scan_varlen x(%x : tensor<4x8x16xf32>)\n"
    "      dt(%dt : tensor<4x8xf32>) A(%A : tensor<8xf32>)\n"
    "      B(%B : tensor<4x2x32xf32>) C(%C : tensor<4x2x32xf32>)\n"
    "      ssm_pool(%pool : memref<6x8x16x32xf32>)\n"
    "      query_start_loc(%qsl : tensor<5xi32>)\n"
    "      cache_indices(%slots : tensor<4xi32>) -> tensor<4x8x16xf32>\n"
    "  return %y : tensor<4x8x16xf32>\n"
    "}\n";

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Counts the ops of a dialect in the module (walks its first region). */
static int countOps(MlirOperation op, const char *prefix, size_t length) {
  int count = 0;
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef s = mlirIdentifierStr(name);
  if (s.length > length && !strncmp(s.data, prefix, length))
    ++count;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        count += countOps(o, prefix, length);
  }
  return count;
}

static MlirLogicalResult runPipeline(MlirContext ctx, MlirModule module,
                                     const char *text) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString(text), print, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    printf("\n");
    mlirPassManagerDestroy(pm);
    return parsed;
  }
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  return ran;
}

int main(void) {
  MlirDialectHandle ssd = mlirGetDialectHandle__ssd__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(ssd);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK: namespace: ssd

  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirSSDRegisterDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(ssd, ctx);
  mlirSSDRegisterPasses();
  mlirSSDRegisterPasses(); /* twice is harmless */

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  MlirOperation top = mlirModuleGetOperation(module);
  printf("parsed: ssd ops %d, verifies %d\n", countOps(top, "ssd.", 4),
         (int)mlirOperationVerify(top));
  // CHECK-NEXT: parsed: ssd ops 1, verifies 1

  if (mlirLogicalResultIsFailure(
          runPipeline(ctx, module, "builtin.module(ssd-to-cpu)"))) {
    printf("ssd-to-cpu failed\n");
    return 1;
  }
  printf("ssd-to-cpu: ssd ops %d, llvm ops > 0: %d\n", countOps(top, "ssd.", 4),
         countOps(top, "llvm.", 5) > 0);
  // CHECK-NEXT: ssd-to-cpu: ssd ops 0, llvm ops > 0: 1
  mlirOperationPrint(top, print, NULL);
  printf("\n");
  // CHECK: module
  // CHECK-NOT: ssd.chunk_scan_varlen
  // CHECK: llvm.func @decode(
  // CHECK-NOT: ssd.chunk_scan_varlen

  /* A pipeline option the pipeline does not have: an error, not an abort. */
  MlirModule again =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  MlirLogicalResult bad =
      runPipeline(ctx, again, "builtin.module(ssd-to-cpu{no-such-option=1})");
  printf("bad option: %s\n", mlirLogicalResultIsFailure(bad) ? "failed" : "ok");
  // CHECK: no-such-option
  // CHECK: bad option: failed
  mlirModuleDestroy(again);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  printf("done\n");
  // CHECK: done
  return 0;
}
