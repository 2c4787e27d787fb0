// RUN: ssd-opt %s -ssd-select-form -split-input-file | FileCheck %s
// RUN: ssd-opt %s -ssd-select-form="form=chunked chunk-size=64" -split-input-file | FileCheck %s --check-prefix=FORCED
// RUN: ssd-opt %s -ssd-select-form="min-chunked-tokens=8 min-chunked-tokens-per-seq=4" -split-input-file | FileCheck %s --check-prefix=LOW
// RUN: ssd-opt %s -ssd-select-form="serial-for-dense-checkpoints=false" -split-input-file | FileCheck %s --check-prefix=GPU
// RUN: ssd-opt %s -ssd-select-form="serial-for-unchunked-pools=true" -split-input-file | FileCheck %s --check-prefix=POOLS
// RUN: ssd-opt %s -ssd-select-form="invariant=true" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=INV
// RUN: not ssd-opt %s -ssd-select-form="form=fastest" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADFORM
// RUN: not ssd-opt %s -ssd-select-form="chunk-size=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADCHUNK

// BADFORM: for the --form option: unknown value 'fastest' (expected auto, chunked or serial)
// BADCHUNK: ssd-select-form: chunk-size must be in [1, 65536], got 0

// Decode: 8 sequences of one token each stay serial.
// CHECK-LABEL: func.func @decode_is_serial
// CHECK:       ssd.chunk_scan_varlen
// CHECK-SAME:  form = #ssd<form serial>
// CHECK-NOT:   chunk_size
// FORCED-LABEL: func.func @decode_is_serial
// FORCED:       {chunk_size = 64 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 64>, form = #ssd<form chunked>}
// LOW-LABEL:    func.func @decode_is_serial
// LOW:          form = #ssd<form serial>
// invariant=true: the same choice, the op and its config marked.
// INV-LABEL:    func.func @decode_is_serial
// INV:          ssd.chunk_scan_varlen invariant x(
// INV-SAME:     {config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>, form = #ssd<form serial>}
func.func @decode_is_serial(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
  return
}

// -----

// A prefill of one 128k-token sequence is chunked.
// CHECK-LABEL: func.func @long_prefill_is_chunked
// CHECK:       {chunk_size = 256 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 256>, form = #ssd<form chunked>}
// LOW-LABEL:   func.func @long_prefill_is_chunked
// LOW:         form = #ssd<form chunked>
func.func @long_prefill_is_chunked(%x: memref<131072x4x2xf32>, %dt: memref<131072x4xf32>, %A: memref<4xf32>,
    %B: memref<131072x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %y: memref<131072x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x2xf32>) dt(%dt : memref<131072x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<131072x1x3xf32>) C(%B : memref<131072x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>) outs(%y : memref<131072x4x2xf32>)
  return
}

// -----

// Many short sequences stay serial by default; with low thresholds
// (8 tokens, 4 per sequence) 2048 tokens over 256 sequences are chunked.
// CHECK-LABEL: func.func @many_short_sequences_are_serial
// CHECK:       form = #ssd<form serial>
// LOW-LABEL:   func.func @many_short_sequences_are_serial
// LOW:         form = #ssd<form chunked>
func.func @many_short_sequences_are_serial(%x: memref<2048x4x2xf32>, %dt: memref<2048x4xf32>, %A: memref<4xf32>,
    %B: memref<2048x1x3xf32>, %pool: memref<512x4x2x3xf32>, %qsl: memref<257xi32>, %ci: memref<256xi32>,
    %y: memref<2048x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<2048x4x2xf32>) dt(%dt : memref<2048x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<2048x1x3xf32>) C(%B : memref<2048x1x3xf32>) ssm_pool(%pool : memref<512x4x2x3xf32>)
      query_start_loc(%qsl : memref<257xi32>) cache_indices(%ci : memref<256xi32>) outs(%y : memref<2048x4x2xf32>)
  return
}

// -----

// Dynamic T and batch: both forms behind a runtime test of the same rule.
// CHECK-LABEL: func.func @dynamic_memref_form
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[T:.*]] = memref.dim %{{.*}}, %[[C0]] : memref<?x4x2xf32>
// CHECK-DAG:   %[[OFFSETS:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xi32>
// CHECK:       %[[BATCH:.*]] = arith.subi %[[OFFSETS]]
// CHECK:       %[[LONG:.*]] = arith.cmpi sge, %[[T]], %{{.*}}
// CHECK:       %[[PERSEQ:.*]] = arith.cmpi sge, %[[T]], %{{.*}}
// CHECK:       %[[CHUNKED:.*]] = arith.andi %[[LONG]], %[[PERSEQ]]
// CHECK:       scf.if %[[CHUNKED]] {
// CHECK-NEXT:    ssd.chunk_scan_varlen {{.*}} {chunk_size = 256 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 256>, form = #ssd<form chunked>}
// CHECK-NEXT:  } else {
// The serial branch may mix: sequences of at least max(min-chunked-tokens,
// min-chunked-tokens-per-seq) tokens may run chunked where the lowering can.
// CHECK-NEXT:    ssd.chunk_scan_varlen {{.*}}{config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 65536>, form = #ssd<form serial>}
// CHECK-NEXT:  }
// CHECK-NOT:   ssd.chunk_scan_varlen
// FORCED-LABEL: func.func @dynamic_memref_form
// FORCED-NOT:   scf.if
// FORCED:       form = #ssd<form chunked>
// Both branches invariant; the serial one does not mix (an invariant op
// runs the serial GPU kernel only).
// INV-LABEL:    func.func @dynamic_memref_form
// INV:          scf.if
// INV-NEXT:       ssd.chunk_scan_varlen invariant {{.*}} {chunk_size = 256 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 256, invariant = true>, form = #ssd<form chunked>}
// INV-NEXT:     } else {
// INV-NEXT:       ssd.chunk_scan_varlen invariant {{.*}}{config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>, form = #ssd<form serial>}
func.func @dynamic_memref_form(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}

// -----

// Tensor form: the scf.if yields the y of whichever op ran.
// CHECK-LABEL: func.func @dynamic_tensor_form
// CHECK:       %[[T:.*]] = tensor.dim
// CHECK:       %[[Y:.*]] = scf.if %{{.*}} -> (tensor<?x4x2xf32>) {
// CHECK-NEXT:    %[[YC:.*]] = ssd.chunk_scan_varlen {{.*}} form = #ssd<form chunked>
// CHECK-NEXT:    scf.yield %[[YC]]
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[YS:.*]] = ssd.chunk_scan_varlen {{.*}}form = #ssd<form serial>
// CHECK-NEXT:    scf.yield %[[YS]]
// CHECK:       return %[[Y]]
func.func @dynamic_tensor_form(%x: tensor<?x4x2xf32>, %dt: tensor<?x4xf32>, %A: tensor<4xf32>,
    %B: tensor<?x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: tensor<?xi32>, %ci: tensor<?xi32>)
    -> tensor<?x4x2xf32> {
  %y = ssd.chunk_scan_varlen x(%x : tensor<?x4x2xf32>) dt(%dt : tensor<?x4xf32>) A(%A : tensor<4xf32>)
      B(%B : tensor<?x1x3xf32>) C(%B : tensor<?x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : tensor<?xi32>) cache_indices(%ci : tensor<?xi32>) -> tensor<?x4x2xf32>
  return %y : tensor<?x4x2xf32>
}

// -----

// A form pinned by the producer is kept, whatever the options say.
// CHECK-LABEL: func.func @pinned_form_is_kept
// CHECK:       {chunk_size = 32 : i64, form = #ssd<form chunked>}
// FORCED-LABEL: func.func @pinned_form_is_kept
// FORCED:       {form = #ssd<form serial>}
// invariant=true marks them all the same (their form stays, no config).
// INV-LABEL:    func.func @pinned_form_is_kept
// INV:          ssd.chunk_scan_varlen invariant {{.*}} {chunk_size = 32 : i64, form = #ssd<form chunked>}
// INV:          ssd.chunk_scan_varlen invariant {{.*}} {form = #ssd<form serial>}
func.func @pinned_form_is_kept(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>, %y2: memref<8x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
      {form = #ssd<form chunked>, chunk_size = 32}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x3xf32>) C(%B : memref<8x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y2 : memref<8x4x2xf32>)
      {form = #ssd<form serial>}
  return
}

// -----

// Checkpoints closer together than a chunk keep a long prefill serial on the
// CPU (every chunk would walk to its checkpoint serially); the GPU pipelines
// (serial-for-dense-checkpoints=false) still go by the launch shape; a
// pinned chunked form is kept.
// CHECK-LABEL: func.func @dense_checkpoints_keep_serial
// CHECK:       checkpoint_interval(128)
// CHECK-SAME:  {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// GPU-LABEL:   func.func @dense_checkpoints_keep_serial
// GPU:         {chunk_size = 256 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 256>, form = #ssd<form chunked>}
// FORCED-LABEL: func.func @dense_checkpoints_keep_serial
// FORCED:      form = #ssd<form chunked>
func.func @dense_checkpoints_keep_serial(%x: memref<131072x4x2xf32>, %dt: memref<131072x4xf32>, %A: memref<4xf32>,
    %B: memref<131072x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %cs: memref<1x8xi32>, %y: memref<131072x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x2xf32>) dt(%dt : memref<131072x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<131072x1x3xf32>) C(%B : memref<131072x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x8xi32>) checkpoint_interval(128) outs(%y : memref<131072x4x2xf32>)
  return
}

// -----

// A checkpoint every chunk or sparser costs the chunked form one more state
// write per checkpoint: the launch shape decides.
// CHECK-LABEL: func.func @sparse_checkpoints_follow_the_shape
// CHECK:       {chunk_size = 256 : i64, config = #ssd.scan_config<form = chunked, chunk_size = 256>, form = #ssd<form chunked>}
func.func @sparse_checkpoints_follow_the_shape(%x: memref<131072x4x2xf32>, %dt: memref<131072x4xf32>, %A: memref<4xf32>,
    %B: memref<131072x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<2xi32>, %ci: memref<1xi32>,
    %cs: memref<1x8xi32>, %y: memref<131072x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x2xf32>) dt(%dt : memref<131072x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<131072x1x3xf32>) C(%B : memref<131072x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>)
      checkpoint_slots(%cs : memref<1x8xi32>) checkpoint_interval(256) outs(%y : memref<131072x4x2xf32>)
  return
}

// -----

// With T and batch dynamic no runtime branch is needed: dense checkpoints
// make both branches serial.
// CHECK-LABEL: func.func @dense_checkpoints_dynamic
// CHECK-NOT:   scf.if
// CHECK:       {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// GPU-LABEL:   func.func @dense_checkpoints_dynamic
// GPU:         scf.if
func.func @dense_checkpoints_dynamic(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %cs: memref<?x8xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x8xi32>) checkpoint_interval(1) outs(%y : memref<?x4x2xf32>)
  return
}

// -----

// An op marked invariant by hand stays so, and its config says so too,
// without the option; its serial branch does not mix.
// CHECK-LABEL: func.func @hand_marked_invariant
// CHECK:       scf.if
// CHECK-NEXT:    ssd.chunk_scan_varlen invariant {{.*}}config = #ssd.scan_config<form = chunked, chunk_size = 256, invariant = true>
// CHECK:         ssd.chunk_scan_varlen invariant {{.*}}{config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>, form = #ssd<form serial>}
// FORCED-LABEL: func.func @hand_marked_invariant
// FORCED:       ssd.chunk_scan_varlen invariant {{.*}}config = #ssd.scan_config<form = chunked, chunk_size = 64, invariant = true>
func.func @hand_marked_invariant(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen invariant x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}

// -----

// A pinned op's config is marked too, and loses its mixing; without the
// option it is left as it is.
// CHECK-LABEL: func.func @pinned_config_is_marked
// CHECK:       {config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024>, form = #ssd<form serial>}
// INV-LABEL:   func.func @pinned_config_is_marked
// INV:         ssd.chunk_scan_varlen invariant {{.*}}{config = #ssd.scan_config<form = serial, chunk_size = 256, invariant = true>, form = #ssd<form serial>}
func.func @pinned_config_is_marked(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x3xf32>, %pool: memref<16x4x2x3xf32>, %qsl: memref<?xi32>, %ci: memref<?xi32>,
    %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x3xf32>) C(%B : memref<?x1x3xf32>) ssm_pool(%pool : memref<16x4x2x3xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024>}
  return
}

// -----

// A pinned op whose config holds the chunked GPU kernels' choices cannot be
// marked without replanning (invariant=true only; the others keep it).
// CHECK-LABEL: func.func @pinned_chunked_kernels
// CHECK:       fusion = none
func.func @pinned_chunked_kernels(%x: memref<8x4x2xf32>, %dt: memref<8x4xf32>, %A: memref<4xf32>,
    %B: memref<8x1x16xf32>, %pool: memref<16x4x2x16xf32>, %qsl: memref<9xi32>, %ci: memref<8xi32>,
    %y: memref<8x4x2xf32>) {
  // expected-error @+1 {{ssd-select-form: invariant=true cannot mark an op whose config carries the chunked GPU kernels' choices (an invariant op runs the serial kernel only); drop them and plan again}}
  ssd.chunk_scan_varlen x(%x : memref<8x4x2xf32>) dt(%dt : memref<8x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<8x1x16xf32>) C(%B : memref<8x1x16xf32>) ssm_pool(%pool : memref<16x4x2x16xf32>)
      query_start_loc(%qsl : memref<9xi32>) cache_indices(%ci : memref<8xi32>) outs(%y : memref<8x4x2xf32>)
      {form = #ssd<form chunked>, chunk_size = 64, config = #ssd.scan_config<form = chunked, chunk_size = 64, chip = "sm_90a", serial_rows_per_warp = 2, serial_warps_per_block = 8, fusion = none, output_rows = 64, state_parts = 1, heads_per_block = 1, matmul = wgmma, fragment_loads = scalar, staging = registers, blocks_per_sm = 0, shared_memory = 24576>}
  return
}

// -----

// An 8-bit pool whose rows no warp holds (dstate 384): the GPU chunked
// kernels cannot encode it, so with serial-for-unchunked-pools (the GPU
// pipelines) auto keeps the op serial, with neither a runtime branch nor a
// mixed launch's threshold. Without the option (the CPU) the shape decides.
// CHECK-LABEL: func.func @unchunked_pool_dynamic
// CHECK:       scf.if
// POOLS-LABEL: func.func @unchunked_pool_dynamic
// POOLS-NOT:   scf.if
// POOLS:       {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
// POOLS-NOT:   scf.if
func.func @unchunked_pool_dynamic(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x384xf32>, %pool: memref<16x4x2x384xi8>, %scales: memref<16x4x2xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x384xf32>) C(%B : memref<?x1x384xf32>) ssm_pool(%pool : memref<16x4x2x384xi8>)
      ssm_pool_scales(%scales : memref<16x4x2xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}

// -----

// A static long prefill with such a pool (f8E4M3FN, dstate 1024) stays
// serial too; a row one warp holds (dstate 256, next function) and a pool
// of another type (f32, dstate 384, the last) still follow the shape.
// CHECK-LABEL: func.func @unchunked_pool_static
// CHECK:       form = #ssd<form chunked>
// POOLS-LABEL: func.func @unchunked_pool_static
// POOLS:       {config = #ssd.scan_config<form = serial, chunk_size = 256>, form = #ssd<form serial>}
func.func @unchunked_pool_static(%x: memref<131072x4x2xf32>, %dt: memref<131072x4xf32>, %A: memref<4xf32>,
    %B: memref<131072x1x1024xf32>, %pool: memref<16x4x2x1024xf8E4M3FN>, %scales: memref<16x4x2xf32>,
    %qsl: memref<2xi32>, %ci: memref<1xi32>, %y: memref<131072x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<131072x4x2xf32>) dt(%dt : memref<131072x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<131072x1x1024xf32>) C(%B : memref<131072x1x1024xf32>)
      ssm_pool(%pool : memref<16x4x2x1024xf8E4M3FN>) ssm_pool_scales(%scales : memref<16x4x2xf32>)
      query_start_loc(%qsl : memref<2xi32>) cache_indices(%ci : memref<1xi32>) outs(%y : memref<131072x4x2xf32>)
  return
}

// -----

// POOLS-LABEL: func.func @chunked_pool_row_in_a_warp
// POOLS:       scf.if
// POOLS-NEXT:    ssd.chunk_scan_varlen {{.*}}form = #ssd<form chunked>
func.func @chunked_pool_row_in_a_warp(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x256xf32>, %pool: memref<16x4x2x256xi8>, %scales: memref<16x4x2xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x256xf32>) C(%B : memref<?x1x256xf32>) ssm_pool(%pool : memref<16x4x2x256xi8>)
      ssm_pool_scales(%scales : memref<16x4x2xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}

// -----

// POOLS-LABEL: func.func @unscaled_pool_follows_the_shape
// POOLS:       scf.if
func.func @unscaled_pool_follows_the_shape(%x: memref<?x4x2xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x384xf32>, %pool: memref<16x4x2x384xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x2xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x2xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x384xf32>) C(%B : memref<?x1x384xf32>) ssm_pool(%pool : memref<16x4x2x384xf32>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x2xf32>)
  return
}
