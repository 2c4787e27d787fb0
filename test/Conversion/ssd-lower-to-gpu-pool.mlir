// Compressed state pools in the GPU kernels. The serial kernel reads an
// 8-bit row's scale once per row and decodes its codes (sitofp or the
// f8E4M3FN bits, times the scale); it writes an 8-bit row after taking its
// maximum |value| over the lane's columns and then over the warp's lanes
// (xor butterfly, maximumf), the scale (m / Qmax) stored by one lane per
// row, every lane encoding its columns. A row stays whole in registers
// (fewer rows per warp rather than the pieces path), up to dstate 2048.
// Stochastic rounding draws Philox bits from the seed, its counter's token
// count o + j + 1 taking o from checkpoint_offsets. The kernels an 8-bit
// pool runs ask for 4 blocks per SM, as a tree's do. What the GPU kernels
// do not write yet is refused in one line: 8-bit rows longer than 2048 in
// the serial kernel, and in the chunked kernels rows that do not lie in
// aligned lanes of one warp (N / 4 up to 32). The chunked kernels round
// every pool as the serial kernel does, with the same counters; rounded to
// nearest, f16 pools take the kernels' usual widening and truncation.
// RUN: ssd-opt %s -ssd-plan-gpu-kernels="chip=sm_90 shared-memory-limit=101376" -ssd-lower-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @serial_i8
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x128xi8>, %[[SCALES:[^:]+]]: memref<?x4x16xf32>
// CHECK:       gpu.launch
// CHECK:         ssd.kernel_occupancy min_blocks_per_sm = 4
// CHECK:         memref.load %[[SCALES]][
// CHECK:         vector.load %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x128xi8>, vector<4xi8>
// CHECK-NEXT:    arith.sitofp %{{.*}} : vector<4xi8> to vector<4xf32>
// CHECK-NEXT:    vector.broadcast
// CHECK-NEXT:    arith.mulf
// CHECK:         scf.for
// CHECK:         scf.yield {{.*}} : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK:         scf.if
// CHECK:           arith.andi %{{.*}} : i32
// CHECK:           arith.maxui %{{.*}} : i32
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           %[[QMAX:.*]] = arith.constant 1.270000e+02 : f32
// CHECK:           arith.divf %{{.*}}, %[[QMAX]] : f32
// CHECK:           arith.divf %[[QMAX]], %{{.*}} : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %[[SCALES]][
// The row's codes behind one branch on its scale (the same in every lane):
// in range, round(v * inverse) read off the bits of v * inverse + 1.5 2^23
// (no per-element guard, no clamp); else zeros.
// CHECK:           scf.if
// CHECK:             arith.mulf
// CHECK-NEXT:        arith.constant dense<0x4B400000> : vector<4xf32>
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        arith.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:        arith.constant
// CHECK-NEXT:        arith.subi
// CHECK-NEXT:        arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x128xi8>, vector<4xi8>
// CHECK:           } else {
// CHECK:             vector.store %{{.*}}, %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x128xi8>, vector<4xi8>
// CHECK:       gpu.terminator
// The contested writers' launch decodes and encodes the same way.
// CHECK:       gpu.launch
// CHECK:         ssd.kernel_occupancy min_blocks_per_sm = 4
// CHECK:         memref.load %[[SCALES]][
// CHECK:         gpu.shuffle xor
// CHECK:         memref.store %{{.*}}, %[[SCALES]][
// CHECK:       return
func.func @serial_i8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %pool: memref<?x4x16x128xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%B : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x4x16x128xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      outs(%y : memref<?x4x16xbf16>) {form = #ssd<form serial>}
  return
}

// -----

// f8E4M3FN: codes move as bytes (bitcasts), Qmax 448; checkpoints are
// encoded as the final state is.
// CHECK-LABEL: func.func @serial_f8
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x64xf8E4M3FN>, %[[SCALES:[^:]+]]: memref<?x4x16xf32>
// CHECK:       gpu.launch
// CHECK:         memref.load %[[SCALES]][
// CHECK:         vector.load %[[POOL]][{{.*}}] {alignment = 2 : i64} : memref<?x4x16x64xf8E4M3FN>, vector<2xf8E4M3FN>
// CHECK-NEXT:    arith.bitcast %{{.*}} : vector<2xf8E4M3FN> to vector<2xi8>
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             gpu.shuffle xor
// CHECK:             arith.constant 4.480000e+02 : f32
// CHECK:             memref.store %{{.*}}, %[[SCALES]][
// CHECK:             arith.bitcast %{{.*}} : vector<2xi8> to vector<2xf8E4M3FN>
// CHECK-NEXT:        vector.store %{{.*}}, %[[POOL]][{{.*}}] {alignment = 2 : i64} : memref<?x4x16x64xf8E4M3FN>, vector<2xf8E4M3FN>
// CHECK:           scf.yield
// CHECK:         scf.if
// CHECK:           gpu.shuffle xor
// CHECK:           memref.store %{{.*}}, %[[SCALES]][
// CHECK:           vector.store %{{.*}}, %[[POOL]][
// CHECK:       return
func.func @serial_f8(%x: memref<?x4x16xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x64xf32>, %pool: memref<?x4x16x64xf8E4M3FN>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %cs: memref<?x2xi32>,
    %y: memref<?x4x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x64xf32>) C(%B : memref<?x1x64xf32>) ssm_pool(%pool : memref<?x4x16x64xf8E4M3FN>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x2xi32>) checkpoint_interval(8)
      outs(%y : memref<?x4x16xf32>) {form = #ssd<form serial>}
  return
}

// -----

// Stochastic bf16: the seed's Philox bits per element; the token count of
// the state written starts from checkpoint_offsets[b].
// CHECK-LABEL: func.func @serial_bf16_stochastic
// CHECK-SAME:    %[[CO:[^:]+]]: memref<?xi32>, %[[SEED:[^:]+]]: memref<i64>
// CHECK:       gpu.launch
// CHECK:         memref.load %[[CO]][
// CHECK:         scf.for
// CHECK:           memref.load %[[SEED]][] : memref<i64>
// CHECK:           arith.mului_extended
// CHECK:           arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:         memref.load %[[SEED]][] : memref<i64>
// CHECK:       return
func.func @serial_bf16_stochastic(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x128xbf16>, %pool: memref<?x4x16x128xbf16>, %qsl: memref<?xi32>,
    %ci: memref<?xi32>, %cs: memref<?x2xi32>, %co: memref<?xi32>, %seed: memref<i64>,
    %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x128xbf16>) C(%B : memref<?x1x128xbf16>) ssm_pool(%pool : memref<?x4x16x128xbf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      checkpoint_slots(%cs : memref<?x2xi32>) checkpoint_offsets(%co : memref<?xi32>)
      checkpoint_interval(4) rounding_seed(%seed : memref<i64>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form serial>, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

// f16 to nearest, chunked: the chunked kernels' usual widening and
// truncation.
// CHECK-LABEL: func.func @chunked_f16
// CHECK:       arith.extf %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK:       arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK:       return
func.func @chunked_f16(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf16>, %qsl: memref<?xi32>,
    %init: memref<?xi1>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf16>)
      query_start_loc(%qsl : memref<?xi32>) has_initial_state(%init : memref<?xi1>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// i8, chunked, a bf16 model: the plan fuses state passing and the output.
// The chunk kernel decodes a first chunk's initial state a pair of columns
// at a time (the row's scale, sitofp, times the scale) and stores every
// writer's final state as f32 in `finals` (one entry per sequence), never
// codes: the row is spread over its warps' fragments. The output kernel's
// final-state blocks (a sequence without chunks decodes its initial state)
// take a row's maximum over the N / 4 = 8 lanes that hold it (xor 4, 2, 1;
// shfl.sync's mask names those lanes only), the row's first lane stores
// the scale.
// CHECK-LABEL: func.func @chunked_i8
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x32xi8>, %[[SCALES:[^:]+]]: memref<?x4x16xf32>
// CHECK-SAME:    %[[QSL:[^:]+]]: memref<?xi32>
// CHECK:       %[[SEQ_BOUND:.*]] = memref.dim %[[QSL]]
// CHECK:       %[[BATCH:.*]] = arith.subi %[[SEQ_BOUND]]
// CHECK:       %[[FINALS:.*]] = memref.view %{{.*}}[%{{.*}}][%[[BATCH]]] : memref<?xi8> to memref<?x4x16x32xf32>
// CHECK:       gpu.launch
// CHECK:       memref.load %[[SCALES]][
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  arith.cmpi
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  vector.load %[[POOL]][{{.*}}] {alignment = 2 : i64} : memref<?x4x16x32xi8>, vector<2xi8>
// CHECK-NEXT:  arith.sitofp %{{.*}} : vector<2xi8> to vector<2xf32>
// CHECK-NEXT:  vector.broadcast
// CHECK-NEXT:  arith.mulf
// CHECK-NOT:   store %{{.*}}, %[[POOL]][
// CHECK:       vector.store %{{.*}}, %[[FINALS]][{{.*}}] {alignment = 8 : i64} : memref<?x4x16x32xf32>, vector<2xf32>
// CHECK-NOT:   store %{{.*}}, %[[POOL]][
// CHECK:       gpu.launch
// CHECK:       memref.load %[[SCALES]][
// CHECK-NEXT:  vector.load %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x32xi8>, vector<4xi8>
// CHECK:       vector.load %[[FINALS]]
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK:       nvvm.shfl.sync bfly %[[MASK:[^,]+]], %{{.*}}, %[[C4]]
// CHECK:       %[[C2:.*]] = arith.constant 2 : i32
// CHECK:       nvvm.shfl.sync bfly %[[MASK]], %{{.*}}, %[[C2]]
// CHECK:       %[[C1:.*]] = arith.constant 1 : i32
// CHECK:       nvvm.shfl.sync bfly %[[MASK]], %{{.*}}, %[[C1]]
// CHECK-NOT:   nvvm.shfl.sync
// CHECK:       arith.divf
// CHECK:       memref.store %{{.*}}, %[[SCALES]][
// CHECK:       arith.fptosi %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
// CHECK-NEXT:  vector.store %{{.*}}, %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x32xi8>, vector<4xi8>
// CHECK:       return
func.func @chunked_i8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// Stochastic f16, chunked (a bf16 model: fused state passing, whose lanes
// store pairs of state columns): Philox bits for each pair.
// CHECK-LABEL: func.func @chunked_stochastic
// CHECK-SAME:    %[[POOL:[^:]+]]: memref<?x4x16x32xf16>
// CHECK-SAME:    %[[SEED:[^:]+]]: memref<i64>
// CHECK:       gpu.launch
// CHECK:         memref.load %[[SEED]][] : memref<i64>
// CHECK:         arith.mului_extended %{{.*}} : vector<2xi32>
// CHECK:         arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NEXT:    vector.store %{{.*}}, %[[POOL]][{{.*}}] {alignment = 4 : i64} : memref<?x4x16x32xf16>, vector<2xf16>
// CHECK:       return
func.func @chunked_stochastic(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf16>, %qsl: memref<?xi32>,
    %ci: memref<?xi32>, %seed: memref<i64>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf16>)
      query_start_loc(%qsl : memref<?xi32>) cache_indices(%ci : memref<?xi32>)
      rounding_seed(%seed : memref<i64>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64, pool_rounding = #ssd<pool_rounding stochastic>}
  return
}

// -----

// A mixed launch of an f8E4M3FN pool: the serial kernel's rows and the
// chunked kernels' lanes each take their rows' maxima.
// CHECK-LABEL: func.func @mixed_f8
// CHECK-COUNT-2: arith.constant 4.480000e+02 : f32
// CHECK:       return
func.func @mixed_f8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x32xbf16>, %pool: memref<?x4x16x32xf8E4M3FN>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x32xbf16>) C(%B : memref<?x1x32xbf16>) ssm_pool(%pool : memref<?x4x16x32xf8E4M3FN>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form serial>, config = #ssd.scan_config<form = serial, chunk_size = 256, mixed_min_tokens = 1024>}
  return
}

// -----

// An i8 pool with rows of 256 (longer than 32 lanes x 4) in the chunked
// kernels: state passing and the output kernel take 8 state elements a
// lane, so one warp holds a row and its maximum takes the full butterfly.
// CHECK-LABEL: func.func @chunked_wide_i8
// CHECK:       vector.load %{{.*}} : memref<?x4x16x256xi8>, vector<8xi8>
// CHECK:       nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c16_i32
// CHECK:       vector<8xi8>
// CHECK:       return
func.func @chunked_wide_i8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x256xbf16>, %pool: memref<?x4x16x256xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x256xbf16>) C(%B : memref<?x1x256xbf16>) ssm_pool(%pool : memref<?x4x16x256xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

func.func @chunked_too_wide_i8(%x: memref<?x4x16xbf16>, %dt: memref<?x4xbf16>, %A: memref<4xbf16>,
    %B: memref<?x1x384xbf16>, %pool: memref<?x4x16x384xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xbf16>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the GPU chunked kernels store i8 pools only where one warp holds a state row (dstate N / 4, or N when N is not a multiple of 4, a power of two up to 32; or N 256 or 512, at N / 32 elements a lane), got dstate (N) 384; use form serial}}
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xbf16>) dt(%dt : memref<?x4xbf16>) A(%A : memref<4xbf16>)
      B(%B : memref<?x1x384xbf16>) C(%B : memref<?x1x384xbf16>) ssm_pool(%pool : memref<?x4x16x384xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xbf16>)
      {form = #ssd<form chunked>, chunk_size = 64 : i64}
  return
}

// -----

// An 8-bit row's scale needs the whole row in registers: at dstate 1024
// the serial kernel takes 2 rows a warp (64 state values a lane), where the
// config asks for 4 and an f32 pool would be scanned in pieces of the row.
// The warp's first row: tile * (2 rows x 4 warps) + warp * 2.
// CHECK-LABEL: func.func @rows_i8
// CHECK:       gpu.launch blocks(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[TILE:[a-z0-9_]+]]) in
// CHECK-SAME:    threads(%{{[a-z0-9_]+}}, %[[WARP:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in
// CHECK:         %[[RW:.*]] = arith.constant 8 : index
// CHECK-NEXT:    arith.muli %[[TILE]], %[[RW]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.constant 2 : index
// CHECK-NEXT:    arith.muli %[[WARP]], %[[R]] : index
// CHECK:       return
func.func @rows_i8(%x: memref<?x4x16xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x1024xf32>, %pool: memref<?x4x16x1024xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xf32>) {
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x1024xf32>) C(%B : memref<?x1x1024xf32>) ssm_pool(%pool : memref<?x4x16x1024xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xf32>) {form = #ssd<form serial>}
  return
}

// -----

func.func @rows_too_long_i8(%x: memref<?x4x16xf32>, %dt: memref<?x4xf32>, %A: memref<4xf32>,
    %B: memref<?x1x4096xf32>, %pool: memref<?x4x16x4096xi8>, %scales: memref<?x4x16xf32>,
    %qsl: memref<?xi32>, %ci: memref<?xi32>, %y: memref<?x4x16xf32>) {
  // expected-error @+1 {{ssd-lower-to-gpu: the GPU serial kernel keeps each row of an 8-bit pool (i8) in registers (its scale needs all N columns), which holds dstate (N) up to 2048, got 4096}}
  ssd.chunk_scan_varlen x(%x : memref<?x4x16xf32>) dt(%dt : memref<?x4xf32>) A(%A : memref<4xf32>)
      B(%B : memref<?x1x4096xf32>) C(%B : memref<?x1x4096xf32>) ssm_pool(%pool : memref<?x4x16x4096xi8>)
      ssm_pool_scales(%scales : memref<?x4x16xf32>) query_start_loc(%qsl : memref<?xi32>)
      cache_indices(%ci : memref<?xi32>) outs(%y : memref<?x4x16xf32>) {form = #ssd<form serial>}
  return
}
