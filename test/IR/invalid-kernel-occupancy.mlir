// RUN: ssd-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of ssd.kernel_occupancy.

func.func @outside_a_kernel() {
  // expected-error @+1 {{'ssd.kernel_occupancy' op must be inside a gpu.launch body or a gpu.func: it describes the kernel that encloses it}}
  ssd.kernel_occupancy min_blocks_per_sm = 2
  return
}

// -----

gpu.module @m {
  gpu.func @device_function() {
    // expected-error @+1 {{'ssd.kernel_occupancy' op must be inside a kernel: 'device_function' is a gpu.func without the kernel attribute}}
    ssd.kernel_occupancy min_blocks_per_sm = 2
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    // expected-error @+1 {{'ssd.kernel_occupancy' op attribute 'min_blocks_per_sm' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
    ssd.kernel_occupancy min_blocks_per_sm = 0
    gpu.return
  }
}
