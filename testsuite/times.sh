#!/bin/sh
# times.sh FILE: the table of a run's tests from timed.sh's FILE, longest
# first: "SECONDS TEST (exit STATUS)", or "SECONDS TEST (still running)"
# for a test that has not ended (seconds up to now).
[ -s "$1" ] || exit 0
awk -v now="$(date +%s)" '
  $1 == "start" { start[$3] = $2 }
  $1 == "end" { took[$3] = $2 - start[$3]; st[$3] = $4 }
  END {
    for (t in start)
      if (t in took) printf "%6d s  %s (exit %s)\n", took[t], t, st[t]
      else printf "%6d s  %s (still running)\n", now - start[t], t
  }' "$1" | sort -rn
