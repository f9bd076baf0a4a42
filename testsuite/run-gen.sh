#!/bin/bash
# gostap gen on every fixture binary (testsuite/build-fixtures.sh):
#  - the runtime layout in go_target.stp: read from DWARF for builds with
#    DWARF, from gostap's per-release table for their -w twins (same Go
#    release, no DWARF); the two must agree, for every release and arch;
#  - every line of the generated tapsets has a shape the writers produce
#    (check-tapset-lines.py): nothing from the binary becomes code;
#  - every probe alias decodes back to its Go name, with no collision
#    (check-probe-names.py, an independent decoder);
#  - a binary whose pclntab function name was patched to carry '"', '%{',
#    '}', a newline and '*/' yields the same safe shapes;
#  - a failed run leaves no file behind.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

fixture_manifest > "$tmp/manifest"
mkdir -p "$tmp/gen"
layout () { grep '^function _go_off_' "$1/go_target.stp"; }

while read -r bin ver variant fixture arch; do
  case $variant in default|arm64|cgo) ;; *) continue ;; esac
  out=$tmp/gen/$(basename "$bin")
  checks=$((checks + 1))
  if ! "$GOSTAP" gen "$bin" -o "$out" 'main.*' 2>"$tmp/err"; then
    fail "gen $bin: $(cat "$tmp/err")"; continue
  fi
  grep -q "read from the binary's DWARF" "$out/go_target.stp" ||
    fail "$bin: layout not read from DWARF"
  "$testsuite/check-tapset-lines.py" "$out" > "$tmp/lines" || fail "$bin: $(cat "$tmp/lines")"
  "$GOSTAP" list --json "$bin" > "$tmp/list.json"
  "$testsuite/check-probe-names.py" "$tmp/list.json" > "$tmp/names" || fail "$bin: $(cat "$tmp/names")"
  # The -w twin (no DWARF) of the same release gets its layout from the table.
  twin=$(awk -v v="$ver" -v f="$fixture" -v a="$arch" \
    '$2 == v && $3 == "w" && $4 == f && $5 == a { print $1 }' "$tmp/manifest")
  if [ -n "$twin" ]; then
    checks=$((checks + 1))
    "$GOSTAP" gen "$twin" -o "$out.w" 'main.main' 2>"$tmp/err" || fail "gen $twin: $(cat "$tmp/err")"
    if ! diff <(layout "$out") <(layout "$out.w") > "$tmp/diff"; then
      fail "Go $ver $arch: table layout differs from DWARF: $(cat "$tmp/diff")"
    else
      echo "ok - Go $ver $arch ($fixture): table layout = DWARF layout"
    fi
  fi
  echo "ok - $bin: $(grep -c '^probe ' "$out/go_funcs.stp") aliases, $(tail -1 "$tmp/lines"), $(tail -1 "$tmp/names")"
done < "$tmp/manifest"

# Hostile names: patch a main.* name inside .gopclntab.
gobin=$(awk '$2 == "1.22" && $3 == "default" && $4 == "abi" { print $1; exit }' "$tmp/manifest")
cp "$gobin" "$tmp/hostile"
name=$("$GOSTAP" list "$gobin" 'main.*' | awk 'length($7) >= 16 { print $7; exit }')
[ -n "$name" ] || hard_error "no main.* name of 16 bytes or more in $gobin"
"$testsuite/patch-name.py" "$tmp/hostile" "$name"
checks=$((checks + 1))
if "$GOSTAP" gen "$tmp/hostile" -o "$tmp/hostile.d" 'main.q*' 2>"$tmp/err"; then
  if "$testsuite/check-tapset-lines.py" "$tmp/hostile.d" > "$tmp/lines"; then
    echo "ok - hostile name: $(tail -1 "$tmp/lines")"
  else
    fail "hostile name leaked into the tapset: $(cat "$tmp/lines")"
  fi
  "$GOSTAP" list --json "$tmp/hostile" 'main.q*' > "$tmp/hostile.json"
  "$testsuite/check-probe-names.py" "$tmp/hostile.json" > "$tmp/names" &&
    echo "ok - hostile name: $(cat "$tmp/names")" || fail "hostile name: $(cat "$tmp/names")"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert any("\n" in f["name"] and "%{" in f["name"] for f in j["functions"])' "$tmp/hostile.json" ||
    fail "the patched name did not come through list --json intact"
else
  fail "gen on the hostile binary: $(cat "$tmp/err")"
fi

# Nothing half-written: an unwritable output directory fails cleanly.
checks=$((checks + 1))
mkdir "$tmp/ro"; chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
  expect_fail 1 "cannot create a file in" "$GOSTAP" gen "$gobin" -o "$tmp/ro" 'main.main'
  [ -z "$(ls -A "$tmp/ro")" ] || fail "files left in $tmp/ro"
fi
expect_fail 1 "no function matches 'nosuch'" "$GOSTAP" gen "$gobin" -o "$tmp/none" nosuch
[ ! -e "$tmp/none/go_funcs.stp" ] && [ ! -e "$tmp/none/go_target.stp" ] || fail "gen wrote files for a glob that matched nothing"
expect_fail 64 "no output directory" "$GOSTAP" gen "$gobin"
# A path SystemTap cannot resolve (a newline in it) is refused, on one line.
nl="$tmp/new"$'\n'"line"
mkdir -p "$nl" && cp "$gobin" "$nl/prog"
expect_fail 2 'new\\x0aline/prog: the path contains a control character' \
  "$GOSTAP" gen "$nl/prog" -o "$tmp/nl.d" 'main.main'
[ ! -e "$tmp/nl.d/go_funcs.stp" ] || fail "gen wrote tapsets for a path with a newline"
finish
