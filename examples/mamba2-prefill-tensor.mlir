// A prefill of a packed batch of variable-length sequences at Mamba2-2.7B
// shapes, in the tensor form a graph compiler holds: T and batch are only
// known at run time, y is a value, and the pool is a memref updated in place.
func.func @mamba2_prefill(
    %x: tensor<?x80x64xbf16>, %dt: tensor<?x80xbf16>, %A: tensor<80xbf16>,
    %B: tensor<?x1x128xbf16>, %C: tensor<?x1x128xbf16>, %D: tensor<80xbf16>,
    %dt_bias: tensor<80xbf16>, %pool: memref<?x80x64x128xf32>,
    %query_start_loc: tensor<?xi32>, %cache_indices: tensor<?xui32>)
    -> tensor<?x80x64xbf16> {
  %y = ssd.chunk_scan_varlen
      x(%x : tensor<?x80x64xbf16>) dt(%dt : tensor<?x80xbf16>)
      A(%A : tensor<80xbf16>) B(%B : tensor<?x1x128xbf16>)
      C(%C : tensor<?x1x128xbf16>) D(%D : tensor<80xbf16>)
      dt_bias(%dt_bias : tensor<80xbf16>)
      ssm_pool(%pool : memref<?x80x64x128xf32>)
      query_start_loc(%query_start_loc : tensor<?xi32>)
      cache_indices(%cache_indices : tensor<?xui32>)
      -> tensor<?x80x64xbf16>
  return %y : tensor<?x80x64xbf16>
}
