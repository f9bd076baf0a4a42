#!/usr/bin/env python3
"""report.py: the tables of bench/first-hit.sh (the wait before the first hit).

Reads SHARE/out/chroot-N-STATE.{time,stap,err} (the whole `gostap run -p4`:
"T0 T1 EXIT"; the stap runs it started, timed by the wrapper: "T0 T1 EXIT
ARGS"; stap's `--vp 1111` pass lines), SHARE/out/guest-N-STATE.{time,out}
(the guest's runs: the begin probe's "LIVE NS", bpftrace's "LIVE ELAPSED")
and SHARE/scripts/fh-N.points ("N ADDRESSES"); prints markdown.
"""
import argparse
import os
import re
import sys

PASS = re.compile(r"^Pass ([1-4]): .* in (\d+)usr/(\d+)sys/(\d+)real ms", re.M)
STATES = (("cold", "cold: gostap's cache and stap's empty"),
          ("gostap-warm", "gostap's cache warm, stap's empty"),
          ("warm", "both warm"))


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def secs(x):
    return "-" if x is None else ("%.2f s" % x if x < 10 else "%.1f s" % x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--share", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--guest-counts", required=True)
    ap.add_argument("--functions", default="?")
    ap.add_argument("--go-version", default="?")
    ap.add_argument("--image", default="?")
    ap.add_argument("--machine", default="?")
    ap.add_argument("--commit", default="?")
    a = ap.parse_args()
    out = os.path.join(a.share, "out")
    problems = []

    def points(n):
        t = (read(os.path.join(a.share, "scripts", "fh-%d.points" % n)) or "").split()
        return int(t[1]) if len(t) == 2 else None

    o = []
    w = o.append
    w("hugo (Debian's, stripped: no DWARF, so gostap writes its companion), %s, %s functions; "
      "N functions of github.com/gohugoio/ with a RET, spread evenly by name; the script has the "
      "entry and the return alias of each (probe points: the entries and every RET). Commit %s."
      % (a.go_version, a.functions, a.commit))
    w("")
    w("In a chroot of the guest image (%s; stap compiles natively), this machine (%s): "
      "`gostap run -p4 --vp 1111`. stap: its run for the script, timed by a wrapper of the same "
      "name ahead in PATH; passes from its own lines (real ms; a cached pass has none); gostap's "
      "share: the whole run less that stap run (reading, generating, the companion, its checks)."
      % (a.image, a.machine))
    w("")
    w("| functions | probe points | caches | whole run | stap's run | pass 1 | pass 2 | pass 3 | "
      "pass 4 | gostap's share | of the whole |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.counts.split(",") if x]:
        for state, what in STATES:
            base = os.path.join(out, "chroot-%d-%s" % (n, state))
            t = (read(base + ".time") or "").split()
            if len(t) != 3 or t[2] != "0":
                problems.append("chroot %d %s: no result" % (n, state))
                w("| %d | %s | %s | **no result** | | | | | | | |" % (n, points(n) or "?", what))
                continue
            whole = float(t[1]) - float(t[0])
            runs = [ln.split(None, 3) for ln in (read(base + ".stap") or "").splitlines()]
            runs = [r for r in runs if len(r) >= 3]
            script = [r for r in runs if len(r) == 4 and "fh-%d" % n in r[3]] or runs[-1:]
            stap = sum(float(r[1]) - float(r[0]) for r in script) if script else None
            passes = {int(m.group(1)): int(m.group(4)) / 1000
                      for m in PASS.finditer(read(base + ".err") or "")}
            share = whole - stap if stap is not None else None
            w("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              % (n, points(n) or "?", what, secs(whole), secs(stap),
                 *(secs(passes.get(k)) if k in passes else "cached" if k > 2 else "-"
                   for k in (1, 2, 3, 4)),
                 secs(share), "%.1f%%" % (100 * share / whole) if share is not None else "-"))
    w("")
    w("In the guest (qemu TCG, the same image), stap's cache filled by the chroot's runs: from "
      "`gostap run` to the probes being live (the script's begin probe prints the time and "
      "exits), gostap's cache cold and warm; bpftrace attaching the same addresses, from its "
      "start to its BEGIN (`elapsed`), and its whole run.")
    w("")
    w("| functions | probe points | gostap run, gostap's cache cold: to live | whole | "
      "gostap run, warm: to live | whole | bpftrace: to BEGIN | whole |")
    w("|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.guest_counts.split(",") if x]:
        cells = []
        for state in ("gostap-cold", "warm", "bpftrace"):
            base = os.path.join(out, "guest-%d-%s" % (n, state))
            t = (read(base + ".time") or "").split()
            m = re.search(r"^LIVE (\d+)$", read(base + ".out") or "", re.M)
            if len(t) != 3 or t[2] != "0" or not m:
                problems.append("guest %d %s: no result (exit %s)" % (n, state, t[2] if len(t) == 3 else "?"))
                cells += ["**no result**", "-"]
                continue
            t0, t1 = float(t[0]), float(t[1])
            live = int(m.group(1)) / 1e9 if state == "bpftrace" else int(m.group(1)) / 1e9 - t0
            cells += [secs(live), secs(t1 - t0)]
        w("| %d | %s | %s |" % (n, points(n) or "?", " | ".join(cells)))
    if problems:
        w("")
        w("Problems:")
        for p in problems:
            w("- " + p)
    print("\n".join(o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
