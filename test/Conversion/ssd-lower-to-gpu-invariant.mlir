// Invariant ops (docs/overview.md) on the GPU: whatever their form, they run
// the invariant serial kernel, which computes the canonical per-token
// arithmetic of ScanEmitter/CanonicalMath.h: llvm.fma where it says fma,
// every other product and sum without fast-math flags (NVPTX may contract
// nothing), its own exp and log1p (no PTX approximations, no math ops, which
// would become libdevice calls), lane l owning columns l + 32 j (scalar
// accesses), the warp's xor butterfly as the 32-partial tree, and NaNs made
// canonical before every store.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -gpu-kernel-outlining -split-input-file | FileCheck %s --check-prefix=NAMES
// Nothing anywhere in the output (both ops are invariant) carries fast-math
// flags, approximates, calls libdevice-bound math ops or uses tensor cores.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file | not grep -E 'fastmath|nvvm\.(ex2|lg2|rcp|mma)|math\.'
// The plan of an invariant op records the serial tiling only, whatever its
// form.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -split-input-file | FileCheck %s --check-prefix=PLAN

// A chunked-form f32 op with everything (D, dt_bias, has_initial_state):
// the two serial launches (readers, then the contested writers), no tensor
// cores, nothing contractable.
// CHECK-LABEL: func.func @chunked_form
// CHECK:       gpu.launch {{.*}} function(@ssd_scan_invariant)
// CHECK:         scf.for
// CHECK:           llvm.intr.fma
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           arith.cmpf uno
// CHECK:           memref.store {{.*}} : memref<?x4x64xf32>
// CHECK:         arith.cmpf uno
// CHECK:         vector.store %{{.*}} : memref<?x4x64x128xf32>, vector<1xf32>
// CHECK:       gpu.launch {{.*}} function(@ssd_scan_invariant)
// CHECK-NOT:   gpu.launch
// CHECK:       return
// PLAN-LABEL:  func.func @chunked_form
// PLAN:        {config = #ssd.scan_config<form = chunked, chunk_size = 128, invariant = true, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4>, form = #ssd<form chunked>}
// NAMES-LABEL: func.func @chunked_form
// NAMES-COUNT-2: gpu.launch_func @ssd_scan_invariant{{[_0-9]*}}::@ssd_scan_invariant
// NAMES:       gpu.func @ssd_scan_invariant
func.func @chunked_form(%x: memref<?x4x64xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x128xf32>, %D: memref<4xf32>, %bias: memref<4xf32>,
    %pool: memref<?x4x64x128xf32>, %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>,
    %y: memref<?x4x64xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x64xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x128xf32>) C(%B : memref<?x1x128xf32>) D(%D : memref<4xf32>)
      dt_bias(%bias : memref<4xf32>) ssm_pool(%pool : memref<?x4x64x128xf32>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x64xf32>)
      {form = #ssd<form chunked>, config = #ssd.scan_config<form = chunked, chunk_size = 128, invariant = true>}
  return
}

// -----

// Without has_initial_state there is one launch. dstate 100 is not a
// multiple of 32:
// columns past it leave the lane's partial as it was (a select, not an fma
// with zero). bf16 model and pool: y and the state are rounded to bf16 and a
// NaN is then replaced by bf16's quiet NaN 0x7FC0 (NVPTX's cvt.rn.bf16.f32
// writes 0x7FFF for every NaN, the CPU 0x7FC0; an H200 showed both).
// CHECK-LABEL: func.func @serial_ragged
// CHECK:       gpu.launch {{.*}} function(@ssd_scan_invariant)
// CHECK:         scf.for
// CHECK:           llvm.intr.fma
// CHECK:           arith.select
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           %[[YNAN:.*]] = arith.cmpf uno, %[[Y:.*]], %[[Y]] : f32
// CHECK:           %[[Q:.*]] = arith.constant 0x7FC0 : bf16
// CHECK:           %[[YB:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK:           %[[YS:.*]] = arith.select %[[YNAN]], %[[Q]], %[[YB]] : bf16
// CHECK:           memref.store %[[YS]]
// CHECK:         %[[SNAN:.*]] = arith.cmpf uno, %[[S:.*]], %[[S]] : vector<1xf32>
// CHECK:         %[[QV:.*]] = arith.constant dense<0x7FC0> : vector<1xbf16>
// CHECK:         %[[SB:.*]] = arith.truncf %[[S]] : vector<1xf32> to vector<1xbf16>
// CHECK:         %[[SS:.*]] = arith.select %[[SNAN]], %[[QV]], %[[SB]]
// CHECK:         vector.store %[[SS]]
// CHECK-NOT:   gpu.launch
// CHECK:       return
// PLAN-LABEL:  func.func @serial_ragged
// PLAN:        {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4>, form = #ssd<form serial>}
func.func @serial_ragged(%x: memref<?x4x64xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x100xbf16>, %pool: memref<?x4x64x100xbf16>, %qsl: memref<?xi32>,
    %ci: memref<?xi32>, %y: memref<?x4x64xbf16>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x64xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x100xbf16>) C(%B : memref<?x1x100xbf16>)
      ssm_pool(%pool : memref<?x4x64x100xbf16>)
      query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x64xbf16>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
  return
}

// -----

// A hand-pinned invariant op without a config (what ssd-select-form
// invariant=true leaves on an op whose form was pinned): its plan keeps the
// mark, and it runs the invariant kernel.
// CHECK-LABEL: func.func @pinned_without_config
// CHECK:       gpu.launch {{.*}} function(@ssd_scan_invariant)
// PLAN-LABEL:  func.func @pinned_without_config
// PLAN:        config = #ssd.scan_config<form = chunked, chunk_size = 32, invariant = true, chip = "sm_90", serial_rows_per_warp = 4, serial_warps_per_block = 4>
func.func @pinned_without_config(%x: memref<8x4x16xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x32xf32>, %pool: memref<16x4x16x32xf32>, %qsl: memref<9xi32>,
    %ci: memref<8xi32>, %y: memref<8x4x16xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<8x4x16xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x32xf32>) C(%B : memref<8x1x32xf32>) ssm_pool(%pool : memref<16x4x16x32xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x16xf32>)
      {form = #ssd<form chunked>, chunk_size = 32 : i64}
  return
}
