#!/bin/bash
# Offline: gostap on a few fixture binaries committed in testsuite/golden/
# (xz-compressed; Go 1.19 and 1.27 amd64 with DWARF, Go 1.22 arm64, Go
# 1.27 -ldflags=-w, all of the grow fixture, built by build-fixtures.sh)
# gives exactly the committed `list --json` and `gen 'main.*'` output.
# Needs no Go toolchain and no network, so it runs in `make check` in a
# distribution's build root and in the RPM's %check.  The same builds are
# checked against objdump, DWARF and the Go toolchains by the matrix tests;
# testsuite/golden/update.sh remakes the golden files after an intended
# change of output.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v xz >/dev/null || skip "no xz (xz-utils) to unpack the golden binaries"
golden=$testsuite/golden
n=0
for z in "$golden"/*.xz; do
  case $z in *.list.json.xz) continue ;; esac
  name=$(basename "$z" .xz)
  n=$((n + 1))
  xz -dc "$z" > "$tmp/$name"
  chmod +x "$tmp/$name"
  checks=$((checks + 1))
  if ! "$golden/normalize.sh" "$tmp/$name" "$GOSTAP" "$tmp/$name.tapsets" > "$tmp/$name.json" 2>"$tmp/err"; then
    fail "$name: $(head -3 "$tmp/err")"
  elif ! xz -dc "$golden/$name.list.json.xz" | diff -u - "$tmp/$name.json" > "$tmp/diff"; then
    fail "$name: list --json differs from the golden output: $(head -20 "$tmp/diff")"
  else
    echo "ok - $name: list --json equals the golden output ($(grep -c '"entry": ' "$tmp/$name.json") functions)"
  fi
  checks=$((checks + 1))
  if diff -ru "$golden/$name.tapsets" "$tmp/$name.tapsets" > "$tmp/diff"; then
    echo "ok - $name: gen writes the golden tapsets ($(ls "$tmp/$name.tapsets" | wc -l) files)"
  else
    fail "$name: gen differs from the golden tapsets: $(head -20 "$tmp/diff")"
  fi
done
[ "$n" -gt 0 ] || hard_error "no golden binaries in $golden"
finish
