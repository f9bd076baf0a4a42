#!/bin/bash
# `gostap types` (read-types.c: Go's runtime type descriptors) checked
# against reflect in the program itself, on the kinds fixture
# (testsuite/fixtures/kinds, built by build-fixtures.sh) of every Go
# release of go-toolchains.sh's matrix (1.19 to 1.27): each amd64 build (default, -w, -s -w) is run, and every type it
# prints through reflect (descriptor address, kind, size, alignment, names,
# package path, element, key, length, channel direction, method and
# parameter counts, every struct field's name, type, offset and embedding)
# must be in `gostap types --json` of the same binary, alike
# (check-types.py).  The PIE build is run too and compared by type string
# (gostap gives link-time addresses, reflect the loaded ones).  The arm64
# build cannot run here: gostap's reading of it is compared with the amd64
# default run by type string (sizes, offsets, names: what does not depend
# on the address).
# Every DWARF type's runtime descriptor (DW_AT_go_runtime_type) of the
# default, PIE and arm64 builds is read too, with DWARF's kind and size
# (check-types-dwarf.py).
#
# Then hostile copies of each release's default build, one
# descriptor damaged in each (a struct's field count huge, a name offset
# outside the type data, a kind out of range, an element pointer outside):
# `gostap types` on the whole binary and on that descriptor's address must
# exit 2 with one line naming the binary and the problem, never crash
# (under the ASan/UBSan build when GOSTAP is one: tools/check.sh).
#
# Prints per Go version and build
#   types: go=1.24 variant=default types=N fields=N mismatches=N
# Environment: GOSTAP, GOSTAP_TEST_CACHE, GOSTAP_GO_VERSIONS (restrict the
# toolchains, e.g. "1.19 1.24 1.27").
# Exit: 0 pass, 1 a mismatch or a fixture that did not build, 77 skip (no
# toolchains or python3), 99 hard error.
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"

# shellcheck disable=SC2086
need_toolchains ${GOSTAP_GO_VERSIONS:-} > "$tmp/toolchains"
versions=$(awk '{ print $1 }' "$tmp/toolchains")
# shellcheck disable=SC2086
GOSTAP_FIXTURES=kinds fixture_manifest $versions > "$tmp/manifest"
fixture_failures

total_types=0 total_fields=0 total_bad=0
check () {  # check V VARIANT REFLECT-JSON BINARY [--by-name]
  local v=$1 variant=$2 refl=$3 bin=$4 counts st=0
  shift 4
  checks=$((checks + 1))
  if ! "$GOSTAP" types --json "$bin" > "$tmp/g.json" 2> "$tmp/g.err"; then
    fail "go $v $variant: gostap types failed: $(head -3 "$tmp/g.err")"
    return
  fi
  python3 "$testsuite/check-types.py" "go$v-$variant" "$refl" "$tmp/g.json" \
    "$@" > "$tmp/c.out" 2>&1 || st=$?
  counts=$(sed -n 's/^# counts: //p' "$tmp/c.out")
  [ -n "$counts" ] || hard_error "check-types.py: $(tail -3 "$tmp/c.out")"
  echo "types: go=$v variant=$variant $counts"
  grep '^not ok' "$tmp/c.out" | head -20 || true
  # shellcheck disable=SC2086
  set -- $counts
  total_types=$((total_types + ${1#types=}))
  total_fields=$((total_fields + ${2#fields=}))
  total_bad=$((total_bad + ${3#mismatches=}))
  [ "$st" = 0 ] || fail "go $v $variant: ${3#mismatches=} mismatches (above)"
}

for v in $versions; do
  for variant in default w sw; do
    bin=$(fixture "$v" "$variant" kinds) || continue
    [ -n "$bin" ] || continue
    "$bin" > "$tmp/reflect-$v-$variant.json" ||
      hard_error "$bin exited $?"
    check "$v" "$variant" "$tmp/reflect-$v-$variant.json" "$bin"
  done
  bin=$(fixture "$v" pie kinds) || bin=
  if [ -n "$bin" ]; then
    "$bin" > "$tmp/reflect-$v-pie.json" || hard_error "$bin exited $?"
    check "$v" pie "$tmp/reflect-$v-pie.json" "$bin" --by-name
  fi
  bin=$(fixture "$v" arm64 kinds) || continue
  if [ -z "$bin" ] || [ ! -s "$tmp/reflect-$v-default.json" ]; then continue; fi
  check "$v" arm64 "$tmp/reflect-$v-default.json" "$bin" --by-name
done
[ "$checks" -gt 0 ] || skip "no kinds fixture built"
echo "types: total types=$total_types fields=$total_fields mismatches=$total_bad"

# The descriptor DWARF gives each type (DW_AT_go_runtime_type), where a
# printer of values starts: read, with DWARF's kind and size
# (check-types-dwarf.py), on the builds with DWARF.
if command -v readelf >/dev/null; then
  for v in $versions; do
    for variant in default pie arm64; do
      bin=$(fixture "$v" "$variant" kinds) || continue
      [ -n "$bin" ] || continue
      checks=$((checks + 1))
      st=0
      python3 "$testsuite/check-types-dwarf.py" "$GOSTAP" "$bin" \
        > "$tmp/d.out" 2>&1 || st=$?
      grep -q '^# counts:' "$tmp/d.out" ||
        hard_error "check-types-dwarf.py: $(tail -3 "$tmp/d.out")"
      echo "types-dwarf: go=$v variant=$variant $(sed -n 's/^# counts: //p' "$tmp/d.out")"
      grep '^not ok' "$tmp/d.out" | head -10 || true
      [ "$st" = 0 ] || fail "go $v $variant: DWARF's runtime types (above)"
    done
  done
else
  echo "# no readelf: DWARF's runtime types not checked"
fi

# damage BINARY REFLECT-JSON TYPE-STRING OFFSET BYTES-HEX OUT: a copy of
# BINARY with BYTES written at the descriptor of TYPE-STRING plus OFFSET;
# prints the descriptor's address.
damage () {
  python3 - "$@" <<'EOF'
import json, shutil, struct, sys
binary, refl, name, off, data, out = sys.argv[1:]
addr = next(int(t["addr"], 16) for t in map(json.loads, open(refl))
            if t["str"] == name)
shutil.copyfile(binary, out)
with open(out, "r+b") as f:
    elf = f.read()
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        typ, _, offset, vaddr, _, filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if typ == 1 and vaddr <= addr + int(off) < vaddr + filesz:
            f.seek(offset + addr + int(off) - vaddr)
            f.write(bytes.fromhex(data))
            print(hex(addr))
            sys.exit(0)
sys.exit(f"{name} at {addr:#x} is in no loaded segment")
EOF
}

# hostile V TYPE OFFSET BYTES REGEX: the damaged copy, whole and at the
# descriptor: exit 2, one line naming the copy and matching REGEX.
hostile () {
  local v=$1 bin addr st args
  bin=$(fixture "$v" default kinds) || return 0
  if [ -z "$bin" ] || [ ! -s "$tmp/reflect-$v-default.json" ]; then return 0; fi
  addr=$(damage "$bin" "$tmp/reflect-$v-default.json" "$2" "$3" "$4" "$tmp/bad") ||
    hard_error "cannot damage $2 in $bin"
  for args in "" "$addr"; do
    checks=$((checks + 1))
    st=0
    # shellcheck disable=SC2086
    "$GOSTAP" types --json "$tmp/bad" $args > "$tmp/out" 2> "$tmp/err" || st=$?
    if [ "$st" != 2 ]; then
      fail "go $v, $2 +$3 := $4 ($args): exit $st, expected 2: $(head -c 400 "$tmp/err")"
    elif [ "$(wc -l < "$tmp/err")" != 1 ] || ! grep -q "^[^:]*: $tmp/bad: .*$5" "$tmp/err"; then
      fail "go $v, $2 +$3 := $4 ($args): expected one line naming $tmp/bad and /$5/, got: $(head -c 400 "$tmp/err")"
    else
      echo "ok - go $v, $2 +$3 := $4 ${args:-(all)}: $(cat "$tmp/err")"
    fi
  done
}

for v in $versions; do
  hostile "$v" main.Pair 64 ffffff0f00000000 "fields at .* run past the type data"
  hostile "$v" main.Pair 40 ffffff7f "name at .* outside the type data"
  hostile "$v" main.Named 23 1f "kind 31"
  hostile "$v" '*main.Node' 48 0800000000000000 "elem 0x8 is not a descriptor"
done

finish
