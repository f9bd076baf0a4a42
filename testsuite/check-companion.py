#!/usr/bin/env python3
"""check-companion.py SW COMPANION TWIN WTWIN GO LIST_SW.json LIST_TWIN.json

Check the companion debug file gostap wrote for SW (a -s -w build) against
independent views of the same code:
  0. `llvm-dwarfdump --verify` finds no error in its DWARF;
  1. lines: `addr2line -e COMPANION` at every instruction `objdump -d SW`
     shows equals Go's own `go tool addr2line SW` (the pclntab read by
     Go's code); where Go has no line (padding after a function's code),
     the companion has none either (no row, or line 0);
  2. row starts: every entry, body and RET of `gostap list --json SW`
     (LIST_SW.json) starts a row of the companion's line table
     (`objdump --dwarf=decodedline`), so stap places them without -g;
  3. frames: the CFA and return-address rule at every instruction of
     Go's own .debug_frame in TWIN (the same code built with DWARF,
     `readelf --debug-dump=frames-interp`) equal the companion's;
  4. symbols: the companion's function symbols equal the .symtab of WTWIN
     (the same code built with -w), name and address (`nm`), except the
     ABI0 assembly the pclntab cannot tell apart from file-local assembly
     (TEXT name<>, which Go's linker leaves without ".abi0") and the
     names Go 1.18-1.20 abbreviate in the pclntab ("F[...]"): counted;
  5. listing: LIST_SW.json (gostap reading the companion) has the same
     functions, entries, bodies, RETs, file and line as LIST_TWIN.json
     (the DWARF twin), and every function says it has no types.
TAP through gostaptest.py; exit 1 on a mismatch."""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gostaptest import Tap, die, pclntab_abbreviated, run  # noqa: E402

WHO = "check-companion.py"


def instructions(binary):
    out = run(WHO, ["objdump", "-d", "--no-show-raw-insn", binary])
    pcs = []
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s", line)
        if m:
            pcs.append(int(m.group(1), 16))
    return pcs


def lines_of(argv, pcs):
    p = subprocess.run(argv, input="".join(f"{pc:#x}\n" for pc in pcs),
                       stdout=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0:
        die(WHO, f"{' '.join(argv)} exited {p.returncode}")
    return p.stdout.splitlines()


def check_lines(tap, sw, comp, go):
    pcs = instructions(sw)
    gout = lines_of([go, "tool", "addr2line", sw], pcs)
    cout = lines_of(["addr2line", "-e", comp], pcs)
    if len(gout) != 2 * len(pcs) or len(cout) != len(pcs):
        die(WHO, "addr2line gave a different number of lines")
    bad, n, nolines = [], 0, 0
    for i, pc in enumerate(pcs):
        func, gl = gout[2 * i], gout[2 * i + 1]
        if func == "?" or func.startswith("go:"):
            continue                # outside every function: linker marks
        n += 1
        cl = cout[i]
        if gl.endswith(":-1") or gl.endswith(":0"):
            nolines += 1
            if not (cl.startswith("??:") or cl in ("?:?", "?:0")):
                bad.append(f"{pc:#x} ({func}): Go has no line, companion {cl}")
        elif cl != gl:
            bad.append(f"{pc:#x} ({func}): go tool addr2line {gl}, "
                       f"companion {cl}")
    tap.check(f"lines: {n} instructions ({nolines} without a line) as "
              f"go tool addr2line gives them", bad)
    return n


def row_starts(comp):
    out = run(WHO, ["objdump", "--dwarf=decodedline", comp])
    starts = set()
    for line in out.splitlines():
        m = re.search(r"\s0x([0-9a-f]+)\b", line)
        if m:
            starts.add(int(m.group(1), 16))
    return starts


def check_rows(tap, comp, listing):
    starts = row_starts(comp)
    bad, n = [], 0
    for f in listing["functions"]:
        sites = [("entry", f["entry"]), ("body", f["body"])]
        sites += [("RET", r) for r in f["returns"]]
        for what, a in sites:
            a = int(a, 16) if isinstance(a, str) else a
            n += 1
            if a not in starts:
                bad.append(f"{f['name']}: {what} {a:#x} starts no row")
    tap.check(f"row starts: {n} entries, bodies and RETs", bad)
    return n


def frames(path):
    """{pc: (cfa, ra)} at each row of every FDE, and the FDE ranges."""
    out = run(WHO, ["readelf", "--debug-dump=frames-interp", path])
    rows, ranges, cur = {}, [], None
    for line in out.splitlines():
        m = re.search(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
        if m:
            cur = (int(m.group(1), 16), int(m.group(2), 16))
            ranges.append(cur)
            continue
        m = re.match(r"^([0-9a-f]{16}) (\S+)\s+(\S+)", line)
        if m and cur is not None:
            rows.setdefault(cur, []).append(
                (int(m.group(1), 16), m.group(2), m.group(3)))
    return rows, ranges


def rule_at(rows, pc):
    best = None
    for loc, cfa, ra in rows:
        if loc <= pc:
            best = (cfa, ra)
    return best


def check_frames(tap, comp, twin, pcs):
    grows, granges = frames(twin)
    crows, cranges = frames(comp)
    cby = sorted(cranges)
    import bisect
    starts = [r[0] for r in cby]
    bad, n = [], 0
    pcs = sorted(pcs)
    for lo, hi in granges:
        i = bisect.bisect_right(starts, lo) - 1
        if i < 0 or not (cby[i][0] <= lo < cby[i][1]):
            bad.append(f"{lo:#x}: an FDE in Go's .debug_frame, none in the "
                       "companion")
            continue
        cr = crows[cby[i]]
        gr = grows[(lo, hi)]
        j = bisect.bisect_left(pcs, lo)
        while j < len(pcs) and pcs[j] < hi:
            pc = pcs[j]
            j += 1
            n += 1
            g, c = rule_at(gr, pc), rule_at(cr, pc)
            if g != c:
                bad.append(f"{pc:#x}: Go's CFA/ra {g}, companion {c}")
    tap.check(f"frames: the CFA and return address at {n} instructions "
              "as Go's own .debug_frame gives them", bad)
    return n


def symbols(path):
    out = run(WHO, ["nm", "--defined-only", path])
    by = {}
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "Tt":
            by.setdefault(int(parts[0], 16), set()).add(parts[2])
    return by


def check_symbols(tap, comp, wtwin, listing):
    mine, theirs = symbols(comp), symbols(wtwin)
    bad, n, local_asm, short = [], 0, 0, 0
    for f in listing["functions"]:
        a = f["entry"]
        a = int(a, 16) if isinstance(a, str) else a
        c, t = mine.get(a, set()), theirs.get(a, set())
        n += 1
        if c & t:
            continue
        if f["abi"] == "abi0" and {s[:-5] for s in c if s.endswith(".abi0")} & t:
            local_asm += 1          # TEXT name<>: no suffix in .symtab
            continue
        if "[...]" in f["name"] and c & {pclntab_abbreviated(s) for s in t}:
            short += 1              # the pclntab has no more than this
            continue
        bad.append(f"{a:#x}: companion {sorted(c)}, -w build {sorted(t)}")
    tap.check(f"symbols: {n} functions named as in the -w build's .symtab "
              f"({local_asm} file-local assembly functions with .abi0, "
              f"{short} names the pclntab abbreviates)", bad)
    return n, local_asm, short


def check_verify(tap, comp):
    tool = next((t for t in ("llvm-dwarfdump", "llvm-dwarfdump-14")
                 if shutil.which(t)), None)
    if tool is None:
        tap.check("llvm-dwarfdump --verify", [], skip="no llvm-dwarfdump here")
        return
    p = subprocess.run([tool, "--verify", comp], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    bad = [] if p.returncode == 0 and "No errors." in p.stdout else \
        [l for l in p.stdout.splitlines() if "error" in l.lower()][:20] or \
        [f"exit {p.returncode}"]
    tap.check(f"{tool} --verify: no errors", bad)


FIELDS = ("name", "probe", "entry", "body", "end", "abi", "returns",
          "tail_exits", "file", "line")


def check_listing(tap, sw, twin):
    bad = []
    if sw.get("dwarf_companion") is not True:
        bad.append(f"dwarf_companion is {sw.get('dwarf_companion')!r}")
    a, b = sw["functions"], twin["functions"]
    if len(a) != len(b):
        bad.append(f"{len(a)} functions, the twin {len(b)}")
    for fa, fb in zip(a, b):
        for k in FIELDS:
            if fa.get(k) != fb.get(k):
                bad.append(f"{fb['name']}: {k} {fa.get(k)!r}, twin "
                           f"{fb.get(k)!r}")
                break
        if "params" in fa or not fa.get("params_error", "").startswith(
                "no types"):
            bad.append(f"{fa['name']}: params {fa.get('params')!r} "
                       f"error {fa.get('params_error')!r}")
    tap.check(f"listing: {len(a)} functions as the DWARF twin lists them",
              bad)
    return len(a)


def main():
    if len(sys.argv) != 8:
        die(WHO, "usage: SW COMPANION TWIN WTWIN GO LIST_SW LIST_TWIN", 99)
    sw, comp, twin, wtwin, go, lsw, ltwin = sys.argv[1:]
    with open(lsw) as f:
        list_sw = json.load(f)
    with open(ltwin) as f:
        list_twin = json.load(f)
    tap = Tap()
    check_verify(tap, comp)
    nl = check_lines(tap, sw, comp, go)
    nr = check_rows(tap, comp, list_sw)
    nf = check_frames(tap, comp, twin, instructions(sw))
    ns, nla, nab = check_symbols(tap, comp, wtwin, list_sw)
    nfn = check_listing(tap, list_sw, list_twin)
    return tap.finish({"instructions": nl, "sites": nr, "frames": nf,
                       "symbols": ns, "local_asm": nla, "abbreviated": nab,
                       "functions": nfn,
                       "mismatches": tap.mismatches})


if __name__ == "__main__":
    sys.exit(main())
