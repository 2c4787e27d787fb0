// What --ssd-to-cpu produces needs nothing beyond libc, libm and the OpenMP
// runtime on any x86-64 or AArch64 CPU: 16-bit float conversions are integer
// arithmetic (ssd-expand-float-conversions), not compiler-rt calls. Each
// object's undefined symbols must all be on the allowed list; `not grep`
// fails on the first one that is not.
// DEFINE: %{allowed} = '^(malloc|free|aligned_alloc|memcpy|memmove|memset|expf|exp2f|logf|log1pf|expm1f|fmaf|fmaxf|fminf|__kmpc_[a-z0-9_]+|omp_[a-z_]+)$'
// DEFINE: %{undefined} = llvm-nm --undefined-only --format=just-symbols

// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's/HEADS/4/g; s/GROUPS/2/g; s/DTYPE/bf16/g' %S/Inputs/scan-template.mlir > %t/bf16.mlir
// RUN: sed -e 's/HEADS/4/g; s/GROUPS/2/g; s/DTYPE/f16/g' %S/Inputs/scan-template.mlir > %t/f16.mlir
// RUN: sed -e 's/xf32>/xbf16>/g' %t/bf16.mlir > %t/bf16-pool.mlir

// RUN: for f in bf16 f16 bf16-pool; do for form in serial chunked; do \
// RUN:   ssd-opt %t/$f.mlir --ssd-to-cpu="form=$form" | mlir-translate --mlir-to-llvmir > %t/$f-$form.ll || exit 1; \
// RUN:   for cpu in "-mtriple=aarch64-linux-gnu -mcpu=generic" "-mtriple=x86_64-linux-gnu -mcpu=x86-64"; do \
// RUN:     llc -O2 $cpu -filetype=obj %t/$f-$form.ll -o %t/obj.o || exit 1; \
// RUN:     %{undefined} %t/obj.o >> %t/undefined.txt; \
// RUN:   done; done; done
// RUN: FileCheck %s --check-prefix=SEEN < %t/undefined.txt
// RUN: not grep -v -E %{allowed} %t/undefined.txt

// The same bf16 op with the expansion off: LLVM's x86-64 baseline calls
// compiler-rt, the hidden dependency this pipeline avoids.
// RUN: ssd-opt %t/bf16-pool.mlir --ssd-to-cpu="form=serial expand-float-conversions=false" \
// RUN:   | mlir-translate --mlir-to-llvmir | llc -O2 -mtriple=x86_64-linux-gnu -mcpu=x86-64 -filetype=obj -o %t/native.o
// RUN: %{undefined} %t/native.o | FileCheck %s --check-prefix=NATIVE

// SEEN-DAG: malloc
// SEEN-DAG: __kmpc_fork_call
// NATIVE: __truncsfbf2
