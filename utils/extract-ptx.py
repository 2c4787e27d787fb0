#!/usr/bin/env python3
"""Writes the PTX of every gpu.binary object in an MLIR file to OUTDIR.

usage: extract-ptx.py FILE.mlir OUTDIR [--assemble PTXAS ARCH]
Each object's `assembly = "..."` string (gpu-module-to-binary format=isa)
becomes OUTDIR/<binary symbol>.ptx. Prints one line per file written. With
--assemble, also assembles each file with `PTXAS -arch=ARCH -v` and prints
one line per kernel: `<file>: registers=R spill-stores=S spill-loads=L`
(exit 1 if ptxas fails).
"""
import subprocess
import os
import re
import sys


def unescape(text):
    # MLIR prints non-printable bytes of string attributes as \XX (hex) and
    # escapes backslash and quote as \\ and \".
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "\\\"":
                out += nxt.encode()
                i += 2
                continue
            out += bytes([int(text[i + 1:i + 3], 16)])
            i += 3
            continue
        out += c.encode()
        i += 1
    return out.decode()


def assemble(path, ptxas, arch):
    run = subprocess.run([ptxas, "-arch=" + arch, "-v", path, "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return False
    info = run.stdout + run.stderr
    registers = re.findall(r"Used (\d+) registers", info)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
    for r, (st, ld) in zip(registers, spills):
        print("%s: registers=%s spill-stores=%s spill-loads=%s"
              % (os.path.basename(path), r, st, ld))
    return True


def main(argv):
    ptxas = arch = None
    if len(argv) == 6 and argv[3] == "--assemble":
        ptxas, arch = argv[4], argv[5]
        argv = argv[:3]
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    source = open(argv[1]).read()
    os.makedirs(argv[2], exist_ok=True)
    count = 0
    for m in re.finditer(r'gpu\.binary @(\w+)\s+\[(.*)\]\s*$', source, re.M):
        name, body = m.group(1), m.group(2)
        for j, a in enumerate(re.finditer(r'assembly = "((?:[^"\\]|\\.)*)"', body)):
            path = os.path.join(argv[2], name + ("" if j == 0 else "_%d" % j) + ".ptx")
            with open(path, "w") as f:
                f.write(unescape(a.group(1)))
            print(path)
            count += 1
            if ptxas and not assemble(path, ptxas, arch):
                return 1
    if count == 0:
        sys.stderr.write("extract-ptx: no gpu.binary assembly in %s\n" % argv[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
