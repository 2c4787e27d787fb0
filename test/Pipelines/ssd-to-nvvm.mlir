// RUN: ssd-opt %s --ssd-to-nvvm -o %t.mlir
// RUN: FileCheck %s --check-prefix=TARGET < %t.mlir
// RUN: FileCheck %s --check-prefix=MMA < %t.mlir
// RUN: FileCheck %s --check-prefix=EXP < %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: FileCheck %s --check-prefix=NOLIBDEVICE < %t.mlir
// RUN: FileCheck %s --check-prefix=SHMEM < %t.mlir
// RUN: ssd-opt %s --ssd-to-nvvm="chip=sm_80 form=chunked" | FileCheck %s --check-prefix=SM80
// RUN: ssd-opt %s --ssd-to-nvvm="chip=sm_90 form=chunked" | FileCheck %s --check-prefix=SM90
// RUN: not ssd-opt %s --ssd-to-nvvm="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not ssd-opt %s --ssd-to-nvvm="format=cubin" 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// RUN: not env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT PATH=/usr/bin:/bin ssd-opt %s --ssd-to-nvvm="format=bin" 2>&1 | FileCheck %s --check-prefix=NOPTXAS

// From the tensor form with dynamic T and batch to host code in the LLVM
// dialect plus one gpu.binary per kernel holding PTX (format=isa needs no
// CUDA toolkit). Both forms are compiled behind the runtime branch.

// TARGET:      gpu.binary @{{.*}} [#gpu.object<#nvvm.target<{{(O = [0-9], )?}}chip = "sm_90a", features = "+ptx80"
// TARGET-SAME:   assembly = "
// TARGET-SAME:   .version 8.0
// TARGET-SAME:   .target sm_90a
// The chunked kernels run their matmuls on tensor cores: on sm_90a (the
// default chip) all of them by warpgroup MMA at these shapes (C·Bᵀ in
// m64n32 halves, two warpgroups in a block of one head; dS and y in
// m64n64 halves), no mma.sync left; sm_80 (below) has mma.sync
// only.
// MMA-NOT:     mma.sync.aligned
// MMA:         wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// MMA:         wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// MMA-NOT:     mma.sync.aligned
// exp/log are the PTX approximations, so nothing is left for libdevice.
// EXP:         ex2.approx.ftz.f32
// EXP:         lg2.approx.f32
// NOLIBDEVICE-NOT: .extern .func
// NOLIBDEVICE-NOT: __nv_
// The chunk kernel's dynamic shared memory is PTX's extern of unknown size
// (ssd-extern-dynamic-shared-memory), not a one-byte variable that every
// access past its first byte would overrun.
// SHMEM:     .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// SHMEM-NOT: .shared .align 16 .b8 __dynamic_shmem__0;
// HOST:        llvm.func @prefill(
// HOST:          llvm.call @mgpuMemAlloc
// HOST:          gpu.launch_func
// HOST:          llvm.call @mgpuStreamSynchronize
// HOST:          llvm.call @mgpuMemFree
// HOST-NOT:    ssd.

// SM80:      #nvvm.target<{{(O = [0-9], )?}}chip = "sm_80", features = "+ptx70"
// SM80-SAME: .target sm_80
// SM80-NOT:  wgmma
// SM80:      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80-NOT:  wgmma
// wgmma is in sm_90a's architecture-specific PTX only.
// SM90:      .target sm_90
// SM90-NOT:  wgmma

// BADCHIP: for the --chip option: unknown value 'sm_75' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// BADFORMAT: for the --format option: unknown value 'cubin' (expected isa, bin or fatbin)
// NOPTXAS: error: Couldn't find the `ptxas` binary
func.func @prefill(%x: tensor<?x8x64xbf16>, %dt: tensor<?x8xbf16>, %A: tensor<8xbf16>,
    %B: tensor<?x2x128xbf16>, %C: tensor<?x2x128xbf16>, %D: tensor<8xbf16>, %bias: tensor<8xbf16>,
    %pool: memref<?x8x64x128xf32>, %qsl: tensor<?xi32>, %ci: tensor<?xi32>) -> tensor<?x8x64xbf16> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<?x8x64xbf16>) dt(%dt : tensor<?x8xbf16>) A(%A : tensor<8xbf16>)
      B(%B : tensor<?x2x128xbf16>) C(%C : tensor<?x2x128xbf16>) D(%D : tensor<8xbf16>)
      dt_bias(%bias : tensor<8xbf16>) ssm_pool(%pool : memref<?x8x64x128xf32>)
      query_start_loc(%qsl : tensor<?xi32>) cache_indices(%ci : tensor<?xi32>) -> tensor<?x8x64xbf16>
  return %y : tensor<?x8x64xbf16>
}
