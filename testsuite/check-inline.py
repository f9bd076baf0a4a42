#!/usr/bin/env python3
"""check-inline.py: the inlined copies `gostap list --json` reports against
Go's DWARF, read by llvm-dwarfdump, and Go's own runtime.CallersFrames.

Usage: check-inline.py BINARY DWARF-BINARY [LABEL]

DWARF-BINARY is the inline fixture with DWARF and the same text as BINARY
(itself, or the default build of a -w or -s -w twin).  The truth, for
every function of package main: its DW_TAG_inlined_subroutine DIEs (the
compiler writes them from its own inline positions; llvm-dwarfdump reads
them), each an inlined copy with its function (abstract origin), the copy
it is nested in, and its lowest address (low_pc, or the lowest of its
ranges).  gostap must report the same copies, no more and no fewer, each
with that address as its first pc, in that function, nested in that copy.
Then, at each copy's first pc, `DWARF-BINARY -frames PC` (the fixture
asks runtime.CallersFrames) must name an inlined frame there: the copy's
function or one inlined into it that starts at the same pc."""

import re
import sys
from collections import Counter

from gostaptest import Tap, die, gostap_list, run

WHO = "check-inline"


def print_name(name):
    """runtime.funcNameForPrint: shape arguments as [...]."""
    i, j = name.find("["), name.rfind("]")
    return name[:i] + "[...]" + name[j + 1:] if 0 <= i < j else name


def frames_at(binary, pcs):
    """{pc: [(func, file, line), ...]} from BINARY -frames."""
    out = {}
    for k in range(0, len(pcs), 2000):
        text = run(WHO, [binary, "-frames", *[f"{p:#x}" for p in pcs[k:k + 2000]]],
                   timeout=120)
        for line in text.splitlines():
            _, pc, rest = line.split(" ", 2)
            fr = []
            for part in rest.split(";"):
                func, pos = part.rsplit(" ", 1)
                file, ln = pos.rsplit(":", 1)
                fr.append((func, file, int(ln)))
            out[int(pc, 16)] = fr
    return out


DIE_RE = re.compile(r"^0x[0-9a-f]+:( *)(DW_TAG_\w+|NULL)")
ORIGIN_RE = re.compile(r'DW_AT_abstract_origin\s+\(0x[0-9a-f]+ "(.*)"\)')
LOW_RE = re.compile(r"DW_AT_low_pc\s+\((0x[0-9a-f]+)\)")
RANGE_RE = re.compile(r"^\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)")


def dwarf_copies(binary, func):
    """The inlined copies DWARF describes in FUNC: (name, nested-in name
    or None, lowest pc) each."""
    text = run(WHO, ["llvm-dwarfdump", "-c", f"--name={func}", binary], timeout=120)
    copies, stack, cur, in_ranges = [], [], None, False
    root = None      # the tag of the top DIE of the block being read
    for line in text.splitlines():
        m = DIE_RE.match(line)
        if m:
            depth = len(m.group(1))
            if depth <= 1:
                # A DIE --name found: only the concrete subprogram's
                # children count (not an inlined copy named FUNC).
                root = m.group(2)
                stack, cur = [], None
                continue
            if root != "DW_TAG_subprogram":
                continue
            # DIEs are indented two columns a level from the subprogram's.
            while stack and stack[-1][0] >= depth:
                stack.pop()
            cur, in_ranges = None, False
            if m.group(2) == "DW_TAG_inlined_subroutine":
                cur = {"name": None, "pcs": [], "depth": depth}
                outer = [c for _, c in stack if c is not None]
                cur["outer"] = outer[-1] if outer else None
                copies.append(cur)
            if m.group(2) != "NULL":
                stack.append((depth, cur))
            continue
        if cur is None:
            continue
        if (m := ORIGIN_RE.search(line)):
            cur["name"] = m.group(1)
        elif (m := LOW_RE.search(line)):
            cur["pcs"].append(int(m.group(1), 16))
        elif "DW_AT_ranges" in line:
            in_ranges = True
        elif in_ranges and (m := RANGE_RE.match(line)):
            cur["pcs"].append(int(m.group(1), 16))
        elif "DW_AT_" in line:
            in_ranges = False
    return [(print_name(c["name"]), print_name(c["outer"]["name"]) if c["outer"] else None,
             min(c["pcs"])) for c in copies if c["name"] and c["pcs"]]


def main():
    if len(sys.argv) < 3:
        die(WHO, "usage: check-inline.py BINARY DWARF-BINARY [LABEL]")
    binary, dbin = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else binary
    tap = Tap()
    full = gostap_list(WHO, binary)
    mains = sorted({f["name"] for f in full["functions"] if f["name"].startswith("main.")})
    if not mains:
        die(WHO, f"{binary}: no function of package main")
    want = Counter()
    for func in mains:
        if func.endswith("[...]"):
            continue    # Go 1.19's shape instantiations: DWARF names them otherwise
        for name, outer, pc in dwarf_copies(dbin, func):
            want[(name, func, outer, pc)] += 1
    got = Counter()
    codeless = 0
    for f in full["functions"] + full.get("inlined_only", []):
        for c in f.get("inlined", []):
            if c["in"] not in mains:
                continue
            if not c["code"]:
                codeless += 1
            nested = print_name(c["nested_in"]) if c["nested_in"] else None
            got[(print_name(f["name"]), c["in"], nested, int(c["pc"], 16))] += 1
    problems = [f"gostap has no copy of {n} in {fn} (nested in {o}) first at {pc:#x}"
                for (n, fn, o, pc), k in sorted((want - got).items()) for _ in range(k)]
    problems += [f"DWARF has no copy of {n} in {fn} (nested in {o}) first at {pc:#x}"
                 for (n, fn, o, pc), k in sorted((got - want).items()) for _ in range(k)]
    tap.check(f"{label}: each inlined copy in package main, its function, the copy it "
              f"is nested in and first pc equal DWARF's ({sum(want.values())} copies)",
              problems)
    # CallersFrames at each first pc.
    pcs = sorted({k[3] for k in got})
    fr = frames_at(dbin, pcs)
    starts = {}
    for (n, fn, o, pc) in got:
        starts.setdefault(pc, set()).add(n)
    problems = []
    for (n, fn, o, pc) in sorted(got):
        frs = fr.get(pc, [])
        inner = frs[0][0] if frs else None
        if inner is None or inner == print_name(fn) or inner not in starts[pc]:
            problems.append(f"{n} in {fn} at {pc:#x}: CallersFrames' innermost frame is "
                            f"{inner}, not an inlined copy starting there")
    tap.check(f"{label}: at each first pc CallersFrames names an inlined copy that "
              f"starts there", problems)
    need = {"main.add", "main.sq", "main.mid", "main.(*acc).bump", "main.callerC.func1"}
    # Go 1.19 does not inline generic functions (Max stays out of line,
    # one function per shape); later releases do.
    m = re.match(r"go1\.(\d+)", full.get("go_version", ""))
    if m and int(m.group(1)) >= 20:
        need.add("main.Max[...]")
    names = {k[0] for k in got}
    nested = sum(k for key, k in got.items() if key[2] is not None)
    tap.check(f"{label}: the fixture's copies are there (nested, generic, closure, method)",
              [f"no copy of {n}" for n in sorted(need - names)]
              + ([] if nested else ["no nested copy"]))
    return tap.finish({"copies": sum(got.values()), "nested": nested, "codeless": codeless})


if __name__ == "__main__":
    sys.exit(main())
