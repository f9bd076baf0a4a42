#!/bin/bash
# Quick start, command 1: install what is needed, build gostap, build the
# bundled demo Go program with a Go toolchain from Debian, and list it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh build
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
echo "== gostap list $out/demo 'main.*'"
src/gostap list "$out/demo" 'main.*'
