#!/bin/bash
# profile.sh GOSTAP BINARIES-FILE: where gostap's time goes, with callgrind
# (exact instruction counts, works where perf has no hardware counters).
# Writes $BENCH_CACHE/profile/*.callgrind and prints the top inclusive
# functions of each (callgrind_annotate --inclusive=yes).
#   scan:     gostap list --json on the stripped 50 MB binary (T1)
#   gen10:    gostap gen with 10 names on the binary with DWARF (T2)
#   run-warm: gostap run -p2 with its cache filled (T3), stap replaced by a
#             missing program so callgrind sees gostap's own exit (a script
#             with the 10 entry probes; README's numbers are for entry +
#             return, 20 patterns)
# PROFILE_ONLY_RUN=1: only run-warm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=$1 list=$2
out=${BENCH_CACHE:?}/profile
mkdir -p "$out"
command -v valgrind >/dev/null || { echo "profile.sh: needs valgrind" >&2; exit 1; }
main=$(awk '$1 == "containerd" { print $2 }' "$list")
dwarf=$(awk '$1 == "compile-dwarf" { print $2 }' "$list")
ten=(runtime.mallocgc runtime.newobject runtime.growslice runtime.chansend1
     runtime.chanrecv1 runtime.selectgo 'internal/poll.(*FD).Read'
     'internal/poll.(*FD).Write' 'os.(*File).Read'
     'cmd/compile/internal/ssa.(*Func).newValue')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
script=$tmp/t.stp
{ echo 'probe go.func.runtime.mallocgc, go.func.runtime.newobject, go.func.runtime.growslice,'
  echo '  go.func.runtime.chansend1, go.func.runtime.chanrecv1, go.func.runtime.selectgo,'
  echo '  go.func.internal__poll._PFD.Read, go.func.internal__poll._PFD.Write,'
  echo '  go.func.os._PFile.Read, go.func.cmd__compile__internal__ssa._PFunc.newValue { n++ }'
  echo 'global n'; } > "$script"

cg () {
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.callgrind" "$@" \
    >/dev/null 2>"$out/$name.log" || :
  echo "### $name: $*"
  callgrind_annotate --inclusive=yes "$out/$name.callgrind" 2>/dev/null |
    awk '/PROGRAM TOTALS/ { print; next } /^ *[0-9,]+ \(/ && n++ < 30' |
    sed -e 's/\[[^]]*\]$//' -e 's|/[^ ]*/src/|src/|'
  echo
}
[ -n "${PROFILE_ONLY_RUN:-}" ] || cg scan "$G" list --json "$main"
[ -n "${PROFILE_ONLY_RUN:-}" ] || cg gen10 "$G" gen "$dwarf" -o "$tmp/gen" "${ten[@]}"
# Fill the cache, then profile the warm run.
GOSTAP_TAPSETS=$(dirname "$here")/tapsets
export XDG_CACHE_HOME="$tmp/xdg" GOSTAP_NO_PREFLIGHT=1 GOSTAP_TAPSETS
GOSTAP_STAP=/bin/true "$G" run -t "$dwarf" -p2 "$script" >/dev/null
export GOSTAP_STAP=/nonexistent/stap
cg run-warm "$G" run -t "$dwarf" -p2 "$script"
