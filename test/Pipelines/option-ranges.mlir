// Every integer option of every pass and pipeline has a documented range
// (issue 18: serial-rows-per-warp=2147483647 ran for minutes). A value one
// past either end is one line naming the pass or pipeline, the option, the
// range and the value, before any op is touched; the largest value works.
// The ranges: include/ssd/Support/SettingRanges.h, each defined once;
// docs/pipeline.md lists them.
//
// DEFINE: %{bad} = not ssd-opt %s -o /dev/null 2>&1
//
// ssd-select-form (and through it every pipeline's form options).
// RUN: %{bad} --ssd-select-form=chunk-size=65537 | FileCheck %s --check-prefix=CHUNK
// RUN: %{bad} --ssd-select-form=min-chunked-tokens=2147483648 | FileCheck %s --check-prefix=TOKENS
// RUN: %{bad} --ssd-select-form=min-chunked-tokens=-1 | FileCheck %s --check-prefix=TOKENS-NEG
// RUN: %{bad} --ssd-select-form=min-chunked-tokens-per-seq=2147483648 | FileCheck %s --check-prefix=PER-SEQ
// RUN: %{bad} --ssd-to-cpu=chunk-size=9223372036854775807 | FileCheck %s --check-prefix=CHUNK-MAX
// RUN: %{bad} --ssd-to-nvvm=min-chunked-tokens=2147483648 | FileCheck %s --check-prefix=TOKENS
// RUN: %{bad} --ssd-to-gpu-emulator=min-chunked-tokens-per-seq=2147483648 | FileCheck %s --check-prefix=PER-SEQ
// CHUNK: error: ssd-select-form: chunk-size must be in [1, 65536], got 65537
// TOKENS: error: ssd-select-form: min-chunked-tokens must be in [0, 2147483647], got 2147483648
// TOKENS-NEG: error: ssd-select-form: min-chunked-tokens must be in [0, 2147483647], got -1
// PER-SEQ: error: ssd-select-form: min-chunked-tokens-per-seq must be in [0, 2147483647], got 2147483648
// CHUNK-MAX: error: ssd-select-form: chunk-size must be in [1, 65536], got 9223372036854775807
//
// ssd-lower-to-loops (and --ssd-to-cpu).
// RUN: %{bad} --ssd-lower-to-loops=serial-p-tile=1025 | FileCheck %s --check-prefix=PTILE
// RUN: %{bad} --ssd-lower-to-loops=vector-width=128 | FileCheck %s --check-prefix=WIDTH
// RUN: %{bad} --ssd-to-cpu=serial-p-tile=1025 | FileCheck %s --check-prefix=PTILE
// RUN: %{bad} --ssd-to-cpu=vector-width=9223372036854775807 | FileCheck %s --check-prefix=WIDTH-MAX
// PTILE: error: ssd-lower-to-loops: serial-p-tile must be in [1, 1024], got 1025
// WIDTH: error: ssd-lower-to-loops: vector-width must be 0 (the host's) or a power of two up to 64, got 128
// WIDTH-MAX: error: ssd-lower-to-loops: vector-width must be 0 (the host's) or a power of two up to 64, got 9223372036854775807
//
// ssd-plan-gpu-kernels (and the GPU pipelines); ssd-lower-to-gpu has no
// options (its input is the plan).
// RUN: %{bad} --ssd-plan-gpu-kernels=serial-rows-per-warp=33 | FileCheck %s --check-prefix=ROWS
// RUN: %{bad} --ssd-plan-gpu-kernels=serial-rows-per-warp=2147483647 | FileCheck %s --check-prefix=ROWS-ISSUE
// RUN: %{bad} --ssd-plan-gpu-kernels=serial-warps-per-block=33 | FileCheck %s --check-prefix=WARPS
// RUN: %{bad} --ssd-plan-gpu-kernels=shared-memory-limit=232449 | FileCheck %s --check-prefix=SHARED
// RUN: %{bad} --ssd-plan-gpu-kernels=heads-per-block=3 | FileCheck %s --check-prefix=HEADS
// RUN: %{bad} --ssd-plan-gpu-kernels="chip=sm_80 matmul=wgmma" | FileCheck %s --check-prefix=WGMMA
// RUN: %{bad} --ssd-plan-gpu-kernels=pipeline-stages=1 | FileCheck %s --check-prefix=STAGES-LOW
// RUN: %{bad} --ssd-to-gpu-emulator=pipeline-stages=5 | FileCheck %s --check-prefix=STAGES
// RUN: %{bad} --ssd-to-nvvm=serial-rows-per-warp=33 | FileCheck %s --check-prefix=ROWS
// RUN: %{bad} --ssd-to-nvvm=heads-per-block=3 | FileCheck %s --check-prefix=HEADS
// RUN: %{bad} --ssd-to-gpu-emulator=serial-warps-per-block=9223372036854775807 | FileCheck %s --check-prefix=WARPS-MAX
// RUN: %{bad} --ssd-to-gpu-emulator=chunk-size=4097 | FileCheck %s --check-prefix=GPU-CHUNK
// ROWS: error: ssd-plan-gpu-kernels: serial-rows-per-warp must be in [1, 32], got 33
// ROWS-ISSUE: error: ssd-plan-gpu-kernels: serial-rows-per-warp must be in [1, 32], got 2147483647
// WARPS: error: ssd-plan-gpu-kernels: serial-warps-per-block must be in [1, 32], got 33
// SHARED: error: ssd-plan-gpu-kernels: shared-memory-limit must be in [1, 232448], got 232449
// HEADS: error: ssd-plan-gpu-kernels: heads-per-block must be in [1, 2], got 3
// STAGES-LOW: error: ssd-plan-gpu-kernels: pipeline-stages must be in [2, 4], got 1
// STAGES: error: ssd-plan-gpu-kernels: pipeline-stages must be in [2, 4], got 5
// WGMMA: error: ssd-plan-gpu-kernels: matmul=wgmma needs chip=sm_90a (wgmma is in sm_90a's architecture-specific PTX only), got chip=sm_80
// WARPS-MAX: error: ssd-plan-gpu-kernels: serial-warps-per-block must be in [1, 32], got 9223372036854775807
// GPU-CHUNK: error: ssd-to-gpu-emulator: chunk-size must be in [1, 4096], got 4097
//
// Optimization levels: ssd-attach-gpu-emulator-target's O, and the GPU
// pipelines' opt-level (checked by the pipelines themselves when their
// options are parsed: upstream's nvvm-attach-target takes any int).
// RUN: %{bad} --ssd-attach-gpu-emulator-target=O=4 | FileCheck %s --check-prefix=O
// RUN: %{bad} --ssd-to-nvvm=opt-level=4 | FileCheck %s --check-prefix=NVVM-OPT
// RUN: %{bad} --ssd-to-gpu-emulator=opt-level=-1 | FileCheck %s --check-prefix=EMU-OPT
// RUN: %{bad} --ssd-gpu-lower-to-emulator=opt-level=4 | FileCheck %s --check-prefix=LOWER-OPT
// RUN: %{bad} --ssd-to-nvvm=opt-level=9223372036854775807 | FileCheck %s --check-prefix=OPT-PARSE
// O: error: ssd-attach-gpu-emulator-target: O must be in [0, 3], got 4
// NVVM-OPT: error: ssd-to-nvvm: opt-level must be in [0, 3], got 4
// EMU-OPT: error: ssd-to-gpu-emulator: opt-level must be in [0, 3], got -1
// LOWER-OPT: error: ssd-gpu-lower-to-emulator: opt-level must be in [0, 3], got 4
// OPT-PARSE: for the --opt-level option: '9223372036854775807' value invalid for integer argument!
//
// At the largest values each pass and pipeline runs.
// RUN: ssd-opt %s --ssd-select-form="chunk-size=65536 min-chunked-tokens=2147483647 min-chunked-tokens-per-seq=2147483647" | FileCheck %s --check-prefix=SELECT
// RUN: ssd-opt %s --ssd-lower-to-loops="serial-p-tile=1024 vector-width=64" | FileCheck %s --check-prefix=LOOPS
// RUN: ssd-opt %s --ssd-plan-gpu-kernels="serial-rows-per-warp=32 serial-warps-per-block=32 shared-memory-limit=232448 heads-per-block=2" --ssd-lower-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: ssd-opt %s --ssd-to-gpu-emulator="opt-level=3 serial-rows-per-warp=32 serial-warps-per-block=32" | FileCheck %s --check-prefix=BINARY
// RUN: ssd-opt %s --ssd-to-nvvm="opt-level=3 chunk-size=4096" | FileCheck %s --check-prefix=BINARY
// SELECT: ssd.chunk_scan_varlen
// LOOPS-NOT: ssd.chunk_scan_varlen
// LOOPS: scf.parallel
// GPU-NOT: ssd.chunk_scan_varlen
// GPU: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %c32{{.*}},
// BINARY: gpu.binary

func.func @decode(%x: memref<4x2x8xf32>, %dt: memref<4x2xf32>, %A: memref<2xf32>, %B: memref<4x1x8xf32>, %C: memref<4x1x8xf32>, %dt_bias: memref<2xf32>, %ssm_pool: memref<4x2x8x8xf32>, %query_start_loc: memref<5xi32>, %cache_indices: memref<4xi32>, %y: memref<4x2x8xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<4x2x8xf32>) dt(%dt : memref<4x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<4x1x8xf32>) C(%C : memref<4x1x8xf32>) dt_bias(%dt_bias : memref<2xf32>)
      ssm_pool(%ssm_pool : memref<4x2x8x8xf32>) query_start_loc(%query_start_loc : memref<5xi32>)
      cache_indices(%cache_indices : memref<4xi32>) outs(%y : memref<4x2x8xf32>) {form = #ssd<form serial>}
  return
}
