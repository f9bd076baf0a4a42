#!/bin/bash
# gostap run, doctor and the --help examples, with the real stap translator
# (passes 1-2; stap-env.sh) on the demo program (examples/demo) built by
# every Go release of the matrix:
#  - gostap run -p2 of every example script succeeds, with no local the
#    script reads left unassigned;
#  - the tapset cache: a miss generates, a hit reuses the directory, a
#    changed binary gets a new one;
#  - each preflight failure, faked: stap missing, stap too old, not root
#    (setpriv), no uprobes (a kernel config without CONFIG_UPROBES), no
#    module loading (this host); libdw too old: run-old-libdw.sh;
#  - a non-Go target and usage errors;
#  - every example of every --help text.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

need_stap

# gostap execs one program: wrap the STAP command prefix in a script.
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
examples=$top_srcdir/examples
fixture_manifest > "$tmp/manifest"
# gostap's own cache, in the test's directory (set after the fixtures,
# which live in the test cache under the real XDG_CACHE_HOME).
export GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets
export XDG_CACHE_HOME=$tmp/cache
# The default builds (the -s -w one, for the e2e test's newstack job, has
# no argument values for args.stp and blocking.stp to print).
fixture_failures '$4 == "demo" && $3 == "default"'
demos=$(awk '$4 == "demo" && $3 == "default" { print $1 }' "$tmp/manifest")
[ -n "$demos" ] || hard_error "no demo binaries in the manifest"

# Every example on every release, but cpuprofile.stp: its timer.profile
# needs the exports of a real kernel (perf_event_create_kernel_counter),
# which the stub build tree of stap-env.sh does not list; it is compiled
# and run in the guest (run-e2e.sh, job cpuprofile).
echo "# cpuprofile.stp: not elaborated here (timer.profile needs a real kernel's exports); run-e2e.sh runs it"
# httplatency.stp needs net/http, which the demo does not use: it runs on
# the http fixture of the same release.
for demo in $demos; do
  for ex in "$examples"/*.stp; do
    [ "$(basename "$ex")" = cpuprofile.stp ] && continue
    target=$demo cmd="$demo 1"
    checks=$((checks + 1))
    if [ "$(basename "$ex")" = httplatency.stp ]; then
      v=$(awk -v d="$demo" '$1 == d { print $2 }' "$tmp/manifest")
      target=$(fixture "$v" default http 2>/dev/null) || true
      cmd=$target
      if [ -z "$target" ]; then
        fail "gostap run -p2 httplatency.stp, Go $v: $(fixture_missing "$v" default http)"
        continue
      fi
    fi
    if "$GOSTAP" run -c "$cmd" -p2 "$ex" >/dev/null 2>"$tmp/err" &&
       ! grep -q "never-assigned\|semantic error" "$tmp/err"; then
      echo "ok - gostap run -p2 $(basename "$ex") on $(basename "$target")"
    else
      fail "gostap run -p2 $(basename "$ex") on $target: $(grep -v '^WARNING: address' "$tmp/err" 2>/dev/null | head -5)"
    fi
  done
done
demo=$(echo "$demos" | tail -1)

# The cache (tapsets; not the copy of stap's runtime a stap before 5.1
# gets, run-old-libdw.sh).
cp "$demo" "$tmp/demo"
script='probe go.func.main.rec { printf("%d\n", n) }'
run_e () { "$GOSTAP" run -t "$tmp/demo" -p2 -e "$script"; }
rm -rf "$tmp/cache"
checks=$((checks + 1))
run_e >/dev/null 2>&1 || true
first=$(find "$tmp/cache/gostap" -mindepth 2 -maxdepth 2 -type d -not -name '.*' -not -path '*/gostap/runtime/*' -not -path '*/gostap/scripts/*')
[ "$(echo "$first" | wc -l)" = 1 ] && [ -f "$first/go_funcs.stp" ] &&
  echo "ok - cache miss: generated $first" || fail "cache miss: $first"
touch -d '2000-01-01' "$first/go_funcs.stp"
run_e >/dev/null 2>&1 || true
checks=$((checks + 1))
[ "$(find "$tmp/cache/gostap" -mindepth 2 -maxdepth 2 -type d -not -name '.*' -not -path '*/gostap/runtime/*' -not -path '*/gostap/scripts/*' | wc -l)" = 1 ] &&
  [ "$(stat -c %Y "$first/go_funcs.stp")" = "$(date -d 2000-01-01 +%s)" ] &&
  echo "ok - cache hit: reused" || fail "cache hit: the directory was not reused"
# The key is the binary's identity (device, inode, size, mtime, ctime;
# run-cache.c): a run with none of them changed reuses the entry (above),
# a touch (new mtime and ctime, the same bytes) gets a new one, and so
# does a byte more (after the section headers: still the same ELF file,
# same build id).
checks=$((checks + 1))
touch "$tmp/demo"
run_e >/dev/null 2>&1 || true
[ "$(find "$tmp/cache/gostap" -mindepth 2 -maxdepth 2 -type d -not -name '.*' -not -path '*/gostap/runtime/*' -not -path '*/gostap/scripts/*' | wc -l)" = 2 ] &&
  echo "ok - cache key: the same bytes with a new mtime and ctime get a new entry" ||
  fail "cache key after touch: $(find "$tmp/cache/gostap" -maxdepth 2)"
checks=$((checks + 1))
printf '\0' >> "$tmp/demo"
run_e >/dev/null 2>&1 || true
[ "$(find "$tmp/cache/gostap" -mindepth 2 -maxdepth 2 -type d -not -name '.*' -not -path '*/gostap/runtime/*' -not -path '*/gostap/scripts/*' | wc -l)" = 3 ] &&
  echo "ok - cache invalidation: a changed binary gets new tapsets" ||
  fail "cache invalidation: $(find "$tmp/cache/gostap" -maxdepth 2)"
grep -rq 'go.func.main.rec =' "$tmp/cache/gostap" || fail "the cached tapsets lack main.rec"
! grep -rq 'go.func.main.add =' "$tmp/cache/gostap" &&
  echo "ok - only what the script uses was generated" || fail "unused aliases generated"

# One handler per address (write-funcs.c): stap -p2 lists the probes it
# derived; count those at main.rec's body address. A script using both
# aliases gets one there (the entry alias records the call), through
# gostap run and through gen --script with stap by hand; an entry probe
# with a condition keeps the pairing's own probe beside it (two); so does
# one in a preprocessor branch or an alias definition, which may not be
# probed at all (then the pairing's probe is the one there); the return
# alias alone brings its pairing probe (one); the entry alias alone brings
# no pairing at all (no _go_pair_entry global).
body=$("$GOSTAP" list --json "$tmp/demo" main.rec | python3 -c '
import json, sys
print([f["body"] for f in json.load(sys.stdin)["functions"] if f["name"] == "main.rec"][0])')
at_body () { grep -c "^process(\"[^\"]*\")\.statement($body) " "$1"; }
both='probe go.func.main.rec { printf("%d\n", n) }
probe go.func.main.rec.return { printf("%d\n", go_latency_ns) }'
for c in "both 1 $both" \
         "conditional 2 global on = 1 probe go.func.main.rec if (on) { printf(\"%d\n\", n) } probe go.func.main.rec.return { printf(\"%d\n\", go_latency_ns) }" \
         "preprocessor-branch-not-taken 1 %( \$# > 0 %? probe go.func.main.rec { printf(\"%d\n\", n) } %) probe go.func.main.rec.return { printf(\"%d\n\", go_latency_ns) }" \
         "unused-alias-definition 1 probe myrec = go.func.main.rec { } probe go.func.main.rec.return { printf(\"%d\n\", go_latency_ns) }" \
         "return-only 1 probe go.func.main.rec.return { printf(\"%d\n\", go_latency_ns) }" \
         "entry-only 1 probe go.func.main.rec { printf(\"%d\n\", n) }"; do
  read -r what want text <<< "$c"
  checks=$((checks + 1))
  rm -rf "$tmp/cache-h"
  if XDG_CACHE_HOME=$tmp/cache-h "$GOSTAP" run -t "$tmp/demo" -p2 -e "$text" > "$tmp/p2" 2>"$tmp/err" &&
     [ "$(at_body "$tmp/p2")" = "$want" ] &&
     { [ "$what" != entry-only ] || ! grep -q '_go_pair_entry' "$tmp/p2"; }; then
    echo "ok - $what: $want probe handler(s) at main.rec's entry ($body)"
  else
    fail "$what: $(at_body "$tmp/p2" 2>/dev/null) probes at $body, want $want: $(grep -v '^WARNING' "$tmp/err" | head -3)"
  fi
done
checks=$((checks + 1))
printf '%s\n' "$both" > "$tmp/both.stp"
if "$GOSTAP" gen "$tmp/demo" -o "$tmp/both-ts" --script "$tmp/both.stp" 'main.rec' &&
   "$GOSTAP" gen "$tmp/demo" -o "$tmp/plain-ts" 'main.rec' &&
   $STAP -g -p2 -I "$tmp/both-ts" -I "$GOSTAP_TAPSETS" "$tmp/both.stp" > "$tmp/p2" 2>"$tmp/err" &&
   [ "$(at_body "$tmp/p2")" = 1 ] &&
   $STAP -g -p2 -I "$tmp/plain-ts" -I "$GOSTAP_TAPSETS" "$tmp/both.stp" > "$tmp/p2" 2>"$tmp/err" &&
   [ "$(at_body "$tmp/p2")" = 2 ]; then
  echo "ok - gen --script: one handler at the entry for a script using both aliases (two on the plain tapsets)"
else
  fail "gen --script: $(at_body "$tmp/p2" 2>/dev/null) probes at $body: $(grep -v '^WARNING' "$tmp/err" | head -3)"
fi

# stap's warning for each probe placed between line-table rows (RETs,
# bodies) is folded into one line with the count (run-stderr.c); -v
# passes each. The count must be the number -v shows, the addresses those
# of the generated return and entry probes; a warning for an address in
# no Go function, and every other line, pass unchanged.
checks=$((checks + 1))
ex=$top_srcdir/examples/funclatency.stp
"$GOSTAP" run -t "$tmp/demo" -p2 "$ex" > /dev/null 2> "$tmp/fold.err" || true
"$GOSTAP" run -v -t "$tmp/demo" -p2 "$ex" > /dev/null 2> "$tmp/all.err" || true
n=$(grep -c 'does not match the beginning of a statement' "$tmp/all.err" || true)
folded=$(sed -n 's/^gostap: \([0-9]*\) probes\{0,1\} placed between line-table rows on purpose.*/\1/p' "$tmp/fold.err")
gen_addrs=$(grep -rhoE 'statement\(0x[0-9a-f]+\)' "$tmp/cache/gostap" | grep -oE '0x[0-9a-f]+' | sort -u)
warned=$(grep -oE '^WARNING: address 0x[0-9a-f]+ does not match' "$tmp/all.err" | grep -oE '0x[0-9a-f]+' | sort -u)
if [ "$n" -gt 0 ] && [ "$folded" = "$n" ] &&
   ! grep -q '^WARNING: address .* does not match the beginning' "$tmp/fold.err" &&
   [ -z "$(comm -23 <(echo "$warned") <(echo "$gen_addrs"))" ] &&
   [ "$(grep -vc '^WARNING: address .* does not match the beginning' "$tmp/all.err")" -ge "$(grep -vc '^gostap: ' "$tmp/fold.err")" ]; then
  echo "ok - stap's $n warnings for probes between line-table rows: one line ($(cut -c1-80 "$tmp/fold.err" | grep '^gostap: ')...), each under -v, every address a generated probe's"
else
  fail "warning fold: $n warnings under -v, folded '$folded', not generated: $(comm -23 <(echo "$warned") <(echo "$gen_addrs") | head -3 | tr '\n' ' '); $(head -3 "$tmp/fold.err")"
fi
# The C function of a cgo build is no Go function: its warning passes.
# (The newest release's: the last of the manifest, or of the failed builds.)
cgov=$(awk '$3 == "cgo" { print $2 }' "$tmp/fixtures.manifest" "$tmp/fixtures.failed" | sort -V | tail -1)
cgo=$(fixture "$cgov" cgo cgo 2>/dev/null) || true
ccmul=$(nm "$cgo" 2>/dev/null | awk '$2 == "T" && $3 ~ /^_cgo_.*_Cfunc_cmul$/ { print $1 }')
checks=$((checks + 1))
if [ -z "$cgo" ]; then
  fail "a C function's address: $(fixture_missing "$cgov" cgo cgo)"
elif [ -z "$ccmul" ]; then
  fail "no C function _cgo_*_Cfunc_cmul in $cgo (nm)"
else
  # entry + 1: inside its first instruction, never a line-table row
  printf 'probe process("%s").statement(0x%x) { }\n' "$cgo" $((0x$ccmul + 1)) > "$tmp/cfunc.stp"
  "$GOSTAP" run -t "$cgo" -p2 "$tmp/cfunc.stp" > /dev/null 2> "$tmp/cfunc.err" || true
  if grep -q "^WARNING: address 0x$(printf %x $((0x$ccmul + 1))) does not match the beginning of a statement" "$tmp/cfunc.err" &&
     ! grep -q '^gostap: .* placed between line-table rows' "$tmp/cfunc.err"; then
    echo "ok - stap's warning for a C function's address passes unfolded: $(grep '^WARNING: address' "$tmp/cfunc.err")"
  else
    fail "the warning for C function _Cfunc_cmul+1: $(head -3 "$tmp/cfunc.err")"
  fi
fi

# Probe points without wildcards are looked up by name (cmd-run.c
# named_functions); with one wildcard among them, every function's alias is
# matched. Both must generate the same tapsets: every main.* alias of the
# Go 1.19 abi fixture (pointer methods, -fm wrappers, generic twins with
# ._E<entry>), entry and return, once alone and once beside an optional
# wildcard point that matches nothing.
abi119=$(fixture 1.19 default abi 2>/dev/null) || true
checks=$((checks + 1))
if [ -z "$abi119" ]; then
  fail "named vs swept probe points: $(fixture_missing 1.19 default abi)"
elif "$GOSTAP" list --json "$abi119" 'main.*' > "$tmp/abi.json" &&
   python3 - "$tmp/abi.json" > "$tmp/named.stp" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    print("probe %s, %s.return { }" % (f["probe"], f["probe"]))
PY
then
  { cat "$tmp/named.stp"; echo 'probe go.func.nosuch_*.return ? { }'; } > "$tmp/swept.stp"
  rm -rf "$tmp/cache-named" "$tmp/cache-swept"
  if XDG_CACHE_HOME=$tmp/cache-named "$GOSTAP" run -t "$abi119" -p2 "$tmp/named.stp" >/dev/null 2>"$tmp/err" &&
     XDG_CACHE_HOME=$tmp/cache-swept "$GOSTAP" run -t "$abi119" -p2 "$tmp/swept.stp" >/dev/null 2>>"$tmp/err" &&
     dn=$(find "$tmp/cache-named/gostap" -mindepth 2 -maxdepth 2 -type d -not -path "*/gostap/runtime/*" -not -path "*/gostap/scripts/*") &&
     ds=$(find "$tmp/cache-swept/gostap" -mindepth 2 -maxdepth 2 -type d -not -path "*/gostap/runtime/*" -not -path "*/gostap/scripts/*") &&
     diff -r "$dn" "$ds" > "$tmp/diff" &&
     [ "$(grep -c '^probe go.func.main.*\.return =' "$dn/go_funcs.stp")" = "$(grep -c . "$tmp/named.stp")" ]; then
    echo "ok - $(grep -c . "$tmp/named.stp") main.* functions named exactly: the tapsets of the lookup by name equal those of the match against every alias"
  else
    fail "named vs swept probe points on $abi119: $(grep -v '^WARNING' "$tmp/err" | head -3; head -5 "$tmp/diff" 2>/dev/null)"
  fi
else
  fail "gostap list --json failed on $abi119"
fi

demo1=$(echo "$demos" | head -1)
# NAME_fmt locals: an alias sets those a script reads, and only for such a
# script (stap keeps a go_fmt call nothing reads): main.handle's error
# result r1 (an interface with methods, its type from the itab) and its
# string result r0 (go_fmt of the string's runtime type descriptor, which
# DWARF names, at the scratch buffer its two registers are put in); a
# NAME_fmt no alias sets is refused before stap runs.
checks=$((checks + 1))
printf 'probe go.func.main.handle.return { println(r1_fmt) }\n' > "$tmp/fmtl.stp"
printf 'probe go.func.main.handle.return { println(r1_type_name) }\n' > "$tmp/nofmtl.stp"
printf 'probe go.func.main.handle.return { println(r0_fmt) }\n' > "$tmp/r0fmtl.stp"
rm -rf "$tmp/gfmt" "$tmp/gnofmt" "$tmp/gr0fmt"
if "$GOSTAP" gen "$demo1" -o "$tmp/gfmt" --script "$tmp/fmtl.stp" 'main.handle' 2>/dev/null &&
   "$GOSTAP" gen "$demo1" -o "$tmp/gnofmt" --script "$tmp/nofmtl.stp" 'main.handle' 2>/dev/null &&
   "$GOSTAP" gen "$demo1" -o "$tmp/gr0fmt" --script "$tmp/r0fmtl.stp" 'main.handle' 2>/dev/null &&
   grep -q '^  r1_fmt = go_fmt_any(go_itab_type(r1_type), r1_data)$' "$tmp/gfmt/go_funcs.stp" &&
   ! grep -q 'r0_fmt = ' "$tmp/gfmt/go_funcs.stp" &&
   ! grep -q '_fmt = ' "$tmp/gnofmt/go_funcs.stp" &&
   grep -q '^  r0_fmt = _go_fmt_typed(0x[0-9a-f]*, _go_fmt_scratch())$' "$tmp/gr0fmt/go_funcs.stp" &&
   ! grep -q 'r1_fmt = ' "$tmp/gr0fmt/go_funcs.stp" &&
   "$GOSTAP" run -t "$demo1" -p2 "$tmp/fmtl.stp" > /dev/null 2> "$tmp/fmtl.err" &&
   "$GOSTAP" run -t "$demo1" -p2 "$tmp/r0fmtl.stp" > /dev/null 2> "$tmp/r0fmt.err" &&
   { st=0; "$GOSTAP" run -t "$demo1" -p2 -e 'probe go.func.main.handle.return { println(nosuch_fmt) }' \
       > /dev/null 2> "$tmp/nofmt.err" || st=$?; [ "$st" = 2 ]; } &&
   grep -q "has no local 'nosuch_fmt'" "$tmp/nofmt.err"; then
  echo "ok - NAME_fmt: r1_fmt (the error result) and r0_fmt (the string result, from its type's descriptor) each set for a script that reads it alone, none for one that reads none; gostap run -p2 takes them and refuses nosuch_fmt"
else
  fail "NAME_fmt locals: $(grep -h 'fmt\|ERROR\|error' "$tmp/gfmt/go_funcs.stp" "$tmp/gr0fmt/go_funcs.stp" "$tmp/fmtl.err" "$tmp/r0fmt.err" "$tmp/nofmt.err" 2>/dev/null | head -4)"
fi

# @go_fmt of a DWARF value (src/run-gofmt.c), expanded by gen --script and
# gostap run from the function's DWARF: main.validate's r is a *request,
# $r->name the string at its field, printed with the descriptor DWARF
# names for it (an offset from runtime.types), which `gostap types` (the
# type data, not DWARF) names "string", and $r
# alone the alias's r_fmt; stap -p2 takes the expanded script.  Refused in
# one line naming the script's line: a field of a struct in registers
# (handle's r), a field no struct has, @go_fmt outside a go.func probe, a
# value that is no DWARF path.
demo119=$(awk '$4 == "demo" && $3 == "default" && $2 == "1.19" { print $1 }' "$tmp/manifest")
if [ -n "$demo119" ]; then
  printf 'probe go.func.main.validate {\n  println(@go_fmt($r->name), @go_fmt( $r ))\n}\n' > "$tmp/gofmt.stp"
  rm -rf "$tmp/ggofmt"
  re='^  println\(_go_fmt_typed\((0x[0-9a-f]+), _go_reg_[a-z0-9]+\(\) \+ [0-9]+\), r_fmt\)$'
  if "$GOSTAP" gen "$demo119" -o "$tmp/ggofmt" --script "$tmp/gofmt.stp" 'main.validate' 2> "$tmp/ggofmt.err" &&
     grep -q "gofmt.stp uses @go_fmt: stap by hand reads its expanded copy $tmp/ggofmt/gofmt.stp.expanded" "$tmp/ggofmt.err" &&
     [[ $(sed -n 2p "$tmp/ggofmt/gofmt.stp.expanded") =~ $re ]] &&
     start=$(readelf -sW "$demo119" | awk '$8 == "runtime.types" { print $2 }') && [ -n "$start" ] &&
     "$GOSTAP" types --json "$demo119" "$(printf '%#x' $((0x$start + BASH_REMATCH[1])))" | grep -q '"name":"string"' &&
     grep -q '^  r_fmt = ' "$tmp/ggofmt/go_funcs.stp" &&
     "$GOSTAP" run -t "$demo119" -p2 "$tmp/gofmt.stp" > "$tmp/gofmt.p2" 2> "$tmp/gofmt.err"; then
    echo "ok - @go_fmt(\$r->name) expanded from DWARF (gen --script's copy, the descriptor of string), @go_fmt(\$r) as r_fmt; gostap run -p2 takes it"
  else
    fail "@go_fmt expansion: $(cat "$tmp/ggofmt.err" "$tmp/gofmt.err" 2>/dev/null | grep -v '^WARNING' | head -3; sed -n 2p "$tmp/ggofmt/gofmt.stp.expanded" 2>/dev/null)"
  fi
  printf '\nprobe go.func.main.handle { println(@go_fmt($r->name)) }\n' > "$tmp/gofmt2.stp"
  expect_fail 2 "gofmt2.stp:2: @go_fmt\(\\\$r->name\) in main.handle: the value is a struct in registers" \
    "$GOSTAP" run -t "$demo119" -p2 "$tmp/gofmt2.stp"
  expect_fail 2 "-e script:1: @go_fmt\(\\\$r->nosuch\) in main.validate: a struct on the path has no field of that name" \
    "$GOSTAP" run -t "$demo119" -p2 -e 'probe go.func.main.validate { println(@go_fmt($r->nosuch)) }'
  expect_fail 2 "-e script:2: @go_fmt\(\\\$x->y\) is for a probe on go.func points only" \
    "$GOSTAP" run -t "$demo119" -p2 -e '// begin
probe begin { println(@go_fmt($x->y)) }'
  expect_fail 2 "-e script:1: @go_fmt takes a DWARF value" \
    "$GOSTAP" run -t "$demo119" -p2 -e 'probe go.func.main.validate { println(@go_fmt(1 + 2)) }'
else
  fail "no Go 1.19 demo build in the manifest"
fi

# Preflight failures, one line each.
s=$examples/newstack.stp
GOSTAP_STAP=/nonexistent/stap expect_fail 1 "cannot run '/nonexistent/stap'" "$GOSTAP" run -t "$demo" -p2 "$s"
printf '#!/bin/sh\necho "Systemtap translator/driver (version 3.2/0.170, rpm)"\n' > "$tmp/oldstap"
chmod +x "$tmp/oldstap"
GOSTAP_STAP=$tmp/oldstap expect_fail 1 "SystemTap 3.2 is too old" "$GOSTAP" run -t "$demo" -p2 "$s"
# libdw older than 0.191 (the system's own stap here): run-old-libdw.sh.
# stap before 4.5 (bullseye's 4.4): doctor says its transport drops
# records, which gostap cannot fix (measured in the bullseye guest).
printf '#!/bin/sh\necho "Systemtap translator/driver (version 4.4/0.183/0.182, Debian version 4.4-2)"\n' > "$tmp/stap44"
chmod +x "$tmp/stap44"
checks=$((checks + 1))
if GOSTAP_STAP=$tmp/stap44 "$GOSTAP" doctor > "$tmp/o" 2>&1 &&
   grep -q "^??  transport  *stap 4\.4's transport (before upstream's rework in 4\.5-4\.7) drops records" "$tmp/o" &&
   [ "$(grep -c ' transport ' "$tmp/o")" = 1 ]; then
  echo "ok - doctor on stap 4.4: one ?? transport line"
else
  fail "doctor on stap 4.4: $(grep transport "$tmp/o")"
fi
printf 'CONFIG_64BIT=y\n# CONFIG_UPROBES is not set\n' > "$tmp/kconfig"
GOSTAP_KCONFIG=$tmp/kconfig expect_fail 1 "no uprobes" "$GOSTAP" run -t "$demo" "$s"
# doctor reports the checks run makes, as run makes them: the same line.
checks=$((checks + 1))
GOSTAP_KCONFIG=$tmp/kconfig "$GOSTAP" run -t "$demo" "$s" >/dev/null 2>"$tmp/err" || true
GOSTAP_KCONFIG=$tmp/kconfig "$GOSTAP" doctor > "$tmp/o"
why=$(sed 's/^[^:]*: //' "$tmp/err")
if [ -n "$why" ] && grep -F -- "$why" "$tmp/o" | grep -q '^NO  uprobes  '; then
  echo "ok - doctor says what run says: NO uprobes: $why"
else
  fail "doctor and run disagree on uprobes: run: $why; doctor: $(grep uprobes "$tmp/o")"
fi
if [ ! -e /proc/modules ]; then
  expect_fail 1 "cannot load modules" "$GOSTAP" run -t "$demo" "$s"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  pub=$(mktemp -d /tmp/gostap-cli.XXXXXX)
  # A stap that reports a good version: the check that must fail is the
  # privilege one, which comes after the version checks.
  printf '#!/bin/sh\necho "Systemtap translator/driver (version 4.8/0.192/0.188)"\n' > "$tmp/goodstap"
  chmod 755 "$tmp/goodstap"
  chmod 755 "$pub"; cp "$demo" "$s" "$tmp/goodstap" "$pub/"; chmod -R a+rX "$pub"
  # nobody's own cache: one writable by others would be refused first
  # (run-cache-trust.sh).
  mkdir -m 700 "$pub/cache"; chown 65534:65534 "$pub/cache"
  XDG_CACHE_HOME=$pub/cache GOSTAP_STAP=$pub/goodstap expect_fail 1 "not root and not in the stapdev group" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$GOSTAP" run -t "$pub/$(basename "$demo")" "$pub/newstack.stp"
  rm -rf "$pub"
fi
expect_fail 2 "/bin/true: not a Go binary" "$GOSTAP" run -c /bin/true -p2 "$s"
expect_fail 64 "no target" "$GOSTAP" run "$s"

# stap killed (SIGKILL) with its stapio running on, the module loaded
# and the probes live (as measured in the e2e faults job): gostap, their
# subreaper, sends them SIGTERM (stapio's end of a run) and says so. A
# fake stap here: it starts a "stapio" (a copy of sleep) and kills itself.
cp "$(command -v sleep)" "$tmp/stapio"
cat > "$tmp/killedstap" <<EOF
#!/bin/sh
case "\$*" in *-V*) echo "Systemtap translator/driver (version 5.1/0.192/0.192)"; exit 0 ;; esac
"$tmp/stapio" 600 &
echo \$! > "$tmp/stapio.pid"
# Killed only once its child is stapio: before its exec, the child still
# bears this script's name, which gostap rightly leaves alone (seen under
# load: exit 137 and no line, the "stapio" running on).
until [ "\$(cat /proc/\$!/comm 2>/dev/null)" = stapio ]; do sleep 0.01; done
kill -9 \$\$
EOF
chmod +x "$tmp/killedstap"
checks=$((checks + 1))
st=0
GOSTAP_STAP=$tmp/killedstap timeout 60 "$GOSTAP" run -t "$demo" -p2 -e 'probe go.func.main.rec { println(1) }' \
  > "$tmp/o" 2> "$tmp/err" || st=$?
orphan=$(cat "$tmp/stapio.pid" 2>/dev/null)
if [ "$st" = 137 ] && [ -n "$orphan" ] && ! kill -0 "$orphan" 2>/dev/null &&
   grep -q "gostap: stap was killed by signal 9: stopping what it left running (stapio $orphan), so that its probes go$" "$tmp/err"; then
  echo "ok - stap killed: exit 137, its orphaned stapio ($orphan) stopped, one line says so"
else
  fail "stap killed: exit $st, stapio $orphan $(kill -0 "$orphan" 2>/dev/null && echo 'still running'), stderr: $(head -3 "$tmp/err")"
  [ -z "$orphan" ] || kill "$orphan" 2>/dev/null || true
fi

# What stap says at the end that it lost (its own warnings, as the
# translator's module and its transport print them) gostap adds up and
# says in one line after the run (-p2 here: the run is the fake's): a fake stap that prints them (the
# transport's line in two writes, as a pipe may deliver it), exit 0.
cat > "$tmp/lossystap" <<EOF
#!/bin/sh
case "\$*" in *-V*) echo "Systemtap translator/driver (version 5.1/0.192/0.192)"; exit 0 ;; esac
echo "out 1"
printf 'WARNING: There were 3 transp' >&2
sleep 0.3
printf 'ort failures. Try stap -s to increase the buffer size from 16.\n' >&2
echo "WARNING: Number of errors: 0, skipped probes: 41" >&2
EOF
chmod +x "$tmp/lossystap"
checks=$((checks + 1))
st=0
GOSTAP_STAP=$tmp/lossystap timeout 60 "$GOSTAP" run -t "$demo" -p2 -e 'probe go.func.main.rec { println(1) }' \
  > "$tmp/o" 2> "$tmp/err" || st=$?
want="gostap: stap lost 41 probe hits (skipped probes: their handlers did not run) and 3 output records (transport failures: printed, then dropped): the script's counts and output may be short by that many"
if [ "$st" = 0 ] && [ "$(tail -1 "$tmp/err")" = "$want" ] &&
   grep -q "^WARNING: There were 3 transport failures. Try stap -s" "$tmp/err" &&
   grep -q "^WARNING: Number of errors: 0, skipped probes: 41$" "$tmp/err"; then
  echo "ok - stap's losses: its warnings pass, and one line at the end adds them up"
else
  fail "stap's losses: exit $st, stderr: $(tail -3 "$tmp/err")"
fi
# None lost: no such line.
printf '#!/bin/sh\ncase "$*" in *-V*) echo "Systemtap translator/driver (version 5.1/0.192/0.192)"; exit 0 ;; esac\necho "WARNING: Number of errors: 0, skipped probes: 0" >&2\n' > "$tmp/cleanstap"
chmod +x "$tmp/cleanstap"
checks=$((checks + 1))
st=0
GOSTAP_STAP=$tmp/cleanstap timeout 60 "$GOSTAP" run -t "$demo" -p2 -e 'probe go.func.main.rec { println(1) }' \
  > "$tmp/o" 2> "$tmp/err" || st=$?
if [ "$st" = 0 ] && ! grep -q "^gostap: stap lost" "$tmp/err"; then
  echo "ok - stap lost nothing: no line of losses"
else
  fail "stap lost nothing: exit $st, stderr: $(tail -3 "$tmp/err")"
fi
# A script given by path is read once: stap gets a copy of what gostap
# read and checked, in gostap's cache under the script's name, so a swap
# of the file after gostap's check changes nothing. A fake stap that
# swaps the file first, then prints the script it was given.
printf 'probe go.func.main.rec { println(1) } // the one gostap read\n' > "$tmp/once.stp"
cat > "$tmp/swapstap" <<EOF
#!/bin/sh
case "\$*" in *-V*) echo "Systemtap translator/driver (version 5.1/0.192/0.192)"; exit 0 ;; esac
for a; do last=\$a; done
printf 'probe begin { system("id") } // swapped in\n' > "$tmp/once.stp"
echo "script: \$last"
cat "\$last"
EOF
chmod +x "$tmp/swapstap"
checks=$((checks + 1))
st=0
GOSTAP_STAP=$tmp/swapstap timeout 60 "$GOSTAP" run -t "$demo" -p2 "$tmp/once.stp" > "$tmp/o" 2> "$tmp/err" || st=$?
if [ "$st" = 0 ] && grep -q "^script: $XDG_CACHE_HOME/gostap/scripts/[0-9a-f]\{16\}/once.stp$" "$tmp/o" &&
   grep -q "the one gostap read" "$tmp/o" && ! grep -q "swapped in" "$tmp/o"; then
  echo "ok - a script is read once: stap reads gostap's copy ($(sed -n 's/^script: //p' "$tmp/o")), a swap after gostap's check changes nothing"
else
  fail "script read once: exit $st, stdout: $(head -3 "$tmp/o"), stderr: $(tail -2 "$tmp/err")"
fi
expect_fail 64 "no script given" "$GOSTAP" run -t "$demo"
expect_fail 1 "nosuchcommand: command not found" "$GOSTAP" run -c nosuchcommand -p2 "$s"

# What gostap does not promise is refused with one line, before stap runs:
# probe points no Go function has (here a C function of a cgo program).
# What it promises passes -p2: on a -w build (no DWARF), entry and return
# probes, runtime events built on return aliases and stack growth, through
# the companion debug file gostap run writes into its cache (no argument
# values: the pclntab has no types); Go functions of the cgo build.
# Probe points in comments and strings, and optional ones (? and !), are
# not required to match.
wbin=$(fixture 1.24 w grow 2>/dev/null) || true
cbin=$(fixture 1.24 cgo cgo 2>/dev/null) || true
if [ -n "$wbin" ]; then
  checks=$((checks + 1))
  if "$GOSTAP" run -v -t "$wbin" -p2 -e 'probe go.func.main.rec { println(goid) }
      probe go.func.main.rec.return { println(go_latency_ns) }
      probe go.goroutine.create { println(goid) }
      probe go.runtime.stack_grow { println(new_size) }' >"$tmp/out" 2>"$tmp/err" &&
     ! grep -q "^gostap: running: .* -g " "$tmp/err" &&
     ls "$XDG_CACHE_HOME"/gostap/debug/.build-id/*/*.debug >/dev/null 2>&1; then
    echo "ok - -w build: entry, return, goroutine and stack-growth probes pass -p2 without -g (companion debug file in the cache)"
  else
    fail "-w build: $(grep -v '^WARNING\|^Pass' "$tmp/err" | head -3)"
  fi
else
  fail "-w build: $(fixture_missing 1.24 w grow)"
fi
if [ -n "$cbin" ]; then
  expect_fail 2 "-e script: no Go function of $cbin has the probe point go.func.cmul" \
    "$GOSTAP" run -t "$cbin" -p2 -e 'probe go.func.cmul { println(1) }'
  expect_fail 2 "$tmp/c.stp: no Go function of $cbin has the probe point go.func.main.cmul.return" \
    sh -c 'printf "probe go.func.main.goAdd {}\nprobe go.func.main.cmul.return { println(1) }\n" > "$1" &&
           exec "$0" run -t "$2" -p2 "$1"' "$GOSTAP" "$tmp/c.stp" "$cbin"
  cat > "$tmp/opt.stp" <<'STP'
// go.func.nosuch1 in a comment
# go.func.nosuch2
/* go.func.nosuch3 */
probe go.func.nosuch4 ?, go.func.main.goAdd { printf("go.func.nosuch5 %d\n", a) }
probe go.func.nosuch6 !, go.func.main.goAdd.return { println(r0) }
STP
  checks=$((checks + 1))
  if "$GOSTAP" run -t "$cbin" -p2 "$tmp/opt.stp" >/dev/null 2>"$tmp/err"; then
    echo "ok - cgo build: Go functions pass -p2; names in comments, strings and optional probe points need no match"
  else
    fail "cgo build / optional probe points: $(grep -v '^WARNING' "$tmp/err" | head -3)"
  fi
else
  fail "cgo build: $(fixture_missing 1.24 cgo cgo)"
fi

# -v prints the stap command, with -g only where needed.
checks=$((checks + 1))
"$GOSTAP" run -v -t "$demo" -p2 -e 'probe go.func.main.rec.return { println(r0) }' >/dev/null 2>"$tmp/err" || true
grep -q "^gostap: running: $GOSTAP_STAP -I .* -d $demo -g " "$tmp/err" &&
  echo "ok - -v shows the stap command, with -g for RET probes" || fail "-v: $(head -3 "$tmp/err")"

# Every --help example (gostap --help, list, gen, run, doctor).
checks=$((checks + 1))
"$GOSTAP" list "$demo" 'main.*' > "$tmp/o" && grep -q 'go.func.main.rec' "$tmp/o" &&
"$GOSTAP" list --json "$demo" > "$tmp/functions.json" && python3 -m json.tool "$tmp/functions.json" >/dev/null &&
"$GOSTAP" list --json "$demo" 'main.handle' > "$tmp/o" &&
"$GOSTAP" gen "$demo" -o "$tmp/server-tapsets" 'main.*' &&
$STAP -g -p2 -I "$tmp/server-tapsets" -I "$GOSTAP_TAPSETS" -e 'probe go.func.main.handle { println(goid) }' >/dev/null 2>&1 &&
"$GOSTAP" run -c "$demo 1" -p2 "$examples/newstack.stp" 1000 >/dev/null 2>&1 &&
"$GOSTAP" run -t "$demo" -p2 -e 'probe go.func.main.handle { println(goid) }' >/dev/null 2>&1 &&
"$GOSTAP" doctor > "$tmp/o" && grep -q '^ok  stap' "$tmp/o" &&
"$GOSTAP" doctor "$demo" > "$tmp/o" && grep -q 'entry probes' "$tmp/o" &&
  echo "ok - every --help example runs" || fail "a --help example failed"
checks=$((checks + 1))
"$demo" 30 & pid=$!
# Until the forked shell has exec'd the demo, /proc/PID/exe is bash ("not
# a Go binary"): wait for the exec itself (the demo's 30 s count from
# there), not for a fixed time a busy machine may not meet.
for _ in $(seq 600); do
  [ /proc/$pid/exe -ef "$demo" ] && break
  sleep 0.1
done
if "$GOSTAP" run -x "$pid" -p2 "$examples/funclatency.stp" >/dev/null 2>"$tmp/err"; then
  echo "ok - gostap run -x PID finds /proc/PID/exe"
else
  fail "gostap run -x $pid: $(head -3 "$tmp/err")"
fi
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
finish
