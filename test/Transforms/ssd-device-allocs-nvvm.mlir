// RUN: ssd-opt %ssd_src_root/examples/mamba2-prefill-tensor.mlir --ssd-to-nvvm | FileCheck %s --check-prefix=PREFILL --implicit-check-not=memrefCopy
// RUN: ssd-opt %s --ssd-to-nvvm | FileCheck %s --implicit-check-not=memrefCopy

// Through the whole of --ssd-to-nvvm, the host code touches no buffer: y
// of a tensor-form scan (form chosen at run time) is copied out of the
// scf.if result with a device copy, not the host's memrefCopy.

// PREFILL-LABEL: llvm.func @mamba2_prefill(
// PREFILL:         llvm.call @mgpuMemcpy(
// PREFILL:         llvm.return
// PREFILL:       llvm.func @mgpuMemcpy(

// A, D and dt_bias held as constants, as a graph compiler does: each global
// gets a device copy at entry, the kernels read those, and they are freed
// at the return.

// CHECK-LABEL: llvm.func @prefill_with_constants(
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:         %[[DEV_A:.*]] = llvm.call @mgpuMemAlloc({{.*}}, %[[STREAM]], {{.*}})
// CHECK-NEXT:    llvm.call @mgpuMemcpy(%[[DEV_A]], %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK:         %[[DEV_D:.*]] = llvm.call @mgpuMemAlloc({{.*}}, %[[STREAM]], {{.*}})
// CHECK-NEXT:    llvm.call @mgpuMemcpy(%[[DEV_D]], %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK:         %[[DEV_BIAS:.*]] = llvm.call @mgpuMemAlloc({{.*}}, %[[STREAM]], {{.*}})
// CHECK-NEXT:    llvm.call @mgpuMemcpy(%[[DEV_BIAS]], %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK:         llvm.cond_br
// CHECK:         llvm.call @mgpuMemFree(%[[DEV_A]],
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[DEV_D]],
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[DEV_BIAS]],
// CHECK:         llvm.return
func.func @prefill_with_constants(
    %x: tensor<?x80x64xbf16>, %dt: tensor<?x80xbf16>,
    %B: tensor<?x1x128xbf16>, %C: tensor<?x1x128xbf16>, %pool: memref<?x80x64x128xf32>,
    %query_start_loc: tensor<?xi32>, %cache_indices: tensor<?xui32>)
    -> tensor<?x80x64xbf16> {
  %A = arith.constant dense<-1.0> : tensor<80xbf16>
  %D = arith.constant dense<1.0> : tensor<80xbf16>
  %dt_bias = arith.constant dense<0.5> : tensor<80xbf16>
  %y = ssd.chunk_scan_varlen
      x(%x : tensor<?x80x64xbf16>) dt(%dt : tensor<?x80xbf16>)
      A(%A : tensor<80xbf16>) B(%B : tensor<?x1x128xbf16>)
      C(%C : tensor<?x1x128xbf16>) D(%D : tensor<80xbf16>)
      dt_bias(%dt_bias : tensor<80xbf16>)
      ssm_pool(%pool : memref<?x80x64x128xf32>)
      query_start_loc(%query_start_loc : tensor<?xi32>)
      cache_indices(%cache_indices : tensor<?xui32>)
      -> tensor<?x80x64xbf16>
  return %y : tensor<?x80x64xbf16>
}
