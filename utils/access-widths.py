#!/usr/bin/python3
"""Compare the memory accesses of the PTX and of the GPU emulator.

  utils/access-widths.py NVVM.mlir EMULATOR.mlir

NVVM.mlir: `ssd-opt --ssd-to-nvvm` output (format=isa: PTX in each
gpu.binary). EMULATOR.mlir: `ssd-opt --ssd-to-gpu-emulator=format=llvm`
output on the same input and options (each gpu.binary holds the kernels'
host IR with every memory access rewritten into an emulator call).

The emulator's cost counters and race checks see one access per emulator
call, of the bytes and ordering the call names; the GPU executes the PTX's
instructions. Both come from the same LLVM IR through different code
generators (NVPTX's instruction selection; the emulator's own pass list
before its rewriting, lib/Target/GPUEmulator/Target.cpp), so they can drift
apart: an access the PTX makes as one 8-byte vector and the emulator as two
4-byte ones counts twice the sectors (this happened: docs/gpu.md, "The GPU
emulator"). Per kernel, this script counts the static access sites of each
(state space, operation, memory ordering, bytes) in both and prints them
side by side; it exits 1 when any count differs. Sites, not executions: a
loop body counts once in both.

Counted in the PTX: ld/st/atom/red in the global and shared state spaces
(generic-address ones count as global: the kernels address shared memory
through shared pointers), cp.async's copies by size, and ldmatrix by its
number of 8x8 matrices and .trans, and the block barriers (`bar.sync`,
`barrier.sync`; not the warp's `bar.warp.sync`) and fences (`fence.*`,
`membar.*`) that order them. In the emulator's IR: its `global` and
`shared` calls (pointer, bytes, flags, site), `cp_async` calls (site,
destination, source, bytes, source size), `ldmatrix` calls (site,
mode, ...), and its `barrier` and `fence` calls. A vector wider than 16 bytes or than its alignment counts as
the pieces NVPTX splits it into (the emulator keeps it one access, on
purpose; the script lists them); a run of three words (a masked access of
four with the last lane unused) as the four-word vector the PTX reads.
Other masked accesses (interior gaps) are one instruction in the PTX and
one call per run of enabled lanes in the emulator, so they show as a
difference, to be looked at; today's kernels have none.
"""

import collections
import re
import sys

from gpu_objects import objects

# Flags of the emulator's access calls (include/ssd/GPURuntime/EmulatorABI.h).
WRITE, ATOMIC, READ_WRITE = 1, 2, 4
ACQUIRE, RELEASE, RELAXED = 8, 16, 32

BYTES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16, "16x2": 4}


def binaries(path, attribute):
    """{gpu.binary name: the text of its first object's `attribute`}."""
    found = {name: text for name, position, text
             in objects(open(path).read(), attribute) if position == 0}
    if not found:
        sys.exit(f"access-widths: {path}: no gpu.binary with {attribute} = "
                 f"\"...\" (wrong pipeline or format?)")
    return found


# Where a PTX instruction starts: indentation and an optional predicate.
PTX_START = r"^\s*(?:@!?%p\d+\s+)?"
PTX_ACCESS = re.compile(
    PTX_START +
    r"(?P<op>ldu|ld|st|atom|red)"
    r"(?P<mods>(?:\.[A-Za-z_0-9:]+)*?)"
    r"(?:\.(?P<vec>v2|v4|v8))?"
    r"\.(?P<type>(?:bf|[bsuf])(?:8|16x2|16|32|64|128))\s")
PTX_CP_ASYNC = re.compile(
    PTX_START + r"cp\.async\.c[ag]\.shared(?:::cta)?\.global"
    r"[^ ]*\s+\[[^\]]*\],\s*\[[^\]]*\],\s*(\d+)")
PTX_BARRIER = re.compile(
    PTX_START + r"(?:bar|barrier)(?:\.cta)?\.sync\b")
# Memory-ordering fences; fence.proxy.* (async-proxy ordering, for TMA and
# mbarrier) is left out: the emulator has no async proxy to order.
PTX_FENCE = re.compile(
    PTX_START + r"(?:fence|membar)\.(?!proxy\.|mbarrier_init)")
PTX_LDMATRIX = re.compile(
    PTX_START + r"ldmatrix\.sync\.aligned\.m8n8\.x(\d)"
    r"(\.trans)?\.shared")


def ptx_sites(ptx):
    """Counter of (space, operation, ordering, bytes) over the PTX's
    instructions."""
    sites = collections.Counter()
    for line in ptx.splitlines():
        m = PTX_CP_ASYNC.match(line)
        if m:
            sites[("global", "cp.async", "", int(m.group(1)))] += 1
            continue
        if PTX_BARRIER.match(line):
            sites[("sync", "barrier", "", 0)] += 1
            continue
        if PTX_FENCE.match(line):
            sites[("sync", "fence", "", 0)] += 1
            continue
        m = PTX_LDMATRIX.match(line)
        if m:
            op = "ldmatrix" + (".trans" if m.group(2) else "")
            sites[("shared", op, "", 128 * int(m.group(1)))] += 1
            continue
        m = PTX_ACCESS.match(line)
        if not m:
            continue
        mods = m.group("mods").split(".")[1:]
        if any(x in ("local", "param", "const") for x in mods):
            continue
        space = ("shared" if any(x.startswith("shared") for x in mods)
                 else "global")
        op = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic",
              "red": "atomic"}[m.group("op")]
        ordering = next((o for o in ("acquire", "release", "acq_rel",
                                     "relaxed", "volatile") if o in mods), "")
        if ordering == "volatile":
            ordering = "relaxed"
        lanes = int(m.group("vec")[1:]) if m.group("vec") else 1
        bytes_ = BYTES[re.sub(r"^(?:bf|[bsuf])", "", m.group("type"))] * lanes
        sites[(space, op, ordering, bytes_)] += 1
    return sites


EMU_ACCESS = re.compile(
    r"call ptr %ssdemu\.(global|shared)\d*\(ptr [^,]+, i64 (\d+), "
    r"i32 (\d+), i32 (\d+)\)")
EMU_CP_ASYNC = re.compile(
    r"call void %ssdemu\.cp_async\d*\(i32 (\d+), ptr [^,]+, ptr [^,]+, "
    r"i32 (\d+),")
EMU_SYNC = re.compile(r"call void %ssdemu\.(barrier|fence)\d*\(")
EMU_LDMATRIX = re.compile(r"call void %ssdemu\.ldmatrix\d*\(i32 \d+, i32 (\d+),")

# The widest vector access NVPTX makes (ld/st.v4.b32) on the chips the
# project targets; sm_100's 32-byte v8 is not among them.
WIDEST_PTX_ACCESS = 16
# ldmatrix modes (EmulatorABI.h, LdmatrixMode).
LDMATRIX_MATRICES, LDMATRIX_TRANS = 0xff, 0x100


def emulator_sites(ir, splits=None):
    """Counter of (space, operation, ordering, bytes) over the emulator's
    calls, each as the PTX makes it: NVPTX splits a vector wider than its
    widest access, or than the alignment it promises, into pieces of that
    width, which the emulator keeps as one access (its counters have no
    L1, which serves the pieces' shared sectors on the GPU: docs/gpu.md,
    "Global memory: sectors"); and a vector of three words (a masked
    access, the last lane unused) is a four-word one in the PTX, checked as
    its run of three words by the emulator. `splits`, if given, collects
    the split ones, (space, operation, bytes, alignment, piece) -> sites."""
    sites = collections.Counter()
    for m in EMU_ACCESS.finditer(ir):
        space = m.group(1)
        bytes_, flags = int(m.group(2)), int(m.group(3))
        alignment = 1 << ((flags >> 8) & 0x3f)
        kind = flags & 0xff
        if kind & ATOMIC:
            op = "atomic"
        elif kind & (WRITE | READ_WRITE):
            op = "store"
        else:
            op = "load"
        if kind & ACQUIRE and kind & RELEASE:
            ordering = "acq_rel"
        elif kind & ACQUIRE:
            ordering = "acquire"
        elif kind & RELEASE:
            ordering = "release"
        elif kind & RELAXED:
            ordering = "relaxed"
        else:
            ordering = ""
        if bytes_ & (bytes_ - 1):
            bytes_ = 1 << bytes_.bit_length()
        piece = min(bytes_, alignment, WIDEST_PTX_ACCESS)
        if op != "atomic" and piece < bytes_:
            if splits is not None:
                splits[(space, op, bytes_, alignment, piece)] += 1
            sites[(space, op, ordering, piece)] += bytes_ // piece
            continue
        sites[(space, op, ordering, bytes_)] += 1
    for m in EMU_CP_ASYNC.finditer(ir):
        sites[("global", "cp.async", "", int(m.group(2)))] += 1
    for m in EMU_SYNC.finditer(ir):
        sites[("sync", m.group(1), "", 0)] += 1
    for m in EMU_LDMATRIX.finditer(ir):
        mode = int(m.group(1))
        op = "ldmatrix" + (".trans" if mode & LDMATRIX_TRANS else "")
        sites[("shared", op, "", 128 * (mode & LDMATRIX_MATRICES))] += 1
    return sites


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    ptx = binaries(sys.argv[1], "assembly")
    emulated = binaries(sys.argv[2], "offload")
    if set(ptx) != set(emulated):
        sys.exit("access-widths: the two modules hold different kernels: %s "
                 "and %s" % (sorted(ptx), sorted(emulated)))
    differ = False
    for name in sorted(ptx):
        splits = collections.Counter()
        a, b = ptx_sites(ptx[name]), emulator_sites(emulated[name], splits)
        print(f"kernel {name}:")
        for (space, op, bytes_, alignment, piece), count in sorted(
                splits.items()):
            print(f"  {space} {op} {bytes_} B at alignment {alignment}: "
                  f"emulator {count}, one access each; counted as the PTX's "
                  f"{bytes_ // piece} pieces of {piece} B")
        for key in sorted(set(a) | set(b)):
            space, op, ordering, bytes_ = key
            mark = "" if a[key] == b[key] else "  <- differs"
            differ |= a[key] != b[key]
            width = f" {bytes_} B" if bytes_ else ""
            print(f"  {space} {op}{'.' + ordering if ordering else ''}"
                  f"{width}: ptx {a[key]} emulator {b[key]}{mark}")
    print("access-widths: %s" % ("the PTX and the emulator differ" if differ
                                 else "same sites"))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
