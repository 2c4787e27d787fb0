// RUN: ssd-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(ssd-apply-kernel-occupancy))' | FileCheck %s

// The request becomes the kernel's nvvm.minctasm, wherever in the body it
// sits, and leaves no op behind; kernels without one are untouched.
// CHECK-LABEL: gpu.module @kernels
// CHECK:         gpu.func @planned() kernel attributes {nvvm.minctasm = 2 : i32}
// CHECK-NOT:       ssd.kernel_occupancy
// CHECK:         gpu.func @nested(%{{.*}}: i1) kernel attributes {nvvm.minctasm = 3 : i32}
// CHECK-NOT:       ssd.kernel_occupancy
// CHECK:         gpu.func @unplanned() kernel {
gpu.module @kernels {
  gpu.func @planned() kernel {
    ssd.kernel_occupancy min_blocks_per_sm = 2
    gpu.return
  }
  gpu.func @nested(%c: i1) kernel {
    scf.if %c {
      ssd.kernel_occupancy min_blocks_per_sm = 3
      ssd.kernel_occupancy min_blocks_per_sm = 3
    }
    gpu.return
  }
  gpu.func @unplanned() kernel {
    gpu.return
  }
}

// -----

// A kernel with a request gets 32-bit arithmetic where the ranges allow it
// (a thread position times 4 fits), 64-bit where they do not (an offset
// from a dynamic argument); a kernel without a request keeps its index
// arithmetic as it is.
// CHECK-LABEL: gpu.func @narrowed
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[TID32:.*]] = arith.index_castui %[[TID]] : index to i32
// CHECK:         %[[OFF32:.*]] = arith.muli %[[TID32]], %{{.*}} : i32
// CHECK:         %[[OFF:.*]] = arith.index_castui %[[OFF32]] : i32 to index
// CHECK:         arith.addi %{{.*}}, %[[OFF]] : index
// CHECK-LABEL: gpu.func @untouched
// CHECK:         arith.muli %{{.*}}, %{{.*}} : index
gpu.module @kernels {
  gpu.func @narrowed(%base: index, %out: memref<?xindex>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    ssd.kernel_occupancy min_blocks_per_sm = 2
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %offset = arith.muli %tid, %c4 : index
    %at = arith.addi %base, %offset : index
    memref.store %at, %out[%tid] : memref<?xindex>
    gpu.return
  }
  gpu.func @untouched(%out: memref<?xindex>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %offset = arith.muli %tid, %c4 : index
    memref.store %offset, %out[%tid] : memref<?xindex>
    gpu.return
  }
}

// -----

// Two requests that disagree: an error naming both, nothing chosen.
gpu.module @kernels {
  gpu.func @k() kernel {
    ssd.kernel_occupancy min_blocks_per_sm = 2
    // expected-error @+1 {{asks for min_blocks_per_sm = 1, but kernel 'k' also asks for 2}}
    ssd.kernel_occupancy min_blocks_per_sm = 1
    gpu.return
  }
}

// -----

// A request against an nvvm.minctasm the kernel already carries.
gpu.module @kernels {
  gpu.func @k() kernel attributes {nvvm.minctasm = 4 : i32} {
    // expected-error @+1 {{asks for min_blocks_per_sm = 2, but kernel 'k' already has nvvm.minctasm = 4}}
    ssd.kernel_occupancy min_blocks_per_sm = 2
    gpu.return
  }
}
