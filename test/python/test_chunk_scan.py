"""pytest suite of ssd_torch.chunk_scan_varlen_ (docs/python.md).

Every result is compared with reference.py, an independent float64
recurrence, within the tolerances of docs/overview.md "Accuracy"; every
slot that no sequence writes must stay bit-identical.
"""

import threading

import pytest
import torch

import ssd_torch
from reference import TOLERANCES, make_inputs, random_parents, reference, rel_err

OPERANDS = ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc", "cache_indices")


def call(a, **kw):
    args = [a[k] for k in OPERANDS]
    kw.setdefault("D", a.get("D"))
    kw.setdefault("dt_bias", a.get("dt_bias"))
    return ssd_torch.chunk_scan_varlen_(*args, **kw)


def check(a, pool_before, y, **kw):
    """y and the pool against the reference; unwritten slots bit-identical."""
    yr, pr = reference(a["x"], a["dt"], a["A"], a["B"], a["C"], pool_before,
                       a["query_start_loc"], a["cache_indices"], a.get("D"),
                       a.get("dt_bias"), kw.get("has_initial_state"),
                       kw.get("update_state"), kw.get("checkpoint_slots"),
                       kw.get("checkpoint_offsets"), kw.get("checkpoint_interval"),
                       kw.get("token_parents"))
    tol = TOLERANCES[a["x"].dtype]
    assert y.dtype == a["x"].dtype and y.shape == a["x"].shape
    assert torch.isfinite(y.float()).all()
    assert rel_err(y, yr) <= tol, rel_err(y, yr)
    pool = a["ssm_pool"]
    ci = a["cache_indices"].reshape(-1).tolist()
    update = kw.get("update_state")
    written = {s for b, s in enumerate(ci)
               if s != -1 and (update is None or bool(update[b]))}
    written |= checkpoints_written(a, kw)
    # A bf16 pool holds the state rounded once to bf16: the tolerance
    # applies beyond that rounding (docs/overview.md, Accuracy).
    pool_err = bf16_pool_err if pool.dtype == torch.bfloat16 else rel_err
    for s in range(pool.shape[0]):
        if s in written:
            assert torch.isfinite(pool[s].float()).all()
            assert pool_err(pool[s], pr[s]) <= tol, (s, pool_err(pool[s], pr[s]))
        else:
            assert torch.equal(pool[s].view(torch.int16 if pool.dtype == torch.bfloat16
                                            else torch.int32),
                               pool_before[s].view(torch.int16 if pool.dtype == torch.bfloat16
                                                   else torch.int32)), s


def bf16_pool_err(out, ref):
    """rel_err of a bf16 pool slot against the unrounded reference state,
    less the one rounding to bf16 the op applies: at most half the spacing
    of bf16 values at each stored value (8 significand bits; a value that
    rounds to v is in v's binade or just below it, where the spacing is no
    larger)."""
    out, ref = out.double(), ref.double()
    if ref.numel() == 0:
        return 0.0
    _, e = torch.frexp(out.abs())
    half_step = torch.ldexp(torch.ones_like(out), torch.clamp(e - 1, min=-126) - 8)
    excess = ((out - ref).abs() - half_step).clamp(min=0).max().item()
    scale = ref.abs().max().item()
    return excess / (scale if scale > 0 else 1.0)


def checkpoints_written(a, kw):
    """The checkpoint slots the call reaches (docs/overview.md, "State
    checkpoints"), worked out from the rule rather than from the reference."""
    slots, I = kw.get("checkpoint_slots"), kw.get("checkpoint_interval")
    if slots is None:
        return set()
    offsets = kw.get("checkpoint_offsets")
    qsl = a["query_start_loc"].tolist()
    ci = a["cache_indices"].reshape(-1).tolist()
    out = set()
    for b in range(len(qsl) - 1):
        if ci[b] == -1:
            continue
        o = int(offsets[b]) if offsets is not None else 0
        for held in range(o + 1, o + qsl[b + 1] - qsl[b] + 1):
            k = held // I - o // I - 1
            if held % I == 0 and k < slots.shape[1] and int(slots[b, k]) != -1:
                out.add(int(slots[b, k]))
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("pool_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("form", ["serial", "chunked"])
def test_dtypes_and_forms(dtype, pool_dtype, form):
    a = make_inputs([1, 7, 3, 1, 12], dtype=dtype, pool_dtype=pool_dtype, seed=1)
    before = a["ssm_pool"].clone()
    hi = torch.tensor([True, True, False, True, True])
    y = call(a, has_initial_state=hi, form=form, chunk_size=4)
    check(a, before, y, has_initial_state=hi)


def test_padding_update_state_and_unwritten_slots():
    a = make_inputs([2, 1, 3, 1], S=8, seed=2)
    a["cache_indices"] = torch.tensor([5, -1, 2, 0], dtype=torch.int32)
    before = a["ssm_pool"].clone()
    hi = torch.tensor([True, True, True, False])
    up = torch.tensor([True, True, False, True])
    y = call(a, has_initial_state=hi, update_state=up)
    check(a, before, y, has_initial_state=hi, update_state=up)
    # Slot 2 (update_state false), the padding and the unnamed slots.
    for s in (1, 2, 3, 4, 6, 7):
        assert torch.equal(a["ssm_pool"][s], before[s])
    assert not torch.equal(a["ssm_pool"][5], before[5])


def test_several_readers_one_writer():
    # Sequence 0 writes slot 3, sequences 3 and 4 read it. Readers see the
    # pool as it was before the call, with one thread or several. With two
    # threads an unsafe split would give sequences 2-4 to the second
    # thread, which reads slot 3 after 2000 tokens, long after the first
    # wrote it.
    for threads, long in ((1, 3), (2, 2000)):
        torch.set_num_threads(threads)
        a = make_inputs([1, long, long, 1, 1], S=5, seed=threads)
        a["cache_indices"] = torch.tensor([3, -1, -1, 3, 3], dtype=torch.int32)
        before = a["ssm_pool"].clone()
        hi = torch.ones(5, dtype=torch.bool)
        up = torch.tensor([True, False, False, False, False])
        y = call(a, has_initial_state=hi, update_state=up, form="serial")
        check(a, before, y, has_initial_state=hi, update_state=up)
    torch.set_num_threads(1)


def test_row_cache_indices_and_no_optional_operands():
    a = make_inputs([3, 1], seed=4, with_D=False, with_dt_bias=False)
    a["cache_indices"] = a["cache_indices"].reshape(1, -1)
    before = a["ssm_pool"].clone()
    y = call(a)
    check(a, before, y)


def test_dynamic_batch_sizes_reuse_the_kernel():
    torch.set_num_threads(2)
    call(make_inputs([1, 1], S=300, seed=5), form="serial",
         has_initial_state=torch.ones(2, dtype=torch.bool))
    compiled = ssd_torch.compiled_kernels()
    for batch in (1, 3, 16, 64, 255):
        a = make_inputs([1] * batch, S=300, seed=batch)
        before = a["ssm_pool"].clone()
        hi = torch.ones(batch, dtype=torch.bool)
        y = call(a, has_initial_state=hi, form="serial")
        check(a, before, y, has_initial_state=hi)
    assert ssd_torch.compiled_kernels() == compiled
    torch.set_num_threads(1)


def test_non_contiguous_inputs_are_read():
    a = make_inputs([2, 3], seed=6)
    a["x"] = a["x"].transpose(1, 2).contiguous().transpose(1, 2)
    assert not a["x"].is_contiguous()
    before = a["ssm_pool"].clone()
    y = call(a)
    check(a, before, y)


def test_threads_share_one_pool():
    # Two Python threads, disjoint slots of one pool, many calls each.
    a = make_inputs([1] * 8, S=16, seed=7)
    pool = a["ssm_pool"]
    before = pool.clone()
    halves = [dict(a), dict(a)]
    halves[0]["cache_indices"] = torch.arange(0, 8, dtype=torch.int32)
    halves[1]["cache_indices"] = torch.arange(8, 16, dtype=torch.int32)
    hi = torch.ones(8, dtype=torch.bool)
    expected = []
    for h in halves:
        expected.append(reference(h["x"], h["dt"], h["A"], h["B"], h["C"], before,
                                  h["query_start_loc"], h["cache_indices"], h["D"],
                                  h["dt_bias"], hi)[1])
    steps = 20
    ref_pools = [before.double().clone(), before.double().clone()]
    for i, h in enumerate(halves):
        for _ in range(steps):
            ref_pools[i] = reference(h["x"], h["dt"], h["A"], h["B"], h["C"], ref_pools[i],
                                     h["query_start_loc"], h["cache_indices"], h["D"],
                                     h["dt_bias"], hi)[1]
    errors = []

    def run(h):
        try:
            for _ in range(steps):
                call(h, has_initial_state=hi)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(h,)) for h in halves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert rel_err(pool[:8], ref_pools[0][:8]) <= 5e-4
    assert rel_err(pool[8:], ref_pools[1][8:]) <= 5e-4


@pytest.mark.parametrize("dtype,pool_dtype,form", [
    (torch.float32, torch.float32, "chunked"),
    (torch.bfloat16, torch.bfloat16, "serial"),
])
def test_gpu_emulator(dtype, pool_dtype, form, monkeypatch):
    a = make_inputs([1, 5, 1, 9], dtype=dtype, pool_dtype=pool_dtype, seed=8)
    a["cache_indices"][1] = -1
    before = a["ssm_pool"].clone()
    hi = torch.tensor([True, True, False, True])
    monkeypatch.setenv("SSD_TORCH_DEVICE", "gpu-emu")
    y = call(a, has_initial_state=hi, form=form, chunk_size=4)
    check(a, before, y, has_initial_state=hi)


def checkpoint_case(seed=16):
    """Four sequences (one padding, one that does not update its slot) with
    offsets, an unused entry and a column that no boundary reaches; the
    checkpoint slots are the pool's last 12, which no sequence names."""
    a = make_inputs([5, 7, 3, 6], S=16, seed=seed)
    a["cache_indices"] = torch.tensor([2, 0, -1, 3], dtype=torch.int32)
    kw = dict(
        has_initial_state=torch.tensor([True, False, True, True]),
        update_state=torch.tensor([True, True, True, False]),
        checkpoint_slots=torch.tensor([[4, 5, 6], [7, -1, 8], [9, 10, 11],
                                       [12, 13, 14]], dtype=torch.int32),
        checkpoint_offsets=torch.tensor([1, 0, 2, 4], dtype=torch.int32),
        checkpoint_interval=2)
    return a, kw


@pytest.mark.parametrize("form", ["serial", "chunked"])
@pytest.mark.parametrize("threads", [1, 2])
def test_checkpoints(form, threads):
    torch.set_num_threads(threads)
    a, kw = checkpoint_case()
    before = a["ssm_pool"].clone()
    y = call(a, form=form, chunk_size=4, **kw)
    check(a, before, y, **kw)
    # Sequence 0 (o = 1, 5 tokens) holds 2, 4, 6 tokens after its tokens 0,
    # 2, 4: slots 4, 5, 6. Sequence 1 (o = 0, 7 tokens): boundaries after
    # tokens 1, 3, 5 go to 7, (unused), 8. Sequence 3 (o = 4, 6 tokens),
    # update_state false: 6, 8, 10 tokens -> 12, 13, 14. The padding
    # sequence's row (9, 10, 11) is never written.
    assert checkpoints_written(a, kw) == {4, 5, 6, 7, 8, 12, 13, 14}
    for s in (9, 10, 11, 15, 1):
        assert torch.equal(a["ssm_pool"][s], before[s]), s
    torch.set_num_threads(1)


def test_resume_from_a_checkpoint():
    # 12 tokens with interval 4, then the last 4 alone from the checkpoint
    # after token 7 (offset 8): both calls against the reference, and the
    # resumed call's y rows and states against the uncut sequence's
    # reference.
    a = make_inputs([12], S=6, seed=17)
    a["cache_indices"] = torch.tensor([0], dtype=torch.int32)
    slots = torch.tensor([[1, 2, 3]], dtype=torch.int32)
    before = a["ssm_pool"].clone()
    y = call(a, checkpoint_slots=slots, checkpoint_interval=4)
    check(a, before, y, checkpoint_slots=slots, checkpoint_interval=4)
    yr, pr = reference(a["x"], a["dt"], a["A"], a["B"], a["C"], before,
                       a["query_start_loc"], a["cache_indices"], a["D"],
                       a["dt_bias"], checkpoint_slots=slots,
                       checkpoint_interval=4)
    b = dict(a)
    for k in ("x", "dt", "B", "C"):
        b[k] = a[k][8:]
    b["query_start_loc"] = torch.tensor([0, 4], dtype=torch.int32)
    b["cache_indices"] = torch.tensor([2], dtype=torch.int32)
    b["ssm_pool"] = a["ssm_pool"].clone()
    resumed = dict(has_initial_state=torch.tensor([True]),
                   checkpoint_slots=torch.tensor([[4]], dtype=torch.int32),
                   checkpoint_offsets=torch.tensor([8], dtype=torch.int32),
                   checkpoint_interval=4)
    b_before = b["ssm_pool"].clone()
    y2 = call(b, **resumed)
    check(b, b_before, y2, **resumed)
    tol = TOLERANCES[torch.float32]
    assert rel_err(y2, yr[8:]) <= tol, rel_err(y2, yr[8:])
    # The final state, and the checkpoint after token 11, are the uncut
    # sequence's final state; the uncut call wrote that checkpoint with the
    # same bits as its final state.
    assert rel_err(b["ssm_pool"][2], pr[0]) <= tol
    assert rel_err(b["ssm_pool"][4], pr[0]) <= tol
    assert torch.equal(a["ssm_pool"][3], a["ssm_pool"][0])


def test_checkpoints_on_the_gpu_emulator(monkeypatch):
    a, kw = checkpoint_case(seed=18)
    before = a["ssm_pool"].clone()
    monkeypatch.setenv("SSD_TORCH_DEVICE", "gpu-emu")
    y = call(a, form="chunked", chunk_size=4, **kw)
    check(a, before, y, **kw)


def tree_case(seed, dtype=torch.float32, pool_dtype=torch.bfloat16):
    """Seven sequences: random trees, a one-token and an empty sequence, a
    12-token chain written as parents j - 1 (sequence 2), a padding
    sequence with tokens (4); mixed initial states and updates; checkpoints
    at interval 1 (column j: token j's state) with offsets, unused entries,
    and K = 12 below sequence 5's 16 tokens, so its last four reach none."""
    seqlens = [7, 1, 12, 0, 5, 16, 3]
    batch, K = len(seqlens), 12
    S = batch + 2 + batch * K
    a = make_inputs(seqlens, S=S, dtype=dtype, pool_dtype=pool_dtype, seed=seed)
    g = torch.Generator().manual_seed(seed)
    a["cache_indices"] = torch.randperm(batch + 2, generator=g)[:batch].to(torch.int32)
    a["cache_indices"][4] = -1
    ck = torch.arange(batch + 2, S, dtype=torch.int32).reshape(batch, K)
    ck[torch.rand(batch, K, generator=g) < 0.25] = -1
    kw = dict(
        has_initial_state=torch.tensor([True, False, True, True, True, False, True]),
        update_state=torch.tensor([True, True, False, True, True, True, True]),
        checkpoint_slots=ck,
        checkpoint_offsets=torch.randint(0, 5, (batch,), generator=g, dtype=torch.int32),
        checkpoint_interval=1,
        token_parents=random_parents(seqlens, seed, chains={2}))
    return a, kw


def chain_parents(a):
    """token_parents of every token's parent the one before it."""
    q = a["query_start_loc"].tolist()
    return torch.tensor([t - q[b] - 1 for b in range(len(q) - 1)
                         for t in range(q[b], q[b + 1])], dtype=torch.int32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("form", ["serial", "auto"])
@pytest.mark.parametrize("threads", [1, 2])
def test_tree_batch(dtype, form, threads):
    torch.set_num_threads(threads)
    a, kw = tree_case(seed=31, dtype=dtype)
    parents = kw["token_parents"].tolist()
    q = a["query_start_loc"].tolist()
    # Trees indeed: some token's parent is neither -1 nor the one before.
    assert any(p not in (-1, t - q[b] - 1) for b in range(len(q) - 1)
               for t, p in zip(range(q[b], q[b + 1]), parents[q[b]:q[b + 1]]))
    before = a["ssm_pool"].clone()
    y = call(a, form=form, **kw)
    check(a, before, y, **kw)
    torch.set_num_threads(1)


def test_tree_checkpoint_of_the_last_token_is_the_final_state():
    a, kw = tree_case(seed=32, pool_dtype=torch.float32)
    kw["update_state"] = None
    before = a["ssm_pool"].clone()
    y = call(a, **kw)
    check(a, before, y, **kw)
    # Sequence 0 (7 tokens, a tree) writes its slot and the checkpoints of
    # its tokens: the last one's is its final state, bit for bit.
    ck = kw["checkpoint_slots"][0].tolist()
    slot = int(a["cache_indices"][0])
    assert ck[6] != -1 and kw["token_parents"][6] != 5
    assert torch.equal(a["ssm_pool"][ck[6]].view(torch.int32),
                       a["ssm_pool"][slot].view(torch.int32))


def test_tree_chain_as_parents_is_bit_identical(monkeypatch):
    for device in ("cpu", "gpu-emu"):
        monkeypatch.setenv("SSD_TORCH_DEVICE", device)
        a, kw = tree_case(seed=33)
        kw["token_parents"] = chain_parents(a)
        plain = dict(kw, token_parents=None)
        pools = [a["ssm_pool"].clone(), a["ssm_pool"].clone()]
        y_tree = call(dict(a, ssm_pool=pools[0]), form="serial", **kw)
        y_chain = call(dict(a, ssm_pool=pools[1]), form="serial", **plain)
        assert torch.equal(y_tree.view(torch.int32), y_chain.view(torch.int32)), device
        assert torch.equal(pools[0].view(torch.int16), pools[1].view(torch.int16)), device


def test_tree_all_roots():
    a, kw = tree_case(seed=34)
    kw["token_parents"] = torch.full((a["x"].shape[0],), -1, dtype=torch.int32)
    before = a["ssm_pool"].clone()
    y = call(a, **kw)
    check(a, before, y, **kw)


@pytest.mark.parametrize("dtype,pool_dtype", [
    (torch.float32, torch.float32),
    (torch.bfloat16, torch.bfloat16),
])
def test_tree_on_the_gpu_emulator(dtype, pool_dtype, monkeypatch):
    a, kw = tree_case(seed=35, dtype=dtype, pool_dtype=pool_dtype)
    before = a["ssm_pool"].clone()
    monkeypatch.setenv("SSD_TORCH_DEVICE", "gpu-emu")
    y = call(a, form="serial", **kw)
    check(a, before, y, **kw)


def _bad(a, name, value):
    b = dict(a)
    b[name] = value
    return b


def error_cases():
    a = make_inputs([2, 1, 3], S=6, seed=9)
    i32 = torch.int32
    g = torch.zeros(2, 2, requires_grad=True)
    yield "x dtype", _bad(a, "x", a["x"].double()), {}, ValueError, "x: dtype"
    yield "dt dtype", _bad(a, "dt", a["dt"].half()), {}, ValueError, "dt: dtype"
    yield "pool dtype", _bad(a, "ssm_pool", a["ssm_pool"].double()), {}, ValueError, "ssm_pool: dtype"
    yield "qsl dtype", _bad(a, "query_start_loc", a["query_start_loc"].long()), {}, ValueError, "query_start_loc: dtype"
    yield "ci dtype", _bad(a, "cache_indices", a["cache_indices"].long()), {}, ValueError, "cache_indices: dtype"
    yield "mask dtype", a, {"has_initial_state": torch.ones(3, dtype=torch.uint8)}, ValueError, "has_initial_state: dtype"
    yield "x rank", _bad(a, "x", a["x"][0]), {}, ValueError, "x: expected rank 3"
    yield "dt shape", _bad(a, "dt", a["dt"][:-1]), {}, ValueError, "dt: shape"
    yield "A shape", _bad(a, "A", a["A"][:-1]), {}, ValueError, "A: shape"
    yield "B shape", _bad(a, "B", a["B"][:-1]), {}, ValueError, "B: shape"
    yield "C shape", _bad(a, "C", a["C"][:, :, :-1]), {}, ValueError, "C: shape"
    yield "G divides H", _bad(_bad(a, "B", torch.zeros(6, 3, 16)), "C", torch.zeros(6, 3, 16)), {}, ValueError, "not a multiple of G"
    yield "D shape", a, {"D": torch.zeros(3)}, ValueError, "D: shape"
    yield "pool shape", _bad(a, "ssm_pool", a["ssm_pool"][:, :, :, :-1]), {}, ValueError, "ssm_pool: shape"
    yield "pool layout", _bad(a, "ssm_pool", torch.zeros(6, 4, 8, 32)[..., ::2]), {}, ValueError, "ssm_pool: not contiguous"
    yield "ci shape", _bad(a, "cache_indices", torch.zeros(2, 3, dtype=i32)), {}, ValueError, "cache_indices: shape"
    yield "mask shape", a, {"update_state": torch.ones(4, dtype=torch.bool)}, ValueError, "update_state: shape"
    yield "qsl start", _bad(a, "query_start_loc", torch.tensor([1, 2, 3, 6], dtype=i32)), {}, ValueError, "first offset is 1"
    yield "qsl order", _bad(a, "query_start_loc", torch.tensor([0, 3, 2, 6], dtype=i32)), {}, ValueError, "offsets decrease"
    yield "qsl end", _bad(a, "query_start_loc", torch.tensor([0, 2, 3, 5], dtype=i32)), {}, ValueError, "last offset is 5"
    yield "slot range", _bad(a, "cache_indices", torch.tensor([0, 6, 1], dtype=i32)), {}, ValueError, "index 6 of sequence 1 is out of range"
    yield "negative slot", _bad(a, "cache_indices", torch.tensor([0, -2, 1], dtype=i32)), {}, ValueError, "index -2"
    yield "two writers", _bad(a, "cache_indices", torch.tensor([4, 1, 4], dtype=i32)), {}, ValueError, "sequences 0 and 2 both write slot 4"
    yield "requires grad", _bad(a, "A", a["A"].clone().requires_grad_()), {}, ValueError, "A: requires grad"
    yield "form", a, {"form": "fast"}, ValueError, "form: 'fast'"
    yield "chunk size", a, {"chunk_size": 0}, ValueError, "chunk_size: must be in [1, 65536], got 0"
    yield "device", a, {"device": "tpu"}, ValueError, "device: 'tpu'"
    # Checkpoints: f0, f1, f2 are the slots no sequence names.
    f0, f1, f2 = sorted(set(range(6)) - set(a["cache_indices"].tolist()))
    ck = torch.tensor([[f0, f1], [-1, -1], [-1, f2]], dtype=i32)

    def ckw(slots=ck, **kw):
        return dict(checkpoint_slots=slots, checkpoint_interval=2, **kw)
    yield "checkpoint without interval", a, {"checkpoint_slots": ck}, ValueError, "checkpoint_interval: required with checkpoint_slots"
    yield "interval without checkpoints", a, {"checkpoint_interval": 2}, ValueError, "checkpoint_interval: given without checkpoint_slots"
    yield "checkpoint interval 0", a, {"checkpoint_slots": ck, "checkpoint_interval": 0}, ValueError, "checkpoint_interval: 0 is not >= 1"
    yield "offsets without checkpoints", a, {"checkpoint_offsets": torch.zeros(3, dtype=i32)}, ValueError, "checkpoint_offsets: given without checkpoint_slots"
    yield "checkpoint dtype", a, ckw(ck.long()), ValueError, "checkpoint_slots: dtype"
    yield "checkpoint offsets dtype", a, ckw(checkpoint_offsets=torch.zeros(3)), ValueError, "checkpoint_offsets: dtype"
    yield "checkpoint shape", a, ckw(ck[:2]), ValueError, "checkpoint_slots: shape [2, 2] does not match [batch, K] = [3, 2]"
    yield "checkpoint rank", a, ckw(ck.reshape(-1)), ValueError, "checkpoint_slots: expected rank 2"
    yield "checkpoint range", a, ckw(torch.tensor([[f0, 6], [-1, -1], [-1, -1]], dtype=i32)), ValueError, "checkpoint_slots: slot 6 at sequence 0, column 1 is out of range for a pool of 6 slots"
    yield "checkpoint -2", a, ckw(torch.tensor([[f0, -2], [-1, -1], [-1, -1]], dtype=i32)), ValueError, "checkpoint_slots: slot -2 at sequence 0, column 1 is out of range"
    yield "checkpoint repeated", a, ckw(torch.tensor([[f0, f1], [-1, -1], [-1, f0]], dtype=i32)), ValueError, "at sequence 2, column 1 repeats sequence 0, column 0"
    yield "checkpoint on a written slot", a, ckw(torch.tensor([[f0, -1], [int(a["cache_indices"][1]), -1], [-1, -1]], dtype=i32)), ValueError, "at sequence 1, column 0 is the final state sequence 1 writes"
    yield "checkpoint on a read slot", a, ckw(torch.tensor([[-1, -1], [-1, int(a["cache_indices"][0])], [-1, -1]], dtype=i32), has_initial_state=torch.tensor([True, False, False]), update_state=torch.tensor([False, True, True])), ValueError, "at sequence 1, column 1 is the initial state sequence 0 reads"
    yield "checkpoint offset", a, ckw(checkpoint_offsets=torch.tensor([0, -3, 0], dtype=i32)), ValueError, "checkpoint_offsets: offset -3 of sequence 1 is negative"
    yield "checkpoint offsets shape", a, ckw(checkpoint_offsets=torch.zeros(2, dtype=i32)), ValueError, "checkpoint_offsets: shape"
    # Draft trees: T = 6, sequences of tokens 0-1, 2, 3-5.
    tp = torch.tensor([-1, 0, -1, -1, 0, 1], dtype=i32)

    def tpw(parents, **kw):
        return dict(token_parents=torch.tensor(parents, dtype=i32), **kw)
    yield "tree parent ahead", a, tpw([-1, 0, -1, -1, 0, 2]), ValueError, "token_parents: parent 2 of token 5 (token 2 of sequence 2) is outside [-1, 2)"
    yield "tree parent itself", a, tpw([0, 0, -1, -1, 0, 1]), ValueError, "token_parents: parent 0 of token 0 (token 0 of sequence 0) is outside [-1, 0)"
    yield "tree parent in another sequence", a, tpw([-1, 0, 1, -1, 0, 1]), ValueError, "token_parents: parent 1 of token 2 (token 0 of sequence 1) is outside [-1, 0)"
    yield "tree parent -2", a, tpw([-1, 0, -1, -1, -2, 1]), ValueError, "token_parents: parent -2 of token 4 (token 1 of sequence 2) is outside [-1, 1)"
    yield "tree dtype", a, {"token_parents": tp.long()}, ValueError, "token_parents: dtype"
    yield "tree shape", a, {"token_parents": tp[:-1]}, ValueError, "token_parents: shape [5] does not match [T] = [6]"
    yield "tree rank", a, {"token_parents": tp.reshape(1, -1)}, ValueError, "token_parents: shape [1, 6] does not match [T] = [6]"
    yield "tree interval", a, dict(ckw(), token_parents=tp), ValueError, "token_parents: needs checkpoint interval 1"
    yield "tree chunked", a, {"token_parents": tp, "form": "chunked"}, ValueError, "token_parents (a draft tree) needs the serial form"
    yield "tree invariant", a, {"token_parents": tp, "invariant": True}, ValueError, "token_parents (a draft tree) cannot run invariant"
    yield "limits", _bad(_bad(a, "B", torch.zeros(6, 1, 2 ** 20 + 1)), "C", torch.zeros(6, 1, 2 ** 20 + 1)), {}, ValueError, "dstate N = 1048577 exceeds"
    del g


@pytest.mark.parametrize("case", list(error_cases()), ids=lambda c: c[0])
def test_errors_leave_the_pool_untouched(case):
    _, a, kw, kind, message = case
    a = dict(a)
    pool = a["ssm_pool"]
    before = pool.clone()
    with pytest.raises(kind) as info:
        call(a, **kw)
    text = str(info.value)
    assert message in text, text
    assert "\n" not in text, text
    assert torch.equal(pool, before)


def test_grad_mode_off_accepts_parameters():
    a = make_inputs([2], seed=10)
    a["A"] = torch.nn.Parameter(a["A"])
    with torch.no_grad():
        y = call(a)
    assert not y.requires_grad


def test_registered_op_schema_mutates_the_pool():
    schema = str(torch.ops.ssd.chunk_scan_varlen_.default._schema)
    assert "Tensor(a!) ssm_pool" in schema, schema


def test_one_openmp_runtime():
    # Kernels run without OpenMP; threads come from torch's libgomp, so
    # LLVM's libomp must never be loaded next to it.
    torch.set_num_threads(2)
    a = make_inputs([1] * 4, seed=11)
    call(a)
    torch.set_num_threads(1)
    with open("/proc/self/maps") as maps:
        libraries = {line.split()[-1] for line in maps if ".so" in line}
    assert not [l for l in libraries if "libomp" in l], libraries


def test_pool_version_and_inference_mode():
    a = make_inputs([2, 1], seed=12)
    version = a["ssm_pool"]._version
    call(a)
    assert a["ssm_pool"]._version > version
    # An inference tensor is updated in inference mode only, as torch's own
    # in-place ops; outside, the call is refused before anything is written.
    with torch.inference_mode():
        b = make_inputs([2, 1], seed=12)
        call(b)
    before = b["ssm_pool"].clone()
    with pytest.raises(ValueError, match="inference tensor"):
        call(b)
    assert torch.equal(b["ssm_pool"], before)


def test_tensors_off_the_cpu_are_refused():
    # No CUDA here: a meta tensor takes the same path as a CUDA one.
    a = make_inputs([2, 1], seed=13)
    before = a["ssm_pool"].clone()
    b = dict(a)
    b["x"] = torch.empty(a["x"].shape, device="meta")
    with pytest.raises(RuntimeError, match="x: tensors on meta are not supported"):
        call(b)
    assert torch.equal(a["ssm_pool"], before)


@pytest.mark.parametrize("seqlens", [[0], [0, 3, 0], [0, 0]])
def test_zero_length_sequences(seqlens):
    # A sequence without tokens still writes its slot: its initial state, or
    # zeros when it reads none.
    torch.set_num_threads(2)
    a = make_inputs(seqlens, S=4, seed=14)
    before = a["ssm_pool"].clone()
    hi = torch.tensor([b % 2 == 0 for b in range(len(seqlens))])
    y = call(a, has_initial_state=hi)
    check(a, before, y, has_initial_state=hi)
    torch.set_num_threads(1)


def test_empty_batch():
    a = make_inputs([1], S=2, seed=15)
    for k in ("x", "dt", "B", "C"):
        a[k] = a[k][:0]
    a["query_start_loc"] = torch.zeros(1, dtype=torch.int32)
    a["cache_indices"] = torch.zeros(0, dtype=torch.int32)
    before = a["ssm_pool"].clone()
    y = call(a)
    assert y.shape == (0,) + tuple(a["x"].shape[1:])
    assert torch.equal(a["ssm_pool"], before)


def test_invariant_is_a_keyword_of_the_op():
    schema = str(torch.ops.ssd.chunk_scan_varlen_.default._schema)
    assert "bool invariant=False" in schema, schema


def test_invariant_sequences_alone_match_the_batch_bit_for_bit():
    seqlens = [37, 1, 300]
    a = make_inputs(seqlens, seed=41)
    hi = torch.ones(len(seqlens), dtype=torch.bool)
    before = a["ssm_pool"].clone()
    call(dict(a, ssm_pool=before.clone()), has_initial_state=hi)
    compiled = ssd_torch.compiled_kernels()
    y = call(a, has_initial_state=hi, invariant=True)
    # A kernel of its own: invariant is part of the cache key.
    assert ssd_torch.compiled_kernels() == compiled + 1
    check(a, before, y, has_initial_state=hi)
    q = a["query_start_loc"].tolist()
    for b, slot in enumerate(a["cache_indices"].tolist()):
        rows = slice(q[b], q[b + 1])
        one = dict(a, x=a["x"][rows], dt=a["dt"][rows], B=a["B"][rows],
                   C=a["C"][rows], ssm_pool=before.clone(),
                   query_start_loc=torch.tensor([0, q[b + 1] - q[b]], dtype=torch.int32),
                   cache_indices=a["cache_indices"][b:b + 1])
        y_one = call(one, has_initial_state=hi[:1], invariant=True, form="chunked",
                     chunk_size=16)
        assert torch.equal(y_one.view(torch.int32), y[rows].view(torch.int32)), b
        assert torch.equal(one["ssm_pool"][slot].view(torch.int32),
                           a["ssm_pool"][slot].view(torch.int32)), b
