#!/bin/bash
# bench/float-cost.sh: T8, the cost of tapsets/go_float.stp's formatter.
#
#   bench/float-cost.sh [--runs N]
#
# Compiles the tapset's core (the C between its "BEGIN go_float core" and
# "END go_float core" lines, what runs in the kernel) in user space, -O2,
# with testsuite/float-format/harness.c, and runs `harness --bench` N
# times (default 7): the nanoseconds of one call averaged over random
# values of each kind, and the slowest value found among every exponent of
# both sizes. Prints a markdown table: the median of each kind over the
# runs, and the slowest call of all runs with its value. The target: the
# slowest call under 100 us on a quiet machine (a probe handler that
# formats a float must stay short).
# Environment: CC (default cc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
runs=7
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "float-cost.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
done
case $runs in ''|*[!0-9]*|0) echo "float-cost.sh: --runs needs a positive number: '$runs'" >&2; exit 64 ;; esac
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gostap-float-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sed -n '/BEGIN go_float core/,/END go_float core/p' "$top/tapsets/go_float.stp" > "$tmp/go_float_core.h"
[ -s "$tmp/go_float_core.h" ] || { echo "float-cost.sh: tapsets/go_float.stp has no go_float core" >&2; exit 1; }
"$CC" -std=c11 -O2 -I"$tmp" -o "$tmp/harness" "$top/testsuite/float-format/harness.c"
for i in $(seq "$runs"); do
  "$tmp/harness" --bench > "$tmp/run.$i"
done
python3 - "$runs" "$tmp" <<'PY'
import statistics, sys
runs, tmp = int(sys.argv[1]), sys.argv[2]
kinds, worst = {}, (0, "", "")
for i in range(1, runs + 1):
    for line in open(f"{tmp}/run.{i}"):
        f = line.split()
        if f[0] == "worst":
            if int(f[1]) > worst[0]:
                worst = (int(f[1]), f[2], f[3])
        else:
            kinds.setdefault(f[0], []).append(int(f[1]))
print(f"{runs} runs of `harness --bench` (-O2, user space; a call in the kernel costs about the same: integer code, no allocation).")
print()
print("| kind | median ns a call | min | max |")
print("|---|---:|---:|---:|")
for k, v in kinds.items():
    print(f"| {k} | {statistics.median(v):.0f} | {min(v)} | {max(v)} |")
print()
verdict = "under" if worst[0] < 100000 else "OVER"
print(f"Slowest call found: {worst[0]} ns ({worst[1]} {worst[2]}), {verdict} the 100 us target.")
PY
