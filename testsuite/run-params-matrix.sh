#!/bin/bash
# The parameter locations of `gostap list --json` ("params": computed from
# the DWARF types with Go's ABIInternal assignment algorithm) checked against
# the locations Go's compiler itself writes into DWARF, read by
# llvm-dwarfdump, over the whole fixture matrix: check-params.py on every
# binary with DWARF (variants default, pie, arm64, cgo) of every Go toolchain
# of go-toolchains.sh's matrix, every function of each.
#
# Prints one line per Go version and architecture,
#   params-matrix: go=1.22 arch=amd64 functions=N params=N mismatches=N skipped=...
# and a total line; fails on any mismatch.
#
# Environment: GOSTAP (the program under test; the Makefile sets it),
# GOSTAP_GO_VERSIONS (restrict the toolchains, e.g. "1.22 1.27"),
# GOSTAP_TEST_CACHE (where toolchains and binaries are cached),
# LLVM_DWARFDUMP (the llvm-dwarfdump to use; Debian package llvm-14 or later).
# Exit: 0 pass, 1 some mismatch or a fixture that did not build, 77 skip
# (no toolchains, no python3 or no llvm-dwarfdump), 99 hard error (a tool
# failed).
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"
if [ -z "${LLVM_DWARFDUMP:-}" ]; then
  LLVM_DWARFDUMP=$(command -v llvm-dwarfdump ||
    compgen -c llvm-dwarfdump- | sort -t- -k3 -n | tail -1) || true
fi
if [ -z "$LLVM_DWARFDUMP" ] || ! command -v "$LLVM_DWARFDUMP" >/dev/null; then
  skip "no llvm-dwarfdump (Debian: llvm-14)"
fi
export LLVM_DWARFDUMP

versions=${GOSTAP_GO_VERSIONS:-}
# shellcheck disable=SC2086
need_toolchains $versions > "$tmp/toolchains"
# shellcheck disable=SC2086
matrix_manifest $versions > "$tmp/manifest"
fixture_failures '$3 ~ /^(default|pie|arm64|cgo)$/ && $4 != "http"'

# Check the binaries, as many at a time as there are CPUs; each writes its
# output to $tmp/N.out and its exit status to $tmp/N.rc.
jobs_max=$(nproc 2>/dev/null || echo 2)
n=0
while read -r path v variant fixture goarch; do
  case $variant in default|pie|arm64|cgo) ;; *) continue ;; esac
  # The http fixture (net/http, crypto/tls: 4-7 thousand functions) is the
  # e2e test's: its few mismatches here are Go's DWARF and this checker,
  # not gostap (unicode/utf8.Valid and math/big.nat.expNNMontgomery, whose
  # DWARF gives one register to two pieces; parameter names such as ρ that
  # llvm-dwarfdump escapes). It found the blank-parameter shift of Go
  # 1.19-1.21 (read-params.c, dwarf_agrees), now refused and in the golden
  # listing of grow-1.19 (runtime.(*pallocData).findScavengeCandidate).
  [ "$fixture" = http ] && continue
  n=$((n + 1))
  echo "$path $v $variant $fixture $goarch" > "$tmp/$n.what"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  ( rc=0
    python3 "$testsuite/check-params.py" "$path" > "$tmp/$n.out" 2>&1 || rc=$?
    echo "$rc" > "$tmp/$n.rc" ) &
done < "$tmp/manifest"
wait
[ "$n" -gt 0 ] || skip "no fixture binary with DWARF"

# The counters of check-params.py's "# counts:" line, summed per Go
# version and architecture and in total.
keys="functions params mismatches partial skip_params_error skip_no_location
skip_reg_clash reg_clash_functions skip_dead_reg_param skip_dwarf_bad_pieces
skip_unsupported_expr zero_size no_dwarf_function stack_params abi0_params
wrappers_checked"
declare -A sum
groups=()
hard=0 binaries=0
for i in $(seq 1 "$n"); do
  read -r path v variant fixture goarch < "$tmp/$i.what"
  rc=$(cat "$tmp/$i.rc")
  f=$tmp/$i.out
  name="$(basename "$path") (go $v, $variant, $goarch)"
  if [ "$rc" = 77 ]; then
    skip "check-params.py: $(grep -m1 '^Bail out!' "$f")"
  fi
  if ! grep -q '^# counts:' "$f"; then
    hard=$((hard + 1))
    echo "ERROR - $name: check-params.py exited $rc"; sed 's/^/  /' "$f"
    continue
  fi
  binaries=$((binaries + 1))
  g="$v $goarch"
  [ -n "${sum[$g functions]:-}" ] || groups+=("$g")
  for k in $keys; do
    val=$(sed -n "s/^# counts:.* $k=\([0-9]*\).*/\1/p" "$f")
    sum[$g $k]=$(( ${sum[$g $k]:-0} + ${val:-0} ))
    sum[total $k]=$(( ${sum[total $k]:-0} + ${val:-0} ))
  done
  checks=$((checks + 1))
  if [ "$rc" = 0 ]; then
    echo "ok - $name: $(sed -n 's/^# counts: //p' "$f")"
  else
    failures=$((failures + 1))
    echo "not ok - $name: $(sed -n 's/^# counts: //p' "$f")"
    grep -E '^not ok' "$f" | head -20 | sed 's/^/  /'
  fi
  # Notes (DWARF this checker skips as self-contradictory): a few per binary.
  grep -E '^# note' "$f" | head -3 | cut -c1-300 | sed 's/^/  /' || true
done

line () {  # line GROUP LABEL
  local g=$1 skipped
  skipped="params_error=${sum[$g skip_params_error]}"
  skipped+=" no_location=${sum[$g skip_no_location]}"
  skipped+=" reg_clash=${sum[$g skip_reg_clash]}"
  skipped+=" dead_reg_param=${sum[$g skip_dead_reg_param]}"
  skipped+=" dwarf_bad_pieces=${sum[$g skip_dwarf_bad_pieces]}"
  skipped+=" unsupported_expr=${sum[$g skip_unsupported_expr]}"
  echo "params-matrix: $2 functions=${sum[$g functions]} params=${sum[$g params]}" \
       "mismatches=${sum[$g mismatches]} partial=${sum[$g partial]}" \
       "skipped: $skipped (stack_params=${sum[$g stack_params]}" \
       "abi0_params=${sum[$g abi0_params]} wrappers_checked=${sum[$g wrappers_checked]}" \
       "reg_clash_functions=${sum[$g reg_clash_functions]}" \
       "no_dwarf_function=${sum[$g no_dwarf_function]})"
}
for g in "${groups[@]}"; do
  line "$g" "go=${g% *} arch=${g#* }"
done
[ "$binaries" -eq 0 ] || line total "total binaries=$binaries"

[ "$hard" -eq 0 ] || hard_error "$hard binaries could not be checked"
[ "$binaries" -gt 0 ] || skip "no binary could be checked"
finish
