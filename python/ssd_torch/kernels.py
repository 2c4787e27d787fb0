"""Kernel libraries for ssd_torch on CUDA tensors (docs/python.md).

    python3 -m ssd_torch.kernels build -o libssd_kernels.so \\
        --variant 'dtype=bf16 H=8 P=64 G=1 N=128 D=1 dt_bias=1 ... form=auto chunk=256' \\
        [--variant ...] [--variants-of LIBRARY] [--target cuda|gpu-emu] \\
        [--chip sm_80,sm_90a] [--format fatbin]
    python3 -m ssd_torch.kernels list libssd_kernels.so

A variant is the key under which ssd-compile registers a compiled op (its
signature, form and chunk size; ssd::variantKey in HostOperands.h): the
one-line error of a call without its variant names it, and the command
that builds it. `build` writes a tiny input directory per variant (the
signature's extents with T = batch = 1), runs ssd-compile once per group of
variants that share its flags, and links the objects with the kernel
library's C entry points (libSSDAotKernelLibrary.a), one device selection
library and its runtime into one shared object that needs neither LLVM,
MLIR nor torch: with `--target cuda` only the C library and the NVIDIA
driver, opened at run time.

This module imports nothing but the standard library: the machine that
builds a library needs the ssd build (ssd-compile and its static
libraries), not torch.
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

__all__ = ["variant_key", "parse_variant", "build", "build_command"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def variant_key(dtype, H, P, G, N, D, dt_bias, has_initial_state, update_state,
                cache_indices_row, pool="f32", stochastic=False, checkpoint=None,
                token_parents=False, form="auto", chunk=256, invariant=False):
    """The key ssd-compile registers a variant under (ssd::variantKey).
    `checkpoint` is None or (K, offsets present, interval)."""
    key = ("dtype=%s H=%d P=%d G=%d N=%d D=%d dt_bias=%d has_initial_state=%d "
           "update_state=%d cache_indices=i32%s"
           % (dtype, H, P, G, N, bool(D), bool(dt_bias), bool(has_initial_state),
              bool(update_state), "[1,batch]" if cache_indices_row else "[batch]"))
    if pool != "f32":
        key += " pool=" + pool
    if stochastic:
        key += " rounding=stochastic"
    if checkpoint is not None:
        K, offsets, interval = checkpoint
        key += (" checkpoint_slots=i32[batch,%d] checkpoint_offsets=%d "
                "checkpoint_interval=%d" % (K, bool(offsets), interval))
    if token_parents:
        key += " token_parents"
    key += " form=%s chunk=%d" % (form, chunk)
    if invariant:
        key += " invariant"
    return key


_VARIANT = re.compile(
    r"dtype=(?P<dtype>f32|f16|bf16) H=(?P<H>\d+) P=(?P<P>\d+) G=(?P<G>\d+) "
    r"N=(?P<N>\d+) D=(?P<D>[01]) dt_bias=(?P<dt_bias>[01]) "
    r"has_initial_state=(?P<has_initial_state>[01]) "
    r"update_state=(?P<update_state>[01]) "
    r"cache_indices=i32(?P<ci>\[batch\]|\[1,batch\])"
    r"(?: pool=(?P<pool>bf16|f16|f8e4m3|i8))?"
    r"(?P<stochastic> rounding=stochastic)?"
    r"(?: checkpoint_slots=i32\[batch,(?P<K>\d+)\] "
    r"checkpoint_offsets=(?P<offsets>[01]) checkpoint_interval=(?P<interval>\d+))?"
    r"(?P<token_parents> token_parents)?"
    r" form=(?P<form>auto|serial|chunked) chunk=(?P<chunk>\d+)"
    r"(?: heads_per_block=(?P<heads>\d+))?"
    r"(?: pipeline_stages=(?P<stages>\d+))?"
    r"(?P<cb_in_block> cb_in_block)?"
    r"(?P<invariant> invariant)?$")


def parse_variant(key):
    """The fields of a variant key; ValueError naming it when it is none."""
    m = _VARIANT.match(key.strip())
    if not m:
        raise ValueError("not a variant key (as a call's error or `list` "
                         "prints them): '%s'" % key)
    g = m.groupdict()
    v = {k: int(g[k]) for k in ("H", "P", "G", "N", "chunk")}
    for k in ("D", "dt_bias", "has_initial_state", "update_state"):
        v[k] = g[k] == "1"
    v.update(dtype=g["dtype"], row=g["ci"] == "[1,batch]", pool=g["pool"] or "f32",
             stochastic=bool(g["stochastic"]), form=g["form"],
             heads=int(g["heads"]) if g["heads"] else 1,
             stages=int(g["stages"]) if g["stages"] else None,
             cb_in_block=bool(g["cb_in_block"]),
             invariant=bool(g["invariant"]), token_parents=bool(g["token_parents"]),
             checkpoint=(int(g["K"]), g["offsets"] == "1", int(g["interval"]))
             if g["K"] else None)
    if v["H"] < 1 or v["P"] < 1 or v["G"] < 1 or v["N"] < 1 or v["H"] % v["G"]:
        raise ValueError("variant '%s': H, P, G, N must be >= 1 and G must "
                         "divide H" % key)
    return v


def _npy(path, descr, shape, data=b""):
    """Writes a .npy file (format 1.0) of `shape`; zeros unless `data`."""
    count = 1
    for s in shape:
        count *= s
    size = {"<f4": 4, "<i4": 4, "|b1": 1, "|i1": 1, "|u1": 1}[descr]
    shape_text = "(" + "".join("%d, " % s for s in shape)[:-2] + \
        ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape_text if shape else "()")
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(data if data else bytes(count * size))


def _write_inputs(directory, v):
    """One problem of the variant's signature (T = batch = 1): what
    ssd-compile reads the signature from."""
    os.makedirs(directory)
    H, P, G, N = v["H"], v["P"], v["G"], v["N"]
    K = v["checkpoint"][0] if v["checkpoint"] else 0
    S = 1 + K
    p = lambda name: os.path.join(directory, name + ".npy")  # noqa: E731
    _npy(p("x"), "<f4", [1, H, P])
    _npy(p("dt"), "<f4", [1, H])
    _npy(p("A"), "<f4", [H])
    _npy(p("B"), "<f4", [1, G, N])
    _npy(p("C"), "<f4", [1, G, N])
    if v["D"]:
        _npy(p("D"), "<f4", [H])
    if v["dt_bias"]:
        _npy(p("dt_bias"), "<f4", [H])
    pool = v["pool"]
    if pool in ("i8", "f8e4m3"):
        _npy(p("ssm_pool"), "|i1" if pool == "i8" else "|u1", [S, H, P, N])
        _npy(p("ssm_pool_scales"), "<f4", [S, H, P])
    else:
        _npy(p("ssm_pool"), "<f4", [S, H, P, N])
    _npy(p("query_start_loc"), "<i4", [2], struct.pack("<2i", 0, 1))
    _npy(p("cache_indices"), "<i4", [1, 1] if v["row"] else [1])
    if v["has_initial_state"]:
        _npy(p("has_initial_state"), "|b1", [1])
    if v["update_state"]:
        _npy(p("update_state"), "|b1", [1])
    if K:
        # Slots 1..K: distinct, and none the sequence's own slot 0.
        _npy(p("checkpoint_slots"), "<i4", [1, K],
             struct.pack("<%di" % K, *range(1, K + 1)))
        if v["checkpoint"][1]:
            _npy(p("checkpoint_offsets"), "<i4", [1])
    if v["token_parents"]:
        _npy(p("token_parents"), "<i4", [1], struct.pack("<i", -1))


def _find_build(args):
    """ssd-compile and the directory of the static libraries: given, from
    $SSD_BUILD_DIR, or the tree this package sits in
    (<build>/python_packages/ssd_torch or <prefix>/python_packages/ssd_torch)."""
    root = args.build_dir or os.environ.get("SSD_BUILD_DIR") or \
        os.path.dirname(os.path.dirname(_PACKAGE_DIR))
    compiler = args.ssd_compile or os.path.join(root, "bin", "ssd-compile")
    lib_dir = args.lib_dir or os.path.join(root, "lib")
    if not os.path.exists(compiler):
        raise SystemExit("ssd_torch.kernels: no ssd-compile at %s (give "
                         "--build-dir of an ssd build, or --ssd-compile)" % compiler)
    return compiler, lib_dir


def _find_cxx():
    for name in (os.environ.get("CXX"), "c++", "clang++", "g++",
                 "/usr/lib/llvm-22/bin/clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise SystemExit("ssd_torch.kernels: no C++ compiler to link with (set CXX)")


def build_command(key, library=None, target="cuda"):
    """The command line that builds a library holding `key`: `library` again
    with `key` added when it is given, else a library of `key` alone."""
    if library:
        return ("python3 -m ssd_torch.kernels build -o %s --variants-of %s "
                "--variant '%s'" % (library, library, key))
    return ("python3 -m ssd_torch.kernels build -o libssd_kernels.so --target %s "
            "--variant '%s'" % (target, key))


def build(variants, output, target="cuda", chips=None, binary_format=None,
          build_dir=None, ssd_compile=None, lib_dir=None, verbose=False):
    """Builds the kernel library `output` holding `variants` (keys)."""
    args = argparse.Namespace(build_dir=build_dir, ssd_compile=ssd_compile,
                              lib_dir=lib_dir)
    compiler, libs = _find_build(args)
    parsed = [(k.strip(), parse_variant(k)) for k in variants]
    # ssd-compile's flags hold for all of one call's inputs.
    groups = {}
    for key, v in parsed:
        flags = ["--dtype", v["dtype"], "--pool-dtype", v["pool"],
                 "--forms", v["form"], "--chunk-size", str(v["chunk"])]
        if v["stochastic"]:
            flags += ["--pool-rounding", "stochastic"]
        if v["checkpoint"]:
            flags += ["--checkpoint-interval", str(v["checkpoint"][2])]
        if v["heads"] != 1:
            flags += ["--heads-per-block", str(v["heads"])]
        if v["stages"] is not None:
            flags += ["--pipeline-stages", str(v["stages"])]
        if v["cb_in_block"]:
            flags += ["--cb-in-block"]
        if v["invariant"]:
            flags += ["--invariant"]
        groups.setdefault(tuple(flags), []).append((key, v))
    device_flags = ["--target", target]
    if chips:
        device_flags += ["--chip", chips]
    if binary_format:
        device_flags += ["--format", binary_format]
    with tempfile.TemporaryDirectory(prefix="ssd-kernels-") as work:
        objects, registered = [], set()
        for g, (flags, members) in enumerate(sorted(groups.items())):
            inputs = []
            for i, (key, v) in enumerate(members):
                d = os.path.join(work, "in-%d-%d" % (g, i))
                _write_inputs(d, v)
                inputs += ["--inputs", d]
            obj = os.path.join(work, "kernels-%d.o" % g)
            run = subprocess.run([compiler] + inputs + list(flags) + device_flags +
                                 ["-o", obj], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, universal_newlines=True)
            if verbose or run.returncode:
                sys.stderr.write(run.stdout)
            if run.returncode:
                raise SystemExit("ssd_torch.kernels: ssd-compile failed (above)")
            registered |= set(re.findall(r"^ssd-compile: (.*) -> ssd_aot_",
                                         run.stdout, re.M))
            objects.append(obj)
        missing = [k for k, _ in parsed if k not in registered]
        if missing:
            raise SystemExit("ssd_torch.kernels: internal error: ssd-compile "
                             "registered no variant '%s'" % missing[0])
        # Only the C entry points are exported: the runtime, the registry and
        # the runner's checks stay inside, apart from any other ssd code in
        # the process (the CPU op's extension, another kernel library).
        script = os.path.join(work, "exports.map")
        with open(script, "w") as f:
            f.write("{ global: ssd_kernels_*; local: *; };\n")
        lib = lambda name: os.path.join(libs, name)  # noqa: E731
        if target == "cuda":
            device_libs = [lib("libSSDAotCudaDevice.a"), lib("libSSDCudaRuntime.a")]
            runtime_flags = ["-ldl"]
        else:
            device_libs = [lib("libSSDAotEmulatorDevice.a"),
                           lib("libSSDGPUEmulatorRuntime.so")]
            runtime_flags = ["-Wl,-rpath," + os.path.abspath(libs), "-ldl"]
        # Linked beside `output` and renamed onto it: a process that has the
        # old library loaded keeps its mapping of the old file.
        partial = "%s.tmp-%d" % (output, os.getpid())
        link = ([_find_cxx(), "-shared", "-o", partial] + objects +
                ["-Wl,--whole-archive", lib("libSSDAotKernelLibrary.a"),
                 "-Wl,--no-whole-archive"] + device_libs +
                [lib("libSSDRunner.a"), "-Wl,--version-script=" + script,
                 "-static-libstdc++", "-static-libgcc", "-Wl,--no-undefined",
                 "-pthread"] + runtime_flags)
        run = subprocess.run(link, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        if run.returncode:
            sys.stderr.write(" ".join(link) + "\n" + run.stdout)
            if os.path.exists(partial):
                os.remove(partial)
            raise SystemExit("ssd_torch.kernels: linking %s failed (above)" % output)
        os.replace(partial, output)
    return sorted(registered)


def _list(path):
    import ctypes
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.ssd_kernels_list.restype = ctypes.c_int64
    lib.ssd_kernels_list.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    n = lib.ssd_kernels_list(None, 0)
    buffer = ctypes.create_string_buffer(n)
    lib.ssd_kernels_list(buffer, n)
    return [line.split("\t") for line in buffer.value.decode().splitlines()]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m ssd_torch.kernels",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    b = sub.add_parser("build", help="build a kernel library")
    b.add_argument("-o", "--output", required=True)
    b.add_argument("--variant", action="append", default=[],
                   help="a variant key (repeatable)")
    b.add_argument("--variants-file", help="a file of variant keys, one a line")
    b.add_argument("--variants-of", metavar="LIBRARY",
                   help="the variants of an existing kernel library too, with "
                   "its target, chips and format unless given")
    b.add_argument("--target", choices=["cuda", "gpu-emu"],
                   help="the kernels' runtime (default cuda)")
    b.add_argument("--chip", help="ssd-compile --chip (default sm_80,sm_90a "
                   "for cuda)")
    b.add_argument("--format", help="ssd-compile --format (default fatbin for "
                   "cuda)")
    b.add_argument("--build-dir", help="the ssd build (bin/ssd-compile, lib/)")
    b.add_argument("--ssd-compile")
    b.add_argument("--lib-dir")
    b.add_argument("-v", "--verbose", action="store_true")
    lister = sub.add_parser("list", help="the variants of a kernel library")
    lister.add_argument("library")
    args = parser.parse_args(argv)
    if args.command == "list":
        for key, chip, fmt, target in _list(args.library):
            print("%s\t%s %s %s" % (key, target, chip, fmt))
        return 0
    if args.command != "build":
        parser.print_help()
        return 2
    keys = list(args.variant)
    if args.variants_file:
        with open(args.variants_file) as f:
            keys += [line.strip() for line in f if line.strip()]
    target, chips, fmt = args.target, args.chip, args.format
    if args.variants_of:
        listed = _list(args.variants_of)
        if not listed:
            raise SystemExit("ssd_torch.kernels: %s holds no variants" % args.variants_of)
        keys += [row[0] for row in listed if row[0] not in keys]
        target = target or listed[0][3]
        if not chips:
            chips = ",".join(sorted({row[1] for row in listed}))
        if not fmt and target == "cuda":
            fmt = listed[0][2]
    if not keys:
        raise SystemExit("ssd_torch.kernels: build needs at least one --variant")
    target = target or "cuda"
    if target == "cuda":
        chips = chips or "sm_80,sm_90a"
        fmt = fmt or "fatbin"
    try:
        built = build(keys, args.output, target, chips, fmt, args.build_dir,
                      args.ssd_compile, args.lib_dir, args.verbose)
    except ValueError as e:
        raise SystemExit("ssd_torch.kernels: %s" % e)
    print("ssd_torch.kernels: %s: %d variant(s) for %s%s" % (
        args.output, len(built), target, " " + chips if chips else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
