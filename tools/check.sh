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
# The plain closing line CI reads.
awk '/^# (PASS|FAIL|XFAIL|SKIP|ERROR|XPASS):/ { n[$2] = $3 }
  END { printf "%d passed, %d failed, %d skipped\n", n["PASS:"] + n["XFAIL:"],
        n["FAIL:"] + n["ERROR:"] + n["XPASS:"], n["SKIP:"] }' test-suite.log
exit "$st"
