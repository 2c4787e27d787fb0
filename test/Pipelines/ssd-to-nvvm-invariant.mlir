// The invariant kernels' PTX (issue 41): every rounding is the one written
// in ScanEmitter/CanonicalMath.h. fma.rn.f32 where it says fma; every other
// f32 add, subtract and multiply carries .rn, which also keeps ptxas from
// fusing them; no .approx (ex2, lg2, rcp) or .ftz anywhere, and no calls
// (libdevice's __nv_ functions). Both kernels (the readers' launch and the
// contested writers') of a chunked-form bf16 op with D, dt_bias and
// has_initial_state; its exp and log1p are the project's own. NVPTX alone
// writes the PTX; ptxas, where present, assembles it without spills, also
// at the largest dstate (2048: one row a warp, 64 columns a lane).
//
// RUN: ssd-opt %s --ssd-to-nvvm -o %t.mlir
// RUN: rm -rf %t && %extract_ptx %t.mlir %t | FileCheck %s --check-prefix=FILES
// RUN: cat %t/*.ptx | FileCheck %s
// RUN: not grep -E '\.approx|\.ftz|__nv_|^\s*call|\s(add|sub|mul|fma|div)\.f32' %t/*.ptx
// RUN: %if ptxas %{ %extract_ptx %t.mlir %t --assemble %ptxas sm_90a | FileCheck %s --check-prefix=SPILLS %}
//
// FILES-COUNT-4: ssd_scan_invariant{{.*}}.ptx
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: add.rn.f32
// CHECK-DAG: cvt.rn.bf16.f32
// SPILLS-COUNT-4: ssd_scan_invariant: registers={{[0-9]+}} spill-stores=0 spill-loads=0

func.func @invariant(%x: memref<?x4x64xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %C: memref<?x1x128xbf16>, %D: memref<4xbf16>,
    %bias: memref<4xbf16>, %pool: memref<?x4x64x128xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x64xbf16>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x64xbf16>) dt(%dt : memref<?x4xbf16>)
      A(%A : memref<4xbf16>) B(%B : memref<?x1x128xbf16>) C(%C : memref<?x1x128xbf16>)
      D(%D : memref<4xbf16>) dt_bias(%bias : memref<4xbf16>)
      ssm_pool(%pool : memref<?x4x64x128xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x64xbf16>) {config = #ssd.scan_config<form = chunked, chunk_size = 128, invariant = true>}
  return
}

func.func @invariant_largest(%x: memref<?x4x64xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x2048xf32>, %C: memref<?x1x2048xf32>, %D: memref<4xf32>,
    %pool: memref<?x4x64x2048xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x64xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x64xf32>) dt(%dt : memref<?x4xf32>)
      A(%A : memref<4xf32>) B(%B : memref<?x1x2048xf32>) C(%C : memref<?x1x2048xf32>)
      D(%D : memref<4xf32>)
      ssm_pool(%pool : memref<?x4x64x2048xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x64xf32>) {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
  return
}
