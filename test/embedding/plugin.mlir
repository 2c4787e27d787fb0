// The stock mlir-opt (Debian's, linked to libMLIR.so) with SSDPlugin.so:
// parses and prints ssd ops, and runs the ssd passes and pipelines.
// REQUIRES: ssd-plugin
// A stock mlir-opt cannot load a plugin built with AddressSanitizer (the
// tool does not link the ASan runtime the plugin's code calls).
// UNSUPPORTED: asan
// DEFINE: %{only_llvm} = --implicit-check-not=ssd. --implicit-check-not=scf. --implicit-check-not=memref.

// Dialect plugin: parse, verify, print.
// RUN: %stock_mlir_opt --load-dialect-plugin=%ssd_plugin %s | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP-LABEL: func.func @decode
// ROUNDTRIP: ssd.chunk_scan_varlen x(%{{.*}} : tensor<4x8x16xf32>)

// Without the plugin the stock tool does not know the dialect (the exact
// error, so that the line cannot match the file name or any other mention
// of "ssd"); with only the pass plugin, it still cannot parse the op.
// RUN: not %stock_mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// RUN: not %stock_mlir_opt --load-pass-plugin=%ssd_plugin %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: error: Dialect `ssd' not found for custom op 'ssd.chunk_scan_varlen'

// Dialect + pass plugin: the passes and pipelines by name in a textual
// pipeline. (Not as flags: mlir-opt has parsed its command line by the time
// a plugin registers passes, so `--ssd-to-cpu` is an unknown argument there.)
// RUN: %stock_mlir_opt --load-dialect-plugin=%ssd_plugin --load-pass-plugin=%ssd_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(ssd-select-form{form=chunked chunk-size=2}))' %s \
// RUN:   | FileCheck %s --check-prefix=SELECT
// SELECT: ssd.chunk_scan_varlen
// SELECT-SAME: chunk_size = 2 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 2>, form = #ssd<form chunked>

// The whole CPU pipeline: LLVM dialect only.
// RUN: %stock_mlir_opt --load-dialect-plugin=%ssd_plugin --load-pass-plugin=%ssd_plugin \
// RUN:   --pass-pipeline='builtin.module(ssd-to-cpu{form=serial openmp=false})' %s \
// RUN:   | FileCheck %s --check-prefix=CPU %{only_llvm}
// The dialect plugin alone registers the passes and pipelines too.
// RUN: %stock_mlir_opt --load-dialect-plugin=%ssd_plugin \
// RUN:   --pass-pipeline='builtin.module(ssd-to-cpu)' %s | FileCheck %s --check-prefix=CPU %{only_llvm}
// CPU: llvm.func @decode
// (%{only_llvm}: no ssd, scf or memref op left anywhere in the output.)

// The pass plugin alone runs passes on IR the tool can parse (here the
// memref form after the selection, printed generically).
// RUN: %stock_mlir_opt --load-dialect-plugin=%ssd_plugin --load-pass-plugin=%ssd_plugin \
// RUN:   --pass-pipeline='builtin.module(ssd-to-cpu{form=serial openmp=false})' %s \
// RUN:   -o %t.ll.mlir
// RUN: %stock_mlir_opt --load-pass-plugin=%ssd_plugin %t.ll.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s --check-prefix=CPU %{only_llvm}

// The stock tool lists the plugin's passes and pipelines.
// RUN: %stock_mlir_opt --load-pass-plugin=%ssd_plugin --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --ssd-lower-to-loops
// HELP-DAG: --ssd-select-form
// HELP-DAG: --ssd-to-cpu

func.func @decode(%x: tensor<4x8x16xf32>, %dt: tensor<4x8xf32>,
                  %A: tensor<8xf32>, %B: tensor<4x2x32xf32>,
                  %C: tensor<4x2x32xf32>, %pool: memref<6x8x16x32xf32>,
                  %qsl: tensor<5xi32>, %slots: tensor<4xi32>)
    -> tensor<4x8x16xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<4x8x16xf32>) dt(%dt : tensor<4x8xf32>)
      A(%A : tensor<8xf32>) B(%B : tensor<4x2x32xf32>) C(%C : tensor<4x2x32xf32>)
      ssm_pool(%pool : memref<6x8x16x32xf32>) query_start_loc(%qsl : tensor<5xi32>)
      cache_indices(%slots : tensor<4xi32>) -> tensor<4x8x16xf32>
  return %y : tensor<4x8x16xf32>
}
