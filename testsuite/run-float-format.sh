#!/bin/bash
# The float formatting of tapsets/go_float.stp against Go itself.
#
# The C between the "BEGIN go_float core" and "END go_float core" lines of
# the tapset (what runs in the kernel) is extracted and compiled in user
# space twice, -O2 and with ASan/UBSan, with float-format/harness.c. Go
# 1.27 (go-toolchains.sh) builds float-format/gen.go, which writes the
# cases: the special values of binary64 and binary32 (zeros, infinities,
# NaNs with several payloads, extreme subnormals and normals), every power
# of two and its neighbours, every power of ten in range and its
# neighbours, decimal boundaries (1e21, 1e-5, 999999.9999...), ties
# (2251799813685247.75), small integers and tenths, 1 000 000 random bit
# patterns of each size, 100 000 random short decimals of each size with
# their successors, and complex pairs. The harness formats them; gen.go
# check compares every string byte for byte with strconv.FormatFloat(x,
# 'g', -1, 64|32) and fmt's %v (complex numbers: fmt's %v), and parses it
# back (strconv.ParseFloat, ParseComplex): the bits must come back. One
# summary line a kind:
#   ok - f64 (-O2): 1222797 values, 1222797 equal to Go's strconv.FormatFloat, 0 mismatches, ...
#
# Also: the core alone compiles freestanding, with general registers only
# where the compiler can say so (no float code), calls no library function,
# has no float or double in it, and no frame above 1 KiB (its frame sizes
# are printed); a check that gen.go check does report a wrong string; and
# with the host's
# SystemTap (stap-env.sh; skipped here when there is none) a script
# calling the four functions passes stap -p2, also --unprivileged, and
# -p3 gives C with the core and the functions. The cost of a call (its
# target: under 100 us) is a benchmark, bench/float-cost.sh (T8), not a
# check here: a timing on a shared machine is no pass or fail.
#
# Environment: CC (default cc), GOSTAP_FLOAT_SEED (the random seed, default
# 20260516; printed), GOSTAP_TEST_CACHE (toolchains, Go's build cache).
# Exit: 0 pass, 1 some mismatch or failed check, 77 skip (no C compiler,
# no Go toolchain to be had), 99 hard error (a build failed).
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
seed=${GOSTAP_FLOAT_SEED:-20260516}
case $seed in ''|*[!0-9]*) hard_error "GOSTAP_FLOAT_SEED must be a number: '$seed'" ;; esac
echo "# seed $seed (GOSTAP_FLOAT_SEED)"
cache=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
src=$testsuite/float-format

# The core.
core=$tmp/go_float_core.h
sed -n '/BEGIN go_float core/,/END go_float core/p' "$top_srcdir/tapsets/go_float.stp" > "$core"
[ "$(grep -c 'go_float core \*/' "$core")" = 2 ] ||
  hard_error "tapsets/go_float.stp has no BEGIN/END go_float core lines"
checks=$((checks + 1))
# Preprocessed (comments gone): no floating-point type.
if ! "$CC" -E -P -x c "$core" > "$tmp/core.i" 2> "$tmp/cpp.err"; then
  fail "preprocessing the core: $(head -3 "$tmp/cpp.err")"
elif grep -nwE 'float|double|_Float[0-9]+|_Complex' "$tmp/core.i" > "$tmp/fp"; then
  fail "the core has floating-point code: $(head -3 "$tmp/fp")"
else
  echo "ok - the core ($(wc -l < "$core") lines) names no floating-point type"
fi

# Freestanding, as in the kernel: no library call but memcpy/memset, no
# floating-point register where the compiler can forbid them, no frame
# above 1 KiB.
cat > "$tmp/core.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
#include "go_float_core.h"
size_t go_fmt_float (char *out, size_t size, uint64_t bits, int bits32);
size_t go_fmt_complex (char *out, size_t size, uint64_t re, uint64_t im, int bits32);
size_t go_fmt_float (char *out, size_t size, uint64_t bits, int bits32)
{ return _go_fmt_float (out, size, bits, bits32); }
size_t go_fmt_complex (char *out, size_t size, uint64_t re, uint64_t im, int bits32)
{ return _go_fmt_complex (out, size, re, im, bits32); }
EOF
kflags=(-std=c11 -O2 -ffreestanding -fno-builtin -Wall -Wextra -Werror
        -Wdeclaration-after-statement -Wvla -Wframe-larger-than=1024 -fstack-usage)
if echo 'int x;' | "$CC" -mgeneral-regs-only -x c -c -o /dev/null - 2>/dev/null; then
  kflags+=(-mgeneral-regs-only)
fi
checks=$((checks + 1))
if ! (cd "$tmp" && "$CC" "${kflags[@]}" -I"$tmp" -c core.c -o core.o) 2> "$tmp/cc.err"; then
  fail "the core does not compile freestanding (${kflags[*]}): $(head -5 "$tmp/cc.err")"
else
  undef=$(nm -u "$tmp/core.o" | awk '{ print $NF }' |
          grep -vxE 'memcpy|memset|memmove|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_' || true)
  frames=$(grep -E '_go_|go_fmt' "$tmp/core.su" |
           awk -F'\t' '{ n = split($1, a, ":"); printf "%s %s, ", a[n], $2 }')
  if [ -n "$undef" ]; then
    fail "the core calls library functions: $undef"
  else
    echo "ok - the core compiles freestanding (${kflags[*]}), calls no library function"
    echo "# stack frames (bytes): ${frames%, }"
  fi
fi

# The harness, plain and with sanitizers.
cflags=(-std=c11 -Wall -Wextra -Werror -I"$tmp")
"$CC" "${cflags[@]}" -O2 -o "$tmp/harness" "$src/harness.c" 2> "$tmp/cc.err" ||
  hard_error "cannot build harness.c: $(head -5 "$tmp/cc.err")"
harness_asan=
if "$CC" "${cflags[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
     -o "$tmp/harness-asan" "$src/harness.c" 2> "$tmp/cc-asan.err" &&
   echo 'end 0' | "$tmp/harness-asan" > /dev/null 2>&1; then
  harness_asan=$tmp/harness-asan
else
  echo "# no ASan/UBSan build here: $(head -1 "$tmp/cc-asan.err")"
fi

# Go.
command -v apt-get >/dev/null 2>&1 || [ -x "$cache/go/1.27/usr/lib/go-1.27/bin/go" ] ||
  skip "no Go toolchain: go-toolchains.sh takes it from Debian's archive (no apt-get here)"
read -r _ goroot < <(need_toolchains 1.27)
[ -x "$goroot/bin/go" ] || hard_error "go-toolchains.sh gave no Go 1.27"
( cd "$src" &&
  env GOROOT="$goroot" GOPATH="$cache/gopath" GOCACHE="$cache/gocache" GOENV=off GOFLAGS= \
    GO111MODULE=off GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=0 \
    "$goroot/bin/go" build -o "$tmp/gen" gen.go ) > "$tmp/go.err" 2>&1 ||
  hard_error "go build gen.go: $(head -5 "$tmp/go.err")"

# The cases, once.
"$tmp/gen" gen -seed "$seed" > "$tmp/cases" || hard_error "gen.go gen failed"

# compare LABEL HARNESS: the cases through HARNESS, checked by Go; one
# line a kind, then the total.
compare () {
  local label=$1 h=$2 st=0 kind rest values equal parsed
  { hst=0; "$h" < "$tmp/cases" 2> "$tmp/harness.err" || hst=$?; echo "$hst" > "$tmp/harness.rc"; } |
    "$tmp/gen" check > "$tmp/check.out" 2>&1 || st=$?
  checks=$((checks + 1))
  if [ "$(cat "$tmp/harness.rc")" != 0 ]; then
    fail "$label: the harness exited $(cat "$tmp/harness.rc"): $(tail -3 "$tmp/harness.err")"
    return
  fi
  # "# f64: N values, N equal to Go's ..., 0 mismatches, N parse back"
  while read -r _ kind rest; do
    case $kind in f64:|f32:|c128:|c64:) ;; *) continue ;; esac
    values=${rest%% values,*}
    equal=$(echo "$rest" | sed -n 's/^[0-9]* values, \([0-9]*\) equal.*/\1/p')
    parsed=$(echo "$rest" | sed -n 's/.* \([0-9]*\) parse back$/\1/p')
    checks=$((checks + 1))
    if [ "$values" -gt 0 ] && [ "$equal" = "$values" ] && [ "$parsed" = "$values" ]; then
      echo "ok - ${kind%:} ($label): $rest"
    else
      fail "${kind%:} ($label): $rest"
    fi
  done < "$tmp/check.out"
  if [ "$st" != 0 ]; then
    fail "$label: gen.go check found problems (exit $st): $(grep '^# total' "$tmp/check.out")"
    grep -v '^# ' "$tmp/check.out" | head -30 >&2
  else
    echo "ok - $label: $(sed -n 's/^# total: //p' "$tmp/check.out")"
  fi
  # The big integers never reach their capacity (the core's comment
  # derives 35 words at most).
  read -r _ words _ cap < <(grep '^maxwords ' "$tmp/harness.err" || echo "maxwords ? of ?")
  checks=$((checks + 1))
  if [ "$words" != "?" ] && [ "$words" -lt "$cap" ]; then
    echo "ok - $label: big integers used at most $words of their $cap words"
  else
    fail "$label: big integers used $words of $cap words"
  fi
}
compare "-O2" "$tmp/harness"
[ -z "$harness_asan" ] || compare "ASan+UBSan" "$harness_asan"

# The checker must see a wrong string: 1.0 for 1, 0.1 printed with the
# digits of float32(0.1)'s float64 value.
checks=$((checks + 1))
printf '%s\n' 'f64 3ff0000000000000 1.0' 'f32 3dcccccd 0.10000000149011612' \
  'f64 3ff0000000000000 1' 'end 3' > "$tmp/wrong"
st=0
"$tmp/gen" check < "$tmp/wrong" > "$tmp/wrong.out" 2>&1 || st=$?
if [ "$st" = 1 ] && grep -q '^# total: 3 lines, 2 problems' "$tmp/wrong.out"; then
  echo "ok - gen.go check reports wrong strings (2 of 3)"
else
  fail "gen.go check did not report 2 wrong strings (exit $st): $(cat "$tmp/wrong.out")"
fi

# The translator: the tapset elaborates, its functions are callable from
# unprivileged scripts, and the C of pass 3 has them.
st=0
envsh=$("$testsuite/stap-env.sh" 2> "$tmp/stap-env.err") || st=$?
if [ "$st" = 77 ]; then
  echo "# SKIP stap -p2/-p3: $(head -1 "$tmp/stap-env.err")"
elif [ "$st" != 0 ]; then
  checks=$((checks + 1))
  fail "stap-env.sh failed ($st): $(head -3 "$tmp/stap-env.err")"
else
  eval "$envsh"
  body='println(go_float64_str(0x400921fb54442d18), " ", go_float32_str(0x3dcccccd))
    println(go_complex128_str(0x3ff0000000000000, 0xc000000000000000), " ",
            go_complex64_str(0x3f800000, 0x7fc00000))'
  checks=$((checks + 1))
  if $STAP -p2 -I "$top_srcdir/tapsets" -e "probe begin { $body exit() }" \
       > "$tmp/p2" 2> "$tmp/p2.err" &&
     [ "$(grep -cE '^go_(float(64|32)|complex(128|64))_str:string ' "$tmp/p2")" = 4 ]; then
    echo "ok - stap -p2: a script calling the four functions elaborates"
  else
    fail "stap -p2: $(grep -v '^Tip:' "$tmp/p2.err" | head -5)"
  fi
  checks=$((checks + 1))
  if $STAP --unprivileged -p2 -I "$top_srcdir/tapsets" \
       -e "probe process(\"/bin/sh\").begin { $body }" > /dev/null 2> "$tmp/p2u.err"; then
    echo "ok - stap --unprivileged -p2: the functions are callable without privilege"
  else
    fail "stap --unprivileged -p2: $(grep -v '^Tip:' "$tmp/p2u.err" | head -5)"
  fi
  checks=$((checks + 1))
  if $STAP -p3 -I "$top_srcdir/tapsets" -e "probe begin { $body exit() }" \
       > "$tmp/p3.c" 2> "$tmp/p3.err"; then
    missing=
    for want in 'BEGIN go_float core' 'static size_t _go_fmt_float(' \
                'static size_t _go_fmt_complex(' go_float64_str go_float32_str \
                go_complex128_str go_complex64_str; do
      grep -qF -- "$want" "$tmp/p3.c" || missing="$missing '$want'"
    done
    if [ -z "$missing" ]; then
      echo "ok - stap -p3: the generated C ($(wc -l < "$tmp/p3.c") lines) has the core and the four functions"
    else
      fail "stap -p3: the generated C lacks$missing"
    fi
  else
    fail "stap -p3: $(grep -v '^Tip:' "$tmp/p3.err" | head -5)"
  fi
fi

finish
