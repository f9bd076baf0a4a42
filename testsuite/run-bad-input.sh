#!/bin/bash
# Bad input: each case gives one line on stderr naming the file and the
# problem, a documented exit status (2: not a usable Go binary), nothing on
# stdout, and no crash (CI runs this with ASan and UBSan).
# Inputs: a text file, /bin/true (a C program), and copies of the fixture
# testsuite/fixtures/abi built by Go 1.22 (build-fixtures.sh), truncated or
# patched here with python3.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

fixture_manifest > /dev/null
gobin=$(fixture 1.22 default abi)
[ -n "$gobin" ] && [ -f "$gobin" ] || hard_error "no Go 1.22 abi fixture in the manifest"

# patch FILE OFFSET HEXBYTES: overwrite bytes of a copy.
patch_copy () {
  local out=$1 off=$2 hex=$3
  cp "$gobin" "$out"
  python3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2], 0)); f.write(bytes.fromhex(sys.argv[3]))' "$out" "$off" "$hex"
}
section_offset () {
  readelf -SW "$gobin" | awk -v n="$1" '$0 ~ " "n" " { sub(/.*\] */, ""); print "0x" $4; exit }'
}

printf 'hello\n' > "$tmp/text"
: > "$tmp/empty"
mkdir "$tmp/dir"
head -c 100 "$gobin" > "$tmp/trunc100"
head -c $(( $(stat -c %s "$gobin") / 2 )) "$gobin" > "$tmp/trunchalf"
patch_copy "$tmp/class32" 4 01
patch_copy "$tmp/bigendian" 5 02
patch_copy "$tmp/riscv" 18 f300
pcln=$(section_offset .gopclntab)
[ -n "$pcln" ] || hard_error "no .gopclntab in $gobin"
patch_copy "$tmp/badmagic" "$pcln" 00000000
patch_copy "$tmp/hugenfunc" $((pcln + 8)) ffffffffffffff7f
patch_copy "$tmp/badoffsets" $((pcln + 40)) ffffffffffffff00

expect_fail 2 "$tmp/missing: .*No such file" "$GOSTAP" list "$tmp/missing"
expect_fail 2 "$tmp/dir: not a regular file" "$GOSTAP" list "$tmp/dir"
expect_fail 2 "$tmp/text: not an ELF file" "$GOSTAP" list "$tmp/text"
expect_fail 2 "$tmp/empty: not an ELF file" "$GOSTAP" list "$tmp/empty"
expect_fail 2 "/bin/true: not a Go binary" "$GOSTAP" list /bin/true
expect_fail 2 "$tmp/trunc100: .*(truncated|program header)" "$GOSTAP" list "$tmp/trunc100"
expect_fail 2 "$tmp/trunchalf: .*truncated" "$GOSTAP" list "$tmp/trunchalf"
expect_fail 2 "$tmp/class32: 32-bit ELF" "$GOSTAP" list "$tmp/class32"
expect_fail 2 "$tmp/bigendian: big-endian" "$GOSTAP" list "$tmp/bigendian"
expect_fail 2 "$tmp/riscv: unsupported architecture" "$GOSTAP" list "$tmp/riscv"
expect_fail 2 "$tmp/badmagic: corrupted pclntab" "$GOSTAP" list "$tmp/badmagic"
expect_fail 2 "$tmp/hugenfunc: corrupted pclntab" "$GOSTAP" list --json "$tmp/hugenfunc"
expect_fail 2 "$tmp/badoffsets: corrupted pclntab" "$GOSTAP" list "$tmp/badoffsets"
# A glob that matches nothing is an error of its own (status 1).
expect_fail 1 "no function matches 'nosuch\.\*'" "$GOSTAP" list "$gobin" 'nosuch.*'
finish
