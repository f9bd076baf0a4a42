#!/bin/bash
# The value locations of `gostap list --json` checked at run time under gdb.
#
# For every Go toolchain of the matrix, the abi fixture
# (testsuite/fixtures/abi) in the variants default and pie (amd64; the arm64
# builds cannot run here) is run under `gdb -batch` by check-values.py:
# breakpoints at each main.* function's entry, body and every RET address
# that gostap reports, the parameters read at the body and the results at
# each RET from the pieces gostap gives (registers, stack at entry SP + 8),
# decoded by Go type and compared with the program's own CALL/RET lines.
#
# One line per binary:
#   values: go=1.22 variant=default calls=N params=N results=N mismatches=N skipped=N
# then a total. Mismatch details and notes (values the program prints that
# gostap does not give) follow each line, indented.
#
# Needs gdb built with Python (Debian: gdb) and python3. Environment:
# GOSTAP (the program under test; the Makefile sets it), GOSTAP_GO_VERSIONS
# (restrict the toolchains, e.g. "1.22 1.27"), GOSTAP_TEST_CACHE (where
# toolchains and binaries are cached), GDB (the debugger, default gdb).
# Exit: 0 pass, 1 some mismatch or a fixture that did not build, 77 skip
# (no usable gdb, no python3, no Go toolchain), 99 hard error (a checker
# run failed).
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

GDB=${GDB:-gdb}
command -v "$GDB" >/dev/null || skip "no gdb (Debian package gdb)"
command -v python3 >/dev/null || skip "no python3"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"
"$GDB" -nx -batch -ex 'python print("gdb-python-ok")' 2>/dev/null | grep -q gdb-python-ok ||
  skip "$GDB has no Python support"
# gdb needs ptrace: some containers forbid it.
if ! "$GDB" -nx -batch -ex run -ex 'info inferiors' --args /bin/true > "$tmp/gdbprobe" 2>&1 ||
   grep -qiE 'ptrace|operation not permitted|cannot (create|run)' "$tmp/gdbprobe"; then
  skip "gdb cannot run a program here: $(head -c 300 "$tmp/gdbprobe")"
fi

versions=${GOSTAP_GO_VERSIONS:-}
# shellcheck disable=SC2086
need_toolchains $versions > "$tmp/toolchains"
# shellcheck disable=SC2086
fixture_manifest $versions > "$tmp/manifest"
fixture_failures '$4 == "abi" && $5 == "amd64" && $3 ~ /^(default|pie)$/'

# Check the binaries, as many at a time as there are CPUs (each gdb run takes
# well under a second).
jobs_max=$(nproc 2>/dev/null || echo 2)
n=0
while read -r path v variant fixture goarch; do
  case $fixture/$goarch/$variant in abi/amd64/default|abi/amd64/pie) ;; *) continue ;; esac
  n=$((n + 1))
  echo "$v $variant" > "$tmp/$n.what"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  ( rc=0
    timeout 150 python3 "$testsuite/check-values.py" --gostap "$GOSTAP" --gdb "$GDB" \
      --label "go=$v variant=$variant" "$path" > "$tmp/$n.out" 2>&1 || rc=$?
    echo "$rc" > "$tmp/$n.rc" ) &
done < "$tmp/manifest"
wait
[ "$n" -gt 0 ] || skip "no amd64 default or pie build of the abi fixture"

binaries=0 calls=0 params=0 results=0 mismatches=0 skipped=0 hard=0
count () { sed -n "s/^# counts:.* $1=\([0-9]*\).*/\1/p" "$2"; }
for i in $(seq 1 "$n"); do
  read -r v variant < "$tmp/$i.what"
  rc=$(cat "$tmp/$i.rc")
  f=$tmp/$i.out
  if ! grep -q '^# counts: ' "$f"; then
    hard=$((hard + 1))
    echo "values: go=$v variant=$variant ERROR: check-values.py exited $rc"
    sed 's/^/  /' "$f"
    continue
  fi
  binaries=$((binaries + 1))
  checks=$((checks + 1))
  echo "values: go=$v variant=$variant $(sed -n 's/^# counts: //p' "$f")"
  grep -v '^# counts: ' "$f" | sed 's/^/  /'
  calls=$((calls + $(count calls "$f")))
  params=$((params + $(count params "$f")))
  results=$((results + $(count results "$f")))
  mismatches=$((mismatches + $(count mismatches "$f")))
  skipped=$((skipped + $(count skipped "$f")))
  if [ "$rc" != 0 ]; then
    fail "go=$v variant=$variant: $(count mismatches "$f") mismatches"
  fi
done

echo "values: total binaries=$binaries calls=$calls params=$params results=$results" \
     "mismatches=$mismatches skipped=$skipped"
[ "$hard" -eq 0 ] || hard_error "$hard binaries could not be checked"
finish
