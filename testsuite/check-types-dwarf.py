#!/usr/bin/env python3
"""The runtime type of every DWARF type of a Go binary, read by gostap.

Usage: check-types-dwarf.py GOSTAP BINARY

Go's DWARF gives each type its reflect kind (DW_AT_go_kind, 0x2900) and
its runtime type descriptor (DW_AT_go_runtime_type, 0x2904: an offset from
runtime.types) -- what a printer of values (issue 35) starts from.  Every
such descriptor must be read by `gostap types --json BINARY ADDR...` with
the same kind and, where DWARF gives one, the same byte size.  Go 1.19 to
1.22 write uintptr's attribute as the descriptor's address rather than an
offset: taken as such (counted as "absolute") when the offset falls
outside the type data and the address inside it.  Go 1.19 to 1.21 give
some pointer types kind 0: their kind is not compared.

Prints "not ok" lines and
  # counts: dwarf_types=N descriptors=N absolute=N mismatches=N
Exit 0 when nothing differs, 1 otherwise, 77 when there is no readelf.
"""

import json
import re
import shutil
import subprocess
import sys

KINDS = ["invalid", "bool", "int", "int8", "int16", "int32", "int64",
         "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
         "float32", "float64", "complex64", "complex128", "array", "chan",
         "func", "interface", "map", "ptr", "slice", "string", "struct",
         "unsafe.Pointer"]

DIE = re.compile(r"\s*<\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((DW_TAG_\w+)\)")
ATTR = re.compile(r"\s*<[0-9a-f]+>\s+(DW_AT_\w+|Unknown AT value: 29\d\d)"
                  r"\s*:\s*(.*)$")


def readelf(*args):
    return subprocess.run(["readelf", *args], capture_output=True,
                          text=True, check=True).stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if shutil.which("readelf") is None:
        print("# no readelf (binutils)")
        return 77
    gostap, binary = sys.argv[1:]
    sym = {}
    for line in readelf("-sW", binary).splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] in ("runtime.types", "runtime.etypes"):
            sym[f[7]] = int(f[1], 16)
    if len(sym) != 2:
        sys.exit(f"{binary}: no runtime.types / runtime.etypes in .symtab")
    start, end = sym["runtime.types"], sym["runtime.etypes"]
    dies, cur = [], None
    for line in readelf("--debug-dump=info", binary).splitlines():
        m = DIE.match(line)
        if m:
            cur = {"off": m.group(1), "tag": m.group(2)}
            dies.append(cur)
            continue
        m = ATTR.match(line)
        if m and cur is not None:
            k, v = m.groups()
            if k == "DW_AT_name":
                cur["name"] = re.sub(r"^\(indirect[^)]*\): ", "", v).strip()
            elif k == "DW_AT_byte_size":
                cur["size"] = int(v.split()[0], 0)
            elif k.endswith("2900"):
                cur["kind"] = int(v.split()[0], 0)
            elif k.endswith("2904"):
                cur["rt"] = int(v.split()[0], 0)
    dies = [d for d in dies if d.get("rt")]
    absolute = 0
    for d in dies:
        d["addr"] = start + d["rt"]
        if not start <= d["addr"] < end and start <= d["rt"] < end:
            d["addr"] = d["rt"]
            absolute += 1
    addrs = sorted({hex(d["addr"]) for d in dies})
    g = subprocess.run([gostap, "types", "--json", binary, *addrs],
                       capture_output=True, text=True)
    got = {}
    for line in g.stdout.splitlines():
        t = json.loads(line)
        got[t["addr"]] = t
    bad = 0
    for line in g.stderr.splitlines():
        bad += 1
        print(f"not ok - {binary}: {line}")
    for d in dies:
        t = got.get(hex(d["addr"]))
        what = f"{d.get('name', '?')} (DIE {d['off']}, {d['addr']:#x})"
        if t is None:
            if not g.stderr:
                bad += 1
                print(f"not ok - {what}: not in gostap's output")
            continue
        kind = d.get("kind")
        # Go 1.19 to 1.21 write kind 0 on some pointer types: no kind.
        if kind and kind < len(KINDS) and KINDS[kind] != t["kind"]:
            bad += 1
            print(f"not ok - {what}: kind DWARF {KINDS[kind]}, gostap {t['kind']}")
        if "size" in d and d["tag"] != "DW_TAG_pointer_type" \
                and d["size"] != t["size"]:
            bad += 1
            print(f"not ok - {what}: size DWARF {d['size']}, gostap {t['size']}")
    print(f"# counts: dwarf_types={len(dies)} descriptors={len(addrs)} "
          f"absolute={absolute} mismatches={bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
