"""ssd_torch's CUDA-tensor path (docs/python.md, "CUDA tensors") through a
kernel library of the GPU emulator: the same Python code (checks, variant
keys, selection, descriptors, the workspace protocol, ctypes) as on a GPU,
with CPU tensors standing in for device memory.

The kernels are the GPU kernels `device="gpu-emu"` runs (compiled ahead of
time here, just in time there), so every result must be bit-identical to
that path's; the GPU kernels themselves are checked against the reference
by test_chunk_scan.py and test/numeric. Every error must be the CPU op's,
word for word, with the pool untouched.
"""

import os
import shutil
import subprocess
import sys

import pytest
import torch

import ssd_torch
from ssd_torch import _aot, kernels
from reference import make_inputs
from test_chunk_scan import OPERANDS, checkpoint_case, error_cases, tree_case
from test_compressed_pools import make_pool_inputs

SIG = "H=4 P=8 G=2 N=16"
# The variants the cases below need, written out by hand: their agreement
# with what the calls ask for checks ssd_torch's keys against ssd-compile's.
VARIANTS = {
    "basic-serial": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 update_state=0 "
                    "cache_indices=i32[batch] form=serial chunk=4" % SIG,
    "basic-chunked": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 update_state=0 "
                     "cache_indices=i32[batch] form=chunked chunk=4" % SIG,
    "checkpoints-serial": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 "
                          "update_state=1 cache_indices=i32[batch] "
                          "checkpoint_slots=i32[batch,3] checkpoint_offsets=1 "
                          "checkpoint_interval=2 form=serial chunk=4" % SIG,
    "checkpoints-chunked": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 "
                           "update_state=1 cache_indices=i32[batch] "
                           "checkpoint_slots=i32[batch,3] checkpoint_offsets=1 "
                           "checkpoint_interval=2 form=chunked chunk=4" % SIG,
    "i8-stochastic": "dtype=bf16 %s D=1 dt_bias=1 has_initial_state=1 "
                     "update_state=0 cache_indices=i32[batch] pool=i8 "
                     "rounding=stochastic form=auto chunk=4" % SIG,
    "f8-chunked": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 update_state=0 "
                  "cache_indices=i32[batch] pool=f8e4m3 form=chunked chunk=4" % SIG,
    "tree": "dtype=f32 %s D=1 dt_bias=1 has_initial_state=1 update_state=1 "
            "cache_indices=i32[batch] pool=bf16 checkpoint_slots=i32[batch,12] "
            "checkpoint_offsets=1 checkpoint_interval=1 token_parents form=serial "
            "chunk=4" % SIG,
    "row-plain": "dtype=f16 %s D=0 dt_bias=0 has_initial_state=0 update_state=0 "
                 "cache_indices=i32[1,batch] form=auto chunk=4" % SIG,
}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("kernels") / "libssd_kernels_emu.so")
    built = kernels.build(list(VARIANTS.values()), path, target="gpu-emu")
    assert sorted(built) == sorted(VARIANTS.values())
    return path


def clone(a):
    return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in a.items()}


def run(a, kw, **extra):
    """One call on copies of the inputs: y and every written tensor."""
    a, kw = clone(a), clone(kw)
    args = [a[k] for k in OPERANDS]
    y = ssd_torch.chunk_scan_varlen_(*args, D=a.get("D"), dt_bias=a.get("dt_bias"),
                                     ssm_pool_scales=a.get("ssm_pool_scales"),
                                     **kw, **extra)
    return [y, a["ssm_pool"]] + ([a["ssm_pool_scales"]]
                                 if a.get("ssm_pool_scales") is not None else [])


def bits(t):
    """A tensor's bytes, for bit-for-bit comparison (NaNs included)."""
    return t.contiguous().view(torch.uint8)


def assert_bit_identical(a, kw, library, **extra):
    emulated = run(a, kw, device="gpu-emu", **extra)
    ahead = run(a, kw, kernels=library, **extra)
    for e, h in zip(emulated, ahead):
        assert e.dtype == h.dtype and e.shape == h.shape
        assert torch.equal(bits(e), bits(h))
    return ahead


def basic_case():
    a = make_inputs([1, 5, 1, 9], seed=8)
    a["cache_indices"][1] = -1
    return a, dict(has_initial_state=torch.tensor([True, True, False, True]),
                   chunk_size=4)


@pytest.mark.parametrize("form", ["serial", "chunked"])
def test_basic(form, library):
    a, kw = basic_case()
    y, pool = assert_bit_identical(a, kw, library, form=form)
    assert not torch.equal(pool, a["ssm_pool"])


@pytest.mark.parametrize("form", ["serial", "chunked"])
def test_checkpoints_with_offsets(form, library):
    a, kw = checkpoint_case()
    assert_bit_identical(a, kw, library, form=form, chunk_size=4)


def test_i8_pool_with_stochastic_rounding(library):
    a = make_pool_inputs("i8", dtype=torch.bfloat16)
    kw = dict(has_initial_state=torch.tensor([True, False, True, True, True]),
              pool_rounding="stochastic", chunk_size=4)
    first = assert_bit_identical(a, kw, library, rounding_seed=7)
    # The seed is an operand: another seed rounds differently, and a 0-d
    # int64 tensor (what a CUDA graph's replays would update) is the same
    # seed as the int.
    other = run(a, kw, kernels=library, rounding_seed=8)
    assert not torch.equal(bits(first[1]), bits(other[1]))
    as_tensor = run(a, kw, kernels=library,
                    rounding_seed=torch.tensor(7, dtype=torch.int64))
    for f, t in zip(first, as_tensor):
        assert torch.equal(bits(f), bits(t))


def test_f8_pool(library):
    a = make_pool_inputs("f8e4m3")
    kw = dict(has_initial_state=torch.tensor([True, False, True, True, True]),
              pool_dtype="f8e4m3", form="chunked", chunk_size=4)
    assert_bit_identical(a, kw, library)


def test_tree_with_checkpoints(library):
    a, kw = tree_case(3)
    assert_bit_identical(a, kw, library, form="serial", chunk_size=4)


def test_row_indices_without_optional_operands(library):
    a = make_inputs([3, 0, 2], dtype=torch.float16, with_D=False,
                    with_dt_bias=False, seed=5)
    a["cache_indices"] = a["cache_indices"].reshape(1, -1)
    assert_bit_identical(a, dict(chunk_size=4), library)


def test_workspace_grows_and_is_kept(library, monkeypatch):
    monkeypatch.setattr(_aot, "_MIN_WORKSPACE", 0)
    lib = ssd_torch.load_kernels(library)
    lib._workspaces.clear()
    a, kw = basic_case()
    assert_bit_identical(a, kw, library, form="chunked")
    (ws,) = lib._workspaces.values()
    assert ws.numel() > 0
    # The next call of the same shapes reuses it.
    run(a, kw, kernels=library, form="chunked")
    assert list(lib._workspaces.values())[0] is ws


def test_index_checks_can_be_skipped(library):
    a, kw = basic_case()
    checked = run(a, kw, kernels=library, form="serial")
    unchecked = run(a, kw, kernels=library, form="serial", check_indices=False)
    for c, u in zip(checked, unchecked):
        assert torch.equal(bits(c), bits(u))


@pytest.mark.parametrize("case", list(error_cases()), ids=lambda c: c[0])
def test_errors_are_the_cpu_ops(case, library):
    name, a, kw, kind, message = case
    pool = a["ssm_pool"]
    before = pool.clone()
    args = [a[k] for k in OPERANDS]
    kw = dict(kw)
    kw.setdefault("D", a.get("D"))
    kw.setdefault("dt_bias", a.get("dt_bias"))
    with pytest.raises(kind) as cpu:
        ssd_torch.chunk_scan_varlen_(*args, **kw)
    with pytest.raises(kind) as ahead:
        ssd_torch.chunk_scan_varlen_(*args, kernels=library, **kw)
    expected = str(cpu.value)
    if name == "chunk size":
        # The GPU kernels' own range (SettingRanges.h).
        expected = "chunk_size: must be in [1, 4096], got 0"
    assert str(ahead.value) == expected
    assert "\n" not in str(ahead.value)
    assert torch.equal(pool, before)


def test_missing_variant_names_the_command(library, tmp_path):
    # A copy: the command rebuilds the library it names.
    copy = str(tmp_path / "lib.so")
    shutil.copy(library, copy)
    a = make_inputs([2, 3], H=2, seed=4)
    before = a["ssm_pool"].clone()
    with pytest.raises(RuntimeError) as info:
        run(a, {}, kernels=copy, form="serial", chunk_size=8)
    text = str(info.value)
    key = ("dtype=f32 H=2 P=8 G=2 N=16 D=1 dt_bias=1 has_initial_state=0 "
           "update_state=0 cache_indices=i32[batch] form=serial chunk=8")
    command = ("python3 -m ssd_torch.kernels build -o %s --variants-of %s "
               "--variant '%s'" % (copy, copy, key))
    assert text == ("ssd.chunk_scan_varlen_: the kernel library %s has no variant "
                    "'%s'; build one that does with: %s" % (copy, key, command)), text
    assert torch.equal(a["ssm_pool"], before)
    # The command as printed: the library again, with the variant added.
    out = subprocess.run(["sh", "-c", command.replace("python3", sys.executable, 1)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    assert out.returncode == 0, out.stdout
    # Under a new name: this process keeps the library it loaded as `copy`.
    rebuilt = str(tmp_path / "rebuilt.so")
    shutil.copy(copy, rebuilt)
    keys = {row[0] for row in kernels._list(rebuilt)}
    assert keys == set(VARIANTS.values()) | {key}
    ahead = run(a, {}, kernels=rebuilt, form="serial", chunk_size=8)
    emulated = run(a, {}, device="gpu-emu", form="serial", chunk_size=8)
    for e, h in zip(emulated, ahead):
        assert torch.equal(bits(e), bits(h))


def test_chip_selection_error(library, tmp_path, monkeypatch):
    # A second file is a second library (its own registry and selections).
    copy = str(tmp_path / "copy.so")
    shutil.copy(library, copy)
    monkeypatch.setenv("SSD_GPU_EMULATOR_COMPUTE_CAPABILITY", "75")
    a, kw = basic_case()
    before = a["ssm_pool"].clone()
    with pytest.raises(RuntimeError) as info:
        run(a, kw, kernels=copy, form="serial")
    assert ("runs on this gpu-emu device of compute capability 7.5: compiled "
            "for sm_90a (bin)") in str(info.value), str(info.value)
    assert torch.equal(a["ssm_pool"], before)


def test_cuda_library_refuses_cpu_tensors(tmp_path):
    # PTX kernels (no ptxas needed); loading it without a driver is no
    # error until a call.
    path = str(tmp_path / "cuda.so")
    kernels.build([VARIANTS["basic-serial"]], path, target="cuda",
                  binary_format="isa")
    out = subprocess.run(["ldd", path], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    needed = sorted(line.split()[0] for line in out.splitlines()
                    if "=>" in line or line.strip().startswith("/"))
    # Only the C library (libdl and libm are in it on newer glibc) and the
    # loader: no libstdc++, LLVM, MLIR or torch.
    assert all(n.split(".so")[0] in ("libc", "libm", "libdl", "libpthread",
                                     "/lib64/ld-linux-x86-64")
               for n in needed), needed
    a, kw = basic_case()
    before = a["ssm_pool"].clone()
    with pytest.raises(RuntimeError) as info:
        run(a, kw, kernels=path, form="serial")
    assert str(info.value).startswith(
        "x: tensors on cpu are not supported by the kernel library %s "
        "(--target cuda: CUDA tensors" % path), str(info.value)
    assert torch.equal(a["ssm_pool"], before)


def test_without_the_compiled_extension(library):
    # What a machine with another torch sees: the package without
    # libssd_torch_ops.so runs the kernel library, and the CPU op is a
    # one-line error.
    script = r"""
import sys, torch, ssd_torch
sys.path.insert(0, %r)
from test_aot import basic_case, run
a, kw = basic_case()
y = run(a, kw, kernels=%r, form="serial")[0]
assert torch.isfinite(y).all()
maps = open("/proc/self/maps").read()
assert "libssd_torch_ops" not in maps and "libMLIR" not in maps
try:
    run(a, kw, device="cpu")
except RuntimeError as e:
    assert "needs the compiled op libssd_torch_ops.so" in str(e), e
    assert "\n" not in str(e)
else:
    raise AssertionError("the CPU op ran without its extension")
print("ok")
""" % (os.path.dirname(os.path.abspath(__file__)), library)
    env = dict(os.environ, SSD_TORCH_NO_EXTENSION="1")
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout


def test_chunked_choices_in_keys(tmp_path):
    # The chunked kernels' bounds of ssd-compile (--heads-per-block,
    # --pipeline-stages, --cb-in-block) show at the end of a key; a library built from such
    # keys registers them as written, so the flags reached ssd-compile.
    key = ("dtype=bf16 H=4 P=64 G=1 N=128 D=1 dt_bias=1 has_initial_state=1 "
           "update_state=0 cache_indices=i32[batch] form=chunked chunk=128 "
           "pipeline_stages=2")
    v = kernels.parse_variant(key)
    assert (v["heads"], v["stages"], v["form"]) == (1, 2, "chunked")
    both = kernels.parse_variant(key.replace(" pipeline_stages",
                                             " heads_per_block=2 pipeline_stages"))
    assert (both["heads"], both["stages"]) == (2, 2)
    assert kernels.parse_variant(key.replace(" pipeline_stages=2", ""))["stages"] is None
    path = str(tmp_path / "stages.so")
    kernels.build([key], path, target="cuda", binary_format="isa")
    assert {row[0] for row in kernels._list(path)} == {key}
    # C·Bᵀ in the block (--cb-in-block) ends a key with ` cb_in_block`.
    cb_key = key.replace(" pipeline_stages=2", " cb_in_block")
    assert kernels.parse_variant(cb_key)["cb_in_block"]
    assert not kernels.parse_variant(key)["cb_in_block"]
    cb_path = str(tmp_path / "cb.so")
    kernels.build([cb_key], cb_path, target="cuda", binary_format="isa")
    assert {row[0] for row in kernels._list(cb_path)} == {cb_key}
