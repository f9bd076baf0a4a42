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
awk -v n="$n" -v always="$ALWAYS" '
  { line[NR] = $0; rel[$2] = 1; prog[$4] = 1; v[NR] = $2; p[NR] = $4 }
  END {
    split(always, a, " "); for (i in a) keep[a[i]] = 1
    # the releases in order (major.minor)
    nr = 0; for (r in rel) rs[++nr] = r
    for (i = 1; i <= nr; i++) for (j = i + 1; j <= nr; j++) {
      split(rs[i], x, "."); split(rs[j], y, ".")
      if (x[1] + 0 > y[1] + 0 || (x[1] == y[1] && x[2] + 0 > y[2] + 0)) { t = rs[i]; rs[i] = rs[j]; rs[j] = t }
    }
    take[rs[1]] = 1; take[rs[nr]] = 1
    if (nr > 2) take[rs[2 + n % (nr - 2)]] = 1
    no = 0; for (q in prog) if (!(q in keep)) os[++no] = q
    for (i = 1; i <= no; i++) for (j = i + 1; j <= no; j++) if (os[i] > os[j]) { t = os[i]; os[i] = os[j]; os[j] = t }
    if (no > 0) keep[os[1 + n % no]] = 1
    for (k = 1; k <= NR; k++) if ((v[k] in take) && (p[k] in keep)) print line[k]
  }'
