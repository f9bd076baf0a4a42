"""gostaptest.py: what the python checkers of testsuite/ share.

Each checker (check-list.py, check-params.py, check-values.py) prints TAP
through Tap: one numbered line per check ("ok N - ..." or "not ok N - ...
(K mismatches)" followed by the first mismatches as "#   ..." lines), then
the plan "1..N" and one "# counts: key=value ..." line that its run-*.sh
sums.  A checker that cannot check at all prints "Bail out! ..." and exits
99 (77: it cannot run here).  Every checker reads gostap's own view of a
binary with gostap_list()."""

import json
import os
import re
import subprocess
import sys

MAXDIAG = 8  # "#   " lines per failed check


def die(who, msg, status=99):
    """Stop: nothing could be checked (99), or this machine cannot (77)."""
    print(f"Bail out! {who}: {msg}")
    sys.exit(status)


def run(who, argv, timeout=None):
    """Run argv and return its stdout; die when it fails."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        die(who, f"cannot run {argv[0]}: {e}")
    if p.returncode != 0:
        die(who, f"{' '.join(argv)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def gostap_list(who, binary, globs=(), gostap=None):
    """`gostap list --json BINARY GLOB...`, parsed; GOSTAP from the
    environment when not given."""
    gostap = gostap or os.environ.get("GOSTAP")
    if not gostap:
        die(who, "set GOSTAP to the gostap program")
    out = run(who, [gostap, "list", "--json", binary, *globs], timeout=300)
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        die(who, f"gostap list --json {binary}: not JSON: {e}")


class Tap:
    """Numbered TAP lines, the plan and the counts line."""

    def __init__(self):
        self.n = 0
        self.failed = 0
        self.mismatches = 0

    def check(self, desc, problems, skip=None):
        """One test point; PROBLEMS is a list of strings (mismatches)."""
        self.n += 1
        if skip:
            print(f"ok {self.n} - {desc} # SKIP {skip}")
            return
        if problems:
            self.failed += 1
            self.mismatches += len(problems)
            print(f"not ok {self.n} - {desc} ({len(problems)} mismatches)")
            for p in problems[:MAXDIAG]:
                print(f"#   {p}")
            if len(problems) > MAXDIAG:
                print(f"#   ... and {len(problems) - MAXDIAG} more")
        else:
            print(f"ok {self.n} - {desc}")

    def finish(self, counts):
        """The plan and the counts line; the exit status (1 on a failure)."""
        print(f"1..{self.n}")
        print("# counts: " + " ".join(f"{k}={v}" for k, v in counts.items()))
        return 1 if self.failed else 0


# Go's traceback format as `gostap symbolize` writes it (write-traceback.c):
# "FUNC(...)" then "<TAB>FILE:LINE[ +0xOFF]" a frame (no offset on an
# inlined frame), and the line that says a record was cut.
ELIDED = "...additional frames elided..."

FUNC_RE = re.compile(r"^(.+)\(\.\.\.\)$")
POS_RE = re.compile(r"^\t(.+):(\d+)(?: \+0x([0-9a-f]+))?$")


class Frame:
    __slots__ = ("func", "file", "line", "off")

    def __init__(self, func, file, line, off):
        self.func, self.file, self.line, self.off = func, file, line, off

    def text(self, with_off=True):
        s = f"{self.func} {self.file}:{self.line}"
        if self.off is None:
            return s + " (inlined)"
        return s + (f" +0x{self.off:x}" if with_off else " +0x?")


def pclntab_abbreviated(name):
    """NAME as Go 1.18-1.20 write it in the pclntab: everything from the
    first '[' to the last ']' as "[...]" (the linker's nameParts), so
    main.gmax[go.shape.int_0] is main.gmax[...] and type..eq.[2][5]main.Pair
    is type..eq.[...]main.Pair.  A name with no brackets is itself."""
    i, j = name.find("["), name.rfind("]")
    if 0 <= i < j:
        return name[:i] + "[...]" + name[j + 1:]
    return name


def short(s, n=160):
    """S quoted, cut at N characters."""
    return repr(s) if len(s) <= n else repr(s[:n]) + f"... ({len(s)} characters)"


def parse_frames(lines):
    """Frames of a block, whether it ends with the elided line, and the
    lines that are neither."""
    frames, bad, elided = [], [], False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == ELIDED:
            elided = True
            if i != len(lines) - 1:
                bad.append(f"line {i + 1}: {ELIDED!r} before the end of the block")
            i += 1
            continue
        m = FUNC_RE.match(line)
        p = POS_RE.match(lines[i + 1]) if m and i + 1 < len(lines) else None
        if not p:
            bad.append(f"line {i + 1}: not a frame: {short(line)}")
            i += 1
            continue
        off = int(p.group(3), 16) if p.group(3) is not None else None
        frames.append(Frame(m.group(1), p.group(1), int(p.group(2)), off))
        i += 2
    return frames, elided, bad
