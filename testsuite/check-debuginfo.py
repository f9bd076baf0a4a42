#!/usr/bin/env python3
"""check-debuginfo.py TWIN.json SPLIT.json SOURCE [DEBUG_FILE]

Compare `gostap list --json` of a stripped binary whose DWARF is in a
separate debug file (SPLIT) with that of its unstripped twin (TWIN): the
same functions, each with the same entry, body, RETs, ABI, probe alias,
file, line, params, results and params_error; SPLIT says the DWARF came
from SOURCE (build-id, debuglink, debuginfod) and, when given, from
DEBUG_FILE.  Prints one line: "functions=N params=N results=N mismatches=N"
and, before it, each mismatch (at most 20).  Exit 1 on a mismatch."""

import json
import sys

FIELDS = ("probe", "entry", "body", "end", "abi", "returns", "tail_exits",
          "file", "line", "params", "results", "params_error")


def main():
    twin_path, split_path, source = sys.argv[1:4]
    debug_file = sys.argv[4] if len(sys.argv) > 4 else None
    with open(twin_path) as f:
        twin = json.load(f)
    with open(split_path) as f:
        split = json.load(f)
    bad = []
    if split.get("dwarf_source") != source:
        bad.append(f"dwarf_source {split.get('dwarf_source')!r}, expected {source!r}")
    if debug_file is not None and split.get("debug_file") != debug_file:
        bad.append(f"debug_file {split.get('debug_file')!r}, expected {debug_file!r}")
    if not split.get("has_dwarf") or split.get("has_symtab"):
        bad.append(f"has_dwarf {split.get('has_dwarf')}, has_symtab "
                   f"{split.get('has_symtab')}: expected true, false")
    if split.get("dwarf_version") != twin.get("dwarf_version"):
        bad.append(f"dwarf_version {split.get('dwarf_version')} != "
                   f"{twin.get('dwarf_version')}")
    key = lambda fn: (fn["name"], fn["entry"])
    tf = {key(fn): fn for fn in twin["functions"]}
    sf = {key(fn): fn for fn in split["functions"]}
    if tf.keys() != sf.keys():
        bad.append(f"functions differ: {len(tf.keys() - sf.keys())} only in "
                   f"the twin, {len(sf.keys() - tf.keys())} only split")
    params = results = 0
    for k in tf.keys() & sf.keys():
        for field in FIELDS:
            if tf[k].get(field) != sf[k].get(field):
                bad.append(f"{k[0]} {field}: twin {tf[k].get(field)!r}, "
                           f"split {sf[k].get(field)!r}")
                break
        params += len(tf[k].get("params", []))
        results += len(tf[k].get("results", []))
    for line in bad[:20]:
        print("mismatch:", line)
    print(f"functions={len(tf)} params={params} results={results} "
          f"mismatches={len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
