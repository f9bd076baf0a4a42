#!/bin/bash
# Quick start, command 2 (and CI): install what is needed, build gostap with
# -Werror, ASan and UBSan in _build/, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh test
autoreconf -fi >/dev/null 2>&1
# An in-tree configuration would stop the out-of-tree build below.
if [ -f config.status ]; then make -s distclean >/dev/null 2>&1 || true; fi
rm -rf _build
mkdir _build
cd _build
# A plain build (no sanitizers) first, in _build/plain: the tests that run
# valgrind or measure memory use it (GOSTAP_PLAIN, see testsuite/test-subr.sh).
mkdir plain
(cd plain && ../../configure -q --enable-werror && make -s -j"$(nproc)")
export GOSTAP_PLAIN=$PWD/plain/src/gostap
../configure -q --enable-werror --enable-sanitizers
make -s -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
# The end-to-end guests this run boots: one by turns, trixie, bookworm,
# forky or arm64 (testsuite/e2e/guests.sh), unless GOSTAP_E2E says
# otherwise (GOSTAP_E2E=all: the long run, all four; bullseye by name).
chosen=$(../testsuite/e2e/guests.sh)
{ read -r guests; read -r why; } <<< "$chosen"
n_guests=$(wc -w <<< "$guests")
echo "e2e guests: $guests ($why)"
echo "matrix fixtures: $(../testsuite/matrix.sh why)"
# How long each test took (testsuite/timed.sh), printed at the end and
# when the run is stopped (a CI time limit): which tests were running.
export GOSTAP_TIMES=$PWD/test-times
: > "$GOSTAP_TIMES"
print_times () { echo "test times:"; ../testsuite/times.sh "$GOSTAP_TIMES"; }
# failed_checks: the failed checks of the failed tests, last in the output
# (a log shown with its middle cut still shows them).
failed_checks () {
  grep -h -E '^(FAIL[:-] |not ok )' testsuite/*.log 2>/dev/null | cut -c1-400 | tail -40 || true
}
trap 'print_times; failed_checks; exit 143' TERM INT
# One slot more per guest beyond the first: a guest's test waits on the
# other guests' locks or runs one TCG thread for most of its time.
st=0
make -s check -j"$(( $(nproc) + n_guests - 1 ))" || st=$?
print_times
# Each test's own summary line, then the harness totals; a skipped test's
# reason.
grep -h -E '^(run-[a-z-]+\.sh: |list-matrix: )' testsuite/*.log 2>/dev/null || true
grep -H '^SKIP: ' testsuite/run-*.log 2>/dev/null | sed 's|^testsuite/\(run-[a-z0-9-]*\.sh\)\.log:SKIP: |\1 skipped: |' || true
if [ "$st" -ne 0 ]; then
  cat test-suite.log
fi

pass=0 failed=0

# Packaging: the release tarball builds, installs and passes a smoke test
# (make distcheck), and an RPM builds from it (rpmbuild from Debian's rpm;
# --nodeps: the BuildRequires name RHEL's packages).
if make -s distcheck TESTS="testsuite/run-version.sh testsuite/run-golden.sh" >distcheck.log 2>&1; then
  echo "PASS: make distcheck"; pass=$((pass + 1))
else
  echo "FAIL: make distcheck"; tail -20 distcheck.log; failed=$((failed + 1)); st=1
fi
rm -rf rpmtop
if rpmbuild -tb --nodeps --define "_topdir $PWD/rpmtop" gostap-*.tar.gz >rpmbuild.log 2>&1 &&
   ls rpmtop/RPMS/*/gostap-*.rpm >/dev/null 2>&1; then
  echo "PASS: rpmbuild -tb"; pass=$((pass + 1))
else
  echo "FAIL: rpmbuild -tb"; tail -20 rpmbuild.log; failed=$((failed + 1)); st=1
fi

# The failed checks of the failed tests once more, last: a log shown
# with its middle cut still shows them.
if [ "$st" -ne 0 ]; then
  failed_checks
fi

# The plain closing line CI reads.
awk -v p="$pass" -v f="$failed" '/^# (PASS|FAIL|XFAIL|SKIP|ERROR|XPASS):/ { n[$2] = $3 }
  END { printf "%d passed, %d failed, %d skipped\n", n["PASS:"] + n["XFAIL:"] + p,
        n["FAIL:"] + n["ERROR:"] + n["XPASS:"] + f, n["SKIP:"] }' test-suite.log
exit "$st"
