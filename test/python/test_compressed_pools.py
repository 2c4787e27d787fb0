"""ssd_torch with compressed state pools (docs/overview.md, "Compressed state
pools"): f16, int8 and f8E4M3FN (uint8 codes) pools with their scales, and
stochastic rounding.

The checks decode the pool with a decoder written here from the contract
(not the op's), compare each written row with reference.py's float64 state
within the rounding the format allows, and require every slot no sequence
writes, codes and scales, to stay bit-identical.
"""

import pytest
import torch

import ssd_torch
from reference import TOLERANCES, make_inputs, reference, rel_err

OPERANDS = ("x", "dt", "A", "B", "C", "ssm_pool", "query_start_loc", "cache_indices")
QMAX = {"i8": 127.0, "f8e4m3": 448.0}


def decode_f8(codes):
    """f8E4M3FN codes (uint8) as float64: sign, exponent (bias 7), 3
    mantissa bits; exponent 0 holds m * 2^-9; S.1111.111 is NaN."""
    c = codes.to(torch.int64)
    sign = torch.where(c & 0x80 != 0, -1.0, 1.0).double()
    e, m = (c >> 3) & 15, (c & 7).double()
    value = torch.where(e == 0, m * 2.0 ** -9,
                        (1 + m / 8) * torch.pow(2.0, (e - 7).double()))
    value = torch.where((c & 0x7f) == 0x7f, float("nan"), value)
    return sign * value


def decode(pool, scales, kind):
    """The pool's values as float64 [S, H, P, N]."""
    if kind == "i8":
        return pool.double() * scales.double()[..., None]
    if kind == "f8e4m3":
        return decode_f8(pool) * scales.double()[..., None]
    return pool.double()


def encode(values, kind):
    """An f32 pool [S, H, P, N] as 8-bit codes and scales, rounded to
    nearest (torch's own rounding; the inputs only need to be codes)."""
    q = QMAX[kind]
    m = values.abs().amax(-1)
    scales = (m / q).float()
    inv = torch.where(m > 0, q / m, torch.zeros_like(m))
    p = (values * inv[..., None]).float()
    if kind == "i8":
        return torch.round(p).clamp(-127, 127).to(torch.int8), scales
    # Nearest f8E4M3FN code by search over the 254 finite codes.
    table = decode_f8(torch.arange(256, dtype=torch.uint8))
    finite = torch.isfinite(table)
    best = (p.double()[..., None] - torch.where(finite, table, torch.inf)).abs().argmin(-1)
    return best.to(torch.uint8), scales


def quantum(ref, scales, kind):
    """The gap between the format's neighbours around each reference value
    (in the pool's units): the rounding a written value may carry."""
    if kind == "i8":
        return scales.double()[..., None].expand_as(ref)
    a = (ref / scales.double()[..., None]).abs()
    _, e = torch.frexp(a)
    gap = torch.ldexp(torch.ones_like(a), torch.clamp(e - 1, min=-6) - 3)
    return gap * scales.double()[..., None]


def make_pool_inputs(kind, seqlens=(1, 7, 3, 1, 12), seed=1, **kw):
    a = make_inputs(list(seqlens), seed=seed, **kw)
    if kind in QMAX:
        a["ssm_pool"], a["ssm_pool_scales"] = encode(a["ssm_pool"], kind)
    elif kind == "f16":
        a["ssm_pool"] = a["ssm_pool"].half()
    return a


def call(a, kind, **kw):
    args = [a[k] for k in OPERANDS]
    kw.setdefault("D", a.get("D"))
    kw.setdefault("dt_bias", a.get("dt_bias"))
    if "ssm_pool_scales" in a:
        kw.setdefault("ssm_pool_scales", a["ssm_pool_scales"])
    if kind == "f8e4m3":
        kw.setdefault("pool_dtype", "f8e4m3")
    return ssd_torch.chunk_scan_varlen_(*args, **kw)


def check(a, kind, before, before_scales, y, stochastic=False, **kw):
    pool, scales = a["ssm_pool"], a.get("ssm_pool_scales")
    decoded_before = decode(before, before_scales, kind)
    yr, pr = reference(a["x"], a["dt"], a["A"], a["B"], a["C"], decoded_before,
                       a["query_start_loc"], a["cache_indices"], a.get("D"),
                       a.get("dt_bias"), kw.get("has_initial_state"),
                       kw.get("update_state"))
    tol = TOLERANCES[a["x"].dtype]
    assert rel_err(y, yr) <= tol, rel_err(y, yr)
    ci = a["cache_indices"].reshape(-1).tolist()
    update = kw.get("update_state")
    written = {s for b, s in enumerate(ci)
               if s != -1 and (update is None or bool(update[b]))}
    after = decode(pool, scales, kind)
    for s in range(pool.shape[0]):
        if s not in written:
            assert torch.equal(pool[s], before[s]), s
            if scales is not None:
                assert torch.equal(scales[s], before_scales[s]), s
            continue
        ref = pr[s]
        if kind in QMAX:
            gap = quantum(ref, scales[s], kind)
        else:
            _, e = torch.frexp(ref.abs())
            gap = torch.ldexp(torch.ones_like(ref), torch.clamp(e - 1, min=-14) - 10)
        # Half a gap to nearest, a whole one stochastically, beyond the
        # f32 state's own tolerance.
        allowed = (1.0 if stochastic else 0.5) * gap + 2 * tol * ref.abs().max()
        excess = ((after[s] - ref).abs() - allowed).max().item()
        assert excess <= 0, (s, excess)


@pytest.mark.parametrize("kind", ["f16", "i8", "f8e4m3"])
@pytest.mark.parametrize("form", ["serial", "chunked"])
def test_pool_types_against_the_reference(kind, form):
    a = make_pool_inputs(kind)
    before = a["ssm_pool"].clone()
    before_scales = a["ssm_pool_scales"].clone() if "ssm_pool_scales" in a else None
    hi = torch.tensor([True, False, True, True, True])
    upd = torch.tensor([True, True, False, True, True])
    y = call(a, kind, form=form, chunk_size=4, has_initial_state=hi, update_state=upd)
    check(a, kind, before, before_scales, y, has_initial_state=hi, update_state=upd)


@pytest.mark.parametrize("kind", ["i8", "f8e4m3"])
def test_serial_kernel_on_the_gpu_emulator(kind):
    a = make_pool_inputs(kind, seqlens=(1, 3, 1), seed=4)
    before = a["ssm_pool"].clone()
    before_scales = a["ssm_pool_scales"].clone()
    hi = torch.tensor([True, True, False])
    y = call(a, kind, form="serial", device="gpu-emu", has_initial_state=hi)
    check(a, kind, before, before_scales, y, has_initial_state=hi)


@pytest.mark.parametrize("kind", ["bf16", "f16", "i8", "f8e4m3"])
def test_stochastic_rounding_is_seeded(kind):
    def run(seed, form="serial"):
        a = make_pool_inputs(kind if kind != "bf16" else "f32", seed=3)
        if kind == "bf16":
            a["ssm_pool"] = a["ssm_pool"].bfloat16()
        before = a["ssm_pool"].clone()
        before_scales = a["ssm_pool_scales"].clone() if "ssm_pool_scales" in a else None
        y = call(a, kind, form=form, chunk_size=4, invariant=True,
                 pool_rounding="stochastic", rounding_seed=seed)
        if kind != "bf16":
            check(a, kind, before, before_scales, y, stochastic=True)
        return a["ssm_pool"].view(torch.uint8) if kind != "i8" else a["ssm_pool"]
    first = run(7)
    assert torch.equal(first, run(7))
    # Invariant states are the same bits in both forms, so are the codes.
    assert torch.equal(first, run(7, form="chunked"))
    assert not torch.equal(first, run(8))


def _with(a, **changes):
    b = dict(a)
    b.update(changes)
    return b


def error_cases():
    i8 = make_pool_inputs("i8", seqlens=(2, 1, 3), seed=9)
    f8 = make_pool_inputs("f8e4m3", seqlens=(2, 1, 3), seed=9)
    f32 = make_pool_inputs("f32", seqlens=(2, 1, 3), seed=9)
    f16 = make_pool_inputs("f16", seqlens=(2, 1, 3), seed=9)
    S = i8["ssm_pool"].shape[0]
    yield "scales missing", _with(i8, ssm_pool_scales=None), "i8", {}, "ssm_pool_scales: required for an i8 pool"
    yield "scales for f32", f32, "f32", {"ssm_pool_scales": torch.ones(S, 4, 8)}, "ssm_pool_scales: given for a f32 pool"
    yield "scales dtype", _with(i8, ssm_pool_scales=i8["ssm_pool_scales"].double()), "i8", {}, "ssm_pool_scales: dtype"
    yield "scales shape", _with(i8, ssm_pool_scales=i8["ssm_pool_scales"][:, :, :-1]), "i8", {}, "ssm_pool_scales: shape"
    yield "scales layout", _with(i8, ssm_pool_scales=torch.ones(S, 4, 16)[..., ::2]), "i8", {}, "ssm_pool_scales: not contiguous"
    yield "uint8 without pool_dtype", _with(f8), "i8", {}, "ssm_pool: a uint8 pool needs pool_dtype=\"f8e4m3\""
    yield "pool_dtype mismatch", i8, "i8", {"pool_dtype": "f8e4m3"}, "pool_dtype: 'f8e4m3' does not match ssm_pool's dtype"
    yield "pool_dtype name", f8, "f8e4m3", {"pool_dtype": "fp8"}, "pool_dtype: 'fp8' is not"
    yield "pool dtype", _with(f32, ssm_pool=f32["ssm_pool"].double()), "f32", {}, "ssm_pool: dtype"
    yield "rounding name", f16, "f16", {"pool_rounding": "up"}, "pool_rounding: 'up' is not nearest or stochastic"
    yield "seed missing", f16, "f16", {"pool_rounding": "stochastic"}, "rounding_seed: required with pool_rounding=\"stochastic\""
    yield "seed without stochastic", f16, "f16", {"rounding_seed": 3}, "rounding_seed: given without pool_rounding=\"stochastic\""
    yield "stochastic f32", f32, "f32", {"pool_rounding": "stochastic", "rounding_seed": 1}, "pool_rounding: stochastic has nothing to round in a float32 pool"


@pytest.mark.parametrize("case", list(error_cases()), ids=lambda c: c[0])
def test_errors_leave_pool_and_scales_untouched(case):
    _, a, kind, kw, message = case
    a = dict(a)
    if a.get("ssm_pool_scales") is None:
        a.pop("ssm_pool_scales", None)
    pool = a["ssm_pool"]
    before = pool.clone()
    scales = a.get("ssm_pool_scales", kw.get("ssm_pool_scales"))
    scales_before = scales.clone() if scales is not None else None
    with pytest.raises(ValueError) as info:
        call(a, kind, **kw)
    text = str(info.value)
    assert message in text, text
    assert "\n" not in text, text
    assert torch.equal(pool, before)
    if scales is not None:
        assert torch.equal(scales, scales_before)


def test_schema_mutates_the_scales():
    schema = str(torch.ops.ssd.chunk_scan_varlen_.default._schema)
    assert "Tensor(b!)? ssm_pool_scales=None" in schema, schema
