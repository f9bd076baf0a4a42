#!/bin/bash
# Fuzz the reader and writers for about two minutes with libFuzzer, ASan and
# UBSan (fuzz/fuzz-reader.c, built by fuzz/build.sh with clang), after
# replaying every saved crasher of testsuite/regressions/*.bin through the
# harness and through $GOSTAP (list --json, gen). Fails on any crash, leak,
# UBSan report, timeout or out-of-memory; skips (77) when clang cannot build
# a libFuzzer program here (Debian: clang libclang-rt-14-dev).
#
# Seeds: small ELF files that make-seeds.py cuts out of fixture binaries
# (a few functions, a rebuilt pclntab, 20-40 KB), fuzzed with -max_len=64K;
# then a shorter run on whole fixture binaries (DWARF, .symtab) with a
# larger -max_len. Corpora and crashers live in the test cache:
#   $CACHE/fuzz/corpus     grows from run to run (small inputs)
#   $CACHE/fuzz/crashers/  crash-*, leak-*, timeout-*, oom-*
# (the corpus of whole binaries grows by megabytes a second: it stays in $tmp)
# A new crasher: minimize it (fuzz/README.md), copy it to
# testsuite/regressions/NAME.bin and describe it in testsuite/regressions/README.md.
# Environment: FUZZ_SECONDS (default 90) and FUZZ_FULL_SECONDS (default 25).
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
st=0
fuzzer=$("$top_srcdir/fuzz/build.sh" 2>"$tmp/build.log") || st=$?
if [ "$st" = 77 ]; then skip "$(tail -2 "$tmp/build.log" | tr '\n' ' ')"; fi
[ "$st" = 0 ] || { cat "$tmp/build.log" >&2; hard_error "fuzz/build.sh failed ($st)"; }

fz=$CACHE/fuzz
mkdir -p "$fz/seeds" "$fz/corpus" "$fz/crashers" "$tmp/corpus-full"

# 1. Saved crashers: the harness and the program must survive them all.
shopt -s nullglob
regs=("$testsuite"/regressions/*.bin)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for r in "${regs[@]}"; do
  checks=$((checks + 1))
  if "$fuzzer" -runs=1 "$r" >"$tmp/replay" 2>&1; then
    echo "ok - replay (harness) ${r##*/}"
  else
    fail "replay (harness) ${r##*/}: $(grep -m3 -E 'runtime error|ERROR|SUMMARY' "$tmp/replay" | tr '\n' ' ')"
  fi
  for cmd in list gen; do
    checks=$((checks + 1))
    rm -rf "$tmp/gen"
    s=0
    if [ $cmd = list ]; then
      timeout 60 "$GOSTAP" list --json "$r" >/dev/null 2>"$tmp/err" || s=$?
    else
      # (a companion debug file gen writes goes to this test's cache)
      timeout 60 env XDG_CACHE_HOME="$tmp/xdg" "$GOSTAP" gen "$r" -o "$tmp/gen" >/dev/null 2>"$tmp/err" || s=$?
    fi
    if [ "$s" -gt 2 ] || grep -qE 'runtime error|Sanitizer' "$tmp/err"; then
      fail "replay ($cmd) ${r##*/}: exit $s: $(grep -m3 -E 'runtime error|ERROR|SUMMARY|#[0-3] ' "$tmp/err" | tr '\n' ' ')"
    else
      echo "ok - replay ($cmd) ${r##*/}: exit $s"
    fi
  done
done

# 2. Seeds from the fixtures (made once per fixture set).
fixture_manifest > /dev/null
srcs=()
for spec in "1.19 w grow" "1.21 sw grow" "1.22 default abi" "1.24 default grow" \
            "1.26 sw grow" "1.27 arm64 grow" "1.27 default abi"; do
  # shellcheck disable=SC2086
  p=$(fixture $spec); [ -n "$p" ] && srcs+=("$p")
done
[ "${#srcs[@]}" -gt 0 ] || hard_error "no fixtures for the seeds"
stamp=$(printf '%s\n' "${srcs[@]}" "$(sha256sum < "$top_srcdir/fuzz/make-seeds.py")" | sha256sum | cut -c1-16)
if [ "$(cat "$fz/seeds.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$fz/seeds"; mkdir -p "$fz/seeds"
  python3 "$top_srcdir/fuzz/make-seeds.py" "$fz/seeds" "${srcs[@]}" ||
    hard_error "make-seeds.py failed"
  echo "$stamp" > "$fz/seeds.stamp"
fi
# Whole binaries: the smallest one with DWARF and .symtab, and a stripped one.
full_seeds=$tmp/full-seeds
mkdir "$full_seeds"
grow121=$(fixture 1.21 default grow)
grow121sw=$(fixture 1.21 sw grow)
cp "$grow121" "$grow121sw" "$full_seeds/" 2>/dev/null || hard_error "no 1.21 grow fixtures"

# 3. Fuzz. libFuzzer exits non-zero on a crash, leak, timeout or OOM.
fuzz () {   # fuzz NAME SECONDS MAXLEN CORPUS SEEDS
  local name=$1 secs=$2 maxlen=$3 corpus=$4 seeds=$5 s=0
  checks=$((checks + 1))
  "$fuzzer" -max_total_time="$secs" -max_len="$maxlen" -timeout=30 \
    -rss_limit_mb=2560 -malloc_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$fz/crashers/" "$corpus" "$seeds" >"$tmp/fuzz-$name.log" 2>&1 || s=$?
  local execs cov
  execs=$(awk -F: '/stat::number_of_executed_units/ { gsub(/ /, "", $NF); print $NF }' "$tmp/fuzz-$name.log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' "$tmp/fuzz-$name.log" | tail -1)
  if [ "$s" = 0 ]; then
    echo "ok - fuzz $name: ${secs}s, ${execs:-?} executions, $cov"
  else
    fail "fuzz $name: exit $s after ${execs:-?} executions ($cov):"
    grep -E -A12 '^==[0-9]+==ERROR|runtime error|^SUMMARY|Test unit written' "$tmp/fuzz-$name.log" | head -40 >&2
  fi
}
fuzz small "${FUZZ_SECONDS:-90}" 65536 "$fz/corpus" "$fz/seeds"
fuzz full "${FUZZ_FULL_SECONDS:-25}" 2200000 "$tmp/corpus-full" "$full_seeds"
echo "# crashers, if any, are in $fz/crashers/"
finish
