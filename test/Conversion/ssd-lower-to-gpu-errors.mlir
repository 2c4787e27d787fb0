// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file -verify-diagnostics
// RUN: not ssd-opt %s -ssd-plan-gpu-kernels="serial-warps-per-block=33" -split-input-file 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not ssd-opt %s -ssd-plan-gpu-kernels="shared-memory-limit=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=LIMIT-OPTION
// RUN: not ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=30000" -ssd-lower-to-gpu -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=LIMIT
// An op whose config lacks the GPU kernels' choices is not lowered.
// RUN: not ssd-opt %s -ssd-lower-to-gpu -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=UNPLANNED

// OPTION: ssd-plan-gpu-kernels: serial-warps-per-block must be in [1, 32], got 33
// LIMIT-OPTION: ssd-plan-gpu-kernels: shared-memory-limit must be in [1, 232448], got 0
// UNPLANNED: error: ssd-lower-to-gpu: the GPU kernels need static nheads, head_dim, ngroups and dstate (they fix the tiling)
// UNPLANNED: error: ssd-lower-to-gpu: the op's config records no GPU kernels' choices; run ssd-plan-gpu-kernels first

// With a 30000-byte limit, the chunk kernel (chunk states and C Bᵀ) at
// head_dim 128, dstate 256 (33440 bytes: [2 x 32 x 128] bf16 tiles of x and
// of half of B's columns, the decay weights, scan scratch; fused state
// passing needs no more, since the state update runs on the accumulator
// fragments, and there is no fused output: the chunk state takes two
// blocks at these shapes) is
// reported, one line, on the op; the serial form at the same shapes, which
// needs (almost) no shared memory, still lowers (no error between the two
// reports).
// LIMIT: error: ssd-plan-gpu-kernels: kernel 'chunk states and C B^T' of the chunked form needs 33440 bytes of shared memory per block, more than the 30000 bytes it may use (shared-memory-limit and the chip), at head_dim (P) 128, dstate (N) 256, chunk_size 128; form = serial serves these shapes (form = auto builds both forms when T or the batch is dynamic)
// LIMIT-NOT: error:
// LIMIT: error: ssd-plan-gpu-kernels: kernel 'chunk states and C B^T' of the chunked form needs 134320 bytes of shared memory per block, more than the 30000 bytes it may use (shared-memory-limit and the chip), at head_dim (P) 1024, dstate (N) 1024, chunk_size 256

func.func @dynamic_heads(%x: memref<?x?x64xf32>, %dt: memref<?x?xf32>, %A: memref<?xf32>,
    %B: memref<?x1x32xf32>, %pool: memref<?x?x64x32xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x?x64xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the GPU kernels need static nheads, head_dim, ngroups and dstate (they fix the tiling)}}
  ssd.chunk_scan_varlen x(%x : memref<?x?x64xf32>) dt(%dt : memref<?x?xf32>) A(%A : memref<?xf32>)
      B(%B : memref<?x1x32xf32>) C(%B : memref<?x1x32xf32>) ssm_pool(%pool : memref<?x?x64x32xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x?x64xf32>) {form = #ssd<form serial>}
  return
}

// -----

func.func @no_form(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: op has no form; run ssd-select-form first}}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
  return
}

// -----

func.func @tensor_form(%x: tensor<8x4x2xf32>, %dt: tensor<8x4xf32>, %A: tensor<4xf32>,
    %B: tensor<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<9xi32>, %ci: tensor<8xi32>)
    -> tensor<8x4x2xf32> {
  // expected-error @+1 {{ssd-lower-to-gpu: op is in the tensor form; bufferize it first (one-shot-bufferize)}}
  %y = ssd.chunk_scan_varlen x(%x : tensor<8x4x2xf32>) dt(%dt : tensor<8x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<8x1x3xf32>) C(%B : tensor<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<9xi32>) cache_indices(%ci : tensor<8xi32>) {form = #ssd<form serial>}
      -> tensor<8x4x2xf32>
  return %y : tensor<8x4x2xf32>
}

// -----

// Lowers with the default limit (101376 bytes); see the LIMIT run above.
func.func @chunked_p128_n256(%x: memref<?x4x128xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x256xbf16>, %pool: memref<?x4x128x256xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x128xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x128xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x256xbf16>) C(%B : memref<?x1x256xbf16>) ssm_pool(%pool : memref<?x4x128x256xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x128xbf16>) {form = #ssd<form chunked>, chunk_size = 128}
  return
}

// -----

func.func @serial_p128_n256(%x: memref<?x4x128xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x256xbf16>, %pool: memref<?x4x128x256xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x128xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x128xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x256xbf16>) C(%B : memref<?x1x256xbf16>) ssm_pool(%pool : memref<?x4x128x256xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x128xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// head_dim 1024, dstate 1024: the double-buffered [32 x 1024] bf16 tiles of
// x alone take 128 KiB, more than sm_86/sm_89 give a block; the default
// limit reports it.
func.func @chunked_p1024_n1024(%x: memref<?x2x1024xbf16>, %dt: memref<?x2xbf16>, %A: memref<2xbf16>,
    %B: memref<?x1x1024xbf16>, %pool: memref<?x2x1024x1024xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x2x1024xbf16>) {
  // expected-error @+1 {{ssd-plan-gpu-kernels: kernel 'chunk states and C B^T' of the chunked form needs 134320 bytes of shared memory per block, more than the 101376 bytes it may use (shared-memory-limit and the chip), at head_dim (P) 1024, dstate (N) 1024, chunk_size 256}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x1024xbf16>) dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x1024xbf16>) C(%B : memref<?x1x1024xbf16>) ssm_pool(%pool : memref<?x2x1024x1024xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x1024xbf16>) {form = #ssd<form chunked>}
  return
}

// -----

// Operand layouts (docs/overview.md, Layouts): what the kernels need of each
// operand is read off the kernels themselves. The chunked form copies x in
// 16-byte cp.async pieces, so a view of x at a bf16 element offset of 1 is
// rejected, naming the operand, its offset and the alignment needed.
func.func @chunked_x_offset_1(%x: memref<?x2x64xbf16, strided<[128, 64, 1], offset: 1>>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16>,
    %pool: memref<?x2x64x64xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: operand 'x' starts at element offset 1 (2 bytes), not a multiple of the 16-byte alignment its GPU kernels access it with}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16, strided<[128, 64, 1], offset: 1>>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>) ssm_pool(%pool : memref<?x2x64x64xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// The fused output stores y in 8-byte pieces of 4 elements (whole sectors
// per quad of lanes) when P is a multiple of 16: a bf16 y view at an
// element offset of 2 (4 bytes, enough for the pairs of other tiles) is
// rejected.
func.func @chunked_y_offset_2(%x: memref<?x2x64xbf16>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16>,
    %pool: memref<?x2x64x64xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x2x64xbf16, strided<[128, 64, 1], offset: 2>>) {
  // expected-error @+1 {{ssd-lower-to-gpu: operand 'y' starts at element offset 2 (4 bytes), not a multiple of the 8-byte alignment its GPU kernels access it with}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>) ssm_pool(%pool : memref<?x2x64x64xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16, strided<[128, 64, 1], offset: 2>>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// The chunked form reads and writes the f32 pool in 16-byte rows of 4
// elements (and pairs): a pool view at an f32 offset of 1 is rejected.
func.func @chunked_pool_offset_1(%x: memref<?x2x64xbf16>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16>,
    %pool: memref<?x2x64x64xf32, strided<[8192, 4096, 64, 1], offset: 1>>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: operand 'ssm_pool' starts at element offset 1 (4 bytes), not a multiple of the 16-byte alignment its GPU kernels access it with}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>)
      ssm_pool(%pool : memref<?x2x64x64xf32, strided<[8192, 4096, 64, 1], offset: 1>>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// Vectors along the last dimension need it contiguous.
func.func @chunked_x_inner_stride(%x: memref<?x2x64xbf16, strided<[256, 128, 2]>>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16>,
    %pool: memref<?x2x64x64xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: operand 'x' has stride 2 (4 bytes) in its last dimension; its GPU kernels access it in vectors along that dimension, which needs stride 1}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16, strided<[256, 128, 2]>>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>) ssm_pool(%pool : memref<?x2x64x64xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// A row stride of 65 bf16 elements puts every other row of B off a 16-byte
// boundary.
func.func @chunked_B_row_stride(%x: memref<?x2x64xbf16>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16, strided<[65, 64, 1]>>,
    %pool: memref<?x2x64x64xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: operand 'B' has stride 65 (130 bytes) in dimension 0, not a multiple of the 16-byte alignment its GPU kernels access it with}}
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16, strided<[65, 64, 1]>>) C(%B : memref<?x1x64xbf16, strided<[65, 64, 1]>>)
      ssm_pool(%pool : memref<?x2x64x64xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form chunked>, chunk_size = 64}
  return
}

// -----

// What the serial form needs at N = 64: B, C and the pool in 2-element rows
// (4 and 8 bytes), x and y element by element. So x at an offset of 1 and the
// pool at an offset of 2 lower (the aligned pointer is checked at run time).
func.func @serial_offsets(%x: memref<?x2x64xbf16, strided<[128, 64, 1], offset: 1>>,
    %dt: memref<?x2xbf16>, %A: memref<2xbf16>, %B: memref<?x1x64xbf16>,
    %pool: memref<?x2x64x64xf32, strided<[8192, 4096, 64, 1], offset: 2>>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x2x64xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x2x64xbf16, strided<[128, 64, 1], offset: 1>>)
      dt(%dt : memref<?x2xbf16>) A(%A : memref<2xbf16>)
      B(%B : memref<?x1x64xbf16>) C(%B : memref<?x1x64xbf16>)
      ssm_pool(%pool : memref<?x2x64x64xf32, strided<[8192, 4096, 64, 1], offset: 2>>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x64xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// The invariant kernel keeps a lane's dstate / 32 columns of at least one
// row in registers and has no pieces path (the non-invariant kernel's sum
// over pieces is another order): dstate 2049 is refused, 2048 lowers.
func.func @invariant_large_dstate(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x2049xf32>, %pool: memref<?x2x4x2049xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x2x4xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: an invariant op keeps its state in registers on the GPU, which holds dstate (N) up to 2048, got 2049}}
  ssd.chunk_scan_varlen invariant x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x2049xf32>) C(%B : memref<?x1x2049xf32>) ssm_pool(%pool : memref<?x2x4x2049xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x4xf32>) {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
  return
}

func.func @invariant_dstate_2048(%x: memref<?x2x4xf32>, %dt: memref<?x2xf32>, %A: memref<2xf32>,
    %B: memref<?x1x2048xf32>, %pool: memref<?x2x4x2048xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x2x4xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x2x4xf32>) dt(%dt : memref<?x2xf32>) A(%A : memref<2xf32>)
      B(%B : memref<?x1x2048xf32>) C(%B : memref<?x1x2048xf32>) ssm_pool(%pool : memref<?x2x4x2048xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x2x4xf32>) {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>}
  return
}
