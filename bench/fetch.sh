#!/bin/bash
# fetch.sh [LABEL...]: the benchmark's binaries, cached under $BENCH_CACHE
# (default ~/.cache/gostap-test/bench).  Prints "LABEL PATH" lines: of
# every binary below, or of the LABELs named (fetch.sh hugo).
#
#  - stripped Go binaries from Debian packages (no .symtab, no DWARF, as
#    shipped), by size: fzf 4 MB, restic 20 MB, containerd 52 MB, hugo 79 MB,
#    dockerd 90 MB, prometheus 96 MB; fetched with testsuite/debian-archive.sh
#    (apt-get download + dpkg-deb -x, nothing installed);
#  - "compile-dwarf": cmd/compile built from the Go 1.24 toolchain's own
#    sources with default flags (.symtab and compressed DWARF, as a user's
#    own build would have): stripped binaries cannot get probes, so the
#    generation and stap benchmarks also need a binary with symbols.
#    Debian's debug archive (dbgsym) is not reachable through every mirror.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
BENCH_CACHE=${BENCH_CACHE:-$CACHE/bench}
. "$top/testsuite/debian-archive.sh"

# label package/suite path-inside-package
LIST="fzf fzf/trixie usr/bin/fzf
restic restic/trixie usr/bin/restic
containerd containerd/trixie usr/bin/containerd
hugo hugo/trixie usr/bin/hugo
dockerd docker.io/trixie usr/sbin/dockerd
prometheus prometheus/forky usr/bin/prometheus"

if [ $# -gt 0 ]; then
  want=" $* "
  LIST=$(while read -r label spec path; do
           case $want in *" $label "*) echo "$label $spec $path" ;; esac
         done <<< "$LIST")
  for l in "$@"; do
    [ "$l" = compile-dwarf ] || grep -q "^$l " <<< "$LIST" ||
      { echo "fetch.sh: no binary '$l' (the labels: fzf restic containerd hugo dockerd prometheus compile-dwarf)" >&2; exit 64; }
  done
fi
need=
while read -r label spec path; do
  [ -n "$label" ] || continue
  [ -f "$BENCH_CACHE/pkg-${spec%/*}/$path" ] || need="$need $spec"
done <<< "$LIST"
if [ -n "$need" ]; then
  ( archive_setup bookworm trixie forky
    for spec in $need; do archive_fetch "$BENCH_CACHE/pkg-${spec%/*}" "$spec"; done
  ) >&2
fi
while read -r label spec path; do
  [ -n "$label" ] || continue
  f=$BENCH_CACHE/pkg-${spec%/*}/$path
  [ -f "$f" ] || archive_die "$spec has no $path"
  echo "$label $f"
done <<< "$LIST"

# The unstripped binary (about 2 minutes the first time).
case " ${want:- compile-dwarf } " in *" compile-dwarf "*) ;; *) exit 0 ;; esac
out=$BENCH_CACHE/compile-dwarf-1.24
if [ ! -x "$out/compile" ]; then
  goroot=$("$top/testsuite/go-toolchains.sh" 1.24 | awk '{ print $2 }')
  mkdir -p "$out.tmp"
  env GOROOT="$goroot" GOPATH="$BENCH_CACHE/gopath" GOCACHE="$CACHE/gocache" \
      GOENV=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off \
      "$goroot/bin/go" build -C "$goroot/src/cmd" -o "$out.tmp/compile" ./compile >&2
  rm -rf "$out"; mv "$out.tmp" "$out"
fi
echo "compile-dwarf $out/compile"
