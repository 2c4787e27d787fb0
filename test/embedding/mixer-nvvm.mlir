// The Mamba-2 mixer example compiles end to end for the GPU with the same
// pipeline as a lone op: the scan's kernels, the skip and gating as a mapped
// parallel-loop kernel, every buffer on the device, PTX for sm_90a.
// RUN: env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT ssd-opt %S/../../examples/mamba2-mixer/mixer.mlir --ssd-to-nvvm -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=BINARY < %t.mlir
// BINARY:    gpu.binary
// CHECK:     llvm.func @mamba2_mixer_ssm(
// CHECK-NOT: llvm.call @malloc
// CHECK:       llvm.call @mgpuMemAlloc
// CHECK:       gpu.launch_func
