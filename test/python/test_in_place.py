"""ssd_torch.chunk_scan_varlen_ updates the caller's own pool (docs/python.md).

The states are written where the caller holds them: for every pool layout
the op accepts, after the call the caller's tensor (same object, same
data_ptr) holds the states of
reference.py, an independent float64 recurrence, and the storage outside
the pool's view is untouched. A layout the op refuses is refused with a
ValueError before anything is written; a call that returns never leaves
the new states in a copy the caller cannot see.
"""

import pytest
import torch

import ssd_torch
from reference import TOLERANCES, make_inputs, reference, rel_err

OPERANDS = ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc", "cache_indices")
H, P, G, N = 4, 8, 2, 16


def bits(t):
    return t.view(torch.int16 if t.element_size() == 2 else torch.int32)


def run(a, pool, device, **kw):
    """The op on inputs `a` with `pool` as ssm_pool, and the reference's
    y and pool after the call (float64), from the pool as it was before."""
    before = pool.clone()
    hi = torch.tensor([b % 2 == 0 for b in range(a["query_start_loc"].numel() - 1)])
    yr, pr = reference(a["x"], a["dt"], a["A"], a["B"], a["C"], before,
                       a["query_start_loc"], a["cache_indices"], a["D"],
                       a["dt_bias"], hi)
    args = [pool if k == "ssm_pool" else a[k] for k in OPERANDS]
    y = ssd_torch.chunk_scan_varlen_(*args, D=a["D"], dt_bias=a["dt_bias"],
                                     has_initial_state=hi, device=device, **kw)
    return before, y, yr, pr


def assert_holds_reference(pool, before, pr, ci, y, yr):
    """Written slots within docs/overview.md's tolerance of the reference
    (one bf16 step more for a bf16 pool), unwritten slots bit-identical."""
    tol = TOLERANCES[torch.float32]
    assert rel_err(y, yr) <= tol, rel_err(y, yr)
    pool_tol = tol + (2.0 ** -7 if pool.dtype == torch.bfloat16 else 0.0)
    written = {s for s in ci.tolist() if s != -1}
    assert written
    for s in range(pool.shape[0]):
        unchanged = torch.equal(bits(pool[s]), bits(before[s]))
        if s in written:
            assert not unchanged, f"slot {s} of the caller's pool was not written"
            err = rel_err(pool[s], pr[s])
            assert err <= pool_tol, f"slot {s}: error {err} against the reference"
        else:
            assert unchanged, f"slot {s}, which no sequence writes, changed"


def accepted_layouts(S, dtype):
    """(name, pool, storage around it): every pool layout the op takes,
    each a contiguous [S, H, P, N] view."""
    g = torch.Generator().manual_seed(S)

    def rand(*shape):
        return torch.randn(*shape, generator=g).to(dtype)
    pool = rand(S, H, P, N)
    yield "own tensor", pool, pool
    # Slots 2 to S + 1 of a larger pool: a storage offset.
    big = rand(S + 4, H, P, N)
    yield "slots of a larger pool", big[2:S + 2], big
    # A view of a flat buffer, 5 elements in.
    flat = rand(S * H * P * N + 9)
    yield "view of a flat buffer", flat[5:5 + S * H * P * N].view(S, H, P, N), flat
    # One slot: the stride of a dimension of extent 1 is any (torch calls it
    # contiguous).
    if S == 1:
        spare = rand(3 * H * P * N)
        one = spare.as_strided((1, H, P, N), (7, P * N, N, 1), H * P * N)
        assert one.is_contiguous() and one.stride(0) == 7
        yield "one slot, any slot stride", one, spare


def refused_layouts(S, dtype):
    """(name, pool, storage around it): [S, H, P, N] views that are not one
    row-major block."""
    g = torch.Generator().manual_seed(100 + S)

    def rand(*shape):
        return torch.randn(*shape, generator=g).to(dtype)
    wide = rand(S, H, P, 2 * N)
    yield "every other state column", wide[..., ::2], wide
    swapped = rand(S, H, N, P)
    yield "P and N swapped", swapped.transpose(2, 3), swapped
    twice = rand(2 * S, H, P, N)
    yield "every other slot", twice[::2], twice
    last = rand(S, H, P, N)
    yield "channels_last", last.contiguous(memory_format=torch.channels_last), None
    single = rand(1, H, P, N)
    yield "one slot broadcast", single.expand(S, H, P, N), single


def layout_ids(layouts):
    return [name for name, _, _ in layouts]


CASES = [
    # (seqlens, S, device, threads, pool dtypes, options): threads 2 splits
    # a CPU batch into ranges that run as separate calls, each with its own
    # pool pointer; on the GPU emulator the pool goes to device memory and
    # back (one pool dtype: the copies do not look at it; the signature of
    # test_chunk_scan.py's test_gpu_emulator, whose kernel is then cached).
    ([3, 1, 4, 2], 7, "cpu", 1, (torch.float32, torch.bfloat16), {}),
    ([3, 1, 4, 2], 7, "cpu", 2, (torch.float32, torch.bfloat16), {}),
    ([5], 1, "cpu", 1, (torch.float32, torch.bfloat16), {}),
    ([2, 3], 4, "gpu-emu", 1, (torch.float32,), dict(form="chunked", chunk_size=4)),
]


@pytest.mark.parametrize("seqlens,S,device,threads,pool_dtype,options", [
    pytest.param(seqlens, S, device, threads, pool_dtype, options,
                 id=f"{device}-S{S}-threads{threads}-{str(pool_dtype).split('.')[-1]}")
    for seqlens, S, device, threads, pool_dtypes, options in CASES
    for pool_dtype in pool_dtypes])
def test_accepted_layouts_are_updated_in_place(seqlens, S, device, threads, pool_dtype,
                                               options):
    a = make_inputs(seqlens, H=H, P=P, G=G, N=N, S=S, seed=len(seqlens))
    torch.set_num_threads(threads)
    try:
        for name, pool, storage in accepted_layouts(S, pool_dtype):
            assert pool.is_contiguous(), name
            ptr, version = pool.data_ptr(), pool._version
            outside = storage.clone()
            before, y, yr, pr = run(a, pool, device, **options)
            assert pool.data_ptr() == ptr, name
            assert pool._version > version, name
            assert_holds_reference(pool, before, pr, a["cache_indices"], y, yr)
            # Nothing outside the view: put the pool's old values back and
            # the whole storage is as it was.
            pool.copy_(before)
            assert torch.equal(bits(storage), bits(outside)), name
    finally:
        torch.set_num_threads(1)


def test_an_inference_pool_is_updated_in_place():
    a = make_inputs([2, 3], H=H, P=P, G=G, N=N, S=4, seed=2)
    with torch.inference_mode():
        pool = torch.randn(4, H, P, N)
        ptr = pool.data_ptr()
        before, y, yr, pr = run(a, pool, "cpu")
    assert pool.data_ptr() == ptr
    assert_holds_reference(pool, before, pr, a["cache_indices"], y, yr)


@pytest.mark.parametrize("name", layout_ids(refused_layouts(4, torch.float32)))
@pytest.mark.parametrize("device", ["cpu", "gpu-emu"])
def test_other_layouts_never_update_a_copy(name, device):
    # Refused before anything is written, with no wording asked for; a
    # version that took such a pool would have to write through its
    # strides, which the second branch checks.
    a = make_inputs([2, 3], H=H, P=P, G=G, N=N, S=4, seed=3)
    pool, storage = next((p, s) for n, p, s in refused_layouts(4, torch.float32) if n == name)
    assert not pool.is_contiguous()
    storage = pool if storage is None else storage
    ptr = pool.data_ptr()
    whole = storage.clone()
    try:
        before, y, yr, pr = run(a, pool, device)
    except ValueError:
        assert torch.equal(bits(storage), bits(whole))
        return
    assert pool.data_ptr() == ptr
    assert_holds_reference(pool, before, pr, a["cache_indices"], y, yr)
