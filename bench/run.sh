#!/bin/bash
# bench/run.sh: gostap's performance benchmarks, one command.
#
#   bench/run.sh [--runs N] [--only T1,T2,T3,T4,T5,T6,T7,T8] [--gostap PROG] [--profile]
#
# Builds a plain optimized gostap (-O2 -g, no sanitizers) from a snapshot of
# this tree, fetches the benchmark binaries (bench/fetch.sh: stripped Go
# programs from Debian packages, and cmd/compile with symbols), sets up stap
# (testsuite/stap-env.sh; T3 is skipped without it), then prints the tables
# of bench/README.md (bench/bench.py), also written to $BENCH_OUT
# (default $BENCH_CACHE/last-run.md). T4, the probe cost at run time, runs
# in the qemu guest of the end-to-end tests (bench/probe-cost.sh, root and
# qemu needed; about 7 minutes, skipped with a note where qemu cannot
# start); its table is appended. T8, the cost of the float formatter of
# tapsets/go_float.stp, is bench/float-cost.sh's (user space, seconds).
#
# --profile also records where the time goes (bench/profile.sh).
# Environment: BENCH_CACHE (default ~/.cache/gostap-test/bench),
# GOSTAP_TEST_CACHE (see testsuite/debian-archive.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
export BENCH_CACHE=${BENCH_CACHE:-$CACHE/bench}
mkdir -p "$BENCH_CACHE"

runs=7 only=T1,T2,T3,T4,T5,T6,T7,T8 gostap='' profile=''
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --gostap) gostap=$2; shift 2 ;;
    --profile) profile=1; shift ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
for t in objdump python3 git autoreconf; do
  command -v $t >/dev/null || { echo "run.sh: needs $t" >&2; exit 1; }
done

if [ -z "$gostap" ]; then
  echo "run.sh: building gostap (-O2 -g) from a snapshot of $top ..." >&2
  gostap=$("$here/build.sh" "$top" "$BENCH_CACHE/build")
fi
# T4 is bench/probe-cost.sh's, T8 bench/float-cost.sh's; bench.py does the others.
rest=$(tr ',' '\n' <<< "$only" | grep -vxE 'T4|T8' | paste -sd, -) || true
t4='' t8=''
case ,$only, in *,T4,*) t4=1 ;; esac
case ,$only, in *,T8,*) t8=1 ;; esac
report=${BENCH_OUT:-$BENCH_CACHE/last-run.md}
: > "$report"
if [ -n "$rest" ] || [ -n "$profile" ]; then
  echo "run.sh: fetching the binaries ..." >&2
  "$here/fetch.sh" > "$BENCH_CACHE/binaries.txt"
fi

if [ -n "$rest" ]; then
  stap=
  if out=$(bash "$top/testsuite/stap-env.sh" 2>"$BENCH_CACHE/stap-env.err"); then
    eval "$out"; stap=$STAP
  else
    echo "run.sh: no stap here (T3 skipped): $(head -1 "$BENCH_CACHE/stap-env.err")" >&2
  fi

  echo "run.sh: gostap $("$gostap" --version | head -1) at $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')" >&2
  python3 "$here/bench.py" --gostap "$gostap" --binaries "$BENCH_CACHE/binaries.txt" \
    --stap "$stap" --tapsets "$top/tapsets" --runs "$runs" --only "$rest" \
    --out "$report"
fi

if [ -n "$t4" ]; then
  # its own 9 rounds whatever --runs says (each round is half a minute of TCG)
  echo "run.sh: T4, probe cost in the qemu guest (bench/probe-cost.sh) ..." >&2
  st=0
  "$here/probe-cost.sh" --gostap "$gostap" > "$BENCH_CACHE/probe-cost.out" || st=$?
  { echo "## T4: probe cost at run time"
    echo
    case $st in
      0) cat "$BENCH_CACHE/probe-cost.out" ;;
      77) echo "Skipped: bench/probe-cost.sh could not start qemu or has no root here." ;;
      *) echo "bench/probe-cost.sh failed (exit $st): see its messages above." ;;
    esac
    echo; } | tee -a "$report"
fi

if [ -n "$t8" ]; then
  echo "run.sh: T8, the float formatter's cost (bench/float-cost.sh) ..." >&2
  { echo "## T8: the float formatter (tapsets/go_float.stp)"
    echo
    "$here/float-cost.sh" --runs "$runs" || echo "bench/float-cost.sh failed: see its messages above."
    echo; } | tee -a "$report"
fi

if [ -n "$profile" ]; then
  "$here/profile.sh" "$gostap" "$BENCH_CACHE/binaries.txt"
fi
