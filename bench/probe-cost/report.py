#!/usr/bin/env python3
"""report.py: the T4 table from the guest's outputs (bench/probe-cost.sh).

Reads OUT/VARIANT.rR.prog (the program's own line, PROBECOST calls=N
ns_total=T ns_per_call=X sum=S), OUT/VARIANT.rR.rc, .err and .time, the
counting runs OUT/c_VARIANT.stap (COUNT entries=E returns=R unpaired=U) and
OUT/guest.info, and prints markdown on stdout.

cost per call of a variant in a round = its ns per call - the unprobed
program's ns per call in the same round; cost per hit = cost per call /
probe hits per call (1 entry-only, 2 entry + RET).  Ratios are medians of
the per-round ratios of the costs (as in bench.py); the ratio of the median
costs is shown beside them.
"""
import argparse
import os
import re
import statistics
import sys

# variant -> (label, probe hits per call (addresses trapped), what it is);
# {ra} and {rsp} in what: the registers of the first argument and the stack
# pointer by the names the probes read them (--arg-reg, --sp-reg)
T = "if (X < 0) printf(...)"  # a test never true: stap elides empty handlers
VARIANTS = {
    "base": ("(0) no probes", 0, "-"),
    "bare_fn": ("(1) bare process.function", 1,
                'process("BIN").function("main.hot") { X = register("{ra}") }'),
    "bare_ret": ("(2) bare entry + RET", 2,
                 'process("BIN").statement(BODY) { X = register("{ra}") } + '
                 'statement(RET) { X = register("{ra}") } (-g)'),
    "go_entry": ("(3) gostap entry", 1, "go.func.main.hot { X = a }"),
    "go_pair": ("(4) gostap entry + return, paired", 2,
                "go.func.main.hot { X = a } + go.func.main.hot.return { X = go_latency_ns } "
                "(tapsets for the script, as gostap run writes them: one handler at the entry)"),
    "go_pair2": ("(4b) (4) on untailored tapsets", 2,
                 "(4) on plain `gostap gen` tapsets: the pairing's own entry probe beside "
                 "the go.func alias, two handlers at the entry"),
    "go_retonly": ("(5) gostap return only, paired", 2,
                   "go.func.main.hot.return { X = go_latency_ns } (its pairing entry probe comes with it)"),
    "hand_reads": ("(6) bare entry + RET, the pairing's reads by hand", 2,
                   "(2) with X = go_goid() + go_stack_hi() - register(\"{rsp}\") + gettimeofday_ns() "
                   "at entry and at RET, no map"),
    "hand_pair": ("(7) bare entry + RET, pairing by hand", 2,
                  "(6) plus a map like gostap's (store at entry; lookup, delete at RET), "
                  "X = latency, one handler per address"),
    "go_stack": ("(8) gostap entry, stack recorded", 1,
                 "go.func.main.hot { X = go_stack_depth(32) } (main.hot runs 36 frames deep)"),
    "ubt": ("(9) gostap entry, stap's ubacktrace()", 1,
            "go.func.main.hot { X = ubacktrace() } (-DMAXBACKTRACE=32: 32 frames)"),
    # T9, on the program's fmt mode (main.rec), against its own base
    "base_fmt": ("(10) no probes, fmt mode (main.rec)", 0, "-"),
    "fmt_field": ("(11) gostap entry, one field", 1,
                  "go.func.main.rec { X = v_ID } (v: a 10-field struct with a 4-element "
                  "slice and a 4-entry map)"),
    "fmt_full": ("(12) gostap entry, the value as %+v prints it", 1,
                 "go.func.main.rec { X = v_fmt } (go_fmt at its default limits; tapsets "
                 "for the script)"),
    "fmt_twice": ("(13) gostap entry, the value printed twice", 1,
                  "go.func.main.rec { X = v_fmt; Y = the same go_fmt call again } "
                  "((13) - (12): a print whose pages the first one touched)"),
    # --bpftrace (issue 39): the tracer a Linux user would pick instead
    "bpf_entry": ("(b3) bpftrace entry", 1,
                  'uprobe:BIN:main.hot { X = reg("{bra}") }'),
    "bpf_pair": ("(b4) bpftrace entry + RET, paired by thread", 2,
                 "uprobe:BIN:main.hot { @t[tid] = nsecs } + uprobe:BIN:RET { X = @t[tid]; "
                 "delete(@t[tid]) } at every RET"),
    "bpf_stack": ("(b8) bpftrace entry, stack recorded", 1,
                  "uprobe:BIN:main.hot { @s[ustack(32)] = count() }"),
}
# the variants timed against the fmt mode's own unprobed runs
BASE_OF = {"fmt_field": "base_fmt", "fmt_full": "base_fmt", "fmt_twice": "base_fmt"}
TARGETS = (("(3)/(1)", "go_entry", "bare_fn", 1.03,
            "gostap's entry alias over a bare process.function probe"),
           ("(4)/(2)", "go_pair", "bare_ret", 1.15,
            "gostap's entry and return aliases, paired, over bare entry + RET probes"),
           ("(12)/(11)", "fmt_full", "fmt_field", 3.0,
            "T9, a hit that prints the whole value as %+v over one that reads one field "
            "(issue 35: the default limits stay where this is at most 3x)"))


def fmt_ns(x):
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return "%.1f us" % (x / 1000)
    return "%.1f ns" % x


def bpf_stacks(text):
    """The stacks of a bpftrace map printed at its end, most frequent first:
    [(frames, count)]."""
    out = []
    for m in re.finditer(r"^@s\[\n(.*?)^\]: (\d+)$", text, re.M | re.S):
        frames = [ln.strip() for ln in m.group(1).splitlines() if ln.strip()]
        out.append((frames, int(m.group(2))))
    return sorted(out, key=lambda x: -x[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--calls", type=int, required=True)
    ap.add_argument("--variants", required=True)
    ap.add_argument("--body", required=True)
    ap.add_argument("--rets", required=True)
    ap.add_argument("--go-version", default="?")
    ap.add_argument("--arch", default="amd64")
    ap.add_argument("--arg-reg", default="rax", help="the register of Go's first argument")
    ap.add_argument("--sp-reg", default="rsp", help="the stack pointer")
    ap.add_argument("--bpf-arg-reg", default="ax", help="bpftrace's name of --arg-reg")
    ap.add_argument("--mig-runs", type=lambda x: int(x or 0), default=0, help="runs of go_mig and bpf_mig")
    ap.add_argument("--qemu", default="?")
    ap.add_argument("--smp", default="?")
    ap.add_argument("--tcg-thread", default="?")
    ap.add_argument("--commit", default="?")
    ap.add_argument("--timings", default="")
    a = ap.parse_args()
    d = a.out_dir
    variants = a.variants.split()
    problems = []

    def read(name):
        try:
            with open(os.path.join(d, name)) as f:
                return f.read()
        except OSError:
            return None

    # per variant, per round: ns per call
    per = {v: {} for v in variants}
    walls = {v: [] for v in variants}
    skipped = {v: 0 for v in variants}
    for v in variants:
        for r in range(1, a.runs + 1):
            tag = "%s.r%d" % (v, r)
            prog, rc = read(tag + ".prog"), (read(tag + ".rc") or "").strip()
            m = re.search(r"^PROBECOST calls=(\d+) ns_total=(\d+) ", prog or "", re.M)
            if rc != "0" or not m or int(m.group(1)) != a.calls:
                problems.append("%s: exit %s, %s" % (tag, rc or "?",
                                                     "no result" if not m else m.group(0)))
                continue
            per[v][r] = int(m.group(2)) / a.calls
            t = read(tag + ".time")
            if t:
                walls[v].append(float(t))
            err = read(tag + ".err") or ""
            for s in re.findall(r"skipped probes: (\d+)", err):
                skipped[v] += int(s)
            # (bpftrace's pairing by thread misses returns by design: counted below)
            if ("UNPAIRED" in (read(tag + ".stap") or "") and v != "bpf_pair") or \
                    "NEGATIVE" in (read(tag + ".stap") or ""):
                problems.append("%s: a handler saw an unpaired return or a negative argument" % tag)

    rounds = sorted(set(per.get("base", {})) | set(per.get("base_fmt", {})))

    def cost_rounds(v):
        b, pv = per.get(BASE_OF.get(v, "base"), {}), per.get(v, {})
        return {r: pv[r] - b[r] for r in rounds if r in pv and r in b}

    def med(xs):
        xs = list(xs)
        return statistics.median(xs) if xs else None

    def ratio(num, den):
        cn, cd = cost_rounds(num), cost_rounds(den)
        rs = [cn[r] / cd[r] for r in rounds if r in cn and r in cd and cd[r] > 0]
        mn, md = med(cn.values()), med(cd.values())
        return med(rs), (mn / md if mn is not None and md else None), len(rs)

    # hit counts of the counting runs
    counts = {}
    for v in variants:
        if v in ("base", "base_fmt"):
            continue
        s = read("c_%s.stap" % v) or ""
        prog = read("c_%s.prog" % v) or ""
        m = re.search(r"COUNT entries=(\d+) returns=(\d+) unpaired=(\d+)", s)
        pm = re.search(r"^PROBECOST calls=(\d+) ", prog, re.M)
        err = read("c_%s.err" % v) or ""
        sk = sum(int(x) for x in re.findall(r"skipped probes: (\d+)", err))
        if not m or not pm:
            counts[v] = None
            problems.append("c_%s: no COUNT line or no program result (exit %s)"
                            % (v, (read("c_%s.rc" % v) or "?").strip()))
            continue
        counts[v] = (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(pm.group(1)), sk)

    def count_text(v):
        c = counts.get(v)
        if v in ("base", "base_fmt"):
            return "-"
        if c is None:
            return "**no count**"
        e, r, u, n, sk = c
        want_e = v != "go_retonly"
        want_r = v not in ("bare_fn", "go_entry", "go_stack", "ubt", "fmt_field", "fmt_full",
                           "fmt_twice", "bpf_entry", "bpf_stack")
        parts, ok = [], True
        if want_e:
            parts.append("entry %d/%d" % (e, n))
            ok &= e == n
        if want_r:
            parts.append("RET %d/%d" % (r, n))
            ok &= r == n
        if v in ("go_pair", "go_pair2", "go_retonly", "hand_pair"):
            parts.append("unpaired %d" % u)
            ok &= u == 0
        if v == "bpf_pair":
            # keyed by thread: a goroutine preempted between entry and RET
            # may go on on another thread (measured, not a fault of the run)
            parts.append("unpaired %d (by thread: the goroutine moved)" % u if u else "unpaired 0")
        if v in ("go_stack", "ubt"):
            # u: records or backtraces with fewer than 32 frames
            parts.append("short %d" % u)
            ok &= u == 0
        if v == "bpf_stack":
            # the stacks bpftrace printed at its end: frames of the most
            # frequent, and whether main.hot's caller (main.run) is in it
            st = bpf_stacks(read("c_bpf_stack.stap") or "")
            if not st:
                parts.append("no stack printed")
                ok = False
            else:
                frames, n_st = st[0]
                parts.append("%d frames (%d stacks)" % (len(frames), len(st)))
                ok &= len(frames) == 32 and n_st == e
                if not any(f.startswith("main.run+") for f in frames):
                    parts.append("main.run (the caller) missing: the frame-pointer walk "
                                 "at a frameless leaf's entry skips it")
        if v == "fmt_field":
            parts.append("wrong v_ID %d" % u)
            ok &= u == 0
        if v in ("fmt_full", "fmt_twice"):
            # its first v_fmt (or second print) against fmt's %+v of the value
            got = re.search(r"^FMT (.*)$", read("c_%s.stap" % v) or "", re.M)
            want = re.search(r"^PROBECOST fmt=(.*)$", read("c_%s.prog" % v) or "", re.M)
            same = bool(got and want and got.group(1) == want.group(1))
            parts.append("%s %s fmt's %%+v" % ("v_fmt" if v == "fmt_full" else "the second print",
                                              "==" if same else "!="))
            ok &= same
        if v == "fmt_twice":
            parts.append("second print != v_fmt %d" % u)
            ok &= u == 0
        if sk:
            parts.append("skipped %d" % sk)
        txt = ", ".join(parts)
        if not ok:
            problems.append("c_%s: hits short of the calls: %s" % (v, txt))
            return "**" + txt + "**"
        return txt + " ok"

    for v in VARIANTS:
        label, hits, what = VARIANTS[v]
        VARIANTS[v] = (label, hits, what.replace("{ra}", a.arg_reg).replace("{rsp}", a.sp_reg)
                       .replace("{bra}", a.bpf_arg_reg))
    info = {}
    for line in (read("guest.info") or "").splitlines():
        k, _, val = line.partition(" ")
        info[k] = val

    o = []
    w = o.append
    w("Guest (" + a.arch + "): qemu TCG (%s, thread=%s), -smp %s (%s vCPUs seen), -cpu max (%s), clocksource %s, "
      "%s MB; kernel %s; %s. Go %s. Commit %s."
      % (a.qemu, a.tcg_thread, a.smp, info.get("cpus", "?"), info.get("cpu", "?"),
         info.get("clocksource", "?"),
         int(info["memory_kb"]) // 1024 if info.get("memory_kb", "").isdigit() else "?",
         info.get("kernel", "?"), info.get("stap", "?"), a.go_version, a.commit))
    w("")
    w("%d rounds, every variant once a round (order rotated each round), after one unprobed warm-up run; "
      "%d calls of main.hot per run (body %s = entry, RET %s). ns per call: the program's own "
      "time.Now() around the loop, median over the rounds; spread = (max - min) / median; "
      "cost = variant - no probes in the same round; a hit = one trapped address (entry or RET); "
      "each handler does `%s` with the X given (a test never true: stap elides a handler that does nothing)."
      % (a.runs, a.calls, a.body, a.rets, T))
    w("")
    w("| variant | probes | median ns/call | spread | median cost per call | hits per call | cost per hit | cost vs (1) | hit counts (separate counting run) | staprun wall (median) |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for v in variants:
        label, hits, what = VARIANTS.get(v, (v, 1, v))
        xs = list(per[v].values())
        m = med(xs)
        spread = (max(xs) - min(xs)) / m if xs and m else None
        c = med(cost_rounds(v).values()) if v not in ("base", "base_fmt") else None
        vs1 = ratio(v, "bare_fn")[0] if v not in ("base", "base_fmt") and "bare_fn" in per else None
        w("| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s s |"
          % (label, what, fmt_ns(m), "%.0f%%" % (100 * spread) if spread is not None else "-",
             fmt_ns(c), hits or "-", fmt_ns(c / hits) if c is not None and hits else "-",
             "%.2fx" % vs1 if vs1 is not None else "-", count_text(v),
             "%.1f" % med(walls[v]) if walls[v] else "-"))
    w("")
    r_entry = ratio("go_entry", "bare_fn")
    r_pair = ratio("go_pair", "bare_ret")
    r_ret = ratio("go_retonly", "bare_ret")
    r_reads = ratio("hand_reads", "bare_ret")
    r_hand = ratio("hand_pair", "bare_ret")
    w("| ratio of the costs | median of per-round ratios | ratio of median costs | rounds |")
    w("|---|---|---|---|")
    for name, r in (("(3)/(1) gostap entry / bare process.function", r_entry),
                    ("(4)/(2) gostap entry + return with pairing / bare entry + RET", r_pair),
                    ("(4b)/(2) the same, two handlers at the entry / bare entry + RET",
                     ratio("go_pair2", "bare_ret")),
                    ("(5)/(2) gostap return only with pairing / bare entry + RET", r_ret),
                    ("(6)/(2) the pairing's reads by hand, no map / bare entry + RET", r_reads),
                    ("(7)/(2) pairing by hand / bare entry + RET", r_hand),
                    ("(8)/(9) go_stack_depth(32) / ubacktrace() at 32 frames",
                     ratio("go_stack", "ubt")),
                    ("(12)/(11) T9: the value as %+v prints it / one field of it",
                     ratio("fmt_full", "fmt_field")),
                    ("(13)/(12) the value printed twice / once", ratio("fmt_twice", "fmt_full")),
                    ("(3)/(b3) gostap entry / bpftrace entry", ratio("go_entry", "bpf_entry")),
                    ("(4)/(b4) gostap entry + return, paired by goroutine / bpftrace entry + RET, "
                     "paired by thread", ratio("go_pair", "bpf_pair")),
                    ("(8)/(b8) go_stack_depth(32) / bpftrace ustack(32)",
                     ratio("go_stack", "bpf_stack"))):
        if name.startswith(("(3)/(b", "(4)/(b", "(8)/(b")) and r[2] == 0:
            continue
        w("| %s | %s | %s | %d |" % (name, "%.2fx" % r[0] if r[0] is not None else "-",
                                      "%.2fx" % r[1] if r[1] is not None else "-", r[2]))
    w("")
    for name, num, den, target, what in TARGETS:
        r = ratio(num, den)[0]
        if r is None:
            w("Target: %s, %s <= %.2f: **no result**" % (what, name, target))
        else:
            w("Target: %s, %s <= %.2f: %.2fx %s"
              % (what, name, target, r, "**pass**" if r <= target else "**FAIL**"))
        w("")
    # where the pairing's extra cost goes: medians of per-round differences
    def diff(x, y):
        cx, cy = cost_rounds(x), cost_rounds(y)
        return med(cx[r] - cy[r] for r in rounds if r in cx and r in cy)
    if all(v in per for v in ("bare_ret", "go_pair", "go_pair2", "go_retonly", "hand_reads",
                              "hand_pair")):
        extra = diff("go_pair", "bare_ret")
        w("Where the extra cost of (4) over (2) goes, per call (medians of the per-round differences; "
          "the parts need not add up exactly):")
        w("")
        w("| part | measured as | per call |")
        w("|---|---|---|")
        for name, how, x in (
                ("all of it", "(4) - (2)", extra),
                ("goroutine id, stack top, SP and the clock at entry and RET", "(6) - (2)",
                 diff("hand_reads", "bare_ret")),
                ("the map: store at entry, lookup + delete at RET (and the global lock that "
                 "comes with it)", "(7) - (6)", diff("hand_pair", "hand_reads")),
                ("gostap's pairing against the same work by hand (both one handler per "
                 "address)", "(4) - (7)", diff("go_pair", "hand_pair")),
                ("the return alias alone against the same work by hand", "(5) - (7)",
                 diff("go_retonly", "hand_pair")),
                ("a second handler at the entry address (untailored tapsets: the "
                 "go.func alias beside the pairing's own entry probe), not paid by (4)",
                 "(4b) - (4)", diff("go_pair2", "go_pair"))):
            w("| %s | %s | %s |" % (name, how, fmt_ns(x)))
    if all(v in per for v in ("go_entry", "go_stack", "ubt")):
        w("")
        w("One stack at depth 32, per call (medians of the per-round differences over (3), "
          "the same probe without it): go_stack_depth(32) %s, ubacktrace() %s."
          % (fmt_ns(diff("go_stack", "go_entry")), fmt_ns(diff("ubt", "go_entry"))))
    if a.mig_runs:
        w("")
        w("The pairing when goroutines move between threads: the program's mig mode (8 goroutines "
          "calling main.slow(id), which sleeps 2-6 ms and returns id; the program counts the "
          "calls that came back on another thread by gettid before and after). A pairing is right "
          "when the entry it gives the return is the call's own (its id): gostap's, the goroutine "
          "of the return against the entry's, and go_entry_ns against the script's own entry time "
          "by id (the same hit); bpftrace's, its entry by thread against its entry by id.")
        w("")
        w("| run | tracer | calls | came back on another thread (the program) | returns | "
          "paired right | paired wrong | not paired | largest gap, pairing's entry time to the "
          "script's (right ones) |")
        w("|---|---|---|---|---|---|---|---|---|")
        for r in range(1, a.mig_runs + 1):
            for v, who in (("go_mig", "gostap (by goroutine)"), ("bpf_mig", "bpftrace (by thread)")):
                tag = "%s.r%d" % (v, r)
                m = re.search(r"^MIG entries=(\d+) returns=(\d+) right=(\d+) wrong=(\d+) "
                              r"missing=(\d+) worst_ns=(\d+|-)", read(tag + ".stap") or "", re.M)
                pm = re.search(r"^PROBECOST mig calls=(\d+) migrated=(\d+)", read(tag + ".prog") or "",
                               re.M)
                if not m or not pm:
                    problems.append("%s: no MIG line or no program result (exit %s)"
                                    % (tag, (read(tag + ".rc") or "?").strip()))
                    w("| %d | %s | **no result** | | | | | | |" % (r, who))
                    continue
                e_, ret, right, wrong, miss = (int(x) for x in m.groups()[:5])
                gap = m.group(6)
                w("| %d | %s | %s | %s | %d | %d | %d | %d | %s |"
                  % (r, who, pm.group(1), pm.group(2), ret, right, wrong, miss,
                     fmt_ns(int(gap)) if gap != "-" else "- (the same nsecs)"))
    if any(skipped.values()):
        w("")
        w("Skipped probes reported by stap in the timed runs: " +
          ", ".join("%s %d" % (v, n) for v, n in skipped.items() if n))
    if problems:
        w("")
        w("Problems:")
        for p in problems:
            w("- " + p)
    if a.timings:
        w("")
        w("Timings: " + a.timings + ".")
    print("\n".join(o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
