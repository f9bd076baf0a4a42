#!/bin/bash
# build.sh SRC OUT: a plain optimized build (-O2 -g, no sanitizers) of a
# snapshot of the gostap tree SRC, configured out of tree in OUT/build.
# Prints the path of the gostap program.  SRC is copied (git's tracked and
# untracked-but-not-ignored files), so neither an in-tree configure nor
# concurrent edits of SRC get in the way.
set -euo pipefail
src=$1 out=$2
rm -rf "$out/src" "$out/build"
mkdir -p "$out/src" "$out/build"
( cd "$src" && git ls-files -co --exclude-standard -z ) |
  ( cd "$src" && xargs -0 tar cf - --no-recursion --ignore-failed-read -- 2>/dev/null ) | tar xf - -C "$out/src"
( cd "$out/src" && autoreconf -fi ) >"$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log" >&2; echo "build.sh: autoreconf failed" >&2; exit 1; }
( cd "$out/build" && "$out/src/configure" -q CFLAGS='-O2 -g' && make -s -j"$(nproc)" ) \
  >>"$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log" >&2; echo "build.sh: build failed (log: $out/build.log)" >&2; exit 1; }
echo "$out/build/src/gostap"
