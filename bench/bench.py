#!/usr/bin/env python3
"""bench.py: gostap's performance benchmarks (run through bench/run.sh).

Every measurement is a command run RUNS times, interleaved round by round
with its baseline (A B A B ..., order alternating), after one warm-up run
each.  Reported: the median wall time of each, the median of the per-round
ratios (the number to trust on a noisy machine), and the peak RSS (the
child's ru_maxrss, from wait4).

Usage: bench.py --gostap PROG --binaries FILE --stap 'PREFIX' --tapsets DIR
                [--runs N] [--slow-runs N] [--only T1,T2,...] [--out FILE]
FILE has "LABEL PATH" lines (bench/fetch.sh).
"""

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Ten functions a script might trace (the unstripped binary is cmd/compile,
# hence the last one; on the others it is replaced by net/http's).
TEN = ["runtime.mallocgc", "runtime.newobject", "runtime.growslice",
       "runtime.chansend1", "runtime.chanrecv1", "runtime.selectgo",
       "internal/poll.(*FD).Read", "internal/poll.(*FD).Write",
       "os.(*File).Read"]
TENTH = ["cmd/compile/internal/ssa.(*Func).newValue",
         "net/http.(*conn).serve", "os.(*File).Write", "runtime.gcStart"]

MB = 1024 * 1024


def run_once(cmd, env=None, shell=False):
    """Wall seconds, CPU seconds (user + sys) and peak RSS (KiB) of one run,
    stdout to /dev/null.  The RSS comes from GNU time: the rusage of a child
    forked by this (large) Python process would count the pre-exec copy."""
    if shell:
        cmd = ["sh", "-c", cmd]
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-q", "-o", tf.name, "-f", "%M"] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:
            sys.exit("bench.py: %s failed (status %d): %s"
                     % (shlex.join(cmd), rc, err.decode(errors="replace")[-600:]))
        rss = int(tf.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss


def measure(cmds, runs, warmup=1):
    """cmds: {name: (cmd, kwargs)}.  Interleaved runs; returns
    {name: {"walls": [...], "rss": [...]}}."""
    names = list(cmds)
    res = {n: {"walls": [], "cpus": [], "rss": []} for n in names}
    for n in names:
        for _ in range(warmup):
            run_once(cmds[n][0], **cmds[n][1])
    for r in range(runs):
        order = names if r % 2 == 0 else list(reversed(names))
        for n in order:
            w, c, m = run_once(cmds[n][0], **cmds[n][1])
            res[n]["walls"].append(w)
            res[n]["cpus"].append(c)
            res[n]["rss"].append(m)
    return res


def med(xs):
    return statistics.median(xs)


def ratio(res, a, b, what="walls"):
    """Median over rounds of wall(a) / wall(b) (or cpus)."""
    return med([x / y for x, y in zip(res[a][what], res[b][what])])


def spread(xs):
    """min-max relative to the median, in %."""
    m = med(xs)
    return 100.0 * (max(xs) - min(xs)) / m if m else 0.0


def list_json(gostap, binary, names=()):
    out = subprocess.run([gostap, "list", "--json", binary, *names],
                         check=True, capture_output=True).stdout
    return json.loads(out)


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    virt = subprocess.run(["sh", "-c", "systemd-detect-virt 2>/dev/null || "
                           "{ grep -q hypervisor /proc/cpuinfo && echo vm || echo none; }"],
                          capture_output=True, text=True).stdout.split("\n")[0].strip()
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    osr = "?"
    try:
        osr = re.search(r'PRETTY_NAME="([^"]*)"', open("/etc/os-release").read()).group(1)
    except (OSError, AttributeError):
        pass

    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  shell=True).stdout.splitlines()[0].strip()
        except (IndexError, OSError):
            return "?"
    return [
        ("CPU", "%s, %d online CPUs (virtualization: %s)" % (cpu, os.cpu_count(), virt)),
        ("load average at start", load),
        ("memory", mem),
        ("OS", "%s, kernel %s" % (osr, platform.release())),
        ("compiler", ver("cc --version")),
        ("objdump", ver("objdump --version")),
        ("stap", ver("stap -V 2>&1")),
        ("zydis", ver("dpkg-query -W -f '${Version}' libzydis4.0 2>/dev/null || echo ?")),
        ("libdw (gostap)", ver("dpkg-query -W -f '${Version}' libdw1 2>/dev/null || echo ?")),
    ]


class Report:
    def __init__(self):
        self.lines = []

    def p(self, s=""):
        print(s, flush=True)
        self.lines.append(s)

    def table(self, head, rows):
        self.p("| " + " | ".join(head) + " |")
        self.p("|" + "|".join("---" for _ in head) + "|")
        for r in rows:
            self.p("| " + " | ".join(str(c) for c in r) + " |")
        self.p()


def ms(s):
    return "%.1f ms" % (s * 1000) if s < 1 else "%.2f s" % s


def ok(b):
    return "**pass**" if b else "**FAIL**"


def pick_ten(gostap, binary):
    have = {f["name"] for f in list_json(gostap, binary)["functions"]}
    names = [n for n in TEN if n in have]
    for n in TENTH:
        if len(names) >= 10:
            break
        if n in have:
            names.append(n)
    if len(names) < 10:
        sys.exit("bench.py: %s lacks the benchmark's functions" % binary)
    return names


def write_records(gostap, binary, path, n, distinct):
    """N stack records (src/stack.h) of 33 random pcs of BINARY's
    functions, DISTINCT of them different, in random order."""
    import random
    rnd = random.Random(13)
    fs = [(int(f["entry"], 16), int(f["end"], 16)) for f in list_json(gostap, binary)["functions"]
          if int(f["end"], 16) - int(f["entry"], 16) > 2]
    stacks = []
    for _ in range(distinct):
        pcs = []
        for _ in range(33):
            e, x = rnd.choice(fs)
            pcs.append("%x" % rnd.randrange(e + 1, x))
        stacks.append("<gostack:r:%s::%s:0>\n" % (pcs[0], ",".join(pcs[1:])))
    with open(path, "w") as o:
        for k in range(n):
            o.write(stacks[k % distinct] if distinct == n else rnd.choice(stacks))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gostap", required=True)
    ap.add_argument("--binaries", required=True)
    ap.add_argument("--stap", default="")
    ap.add_argument("--tapsets", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--slow-runs", type=int, default=3)
    ap.add_argument("--only", default="T1,T2,T3,T4,T5,T6,T7")
    ap.add_argument("--main", default="containerd")
    ap.add_argument("--dwarf", default="compile-dwarf")
    ap.add_argument("--out")
    a = ap.parse_args()
    only = set(a.only.split(","))
    bins = {}
    for line in open(a.binaries):
        if line.strip():
            label, path = line.split(None, 1)
            bins[label] = path.strip()
    G = a.gostap
    tmp = tempfile.mkdtemp(prefix="gostap-bench.")
    R = Report()

    R.p("## Machine")
    R.p()
    R.table(["", ""], machine())
    R.p("Runs: %d interleaved rounds per measurement (%d for objdump in T5), "
        "after one warm-up run each; times are medians, ratios the median of "
        "the per-round ratios, spread = (max-min)/median." % (a.runs, a.slow_runs))
    R.p()

    info = {}

    def binfo(label):
        if label not in info:
            d = list_json(G, bins[label])
            info[label] = {
                "size": os.path.getsize(bins[label]),
                "funcs": len(d["functions"]),
                "rets": sum(len(f["returns"]) for f in d["functions"]),
                "go": d.get("go_version", "?"),
                "symtab": d.get("has_symtab"), "dwarf": d.get("has_dwarf"),
            }
        return info[label]

    # T1 ------------------------------------------------------------------
    if "T1" in only:
        b = bins[a.main]
        i = binfo(a.main)
        R.p("## T1: full scan of %s (%.1f MB, stripped, %s): %d functions, %d RET sites"
            % (a.main, i["size"] / MB, i["go"], i["funcs"], i["rets"]))
        R.p()
        res = measure({
            "gostap list --json": ([G, "list", "--json", b], {}),
            "gostap list": ([G, "list", b], {}),
            "objdump -d": (["objdump", "-d", b], {}),
        }, a.runs)
        rows = []
        for n in res:
            w = med(res[n]["walls"])
            rss = max(res[n]["rss"]) * 1024
            rows.append([n, ms(w), "%.0f%%" % spread(res[n]["walls"]),
                         "%.2fx" % ratio(res, "objdump -d", n),
                         ms(med(res[n]["cpus"])), "%.2fx" % ratio(res, "objdump -d", n, "cpus"),
                         "%.0f" % (i["funcs"] / w), "%.0f" % (i["size"] / MB / w),
                         "%.0f MB" % (rss / MB), "%.2fx" % (rss / i["size"])])
        R.table(["command", "median wall", "spread", "speed-up vs objdump -d (wall)",
                 "median CPU", "speed-up (CPU)",
                 "functions/s", "MB/s", "peak RSS", "RSS / binary size"], rows)
        sp = ratio(res, "objdump -d", "gostap list --json")
        rr = max(res["gostap list --json"]["rss"]) * 1024 / i["size"]
        spc = ratio(res, "objdump -d", "gostap list --json", "cpus")
        R.p("Target: >= 4x faster than objdump -d: %.2fx wall, %.2fx CPU %s; "
            "peak memory < 2x the binary: %.2fx %s"
            % (sp, spc, ok(min(sp, spc) >= 4), rr, ok(rr < 2)))
        R.p()

    # T2 ------------------------------------------------------------------
    if "T2" in only:
        R.p("## T2: on-demand generation for 10 functions")
        R.p()
        R.p("`gostap gen BIN -o DIR` with 10 exact names (the generation path of "
            "`gostap run`) needs a binary with .symtab or DWARF: Debian's are "
            "stripped, and gostap refuses them (SystemTap cannot place probes in "
            "them). So: gen on %s (symbols + compressed DWARF), and on the "
            "stripped binaries `gostap list --json BIN NAMES` (same selection, "
            "analysis of the selected functions only). Baselines in the same "
            "rounds: the same command for every function, and `cat BIN` (reading "
            "the whole file)." % a.dwarf)
        R.p()
        rows = []
        gen_ms = main_ms = float('nan')
        for label in [a.dwarf] + [l for l in bins if l != a.dwarf]:
            b = bins[label]
            i = binfo(label)
            ten = pick_ten(G, b)
            d10 = os.path.join(tmp, "gen10")
            dall = os.path.join(tmp, "genall")
            if label == a.dwarf:
                cmds = {
                    "10": ("rm -rf %s && exec %s gen %s -o %s %s" % (
                        d10, shlex.quote(G), shlex.quote(b), d10,
                        " ".join(shlex.quote(n) for n in ten)), {"shell": True}),
                    "all": ("rm -rf %s && exec %s gen %s -o %s" % (
                        dall, shlex.quote(G), shlex.quote(b), dall), {"shell": True}),
                    "cat": (["cat", b], {}),
                }
                what = "gen"
            else:
                cmds = {
                    "10": ([G, "list", "--json", b, *ten], {}),
                    "all": ([G, "list", "--json", b], {}),
                    "cat": (["cat", b], {}),
                }
                what = "list --json"
            res = measure(cmds, a.runs)
            w = med(res["10"]["walls"])
            if label == a.main:
                main_ms = w
            if label == a.dwarf:
                gen_ms = w
            rows.append([label, "%.1f" % (i["size"] / MB), i["funcs"], what,
                         "%.1f ms" % (w * 1000), "%.0f%%" % spread(res["10"]["walls"]),
                         "%.1f ms" % (med(res["10"]["cpus"]) * 1000),
                         "%.3f" % ratio(res, "10", "all"),
                         "%.2f" % ratio(res, "10", "cat"),
                         "%.2f" % (w * 1e6 / i["funcs"]),
                         "%.0f MB" % (max(res["10"]["rss"]) / 1024)])
        R.table(["binary", "MB", "functions", "command", "median wall (10 names)",
                 "spread", "median CPU", "ratio to all functions", "ratio to cat BIN",
                 "us per function in binary", "peak RSS"], rows)
        R.p("Target: under 100 ms: gen on %s %.1f ms %s; list on stripped %s %.1f ms %s. "
            "Linearity of the 10-name path in the binary's size is visible in the "
            "last columns (it reads the tables: pclntab, and DWARF when present)."
            % (a.dwarf, gen_ms * 1000, ok(gen_ms < 0.1), a.main,
               main_ms * 1000, ok(main_ms < 0.1)))
        R.p()

    # T3 ------------------------------------------------------------------
    if "T3" in only:
        R.p("## T3: stap -p2 start-up with gostap's tapsets vs the same probes by hand")
        R.p()
        if not a.stap:
            R.p("SKIPPED: no stap translator (testsuite/stap-env.sh exited 77).")
            R.p()
        else:
            b = bins[a.dwarf]
            ten = pick_ten(G, b)
            fs = {f["name"]: f for f in list_json(G, b, ten)["functions"]}
            gdir = os.path.join(tmp, "t3-tapsets")
            subprocess.run([G, "gen", b, "-o", gdir, *ten], check=True,
                           capture_output=True)
            probe = {f["name"]: f["probe"] for f in fs.values()}
            ours = os.path.join(tmp, "ours.stp")
            hand = os.path.join(tmp, "hand.stp")
            with open(ours, "w") as o:
                o.write("global calls, lat\n")
                o.write("probe %s\n{ calls[ppfunc(), goid]++ }\n"
                        % ",\n  ".join(probe[n] for n in ten))
                o.write("probe %s\n{ lat[ppfunc()] <<< go_latency_ns }\n"
                        % ",\n  ".join(probe[n] + ".return" for n in ten))
            # By hand: the same probe points (entry after the stack check,
            # every RET), thread-keyed timing, no tapsets of ours.
            with open(hand, "w") as o:
                o.write("global calls, lat, t0\n")
                q = json.dumps(b)
                o.write("probe %s\n{ calls[ppfunc(), tid()]++; t0[tid()] = gettimeofday_ns() }\n"
                        % ",\n  ".join('process(%s).statement(%s)' % (q, fs[n]["body"])
                                       for n in ten))
                o.write("probe %s\n{ lat[ppfunc()] <<< gettimeofday_ns() - t0[tid()] }\n"
                        % ",\n  ".join('process(%s).statement(%s)' % (q, r)
                                       for n in ten for r in fs[n]["returns"]))
            stap = shlex.split(a.stap)
            cache = os.path.join(tmp, "xdg")
            fake = os.path.join(tmp, "stap-wrapper")
            with open(fake, "w") as o:
                o.write("#!/bin/sh\nexec %s \"$@\"\n" % a.stap)
            os.chmod(fake, 0o755)
            env = dict(os.environ, GOSTAP_STAP=fake, GOSTAP_TAPSETS=a.tapsets,
                       GOSTAP_NO_PREFLIGHT="1", XDG_CACHE_HOME=cache)
            run = [G, "run", "-t", b, "-p2", ours]
            res = measure({
                "hand": (stap + ["-p2", "-g", "-d", b, hand], {}),
                "ours": (stap + ["-p2", "-g", "-I", gdir, "-I", a.tapsets,
                                 "-d", b, ours], {}),
                "run-warm": (run, {"env": env}),
                "run-cold": ("rm -rf %s && exec %s" % (
                    shlex.quote(cache), shlex.join(run)), {"env": env, "shell": True}),
            }, a.runs)
            h = med(res["hand"]["walls"])
            rows = [
                ["by hand: stap -p2 -g (process().statement probes)", ms(h),
                 "%.0f%%" % spread(res["hand"]["walls"]), "1.00x", "1.00x"],
                ["gostap tapsets: stap -p2 -g -I GEN -I tapsets", ms(med(res["ours"]["walls"])),
                 "%.0f%%" % spread(res["ours"]["walls"]), "%.2fx" % ratio(res, "ours", "hand"),
                 "%.2fx" % ratio(res, "ours", "hand", "cpus")],
                ["gostap run -p2, tapsets cached", ms(med(res["run-warm"]["walls"])),
                 "%.0f%%" % spread(res["run-warm"]["walls"]),
                 "%.2fx" % ratio(res, "run-warm", "hand"),
                 "%.2fx" % ratio(res, "run-warm", "hand", "cpus")],
                ["gostap run -p2, empty cache (gen + stap)", ms(med(res["run-cold"]["walls"])),
                 "%.0f%%" % spread(res["run-cold"]["walls"]),
                 "%.2fx" % ratio(res, "run-cold", "hand"),
                 "%.2fx" % ratio(res, "run-cold", "hand", "cpus")],
            ]
            R.table(["%s, 10 functions, entry + every RET (%d probe points)"
                     % (a.dwarf, 10 + sum(len(fs[n]["returns"]) for n in ten)),
                     "median wall", "spread", "ratio to by hand (wall)",
                     "ratio (CPU)"], rows)
            r = ratio(res, "ours", "hand")
            rc = ratio(res, "ours", "hand", "cpus")
            R.p("Target: under 1.2x: %.2fx wall, %.2fx CPU %s" % (r, rc, ok(max(r, rc) < 1.2)))
            R.p()

    # T4 ------------------------------------------------------------------
    if "T4" in only:
        R.p("## T4: probe cost at run time")
        R.p()
        R.p("TODO (owned by the qemu guest / end-to-end harness): per-hit cost of "
            "go.func.NAME and go.func.NAME.return vs a bare process().statement probe. "
            "Not measured by bench/run.sh.")
        R.p()

    # T5 ------------------------------------------------------------------
    if "T5" in only:
        R.p("## T5: scaling of the full scan (`gostap list --json`, stripped Debian binaries)")
        R.p()
        rows = []
        pts = []
        series = [l for l in bins if l != a.dwarf]
        for label in series:
            b = bins[label]
            i = binfo(label)
            res = measure({"gostap": ([G, "list", "--json", b], {})}, a.runs)
            obj = measure({"objdump": (["objdump", "-d", b], {})}, a.slow_runs, warmup=0)
            w = med(res["gostap"]["walls"])
            ow = med(obj["objdump"]["walls"])
            c = med(res["gostap"]["cpus"])
            oc = med(obj["objdump"]["cpus"])
            rss = max(res["gostap"]["rss"]) * 1024
            pts.append((i["size"], i["funcs"], c, rss))
            rows.append([label, i["go"], "%.1f" % (i["size"] / MB), i["funcs"], i["rets"],
                         ms(w), "%.0f%%" % spread(res["gostap"]["walls"]),
                         "%.0f" % (i["size"] / MB / w), "%.2f" % (w * 1e6 / i["funcs"]),
                         "%.0f MB" % (rss / MB), "%.2fx" % (rss / i["size"]),
                         "%.1fx" % (ow / w), ms(c), "%.2f" % (c * 1e6 / i["funcs"]),
                         "%.1fx" % (oc / c)])
        R.table(["binary", "Go", "MB", "functions", "RETs", "median wall", "spread",
                 "MB/s", "us/function", "peak RSS", "RSS/size", "vs objdump -d",
                 "median CPU", "CPU us/function", "vs objdump -d (CPU)"], rows)
        R.p("The fits below use CPU time (user + sys), less disturbed than wall "
            "time by other load on the machine.")
        R.p()

        def fit(xs, ys):
            n = len(xs)
            mx, my = sum(xs) / n, sum(ys) / n
            sxx = sum((x - mx) ** 2 for x in xs)
            sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
            k = sxy / sxx
            c = my - k * mx
            ss = sum((y - my) ** 2 for y in ys)
            r2 = 1 - sum((y - (k * x + c)) ** 2 for x, y in zip(xs, ys)) / ss if ss else 1
            return k, c, r2
        if len(pts) >= 3:
            k, c, r2 = fit([p[0] / MB for p in pts], [p[2] for p in pts])
            kf, cf, r2f = fit([p[1] for p in pts], [p[2] for p in pts])
            km, cm, r2m = fit([p[0] / MB for p in pts], [p[3] / MB for p in pts])
            kmf, cmf, r2mf = fit([p[1] / 1000 for p in pts], [p[3] / MB for p in pts])
            R.p("Least-squares fits: CPU time = %.1f ms/MB x size %+.0f ms (R^2 %.3f); "
                "CPU time = %.2f us/function x functions %+.0f ms (R^2 %.3f); "
                "peak RSS = %.2f x size %+.0f MB (R^2 %.3f); "
                "peak RSS = %.2f MB/1000 functions %+.0f MB (R^2 %.3f)."
                % (k * 1000, c * 1000, r2, kf * 1e6, cf * 1000, r2f,
                   km, cm, r2m, kmf, cmf, r2mf))
            per = [p[2] / p[1] for p in pts]
            big = [p[3] / p[0] for p in pts if p[0] >= 20 * MB]
            lin = r2f >= 0.98 and max(per) / min(per) <= 1.5 and max(big) < 2
            R.p("Linear: %s: CPU time per function spans %.2f..%.2f us (max/min %.2f, "
                "limit 1.5), R^2 of time on functions %.3f (limit 0.98), peak RSS <= "
                "%.2fx the binary for every binary of 20 MB or more (limit 2). Time and "
                "memory follow the number of functions and the size of .text, not the "
                "file size (hugo embeds much data)."
                % (ok(lin), min(per) * 1e6, max(per) * 1e6, max(per) / min(per), r2f,
                   max(big)))
            R.p()
        if max(p[0] for p in pts) < 100 * MB:
            R.p("Note: no Debian package found with a single Go binary of 100 MB or more "
                "(largest: prometheus from forky, %.0f MB); the series stops there."
                % (max(p[0] for p in pts) / MB))
            R.p()

    # T6 ------------------------------------------------------------------
    if "T6" in only:
        R.p("## T6: synthesis of a companion debug file (`gostap companion`, stripped Debian binaries)")
        R.p()
        rows, worst = [], 0.0
        for label in [l for l in bins if l != a.dwarf]:
            b = bins[label]
            i = binfo(label)
            out = os.path.join(tmp, "companion-" + label)
            res = measure({
                "companion": ([G, "companion", b, "-o", out], {}),
                "list": ([G, "list", "--json", b], {}),
            }, a.runs)
            files = [os.path.join(r, f) for r, _, fs in os.walk(out) for f in fs]
            size = os.path.getsize(files[0]) if len(files) == 1 else 0
            shutil.rmtree(out, ignore_errors=True)
            c, l = res["companion"], res["list"]
            rss = max(c["rss"]) * 1024
            ratio_cpu = ratio(res, "companion", "list", "cpus")
            worst = max(worst, ratio_cpu)
            rows.append([label, i["go"], "%.1f" % (i["size"] / MB), i["funcs"],
                         ms(med(c["walls"])), "%.0f%%" % spread(c["walls"]),
                         ms(med(c["cpus"])), "%.2f" % (med(c["cpus"]) * 1e6 / i["funcs"]),
                         "%.2fx" % ratio_cpu, "%.0f MB" % (rss / MB),
                         "%.2fx" % (rss / i["size"]), "%.1f MB" % (size / MB),
                         "%.2fx" % (size / i["size"])])
        R.table(["binary", "Go", "MB", "functions", "median wall", "spread",
                 "median CPU", "CPU us/function", "CPU vs list --json",
                 "peak RSS", "RSS/size", "companion", "companion/size"], rows)
        R.p("Every function is analysed (its RETs and body, as list --json does), "
            "then its line rows, frame rows, symbol and DIE are written; `CPU vs "
            "list --json` is the median of the per-round ratios of the two in the same "
            "rounds. Target (this benchmark's): under 2x the full scan: %.2fx at "
            "worst, **%s**." % (worst, "pass" if worst < 2 else "FAIL"))
        R.p()

    # T7 ------------------------------------------------------------------
    if "T7" in only:
        R.p("## T7: symbolizing stack records (`gostap symbolize`: frames a second)")
        R.p()
        rows, worst = [], None
        for label in bins:
            b = bins[label]
            i = binfo(label)
            for kind, distinct in (("random", 20000), ("repeated", 500)):
                path = os.path.join(tmp, "records-%s-%s" % (label, kind))
                write_records(G, b, path, 20000, distinct)
                res = measure({
                    "symbolize": ([G, "symbolize", b, path], {}),
                    "open": ([G, "symbolize", b, "/dev/null"], {}),
                }, a.runs)
                out = subprocess.run([G, "symbolize", b, path], capture_output=True,
                                     text=True, check=True).stdout
                frames = sum(1 for l in out.splitlines() if l.endswith("(...)"))
                cpu = med(res["symbolize"]["cpus"]) - med(res["open"]["cpus"])
                rate = frames / cpu if cpu > 0 else float("inf")
                if kind == "random":
                    worst = rate if worst is None else min(worst, rate)
                rows.append([label, i["go"], "%.1f" % (i["size"] / MB), i["funcs"], kind,
                             frames, ms(med(res["symbolize"]["walls"])),
                             "%.0f%%" % spread(res["symbolize"]["walls"]),
                             ms(med(res["open"]["cpus"])), ms(cpu),
                             "%.2f M" % (rate / 1e6)])
        R.table(["binary", "Go", "MB", "functions", "records", "frames out",
                 "median wall", "spread", "CPU opening", "CPU symbolizing",
                 "frames/s"], rows)
        R.p("20 000 records of 33 pcs each (return addresses anywhere in a function, "
            "as `r` records: each looked up at pc-1, its inline tree walked, file and "
            "line read for every frame, the Go traceback written): `random` has no two "
            "pcs alike (the worst case: every pc walks its function's pc-value tables), "
            "`repeated` 500 distinct stacks 40 times each in random order (a profile's "
            "or a sampling script's output, where gostap's cache of expanded pcs "
            "answers). CPU symbolizing = CPU of the run minus CPU of opening the "
            "binary alone (`symbolize BIN /dev/null`). Target (issue 13): over a million "
            "frames a second: %.2f M at worst (random), **%s** on that case."
            % ((worst or 0) / 1e6, "pass" if worst and worst > 1e6 else "below target"))
        R.p()

    if a.out:
        with open(a.out, "w") as o:
            o.write("\n".join(R.lines) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
