"""pprof_raw.py: a profile as `go tool pprof -raw` shows it, the reading
of an independent tool (Go's own pprof), for check-profile.py and
e2e/check-e2e.py.

    p = pprof_raw.read(GO, "cpu.pb.gz")   # None, p.error set on failure
    p.types     [("samples", "count"), ("cpu", "nanoseconds")]
    p.samples   [Sample(values, frames, labels, pcs)]: frames innermost
                first, each (function, file, line), inlined calls
                expanded, a location without a function as ("0xADDR",
                "?", 0); labels {key: value}; pcs the locations'
                addresses, innermost first
    p.total(i)  the sum of value i over the samples
    p.build_id, p.period
    p.functions {(name, system name, file): {start lines}} of every
                location's lines (pprof prints Function.start_line as s=N)
    p.locations {address: (frames...)}: each location's lines, as frames

    pprof_raw.read(GO, A, B) reads A and B merged, as `go tool pprof`
    merges the profiles given together.
"""

import os
import re
import subprocess
import tempfile
from collections import namedtuple

Sample = namedtuple("Sample", "values frames labels pcs")

LOC = re.compile(r"^\s+(\d+): 0x([0-9a-f]+) M=\d+(?: (\S+) (\S+?):(\d+)(?::\d+)? s=(\d+)(?:\((.*)\))?)?\s*$")
MORE = re.compile(r"^\s+(\S+) (\S+?):(\d+)(?::\d+)? s=(\d+)(?:\((.*)\))?\s*$")
LABEL = re.compile(r"(\S+):\[([^\]]*)\]")


class Profile:
    def __init__(self):
        self.types, self.samples, self.error = [], [], None
        self.build_id, self.period, self.raw = None, None, ""
        self.functions, self.locations = {}, {}

    def total(self, i):
        return sum(s.values[i] for s in self.samples)


def gocache():
    """The test suite's GOCACHE (build-fixtures.sh's): go tool pprof is
    built there once, not at every call."""
    if os.environ.get("GOCACHE"):
        return os.environ["GOCACHE"]
    root = os.environ.get("GOSTAP_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gostap-test")
    return os.path.join(root, "gocache")


def read(go, path, *more):
    p = Profile()
    cache = gocache()
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, PPROF_TMPDIR=home, PPROF_BINARY_PATH=home,
                   GOCACHE=cache, GOENV="off", GOFLAGS="", GOTOOLCHAIN="local",
                   GOPROXY="off")
        r = subprocess.run([go, "tool", "pprof", "-raw", path, *more], capture_output=True,
                           text=True, env=env)
    if r.returncode != 0:
        p.error = f"go tool pprof -raw exit {r.returncode}: {r.stderr.strip()[:300]}"
        return p
    p.raw = r.stdout
    lines = r.stdout.splitlines()
    locs, addrs, raw_samples, section, cur = {}, {}, [], None, None
    for i, l in enumerate(lines):
        if l in ("Samples:", "Locations", "Mappings"):
            section = l
            if l == "Samples:" and i + 1 < len(lines):
                p.types = [tuple(t.split("/", 1)) for t in lines[i + 1].split()]
            continue
        m = re.match(r"^Period: (\d+)$", l)
        if m:
            p.period = int(m.group(1))
        if section == "Samples:":
            m = re.match(r"^\s+([-\d ]+): ([\d ]*)$", l)
            if m:
                raw_samples.append([list(map(int, m.group(1).split())),
                                    list(map(int, m.group(2).split())), {}])
            elif raw_samples and LABEL.search(l):
                for k, v in LABEL.findall(l):
                    raw_samples[-1][2][k] = v   # one value a key (gostap writes one)
        elif section == "Locations":
            m = LOC.match(l)
            if m:
                cur = locs.setdefault(int(m.group(1)), [])
                addrs[int(m.group(1))] = int(m.group(2), 16)
                if m.group(3):
                    cur.append((m.group(3), m.group(4), int(m.group(5))))
                    p.functions.setdefault((m.group(3), m.group(7) or m.group(3), m.group(4)),
                                           set()).add(int(m.group(6)))
                else:
                    cur.append(("0x" + m.group(2), "?", 0))   # no function: its address
                continue
            m = MORE.match(l)
            if m and cur is not None:
                cur.append((m.group(1), m.group(2), int(m.group(3))))
                p.functions.setdefault((m.group(1), m.group(5) or m.group(1), m.group(2)),
                                       set()).add(int(m.group(4)))
        elif section == "Mappings":
            m = re.match(r"^\d+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+) ([0-9a-f]+)", l)
            if m:
                p.build_id = m.group(2)
    for i, a in addrs.items():
        p.locations[a] = tuple(locs[i])
    for values, ids, labels in raw_samples:
        frames = [f for i in ids for f in locs.get(i, [])]
        p.samples.append(Sample(values, frames, labels, [addrs.get(i, 0) for i in ids]))
    if not p.types:
        p.error = "no sample types in go tool pprof -raw's output"
    return p
