// The SSM part of a Mamba-2 mixer layer at Mamba2-2.7B shapes (d_model 2560,
// expand 2: d_inner 5120 = 80 heads x head_dim 64, d_state 128, 1 group), at
// tensor level as a graph compiler holds it, for one packed launch of
// variable-length sequences (prefill and decode mixed). T and batch are
// dynamic; the state pool is a memref argument updated in place.
//
// Input: the in_proj output zxbcdt [T, 2*d_inner + 2*G*N + H] = [T, 10576],
// columns [z | x | B | C | dt] as in mamba_ssm's Mamba2, with the x, B and C
// columns (xBC) already through the causal depthwise conv1d and SiLU, which
// precede this function in the layer (the conv has its own state cache).
// Output: [T, d_inner] = (y + D * x) * silu(z), where y is the SSD scan; the
// gated RMSNorm and out_proj that follow in the layer are the host's.
//
// !model is the model dtype, !compute the type the skip and gating are
// computed in. examples/mamba2-mixer/mixer-run instantiates this file at
// bf16 (as written), f16 (!model = f16) and f32 (!model = f32 with
// !compute = f64, since arith.extf must widen). Compile by hand with
//
//   ssd-opt mixer.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
//       --convert-linalg-to-loops --ssd-to-cpu
//
// (docs/embedding.md: the host bufferizes and lowers its own ops, the ssd
// pipeline does the rest.)

!model = bf16
!compute = f32

#thp = affine_map<(t, h, p) -> (t, h, p)>
#h = affine_map<(t, h, p) -> (h)>

func.func @mamba2_mixer_ssm(
    %zxbcdt: tensor<?x10576x!model>,
    %A: tensor<80x!model>, %D: tensor<80x!model>, %dt_bias: tensor<80x!model>,
    %ssm_pool: memref<?x80x64x128xf32>,
    %query_start_loc: tensor<?xi32>, %has_initial_state: tensor<?xi1>,
    %cache_indices: tensor<?xi32>) -> tensor<?x5120x!model> {
  %c0 = arith.constant 0 : index
  %T = tensor.dim %zxbcdt, %c0 : tensor<?x10576x!model>

  // Split the projection: z [0, 5120), x [5120, 10240), B [10240, 10368),
  // C [10368, 10496), dt [10496, 10576); heads and groups become dims.
  %z_flat = tensor.extract_slice %zxbcdt[0, 0] [%T, 5120] [1, 1]
      : tensor<?x10576x!model> to tensor<?x5120x!model>
  %x_flat = tensor.extract_slice %zxbcdt[0, 5120] [%T, 5120] [1, 1]
      : tensor<?x10576x!model> to tensor<?x5120x!model>
  %B_flat = tensor.extract_slice %zxbcdt[0, 10240] [%T, 128] [1, 1]
      : tensor<?x10576x!model> to tensor<?x128x!model>
  %C_flat = tensor.extract_slice %zxbcdt[0, 10368] [%T, 128] [1, 1]
      : tensor<?x10576x!model> to tensor<?x128x!model>
  %dt = tensor.extract_slice %zxbcdt[0, 10496] [%T, 80] [1, 1]
      : tensor<?x10576x!model> to tensor<?x80x!model>
  %z = tensor.expand_shape %z_flat [[0], [1, 2]] output_shape [%T, 80, 64]
      : tensor<?x5120x!model> into tensor<?x80x64x!model>
  %x = tensor.expand_shape %x_flat [[0], [1, 2]] output_shape [%T, 80, 64]
      : tensor<?x5120x!model> into tensor<?x80x64x!model>
  %B = tensor.expand_shape %B_flat [[0], [1, 2]] output_shape [%T, 1, 128]
      : tensor<?x128x!model> into tensor<?x1x128x!model>
  %C = tensor.expand_shape %C_flat [[0], [1, 2]] output_shape [%T, 1, 128]
      : tensor<?x128x!model> into tensor<?x1x128x!model>

  // The scan, with softplus(dt + dt_bias) and without D: the skip is applied
  // below together with the gate.
  %y = ssd.chunk_scan_varlen
      x(%x : tensor<?x80x64x!model>) dt(%dt : tensor<?x80x!model>)
      A(%A : tensor<80x!model>) B(%B : tensor<?x1x128x!model>)
      C(%C : tensor<?x1x128x!model>) dt_bias(%dt_bias : tensor<80x!model>)
      ssm_pool(%ssm_pool : memref<?x80x64x128xf32>)
      query_start_loc(%query_start_loc : tensor<?xi32>)
      has_initial_state(%has_initial_state : tensor<?xi1>)
      cache_indices(%cache_indices : tensor<?xi32>)
      -> tensor<?x80x64x!model>

  // out = (y + D[h] * x) * z * sigmoid(z), computed in !compute, rounded
  // once to the model dtype.
  %empty = tensor.empty(%T) : tensor<?x80x64x!model>
  %gated = linalg.generic {
      indexing_maps = [#thp, #thp, #thp, #h, #thp],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %x, %z, %D : tensor<?x80x64x!model>, tensor<?x80x64x!model>,
                           tensor<?x80x64x!model>, tensor<80x!model>)
      outs(%empty : tensor<?x80x64x!model>) {
  ^bb0(%yv: !model, %xv: !model, %zv: !model, %dv: !model, %unused: !model):
    %one = arith.constant 1.0 : !compute
    %yc = arith.extf %yv : !model to !compute
    %xc = arith.extf %xv : !model to !compute
    %zc = arith.extf %zv : !model to !compute
    %dc = arith.extf %dv : !model to !compute
    %dx = arith.mulf %dc, %xc : !compute
    %skip = arith.addf %yc, %dx : !compute
    %negz = arith.negf %zc : !compute
    %expnegz = math.exp %negz : !compute
    %denom = arith.addf %one, %expnegz : !compute
    %silu = arith.divf %zc, %denom : !compute
    %outc = arith.mulf %skip, %silu : !compute
    %out = arith.truncf %outc : !compute to !model
    linalg.yield %out : !model
  } -> tensor<?x80x64x!model>
  %result = tensor.collapse_shape %gated [[0], [1, 2]]
      : tensor<?x80x64x!model> into tensor<?x5120x!model>
  return %result : tensor<?x5120x!model>
}
