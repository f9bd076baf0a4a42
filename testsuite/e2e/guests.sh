#!/bin/bash
# guests.sh: which end-to-end guests this run boots (trixie, forky, arm64,
# bookworm), one line with their names, in the order they prepare (arm64,
# forky, trixie: the longest guest first; then bookworm), then one line
# saying why.
#
# By default a run boots forky (the newest SystemTap and kernel Debian
# has) and arm64: the two runtimes issue 15 asks every CI run to reach.
# Both together fit `tools/check.sh` on a 2-core machine in its 45-minute
# budget; the third guest, trixie (SystemTap 5.1 on x86-64 Linux 6.12),
# does not fit beside them (testsuite/README.md, "Which guests a run
# boots"). SystemTap 5.1 on Linux 6.12 still runs in every run, on arm64
# (the arm64 guest is Debian trixie's arm64 port).
# GOSTAP_E2E=all boots all three (the long run README documents);
# GOSTAP_E2E="trixie arm64" (names separated by spaces or commas) those.
# A fourth guest, bookworm (SystemTap 4.8, libdw 0.188, Linux 6.1: the
# old stack of RHEL 8 and RHEL 9.0-9.4, where gostap gives stap copies
# with .debug_aranges), boots only when named: GOSTAP_E2E=bookworm, or
# "all", which then boots all four.
# Exit: 0, or 2 with one line for a GOSTAP_E2E that names no known guest.
set -euo pipefail
ALL="arm64 forky trixie bookworm"
DEFAULT="arm64 forky"

if [ -z "${GOSTAP_E2E:-}" ]; then
  echo "$DEFAULT"
  echo "the default: arm64 and the newest SystemTap (forky); GOSTAP_E2E=all adds trixie and bookworm"
  exit 0
fi
want=" ${GOSTAP_E2E//,/ } "
[ "$want" = " all " ] && want=" $ALL "
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
