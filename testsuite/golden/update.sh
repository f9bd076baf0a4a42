#!/bin/bash
# Remake testsuite/golden/ from the fixture matrix (build-fixtures.sh) and
# the gostap in $GOSTAP: a few small fixture binaries, xz-compressed, with
# the `gostap list --json` and `gostap gen` output that run-golden.sh
# compares against offline (no Go toolchain, no network: `make check` in a
# distribution's build root, the RPM's %check).
# Usage: GOSTAP=_build/src/gostap testsuite/golden/update.sh
# Run it when gostap's output changes on purpose, and commit the result
# with the change; run-golden.sh then shows the difference in review.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GOSTAP:?set GOSTAP to the gostap program}"
# name: Go version, variant, fixture (see build-fixtures.sh)
PICK="1.19 default grow
1.22 arm64 grow
1.27 default grow
1.27 w grow"
# (the grow fixture alone: a build of another that fails stops nothing here)
manifest=$(GOSTAP_FIXTURES=grow "$here/../build-fixtures.sh" 1.19 1.22 1.27)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$here"/*.xz "$here"/*.list.json.xz
rm -rf "$here"/*.tapsets
while read -r v variant fixture; do
  bin=$(awk -v v="$v" -v w="$variant" -v f="$fixture" '$2 == v && $3 == w && $4 == f { print $1 }' <<< "$manifest")
  name=$fixture-$v-$variant
  cp "$bin" "$tmp/$name"
  xz -9e -c "$bin" > "$here/$name.xz"
  "$here/normalize.sh" "$tmp/$name" "$GOSTAP" "$here/$name.tapsets" |
    xz -9 > "$here/$name.list.json.xz"
done <<< "$PICK"
ls -la "$here"
