#!/bin/bash
# The facts of Go's allocator that tapsets/go_alloc.stp and
# examples/allocprofile.stp hold (the size classes, the largest small
# object, the tiny block, the page, the malloc header of Go 1.22+, the
# size-specialised entry points of Go 1.27), against the source of every
# Go release of the test matrix (go-toolchains.sh: Debian's golang-1.N-src):
# check-alloc-classes.py. What the allocator counts at run time is checked
# against the program's own runtime.MemProfile in the guest (run-e2e.sh,
# jobs allocs_*).
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

need_toolchains > "$tmp/toolchains"
checks=$((checks + 1))
if python3 "$testsuite/check-alloc-classes.py" "$top_srcdir/tapsets/go_alloc.stp" \
     "$top_srcdir/examples/allocprofile.stp" < "$tmp/toolchains" > "$tmp/out"; then
  echo "ok - $(grep -c '^ok' "$tmp/out") facts of Go's allocator equal each release's source ($(sed -n 's/^# counts: //p' "$tmp/out"))"
else
  grep '^not ok\|^#' "$tmp/out" | head -20
  fail "go_alloc.stp's facts differ from a release's source"
fi
finish
