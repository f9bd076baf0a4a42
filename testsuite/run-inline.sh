#!/bin/bash
# Probes on inlined functions (go.func.NAME at every inlined copy, issue
# 37), on the inline fixture (testsuite/fixtures/inline: small functions
# inlined into several callers, nested, a generic function, a method, a
# closure, some also called out of line through a function value), Go
# 1.19, 1.24 and 1.27 (GOSTAP_GO_VERSIONS), default and -s -w builds:
#  - check-inline.py: every inlined copy in package main that
#    `gostap list --json` reports (its function, the copy it is nested in,
#    its first pc) equals the DW_TAG_inlined_subroutine DIEs of Go's DWARF
#    as llvm-dwarfdump reads them (each copy's lowest address), no more,
#    no fewer; the -s -w build (read from its pclntab alone) against the
#    DWARF of its default twin, which has the same text; and at each first
#    pc the fixture's runtime.CallersFrames names an inlined copy there;
#  - the fixture runs and counts its own calls;
#  - `gostap gen` (all functions, and through the companion on -s -w) and
#    the real stap translator (stap -p2, libdw >= 0.191, no -g): the
#    fixture's count.stp places one probe per out-of-line function and
#    one per inlined copy, as many as list --json reports;
#    go.func.NAME.outofline places one, go.func.NAME.inlined one per copy,
#    and a function inlined only has no .return alias;
#  - `gostap run -p2` (the same translator): count.stp places as many
#    probes; refused in one line before stap (exit 2): go.func.NAME.return
#    of a function inlined only (naming its copies), an argument read in
#    go.func.NAME where NAME has inlined copies (which set none) or is
#    inlined only; passes: the argument in go.func.NAME.outofline,
#    inlined_in and goid in go.func.NAME.inlined.
# Exit: 0 pass, 1 a mismatch, 77 skip (no python3, llvm-dwarfdump or
# stap), 99 hard error.
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
command -v llvm-dwarfdump >/dev/null || skip "no llvm-dwarfdump (Debian: llvm)"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"
need_stap

versions=${GOSTAP_GO_VERSIONS:-1.19 1.24 1.27}
# shellcheck disable=SC2086
need_toolchains $versions > "$tmp/toolchains"
export GOSTAP_FIXTURES=inline
# shellcheck disable=SC2086
fixture_manifest $versions > "$tmp/manifest"
tapsets=$top_srcdir/tapsets
count_stp=$testsuite/fixtures/inline/count.stp

# expected JSON NAME...: the probes go.func.NAME has by list --json: one
# per out-of-line function (not an ABI wrapper), one per inlined copy.
expected () {
  python3 - "$@" <<'PY'
import json, sys, fnmatch
d = json.load(open(sys.argv[1]))
pats = sys.argv[2:]
n = 0
for f in d["functions"] + d.get("inlined_only", []):
    if not any(fnmatch.fnmatchcase(f["name"], p) for p in pats):
        continue
    n += "entry" in f
    n += len({(c["in"], c["pc"]) for c in f.get("inlined", [])})
print(n)
PY
}

# probes_p2 DIR SCRIPT [ENV...]: stap -p2's probe count, or fail.
probes_p2 () {
  local dir=$1 script=$2
  shift 2
  if ! env "$@" $STAP -p2 -I "$tapsets" -I "$dir" "$script" > "$tmp/p2.out" 2> "$tmp/p2.err"; then
    fail "stap -p2 $script with $dir: $(grep -m1 -i error "$tmp/p2.err")"
    echo -1
    return
  fi
  grep -c '^process(' "$tmp/p2.out" || true
}

# gostap run execs one program: the STAP command prefix in a script.
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
export GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$tapsets

# run_p2 WANT-STATUS WANT-STDERR-REGEX BIN SCRIPT-TEXT: gostap run -p2.
run_p2 () {
  local st=0
  printf '%s\n' "$4" > "$tmp/run.stp"
  XDG_CACHE_HOME=$tmp/xdg "$GOSTAP" run -t "$3" -p2 "$tmp/run.stp" > "$tmp/run.out" 2> "$tmp/run.err" || st=$?
  if [ "$st" != "$1" ] || { [ -n "$2" ] && ! grep -Eq "$2" "$tmp/run.err"; }; then
    fail "gostap run -p2 '$4' on $3: exit $st (want $1): $(head -c 400 "$tmp/run.err")"
  elif [ "$1" = 2 ] && [ "$(wc -l < "$tmp/run.err")" != 1 ]; then
    fail "gostap run -p2 '$4': not one line: $(head -c 400 "$tmp/run.err")"
  fi
}

copies=0 nested=0 binaries=0 placed=0
for v in $versions; do
  def=$(fixture "$v" default inline) || { fail "$def"; continue; }
  sw=$(fixture "$v" sw inline) || { fail "$sw"; continue; }
  # The fixture's own counts (4 of its callers call add, 50 times each).
  "$def" 50 > "$tmp/own" || fail "go $v: the fixture failed"
  grep -qx 'total main.add 200' "$tmp/own" || fail "go $v: the fixture's counts: $(grep total "$tmp/own" | tr '\n' ' ')"
  for bin in "$def" "$sw"; do
    label="go$v-${bin##*-}"
    if ! python3 "$testsuite/check-inline.py" "$bin" "$def" "$label" > "$tmp/check" 2>&1; then
      fail "$label: $(grep -m3 -A2 '^not ok\|Bail' "$tmp/check" | tr '\n' ' ')"
    fi
    cat "$tmp/check"
    c=$(sed -n 's/.*counts: copies=\([0-9]*\) nested=\([0-9]*\).*/\1 \2/p' "$tmp/check")
    copies=$((copies + ${c% *})) nested=$((nested + ${c#* })) binaries=$((binaries + 1))
  done

  # The translator on the tapsets of every function.
  "$GOSTAP" gen "$def" -o "$tmp/gen-$v" 2> "$tmp/gen.err" || { fail "go $v: gen: $(cat "$tmp/gen.err")"; continue; }
  "$GOSTAP" list --json "$def" > "$tmp/list.json"
  want=$(expected "$tmp/list.json" main.add main.sq main.mid 'main.(*acc).bump' main.callerC.func1 'main.Max*')
  got=$(probes_p2 "$tmp/gen-$v" "$count_stp")
  [ "$got" = "$want" ] || fail "go $v: count.stp: stap -p2 placed $got probes, list --json has $want"
  placed=$((placed + got))
  want=$(expected "$tmp/list.json" main.add)
  echo 'probe go.func.main.add.outofline { printf("%s %d\n", funcname, inlined) }' > "$tmp/out.stp"
  got=$(probes_p2 "$tmp/gen-$v" "$tmp/out.stp")
  [ "$got" = 1 ] || fail "go $v: go.func.main.add.outofline: $got probes, not 1"
  echo 'probe go.func.main.add.inlined { printf("%s %s\n", funcname, inlined_in) }' > "$tmp/in.stp"
  got=$(probes_p2 "$tmp/gen-$v" "$tmp/in.stp")
  [ "$got" = $((want - 1)) ] || fail "go $v: go.func.main.add.inlined: $got probes, not $((want - 1))"
  # stap's $NAME at an inlined copy: the inlined subroutine's parameter,
  # where Go's DWARF locates it at the copy's first pc (mid's x, on every
  # release checked), else stap's own clear error, never a value.
  echo 'probe go.func.main.mid.inlined { println($x) }' > "$tmp/var.stp"
  $STAP -p2 -I "$tapsets" -I "$tmp/gen-$v" "$tmp/var.stp" > /dev/null 2> "$tmp/var.err" ||
    fail "go $v: \$x in go.func.main.mid.inlined: $(grep -m1 error "$tmp/var.err")"
  echo 'probe go.func.main.add.inlined { println($a) }' > "$tmp/var.stp"
  if ! $STAP -p2 -I "$tapsets" -I "$tmp/gen-$v" "$tmp/var.stp" > /dev/null 2> "$tmp/var.err" &&
     ! grep -q 'not accessible at this address' "$tmp/var.err"; then
    fail "go $v: \$a in go.func.main.add.inlined: $(grep -m1 error "$tmp/var.err")"
  fi
  echo 'probe go.func.main.mid.return { }' > "$tmp/ret.stp"
  if $STAP -p2 -I "$tapsets" -I "$tmp/gen-$v" "$tmp/ret.stp" > /dev/null 2>&1; then
    fail "go $v: go.func.main.mid.return resolved: main.mid is inlined only"
  fi

  # gostap run, default and -s -w.
  want=$(expected "$tmp/list.json" main.add main.sq main.mid 'main.(*acc).bump' main.callerC.func1 'main.Max*')
  for bin in "$def" "$sw"; do
    XDG_CACHE_HOME=$tmp/xdg "$GOSTAP" run -t "$bin" -p2 "$count_stp" > "$tmp/run.out" 2> "$tmp/run.err" ||
      fail "go $v: gostap run -p2 count.stp on $bin: $(head -c 400 "$tmp/run.err")"
    got=$(grep -c '^process(' "$tmp/run.out" || true)
    [ "$got" = "$want" ] || fail "go $v: gostap run -p2 count.stp on $bin: $got probes, not $want"
  done
  run_p2 2 "^[^ ]*gostap: .*: go\.func\.main\.mid\.return: main\.mid is inlined only, 1 copies \(main\.callerB at 0x[0-9a-f]+\): an inlined copy has no return instruction" \
    "$def" 'probe go.func.main.mid.return { println(1) }'
  run_p2 2 "go\.func\.main\.add has no local 'a' on .*: an inlined copy \(3 of them\) sets no argument locals: go\.func\.main\.add\.outofline" \
    "$def" 'probe go.func.main.add { println(a) }'
  run_p2 2 "go\.func\.main\.mid has no local 'x' on .*: an inlined copy \(1 of them\) has no such local" \
    "$def" 'probe go.func.main.mid { println(x) }'
  run_p2 0 '' "$def" 'probe go.func.main.add.outofline { println(a, inlined) }'
  run_p2 0 '' "$def" 'probe go.func.main.add.inlined, go.func.main.mid { println(inlined_in, goid, funcname, lineno) }'

  # -s -w: through the companion gen writes into gostap's cache.
  "$GOSTAP" gen "$sw" -o "$tmp/gensw-$v" 'main.*' 2> "$tmp/gen.err" || { fail "go $v: gen -s -w: $(cat "$tmp/gen.err")"; continue; }
  dpath=$(sed -n 's/.*SYSTEMTAP_DEBUGINFO_PATH=\([^ ]*\).*/\1/p' "$tmp/gen.err")
  [ -n "$dpath" ] || { fail "go $v: gen -s -w named no SYSTEMTAP_DEBUGINFO_PATH: $(cat "$tmp/gen.err")"; continue; }
  want=$(expected "$tmp/list.json" main.add main.sq main.mid 'main.(*acc).bump' main.callerC.func1 'main.Max*')
  got=$(probes_p2 "$tmp/gensw-$v" "$count_stp" SYSTEMTAP_DEBUGINFO_PATH="$dpath")
  [ "$got" = "$want" ] || fail "go $v -s -w: count.stp: stap -p2 placed $got probes, list --json has $want"
done
echo "inline: binaries=$binaries copies=$copies nested=$nested probes_placed=$placed failures=$failures"
[ "$failures" = 0 ]
