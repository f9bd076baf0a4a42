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
../configure -q --enable-werror --enable-sanitizers
make -s -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
st=0
make -s check -j"$(nproc)" || st=$?
# Each test's own summary line, then the harness totals.
grep -h -E '^(run-[a-z-]+\.sh: |list-matrix: )' testsuite/*.log 2>/dev/null || true
if [ "$st" -ne 0 ]; then
  cat test-suite.log
fi

pass=0 failed=0
# memcheck needs a build without sanitizers: a second, plain build runs
# testsuite/run-valgrind.sh (which the ASan build above skips).
mkdir -p plain
if (cd plain && ../../configure -q --enable-werror && make -s -j"$(nproc)" &&
    make -s check TESTS=testsuite/run-valgrind.sh) >valgrind.log 2>&1 &&
   grep -q '^PASS: testsuite/run-valgrind.sh' plain/test-suite.log; then
  echo "PASS: valgrind memcheck (plain build)"; pass=$((pass + 1))
  grep -h '^run-valgrind.sh: ' plain/testsuite/run-valgrind.log || true
else
  echo "FAIL: valgrind memcheck (plain build)"; tail -30 valgrind.log
  cat plain/testsuite/run-valgrind.log 2>/dev/null | tail -30; failed=$((failed + 1)); st=1
fi

# Packaging: the release tarball builds, installs and passes a smoke test
# (make distcheck), and an RPM builds from it (rpmbuild from Debian's rpm;
# --nodeps: the BuildRequires name RHEL's packages).
if make -s distcheck TESTS=testsuite/run-version.sh >distcheck.log 2>&1; then
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

# The plain closing line CI reads.
awk -v p="$pass" -v f="$failed" '/^# (PASS|FAIL|XFAIL|SKIP|ERROR|XPASS):/ { n[$2] = $3 }
  END { printf "%d passed, %d failed, %d skipped\n", n["PASS:"] + n["XFAIL:"] + p,
        n["FAIL:"] + n["ERROR:"] + n["XPASS:"] + f, n["SKIP:"] }' test-suite.log
exit "$st"
