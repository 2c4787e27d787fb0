"""ssd.chunk_scan_varlen as a PyTorch op (docs/python.md).

    import ssd_torch
    y = ssd_torch.chunk_scan_varlen_(x, dt, A, B, C, ssm_pool,
                                     query_start_loc, cache_indices)

updates the state pool `ssm_pool` in place and returns y. The op is also
registered as torch.ops.ssd.chunk_scan_varlen_.
"""

import os

import torch

from . import _aot

__all__ = ["chunk_scan_varlen_", "compiled_kernels", "load_kernels"]

# The compiled CPU op, built against Debian's torch: loaded when present and
# loadable. CUDA tensors go through a kernel library instead (_aot.py: ctypes,
# no compiled torch extension), so a torch of another version or a package
# without the extension can still run them; SSD_TORCH_NO_EXTENSION=1 skips
# loading it.
_extension_error = None
_op = None
if os.environ.get("SSD_TORCH_NO_EXTENSION", "") not in ("", "0"):
    _extension_error = "SSD_TORCH_NO_EXTENSION is set"
else:
    try:
        torch.ops.load_library(os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "libssd_torch_ops.so"))
        _op = torch.ops.ssd.chunk_scan_varlen_
    except (OSError, RuntimeError) as e:
        _extension_error = str(e).splitlines()[0] if str(e) else type(e).__name__


def _device():
    device = os.environ.get("SSD_TORCH_DEVICE", "cpu")
    return device or "cpu"


def load_kernels(path, device=None):
    """Loads the kernel library at `path` (`python3 -m ssd_torch.kernels
    build`) once per process, for CUDA device `device` (a torch.device or
    an index; default the current one) when it is a CUDA library: pass it as
    `kernels=` to chunk_scan_varlen_."""
    if isinstance(device, torch.device):
        device = device.index
    if device is None and torch.cuda.is_available():
        device = torch.cuda.current_device()
    return _aot.load(path, device)


def chunk_scan_varlen_(x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices, *,
                       D=None, dt_bias=None, has_initial_state=None,
                       update_state=None, form="auto", chunk_size=None, device=None,
                       checkpoint_slots=None, checkpoint_offsets=None,
                       checkpoint_interval=None, invariant=False,
                       token_parents=None, ssm_pool_scales=None, pool_dtype=None,
                       pool_rounding="nearest", rounding_seed=None,
                       kernels=None, check_indices=None):
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

    CUDA tensors (docs/python.md, "CUDA tensors"): `device="aot"`, the
    default for CUDA tensors or when `kernels` is given, runs an
    ahead-of-time variant of a kernel library (`kernels`, a path or
    load_kernels()'s result, by default $SSD_TORCH_KERNELS) on torch's
    current stream, with no device allocation or host synchronisation per
    call. `check_indices` checks the index operands' values first (the
    default for CPU tensors, i.e. the GPU emulator's libraries; on CUDA a
    copy to the host and a wait). There `rounding_seed` may also be a 0-d
    int64 tensor on the device (updated between CUDA graph replays).
    """
    if device is None:
        device = "aot" if (kernels is not None or (
            isinstance(x, torch.Tensor) and x.device.type == "cuda")) else _device()
    if device not in ("cpu", "gpu-emu", "aot"):
        raise ValueError("device: '%s' is not cpu, gpu-emu or aot" % device)
    if device == "aot":
        return _aot.chunk_scan_varlen_(
            x, dt, A, B, C, ssm_pool, query_start_loc, cache_indices, D, dt_bias,
            has_initial_state, update_state, form, chunk_size, checkpoint_slots,
            checkpoint_offsets, checkpoint_interval, invariant, token_parents,
            ssm_pool_scales, pool_dtype, pool_rounding, rounding_seed, kernels,
            check_indices)
    if kernels is not None or check_indices is not None:
        raise ValueError("kernels and check_indices: for device=\"aot\" (a "
                         "kernel library), not device=\"%s\"" % device)
    if _op is None:
        raise RuntimeError("ssd.chunk_scan_varlen_: device=\"%s\" needs the "
                           "compiled op libssd_torch_ops.so, which did not load "
                           "(%s); CUDA tensors need only a kernel library "
                           "(docs/python.md)" % (device, _extension_error))
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
    if _op is None:
        return 0
    return torch.ops.ssd.compiled_kernels()
