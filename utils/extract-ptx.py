#!/usr/bin/env python3
"""Writes the PTX of every gpu.binary object in an MLIR file to OUTDIR.

usage: extract-ptx.py FILE.mlir OUTDIR [--assemble PTXAS ARCH [--allow-spills]]
Each object's `assembly = "..."` string (gpu-module-to-binary format=isa)
becomes OUTDIR/<binary symbol>.ptx. Prints one line per file written. With
--assemble, also assembles each file with `PTXAS -arch=ARCH -v` and prints
one line per function ptxas reports, kernels first in each file:
`<file>: <function>: registers=R spill-stores=S spill-loads=L` (device
functions, which ptxas gives no register count, show `registers=-`).
Exits 1 if ptxas fails, or if any function of any file spills (a line
`extract-ptx: <file>: <function> spills ...` on stderr), unless
--allow-spills: a spill check cannot then miss the first kernel listed, or
any other, whatever the caller's FileCheck lines look like. Exits 1 too if
ptxas warns, or reports a "Potential out of bound access" (an info line,
which ptxas prints for accesses past a shared variable's declared size:
undefined behaviour in PTX), each quoted as `extract-ptx: <file>: ptxas:
<line>` on stderr.
"""
import subprocess
import os
import re
import sys

from gpu_objects import objects


def parse_ptxas_info(info):
    """Per function, in ptxas' order: [name, registers or None, stores, loads].

    ptxas -v prints, per function, "Compiling entry function 'k'" (kernels
    only), "Function properties for f" followed by a line "N bytes stack
    frame, S bytes spill stores, L bytes spill loads", and "Used R registers"
    (kernels only). Each number is attached to the function it follows, so a
    device function without a register line cannot shift the kernels'."""
    functions = {}
    order = []
    current = None
    for line in info.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1)
        if current is not None and current not in functions:
            functions[current] = [current, None, 0, 0]
            order.append(current)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current is not None:
            functions[current][2] = int(m.group(1))
            functions[current][3] = int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m and current is not None:
            functions[current][1] = int(m.group(1))
    return [functions[f] for f in order]


def assemble(path, ptxas, arch, allow_spills):
    """Returns 'ok', 'spills' or 'failed'."""
    run = subprocess.run([ptxas, "-arch=" + arch, "-v", path, "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return "failed"
    complaints = [line for line in (run.stdout + run.stderr).splitlines()
                  if re.search(r"warning|Potential out of bound access",
                               line, re.IGNORECASE)]
    for line in complaints:
        sys.stderr.write("extract-ptx: %s: ptxas: %s\n"
                         % (os.path.basename(path), line.strip()))
    if complaints:
        return "failed"
    functions = parse_ptxas_info(run.stdout + run.stderr)
    if not functions:
        sys.stderr.write("extract-ptx: %s: ptxas -v reported no function\n" % path)
        return "failed"
    # Kernels (with a register count) first, then device functions.
    functions.sort(key=lambda f: f[1] is None)
    status = "ok"
    for name, registers, stores, loads in functions:
        print("%s: %s: registers=%s spill-stores=%d spill-loads=%d"
              % (os.path.basename(path), name,
                 "-" if registers is None else registers, stores, loads))
        if (stores or loads) and not allow_spills:
            sys.stderr.write("extract-ptx: %s: %s spills %d bytes (stores), "
                             "%d bytes (loads)\n"
                             % (os.path.basename(path), name, stores, loads))
            status = "spills"
    return status


def main(argv):
    ptxas = arch = None
    allow_spills = "--allow-spills" in argv
    argv = [a for a in argv if a != "--allow-spills"]
    if len(argv) == 6 and argv[3] == "--assemble":
        ptxas, arch = argv[4], argv[5]
        argv = argv[:3]
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    source = open(argv[1]).read()
    os.makedirs(argv[2], exist_ok=True)
    count = 0
    spilled = False
    for name, j, ptx in objects(source, "assembly"):
        path = os.path.join(argv[2], name + ("" if j == 0 else "_%d" % j) + ".ptx")
        with open(path, "w") as f:
            f.write(ptx)
        print(path)
        count += 1
        if ptxas:
            status = assemble(path, ptxas, arch, allow_spills)
            if status == "failed":
                return 1
            spilled = spilled or status == "spills"
    if count == 0:
        sys.stderr.write("extract-ptx: no gpu.binary assembly in %s\n" % argv[1])
        return 1
    return 1 if spilled else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
