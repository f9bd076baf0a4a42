#!/usr/bin/env python3
"""Compare `gostap types --json` with what reflect says in the program.

Usage: check-types.py LABEL REFLECT GOSTAP [--by-name]

REFLECT is the kinds fixture's output (one JSON object a line, printed
through reflect by the program itself), GOSTAP gostap's output on a
binary.  Without --by-name both come from the same binary and every
type is matched by its descriptor address, which must be in GOSTAP's
output, and compared key by key.  With --by-name (the reflect facts of
an amd64 build against gostap on another build, such as arm64) types are
matched by kind and type string and compared on what does not depend on
the address: sizes, alignment, names, lengths, directions, counts, and
the element, key and field types by their strings, field offsets.
Every map of GOSTAP with a Swiss table (Go 1.24+) must give its group
type's size as its group size.

Prints one "not ok" line per mismatch and a last line
  # counts: types=N fields=N mismatches=N
Exit 0 when nothing differs, 1 otherwise.
"""

import json
import sys

PLAIN = ("kind", "size", "align", "field_align", "str", "name", "pkgpath",
         "len", "dir", "methods", "in", "out", "variadic")
REFS = ("elem", "key")


def load(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except ValueError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")
    return out


def norm(t, key):
    v = t.get(key)
    if key == "variadic":
        return bool(v)
    if key == "fields":
        return v or []
    return v


def main():
    args = [a for a in sys.argv[1:] if a != "--by-name"]
    by_name = "--by-name" in sys.argv[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    label, rpath, gpath = args
    refl, gost = load(rpath), load(gpath)
    raddr = {t["addr"]: t for t in refl}
    gaddr = {t["addr"]: t for t in gost}
    gname = {}
    for t in gost:
        gname.setdefault((t["kind"], t["str"]), []).append(t)

    def rstr(a):
        return raddr[a]["str"] if a in raddr else f"?{a}"

    def gstr(a):
        return gaddr[a]["str"] if a in gaddr else f"?{a}"

    types = fields = bad = 0

    def mismatch(r, what, want, got):
        nonlocal bad
        bad += 1
        print(f"not ok - {label}: type {r['str']} ({r['addr']}): {what}: "
              f"reflect {want!r}, gostap {got!r}")

    for r in refl:
        if by_name:
            cands = gname.get((r["kind"], r["str"]), [])
            if len(cands) != 1:
                mismatch(r, "types of that kind and string", 1, len(cands))
                continue
            g = cands[0]
        else:
            g = gaddr.get(r["addr"])
            if g is None:
                mismatch(r, "descriptor", "present", "missing")
                continue
        types += 1
        for k in PLAIN:
            if norm(r, k) != norm(g, k):
                mismatch(r, k, norm(r, k), norm(g, k))
        for k in REFS:
            rv, gv = r.get(k), g.get(k)
            if by_name:
                rv = rstr(rv) if rv else None
                gv = gstr(gv) if gv else None
            if rv != gv:
                mismatch(r, k, rv, gv)
        rf, gf = norm(r, "fields"), norm(g, "fields")
        if len(rf) != len(gf):
            mismatch(r, "number of fields", len(rf), len(gf))
            continue
        for i, (a, b) in enumerate(zip(rf, gf)):
            fields += 1
            for k in ("name", "offset", "embedded", "type"):
                av, bv = a[k], b[k]
                if k == "type" and by_name:
                    av, bv = rstr(av), gstr(bv)
                if av != bv:
                    mismatch(r, f"field {i} ({a['name']}) {k}", av, bv)
    # Go 1.24+: a map's group size is its group type's size.
    for g in gost:
        grp = gaddr.get(g.get("group"))
        if "group_size" in g and (grp is None or grp["size"] != g["group_size"]):
            bad += 1
            print(f"not ok - {label}: map {g['str']} ({g['addr']}): group size "
                  f"{g['group_size']}, its group type "
                  f"{grp['size'] if grp else 'missing'}")
    print(f"# counts: types={types} fields={fields} mismatches={bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
