// RUN: ssd-opt %s --pass-pipeline='builtin.module(gpu.module(ssd-extern-dynamic-shared-memory))' | FileCheck %s
// What the NVPTX backend prints for it (`.extern .shared .align 16 .b8
// __dynamic_shmem__0[];`) is checked in test/Pipelines/ssd-to-nvvm.mlir.

// What convert-gpu-to-nvvm makes of gpu.dynamic_shared_memory becomes an
// external declaration with its alignment; a sized shared buffer, a
// zero-length array in global memory and a declaration already external
// are left as they were.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG:   llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG:   llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<256 x i8>
// CHECK-DAG:   llvm.mlir.global internal @empty_global() {addr_space = 1 : i32, dso_local} : !llvm.array<0 x i8>
// CHECK-DAG:   llvm.mlir.global external @already() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<0 x i8>
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<256 x i8>
  llvm.mlir.global internal @empty_global() {addr_space = 1 : i32, dso_local} : !llvm.array<0 x i8>
  llvm.mlir.global external @already() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
  llvm.func @use() -> !llvm.ptr<3> {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    llvm.return %0 : !llvm.ptr<3>
  }
}
