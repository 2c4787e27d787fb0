"""ssd.chunk_scan_varlen as a PyTorch op (docs/python.md).

    import ssd_torch
    y = ssd_torch.chunk_scan_varlen_(x, dt, A, B, C, ssm_pool,
                                     query_start_loc, cache_indices)

updates the state pool `ssm_pool` in place and returns y. The op is also
registered as torch.ops.ssd.chunk_scan_varlen_.
"""

import os

import torch

__all__ = ["chunk_scan_varlen_", "compiled_kernels"]

torch.ops.load_library(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "libssd_torch_ops.so"))

_op = torch.ops.ssd.chunk_scan_varlen_


def _device():
    device = os.environ.get("SSD_TORCH_DEVICE", "cpu")
    return device or "cpu"


def chunk_scan_varlen_(x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices, *,
                       D=None, dt_bias=None, has_initial_state=None,
                       update_state=None, form="auto", chunk_size=None, device=None,
                       checkpoint_slots=None, checkpoint_offsets=None,
                       checkpoint_interval=None, invariant=False,
                       token_parents=None, ssm_pool_scales=None, pool_dtype=None,
                       pool_rounding="nearest", rounding_seed=None):
    """Runs ssd.chunk_scan_varlen (docs/overview.md) on CPU tensors.

    Writes the final state of every writing sequence into its slot of
    `ssm_pool` in place and returns y [T, H, P] in x's dtype. `form` is
    "auto", "serial" or "chunked"; `device` is "cpu" (the compiled CPU
    kernel) or "gpu-emu" (the GPU kernels on the GPU emulator), by default
    $SSD_TORCH_DEVICE or "cpu". A bad argument raises ValueError, a failed
    execution RuntimeError; either way the pool is untouched.

    State checkpoints (docs/overview.md, "State checkpoints"):
    `checkpoint_slots` (int32 [batch, K], -1 for an unused entry) with
    `checkpoint_interval` I >= 1 stores the state after every I-th token a
    sequence holds into its row's next slot; `checkpoint_offsets` (int32
    [batch]) gives the tokens each sequence held before this call.

    `invariant=True` compiles an invariant op: every sequence's y rows and
    states are bit-identical however the call batches, splits or forms it.

    Draft trees (docs/overview.md, "Tree verification"): `token_parents`
    (int32 [T]) gives each token's parent as a local index of its sequence
    (0 <= p < j for its j-th token), or -1 for the sequence's initial
    state; each token's state is its parent's updated by the token, and the
    final state is the sequence's last token's. It runs the serial form
    (form "auto" or "serial", not invariant), and with checkpoints needs
    checkpoint_interval 1: column j holds token j's state.

    Compressed pools (docs/overview.md, "Compressed state pools"): the
    pool's dtype is its storage type: float32, bfloat16, float16, int8
    (codes -127..127), or uint8 holding f8E4M3FN codes with
    `pool_dtype="f8e4m3"`. The 8-bit pools take `ssm_pool_scales` (float32
    [S, H, P], one scale per row, updated in place with the pool).
    `pool_rounding` is "nearest" (ties to even) or "stochastic", which
    needs `rounding_seed` (an int64; give each call its own).
    """
    try:
        return _op(x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices,
                   D, dt_bias, has_initial_state, update_state, form, chunk_size,
                   device or _device(), checkpoint_slots, checkpoint_offsets,
                   checkpoint_interval, bool(invariant), token_parents,
                   ssm_pool_scales, pool_dtype, pool_rounding, rounding_seed)
    except (ValueError, RuntimeError) as e:
        # torch may append its C++ context on further lines: keep the message.
        lines = str(e).splitlines()
        if len(lines) > 1:
            raise type(e)(lines[0]) from None
        raise


def compiled_kernels():
    """How many kernels this process compiled (one per signature)."""
    return torch.ops.ssd.compiled_kernels()
