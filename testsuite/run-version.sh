#!/bin/bash
# The command line itself: --version, --help texts, usage errors.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

checks=$((checks + 1))
v=$("$GOSTAP" --version)
case $v in "gostap "[0-9]*) echo "ok - --version: $v" ;; *) fail "--version printed '$v'" ;; esac

checks=$((checks + 1))
"$GOSTAP" --help > "$tmp/help"
grep -q '^  list ' "$tmp/help" && grep -q '^Examples:' "$tmp/help" &&
  grep -q 'Exit status' "$tmp/help" && echo "ok - --help lists commands, exit statuses and examples" ||
  fail "--help lacks the command list, exit statuses or examples"

checks=$((checks + 1))
"$GOSTAP" list --help > "$tmp/lhelp"
grep -q 'Examples:' "$tmp/lhelp" && grep -q -- '--json' "$tmp/lhelp" &&
  echo "ok - list --help" || fail "list --help lacks examples or --json"

expect_fail 64 "no command given" "$GOSTAP"
expect_fail 64 "'frobnicate' is not a gostap command" "$GOSTAP" frobnicate
expect_fail 64 "no binary given" "$GOSTAP" list
expect_fail 64 "unrecognized option" "$GOSTAP" list --frob x
finish
