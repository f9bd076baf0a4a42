#!/bin/bash
# matrix.sh: which fixture builds the matrix tests (run-tapsets,
# run-debuginfo, run-list-matrix, run-companion, run-gen,
# run-params-matrix) take in this run, by turns as e2e/guests.sh chooses
# the guests: each of those ran every fixture of every release, 9,800 s of
# test time together with the rest of the suite (measured 2026-11-28,
# two cores: 82 minutes of the 90 a CI run has, before any guest).
#   - releases: the oldest and the newest of the manifest always (where
#     Go's pclntab, DWARF and ABI differ most), and one of those between
#     by turns;
#   - programs: abi, kinds, http, inline, cgo and grow always (the
#     programs whose code differs: ABI cases, every kind of type, most of
#     the standard library, inlining, cgo, stack growth), and one of the
#     others (small programs over the same runtime: stacks, demo and the
#     guests' job programs) by turns.
# The turn is the commit's count of commits (git rev-list --count HEAD),
# 0 without git. GOSTAP_MATRIX=all takes every build (the long run, as
# GOSTAP_E2E=all).
#   matrix.sh < MANIFEST    the manifest's lines this run takes
#   matrix.sh why           one line saying which and why
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ALWAYS="abi kinds http inline cgo grow"
n=$(git -C "$here" rev-list --count HEAD 2>/dev/null) || n=0
if [ "${1:-}" = why ]; then
  if [ "${GOSTAP_MATRIX:-}" = all ]; then
    echo "GOSTAP_MATRIX=all: every fixture of every release"
  else
    echo "by turns (turn $n): the oldest and newest release and one between, the programs $ALWAYS and one other; GOSTAP_MATRIX=all takes all"
  fi
  exit 0
fi
if [ "${GOSTAP_MATRIX:-}" = all ]; then
  cat
  exit 0
fi
manifest=$(cat)
[ -n "$manifest" ] || exit 0
# The releases (oldest first) and the programs of the manifest.
mapfile -t rels < <(awk '{ print $2 }' <<< "$manifest" | sort -uV)
mapfile -t others < <(awk '{ print $4 }' <<< "$manifest" | sort -u | grep -vxF -f <(tr ' ' '\n' <<< "$ALWAYS") || true)
take="${rels[0]:-} ${rels[${#rels[@]} - 1]:-}"
[ "${#rels[@]}" -le 2 ] || take="$take ${rels[1 + n % (${#rels[@]} - 2)]}"
keep=$ALWAYS
[ "${#others[@]}" = 0 ] || keep="$keep ${others[n % ${#others[@]}]}"
awk -v take=" $take " -v keep=" $keep " 'index(take, " " $2 " ") && index(keep, " " $4 " ")' <<< "$manifest"
