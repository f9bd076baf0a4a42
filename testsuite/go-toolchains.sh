#!/bin/bash
# Install Go toolchains from Debian's archive into a cache directory outside
# the source tree, without touching the system (debian-archive.sh:
# apt-get download golang-1.N-go golang-1.N-src, then dpkg-deb -x).
#
# Usage: go-toolchains.sh [VERSION...]     (default: the test matrix)
# Prints the GOROOT of each toolchain, one a line:
#   1.19 /root/.cache/gostap-test/go/1.19/usr/lib/go-1.19
# A second run reuses the cache.  Environment: GOSTAP_TEST_CACHE (default
# $XDG_CACHE_HOME/gostap-test or ~/.cache/gostap-test).
set -euo pipefail
. "$(dirname "$0")/debian-archive.sh"

# Version -> the Debian suite that carries it (all reachable through a
# bookworm machine's mirror).
declare -A SUITE=(
  [1.15]=bullseye
  [1.19]=bookworm
  [1.21]=bookworm-backports [1.22]=bookworm-backports [1.23]=bookworm-backports
  [1.24]=trixie
  [1.26]=forky [1.27]=forky
)
MATRIX="1.19 1.21 1.22 1.23 1.24 1.26 1.27"
versions=${*:-$MATRIX}

cache_lock go-toolchains

need=
for v in $versions; do
  [ -n "${SUITE[$v]:-}" ] || archive_die "no Debian suite known for Go $v"
  [ -x "$CACHE/go/$v/usr/lib/go-$v/bin/go" ] || need="$need $v"
done

if [ -n "$need" ]; then
  # shellcheck disable=SC2046
  archive_setup $(for v in $need; do echo "${SUITE[$v]}"; done | sort -u)
  for v in $need; do
    archive_fetch "$CACHE/go/$v" "golang-$v-go" "golang-$v-src"
    [ -x "$CACHE/go/$v/usr/lib/go-$v/bin/go" ] || archive_die "golang-$v-go has no bin/go"
  done
fi

for v in $versions; do
  echo "$v $CACHE/go/$v/usr/lib/go-$v"
done
