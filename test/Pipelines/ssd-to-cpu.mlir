// Nothing but the LLVM (and OpenMP) dialect may remain anywhere in the output:
// implicit CHECK-NOTs, which cover every line, not only those after a match.
// DEFINE: %{only_llvm} = --implicit-check-not=ssd. --implicit-check-not=scf. --implicit-check-not=memref. --implicit-check-not=tensor. --implicit-check-not=unrealized_conversion_cast
// RUN: ssd-opt %s --ssd-to-cpu | FileCheck %s %{only_llvm}
// RUN: ssd-opt %s --ssd-to-cpu="openmp=false form=serial" | FileCheck %s --check-prefix=NOOMP %{only_llvm} --implicit-check-not=omp.
// RUN: ssd-opt %s --ssd-to-cpu="form=chunked chunk-size=32" | FileCheck %s --check-prefix=CHUNKED %{only_llvm}
// RUN: ssd-opt %s --ssd-to-cpu="form=serial vector-width=16" | FileCheck %s --check-prefix=VECTOR %{only_llvm}

// From the tensor form with dynamic T and batch to the LLVM dialect alone:
// both forms compiled, the outer parallel loops as OpenMP worksharing loops.

// CHECK:     llvm.func @prefill(
// CHECK:       llvm.cond_br
// CHECK:       omp.parallel
// CHECK:       omp.wsloop
// CHECK:       llvm.intr.exp
// CHECK:       llvm.call @malloc

// NOOMP:     llvm.func @prefill(

// The serial form's vectors reach LLVM as vector FMAs, and its y reductions
// as reassociating (tree) reductions.
// VECTOR:    llvm.func @prefill(
// VECTOR:      llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// VECTOR:      llvm.intr.vector.reduce.fadd"{{.*}}fastmathFlags = #llvm.fastmath<reassoc>

// The chunk length shows up as the row bound of the chunked phases.
// CHUNKED:   llvm.func @prefill(
// CHUNKED:   llvm.mlir.constant(32 : index)
func.func @prefill(%x: tensor<?x4x8xbf16>, %dt: tensor<?x4xbf16>, %A: tensor<4xbf16>,
    %B: tensor<?x2x16xbf16>, %C: tensor<?x2x16xbf16>, %D: tensor<4xbf16>, %bias: tensor<4xbf16>,
    %pool: memref<?x4x8x16xf32>, %qsl: tensor<?xi32>, %ci: tensor<?xui32>) -> tensor<?x4x8xbf16> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<?x4x8xbf16>) dt(%dt : tensor<?x4xbf16>) A(%A : tensor<4xbf16>)
      B(%B : tensor<?x2x16xbf16>) C(%C : tensor<?x2x16xbf16>) D(%D : tensor<4xbf16>)
      dt_bias(%bias : tensor<4xbf16>) ssm_pool(%pool : memref<?x4x8x16xf32>)
      query_start_loc(%qsl : tensor<?xi32>) cache_indices(%ci : tensor<?xui32>) -> tensor<?x4x8xbf16>
  return %y : tensor<?x4x8xbf16>
}
