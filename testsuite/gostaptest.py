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
