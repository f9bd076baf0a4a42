#!/usr/bin/env python3
"""check-profile.py: gostap's profiles (gostap symbolize --pprof/--folded)
of one build of the stacks fixture, against Go's own view of its stacks
and Go's own pprof.

The fixture's output (--raw) holds, per point, the stack record of a
frame-pointer walk and the want block: runtime.Callers + CallersFrames in
Go's traceback format.  This script writes what a script using
tapsets/go_profile.stp prints (two sample types, a period, one sample a
point with labels, the first point's sample twice, a sample without a
stack, text around them), runs `gostap symbolize --pprof P --folded F BIN`
on it and checks:
 - gostap's standard output is the text without the profile lines;
 - `go tool pprof -raw P` (--go): the sample types, the period, the build
   id of the binary (readelf's GNU build id, else `go tool buildid`), the
   totals of both types, and per point the sample with its label: its
   values (the first point's added up), its frames innermost first
   (function, file, line; inlined calls as frames) equal to the want
   block's, its labels decoded;
 - F: one line a sample, its frames outermost first joined by ';' and
   the value of the last type, equal to the want blocks';
 - each function's start_line (pprof's s=N) equals DW_AT_decl_line of
   its DW_TAG_subprogram in the DWARF of --dwarf (the build itself, or the
   default build of the same release for a build without DWARF): Go
   1.21+ write both (1.20 the pclntab's alone); on a release whose DWARF
   has no decl_line (Go 1.19, whose pclntab has no startLine) every
   start_line must be 0;
 - without --pprof, each sample is printed as a header line and its
   traceback.
Prints "profile: label points=N frames=N inlined=N startlines=N
startlines_zero=N mismatches=N"; exit 1 on a mismatch.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_raw  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--label", required=True)
ap.add_argument("--raw", required=True)
ap.add_argument("--bin", required=True)
ap.add_argument("--gostap", required=True)
ap.add_argument("--go", required=True)
ap.add_argument("--dwarf", required=True, help="a build of the same release with DWARF")
a = ap.parse_args()

mismatches = 0


def bad(msg):
    global mismatches
    mismatches += 1
    print(f"not ok - {a.label}: {msg}")


def frames_of(text):
    """(function, file, line) of a Go traceback, and which are inlined
    (no +0x offset; frame 0 may have none either)."""
    out, inl = [], []
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        m = re.match(r"^(\S.*)\(\.\.\.\)$", lines[i])
        n = re.match(r"^\t(\S+):(\d+)( \+0x[0-9a-f]+)?$", lines[i + 1])
        if m and n:
            out.append((m.group(1), n.group(1), int(n.group(2))))
            inl.append(n.group(3) is None)
    return out, inl


raw = open(a.raw, errors="replace").read()
points = re.findall(r"^=== point (\S+)\n(<gostack:[^>\n]*>)\n--- want\n(.*?)^=== end$",
                    raw, flags=re.M | re.S)
if not points:
    print(f"not ok - {a.label}: no points in {a.raw}")
    sys.exit(1)


def enc(s):
    """As go_profile_label() encodes a key or value."""
    out = []
    for b in s.encode():
        c = chr(b)
        if 0x20 < b < 0x7f and c not in "%;=:<>":
            out.append(c)
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


ODD = "a;b=c%d <e> é"
lines = ["stap's own text", "<goprof:type:samples:count>", "<goprof:type:delay:nanoseconds>",
         "<goprof:period:cpu:nanoseconds:10000000>"]
want_values = {}
for i, (name, rec, _) in enumerate(points):
    labels = f"{enc('point')}={enc(name)};{enc('odd')}={enc(ODD)};"
    lines.append(f"<goprof:sample:{i + 1},{(i + 1) * 1000}:{labels}:{rec}>")
    want_values[name] = [i + 1, (i + 1) * 1000]
    if i == 0:
        lines.append(f"text between samples {rec}")
        lines.append(f"<goprof:sample:7,7000:{labels}:{rec}>")
        want_values[name] = [8, 8000]
lines.append("<goprof:sample:2,3::>")
lines.append("the end")
text = "\n".join(lines) + "\n"
totals = [sum(v[0] for v in want_values.values()) + 2,
          sum(v[1] for v in want_values.values()) + 3]

with tempfile.TemporaryDirectory() as d:
    inp = os.path.join(d, "stap.out")
    with open(inp, "w") as f:
        f.write(text)
    pb, fo = os.path.join(d, "p.pb.gz"), os.path.join(d, "p.folded")
    r = subprocess.run([a.gostap, "symbolize", "--pprof", pb, "--folded", fo, a.bin, inp],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr:
        bad(f"gostap symbolize --pprof exit {r.returncode}: {r.stderr.strip()[:300]}")
        sys.exit(1)
    kept = r.stdout.splitlines()
    if kept[0] != "stap's own text" or kept[-1] != "the end" or any("<goprof:" in l for l in kept) \
            or not any(l.startswith("text between samples ") for l in kept):
        bad(f"the text around the profile lines: {kept[:3]}")
    prof = pprof_raw.read(a.go, pb)
    folded = open(fo).read().splitlines() if os.path.exists(fo) else None
    r2 = subprocess.run([a.gostap, "symbolize", a.bin, inp], capture_output=True, text=True)
    text_mode = r2.stdout

if prof.error:
    bad(prof.error)
    sys.exit(1)
if prof.types != [("samples", "count"), ("delay", "nanoseconds")]:
    bad(f"sample types {prof.types}")
if prof.period != 10000000:
    bad(f"period {prof.period}")
ids = set()
r = subprocess.run(["readelf", "-n", a.bin], capture_output=True, text=True)
ids.update(re.findall(r"Build ID: ([0-9a-f]+)", r.stdout))
r = subprocess.run([a.go, "tool", "buildid", a.bin], capture_output=True, text=True)
if r.returncode == 0:
    ids.add(r.stdout.strip())
if prof.build_id not in ids:
    bad(f"mapping build id {prof.build_id!r}, the binary's: {sorted(ids)}")
got_totals = [prof.total(0), prof.total(1)]
if got_totals != totals:
    bad(f"totals {got_totals}, the script printed {totals}")

by_point = collections.defaultdict(list)
for s in prof.samples:
    by_point[s.labels.get("point")].append(s)
if len(by_point.get(None, [])) != 1 or by_point[None][0].frames:
    bad(f"the sample without a stack: {by_point.get(None)}")
nframes = ninl = 0
want_folded = collections.Counter({"[no stack] 3": 1})
for name, rec, want in points:
    wf, winl = frames_of(want)
    nframes += len(wf)
    ninl += sum(winl[1:])
    want_folded[";".join(f[0] for f in reversed(wf)) + f" {want_values[name][1]}"] += 1
    ss = by_point.get(name, [])
    if len(ss) != 1:
        bad(f"point {name}: {len(ss)} samples")
        continue
    s = ss[0]
    if s.values != want_values[name]:
        bad(f"point {name}: values {s.values}, printed {want_values[name]}")
    if s.labels.get("odd") != ODD:
        bad(f"point {name}: label odd={s.labels.get('odd')!r}, printed {ODD!r}")
    if s.frames != wf:
        diff = next((i for i in range(max(len(wf), len(s.frames)))
                     if i >= len(wf) or i >= len(s.frames) or wf[i] != s.frames[i]), None)
        bad(f"point {name}: frame {diff}: pprof {s.frames[diff] if diff < len(s.frames) else None}, "
            f"Go {wf[diff] if diff < len(wf) else None} ({len(s.frames)} against {len(wf)} frames)")
if folded is None:
    bad("no folded file")
elif collections.Counter(folded) != want_folded:
    extra = collections.Counter(folded) - want_folded
    missing = want_folded - collections.Counter(folded)
    bad(f"folded: {sum(extra.values())} unexpected lines ({list(extra)[:1]}), "
        f"{sum(missing.values())} missing ({list(missing)[:1]})")



def decl_lines(path):
    """{name: {DW_AT_decl_line}} of the subprograms of PATH's DWARF, as
    binutils' readelf prints them (abstract ones of inlined functions
    included: they carry the name and the line)."""
    r = subprocess.run(["readelf", "--debug-dump=info", path], capture_output=True,
                       text=True, errors="replace")
    out, name, line, sub = collections.defaultdict(set), None, None, False

    def flush():
        if sub and name is not None and line is not None:
            out[name].add(line)
    for l in r.stdout.splitlines():
        if re.match(r"^\s*<\d+><[0-9a-f]+>: Abbrev Number", l):
            flush()
            sub, name, line = "(DW_TAG_subprogram)" in l, None, None
            continue
        m = re.match(r"^\s*<[0-9a-f]+>\s+DW_AT_name\s*:\s*(?:\(.*?\):\s*)?(.*?)\s*$", l)
        if m:
            name = m.group(1)
        m = re.match(r"^\s*<[0-9a-f]+>\s+DW_AT_decl_line\s*:\s*(\d+)", l)
        if m:
            line = int(m.group(1))
    flush()
    return out


# start_line: Go's DWARF says on which line each function starts.
decl = decl_lines(a.dwarf)
nstart = nzero = 0
if not decl:
    # No decl_line in this release's DWARF (Go 1.19): nor a startLine in
    # its pclntab, so every start_line must be 0.
    for (fname, sysname, _), starts in prof.functions.items():
        nzero += 1
        if starts != {0}:
            bad(f"start_line of {sysname}: {sorted(starts)}, want 0 (no startLine before Go 1.20)")
else:
    for (fname, sysname, _), starts in prof.functions.items():
        want = decl.get(sysname)
        if want is None:
            continue            # not in the DWARF (nothing to compare with)
        nstart += 1
        if len(starts) != 1 or not starts <= want:
            bad(f"start_line of {sysname}: {sorted(starts)}, DW_AT_decl_line {sorted(want)}")
    if nstart < len(prof.functions) // 2:
        bad(f"start_line: only {nstart} of {len(prof.functions)} functions found in the DWARF")

# Text mode: a header line and the traceback the record gives alone.
name, rec, want = points[1]
head = f"sample: samples=2 delay=2000 point={name} odd={ODD}"
blocks = text_mode.split("\n" + head + "\n")
if len(blocks) != 2:
    bad(f"text mode: no line {head!r}")
else:
    alone = subprocess.run([a.gostap, "symbolize", a.bin], input=rec + "\n",
                           capture_output=True, text=True).stdout
    if not blocks[1].startswith(alone):
        bad(f"text mode: the traceback after {head!r} is not the record's")

print(f"profile: {a.label} points={len(points)} frames={nframes} inlined={ninl} "
      f"startlines={nstart} startlines_zero={nzero} functions={len(prof.functions)} "
      f"mismatches={mismatches}")
sys.exit(1 if mismatches else 0)
