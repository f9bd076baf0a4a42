#!/bin/bash
# Binaries with no DWARF anywhere: `gostap companion` writes a debug file
# from the .gopclntab, and SystemTap and gostap find it as separate
# debuginfo.  For every -s -w fixture (amd64, every Go release) and every
# arm64 fixture stripped with `strip -s`:
#   - check-companion.py compares the companion with independent views of
#     the same code: `go tool addr2line` (Go's own pclntab reader) at every
#     instruction vs addr2line on the companion; Go's own .debug_frame of
#     the DWARF twin (same fixture, same release, same code) vs the
#     companion's at every instruction (readelf); the -w twin's .symtab vs
#     the companion's (nm); every entry, body and RET starting a row of
#     the line table (objdump --dwarf=decodedline); `gostap list --json`
#     reading the companion vs the DWARF twin's listing; llvm-dwarfdump
#     --verify;
#   - gdb, given the companion (symbol-file), shows at a breakpoint deep in
#     a recursion the backtrace it shows on the DWARF twin, at the same
#     call of the same goroutine whatever the scheduling (grow fixtures);
#   - `gostap gen` writes tapsets whose every probe stap -p2 places without
#     -g (amd64), with stap-env.sh's stap and with Debian's own stap on
#     libdw 0.188 (the companion carries .debug_aranges, which Go's DWARF
#     lacks, so old libdw finds its unit).
# The lookup by name, for a binary with neither GNU build id nor
# debuglink (DIR/<its path>.debug); `gostap run` writing the companion into
# its cache by itself; and the bad cases: a companion of another build at
# the name path (one line, not used), `gostap companion` on a binary that
# has DWARF (exit 1, one line).
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

for t in objdump addr2line readelf nm strip objcopy; do
  command -v $t >/dev/null || skip "no $t (binutils)"
done
need_stap
matrix_manifest > "$tmp/manifest"
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
# Debian's own stap with its own libdw (0.188 on Debian 12), when there.
old_stap=
if command -v stap >/dev/null && stap -V 2>&1 | grep -q '/0\.1[0-8][0-9]'; then
  old_stap="stap $(echo "$STAP" | grep -o -- '-r [^ ]*')"
fi
tapsets=$top_srcdir/tapsets
dbg=$tmp/debug
export SYSTEMTAP_DEBUGINFO_PATH=$dbg DEBUGINFOD_URLS=

# goroot VERSION: the GOROOT of the toolchain that built the fixtures.
goroot () {
  "$testsuite/go-toolchains.sh" "$1" | awk -v v="$1" '$1 == v { print $2 }'
}
# all_probes TAPSETS OUT: a script naming every alias of TAPSETS; prints
# the number of probe points stap must place for it.
all_probes () {
  # Every alias once (go.func.NAME.inlined has a definition a function
  # its copies sit in), not those made of another alias, which would
  # place its probes again.
  { echo 'global hits'
    grep -v '^probe go\.func[^ ]* = go\.func' "$1/go_funcs.stp" |
      grep -o '^probe go\.func[^ ]*' | sort -u | sed 's/$/ { hits++ }/'
  } > "$2"
  echo $(( $(grep -o 'process("' "$1/go_funcs.stp" | wc -l) + $(ls "$1" | grep -c '^go_pair_') ))
}
# placed NAME STAP...: stap -p2 (no -g) places every probe of $d/t.
placed () {
  local name=$1 want got
  shift
  want=$(all_probes "$d/t" "$d/all.stp")
  checks=$((checks + 1))
  if "$@" -p2 -I "$d/t" -I "$tapsets" "$d/all.stp" > "$d/stap.out" 2>"$d/stap.err" &&
     got=$(grep -c '^process(' "$d/stap.out") && [ "$got" = "$want" ] &&
     ! grep -q 'does not match the beginning of a statement' "$d/stap.err"; then
    echo "ok - $name: stap -p2 places all $got probes without -g ($("$@" -V 2>&1 | grep -o 'version [^ ,]*' | head -1))"
  else
    fail "$name: stap -p2 placed ${got:-no} of $want probes: $(grep -v '^WARNING: Kernel' "$d/stap.err" | head -3)"
  fi
}

# gdb_bt BINARY ADDR [GDB-ARGS]: the backtrace at a breakpoint at ADDR, the
# body of main.rec, in a call no scheduling can change: rec($gdb_stop) made
# by the goroutine whose outermost call is rec($gdb_top), the only one to
# call that (the grow fixture's worker w starts at rec(depth + w)); one
# frame a line: number, pc (but frame 0's), function, file:line (arguments
# left out: the companion has no types).  Not "the 7th hit": GOMAXPROCS=1
# still lets sysmon preempt a goroutine that has run for 10 ms, the time
# the program spends stopped under gdb included, so on a busy machine the
# 7th hit was another goroutine's at another depth (a 2 ms pause at each
# hit makes it so; GODEBUG=asyncpreemptoff=1 does not help, rec's stack
# check yields as well).  The condition reads Go's amd64 register ABI:
# at the body the argument is still in RAX, and R14 holds the goroutine's
# g, which stays while its stack is copied; the hit of rec($gdb_top) keeps
# it in $g.  It needs no unwinding: the backtrace alone tests the
# companion's frames.
have_gdb=$(command -v gdb || true)
[ -n "$have_gdb" ] || echo "# no gdb here: the gdb backtrace checks do not run"
gdb_top=$(awk '$1 == "workers" && $2 == "=" { w = $3 } $1 == "depth" && $2 == "=" { d = $3 }
  END { print d + w - 1 }' "$testsuite/fixtures/grow/main.go")
[ "$gdb_top" -gt 6 ] || hard_error "no depth and workers constants in fixtures/grow/main.go"
gdb_stop=$((gdb_top - 6))
gdb_bt () {
  local bin=$1 addr=$2
  shift 2
  GOMAXPROCS=1 timeout 120 gdb -nx -batch "$@" -ex 'set $g = 0' \
    -ex "break *$addr if (\$rax == $gdb_top ? (\$g = \$r14) : 0), \$r14 == \$g && \$rax == $gdb_stop" \
    -ex run -ex bt "$bin" 2>/dev/null | grep '^#' |
    sed -E 's/^#([0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) \(.*\) at /\1 \2\3 /; s/^0 0x[0-9a-f]+ in /0 /'
}

# The -s -w and arm64 builds, and the twins of the -s -w ones.
fixture_failures '$3 ~ /^(sw|arm64)$/ || ($3 ~ /^(default|w)$/ && $4 ~ /^(abi|grow|stacks)$/)'
pairs=0 sum=""
while read -r bin ver variant fixture arch; do
  case $variant in sw|arm64) ;; *) continue ;; esac
  name=$(basename "$bin")
  d=$tmp/$name.d
  mkdir -p "$d"
  if [ "$variant" = sw ]; then
    twin=$(awk -v v="$ver" -v f="$fixture" '$2 == v && $4 == f && $3 == "default" { print $1 }' "$tmp/manifest")
    wtwin=$(awk -v v="$ver" -v f="$fixture" '$2 == v && $4 == f && $3 == "w" { print $1 }' "$tmp/manifest")
    # The demo is built -s -w for the e2e test's newstack job only, with
    # no -w twin to compare the symbols with: the fixtures cover this.
    [ -n "$wtwin" ] || continue
    cp "$bin" "$d/bin"
  else
    twin=$bin wtwin=$bin
    strip -s "$bin" -o "$d/bin"
  fi
  checks=$((checks + 1))
  if ! comp=$("$GOSTAP" companion "$d/bin" -o "$dbg" 2>"$d/err") || [ -s "$d/err" ]; then
    fail "$name: gostap companion: $(head -3 "$d/err")"
    continue
  fi
  "$GOSTAP" list --json "$d/bin" > "$d/list.json" 2>"$d/err" &&
    "$GOSTAP" list --json "$twin" > "$d/twin.json" 2>>"$d/err" ||
    { fail "$name: gostap list: $(head -3 "$d/err")"; continue; }
  if python3 "$testsuite/check-companion.py" "$d/bin" "$comp" "$twin" "$wtwin" \
       "$(goroot "$ver")/bin/go" "$d/list.json" "$d/twin.json" > "$d/tap"; then
    echo "ok - $name: companion $(basename "$comp"): $(grep '^# counts:' "$d/tap" | cut -c11-)"
    pairs=$((pairs + 1))
    sum="$sum $(grep '^# counts:' "$d/tap" | cut -c11-)"
  else
    fail "$name: companion: $(grep -A3 '^not ok\|^Bail' "$d/tap" | head -8)"
    continue
  fi
  [ "$arch" = amd64 ] || continue
  # gdb, given the companion with symbol-file, unwinds a deep recursion as
  # it does with the DWARF twin's own: the same frames, functions, pcs and
  # file:line, at the same call in both runs (gdb_bt).  The twin's shows
  # that call: 7 frames of main.rec down to runtime.goexit.
  if [ "$fixture" = grow ] && [ -n "$have_gdb" ]; then
    body=$(python3 -c 'import json,sys; print(next(f["body"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "main.rec"))' "$d/twin.json")
    checks=$((checks + 1))
    gdb_bt "$twin" "$body" > "$d/bt.twin"
    gdb_bt "$d/bin" "$body" -ex "symbol-file $comp" > "$d/bt.comp"
    if [ "$(grep -c ' main\.rec ' "$d/bt.twin")" != 7 ] || ! grep -q ' runtime\.goexit ' "$d/bt.twin"; then
      fail "$name: gdb on the DWARF build did not stop in rec($gdb_stop) of the goroutine of rec($gdb_top): $(head -c 300 "$d/bt.twin")"
    elif cmp -s "$d/bt.twin" "$d/bt.comp"; then
      echo "ok - $name: gdb with the companion shows the DWARF build's backtrace ($(wc -l < "$d/bt.comp") frames: $(sed -n 2p "$d/bt.comp"))"
    else
      fail "$name: gdb backtraces differ: $(diff "$d/bt.twin" "$d/bt.comp" | head -6)"
    fi
  fi
  rm -rf "$d/t"
  if ! "$GOSTAP" gen "$d/bin" -o "$d/t" 'main.*' 2>"$d/err"; then
    fail "$name: gen: $(head -3 "$d/err")"
    continue
  fi
  placed "$name" "$tmp/stap"
  if [ -n "$old_stap" ] && [ "$ver" = 1.24 ]; then
    placed "$name (Debian's libdw)" $old_stap
  fi
done < "$tmp/manifest"
[ "$pairs" -gt 0 ] || hard_error "no -s -w or arm64 fixture in the manifest"
[ -n "$old_stap" ] || echo "# no stap with libdw < 0.191 here: the old-libdw check did not run"

# --- by name: no GNU build id, no debuglink ---------------------------------
one=$(fixture 1.24 sw abi)
other=$(fixture 1.24 sw grow)
n=$tmp/byname
mkdir -p "$n"
objcopy --remove-section .note.gnu.build-id "$one" "$n/prog"
checks=$((checks + 1))
d=$n
if comp=$("$GOSTAP" companion "$n/prog" -o "$dbg" 2>"$n/err") &&
   [ "$comp" = "$dbg$n/prog.debug" ] &&
   "$GOSTAP" list --json "$n/prog" > "$n/list.json" 2>>"$n/err" && [ ! -s "$n/err" ] &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["dwarf_companion"] and d["debug_file"] == sys.argv[2]))' "$n/list.json" "$comp" &&
   "$GOSTAP" gen "$n/prog" -o "$n/t" 'main.*' 2>>"$n/err"; then
  echo "ok - no build id: the companion at $comp is found by name"
  placed "no build id" "$tmp/stap"
else
  fail "no build id: $(head -3 "$n/err")"
fi
# Another build at the same path: its companion is refused, in one line.
objcopy --remove-section .note.gnu.build-id "$other" "$n/prog"
checks=$((checks + 1))
if "$GOSTAP" list --json "$n/prog" > "$n/list.json" 2>"$n/err" &&
   [ "$(wc -l < "$n/err")" = 1 ] && grep -q 'companion debug file of another build' "$n/err" &&
   python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["has_dwarf"])' "$n/list.json"; then
  echo "ok - a companion of another build is not used: $(cat "$n/err")"
else
  fail "stale companion: $(head -3 "$n/err")"
fi

# --- gostap run writes the companion into its cache ---------------------------
run=$tmp/run
mkdir -p "$run"
cp "$other" "$run/prog"
checks=$((checks + 1))
if (unset SYSTEMTAP_DEBUGINFO_PATH
    XDG_CACHE_HOME=$run/cache GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$tapsets \
      "$GOSTAP" run -v -t "$run/prog" -p2 "$top_srcdir/examples/funclatency.stp" 'main.*' \
      > "$run/out" 2>"$run/err") &&
   ls "$run"/cache/gostap/debug/.build-id/*/*.debug >/dev/null 2>&1 &&
   grep -q '^process(' "$run/out" && ! grep -q "^gostap: running: .* -g " "$run/err"; then
  echo "ok - gostap run on a -s -w binary: companion in its cache, $(grep -c '^process(' "$run/out") probes, no -g"
else
  fail "gostap run -s -w: $(grep -v '^Pass\|^WARNING' "$run/err" | head -3)"
fi

# --- refused ---------------------------------------------------------------
twin=$(fixture 1.24 default abi)
expect_fail 1 "has DWARF of its own: no companion debug file needed" \
  "$GOSTAP" companion "$twin" -o "$tmp/unused"
[ ! -e "$tmp/unused" ] || fail "companion on a binary with DWARF wrote $tmp/unused"
# (argp folds its "Try" line at 79 columns: not for this longer name.)
ARGP_HELP_FMT=rmargin=200 expect_fail 64 "no debug directory given" "$GOSTAP" companion "$twin"

echo "companion:$(echo "$sum" | tr ' ' '\n' | awk -F= 'NF == 2 { s[$1] += $2; if (!($1 in o)) { o[$1] = n++ } }
  END { for (k in o) printf " %s=%d", k, s[k] }') pairs=$pairs"
finish
