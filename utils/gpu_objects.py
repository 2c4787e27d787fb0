"""The strings in the gpu.object attributes of MLIR text (the PTX, cubin
or host IR of each gpu.binary), for the scripts in utils/ that read
`ssd-opt`'s GPU pipelines' output. Only the standard library."""

import re

_BINARY = re.compile(r"gpu\.binary @(\w+)\s+\[(.*)\]\s*$", re.M)


def unescape(text):
    """An MLIR string attribute's text as the string it stands for: MLIR
    prints non-printable bytes as \\XX (hex) and escapes backslash and
    quote as \\\\ and \\"."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] in "\\\"":
                out += text[i + 1].encode()
                i += 2
            else:
                out += bytes([int(text[i + 1:i + 3], 16)])
                i += 3
            continue
        out += text[i].encode()
        i += 1
    return out.decode()


def objects(source, attribute):
    """(gpu.binary name, position of the object in it, the decoded string)
    for every object of every gpu.binary in `source` that has `attribute`
    (assembly: PTX; offload: host IR; ...), in order."""
    for binary in _BINARY.finditer(source):
        pattern = re.escape(attribute) + r' = "((?:[^"\\]|\\.)*)"'
        for position, m in enumerate(re.finditer(pattern, binary.group(2))):
            yield binary.group(1), position, unescape(m.group(1))
