// The mixer example lowers with the project's ssd-opt and with the stock
// mlir-opt plus SSDPlugin.so, by the route docs/embedding.md gives: the
// host's one-shot-bufferize and linalg lowering, then --ssd-to-cpu. No ssd,
// linalg, tensor or memref op may remain anywhere in the output. (The stock
// mlir-opt cannot load a plugin built with AddressSanitizer: not in the
// sanitizer build.)
// DEFINE: %{only_llvm} = --implicit-check-not=ssd. --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref.
// RUN: ssd-opt %ssd_src_root/examples/mamba2-mixer/mixer.mlir \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --ssd-to-cpu | FileCheck %s %{only_llvm}
// RUN: %if ssd-plugin && !asan %{ %stock_mlir_opt --load-dialect-plugin=%ssd_plugin --load-pass-plugin=%ssd_plugin \
// RUN:   %ssd_src_root/examples/mamba2-mixer/mixer.mlir \
// RUN:   --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, func.func(convert-linalg-to-loops), ssd-to-cpu)" \
// RUN:   | FileCheck %s %{only_llvm} %}
// CHECK: llvm.func @mamba2_mixer_ssm

// Before any pass: the split, one scan, the gate.
// RUN: ssd-opt %ssd_src_root/examples/mamba2-mixer/mixer.mlir | FileCheck %s --check-prefix=TENSOR
// TENSOR-COUNT-5: tensor.extract_slice
// TENSOR: ssd.chunk_scan_varlen
// TENSOR-SAME: -> tensor<?x80x64xbf16>
// TENSOR: linalg.generic
// TENSOR: math.exp
// TENSOR: tensor.collapse_shape
