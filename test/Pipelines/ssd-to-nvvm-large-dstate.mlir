// The serial GPU kernel at the op's largest dstate (2^20, SSDLimits.h
// kMaxDState; issue 40: the kernel unrolled dstate, so this op passed 12 GB
// of memory within 74 s in --ssd-to-nvvm, and took 28 s at 65,536). Past 64
// state values a lane (dstate 512 at the default 4 rows a warp) the kernel
// walks dstate in a loop of 256-column pieces: the same code whatever
// dstate is, so the whole pipeline takes a quarter of a second here (the
// timeout leaves room for a loaded machine and the sanitizer build), and
// ptxas assembles both kernels without spills. The numbers:
// test/numeric/large-dstate.test.
//
// RUN: timeout 120 ssd-opt %s --ssd-to-nvvm -o %t.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.mlir
// RUN: ssd-opt %s --ssd-plan-gpu-kernels --ssd-lower-to-gpu | FileCheck %s
// RUN: %if ptxas %{ %extract_ptx %t.mlir %t --assemble %ptxas sm_90a | FileCheck %s --check-prefix=SPILLS %}
//
// The host code carves y's sums over the pieces, [T, H, P] f32, from the
// call's workspace after the contested writers' flags.
// CHECK-LABEL: func.func @large_dstate
// CHECK:       %[[WS:.*]] = func.call @ssdGPUWorkspace
// CHECK:       memref.view %[[WS]]{{.*}} to memref<?xi32>
// CHECK:       %[[SUMS:.*]] = memref.view %[[WS]]{{.*}} to memref<?x2x4xf32>
// The first launch: 4096 pieces of 256 columns, each with its own token
// loop carrying 4 rows x 2 vectors of 4 columns (32 values) a lane; the
// sums over the pieces go through the workspace.
// CHECK:       gpu.launch
// CHECK:         %[[PIECES:.*]] = arith.constant 4096 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[PIECES]] step
// CHECK-NEXT:      arith.constant 256 : index
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:             memref.load %[[SUMS]]
// CHECK:             memref.store {{.*}}, %[[SUMS]]
// CHECK:       gpu.terminator
// The contested writers' launch scans the same way.
// CHECK:       gpu.launch
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           %[[PIECES2:.*]] = arith.constant 4096 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[PIECES2]] step
// CHECK:       gpu.terminator
// CHECK-NOT:   gpu.launch
//
// PTX: gpu.binary
// PTX-SAME: .target sm_90a
// SPILLS-COUNT-2: registers={{[0-9]+}} spill-stores=0 spill-loads=0
// SPILLS-NOT: registers=

func.func @large_dstate(%x: memref<?x2x4xbf16>, %dt: memref<?x2xbf16>, %A: memref<2xbf16>,
    %B: memref<?x1x1048576xbf16>, %C: memref<?x1x1048576xbf16>, %D: memref<2xbf16>,
    %bias: memref<2xbf16>, %pool: memref<?x2x4x1048576xf32>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %upd: memref<?xi1>, %y: memref<?x2x4xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x4xbf16>) dt(%dt : memref<?x2xbf16>)
      A(%A : memref<2xbf16>) B(%B : memref<?x1x1048576xbf16>) C(%C : memref<?x1x1048576xbf16>)
      D(%D : memref<2xbf16>) dt_bias(%bias : memref<2xbf16>)
      ssm_pool(%pool : memref<?x2x4x1048576xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      update_state(%upd : memref<?xi1>) outs(%y : memref<?x2x4xbf16>) {form = #ssd<form serial>}
  return
}
