#!/bin/bash
# A fixture that does not build fails the tests that use it, each naming it
# and the reason in one line, and only them (issue 33: one arm64 cgo build
# that did not compile took 18 tests down with the same error).
#
# The cause is a real one, the one of a fresh Debian 12 without
# libc6-dev-arm64-cross: ARM64_CC is aarch64-linux-gnu-gcc that does not
# see its arm64 C library (-nostdinc, then its own headers and
# /usr/include, the amd64 ones: bits/libc-header-start.h, in the amd64
# multiarch directory, is missing).
# build-fixtures.sh builds the cgo fixture alone (GOSTAP_FIXTURES=cgo) for
# Go 1.24 into a private cache ($tmp/cache, the Go toolchain of the real
# cache linked in and only read; its own GOCACHE):
#  - without --failed it exits 1 after listing the cgo build; with
#    --failed FILE it exits 0 and FILE (and failed-*.txt in the cache) has
#    the arm64cgo line with the compiler's error; go build's output is in
#    the .failed file beside the binaries; no temporary file is left;
#  - scripts written as the tests are (sourcing test-subr.sh): one that
#    needs the arm64cgo build (fixture) fails with one FAIL line naming it
#    and the reason; one that goes over the manifest (fixture_failures)
#    fails for it and still checks the cgo build; one that uses only the
#    cgo build passes; a test that failed a check and then skips fails;
#  - the next run, with the C library visible again, builds it (a failure
#    is not cached): listed, no failed line, no .failed file left.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v gcc >/dev/null || skip "no gcc (tools/deps.sh)"
command -v aarch64-linux-gnu-gcc >/dev/null ||
  skip "no aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu, tools/deps.sh)"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"
V=1.24
need_toolchains $V > "$tmp/toolchains"
read -r _ goroot < "$tmp/toolchains"
[ -x "$goroot/bin/go" ] || hard_error "no Go $V toolchain: $goroot"
# The private cache: the toolchain's directory of the real cache
# (go/1.24, holding usr/lib/go-1.24), linked, so that go-toolchains.sh
# finds it there and downloads nothing.
real_tc=${goroot%/usr/lib/go-"$V"}
mkdir -p "$tmp/cache/go"
ln -s "$real_tc" "$tmp/cache/go/$V"
export GOSTAP_TEST_CACHE=$tmp/cache GOSTAP_FIXTURES=cgo
gcc_inc=$(aarch64-linux-gnu-gcc -print-file-name=include)
broken_cc="aarch64-linux-gnu-gcc -nostdinc -isystem $gcc_inc -isystem /usr/include"

# check DESC CMD...: one check, CMD's status.
check () {
  local desc=$1
  shift
  checks=$((checks + 1))
  if "$@"; then echo "ok - $desc"; else fail "$desc"; fi
}

# --- build-fixtures.sh ---------------------------------------------------
st=0
ARM64_CC=$broken_cc "$testsuite/build-fixtures.sh" $V > "$tmp/m1" 2> "$tmp/e1" || st=$?
sed 's/^/# /' "$tmp/e1"
dir=$(dirname "$(awk 'NR == 1 { print $1 }' "$tmp/m1")")
check "without --failed: exit 1 ($st), the cgo build listed alone" \
  test "$st" = 1 -a "$(awk '{ print $3 }' "$tmp/m1")" = cgo
check "stderr: one line for the failed build, with the compiler's error" \
  test "$(grep -c . "$tmp/e1")" = 1 -a \
  "$(grep -c "go $V: building cgo (arm64cgo) failed: runtime/cgo: .*fatal error: [^ ]*\.h: No such file or directory" "$tmp/e1")" = 1
st=0
ARM64_CC=$broken_cc "$testsuite/build-fixtures.sh" --failed "$tmp/f2" $V > "$tmp/m2" 2> "$tmp/e2" || st=$?
check "with --failed: exit 0 ($st), the same manifest" cmp -s "$tmp/m1" "$tmp/m2"
check "with --failed: the failed line, the manifest's columns then the reason: $(cat "$tmp/f2")" \
  test "$(awk -v d="$dir" -v v=$V '$1 == d "/cgo-" v "-arm64cgo" && $2 == v && $3 == "arm64cgo" && $4 == "cgo" && $5 == "arm64" &&
          /fatal error: [^ ]*\.h: No such file or directory/' "$tmp/f2" | wc -l)" = 1 -a "$(wc -l < "$tmp/f2")" = 1
check "the cache: the failed list beside the manifest, go build's output in cgo-$V-arm64cgo.failed, no temporary" \
  sh -c 'cmp -s "$1/failed-$2-only-cgo.txt" "$3" && grep -q "^# runtime/cgo" "$1/cgo-$2-arm64cgo.failed" &&
         [ ! -e "$1/cgo-$2-arm64cgo" ] && [ -z "$(ls -A "$1" | grep -e "^\.tmp-" -e "\.tmp\.")" ]' _ "$dir" $V "$tmp/f2"

# --- tests that use it, and one that does not ---------------------------
# consumer NAME BODY: a test script sourcing test-subr.sh; its status, its
# stderr in $tmp/NAME.err.
consumer () {
  local st=0
  printf '. "%s/test-subr.sh"\n%s\nfinish\n' "$testsuite" "$2" > "$tmp/$1.sh"
  ARM64_CC=$broken_cc bash "$tmp/$1.sh" > "$tmp/$1.out" 2> "$tmp/$1.err" || st=$?
  sed "s/^/# $1: /" "$tmp/$1.out" "$tmp/$1.err"
  return "$st"
}
fail_lines () { grep '^FAIL: ' "$tmp/$1.err"; }
reason_re="^FAIL: fixture cgo, Go $V, variant arm64cgo \(arm64\) did not build: runtime/cgo: .*fatal error: [^ ]*\.h: No such file or directory"
st=0
consumer needs "fixture_manifest $V > /dev/null
bin=\$(fixture $V arm64cgo cgo)
echo \"used \$bin\"" || st=$?
check "a test that needs arm64cgo fails ($st), in one line: $(fail_lines needs)" \
  test "$st" = 1 -a "$(fail_lines needs | wc -l)" = 1 -a "$(grep -cE "$reason_re" "$tmp/needs.err")" = 1 -a ! -s "$tmp/needs.out"
st=0
consumer loop "fixture_manifest $V > \"\$tmp/manifest\"
fixture_failures
while read -r bin v variant fixture arch; do
  checks=\$((checks + 1))
  \"\$GOSTAP\" list --json \"\$bin\" 'main.*' > /dev/null && echo \"ok - \$variant\" || fail \"\$bin\"
done < \"\$tmp/manifest\"" || st=$?
check "a test over the manifest fails ($st) for arm64cgo, in one line, and checks the cgo build" \
  test "$st" = 1 -a "$(fail_lines loop | wc -l)" = 1 -a "$(grep -cE "$reason_re" "$tmp/loop.err")" = 1 -a \
  "$(grep -c '^ok - cgo$' "$tmp/loop.out")" = 1
st=0
consumer other "fixture_manifest $V > /dev/null
bin=\$(fixture $V cgo cgo)
checks=\$((checks + 1))
\"\$GOSTAP\" list --json \"\$bin\" 'main.*' > /dev/null && echo ok || fail \"\$bin\"" || st=$?
check "a test that uses only the cgo build passes ($st)" test "$st" = 0 -a -z "$(fail_lines other)"
st=0
consumer skips "fixture_manifest $V > /dev/null
fixture_failures
skip 'nothing else to check'" || st=$?
check "a test that failed a check and then skips fails ($st)" \
  test "$st" = 1 -a "$(grep -c '^FAIL: 1 failed checks, then: nothing else to check' "$tmp/skips.err")" = 1

# --- the next run tries again ---------------------------------------------
st=0
"$testsuite/build-fixtures.sh" --failed "$tmp/f3" $V > "$tmp/m3" 2> "$tmp/e3" || st=$?
check "the next run, the C library visible: arm64cgo built ($st), listed, no failed line, no .failed file" \
  test "$st" = 0 -a "$(awk '$3 == "arm64cgo" && $4 == "cgo"' "$tmp/m3" | wc -l)" = 1 -a ! -s "$tmp/f3" -a \
  ! -e "$dir/cgo-$V-arm64cgo.failed" -a -x "$dir/cgo-$V-arm64cgo"
finish
