// The lower end of every bounded integer option of the passes and
// pipelines (option-ranges.mlir: the upper ends, and the message's
// wording). A value below an option's minimum, 0 where the minimum is 1
// and -1 for every option, is refused before any pass runs. Each case
// checks what the refusal does, not how it is worded:
//  - the exit status is a failure and no crash (`not` fails on a signal:
//    with its minimum widened to 0, serial-rows-per-warp=0 reached the
//    lowering and ended in SIGFPE);
//  - no pass ran and nothing was written: --mlir-print-ir-before-all prints
//    no pass's input, and no IR comes out;
//  - one error line names the option and the value.
// At the minimum every pass and pipeline runs (the end of the file).
//
// DEFINE: %{refused} = not ssd-opt %s --mlir-print-ir-before-all
//
// ssd-select-form: chunk-size from 1, the thresholds from 0.
// RUN: %{refused} --ssd-select-form=chunk-size=0 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=0
// RUN: %{refused} --ssd-select-form=chunk-size=-1 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=-1
// RUN: %{refused} --ssd-select-form=min-chunked-tokens=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens -DVALUE=-1
// RUN: %{refused} --ssd-select-form=min-chunked-tokens-per-seq=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens-per-seq -DVALUE=-1
//
// ssd-lower-to-loops: serial-p-tile from 1, vector-width from 0 (the
// host's).
// RUN: %{refused} --ssd-lower-to-loops=serial-p-tile=0 2>&1 | FileCheck %s -DOPTION=serial-p-tile -DVALUE=0
// RUN: %{refused} --ssd-lower-to-loops=serial-p-tile=-1 2>&1 | FileCheck %s -DOPTION=serial-p-tile -DVALUE=-1
// RUN: %{refused} --ssd-lower-to-loops=vector-width=-1 2>&1 | FileCheck %s -DOPTION=vector-width -DVALUE=-1
//
// ssd-plan-gpu-kernels (ssd-lower-to-gpu has no options): every one from 1.
// RUN: %{refused} --ssd-plan-gpu-kernels=serial-rows-per-warp=0 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=0
// RUN: %{refused} --ssd-plan-gpu-kernels=serial-rows-per-warp=-1 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=-1
// RUN: %{refused} --ssd-plan-gpu-kernels=serial-warps-per-block=0 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=0
// RUN: %{refused} --ssd-plan-gpu-kernels=serial-warps-per-block=-1 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=-1
// RUN: %{refused} --ssd-plan-gpu-kernels=shared-memory-limit=0 2>&1 | FileCheck %s -DOPTION=shared-memory-limit -DVALUE=0
// RUN: %{refused} --ssd-plan-gpu-kernels=shared-memory-limit=-1 2>&1 | FileCheck %s -DOPTION=shared-memory-limit -DVALUE=-1
// RUN: %{refused} --ssd-plan-gpu-kernels=heads-per-block=0 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=0
// RUN: %{refused} --ssd-plan-gpu-kernels=heads-per-block=-1 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=-1
//
// ssd-attach-gpu-emulator-target: O from 0.
// RUN: %{refused} --ssd-attach-gpu-emulator-target=O=-1 2>&1 | FileCheck %s -DOPTION=O -DVALUE=-1
//
// ssd-to-cpu: its form and loop options.
// RUN: %{refused} --ssd-to-cpu=chunk-size=0 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=0
// RUN: %{refused} --ssd-to-cpu=chunk-size=-1 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=-1
// RUN: %{refused} --ssd-to-cpu=min-chunked-tokens=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens -DVALUE=-1
// RUN: %{refused} --ssd-to-cpu=min-chunked-tokens-per-seq=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens-per-seq -DVALUE=-1
// RUN: %{refused} --ssd-to-cpu=serial-p-tile=0 2>&1 | FileCheck %s -DOPTION=serial-p-tile -DVALUE=0
// RUN: %{refused} --ssd-to-cpu=serial-p-tile=-1 2>&1 | FileCheck %s -DOPTION=serial-p-tile -DVALUE=-1
// RUN: %{refused} --ssd-to-cpu=vector-width=-1 2>&1 | FileCheck %s -DOPTION=vector-width -DVALUE=-1
//
// ssd-to-nvvm and ssd-to-gpu-emulator: their form, tiling and opt-level
// options.
// RUN: %{refused} --ssd-to-nvvm=chunk-size=0 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=0
// RUN: %{refused} --ssd-to-nvvm=chunk-size=-1 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=min-chunked-tokens=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=min-chunked-tokens-per-seq=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens-per-seq -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=serial-rows-per-warp=0 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=0
// RUN: %{refused} --ssd-to-nvvm=serial-rows-per-warp=-1 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=serial-warps-per-block=0 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=0
// RUN: %{refused} --ssd-to-nvvm=serial-warps-per-block=-1 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=heads-per-block=0 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=0
// RUN: %{refused} --ssd-to-nvvm=heads-per-block=-1 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=-1
// RUN: %{refused} --ssd-to-nvvm=opt-level=-1 2>&1 | FileCheck %s -DOPTION=opt-level -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=chunk-size=0 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=0
// RUN: %{refused} --ssd-to-gpu-emulator=chunk-size=-1 2>&1 | FileCheck %s -DOPTION=chunk-size -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=min-chunked-tokens=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=min-chunked-tokens-per-seq=-1 2>&1 | FileCheck %s -DOPTION=min-chunked-tokens-per-seq -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=serial-rows-per-warp=0 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=0
// RUN: %{refused} --ssd-to-gpu-emulator=serial-rows-per-warp=-1 2>&1 | FileCheck %s -DOPTION=serial-rows-per-warp -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=serial-warps-per-block=0 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=0
// RUN: %{refused} --ssd-to-gpu-emulator=serial-warps-per-block=-1 2>&1 | FileCheck %s -DOPTION=serial-warps-per-block -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=heads-per-block=0 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=0
// RUN: %{refused} --ssd-to-gpu-emulator=heads-per-block=-1 2>&1 | FileCheck %s -DOPTION=heads-per-block -DVALUE=-1
// RUN: %{refused} --ssd-to-gpu-emulator=opt-level=-1 2>&1 | FileCheck %s -DOPTION=opt-level -DVALUE=-1
//
// ssd-gpu-lower-to-emulator: opt-level from 0.
// RUN: %{refused} --ssd-gpu-lower-to-emulator=opt-level=-1 2>&1 | FileCheck %s -DOPTION=opt-level -DVALUE=-1
//
// CHECK-NOT: {{IR Dump|func.func}}
// CHECK: error: {{.*}}[[OPTION]]{{.*[^0-9-]}}[[VALUE]]{{([^0-9]|$)}}
// CHECK-NOT: {{IR Dump|func.func|error}}

// At the minimum each pass and pipeline runs; the first shows what the
// refusals' checks look for when a pass does run.
// RUN: ssd-opt %s --mlir-print-ir-before-all \
// RUN:   --ssd-plan-gpu-kernels="serial-rows-per-warp=1 serial-warps-per-block=1 shared-memory-limit=1 heads-per-block=1" \
// RUN:   --ssd-lower-to-gpu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPU
// RUN: ssd-opt %s --ssd-select-form="chunk-size=1 min-chunked-tokens=0 min-chunked-tokens-per-seq=0" | FileCheck %s --check-prefix=SELECT
// RUN: ssd-opt %s --ssd-lower-to-loops="serial-p-tile=1 vector-width=0" | FileCheck %s --check-prefix=LOOPS
// RUN: ssd-opt %s --ssd-to-cpu="chunk-size=1 min-chunked-tokens=0 min-chunked-tokens-per-seq=0 serial-p-tile=1 vector-width=0" \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: ssd-opt %s --ssd-to-nvvm="chunk-size=1 min-chunked-tokens=0 min-chunked-tokens-per-seq=0 serial-rows-per-warp=1 serial-warps-per-block=1 heads-per-block=1 opt-level=0" \
// RUN:   | FileCheck %s --check-prefix=BINARY
// RUN: ssd-opt %s --ssd-to-gpu-emulator="chunk-size=1 min-chunked-tokens=0 min-chunked-tokens-per-seq=0 serial-rows-per-warp=1 serial-warps-per-block=1 heads-per-block=1 opt-level=0" \
// RUN:   | FileCheck %s --check-prefix=BINARY
// RUN: ssd-opt %s --ssd-plan-gpu-kernels --ssd-lower-to-gpu | ssd-opt --ssd-gpu-lower-to-emulator=opt-level=0 | FileCheck %s --check-prefix=BINARY
// RUN: ssd-opt %s --ssd-plan-gpu-kernels --ssd-lower-to-gpu --gpu-kernel-outlining | ssd-opt --ssd-attach-gpu-emulator-target=O=0 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// GPU: IR Dump Before {{.*}}(ssd-lower-to-gpu)
// GPU: ssd.chunk_scan_varlen
// GPU-NOT: ssd.chunk_scan_varlen
// GPU: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}})
// SELECT: ssd.chunk_scan_varlen
// LOOPS-NOT: ssd.chunk_scan_varlen
// LOOPS: scf.parallel
// CPU-NOT: ssd.chunk_scan_varlen
// CPU: llvm.func @decode
// BINARY: gpu.binary
// TARGET: gpu.module @{{.*}} [#ssd.gpu_emulator_target<O = 0>]

func.func @decode(%x: memref<4x2x8xf32>, %dt: memref<4x2xf32>, %A: memref<2xf32>, %B: memref<4x1x8xf32>, %C: memref<4x1x8xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<4x2x8x8xf32>, %query_start_loc: memref<5xi32>, %cache_indices: memref<4xi32>, %y: memref<4x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<4x2x8xf32>) dt(%dt : memref<4x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<4x1x8xf32>) C(%C : memref<4x1x8xf32>) dt_bias(%dt_bias : memref<2xf32>)
      ssm_pool(%ssm_pool : memref<4x2x8x8xf32>) query_start_loc(%query_start_loc : memref<5xi32>)
      cache_indices(%cache_indices : memref<4xi32>) outs(%y : memref<4x2x8xf32>) {form = #ssd<form serial>}
  return
}
