#!/bin/bash
# bench/first-hit.sh: the wait before the first hit (issue 39), on a large
# real program: Debian's hugo (stripped, no DWARF: gostap writes its
# companion), 58,000 functions.
#
#   bench/first-hit.sh [--counts 1,10,100,1000,5000] [--guest-counts 1,10,100,1000]
#                      [--keep]
#
# For each count N: N functions of hugo's own code (github.com/gohugoio/,
# every k-th by name, each with a RET), a script with the entry and the
# return alias of each (counting hits), and
# 1. in a chroot of the guest image (stap compiles natively there), `gostap
#    run -p4` three times: cold (gostap's cache and stap's empty), gostap's
#    cache warm (stap's empty), both warm. Measured: the whole run (wall),
#    stap's run for the script (a stap of the same name ahead in PATH
#    times each stap gostap starts), and stap's passes 1-4 (its own
#    `--vp 1111` lines); gostap's share = the whole - that stap run (its
#    reading, generating, the companion, its checks and their stap -V);
# 2. in the guest (qemu TCG), from `gostap run` to the probes being live
#    (the script's begin probe, which prints the time and exits), with
#    stap's cache from the chroot: gostap's cache cold, then warm; and
#    bpftrace attaching the same uprobes (every entry and RET address, as
#    stap places them), from its start to its BEGIN (`elapsed`); hugo
#    has no symbols, which bpftrace needs to resolve an address ("Could
#    not resolve address"), so it gets gostap's companion as the debug
#    file by build id (/usr/lib/debug/.build-id).
# The table goes to stdout and $BENCH_CACHE/first-hit.md.
#
# Exit: 0 done, 77 not root (the image's chroot) or no qemu, 1 otherwise.
# Environment: BENCH_CACHE, GOSTAP_TEST_CACHE, FIRST_HIT_TIMEOUT (the
# guest's time limit, 3600 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
e2e=$top/testsuite/e2e
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
BENCH_CACHE=${BENCH_CACHE:-$CACHE/bench}
export GOSTAP_TEST_CACHE=$CACHE

counts=1,10,100,1000,5000 guest_counts=1,10,100,1000 keep=
while [ $# -gt 0 ]; do
  case $1 in
    --counts) counts=$2; shift 2 ;;
    --guest-counts) guest_counts=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "first-hit.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
case $counts$guest_counts in *[!0-9,]*) echo "first-hit.sh: --counts and --guest-counts take numbers, separated by commas" >&2; exit 64 ;; esac

die () { echo "first-hit.sh: $*" >&2; exit 1; }
skip () { echo "first-hit.sh: SKIP: $*" >&2; exit 77; }
log () { echo "first-hit.sh: $*" >&2; }
now () { date +%s.%N; }

[ "$(id -u)" = 0 ] || skip "the guest image and its chroot need root"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"

tmp=$(mktemp -d /tmp/gostap-firsthit.XXXXXX)
if [ -n "$keep" ]; then trap 'log "work directory kept: $tmp"' EXIT
else trap 'rm -rf "$tmp"' EXIT; fi
share=$tmp/share
mkdir -p "$share/bin" "$share/scripts" "$share/out" "$share/wrap"

# --- gostap (host and image), hugo, the image (with bpftrace) --------------------------
log "building gostap (-O2 -g) from a snapshot of $top ..."
gostap=$("$here/build.sh" "$top" "$BENCH_CACHE/build")
hugo=$("$here/fetch.sh" hugo | awk '$1 == "hugo" { print $2 }')
[ -f "$hugo" ] || die "no hugo (bench/fetch.sh hugo)"
cp "$hugo" "$share/bin/hugo"
image=$(E2E_BPFTRACE=1 "$e2e/build-image.sh") || die "build-image.sh failed"
kver=$(sed -n 's/^kernel //p' "$image/info")
# shellcheck source=../testsuite/e2e/gostap-run.sh
. "$e2e/gostap-run.sh"
gr_prepare "$image" "$share" "$BENCH_CACHE/build/build" || die "gostap for the image failed"

# --- the functions and the scripts -----------------------------------------------------------
"$gostap" list --json "$share/bin/hugo" > "$tmp/list.json" || die "gostap list of hugo failed"
for n in ${counts//,/ } ${guest_counts//,/ }; do
  [ -f "$share/scripts/fh-$n.stp" ] && continue
  python3 - "$tmp/list.json" "$n" "$share/scripts" "$share/bin/hugo" <<'EOF' || die "no $n functions to probe"
import json, sys
lst, n, d, binary = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
fs = sorted((f for f in json.load(open(lst))["functions"]
             if f["name"].startswith("github.com/gohugoio/") and f["returns"]),
            key=lambda f: f["name"])
if len(fs) < n:
    sys.exit("only %d functions" % len(fs))
pick = [fs[i * len(fs) // n] for i in range(n)]
with open("%s/fh-%d.stp" % (d, n), "w") as o:
    o.write("global e, r\n")
    o.write('probe begin { printf("LIVE %d\\n", gettimeofday_ns()); exit() }\n')
    o.write("probe " + ",\n  ".join(f["probe"] for f in pick) + " { e++ }\n")
    o.write("probe " + ",\n  ".join(f["probe"] + ".return" for f in pick) + " { r++ }\n")
# bpftrace: the same addresses stap probes (the body after the stack
# check, every RET)
addrs = [f["body"] for f in pick] + [a for f in pick for a in f["returns"]]
with open("%s/fh-%d.bt" % (d, n), "w") as o:
    o.write('BEGIN { printf("LIVE %lld\\n", elapsed); exit(); }\n')
    o.write(",\n".join("uprobe:%s:%s" % (binary, a) for a in addrs) + " { @h = count(); }\n")
with open("%s/fh-%d.points" % (d, n), "w") as o:
    o.write("%d %d\n" % (n, len(addrs)))
EOF
done

# A stap ahead in PATH that times each run of the image's own.
cat > "$share/wrap/stap" <<'EOF'
#!/bin/sh
t0=$(date +%s.%N)
/usr/bin/stap "$@"
st=$?
echo "$t0 $(date +%s.%N) $st $*" | cut -c1-400 >> "$STAP_TIMES"
exit $st
EOF
chmod +x "$share/wrap/stap"

# --- 1. in the chroot ------------------------------------------------------------------
# chroot_run N STATE: one `gostap run -p4`; out/chroot-N-STATE.{err,stap,time}
chroot_run () {
  local n=$1 state=$2 o=$share/out/chroot-$1-$2 t0 t1 st=0
  case $state in
    cold) rm -rf "$share/xdg" "$share/stapdir" ;;
    gostap-warm) rm -rf "$share/stapdir" ;;
  esac
  : > "$o.stap"
  t0=$(now)
  # shellcheck disable=SC2046
  E2E_CHROOT_TIMEOUT=3600 "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
    PATH="$share/wrap:$share/gostap/bin:/usr/sbin:/usr/bin:/sbin:/bin" STAP_TIMES="$o.stap" \
    gostap run -p4 -r "$kver" --vp 1111 -t "$share/bin/hugo" "$share/scripts/fh-$n.stp" \
    > "$o.out" 2> "$o.err" || st=$?
  t1=$(now)
  echo "$t0 $t1 $st" > "$o.time"
  [ "$st" = 0 ] || { tail -20 "$o.err" >&2; die "gostap run -p4 of $n functions ($state) failed (exit $st)"; }
  log "chroot: $n functions, $state: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
}
for n in ${counts//,/ }; do
  for state in cold gostap-warm warm; do chroot_run "$n" "$state"; done
done

# --- 2. in the guest -------------------------------------------------------------------------
# stap's cache holds the modules of the last chroot runs (warm); each
# guest count's module is compiled there first (it lands in stap's cache).
for n in ${guest_counts//,/ }; do
  [ -f "$share/out/chroot-$n-warm.time" ] || chroot_run "$n" cold
done
{
  gr_guest_prologue "$share"
  echo "COUNTS=\"${guest_counts//,/ }\""
  echo "HUGO=$share/bin/hugo"
  echo "KVER=$kver"
  cat <<EOF
export $(gr_env "$share")
EOF
  cat <<'EOF'
stamp () { date +%s.%N; }
for n in $COUNTS; do
  for state in gostap-cold warm; do
    o=$S/out/guest-$n-$state
    [ "$state" = gostap-cold ] && rm -rf "$S/xdg"
    t0=$(stamp)
    timeout -k 10 1800 gostap run -t "$HUGO" "$S/scripts/fh-$n.stp" > "$o.out" 2> "$o.err"
    echo "$t0 $(stamp) $?" > "$o.time"
    echo "guest: $n functions, $state: $(cat "$o.time")"
  done
  # hugo is stripped: bpftrace finds the symbols it resolves a uprobe's
  # address with in a debug file by build id (gostap's companion, where
  # gostap run wrote it), as it would a distribution's debuginfo
  mkdir -p /usr/lib/debug && cp -a "$S/xdg/gostap/debug/.build-id" /usr/lib/debug/
  o=$S/out/guest-$n-bpftrace
  t0=$(stamp)
  BPFTRACE_MAX_PROBES=100000 timeout -k 10 1800 bpftrace "$S/scripts/fh-$n.bt" > "$o.out" 2> "$o.err"
  echo "$t0 $(stamp) $?" > "$o.time"
  echo "guest: $n functions, bpftrace: $(cat "$o.time")"
done
echo "guest: done"
EOF
} > "$share/guest.sh"
chmod +x "$share/guest.sh"
log "booting the guest for ${guest_counts} functions ..."
st=0
"$e2e/run-guest.sh" boot "$image" "$share" "${FIRST_HIT_TIMEOUT:-3600}" || st=$?
case $st in
  0) ;;
  77) skip "qemu cannot start here" ;;
  *) tail -30 "$share/console.log" >&2; die "the guest failed (run-guest.sh boot exit $st)" ;;
esac

# --- the table ---------------------------------------------------------------------------------
out=$BENCH_CACHE/first-hit.md
python3 "$here/first-hit/report.py" --share "$share" --counts "$counts" \
  --guest-counts "$guest_counts" --functions "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions"]))' "$tmp/list.json")" \
  --go-version "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["go_version"])' "$tmp/list.json")" \
  --image "$(basename "$image")" --machine "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
  --commit "$(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- src tapsets 2>/dev/null || echo ' (src/ or tapsets/ modified)')" \
  > "$out.tmp" || die "report.py failed (outputs in $share/out; --keep keeps them)"
mv -f "$out.tmp" "$out"
cat "$out"
log "table written to $out"
