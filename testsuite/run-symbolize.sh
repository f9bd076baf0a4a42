#!/bin/bash
# `gostap symbolize` against the Go program's own view of its stacks.
#
# The fixture testsuite/fixtures/stacks records its stack at a set of
# points two ways: a frame-pointer walk printed as a <gostack:...> token
# (what the tapsets' go_stack() records), and runtime.Callers +
# runtime.CallersFrames printed in Go's traceback format (the want block).
# For every amd64 build of it (every Go release of the matrix; variants
# default, w, sw, pie), and every arm64 build run under qemu-aarch64 (Go
# saves the frame pointer and return address there too, the pair below
# the frame; before Go 1.21 a goroutine's first frame has no valid frame
# pointer, which the test checks instead), the program's output goes through
# `gostap symbolize BINARY`, and check-stacks.py compares each expansion
# with its want block frame by frame (function, file:line, inlined or not,
# offset; frame 0 by function and file:line). The points: a plain call
# chain, inlined calls three deep around a noinline one, closures (called
# directly; nested, the outer one inlined by Go 1.24 and later; run as a
# goroutine), a named function run as a goroutine, methods on value and pointer receivers, method values (-fm
# wrappers, elided), interface calls (the (*T).M wrapper of a value
# method, elided), generic functions and methods in several
# instantiations, through an interface (the instantiation's wrapper,
# elided), a 2000-deep recursion that grows the stack to 1 MiB (whole at
# 400 levels, cut at 500 and 100 pcs at the bottom: the elided line),
# deferred calls (open-coded, through runtime.deferreturn, run by a panic),
# a call through reflect (runtime.reflectcall's wrapper and callNN,
# elided).
#
# Then, on one binary: the text around a token is kept (a token in the
# middle of a line), text without tokens passes unchanged, FILE gives what
# stdin gives, a record at a function's entry (K=p, frame 1 in W0), the
# same pcs as K=p; and the bad cases: symbolize on files that are no Go
# binary (non-zero exit, one line naming the file, nothing on stdout),
# malformed tokens (passed through unchanged or reported, exit 0 or 1,
# never a crash or a sanitizer report), pcs in no function (exit 0).
#
# Environment: GOSTAP, GOSTAP_GO_VERSIONS (restrict the toolchains),
# GOSTAP_TEST_CACHE. Exit: 0 pass, 1 a mismatch, 77 skip (no python3, no
# amd64 build), 99 hard error.
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"

versions=${GOSTAP_GO_VERSIONS:-}
# shellcheck disable=SC2086
need_toolchains $versions > "$tmp/toolchains"
# shellcheck disable=SC2086
fixture_manifest $versions > "$tmp/manifest"

SAN='runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|Segmentation|core dumped'

# --- every build of the fixture ------------------------------------------
binaries=0 points=0 frames=0 inlined=0 mismatches=0
count () { sed -n "s/.*stacks:.* $1=\([0-9]*\).*/\1/p" "$2"; }
# The arm64 builds run under qemu's user-mode emulation (Debian:
# qemu-user), where there is one.
qemu_arm64=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
[ -n "$qemu_arm64" ] || echo "# no qemu-aarch64 (Debian: qemu-user): the arm64 builds are not run"
sel='$4 == "stacks" && $5 == "amd64" && $3 ~ /^(default|w|sw|pie)$/'
[ -z "$qemu_arm64" ] || sel="$sel"' || $4 == "stacks" && $5 == "arm64"'
fixture_failures "$sel"
older () { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ] && [ "$1" != "$2" ]; }
while read -r bin ver variant fixture arch; do
  run=()
  case $fixture/$arch/$variant in
    stacks/amd64/default|stacks/amd64/w|stacks/amd64/sw|stacks/amd64/pie) ;;
    stacks/arm64/*) [ -n "$qemu_arm64" ] || continue; run=("$qemu_arm64") ;;
    *) continue ;;
  esac
  name="stacks-$ver-$variant"
  d=$tmp/$name
  mkdir -p "$d"
  checks=$((checks + 1))
  # The program checks that its two records agree (the walk has every pc
  # Callers has): it exits 1 with the reason on stderr when not.
  st=0
  timeout 120 "${run[@]}" "$bin" > "$d/raw" 2> "$d/run.err" || st=$?
  if [ "$arch" = arm64 ] && older "$ver" 1.21; then
    # Measured: before Go 1.21 the first frame of a goroutine on arm64
    # starts with R29 unset, so a walk ends one frame early ('x': the
    # last frame pointer does not go up the stack; runtime.goexit, which
    # runtime.Callers still gives, is missing). The fixture says so.
    if [ "$st" = 1 ] && grep -q 'points recorded badly' "$d/run.err" &&
       ! grep -v -e 'pcs of Callers after frame 0 in the walk' -e 'points recorded badly' "$d/run.err" | grep -q . &&
       grep -q '^<gostack:.*:x>$' "$d/raw"; then
      echo "ok - $name: as measured before Go 1.21 on arm64, the walks end one frame early at the goroutine's first frame (the fixture: $(tail -1 "$d/run.err")); not compared"
    else
      fail "$name: expected the walk of Go $ver on arm64 to end one frame early, got exit $st: $(head -3 "$d/run.err")"
    fi
    continue
  fi
  if [ "$st" != 0 ] || [ -s "$d/run.err" ] || ! grep -q '^=== point ' "$d/raw"; then
    fail "$name: the fixture exited $st: $(head -5 "$d/run.err")"
    continue
  fi
  st=0
  "$GOSTAP" symbolize "$bin" < "$d/raw" > "$d/sym" 2> "$d/sym.err" || st=$?
  if [ "$st" != 0 ] || [ -s "$d/sym.err" ]; then
    fail "$name: gostap symbolize exited $st: $(head -3 "$d/sym.err")"
    continue
  fi
  binaries=$((binaries + 1))
  st=0
  python3 "$testsuite/check-stacks.py" --label "$name" --raw "$d/raw" "$d/sym" > "$d/check" 2>&1 || st=$?
  if ! grep -q 'stacks: points=' "$d/check"; then
    fail "$name: check-stacks.py exited $st: $(head -5 "$d/check")"
    continue
  fi
  points=$((points + $(count points "$d/check")))
  frames=$((frames + $(count frames "$d/check")))
  inlined=$((inlined + $(count inlined "$d/check")))
  mismatches=$((mismatches + $(count mismatches "$d/check")))
  if [ "$st" = 0 ]; then
    echo "ok - $(tail -1 "$d/check")"
  else
    fail "$name: check-stacks.py exited $st"
    head -60 "$d/check" | sed 's/^/  /'
  fi
done < "$tmp/manifest"
[ "$checks" -gt 0 ] || skip "no amd64 or arm64 build of the stacks fixture in the manifest"

# --- one binary: text around tokens, FILE, K=p, W0 ------------------------
tok='<gostack:r:401000:::0>'
bin=$(awk '$4 == "stacks" && $5 == "amd64" && $3 == "default" { b = $1 } END { print b }' "$tmp/manifest")
raw=$tmp/stacks-$(awk -v b="$bin" '$1 == b { print $2 }' "$tmp/manifest")-default/raw
if [ -n "$bin" ] && [ -s "$raw" ]; then
  # want BLOCK-OF-POINT: the want block of the point "plain".
  awk '/^=== point plain$/ { p = 1; next } p && /^--- want$/ { w = 1; next }
       p && /^=== end$/ { exit } w' "$raw" > "$tmp/plain.want"
  tok=$(awk '/^=== point plain$/ { getline; print; exit }' "$raw")
  nwant=$(wc -l < "$tmp/plain.want")

  # A token in the middle of a line: the text before it starts the first
  # frame's line, the text after it ends the last one; no final newline.
  checks=$((checks + 1))
  printf 'before %s after\nnext\n' "$tok" | "$GOSTAP" symbolize "$bin" > "$tmp/mid" 2>&1 || true
  if [ "$(head -1 "$tmp/mid")" = "before $(head -1 "$tmp/plain.want")" ] &&
     [ "$(wc -l < "$tmp/mid")" = $((nwant + 1)) ] &&
     sed -n "${nwant}p" "$tmp/mid" | grep -Eq '^	.*:[0-9]+ \+0x[0-9a-f]+ after$' &&
     [ "$(tail -1 "$tmp/mid")" = next ]; then
    echo "ok - a token in the middle of a line: the text around it is kept"
  else
    fail "a token in the middle of a line: $(head -c 600 "$tmp/mid")"
  fi

  # Text without a token passes byte for byte (no final newline, bytes
  # that are not UTF-8, NULs, a '<' at the end).
  checks=$((checks + 1))
  printf 'plain text\n<gostac\n\001\377\000 x <gostack\n<' > "$tmp/notoken"
  if "$GOSTAP" symbolize "$bin" < "$tmp/notoken" > "$tmp/notoken.out" 2> "$tmp/err" &&
     cmp -s "$tmp/notoken" "$tmp/notoken.out"; then
    echo "ok - text without a token passes unchanged"
  else
    fail "text without a token changed: $(od -c "$tmp/notoken.out" | head -5) $(head -3 "$tmp/err")"
  fi

  # FILE gives what stdin gives.
  checks=$((checks + 1))
  if "$GOSTAP" symbolize "$bin" "$raw" > "$tmp/file.out" 2> "$tmp/err" &&
     "$GOSTAP" symbolize "$bin" < "$raw" > "$tmp/stdin.out" 2>> "$tmp/err" &&
     cmp -s "$tmp/file.out" "$tmp/stdin.out" && [ ! -s "$tmp/err" ]; then
    echo "ok - symbolize BINARY FILE = symbolize BINARY < FILE"
  else
    fail "symbolize with FILE: $(head -3 "$tmp/err")"
  fi

  # K=p at the same pc (the instruction after the walker's call, on the
  # same line): the same frames.
  checks=$((checks + 1))
  { echo "=== point plain-p"; echo "${tok/<gostack:r:/<gostack:p:}"
    echo "--- want"; cat "$tmp/plain.want"; echo "=== end"; } > "$tmp/p.raw"
  if "$GOSTAP" symbolize "$bin" < "$tmp/p.raw" > "$tmp/p.sym" 2> "$tmp/err" &&
     python3 "$testsuite/check-stacks.py" "$tmp/p.sym" > "$tmp/p.check"; then
    echo "ok - K=p: $(tail -1 "$tmp/p.check")"
  else
    fail "K=p: $(head -20 "$tmp/p.check") $(head -3 "$tmp/err")"
  fi

  # At a function's entry (K=p, no frame yet): frame 1's return address
  # in W0, the chain from the caller's frame pointer. main.plainC's entry,
  # W0 = C1 of the plain token, the chain C2...: plainC (at its entry:
  # Go's traceback prints no offset there; +0x0 accepted), then the frames
  # of the want block after frame 0.
  checks=$((checks + 1))
  entry=$("$GOSTAP" list --json "$bin" 'main.plainC' 2>/dev/null |
          python3 -c 'import json,sys; print(next(f["entry"] for f in json.load(sys.stdin)["functions"] if f["name"] == "main.plainC")[2:])' 2>/dev/null || true)
  chain=$(echo "$tok" | cut -d: -f5)   # <gostack r PC0 W0 CHAIN E>
  end=$(echo "$tok" | cut -d: -f6)
  w0=${chain%%,*}
  if [ -n "$entry" ] && [ -n "$w0" ]; then
    ptok="<gostack:p:$entry:$w0:${chain#*,}:$end"
    if echo "$ptok" | "$GOSTAP" symbolize "$bin" > "$tmp/entry.out" 2> "$tmp/err" &&
       [ "$(head -1 "$tmp/entry.out")" = "main.plainC(...)" ] &&
       sed -n 2p "$tmp/entry.out" | grep -Eq '^	.*/main\.go:[0-9]+( \+0x0)?$' &&
       [ "$(tail -n +3 "$tmp/entry.out")" = "$(tail -n +3 "$tmp/plain.want")" ]; then
      echo "ok - K=p at main.plainC's entry, frame 1 in W0: $(sed -n 2p "$tmp/entry.out" | sed 's/.*\///')"
    else
      fail "K=p at main.plainC's entry ($ptok): want main.plainC(...), FILE:LINE with no offset (as Go's traceback at an entry) or +0x0, then the plain point's frames 1...; got: $(head -c 400 "$tmp/entry.out" | tr '\n\t' '| ') $(head -3 "$tmp/err")"
    fi
  else
    fail "no entry of main.plainC from gostap list, or no chain in $tok"
  fi
else
  fail "no default amd64 build of the stacks fixture that ran"
fi

# --- bad cases -------------------------------------------------------------
# BINARY that is not a Go binary: non-zero, one line naming it, no output.
printf 'hello\n' > "$tmp/text"
not_go () {
  local file=$1 st=0
  checks=$((checks + 1))
  echo "$tok" | "$GOSTAP" symbolize "$file" > "$tmp/out" 2> "$tmp/err" || st=$?
  if [ "$st" = 0 ] || [ "$st" -ge 128 ]; then
    fail "symbolize $file: exit $st"
  elif [ "$(grep -vc '^Try `' "$tmp/err")" != 1 ] || ! grep -qF -- "$file" "$tmp/err" ||
       grep -Eq "$SAN" "$tmp/err"; then
    fail "symbolize $file: expected one line naming the file: $(head -c 300 "$tmp/err")"
  elif [ -s "$tmp/out" ]; then
    fail "symbolize $file: wrote to stdout on error"
  else
    echo "ok - symbolize $file -> $st: $(cat "$tmp/err")"
  fi
}
not_go /bin/true
not_go "$tmp/text"
not_go "$tmp/missing"

# Malformed tokens: passed through unchanged, or reported (a line on
# stderr); exit 0 or 1; never a crash.
long=$(printf '401000,%.0s' $(seq 1 5000))
while IFS= read -r t; do
  checks=$((checks + 1))
  st=0
  printf 'a %s b\n' "$t" | "$GOSTAP" symbolize "$bin" > "$tmp/out" 2> "$tmp/err" || st=$?
  if [ "$st" -gt 1 ] || grep -Eq "$SAN" "$tmp/err"; then
    fail "malformed token ${t:0:80}: exit $st: $(head -c 300 "$tmp/err")"
  elif [ "$(cat "$tmp/out")" = "a $t b" ] || [ -s "$tmp/err" ]; then
    echo "ok - malformed token ${t:0:60}: $([ -s "$tmp/err" ] && echo "reported: $(head -1 "$tmp/err")" || echo "passed through"), exit $st"
  else
    fail "malformed token ${t:0:80}: changed silently into: $(head -c 300 "$tmp/out")"
  fi
done <<EOF
<gostack:p:zz::>
<gostack:
<gostack:>
<gostack:r>
<gostack:r:401000>
<gostack:r:401000:::>
<gostack:q:401000:::0>
<gostack:r:401000:::z>
<gostack:r:401000::1,,2:0>
<gostack:r:-1:::0>
<gostack:r:0x401000:::0>
<gostack:r:401000:::0
<gostack:r:10000000000000000000:::0>
<gostack:r:401000:zz:1:0>
EOF
# A record longer than gostap keeps (512 pcs after the first; stap's
# default MAXSTRINGLEN gives at most about 60): expanded, cut, and said so.
checks=$((checks + 1))
st=0
printf 'a <gostack:r:401000::%s401000:0> b\n' "$long" | "$GOSTAP" symbolize "$bin" > "$tmp/out" 2> "$tmp/err" || st=$?
n=$(grep -c '^	' "$tmp/out" || true)
if [ "$st" = 0 ] && ! grep -Eq "$SAN" "$tmp/err" && [ "$n" -ge 513 ] &&
   grep -q '^\.\.\.additional frames elided\.\.\. b$' "$tmp/out"; then
  echo "ok - a record of 5001 pcs: $n frames, then ...additional frames elided..."
else
  fail "a record of 5001 pcs: exit $st, $n frames: $(tail -c 200 "$tmp/out") $(head -c 200 "$tmp/err")"
fi

# A malformed token whose text holds a good one: the good one is expanded.
checks=$((checks + 1))
st=0
printf 'a <gostack:%s b\n' "$tok" | "$GOSTAP" symbolize "$bin" > "$tmp/out" 2> "$tmp/err" || st=$?
if [ "$st" -le 1 ] && ! grep -Eq "$SAN" "$tmp/err" &&
   head -1 "$tmp/out" | grep -q '^a <gostack:[^<]*(\.\.\.)$' && ! grep -q '<gostack:r' "$tmp/out" &&
   tail -1 "$tmp/out" | grep -q ' b$'; then
  echo "ok - a malformed token around a good one: the good one expanded, exit $st"
else
  fail "a malformed token around a good one: exit $st: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
fi

# pcs in no function (below the text, the top of the address space, 0):
# exit 0, no crash; what it prints is shown.
for t in '<gostack:r:1:::0>' '<gostack:p:ffffffffffffffff::10,20:x>' \
         '<gostack:p:0:0:0:0>' '<gostack:r:401000:ffffffff:ffffffffffffffff:t>'; do
  checks=$((checks + 1))
  st=0
  echo "$t" | "$GOSTAP" symbolize "$bin" > "$tmp/out" 2> "$tmp/err" || st=$?
  if [ "$st" = 0 ] && ! grep -Eq "$SAN" "$tmp/err"; then
    echo "ok - pcs in no function $t: exit 0: $(head -4 "$tmp/out" | tr '\n\t' '| ')"
  else
    fail "pcs in no function $t: exit $st: $(head -c 300 "$tmp/err")"
  fi
done

echo "symbolize: binaries=$binaries points=$points frames=$frames inlined=$inlined mismatches=$mismatches"
finish
