#!/bin/bash
# normalize.sh BINARY GOSTAP TAPSETDIR: print `gostap list --json BINARY`
# and write `gostap gen BINARY -o TAPSETDIR 'main.*'`, each with the
# binary's path replaced by @BINARY@ (it lives in a temporary directory).
set -euo pipefail
bin=$1 gostap=$2 out=$3
rm -rf "$out"
"$gostap" gen "$bin" -o "$out" 'main.*' 2>/dev/null || mkdir -p "$out"
for f in "$out"/*; do
  [ -f "$f" ] || continue
  sed -i "s|$bin|@BINARY@|g" "$f"
done
"$gostap" list --json "$bin" | sed "s|$bin|@BINARY@|g"
