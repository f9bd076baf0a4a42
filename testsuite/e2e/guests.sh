#!/bin/bash
# guests.sh: which end-to-end guests this run boots (arm64, forky, trixie,
# bookworm, bullseye), one line with their names, in the order they
# prepare (arm64, forky, trixie: the longest guest first; then bookworm,
# bullseye), then one line saying why.
#
# By default a run boots forky (the newest SystemTap and kernel Debian
# has) and arm64, the two runtimes every CI run reaches, and a third by
# turns among TURNS (below) at the commit's count of commits (git
# rev-list --count HEAD): trixie (SystemTap 5.1 on x86-64 Linux 6.12)
# and bookworm (SystemTap 4.8, libdw 0.188, Linux 6.1: the old stack of
# RHEL 8 and RHEL 9.0-9.4), each on every other commit. Without git (a
# release tarball) no third. A run keeps both cores busy, so each guest adds its work (about
# 10 minutes); three keep the default within 60 minutes warm on 2 cores
# (testsuite/README.md, "Which guests a run boots").
# A run makes at most one guest image that is not in the cache, and then
# boots that guest and forky only (a new machine's first run boots forky
# alone, and says so; below).
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
DEFAULT="arm64 forky"
# The x86-64 guests that take turns as a run's third (bookworm since its
# checks pass beside the rest of the suite: testsuite/README.md).
TURNS="trixie bookworm"

# cached GUEST: is the guest's debootstrapped tree (the costly part of its
# image) in the cache? arm64's modules are cross-compiled in the amd64
# trixie image, so it needs that tree too.
cached () {
  case $1 in
    arm64) E2E_SUITE=trixie E2E_ARCH=arm64 "$here/build-image.sh" --cached &&
           E2E_SUITE=trixie E2E_ARCH=amd64 "$here/build-image.sh" --cached ;;
    *) E2E_SUITE=$1 E2E_ARCH=amd64 "$here/build-image.sh" --cached ;;
  esac
}

if [ -z "${GOSTAP_E2E:-}" ]; then
  # The third guest: the one of TURNS at the commit's count of commits
  # modulo their number.
  turn= turn_why="no git history here: no third guest"
  if n=$(git -C "$here" rev-list --count HEAD 2>/dev/null); then
    set -- $TURNS
    k=$((n % $# + 1))
    turn=${!k}
    turn_why="$turn by turns among: $TURNS (HEAD has $n commits)"
  fi
  DEFAULT="$DEFAULT $turn"
  # One image not yet in the cache a run: a new machine makes forky's
  # (about 4 minutes) and boots it, and leaves arm64's (about 17
  # minutes of debootstrap under emulation, and its 36-minute chain) to
  # the next run, so neither passes 80 minutes (testsuite/README.md,
  # "Which guests a run boots"). forky's is made first (the cheapest),
  # then arm64's (a runtime every run reaches; it makes the amd64 trixie
  # tree its modules are compiled in too), then the third guest's.
  # A run that makes an image boots that guest and forky only: stop 46's
  # CI made arm64's (and the trixie tree it compiles in) and booted three
  # guests beside it, and passed 90 minutes.
  out= new= later=
  for g in forky arm64 trixie bookworm; do
    case " $DEFAULT " in *" $g "*) ;; *) continue ;; esac
    if [ -z "$new" ] && ! cached "$g"; then new=$g; fi
  done
  for g in forky arm64 trixie bookworm; do
    case " $DEFAULT " in *" $g "*) ;; *) continue ;; esac
    if [ -z "$new" ] || [ "$g" = forky ] || [ "$g" = "$new" ]; then
      out="$out $g"
    else
      later="${later:+$later, }$g"
    fi
  done
  # Printed in the order they prepare (ALL's).
  chosen=
  for g in $ALL; do case " $out " in *" $g "*) chosen="${chosen:+$chosen }$g" ;; esac; done
  echo "$chosen"
  why="the default: arm64 and the newest SystemTap (forky), and $turn_why; GOSTAP_E2E=all boots all four, GOSTAP_E2E=bullseye the oldest stack"
  boots="it and forky only"; [ "$new" = forky ] && boots="it alone"
  [ -n "$later" ] && why="$why; this run makes $new's image, not yet in the cache, and boots $boots, leaving $later to the next run: one new image a run and no third guest beside it keep a run on a new machine within 80 minutes; GOSTAP_E2E=\"${later//, / }\" boots them now"
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
