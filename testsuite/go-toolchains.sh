#!/bin/bash
# Install Go toolchains from Debian's archive into a cache directory outside
# the source tree, without touching the system:
#   apt-get download golang-1.N-go golang-1.N-src ; dpkg-deb -x
# The mirror is the one this machine's apt already uses for its own release
# (read from `apt-get indextargets`); no host name is written anywhere here.
#
# Usage: go-toolchains.sh [VERSION...]     (default: the test matrix)
# Prints nothing on success but the GOROOT of each toolchain, one a line:
#   1.19 /root/.cache/gostap-test/go/1.19/usr/lib/go-1.19
# Environment: GOSTAP_TEST_CACHE (default $XDG_CACHE_HOME/gostap-test or
# ~/.cache/gostap-test).
set -euo pipefail

CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
# Version -> Debian suite that carries it (all reachable from a bookworm host's
# mirror: bookworm, bookworm-backports, trixie, forky).
declare -A SUITE=(
  [1.15]=bullseye
  [1.19]=bookworm
  [1.21]=bookworm-backports [1.22]=bookworm-backports [1.23]=bookworm-backports
  [1.24]=trixie
  [1.26]=forky [1.27]=forky
)
MATRIX="1.19 1.21 1.22 1.23 1.24 1.26 1.27"
versions=${*:-$MATRIX}

die() { echo "go-toolchains.sh: $*" >&2; exit 1; }

mirror() {
  local codename uri
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
        awk -v c="$codename" '$2 == c { print $1; exit }')
  [ -n "$uri" ] || uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
        awk '$1 !~ /security/ && $2 !~ /security/ { print $1; exit }')
  [ -n "$uri" ] || die "cannot find a Debian mirror in this machine's apt configuration (run apt-get update)"
  echo "${uri%/}/"
}

APT=$CACHE/apt
apt_private() {
  apt-get -q -o Dir::Etc::SourceList="$APT/sources.list" \
    -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State="$APT/state" -o Dir::Cache="$APT/cache" \
    -o Dir::State::Status="$APT/state/status" \
    -o APT::Get::List-Cleanup=0 "$@"
}

setup_apt() {
  local m suites
  m=$(mirror)
  mkdir -p "$APT/state/lists/partial" "$APT/cache/archives/partial"
  : > "$APT/state/status"
  suites=$(for v in $versions; do echo "${SUITE[$v]:?no suite known for Go $v}"; done | sort -u)
  { for s in $suites; do echo "deb $m $s main"; done; } > "$APT/sources.list.new"
  if ! cmp -s "$APT/sources.list.new" "$APT/sources.list" 2>/dev/null ||
     [ -z "$(find "$APT/state/lists" -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    mv "$APT/sources.list.new" "$APT/sources.list"
    apt_private update >"$APT/update.log" 2>&1 || { cat "$APT/update.log" >&2; die "apt-get update of the private lists failed"; }
  else
    rm -f "$APT/sources.list.new"
  fi
}

need=
for v in $versions; do
  [ -x "$CACHE/go/$v/usr/lib/go-$v/bin/go" ] || need="$need $v"
done

if [ -n "$need" ]; then
  setup_apt
  for v in $need; do
    dir=$CACHE/go/$v
    tmp=$(mktemp -d "$CACHE/go/.tmp-$v.XXXXXX" 2>/dev/null || { mkdir -p "$CACHE/go"; mktemp -d "$CACHE/go/.tmp-$v.XXXXXX"; })
    ( cd "$tmp" && apt_private download "golang-$v-go" "golang-$v-src" >download.log 2>&1 ) ||
      { cat "$tmp/download.log" >&2; rm -rf "$tmp"; die "cannot download golang-$v-go / golang-$v-src"; }
    mkdir -p "$tmp/root"
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
    [ -x "$tmp/root/usr/lib/go-$v/bin/go" ] || { rm -rf "$tmp"; die "golang-$v-go has no bin/go"; }
    rm -rf "$dir"
    mv "$tmp/root" "$dir"
    rm -rf "$tmp"
  done
fi

for v in $versions; do
  echo "$v $CACHE/go/$v/usr/lib/go-$v"
done
