#!/bin/bash
# guests.sh: which end-to-end guests this run boots (arm64, forky, trixie,
# bookworm, bullseye), one line with their names, in the order they
# prepare (arm64, forky, trixie: the longest guest first; then bookworm,
# bullseye), then one line saying why.
#
# By default a run boots one guest, by turns at the commit's count of
# commits (git rev-list --count HEAD) modulo 4 (TURNS, below): trixie
# (SystemTap 5.1 on x86-64 Linux 6.12), bookworm (SystemTap 4.8, libdw
# 0.188, Linux 6.1: the old stack of RHEL 8 and RHEL 9.0-9.4), forky (the
# newest SystemTap, 5.6, and kernel, 7.2, Debian has), arm64 (trixie's
# arm64 port). Every guest boots every fourth commit; GOSTAP_E2E=all boots
# the four (the long run, on the last commit of an issue). Measured
# 2026-11-28 (testsuite/README.md, "Which guests a run boots"), the cache
# filled: arm64's chain alone took 46.8 minutes; with forky and bookworm
# a run had ended 5 of the suite's tests after 58 minutes (forky's chain
# 42.1 minutes, bookworm's guest not yet booted): the suite's own tests
# and one guest fill both cores. Without git (a release tarball): forky.
# One guest a run makes at most one guest image that is not in the cache
# (a new machine's first run makes its turn's).
# GOSTAP_E2E=all boots those four (the long run README documents);
# GOSTAP_E2E="trixie arm64" (names separated by spaces or commas) those.
# bullseye (SystemTap 4.4, libdw 0.183, Linux 5.10: the oldest stack
# measured, nearest to RHEL 8's Linux 4.18) boots only when named
# (GOSTAP_E2E=bullseye): stap 4.4's transport drops records under load,
# which gostap cannot fix (gostap doctor says so), and checks fail there
# for it (testsuite/README.md).
# Exit: 0, or 2 with one line for a GOSTAP_E2E that names no known guest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ALL="arm64 forky trixie bookworm bullseye"
# what GOSTAP_E2E=all boots: the long run (bullseye by name only)
PASSING="arm64 forky trixie bookworm"
# The guests a run boots by turns.
TURNS="trixie bookworm forky arm64"

if [ -z "${GOSTAP_E2E:-}" ]; then
  # The guest of TURNS at the commit's count of commits modulo their number.
  guest=forky turn_why="no git history here: forky alone"
  if n=$(git -C "$here" rev-list --count HEAD 2>/dev/null); then
    read -r -a turns <<< "$TURNS"
    k=$((n % ${#turns[@]}))
    guest=${turns[$k]}
    turn_why="$guest by turns among $TURNS (HEAD has $n commits; $n mod ${#turns[@]} = $k)"
  fi
  echo "$guest"
  why="the default: $turn_why; GOSTAP_E2E=all boots all four, GOSTAP_E2E=bullseye the oldest stack"
  echo "$why"
  exit 0
fi
want=" ${GOSTAP_E2E//,/ } "
[ "$want" = " all " ] && want=" $PASSING "
for g in $want; do
  case " $ALL " in
    *" $g "*) ;;
    *) echo "guests.sh: GOSTAP_E2E names '$g', not one of: all $ALL" >&2; exit 2 ;;
  esac
done
out=
for g in $ALL; do
  case $want in *" $g "*) out="${out:+$out }$g" ;; esac
done
[ -n "$out" ] || { echo "guests.sh: GOSTAP_E2E is empty of guest names (all $ALL)" >&2; exit 2; }
echo "$out"
echo "GOSTAP_E2E=$GOSTAP_E2E"
