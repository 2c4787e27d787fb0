// The scan template's op with an 8-bit pool (POOL: i8 or f8E4M3FN, with
// ssm_pool_scales), initial states, update_state and checkpoints every 16
// tokens with offsets; ROUNDING is empty (nearest_even) or the seed and
// attribute of stochastic rounding. HEADS, GROUPS and DTYPE as in
// scan-template.mlir.
func.func @scan(%x: memref<?xHEADSx64xDTYPE>, %dt: memref<?xHEADSxDTYPE>, %A: memref<HEADSxDTYPE>,
    %B: memref<?xGROUPSx128xDTYPE>, %C: memref<?xGROUPSx128xDTYPE>, %D: memref<HEADSxDTYPE>,
    %bias: memref<HEADSxDTYPE>, %pool: memref<?xHEADSx64x128xPOOL>, %scales: memref<?xHEADSx64xf32>,
    %qsl: memref<?xi32>, %init: memref<?xi1>, %ci: memref<?xi32>, %upd: memref<?xi1>,
    %cs: memref<?x8xi32>, %co: memref<?xi32>, %seed: memref<i64>, %y: memref<?xHEADSx64xDTYPE>) {
  ssd.chunk_scan_varlen x(%x : memref<?xHEADSx64xDTYPE>) dt(%dt : memref<?xHEADSxDTYPE>)
      A(%A : memref<HEADSxDTYPE>) B(%B : memref<?xGROUPSx128xDTYPE>) C(%C : memref<?xGROUPSx128xDTYPE>)
      D(%D : memref<HEADSxDTYPE>) dt_bias(%bias : memref<HEADSxDTYPE>)
      ssm_pool(%pool : memref<?xHEADSx64x128xPOOL>) ssm_pool_scales(%scales : memref<?xHEADSx64xf32>)
      query_start_loc(%qsl : memref<?xi32>)
      has_initial_state(%init : memref<?xi1>) cache_indices(%ci : memref<?xi32>)
      update_state(%upd : memref<?xi1>) checkpoint_slots(%cs : memref<?x8xi32>)
      checkpoint_offsets(%co : memref<?xi32>) checkpoint_interval(16) ROUNDING
      outs(%y : memref<?xHEADSx64xDTYPE>) {form = #ssd<form serial>ATTRIBUTES}
  return
}
