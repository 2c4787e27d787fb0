// RUN: ssd-opt %s --ssd-to-cpu --verify-diagnostics

// --ssd-to-cpu has no lowering for math.erf: the pipeline fails at the op
// instead of emitting a module that does not export to LLVM IR.
func.func @erf(%a: f32) -> f32 {
  // expected-error @below {{'math.erf' op was not lowered to the LLVM dialect}}
  %r = math.erf %a : f32
  return %r : f32
}
