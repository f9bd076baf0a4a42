#!/bin/bash
# `gostap list --json` over the whole fixture matrix, checked against
# independent tools by check-list.py (go version, go tool nm, objdump -d,
# objdump --dwarf=decodedline).
#
# The binaries: every fixture (testsuite/fixtures/{abi,grow,cgo}) built by
# build-fixtures.sh with every Go toolchain of go-toolchains.sh's matrix, in
# the variants default, w (-ldflags=-w), sw (-ldflags='-s -w'), pie
# (-buildmode=pie), arm64 (GOARCH=arm64) and, for the cgo fixture, cgo
# (CGO_ENABLED=1, externally linked), and arm64w and arm64sw (grow and
# stacks). The w and sw builds are checked against their unstripped twin,
# the default build of the same fixture and toolchain (arm64w and arm64sw:
# the arm64 build): -w and -s change no code, so the function tables must
# be identical.
#
# Environment: GOSTAP (the program under test; the Makefile sets it),
# GOSTAP_GO_VERSIONS (restrict the toolchains, e.g. "1.22 1.27"),
# GOSTAP_TEST_CACHE (where toolchains and binaries are cached).
# Exit: 0 pass, 1 some mismatch or a fixture that did not build, 77 skip
# (no toolchains, no objdump or python3), 99 hard error (a tool failed).
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
command -v objdump >/dev/null || skip "no objdump (binutils)"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"

versions=${GOSTAP_GO_VERSIONS:-}
# shellcheck disable=SC2086
need_toolchains $versions > "$tmp/toolchains"
# shellcheck disable=SC2086
matrix_manifest $versions > "$tmp/manifest"
fixture_failures

declare -A goroot
while read -r v root; do goroot[$v]=$root; done < "$tmp/toolchains"

# arm64 binaries need an objdump that knows AArch64.
arm64_objdump=yes
if ! command -v aarch64-linux-gnu-objdump >/dev/null &&
   ! objdump --help 2>/dev/null | grep -q 'supported targets:.*aarch64'; then
  arm64_objdump=no
  echo "# no objdump for aarch64 (binutils-aarch64-linux-gnu): arm64 binaries not checked"
fi

# default (and arm64) builds, the twins of w and sw (arm64w and arm64sw).
declare -A default_of
while read -r path v variant fixture goarch; do
  case $variant in default|arm64) default_of[$fixture-$v-$goarch]=$path ;; esac
done < "$tmp/manifest"

# Check the binaries, as many at a time as there are CPUs; each writes its
# TAP to $tmp/N.out and its exit status to $tmp/N.rc.
jobs_max=$(nproc 2>/dev/null || echo 2)
n=0
while read -r path v variant fixture goarch; do
  n=$((n + 1))
  echo "$path $v $variant $fixture $goarch" > "$tmp/$n.what"
  if [ "$goarch" = arm64 ] && [ "$arm64_objdump" = no ]; then
    echo 77 > "$tmp/$n.rc"; : > "$tmp/$n.out"; continue
  fi
  twin=()
  case $variant in
    w|sw|arm64w|arm64sw)
      [ -n "${default_of[$fixture-$v-$goarch]:-}" ] && twin=("${default_of[$fixture-$v-$goarch]}") ;;
  esac
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  ( rc=0
    python3 "$testsuite/check-list.py" "$path" "${goroot[$v]}" "$variant" "${twin[@]}" \
      > "$tmp/$n.out" 2>&1 || rc=$?
    echo "$rc" > "$tmp/$n.rc" ) &
done < "$tmp/manifest"
wait

binaries=0 functions=0 entries=0 rets=0 tails=0 bodies=0 lines=0 twins=0
mismatches=0 hard=0
count () { sed -n "s/^# counts:.* $1=\([0-9]*\).*/\1/p" "$2"; }
for i in $(seq 1 "$n"); do
  read -r path v variant fixture goarch < "$tmp/$i.what"
  rc=$(cat "$tmp/$i.rc")
  name="$(basename "$path") (go $v, $variant, $goarch)"
  if [ "$rc" = 77 ]; then echo "skip - $name"; continue; fi
  binaries=$((binaries + 1))
  f=$tmp/$i.out
  if ! grep -q '^# counts:' "$f"; then
    hard=$((hard + 1))
    echo "ERROR - $name: check-list.py exited $rc"; sed 's/^/  /' "$f"
    continue
  fi
  functions=$((functions + $(count functions "$f")))
  entries=$((entries + $(count entries "$f")))
  rets=$((rets + $(count rets "$f")))
  tails=$((tails + $(count tail_exits "$f")))
  bodies=$((bodies + $(count bodies "$f")))
  lines=$((lines + $(count lines "$f")))
  twins=$((twins + $(count twin "$f")))
  mm=$(count mismatches "$f")
  mismatches=$((mismatches + mm))
  checks=$((checks + 1))
  if [ "$rc" = 0 ]; then
    echo "ok - $name: $(sed -n 's/^# counts: //p' "$f")"
    grep -E '^# note' "$f" | sed 's/^/  /' || true
  else
    failures=$((failures + 1))
    echo "not ok - $name: $mm mismatches"
    grep -E '^(not ok|#   |# note)' "$f" | sed 's/^/  /'
  fi
done

echo "list-matrix: binaries=$binaries functions=$functions entries=$entries rets=$rets" \
     "mismatches=$mismatches tail_exits=$tails bodies=$bodies lines=$lines twin_functions=$twins"
[ "$hard" -eq 0 ] || hard_error "$hard binaries could not be checked"
[ "$binaries" -gt 0 ] || skip "no binary could be checked"
finish
