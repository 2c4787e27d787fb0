// One decode step of a Mamba2-2.7B layer (H=80 P=64 N=128 G=1) for a batch of
// 8 sequences, one token each, in the memref form: every sequence starts from
// its pool slot and writes its new state back in place.
func.func @mamba2_decode(
    %x: memref<8x80x64xbf16>, %dt: memref<8x80xbf16>, %A: memref<80xbf16>,
    %B: memref<8x1x128xbf16>, %C: memref<8x1x128xbf16>, %D: memref<80xbf16>,
    %dt_bias: memref<80xbf16>, %pool: memref<64x80x64x128xf32>,
    %query_start_loc: memref<9xi32>, %has_initial_state: memref<8xi1>,
    %cache_indices: memref<8xi32>, %y: memref<8x80x64xbf16>) {
  ssd.chunk_scan_varlen
      x(%x : memref<8x80x64xbf16>) dt(%dt : memref<8x80xbf16>)
      A(%A : memref<80xbf16>) B(%B : memref<8x1x128xbf16>)
      C(%C : memref<8x1x128xbf16>) D(%D : memref<80xbf16>)
      dt_bias(%dt_bias : memref<80xbf16>)
      ssm_pool(%pool : memref<64x80x64x128xf32>)
      query_start_loc(%query_start_loc : memref<9xi32>)
      has_initial_state(%has_initial_state : memref<8xi1>)
      cache_indices(%cache_indices : memref<8xi32>)
      outs(%y : memref<8x80x64xbf16>)
  return
}
