#!/usr/bin/env python3
"""check-pgo.py: a gostap profile of the cpubound fixture
(testsuite/fixtures/cpubound) against Go's own, and what `go build -pgo`
makes of each, on this machine (run-profile.sh; the e2e guests take
gostap's profile with the real stap: e2e/check-e2e.py, job pgo).

The fixture runs natively for --seconds and writes its runtime/pprof CPU
profile. Each of its samples' pcs become a stack record
(tapsets/go_stack.stp's form: the leaf pc where the goroutine stood, the
callers' return addresses) in a sample line of tapsets/go_profile.stp,
and `gostap symbolize --pprof` makes gostap's profile of them. Read by `go
tool pprof -raw` (--pprof-go):
 - every pc has the same functions, files and lines in both profiles, and
   every function the same start_line (Go 1.21+'s runtime/pprof writes it;
   1.19's does not, and gostap writes 0 for a binary without it);
 - unless --no-pgo, with the toolchain that built the fixture (--go; Go
   1.21+, -pgo's first release out of preview): the build without -pgo does not inline
   main.hash at its hot call site in main.mix, the builds with -pgo of
   gostap's profile and of runtime/pprof's do (pgo_build.py: the
   compiler's -m=2 and -d=pgodebug=1).
Prints "pgo: LABEL pcs=N functions=N pgo=yes|no mismatches=N"; exit 1 on
a mismatch.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgo_build  # noqa: E402
import pprof_raw  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--label", required=True)
ap.add_argument("--bin", required=True)
ap.add_argument("--version", required=True, help="the Go release that built --bin")
ap.add_argument("--go", required=True, help="that release's go")
ap.add_argument("--pprof-go", required=True, help="the go whose pprof reads the profiles")
ap.add_argument("--gostap", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--seconds", default="2")
ap.add_argument("--no-pgo", action="store_true", help="compare the profiles only")
a = ap.parse_args()

mismatches = 0


def bad(msg):
    global mismatches
    mismatches += 1
    print(f"not ok - {a.label}: {msg}")


def at_least(v, want):
    return tuple(map(int, v.split("."))) >= want


with tempfile.TemporaryDirectory() as tmp:
    gopb, gspb = os.path.join(tmp, "go.pb.gz"), os.path.join(tmp, "gostap.pb.gz")
    r = subprocess.run([a.bin, gopb, a.seconds], capture_output=True, text=True)
    if r.returncode != 0 or not re.match(r"^cpubound: \d+ rounds", r.stdout):
        bad(f"the fixture exited {r.returncode}: {(r.stdout + r.stderr).strip()[:300]}")
        sys.exit(1)
    rp = pprof_raw.read(a.pprof_go, gopb)
    if rp.error or not rp.samples:
        bad(f"runtime/pprof's profile: {rp.error or 'no sample'}")
        sys.exit(1)
    # Its stacks as go_profile.stp prints them: runtime/pprof's leaf pc is
    # where the thread stood, its other pcs are return addresses - 1.
    text = ["<goprof:type:samples:count>", "<goprof:type:cpu:nanoseconds>",
            f"<goprof:period:cpu:nanoseconds:{rp.period}>"]
    for s in rp.samples:
        chain = ",".join(f"{pc + 1:x}" for pc in s.pcs[1:])
        text.append(f"<goprof:sample:{s.values[0]},{s.values[1]}::<gostack:p:{s.pcs[0]:x}::{chain}:0>>")
    inp = os.path.join(tmp, "stap.out")
    with open(inp, "w") as f:
        f.write("\n".join(text) + "\n")
    r = subprocess.run([a.gostap, "symbolize", "--pprof", gspb, a.bin, inp],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr:
        bad(f"gostap symbolize --pprof exit {r.returncode}: {r.stderr.strip()[:300]}")
        sys.exit(1)
    gp = pprof_raw.read(a.pprof_go, gspb)
    if gp.error:
        bad(f"gostap's profile: {gp.error}")
        sys.exit(1)
    if gp.total(0) != rp.total(0) or gp.total(1) != rp.total(1):
        bad(f"totals {gp.total(0)}, {gp.total(1)}; runtime/pprof's {rp.total(0)}, {rp.total(1)}")
    diff = [(hex(pc), gp.locations.get(pc), rp.locations[pc]) for pc in rp.locations
            if gp.locations.get(pc) != rp.locations[pc]]
    if diff:
        bad(f"{len(diff)} of {len(rp.locations)} pcs differ, e.g. {diff[:2]}")
    gstart = {k[1]: v for k, v in gp.functions.items()}
    rstart = {k[1]: v for k, v in rp.functions.items()}
    sdiff = [(f, sorted(gstart.get(f, ())), sorted(v)) for f, v in rstart.items()
             if gstart.get(f) != v]
    if sdiff:
        bad(f"start_line of {len(sdiff)} of {len(rstart)} functions differs from "
            f"runtime/pprof's: {sdiff[:4]}")
    if at_least(a.version, (1, 21)) and any(0 in v for v in rstart.values()):
        bad(f"runtime/pprof of Go {a.version} wrote start_line 0: {sorted(rstart.items())[:4]}")

    pgo = at_least(a.version, (1, 21)) and not a.no_pgo
    if pgo:
        d = pgo_build.decide(a.go, a.src, None, tmp)
        if d.rc != 0 or not d.why or d.inlined:
            bad(f"without -pgo: exit {d.rc}, inlined {d.inlined}, {d.why}")
        else:
            print(f"ok - {a.label}: without -pgo: {d.why}")
        for tag, prof in (("gostap", gspb), ("runtime/pprof", gopb)):
            d = pgo_build.decide(a.go, a.src, prof, tmp)
            if d.rc != 0 or not d.why or not d.inlined:
                bad(f"-pgo=<{tag}'s profile>: exit {d.rc}, inlined {d.inlined}: "
                    + " | ".join(l for l in d.output.splitlines() if "hash" in l or "hot-" in l)[:300])
            else:
                print(f"ok - {a.label}: -pgo=<{tag}'s profile>: {d.threshold}; {d.why}")

print(f"pgo: {a.label} pcs={len(rp.locations)} functions={len(rstart)} "
      f"pgo={'yes' if pgo else 'no'} mismatches={mismatches}")
sys.exit(1 if mismatches else 0)
