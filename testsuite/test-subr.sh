# test-subr.sh: sourced by every testsuite/run-*.sh.
# Gives: set -e, a private temporary directory $tmp removed on exit, the
# gostap program under test in $GOSTAP, and small assertion helpers.
# Exit statuses follow Automake: 0 pass, 1 fail, 77 skip, 99 hard error.

set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GOSTAP:=$top_srcdir/src/gostap}"
export GOSTAP top_srcdir
# No test asks a debuginfod server or a debug directory it did not set up
# itself (read-debuginfo.c looks a stripped binary's DWARF up there).
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS
testsuite=$top_srcdir/testsuite

# plain_gostap: prints a gostap built without sanitizers, for the tests that
# measure memory or run valgrind: $GOSTAP itself when it is plain, else
# $GOSTAP_PLAIN (tools/check.sh builds one in _build/plain and exports it);
# prints nothing when there is none.
plain_gostap () {
  if ! ldd "$GOSTAP" 2>/dev/null | grep -q libasan; then
    echo "$GOSTAP"
  elif [ -n "${GOSTAP_PLAIN:-}" ] && [ -x "$GOSTAP_PLAIN" ]; then
    echo "$GOSTAP_PLAIN"
  fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gostap-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# gostap's own cache (run's tapsets, companions, the copies it makes for
# an old libdw: run-aranges.c) in the test's directory, unless a test
# names another; the test cache stays where it was.
# Go's own build cache (go tool nm, addr2line, pprof are built on first
# use from Go 1.25 on) is the test cache's, as build-fixtures.sh's.
export GOSTAP_TEST_CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
export GOCACHE=${GOCACHE:-$GOSTAP_TEST_CACHE/gocache}
export XDG_CACHE_HOME=$tmp/xdg-cache

failures=0
checks=0

fail () { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# A test that has failed a check does not skip: it fails.
skip () {
  if [ "${failures:-0}" -gt 0 ]; then
    echo "FAIL: $failures failed checks, then: $*" >&2; exit 1
  fi
  echo "SKIP: $*" >&2; exit 77
}
hard_error () { echo "ERROR: $*" >&2; exit 99; }

# expect_fail STATUS REGEX CMD...: CMD must exit with STATUS and print one
# line on stderr matching REGEX (argp may add its "Try `gostap --help'"
# line), and nothing on stdout.
expect_fail () {
  local want=$1 re=$2 st=0
  shift 2
  checks=$((checks + 1))
  "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [ "$st" != "$want" ]; then
    fail "$*: exit $st, expected $want; stderr: $(head -c 300 "$tmp/err")"
  elif [ "$(grep -vc '^Try `' "$tmp/err")" != 1 ]; then
    fail "$*: expected one line on stderr, got: $(cat "$tmp/err")"
  elif ! grep -Eq -- "$re" "$tmp/err"; then
    fail "$*: stderr does not match /$re/: $(cat "$tmp/err")"
  elif [ -s "$tmp/out" ]; then
    fail "$*: wrote to stdout on error"
  else
    echo "ok - $* -> $want: $(cat "$tmp/err")"
  fi
}

# fixture_manifest [VERSION...]: build the fixtures with those Go releases
# (default: the whole matrix; build-fixtures.sh, cached) and print the
# manifest of the binaries built, "path goversion variant fixture goarch"
# lines, also kept in $tmp/fixtures.manifest. A fixture that failed to
# build is not in it: its line (the same columns, then the reason) is in
# $tmp/fixtures.failed. A test asks for the binaries it uses with fixture,
# or, going over the manifest, calls fixture_failures for the builds it
# would check: each fails the test naming the fixture and the reason in
# one line, and the tests that use other fixtures run as usual.
fixture_manifest () {
  "$testsuite/build-fixtures.sh" --failed "$tmp/fixtures.failed" "$@" \
      > "$tmp/fixtures.manifest" 2> "$tmp/fixtures.err" ||
    hard_error "build-fixtures.sh failed: $(tail -20 "$tmp/fixtures.err")"
  sed 's/^/# /' "$tmp/fixtures.err" >&2
  cat "$tmp/fixtures.manifest"
}

# matrix_manifest [VERSION...]: the lines of fixture_manifest the matrix
# tests take in this run (testsuite/matrix.sh: by turns; GOSTAP_MATRIX=all
# takes every one).
matrix_manifest () {
  fixture_manifest "$@" > "$tmp/manifest.all"
  "$testsuite/matrix.sh" < "$tmp/manifest.all"
}

# fixture_why FAILED-LINE: the one line that says why a fixture is missing.
fixture_why () {
  local path v variant fixture goarch why
  read -r path v variant fixture goarch why <<< "$1"
  echo "fixture $fixture, Go $v, variant $variant ($goarch) did not build: $why (build-fixtures.sh; go build's output: $path.failed)"
}

# fixture VERSION VARIANT FIXTURE: the path of that binary of the manifest
# (after fixture_manifest). When it failed to build: its one line on stderr
# ("FAIL: fixture ... did not build: REASON") and status 1, so that
# `bin=$(fixture ...)` ends the test with FAIL (set -e; a test that can go
# on without it tests the status itself). Neither built nor failed (a
# variant this machine does not build, such as cgo without a C compiler,
# or a release not asked for): nothing, status 0.
fixture () {
  awk -v v="$1" -v w="$2" -v f="$3" '$2 == v && $3 == w && $4 == f { print $1; exit }' "$tmp/fixtures.manifest"
  if awk -v v="$1" -v w="$2" -v f="$3" '$2 == v && $3 == w && $4 == f { found = 1; exit } END { exit !found }' "$tmp/fixtures.failed"; then
    echo "FAIL: $(fixture_missing "$@")" >&2
    return 1
  fi
}

# fixture_missing VERSION VARIANT FIXTURE: why that binary is not in the
# manifest, in one line: the failed build's, or "not in the manifest" (for
# a test that goes on without it: bin=$(fixture ... 2>/dev/null) || true,
# then fail "...: $(fixture_missing ...)" where bin is empty).
fixture_missing () {
  local line
  line=$(awk -v v="$1" -v w="$2" -v f="$3" '$2 == v && $3 == w && $4 == f { print; exit }' "$tmp/fixtures.failed")
  if [ -n "$line" ]; then
    fixture_why "$line"
  else
    echo "no fixture $3, Go $1, variant $2 in the manifest"
  fi
}

# fixture_failures [AWK-CONDITION]: for each build that failed (of those
# matching CONDITION, an awk pattern on the manifest's columns; default
# all), a failed check naming it and the reason (fail).
fixture_failures () {
  local line
  while IFS= read -r line; do
    checks=$((checks + 1))
    fail "$(fixture_why "$line")"
  done < <(awk "${1:-1}" "$tmp/fixtures.failed")
}

# need_toolchains VERSION...: the "VERSION GOROOT" lines of go-toolchains.sh.
# Skips only where there is no Debian archive to take them from (no
# apt-get); on a Debian machine a failed download is an error.
need_toolchains () {
  command -v apt-get >/dev/null 2>&1 ||
    skip "no apt-get: the Go toolchains of the test matrix come from Debian's archive"
  "$testsuite/go-toolchains.sh" "$@" 2>"$tmp/toolchains.err" ||
    hard_error "cannot install the Go toolchains: $(tail -3 "$tmp/toolchains.err")"
}

# need_stap: set $STAP (a command prefix) and $STAP_LIBDW_VERSION from
# stap-env.sh, or skip the test when no suitable stap can be had here.
need_stap () {
  local st=0 envsh
  envsh=$("$testsuite/stap-env.sh") || st=$?
  [ "$st" = 77 ] && skip "no SystemTap translator with libdw >= 0.191 here (stap-env.sh)"
  [ "$st" = 0 ] || hard_error "stap-env.sh failed ($st)"
  eval "$envsh"
}

finish () {
  echo "$(basename "$0"): $checks checks, $failures failures"
  [ "$failures" -eq 0 ]
}
