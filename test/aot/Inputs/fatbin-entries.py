"""Lists the entries of every CUDA fat binary embedded in a file, one line
each: `ptx sm_80` or `elf sm_90` (kind and architecture, from the entry
headers; the payloads may be compressed). Used by test/aot/fatbin-chips.test,
which must not need cuobjdump (not every CUDA toolkit has it)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
KINDS = {1: "ptx", 2: "elf"}
start = data.find(struct.pack("<I", 0xBA55ED50))
found = 0
while start >= 0:
    # Header: magic, version (u16), header size (u16), payload size (u64).
    _, _, header, size = struct.unpack_from("<IHHQ", data, start)
    entry, end = start + header, start + header + size
    while entry < end:
        # Entry: kind (u16), version (u16), header size (u32), payload size
        # (u64), ..., the architecture as a u32 at offset 28.
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, entry)
        arch = struct.unpack_from("<I", data, entry + 28)[0]
        print("%s sm_%d" % (KINDS.get(kind, "kind%d" % kind), arch))
        found += 1
        entry += entry_header + payload
    start = data.find(struct.pack("<I", 0xBA55ED50), end)
if not found:
    sys.exit("no fat binary in " + sys.argv[1])
