#!/bin/bash
# bench/probe-cost.sh: benchmark T4, the cost of gostap's probes at run time,
# on the real SystemTap runtime in the qemu/TCG guest of the end-to-end tests
# (testsuite/e2e: Debian trixie, stap 5.1, kernel 6.12; this machine's kernel
# loads no modules).
#
#   bench/probe-cost.sh [--runs N] [--calls N] [--arch amd64|arm64] [--gostap PROG] [--keep]
#                       [--only VARIANT,...] [--bpftrace]
#
# --bpftrace: against bpftrace (issue 39), in a guest image with Debian's
# bpftrace (build-image.sh, E2E_BPFTRACE=1: an image of its own, so that
# the test suite's stays cached): the variants bpf_entry, bpf_pair and
# bpf_stack beside gostap's go_entry, go_pair and go_stack (with their
# baselines: --only takes the six), and a run of the program's mig mode
# under each tracer's latency script (go_mig, bpf_mig: which pairings
# are wrong when goroutines move between threads).
#
# --only: those variants of the list below alone (with their baselines),
# e.g. --only fmt_field,fmt_full for T9.
#
# --arch arm64: the program built for arm64, the arm64 guest of
# run-e2e-arm64.sh (qemu-system-aarch64, Debian trixie's arm64 port), its
# modules cross-compiled in a chroot of the amd64 image (run-guest.sh
# compile, E2E_CROSS_IMAGE); the bare probes read x0 and sp for rax and
# rsp. The table goes to $BENCH_CACHE/probe-cost-arm64.md.
#
# 1. bench/probe-cost/main.go built with Go 1.24 (testsuite/go-toolchains.sh,
#    GOPATH mode as testsuite/build-fixtures.sh builds): main.hot, a small
#    non-inlined leaf function, called --calls times (default 50000) in a
#    loop that the program times itself;
# 2. the addresses of main.hot (body, every RET) from `gostap list --json`
#    of that binary, its tapsets from `gostap gen`;
# 3. one SystemTap module per variant, compiled natively in a chroot of the
#    guest image (testsuite/e2e/run-guest.sh compile), all with the same
#    options (-g -DSTP_NO_OVERLOAD -DMAXTRYLOCK=20000 -DMAXSKIPPED=1000000):
#      base        no probes (the program alone)
#      bare_fn     process("BIN").function("main.hot") { test rax }
#      bare_ret    process("BIN").statement(BODY) { test rax } and
#                  process("BIN").statement(RET) { test rax } for every RET
#      go_entry    probe go.func.main.hot { test a (rax) }
#      go_pair     probe go.func.main.hot { test a } and
#                  probe go.func.main.hot.return { test go_latency_ns },
#                  on tapsets generated for the script (gostap gen
#                  --script, as gostap run does): one handler at the entry
#      go_pair2    the same on the plain `gostap gen` tapsets: the
#                  pairing's own entry probe beside the alias, two handlers
#      go_retonly  probe go.func.main.hot.return { test go_latency_ns }
#                  alone (its pairing entry probe comes with it)
#      hand_reads  bare_ret doing what the pairing reads (goroutine id,
#                  stack top, SP, clock) at entry and RET, without a map
#      hand_pair   hand_reads plus the pairing's map, by hand
#      go_stack    go_entry recording the stack: go_stack_depth(32)
#      ubt         go_entry with stap's own ubacktrace() (32 frames:
#                  -DMAXBACKTRACE=32 for every module)
#    and T9, the cost of go_fmt, on the program's fmt mode (main.rec, a
#    10-field struct with a 4-element slice and a 4-entry map, by value):
#      base_fmt    no probes (the fmt mode alone)
#      fmt_field   probe go.func.main.rec { test v_ID } (one field)
#      fmt_full    probe go.func.main.rec { test v_fmt } (the whole value
#                  as %+v prints it, tapsets for the script)
#      fmt_twice   fmt_full, then the value printed once more in the hit
#                  (the alias's own go_fmt call): (13) - (12) is what a
#                  print costs once the first has touched its pages
#    and with --bpftrace the same probes in bpftrace (the tracer a Linux
#    user would pick instead), the first integer register read as the
#    bare ones read it:
#      bpf_entry   uprobe:BIN:main.hot { test reg(a) }
#      bpf_pair    uprobe at main.hot storing nsecs in a map keyed by tid,
#                  uprobes at every RET address reading and deleting it
#                  (what go-bpf-gen writes; bpftrace has no goroutine)
#      bpf_stack   uprobe:BIN:main.hot { @s[ustack(32)] = count() }
#    where a test is `if (X < 0) printf(...)`, never true (stap elides a
#    probe whose handler does nothing); the last two split the pairing's
#    cost into its parts;
#    and a counting twin of each probed variant (globals counting entries,
#    returns and unpaired returns, printed at the end), run once, so that a
#    variant whose probes did not fire cannot look cheap;
# 4. one boot of the guest (testsuite/e2e/run-guest.sh boot): the program
#    once to warm up, then --runs rounds (default 9), each running every
#    variant once, the order rotated from round to round; then the counting
#    runs;
# 5. bench/probe-cost/report.py: the markdown table (medians of the
#    program's own ns per call, cost per hit over the unprobed program, the
#    ratios of T4), on stdout and in $BENCH_CACHE/probe-cost.md.
#
# Exit: 0 done (whatever the verdict), 77 qemu (or root, which the image's
# chroot needs) is not available here, 1 anything else failed.
# Environment: BENCH_CACHE (default ~/.cache/gostap-test/bench),
# GOSTAP_TEST_CACHE, PROBE_COST_TIMEOUT (guest time limit, 1200 s),
# E2E_SMP, E2E_TCG_THREAD (run-guest.sh: 2 CPUs, single-threaded TCG).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
e2e=$top/testsuite/e2e
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
BENCH_CACHE=${BENCH_CACHE:-$CACHE/bench}
export GOSTAP_TEST_CACHE=$CACHE

runs=9 calls=50000 gostap='' keep='' arch=amd64 only='' bpf='' mig_calls=2000 mig_runs=3
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --gostap) gostap=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --only) only=$2; shift 2 ;;
    --bpftrace) bpf=1; shift ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "probe-cost.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
case $runs$calls in *[!0-9]*) echo "probe-cost.sh: --runs and --calls take numbers" >&2; exit 64 ;; esac
# The registers of Go's first integer argument and of the stack pointer,
# by stap's names; the qemu of the guest.
case $arch in
  amd64) ra=rax rsp=rsp bra=ax qemu_sys=qemu-system-x86_64 suffix= ;;
  arm64) ra=x0 rsp=sp bra=r0 qemu_sys=qemu-system-aarch64 suffix=-arm64 ;;
  *) echo "probe-cost.sh: --arch takes amd64 or arm64" >&2; exit 64 ;;
esac

die () { echo "probe-cost.sh: $*" >&2; exit 1; }
skip () { echo "probe-cost.sh: SKIP: $*" >&2; exit 77; }
log () { echo "probe-cost.sh: $*" >&2; }
now () { date +%s.%N; }
elapsed () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || skip "the guest image and its chroot need root"
if [ "$arch" = arm64 ]; then
  "$e2e/binfmt-arm64.sh" || skip "this machine cannot run arm64 programs (binfmt-arm64.sh)"
fi
for t in python3 git autoreconf unshare; do
  command -v $t >/dev/null || die "needs $t"
done
mkdir -p "$BENCH_CACHE"
t_all=$(now)

# build-image.sh takes no lock and removes the images of other keys when it
# builds: do not race another run of it (a test suite's e2e test) unless
# this run's tree is in the cache already.
waited=0
E2E_ARCH=$arch E2E_BPFTRACE=$bpf "$e2e/build-image.sh" --cached ||
while pgrep -f 'e2e/build-image\.sh' >/dev/null; do
  [ "$waited" = 0 ] && log "another build-image.sh is running; waiting for it"
  waited=$((waited + 10))
  [ "$waited" -le 1800 ] || die "build-image.sh still running after 30 min"
  sleep 10
done

tmp=$(mktemp -d /tmp/gostap-probecost.XXXXXX)
if [ -n "$keep" ]; then trap 'log "work directory kept: $tmp"' EXIT
else trap 'rm -rf "$tmp"' EXIT; fi
share=$tmp/share
mkdir -p "$share/bin" "$share/ts" "$share/tapsets" "$share/scripts" "$share/mod" "$share/out"

# --- gostap, the Go program -------------------------------------------------------
t0=$(now)
if [ -z "$gostap" ]; then
  log "building gostap (-O2 -g) from a snapshot of $top ..."
  gostap=$("$here/build.sh" "$top" "$BENCH_CACHE/build")
fi
[ -x "$gostap" ] || die "$gostap is not a program"
goroot=$("$top/testsuite/go-toolchains.sh" 1.24 | awk '$1 == "1.24" { print $2 }')
[ -x "$goroot/bin/go" ] || die "no Go 1.24 toolchain"
bin=$share/bin/probe-cost
( cd "$here/probe-cost" &&
  env GOROOT="$goroot" GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache" \
    GOENV=off GOFLAGS= GO111MODULE=off GOTOOLCHAIN=local GOPROXY=off \
    GOOS=linux GOARCH="$arch" CGO_ENABLED=0 "$goroot/bin/go" build -o "$bin" . ) ||
  die "go build of bench/probe-cost failed"
"$bin" 1000 | grep -q '^PROBECOST calls=1000 ' || die "$bin does not run here"
t_build=$(elapsed "$t0" "$(now)")

# --- the image (cached; built once, about 3 minutes) ----------------------------------
t0=$(now)
image=$(E2E_ARCH=$arch E2E_BPFTRACE=$bpf "$e2e/build-image.sh") || die "build-image.sh failed"
if [ "$arch" = arm64 ]; then
  E2E_CROSS_IMAGE=$("$e2e/run-guest.sh" cross-image) || die "run-guest.sh cross-image failed"
  export E2E_CROSS_IMAGE
fi
t_image=$(elapsed "$t0" "$(now)")

# --- addresses and tapsets -----------------------------------------------------------
"$gostap" list --json "$bin" main.hot main.slow > "$share/list.json" || die "gostap list failed"
# addrs NAME: the body (after the stack check) and the RETs of NAME
addrs () {
  python3 -c '
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == sys.argv[2]]
if len(fs) != 1 or not fs[0]["returns"]:
    sys.exit("%s: %d functions, no RET" % (sys.argv[2], len(fs)))
print(fs[0]["body"], ",".join(fs[0]["returns"]))' "$share/list.json" "$1"
}
read -r body rets < <(addrs main.hot) || die "main.hot not found in gostap list --json"
[ -n "$rets" ] || die "no RET address for main.hot"
read -r _ slow_rets < <(addrs main.slow) || die "main.slow not found in gostap list --json"
"$gostap" gen "$bin" -o "$share/ts" main.hot main.rec || die "gostap gen failed"
mkdir -p "$share/ts_pair"
cp "$top/tapsets/"*.stp "$share/tapsets/"

# --- the scripts ------------------------------------------------------------------------
# timed variants: no globals (no locks), and in each handler one test of a
# register or alias local that is never true, guarding a printf (a >= 0,
# hot's result >= 0, a paired call has a latency >= 0): stap elides a probe
# whose handler does nothing ("Probe ... has been elided") and drops unused
# alias locals. The bare probes test the register the go.func alias reads
# for a, so (3)/(1) and (4)/(2) compare the same work plus gostap's.
ret_points=$(tr ',' '\n' <<< "$rets" | sed "s|.*|process(\"$bin\").statement(&)|" | paste -sd, -)
S=$share/scripts
cat > "$S/bare_fn.stp" <<EOF
probe process("$bin").function("main.hot") { if (register("$ra") < 0) printf("NEGATIVE a\n") }
EOF
cat > "$S/bare_ret.stp" <<EOF
probe process("$bin").statement($body) { if (register("$ra") < 0) printf("NEGATIVE a\n") }
probe $ret_points { if (register("$ra") < 0) printf("NEGATIVE r0\n") }
EOF
cat > "$S/go_entry.stp" <<'EOF'
probe go.func.main.hot { if (a < 0) printf("NEGATIVE a\n") }
EOF
cat > "$S/go_pair.stp" <<'EOF'
probe go.func.main.hot { if (a < 0) printf("NEGATIVE a\n") }
probe go.func.main.hot.return { if (go_latency_ns < 0) printf("UNPAIRED\n") }
EOF
cp "$S/go_pair.stp" "$S/go_pair2.stp"
"$gostap" gen "$bin" -o "$share/ts_pair" --script "$S/go_pair.stp" main.hot ||
  die "gostap gen --script failed"
cat > "$S/go_retonly.stp" <<'EOF'
probe go.func.main.hot.return { if (go_latency_ns < 0) printf("UNPAIRED\n") }
EOF
# Decomposition of the pairing's cost, by hand, on the bare entry + RET
# probes: hand_reads does what the pairing reads (goroutine id and stack
# top from the g in R14, SP, the clock) at entry and at RET, without the
# map; hand_pair also keeps the map, as the generated tapsets do it
# (same key, same wrapping map), in the one entry handler.
cat > "$S/hand_reads.stp" <<EOF
probe process("$bin").statement($body) {
  if (go_goid() + go_stack_hi() - register("$rsp") + gettimeofday_ns() < 0) printf("NEGATIVE\n")
}
probe $ret_points {
  if (go_goid() + go_stack_hi() - register("$rsp") + gettimeofday_ns() < 0) printf("NEGATIVE\n")
}
EOF
hand_pair='global m%[65536]
probe process("'$bin'").statement('$body') {
  m[go_goid(), go_stack_hi() - register("'$rsp'")] = gettimeofday_ns()@ENTRY@
}
probe '$ret_points' {
  g = go_goid(); d = go_stack_hi() - register("'$rsp'"); t = 0
  if ([g, d] in m) { t = m[g, d]; delete m[g, d] }
  @RET@
}'
sed 's/@ENTRY@//; s/@RET@/if (!t || gettimeofday_ns() - t < 0) printf("UNPAIRED\\n")/' <<< "$hand_pair" > "$S/hand_pair.stp"
# counting twins: COUNT entries=E returns=R unpaired=U
end='probe end { printf("COUNT entries=%d returns=%d unpaired=%d\n", e, r, u) }'
cat > "$S/c_bare_fn.stp" <<EOF
global e, r, u
probe process("$bin").function("main.hot") { e++ }
$end
EOF
cat > "$S/c_bare_ret.stp" <<EOF
global e, r, u
probe process("$bin").statement($body) { e++ }
probe $ret_points { r++ }
$end
EOF
cat > "$S/c_go_entry.stp" <<EOF
global e, r, u
probe go.func.main.hot { e++ }
$end
EOF
cat > "$S/c_go_pair.stp" <<EOF
global e, r, u
probe go.func.main.hot { e++ }
probe go.func.main.hot.return { r++; if (go_latency_ns < 0) u++ }
$end
EOF
cp "$S/c_go_pair.stp" "$S/c_go_pair2.stp"
cat > "$S/c_go_retonly.stp" <<EOF
global e, r, u
probe go.func.main.hot.return { r++; if (go_latency_ns < 0) u++ }
$end
EOF
cat > "$S/c_hand_reads.stp" <<EOF
global e, r, u
probe process("$bin").statement($body) { e++; if (go_goid() + go_stack_hi() - register("$rsp") + gettimeofday_ns() < 0) u++ }
probe $ret_points { r++; if (go_goid() + go_stack_hi() - register("$rsp") + gettimeofday_ns() < 0) u++ }
$end
EOF
{ echo 'global e, r, u'
  sed 's/@ENTRY@/; e++/; s/@RET@/r++; if (!t) u++/' <<< "$hand_pair"
  echo "$end"; } > "$S/c_hand_pair.stp"
# One stack at depth 32 (main.hot runs 36 frames deep: bench/probe-cost/
# main.go): gostap's record and stap's ubacktrace(); their counting twins
# count, as u, the records cut before the depth limit and the backtraces
# of fewer than 32 frames.
cat > "$S/go_stack.stp" <<'EOF'
probe go.func.main.hot { if (go_stack_depth(32) == "") printf("EMPTY\n") }
EOF
cat > "$S/ubt.stp" <<'EOF'
probe go.func.main.hot { if (ubacktrace() == "") printf("EMPTY\n") }
EOF
cat > "$S/c_go_stack.stp" <<EOF
global e, r, u
probe go.func.main.hot { e++; s = go_stack_depth(32)
  if (substr(s, strlen(s) - 3, 3) != ":t>") u++ }
$end
EOF
cat > "$S/c_ubt.stp" <<EOF
global e, r, u
probe go.func.main.hot { e++; n = 0; t = tokenize(ubacktrace(), " ")
  while (t != "") { n++; t = tokenize("", " ") }
  if (n < 32) u++ }
$end
EOF
# T9: one field of main.rec's argument against all of it as %+v prints
# it; the counting twin of fmt_full prints v_fmt once (report.py compares
# it with fmt's, which the program prints).
cat > "$S/fmt_field.stp" <<'EOF'
probe go.func.main.rec { if (v_ID < 0) printf("NEGATIVE\n") }
EOF
cat > "$S/fmt_full.stp" <<'EOF'
probe go.func.main.rec { if (v_fmt == "") printf("NEGATIVE\n") }
EOF
mkdir -p "$share/ts_fmt"
"$gostap" gen "$bin" -o "$share/ts_fmt" --script "$S/fmt_full.stp" main.rec ||
  die "gostap gen --script fmt_full.stp failed"
# fmt_twice: v_fmt, then the same value printed again in the same hit
# (the alias's own call, from its line in the tapsets): what a print costs
# once the first has touched its pages.
fmt_call=$(sed -n 's/^  v_fmt = \(_go_fmt_typed(0x[0-9a-f]*, _go_sp + 8 + 0)\)$/\1/p' "$share/ts_fmt/go_funcs.stp")
[ -n "$fmt_call" ] || die "no v_fmt line in the tapsets for fmt_full.stp"
cat > "$S/fmt_twice.stp" <<EOF
probe go.func.main.rec { if (v_fmt == "" || $fmt_call == "") printf("NEGATIVE\n") }
EOF
cat > "$S/c_fmt_twice.stp" <<EOF
global e, r, u, shown
probe go.func.main.rec { e++; s = $fmt_call; if (s != v_fmt) u++; if (!shown) { shown = 1; printf("FMT %s\n", s) } }
$end
EOF
cat > "$S/c_fmt_field.stp" <<EOF
global e, r, u
probe go.func.main.rec { e++; if (v_ID != 7) u++ }
$end
EOF
cat > "$S/c_fmt_full.stp" <<EOF
global e, r, u, shown
probe go.func.main.rec { e++; if (!shown) { shown = 1; printf("FMT %s\n", v_fmt) } }
$end
EOF
# bpftrace (--bpftrace): the same probes as go_entry, go_pair and
# go_stack, each handler testing what gostap's tests (the first integer
# register, the latency, the stack), and their counting twins, whose
# counts bpftrace prints at its end (@e: N) and the guest turns into the
# COUNT line; bpf_mig and go_mig: the latency of main.slow in the mig mode,
# each pairing checked against the entry of the call it claims (the
# call's id is main.slow's argument and its result): bpftrace's keyed by
# thread, gostap's by goroutine.
bpf_ret_points=$(tr ',' '\n' <<< "$rets" | sed "s|.*|uprobe:$bin:&|" | paste -sd, -)
slow_ret_points=$(tr ',' '\n' <<< "$slow_rets" | sed "s|.*|uprobe:$bin:&|" | paste -sd, -)
cat > "$S/bpf_entry.bt" <<EOF
uprobe:$bin:main.hot { if ((int64)reg("$bra") < 0) { printf("NEGATIVE a\n"); } }
EOF
cat > "$S/bpf_pair.bt" <<EOF
uprobe:$bin:main.hot { @t[tid] = nsecs; }
$bpf_ret_points { \$s = @t[tid]; delete(@t[tid]); if (\$s == 0) { printf("UNPAIRED\n"); } }
EOF
cat > "$S/bpf_stack.bt" <<EOF
uprobe:$bin:main.hot { @s[ustack(32)] = count(); }
EOF
cat > "$S/c_bpf_entry.bt" <<EOF
uprobe:$bin:main.hot { @e = count(); }
EOF
cat > "$S/c_bpf_pair.bt" <<EOF
uprobe:$bin:main.hot { @e = count(); @t[tid] = nsecs; }
$bpf_ret_points { @r = count(); if (@t[tid] == 0) { @u = count(); } delete(@t[tid]); }
EOF
cat > "$S/c_bpf_stack.bt" <<EOF
uprobe:$bin:main.hot { @e = count(); @s[ustack(32)] = count(); }
EOF
# The mig mode: @t the entry's time by thread (what a latency script
# keys by), @c the same by the call's id (what is true); a pairing is
# right when the two are the same entry.
cat > "$S/bpf_mig.bt" <<EOF
uprobe:$bin:main.slow { \$n = nsecs; @t[tid] = \$n; @c[reg("$bra")] = \$n; @e = count(); }
$slow_ret_points {
  @r = count(); \$id = reg("$bra"); \$s = @t[tid];
  if (\$s == 0) { @missing = count(); }
  else if (\$s == @c[\$id]) { @right = count(); }
  else { @wrong = count(); }
  delete(@t[tid]); delete(@c[\$id]);
}
EOF
# gostap's: by the call's id, in the script's own maps, the goroutine and
# the time of its entry; right when the return's goroutine is the entry's
# (gostap's pairing is keyed by it, and one goroutine has one call at a
# depth at a time) and go_entry_ns, the entry time gostap's pairing gives
# the return, is the entry's (read in the same handler a little before
# the script's own: 0 to 2 ms apart, less than main.slow's shortest
# sleep, so the goroutine's previous call would not pass; the largest is
# printed).
cat > "$S/go_mig.stp" <<'EOF'
global c%[65536], g%[65536], e, r, right, wrong, missing, worst
probe go.func.main.slow { c[id] = gettimeofday_ns(); g[id] = goid; e++ }
probe go.func.main.slow.return {
  r++
  if (go_latency_ns < 0) missing++
  else {
    d = c[r0] - go_entry_ns
    if (g[r0] == goid && d >= 0 && d < 2000000) { right++; if (d > worst) worst = d }
    else wrong++
  }
  delete c[r0]; delete g[r0]
}
probe end { printf("MIG entries=%d returns=%d right=%d wrong=%d missing=%d worst_ns=%d\n", e, r, right, wrong, missing, worst) }
EOF
if [ -n "$bpf" ]; then
  mkdir -p "$share/ts_mig"
  "$gostap" gen "$bin" -o "$share/ts_mig" --script "$S/go_mig.stp" main.slow ||
    die "gostap gen --script go_mig.stp failed"
fi
# The order of a round (rotated from round to round) puts each variant
# beside the one it is compared with.
VARIANTS="bare_fn go_entry go_stack ubt bare_ret go_pair go_pair2 go_retonly hand_reads hand_pair base_fmt fmt_field fmt_full fmt_twice"
BPF_VARIANTS="bpf_entry bpf_pair bpf_stack"
# with --bpftrace, each of bpftrace's beside its gostap twin
[ -n "$bpf" ] && VARIANTS=$(sed 's/go_entry /&bpf_entry /; s/go_stack /&bpf_stack /; s/go_pair /&bpf_pair /' <<< "$VARIANTS")
if [ -n "$only" ]; then
  sel=
  for v in ${only//,/ }; do
    case " $VARIANTS " in *" $v "*) ;; *) die "--only: no variant $v (the variants: $VARIANTS)" ;; esac
    case $v in fmt_*) case " $sel " in *" base_fmt "*) ;; *) sel+=" base_fmt" ;; esac ;; esac
    sel+=" $v"
  done
  VARIANTS=${sel# }
fi
modules=()
for v in $VARIANTS; do
  case " base_fmt $BPF_VARIANTS " in *" $v "*) continue ;; esac
  modules+=("$v" "c_$v")
done
[ -n "$bpf" ] && modules+=(go_mig)

# --- modules: natively in a chroot of the image, the first alone (it fills the
# chroot's stap cache), then two at a time --------------------------------------------
t0=$(now)
compile_one () {
  local ts=$share/ts
  case $1 in
    go_pair|c_go_pair) ts=$share/ts_pair ;;
    fmt_full|c_fmt_full|fmt_twice|c_fmt_twice) ts=$share/ts_fmt ;;
    go_mig) ts=$share/ts_mig ;;
  esac
  "$e2e/run-guest.sh" compile "$image" "$share" "$1" "$S/$1.stp" \
    -g -I "$ts" -I "$share/tapsets" \
    -DSTP_NO_OVERLOAD -DMAXTRYLOCK=20000 -DMAXSKIPPED=1000000 -DMAXBACKTRACE=32 \
    -DMAXNESTING=32
}
set -- "${modules[@]}"
compile_one "$1" || die "module $1 does not compile"
shift
while [ $# -gt 0 ]; do
  pids=()
  for m in "$1" "${2:-}"; do
    [ -n "$m" ] || continue
    compile_one "$m" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || die "a module does not compile (logs in $share/mod)"; done
  shift; [ $# -gt 0 ] && shift
done
t_compile=$(elapsed "$t0" "$(now)")

# --- the guest's script -------------------------------------------------------------------
{
  # shellcheck source=../testsuite/e2e/gostap-run.sh
  ( e2e=$e2e; . "$e2e/gostap-run.sh"; gr_guest_prologue "$share" )
  cat <<EOF
B=\$S/bin/probe-cost
N=$calls
ROUNDS=$runs
VARIANTS="base $VARIANTS"
MIG_CALLS=${bpf:+$mig_calls}
MIG_RUNS=$mig_runs
EOF
  cat <<'EOF'
{
  echo "kernel $(uname -r)"
  echo "stap $(stap -V 2>&1 | head -1)"
  echo "cpus $(nproc)"
  echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
  echo "memory_kb $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
} > "$S/out/guest.info"
stamp () { date +%s.%N; }
# one VARIANT TAG: the program under the variant's module (or alone for
# base); its output in out/TAG.prog, stap's in out/TAG.stap, staprun's
# stderr in out/TAG.err, exit status in out/TAG.rc, wall time in out/TAG.time.
one () {
  local v=$1 tag=$2 st=0 t0 mode=
  t0=$(stamp)
  case $v in *fmt*) mode=fmt ;; esac
  case $v in *mig) mode=mig ;; esac
  if [ "$v" = base ] || [ "$v" = base_fmt ]; then
    timeout -k 10 300 "$B" "$N" $mode > "$S/out/$tag.prog" 2> "$S/out/$tag.err" || st=$?
  elif [ "${v#*bpf_}" != "$v" ]; then
    # bpftrace: its output (and the maps it prints at its end) in .stap;
    # the counts turned into the lines of the stap twins
    timeout -k 10 600 bpftrace -o "$S/out/$tag.stap" -c "$B $N $mode" "$S/scripts/$v.bt" \
      > "$S/out/$tag.prog" 2> "$S/out/$tag.err" || st=$?
    c () { sed -n "s/^@$1: \([0-9]*\)$/\1/p" "$S/out/$tag.stap" | tail -1; }
    case $v in
      c_bpf_*) echo "COUNT entries=$(c e || true) returns=$(c r || true) unpaired=$(c u || true)" |
                 sed 's/=\( \|$\)/=0\1/g' >> "$S/out/$tag.stap" ;;
      bpf_mig) echo "MIG entries=$(c e) returns=$(c r) right=$(c right) wrong=$(c wrong) missing=$(c missing) worst_ns=-" |
                 sed 's/=\( \|$\)/=0\1/g' >> "$S/out/$tag.stap" ;;
    esac
  else
    timeout -k 10 300 staprun -o "$S/out/$tag.stap" -c "$B $N $mode" "$S/mod/$v.ko" \
      > "$S/out/$tag.prog" 2> "$S/out/$tag.err" || st=$?
  fi
  echo "$st" > "$S/out/$tag.rc"
  awk -v a="$t0" -v b="$(stamp)" 'BEGIN { printf "%.1f\n", b - a }' > "$S/out/$tag.time"
  echo "guest: $tag exit $st in $(cat "$S/out/$tag.time") s: $(grep -h '^PROBECOST' "$S/out/$tag.prog" || echo no result)"
}
one base warmup
set -- $VARIANTS
nv=$#
for r in $(seq 1 "$ROUNDS"); do
  # rotate the order by one each round
  k=$(( (r - 1) % nv ))
  order=$(echo $VARIANTS | tr ' ' '\n' | awk -v k="$k" -v n="$nv" '{ a[NR-1] = $0 } END { for (i = 0; i < n; i++) print a[(i + k) % n] }')
  for v in $order; do one "$v" "$v.r$r"; done
done
for v in $VARIANTS; do
  [ "$v" = base ] || [ "$v" = base_fmt ] || one "c_$v" "c_$v"
done
# the pairing under migration (--bpftrace): MIG_RUNS runs of each, in turn
if [ -n "$MIG_CALLS" ]; then
  N=$MIG_CALLS
  for r in $(seq 1 "$MIG_RUNS"); do one go_mig "go_mig.r$r"; one bpf_mig "bpf_mig.r$r"; done
fi
echo "guest: done"
EOF
} > "$share/guest.sh"
chmod +x "$share/guest.sh"

# --- boot -------------------------------------------------------------------------------
log "booting the guest: $runs rounds of $(( $(wc -w <<< "$VARIANTS") + 1 )) variants, $calls calls each ..."
t0=$(now)
st=0
"$e2e/run-guest.sh" boot "$image" "$share" "${PROBE_COST_TIMEOUT:-1200}" || st=$?
t_guest=$(elapsed "$t0" "$(now)")
case $st in
  0) ;;
  77) skip "qemu cannot start here" ;;
  *) [ -f "$share/guest.log" ] && tail -40 "$share/guest.log" >&2
     die "the guest failed (run-guest.sh boot exit $st)" ;;
esac
boot_s=$(sed -n 's/^gostap-init: share mounted.* at \([0-9.]*\) .*/\1/p' "$share/console.log")
run_s=$(sed -n 's/^gostap-init: guest.sh exited .* at \([0-9.]*\) .*/\1/p' "$share/console.log")
qemu=$("$qemu_sys" --version | head -1)

# --- the table ------------------------------------------------------------------------------
out=$BENCH_CACHE/probe-cost$suffix.md
python3 "$here/probe-cost/report.py" --out-dir "$share/out" --runs "$runs" --calls "$calls" \
  --variants "base $VARIANTS" --body "$body" --rets "$rets" --arch "$arch" \
  --arg-reg "$ra" --sp-reg "$rsp" --bpf-arg-reg "$bra" --mig-runs "${bpf:+$mig_runs}" \
  --go-version "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["go_version"])' "$share/list.json")" \
  --qemu "$qemu" --smp "${E2E_SMP:-2}" --tcg-thread "${E2E_TCG_THREAD:-single}" \
  --commit "$(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- src tapsets 2>/dev/null || echo ' (src/ or tapsets/ modified)')" \
  --timings "build ${t_build} s, image ${t_image} s, $((${#modules[@]})) modules compiled in ${t_compile} s, guest ${t_guest} s (boot to its script ${boot_s:-?} s, runs $(awk -v a="${boot_s:-0}" -v b="${run_s:-0}" 'BEGIN { printf "%.1f", b - a }') s), total $(elapsed "$t_all" "$(now)") s" \
  > "$out.tmp" || die "report.py failed (outputs in $share/out; --keep keeps them)"
mv -f "$out.tmp" "$out"
cat "$out"
log "table written to $out"
