#!/bin/bash
# bench/warm-run.sh: gostap's own share of a warm `gostap run` (issue 39):
# the wall time of `gostap run -t BINARY -p4 SCRIPT` with its cache warm
# and a stand-in for stap that answers -V and --help as the real stap
# does (it runs it) and returns at once for the run itself, so what is
# timed is gostap alone: reading the binary, its cache key and lookup,
# its checks, the processes it starts.  Each GOSTAP (a gostap binary;
# two builds to compare them) runs once to fill its cache, then they
# run by turns, N rounds; per build the wall time's median, min and max
# and the median CPU time (user + sys: /usr/bin/time), which a loaded
# host changes less.
#
#   bench/warm-run.sh [-n N] BINARY SCRIPT GOSTAP...
#
# Environment: GOSTAP_TAPSETS (the tapsets, default the tree's), STAP
# (the real stap, default stap).  Needs no root, no kernel build tree.
# Exit: 0, 64 on a usage error, 1 when a run fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=21
[ "${1:-}" = -n ] && { n=$2; shift 2; }
[ $# -ge 3 ] || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 64; }
bin=$1 script=$2
shift 2
tmp=$(mktemp -d /tmp/gostap-warmrun.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
real=$(command -v "${STAP:-stap}") || { echo "warm-run.sh: no stap" >&2; exit 1; }
cat > "$tmp/stap" <<STAND
#!/bin/sh
for a; do case \$a in -V|--help) exec "$real" "\$@" ;; esac; done
exit 0
STAND
chmod +x "$tmp/stap"
mkdir -m 700 "$tmp/cache"
export XDG_CACHE_HOME=$tmp/cache GOSTAP_STAP=$tmp/stap
export GOSTAP_TAPSETS=${GOSTAP_TAPSETS:-$(dirname "$here")/tapsets}
for g; do
  "$g" run -t "$bin" -p4 "$script" > /dev/null 2> "$tmp/err" ||
    { echo "warm-run.sh: $g run failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
done
for _ in $(seq "$n"); do
  for g; do
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$g" run -t "$bin" -p4 "$script" > /dev/null 2>&1
    echo "$g $(cat "$tmp/t")"
  done
done | python3 -c '
import statistics, sys
v = {}
for line in sys.stdin:
    g, wall, user, sys_ = line.split()
    v.setdefault(g, []).append((float(wall) * 1000, (float(user) + float(sys_)) * 1000))
for g, t in v.items():
    w, c = [x[0] for x in t], [x[1] for x in t]
    print(f"{g}: wall median {statistics.median(w):.0f} ms (min {min(w):.0f}, max {max(w):.0f}), "
          f"CPU (user + sys, with the stap -V it runs) median {statistics.median(c):.0f} ms, "
          f"{len(t)} runs")
'
