#!/bin/bash
# Two refusals that say what to do, on the abi fixture of the newest Go
# release of the matrix, with the real stap translator (passes 1-2;
# stap-env.sh):
#  - gostap run refuses, before stap starts (exit 2, one line naming the
#    alias, the local and why), a script that reads a local an alias does
#    not set on the binary: an argument or result on the -w and -s -w
#    builds (no DWARF types), where stap only warned and the script
#    printed zeros; an argument in a return alias; a name no argument has,
#    in one of the functions a probe with several points names.  The same
#    scripts pass -p2 on the DWARF build with no "never-assigned" warning,
#    and what stap resolves is not refused: @defined guards, names in
#    comments and strings, locals the script sets (before or after the
#    read), globals of the script and of a -I directory, probes in a
#    preprocessor branch, alias definitions;
#  - gostap gen on the -s -w build (no DWARF, no .symtab), which it refused,
#    writes the companion debug file into its cache as gostap run does, and
#    says in one warning line the SYSTEMTAP_DEBUGINFO_PATH stap needs; with
#    it, stap -p2 places entry and return probes without -g; a second gen
#    says it again; with that directory already named, gen says nothing.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

need_stap

printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
fixture_manifest > "$tmp/manifest"
export GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets
unset SYSTEMTAP_DEBUGINFO_PATH
ver=$(awk '$3 == "sw" && $4 == "abi" && $5 == "amd64" { print $2 }' "$tmp/manifest" | sort -V | tail -1)
bin () { awk -v v="$ver" -v var="$1" '$2 == v && $3 == var && $4 == "abi" { print $1 }' "$tmp/manifest"; }
dflt=$(bin default) w=$(bin w) sw=$(bin sw)
if [ -z "$ver" ] || [ -z "$dflt" ] || [ -z "$w" ] || [ -z "$sw" ]; then
  hard_error "no default, -w and -s -w builds of the abi fixture in the manifest"
fi
echo "# Go $ver: $dflt, -w and -s -w"

# run_on BIN ARGS...: gostap run -t BIN ARGS, with a cache of BIN's own
# (the fixture's -w and -s -w twins share a GNU build id, so their
# companion debug files would take turns at one path in one cache).
run_on () {
  local b=$1
  shift
  XDG_CACHE_HOME=$tmp/cache-$(basename "$b") "$GOSTAP" run -t "$b" "$@"
}

# passes NAME BIN SCRIPT-ARGS...: gostap run -p2 succeeds, with no local
# left unassigned (the run of a guarded read may warn of the name it guards:
# NAME's own check says which).
passes () {
  local what=$1 b=$2 st=0
  shift 2
  checks=$((checks + 1))
  run_on "$b" -p2 "$@" >/dev/null 2>"$tmp/err" || st=$?
  if [ "$st" = 0 ] && ! grep -q "never-assigned\|semantic error" "$tmp/err"; then
    echo "ok - $what: passes -p2 on $(basename "$b")"
  else
    fail "$what on $(basename "$b"): exit $st: $(grep -v '^WARNING: address\|^gostap: .* folded' "$tmp/err" | head -4)"
  fi
}

# --- arguments and results on builds without DWARF types --------------------
# The function with float and complex arguments of the report, a struct,
# a result: each read refused on -w and -s -w, passing on the DWARF build.
args='probe go.func.main.fmulAdd { printf("a=%s|%#x b=%s|%#x\n", a, a_bits, b, b_bits) }'
strct='probe go.func.main.ptSum { printf("%d %d\n", p_X, p_Y) }'
cplx='probe go.func.main.cmul.return { printf("%s %#x\n", r0, r0_real_bits) }'
for b in "$w" "$sw"; do
  expect_fail 2 "^[^ ]*gostap: -e script:1: go\.func\.main\.fmulAdd has no local 'a' on $b: no DWARF types, so no argument locals \(the build used -w" \
    run_on "$b" -p2 -e "$args"
  expect_fail 2 "-e script:1: go\.func\.main\.ptSum has no local 'p_X' on $b: no DWARF types" \
    run_on "$b" -p2 -e "$strct"
  expect_fail 2 "-e script:1: go\.func\.main\.cmul\.return has no local 'r0' on $b: no DWARF types, so no result locals" \
    run_on "$b" -p2 -e "$cplx"
done
passes "float, complex and struct arguments, a complex result" "$dflt" \
  -e "$args $strct $cplx"

# A script file: the line of the read.
cat > "$tmp/lines.stp" <<'STP'
global calls
probe go.func.main.fmulAdd.return
{
	calls++
	// the arguments belong to the entry alias
	printf("%s -> %s\n", a, r0)
}
STP
expect_fail 2 "^[^ ]*gostap: $tmp/lines\.stp:6: go\.func\.main\.fmulAdd\.return has no local 'a' on $dflt: it is a local of go\.func\.main\.fmulAdd only$" \
  run_on "$dflt" -p2 "$tmp/lines.stp"
expect_fail 2 "-e script:1: go\.func\.main\.fmulAdd has no local 'r0' on $dflt: it is a local of go\.func\.main\.fmulAdd\.return only" \
  run_on "$dflt" -p2 -e 'probe go.func.main.fmulAdd { println(r0) }'
# Several points, a wildcard: the function that lacks the name is named.
expect_fail 2 "-e script:1: go\.func\.main\.ptSum has no local 'b_bits' on $dflt: no argument of that name \(its locals: goid, p_X, p_Y, p_Z\)" \
  run_on "$dflt" -p2 -e 'probe go.func.main.fmulAdd, go.func.main.ptSum { printf("%#x\n", b_bits) }'
expect_fail 2 "-e script:1: go\.func\.main\.addI8 has no local 'x' on $dflt: no argument of that name \(its locals: goid, a, b\)" \
  run_on "$dflt" -p2 -e 'probe go.func.main.add* { printf("%d\n", x) }'
passes "a wildcard whose every function has the names read" "$dflt" \
  -e 'probe go.func.main.add* { printf("%d %d %s\n", a, b, funcname) }'

# --- what stap resolves is not refused -------------------------------------
inc=$tmp/inc
mkdir -p "$inc"
echo 'global threshold = 3' > "$inc/mine.stp"
cat > "$tmp/ok.stp" <<'STP'
// a, a_bits and r0 are arguments and results: not read here.
/* printf("%s", b) */
# println(b_bits)
global seen, last
probe go.func.main.fmulAdd
{
	if (@defined(a_bits)) printf("%#x\n", a_bits)
	printf("%s b_bits a %d\n", funcname, goid)  # b in a string and a comment
	n = 1
	printf("%d %d %d\n", n, later, threshold)
	later = 2
	seen[goid] <<< 1
	foreach (k in last) printf("%d\n", k)
	last[goid] = @defined(b) ? 1 : 0
	try { x = 1 } catch (msg) { println(msg) }
}
probe go.func.main.fmulAdd.return { printf("%d %s\n", go_latency_ns, filename) }
// never probed: a branch not taken, an alias no probe uses
%( $# > 5 %? probe go.func.main.fmulAdd { println(a) } %)
probe unused = go.func.main.fmulAdd { y = a }
STP
for b in "$dflt" "$w" "$sw"; do
  checks=$((checks + 1))
  if run_on "$b" -p2 -I "$inc" "$tmp/ok.stp" >/dev/null 2>"$tmp/err" &&
     [ "$(grep -c 'never-assigned' "$tmp/err")" = "$([ "$b" = "$dflt" ] && echo 0 || echo 2)" ]; then
    echo "ok - guards, comments, strings, the script's own locals and globals, a -I global, a branch not taken, an unused alias: -p2 on $(basename "$b")"
  else
    fail "not refused on $(basename "$b"): $(grep -v '^WARNING: address\|folded' "$tmp/err" | head -4)"
  fi
done

# --- gostap gen on the -s -w build -------------------------------------------
gc=$tmp/gencache
dbg=$gc/gostap/debug
# Its stderr in $tmp/err, but for the line gen prints under a stap
# before 5.1 about its relay transport (run-old-libdw.sh checks that one).
gen_sw () {
  local st=0
  rm -rf "$tmp/ts"
  XDG_CACHE_HOME=$gc "$GOSTAP" gen "$sw" -o "$tmp/ts" 'main.fmulAdd' 'main.cmul' >/dev/null 2>"$tmp/err.all" || st=$?
  grep -v "^[^ ]*gostap: warning: stap [0-9.]*'s relay transport drops records" "$tmp/err.all" > "$tmp/err" || true
  return "$st"
}
checks=$((checks + 1))
if gen_sw && [ "$(wc -l < "$tmp/err")" = 1 ] &&
   grep -Eq "^[^ ]*gostap: $sw: warning: no DWARF and no \.symtab \(built with -ldflags='-s -w'\?\): the tapsets place its probes through the companion debug file $dbg/\.build-id/[0-9a-f]{2}/[0-9a-f]+\.debug in gostap's cache \(written now, as gostap run does\); for stap to find it, run stap with SYSTEMTAP_DEBUGINFO_PATH=[^ ]*:$dbg$" "$tmp/err" &&
   "$testsuite/check-tapset-lines.py" "$tmp/ts" >"$tmp/lines"; then
  echo "ok - gen -s -w: writes the companion into its cache and says so: $(cat "$tmp/err")"
else
  fail "gen -s -w: $(cat "$tmp/err" "$tmp/lines" 2>/dev/null | head -3)"
fi
path=$(sed -n 's/.*SYSTEMTAP_DEBUGINFO_PATH=//p' "$tmp/err")
checks=$((checks + 1))
if [ -n "$path" ] &&
   SYSTEMTAP_DEBUGINFO_PATH=$path $STAP -p2 -I "$tmp/ts" -I "$GOSTAP_TAPSETS" \
     -e 'probe go.func.main.fmulAdd { println(funcname) } probe go.func.main.cmul.return { println(go_latency_ns) }' \
     >"$tmp/p2" 2>"$tmp/err2" &&
   [ "$(grep -c '^process(".*")\.statement(0x[0-9a-f]*)' "$tmp/p2")" -ge 2 ]; then
  echo "ok - gen -s -w: stap -p2 with that SYSTEMTAP_DEBUGINFO_PATH places $(grep -c '^process(' "$tmp/p2") probes, without -g"
else
  fail "gen -s -w: stap -p2 with SYSTEMTAP_DEBUGINFO_PATH=$path: $(grep -v '^WARNING' "$tmp/err2" | head -3)"
fi
checks=$((checks + 1))
if gen_sw && [ "$(wc -l < "$tmp/err")" = 1 ] &&
   grep -q "in gostap's cache (written before); .*SYSTEMTAP_DEBUGINFO_PATH=[^ ]*:$dbg$" "$tmp/err"; then
  echo "ok - gen -s -w again: the companion written before, the same advice"
else
  fail "gen -s -w again: $(head -3 "$tmp/err")"
fi
checks=$((checks + 1))
if SYSTEMTAP_DEBUGINFO_PATH=$path gen_sw && [ ! -s "$tmp/err" ] && [ -s "$tmp/ts/go_funcs.stp" ]; then
  echo "ok - gen -s -w with the directory in SYSTEMTAP_DEBUGINFO_PATH: nothing to say"
else
  fail "gen -s -w with SYSTEMTAP_DEBUGINFO_PATH=$path: $(head -3 "$tmp/err")"
fi

finish
