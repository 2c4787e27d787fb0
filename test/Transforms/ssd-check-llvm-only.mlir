// RUN: ssd-opt %s --split-input-file --verify-diagnostics --ssd-check-llvm-only | FileCheck %s

// LLVM and OpenMP dialect ops pass untouched.
// CHECK-LABEL: llvm.func @lowered
// CHECK:         omp.parallel
llvm.func @lowered() {
  omp.parallel {
    omp.terminator
  }
  llvm.return
}

// -----

// An op the conversions left behind is named at its location, even inside
// a function that was converted.
llvm.func @unlowered(%arg0: f32) -> f32 {
  // expected-error @below {{'math.erf' op was not lowered to the LLVM dialect}}
  %0 = math.erf %arg0 : f32
  llvm.return %0 : f32
}
