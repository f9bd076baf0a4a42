#!/bin/bash
# gostap under valgrind memcheck: list --json, gen and the bad inputs of
# run-bad-input.sh on fixtures of the oldest and newest Go release, amd64,
# arm64 and cgo builds (gen of the -s -w builds through the companion it
# writes into a cache of this test's), of the programs the matrix tests
# take by turns (matrix.sh: abi, kinds, http, inline, cgo, grow and one
# other; every program every few commits, all with GOSTAP_MATRIX=all:
# with every program the test ran 101 checks in 1,027 s, the longest
# after the guest, run-tapsets and run-fresh in a cold CI run of
# 2026-12-02); the check of the locals a script
# reads (gostap run, with a stap that does nothing), refusing and passing;
# any invalid read or write, use of uninitialised memory or definite leak
# fails.  Needs a build without sanitizers: $GOSTAP
# when it is plain, else $GOSTAP_PLAIN (tools/check.sh builds one); skipped
# when there is none.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed"
GOSTAP=$(plain_gostap)
[ -n "$GOSTAP" ] ||
  skip "gostap is built with ASan and GOSTAP_PLAIN names no plain build for valgrind"
vg () {
  valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite "$@"
}

matrix_manifest > "$tmp/manifest"
sel='($2 == "1.19" || $2 == "1.27") && ($3 == "default" || $3 == "arm64" || $3 == "sw" || $3 == "cgo") && $4 != "demo"'
fixture_failures "$sel"
bins=$(awk "$sel"' { print $1 }' "$tmp/manifest")
printf 'hello\n' > "$tmp/text"
one=$(echo "$bins" | head -1)
head -c 100000 "$one" > "$tmp/trunc"
for bin in $bins; do
  checks=$((checks + 1))
  st=0
  vg "$GOSTAP" list --json "$bin" > /dev/null 2>"$tmp/err" || st=$?
  [ "$st" = 0 ] && echo "ok - memcheck list --json $(basename "$bin")" ||
    fail "memcheck list --json $bin: exit $st: $(head -20 "$tmp/err")"
  checks=$((checks + 1))
  st=0
  XDG_CACHE_HOME=$tmp/xdg-$(basename "$bin") vg "$GOSTAP" gen "$bin" -o "$tmp/gen" 'main.*' 2>"$tmp/err" || st=$?
  [ "$st" = 0 ] && echo "ok - memcheck gen $(basename "$bin")" ||
    fail "memcheck gen $bin: exit $st: $(head -20 "$tmp/err")"
done
# The locals check: a read the -s -w build's alias cannot give is refused
# (2), the same script on the DWARF build passes to "stap" (/bin/true).
for v in sw default; do
  bin=$(awk -v v="$v" '$2 == "1.27" && $3 == v && $4 == "abi" { print $1 }' "$tmp/manifest")
  [ -n "$bin" ] || continue
  want=$([ "$v" = sw ] && echo 2 || echo 0)
  checks=$((checks + 1))
  st=0
  XDG_CACHE_HOME=$tmp/xdg-run-$v GOSTAP_STAP=/bin/true GOSTAP_NO_PREFLIGHT=1 \
    vg "$GOSTAP" run -t "$bin" -p2 -e 'global n probe go.func.main.add* { n++; if (@defined(x)) println(x); printf("%d %d\n", a, b) }
      probe go.func.main.addI8.return { println(r0) }' >/dev/null 2>"$tmp/err" || st=$?
  [ "$st" = "$want" ] && echo "ok - memcheck run (locals check) $(basename "$bin"): exit $st" ||
    fail "memcheck run $bin: exit $st, want $want: $(head -20 "$tmp/err")"
done
for bad in "$tmp/text" "$tmp/trunc" /bin/true; do
  checks=$((checks + 1))
  st=0
  vg "$GOSTAP" list "$bad" >/dev/null 2>"$tmp/err" || st=$?
  [ "$st" = 2 ] && echo "ok - memcheck on bad input $(basename "$bad")" ||
    fail "memcheck list $bad: exit $st: $(head -20 "$tmp/err")"
done
finish
