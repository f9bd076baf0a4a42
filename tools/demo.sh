#!/bin/bash
# Quick start, command 1: install what is needed, build gostap, build the
# bundled demo Go program (examples/demo) with Go 1.24 from Debian, and run
# examples/newstack.stp on it with `gostap run`, on the real SystemTap
# runtime:
#   - natively, where this kernel loads modules (/proc/modules) and its
#     build tree is installed (/lib/modules/$(uname -r)/build);
#   - else in the qemu/TCG guest of the end-to-end tests
#     (testsuite/e2e/demo-newstack.sh: a Debian trixie image, built once in
#     about two minutes and cached; gostap built and the module compiled in
#     a chroot of it; then one boot of the guest runs the same command).
# Needs root for the run (apt-get, stap, debootstrap): asks sudo otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh test
[ -x configure ] || autoreconf -fi >/dev/null
[ -f Makefile ] || ./configure -q
make -s -j"$(nproc)"

# A Go toolchain from Debian's archive, unpacked into a cache directory.
read -r _ goroot < <(testsuite/go-toolchains.sh 1.24)
out=${XDG_CACHE_HOME:-$HOME/.cache}/gostap-demo
mkdir -p "$out"
( cd examples/demo && GOROOT=$goroot GOTOOLCHAIN=local GOFLAGS=-mod=mod \
    GO111MODULE=off GOCACHE=$out/gocache CGO_ENABLED=0 \
    "$goroot/bin/go" build -o "$out/demo" . )

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
# The demo runs 3 s; print every 1000th stack growth with its backtrace (11,602
# growths in 3 s in the TCG guest; many more natively).
if [ -e /proc/modules ] && [ -d "/lib/modules/$(uname -r)/build" ]; then
  echo "== gostap run -c '$out/demo 3' examples/newstack.stp 1000"
  exec $SUDO env GOSTAP_TAPSETS="$PWD/tapsets" src/gostap run -c "$out/demo 3" \
    examples/newstack.stp 1000
fi
if [ -e /proc/modules ]; then
  echo "== no /lib/modules/$(uname -r)/build (install linux-headers-$(uname -r) to run" \
       "natively): running in a qemu guest"
else
  echo "== this kernel cannot load modules: running in a qemu guest (Debian trixie," \
       "SystemTap 5.1, Linux 6.12; the first run builds its image)"
fi
exec $SUDO testsuite/e2e/demo-newstack.sh "$out/demo" 3 1000
