#!/bin/bash
# guests.sh: which end-to-end guests this run boots (trixie, forky, arm64),
# one line with their names, then one line saying why.
#
# The three guests together take about 60 minutes of a 2-core machine's
# `tools/check.sh` (testsuite/README.md, "Which guests a run boots"), over
# its 45-minute budget, so by default a run boots one guest, chosen by the
# commit checked out (HEAD of the source tree's git repository):
#  - a commit whose diff (HEAD^..HEAD: paths and changed lines) names
#    arm64 or aarch64 and not forky gets arm64, one that names forky and not
#    arm64 gets forky: the guest the change is about;
#  - any other commit gets trixie, forky or arm64 by its position in the
#    history (git rev-list --count HEAD, modulo 3), so consecutive commits
#    take turns.
# GOSTAP_E2E=all boots all three (the long run README documents);
# GOSTAP_E2E="trixie arm64" (names separated by spaces or commas) those.
# Outside a git checkout (a release tarball) a run boots all three.
# Exit: 0, or 2 with one line for a GOSTAP_E2E that names no known guest.
set -euo pipefail
ALL="trixie forky arm64"
srcdir=$(cd "$(dirname "$0")/../.." && pwd)

if [ -n "${GOSTAP_E2E:-}" ]; then
  want=${GOSTAP_E2E//,/ }
  [ "$want" = all ] && want=$ALL
  out=
  for g in $want; do
    case " $ALL " in
      *" $g "*) case " $out " in *" $g "*) ;; *) out="${out:+$out }$g" ;; esac ;;
      *) echo "guests.sh: GOSTAP_E2E names '$g', not one of: all $ALL" >&2; exit 2 ;;
    esac
  done
  [ -n "$out" ] || { echo "guests.sh: GOSTAP_E2E is empty of guest names (all $ALL)" >&2; exit 2; }
  echo "$out"
  echo "GOSTAP_E2E=$GOSTAP_E2E"
  exit 0
fi

if ! head=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null); then
  echo "$ALL"
  echo "not a git checkout: every guest"
  exit 0
fi
# The changed paths and lines of HEAD (none for a root commit or a shallow
# clone without HEAD^).
diff=$(git -C "$srcdir" diff --no-color --unified=0 HEAD^ HEAD 2>/dev/null |
       grep -E '^(\+\+\+|---|\+|-)' || true)
names_arm64=0 names_forky=0
grep -qiE 'arm64|aarch64' <<< "$diff" && names_arm64=1
grep -qi 'forky' <<< "$diff" && names_forky=1
if [ "$names_arm64" = 1 ] && [ "$names_forky" = 0 ]; then
  echo arm64
  echo "commit $head changes lines or paths that name arm64"
elif [ "$names_forky" = 1 ] && [ "$names_arm64" = 0 ]; then
  echo forky
  echo "commit $head changes lines or paths that name forky"
else
  n=$(git -C "$srcdir" rev-list --count HEAD)
  read -ra all <<< "$ALL"
  echo "${all[n % 3]}"
  echo "commit $head is number $n of its history: guest $(( n % 3 )) of ($ALL)"
fi
