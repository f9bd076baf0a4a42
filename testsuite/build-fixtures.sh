#!/bin/bash
# Build the Go test fixtures (testsuite/fixtures/*/main.go) with every Go
# toolchain of the test matrix, in several build variants, into a cache
# directory outside the source tree, and print the manifest of the binaries.
#
# Usage: build-fixtures.sh [--failed FILE] [GO_VERSION...]
#        (default: go-toolchains.sh's matrix)
#
# Output, one line per binary built (also written to manifest.txt beside
# them, or to manifest-<versions>.txt when versions are given):
#   <path> <goversion> <variant> <fixture> <goarch>
#
# A fixture that fails to build does not stop the others: it is left out
# of the manifest, and its line goes to failed.txt beside it (or
# failed-<versions>.txt), the manifest's columns (<path> the binary it
# would have been) then the reason: the first error line of go build's
# output (with the package it names), e.g. without libc6-dev-arm64-cross
#   .../cgo-1.24-arm64cgo 1.24 arm64cgo cgo arm64 runtime/cgo:
#   /usr/include/stdlib.h:26:10: fatal error: bits/libc-header-start.h: No such file or directory
# (one line). go build's whole output is kept in <path>.failed; stderr
# has one line per failure. With --failed FILE, failed.txt is copied to
# FILE and the exit status is 0 (test-subr.sh's fixture_manifest: each
# test fails for the fixtures it uses); without it, 1 when a fixture
# failed (after the others are built and listed). A failure is not
# cached: the next run tries that build again, and a success removes
# <path>.failed. That costs what go build takes to fail: 0.3 s for a cgo
# build whose C headers are missing (the standard library in GOCACHE);
# retrying is cheaper than deciding when a failure is stale (a package
# installed, a compiler changed).
#
# Environment: GOSTAP_TEST_CACHE (the cache root), GOSTAP_FIXTURES (build
# only these fixtures, e.g. "cgo"; the manifest is then
# manifest[-<versions>]-only-<fixtures>.txt, failed.txt alike), CC (the C
# compiler of the cgo variant, default gcc) and ARM64_CC (of arm64cgo,
# default aarch64-linux-gnu-gcc), each a command with its options (the
# cache key does not hold them: run-fixture-failure.sh uses a private
# cache).
#
# Variants (how each binary is made; all with `go build` of the fixture's
# directory in GOPATH mode, GO111MODULE=off, so no go.mod and no VCS stamp,
# and, except cgo, with -ldflags=-B=0x<sha1 of fixture, Go version and
# variant>: a GNU build id, as distributions build Go programs; default,
# w and sw share theirs, so that the twins keep the same text; the cgo
# variant gets the one gcc's linker writes; arm64, arm64w and arm64sw share
# one too):
#   default  CGO_ENABLED=0                              .symtab + DWARF
#   w        CGO_ENABLED=0 -ldflags=-w                  .symtab, no DWARF
#   sw       CGO_ENABLED=0 -ldflags='-s -w'             neither; same text as default
#   pie      CGO_ENABLED=0 -buildmode=pie               position independent
#   arm64    CGO_ENABLED=0 GOARCH=arm64                 cross-compiled, static
#   arm64w   arm64 with -ldflags=-w                     (grow and stacks only)
#   arm64sw  arm64 with -ldflags='-s -w'                (grow, stacks and demo)
#   cgo      CGO_ENABLED=1 (cgo fixture only)           externally linked with gcc
#   arm64cgo cgo with GOARCH=arm64 CC=aarch64-linux-gnu-gcc (packages
#            gcc-aarch64-linux-gnu, libc6-dev-arm64-cross), externally
#            linked; skipped, with a note on stderr, when that compiler
#            is missing
# -buildmode=pie needs no cgo on linux/amd64: Go 1.15 and later link PIEs
# internally, and every toolchain of the matrix (1.19-1.27) builds the 'pie'
# variant with CGO_ENABLED=0 (checked by hand; the result is a dynamically
# linked ET_DYN with an interpreter but no DT_NEEDED libraries). The cgo
# fixture imports "C", so CGO_ENABLED=0 excludes its only file: it is built
# in the 'cgo' variant alone, and skipped (with a note on stderr) when there
# is no C compiler. The http fixture (a net/http server and client, for
# examples/httplatency.stp in the e2e test) is built in the default and
# arm64 variants only, the fmtvals fixture (values of every kind printed
# with fmt's %+v, for the e2e test's go_fmt jobs) in those and, with Go
# 1.24 and 1.25, noswiss (GOEXPERIMENT=noswissmap: maps in buckets); the inline fixture (small functions inlined into
# several callers, for probes on inlined copies) in default, -w and -s -w;
# the cpubound fixture (a CPU-bound loop with one hot call edge that
# writes its own runtime/pprof profile, for the e2e test's PGO and
# profile-parity job), the labels fixture (goroutines labelled with
# runtime/pprof, for the e2e test's labels jobs) and the faults fixture
# (killed, forking and exec'ing processes, for the e2e test's faults job)
# and the allocs fixture (allocations at known sites, for the allocs jobs)
# and the busy fixture (a thousand goroutines serving requests, for the
# e2e test's load job) in default only; the kinds fixture (values of many
# types, printing their descriptors through reflect, for run-types.sh) in
# default, -w, -s -w, pie and arm64; the -w and -s -w builds for arm64 are
# made of the grow and stacks
# fixtures (and -s -w of the demo), for the arm64 e2e test's jobs on them.
#
# The binaries go to
#   ${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}/fixtures/<key>/
# as <fixture>-<goversion>-<variant>, where <key> hashes the fixture sources,
# the absolute source directory (DWARF and pclntab record absolute paths)
# and this script: a second run reuses the binaries, a changed source
# rebuilds them. Each binary (and each .failed log, manifest and failed
# list) is written under a temporary name and renamed, so an interrupted
# run leaves no half-written binary behind. Builds run one at
# a time and share one GOCACHE ($CACHE/gocache), so the standard library of
# each toolchain/GOARCH/buildmode is compiled once.
#
# Go's environment is pinned so that nothing depends on $HOME or the network:
# GOROOT, GOPATH, GOCACHE under the cache, GOENV=off, GOFLAGS empty,
# GOTOOLCHAIN=local, GOPROXY=off.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$here/fixtures
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}

die() { echo "build-fixtures.sh: $*" >&2; exit 1; }

failed_copy=
if [ "${1:-}" = --failed ]; then
  [ $# -ge 2 ] || die "--failed needs a file"
  failed_copy=$2
  shift 2
fi

# Tests run in parallel and share the cache: one run builds at a time, the
# others wait and then reuse its binaries.
. "$here/debian-archive.sh"
cache_lock build-fixtures

ALL_FIXTURES="abi grow stacks cgo demo http inline cpubound labels faults allocs busy kinds fmtvals"
read -r -a fixtures <<< "${GOSTAP_FIXTURES:-$ALL_FIXTURES}"
FIXTURES="${fixtures[*]}"
for f in $FIXTURES; do
  case " $ALL_FIXTURES " in *" $f "*) ;; *) die "GOSTAP_FIXTURES: no fixture '$f' (there are: $ALL_FIXTURES)" ;; esac
done
# fixture_dir FIXTURE: its source directory; the demo program of the
# examples is built too, for the CLI and end-to-end tests (default, and
# -s -w for the newstack example on a release build; both for arm64 too).
fixture_dir() {
  case $1 in
    demo) echo "$here/../examples/demo" ;;
    *) echo "$src/$1" ;;
  esac
}
for f in $ALL_FIXTURES; do [ -f "$(fixture_dir "$f")/main.go" ] || die "missing $(fixture_dir "$f")/main.go"; done

# The cache key: fixture sources (names and contents, of every fixture: a
# GOSTAP_FIXTURES run shares the binaries of a whole one), their absolute
# directory, this script.
key=$( {
  echo "srcdir $src"
  for f in $ALL_FIXTURES; do
    for file in "$(fixture_dir "$f")"/*; do
      [ -f "$file" ] || continue
      echo "file $f/${file##*/} $(sha256sum < "$file")"
    done
  done
  echo "script $(sha256sum < "$0")"
} | sha256sum | cut -c1-16)
out=$CACHE/fixtures/$key
mkdir -p "$out" "$CACHE/gocache" "$CACHE/gopath"
# Mark this key as used and drop the binaries of all but the six keys
# used last (older fixture sources, other checkouts): about 0.5 GB a key,
# and kept for a week they reached 38 keys, 16 GB (2026-11-28).
touch "$out"
ls -1dt "$CACHE/fixtures"/*/ 2>/dev/null | tail -n +7 | xargs -r rm -rf 2>/dev/null || true

# Toolchains: "VERSION GOROOT" lines.
toolchains=$("$here/go-toolchains.sh" "$@") || die "go-toolchains.sh failed"

CC=${CC:-gcc}
ARM64_CC=${ARM64_CC:-aarch64-linux-gnu-gcc}
have_cc=yes
command -v "${CC%% *}" >/dev/null 2>&1 || have_cc=no
have_arm64_cc=yes
command -v "${ARM64_CC%% *}" >/dev/null 2>&1 || have_arm64_cc=no

# variants FIXTURE: the variants built for that fixture.
variants() {
  case $1 in
    cgo) [ "$have_cc" = yes ] && echo cgo || echo "build-fixtures.sh: no C compiler, cgo fixture skipped" >&2
         [ "$have_arm64_cc" = yes ] && echo arm64cgo ||
           echo "build-fixtures.sh: no ${ARM64_CC%% *} (gcc-aarch64-linux-gnu), arm64 cgo fixture skipped" >&2 ;;
    demo) echo default sw arm64 arm64sw ;;
    http) echo default arm64 ;;
    fmtvals) echo default arm64 noswiss ;;
    inline) echo default w sw ;;
    kinds) echo default w sw pie arm64 ;;
    cpubound|labels|faults|allocs|busy) echo default ;;
    grow|stacks) echo default w sw pie arm64 arm64w arm64sw ;;
    *) echo default w sw pie arm64 ;;
  esac
}

# reason LOG: the one-line reason of a failed go build: its first line
# that reads as an error, prefixed with the package of the "# PKG" line
# before it (else its first line), cut at 300 characters.
reason() {
  awk '/^# / { pkg = substr($0, 3); next }
       { sub(/^[ \t]+/, "") }
       $0 == "" { next }
       first == "" { first = (pkg != "" ? pkg ": " : "") $0 }
       tolower($0) ~ /error|undefined|cannot|no such|not found|killed/ {
         line = (pkg != "" ? pkg ": " : "") $0; exit }
       END { if (line == "") line = first
             if (line == "") line = "go build failed with no output"
             print substr(line, 1, 300) }' "$1"
}

# build VERSION GOROOT FIXTURE VARIANT: build one binary unless it exists;
# print its manifest line, or, when go build fails, append its line to the
# failed list ($failed.tmp.$$) and keep go build's output in BINARY.failed.
build() {
  local v=$1 goroot=$2 fixture=$3 variant=$4
  local bin=$out/$fixture-$v-$variant goarch=amd64 cgo=0 cc=$CC exp=
  local -a flags=()
  local bid
  case $variant in w|sw) bid=default ;; arm64w|arm64sw) bid=arm64 ;; *) bid=$variant ;; esac
  bid="-B 0x$(printf '%s-%s-%s' "$fixture" "$v" "$bid" | sha1sum | cut -c1-40)"
  case $variant in
    default) flags=("-ldflags=$bid") ;;
    w) flags=("-ldflags=-w $bid") ;;
    sw) flags=("-ldflags=-s -w $bid") ;;
    pie) flags=(-buildmode=pie "-ldflags=$bid") ;;
    arm64) goarch=arm64 flags=("-ldflags=$bid") ;;
    arm64w) goarch=arm64 flags=("-ldflags=-w $bid") ;;
    arm64sw) goarch=arm64 flags=("-ldflags=-s -w $bid") ;;
    cgo) cgo=1 ;;
    arm64cgo) goarch=arm64 cgo=1 cc=$ARM64_CC ;;
    # maps in buckets where Go 1.24 and 1.25 default to Swiss tables
    noswiss) case $v in 1.24|1.25) exp=noswissmap flags=("-ldflags=$bid") ;; *) return 0 ;; esac ;;
    *) die "unknown variant $variant" ;;
  esac
  if [ ! -x "$bin" ]; then
    local tmp why
    tmp=$(mktemp "$out/.tmp-$fixture-$v-$variant.XXXXXX")
    if ! ( cd "$(fixture_dir "$fixture")" &&
           env GOROOT="$goroot" GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache" \
             GOENV=off GOFLAGS= GO111MODULE=off GOTOOLCHAIN=local GOPROXY=off \
             GOOS=linux GOARCH=$goarch CGO_ENABLED=$cgo CC="$cc" GOEXPERIMENT="$exp" \
             "$goroot/bin/go" build "${flags[@]}" -o "$tmp" . ) >"$tmp.log" 2>&1; then
      why=$(reason "$tmp.log")
      mv -f "$tmp.log" "$bin.failed"
      rm -f "$tmp"
      echo "build-fixtures.sh: go $v: building $fixture ($variant) failed: $why (go build's output: $bin.failed)" >&2
      echo "$bin $v $variant $fixture $goarch $why" >> "$failed.tmp.$$"
      return 0
    fi
    rm -f "$tmp.log" "$bin.failed"
    mv -f "$tmp" "$bin"
  fi
  echo "$bin $v $variant $fixture $goarch"
}

# manifest.txt lists the whole matrix; a run for some versions only writes
# manifest-<versions>.txt, one for some fixtures only
# manifest[-<versions>]-only-<fixtures>.txt; the failed lists alike.
tag=
[ $# -eq 0 ] || tag=-$(echo "$*" | tr ' ' _)
[ "$FIXTURES" = "$ALL_FIXTURES" ] || tag=$tag-only-$(echo "$FIXTURES" | tr ' ' _)
manifest=$out/manifest$tag.txt failed=$out/failed$tag.txt
: > "$failed.tmp.$$"
{
  while read -r v goroot; do
    for fixture in $FIXTURES; do
      for variant in $(variants "$fixture"); do
        build "$v" "$goroot" "$fixture" "$variant"
      done
    done
  done <<< "$toolchains"
} > "$manifest.tmp.$$" || { rm -f "$manifest.tmp.$$" "$failed.tmp.$$"; exit 1; }
mv -f "$manifest.tmp.$$" "$manifest"
mv -f "$failed.tmp.$$" "$failed"
if [ -n "$failed_copy" ]; then
  cp "$failed" "$failed_copy" || die "cannot write $failed_copy"
fi
cat "$manifest"
[ -n "$failed_copy" ] || [ ! -s "$failed" ] || exit 1
