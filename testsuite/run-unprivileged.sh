#!/bin/bash
# SystemTap's unprivileged mode (stap --unprivileged: what a member of
# stapusr alone may run, probes on their own processes): gostap's tapsets
# are allowed there (their embedded C is marked for it), and stap's own
# rule limits which aliases: a probe at an address that is not the start
# of a line-table row needs guru mode (-g; stap's tapsets.cxx), which that
# mode forbids, and a Go function's RETs and sometimes its body (after the
# stack check) are such addresses. Real stap -p2 (elaboration, no module)
# with the tapsets `gostap gen` writes for the demo:
#  - the entry aliases of every main.* function whose body starts a
#    line-table row (objdump --dwarf=decodedline), with goid, go_g(),
#    go_stack(), go_labels(), go_unpaired_calls(), pass --unprivileged;
#  - the return alias of a function with a RET that starts no row fails
#    with stap's "does not match the beginning of a statement" error, and
#    passes with -g, as README says;
#  - `gostap run --unprivileged` (and --privilege=stapusr) passes no -g,
#    which stap refuses beside that mode: a probe at a function's entry
#    address with go_goid() and go_stack() passes -p2 (gostap's -v shows
#    stap's command without -g), and the same return alias is refused by
#    stap's statement rule, not by the "-g and --privilege" conflict.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

need_stap
v=1.24
fixture_manifest "$v" > "$tmp/manifest"
bin=$(fixture "$v" default demo)
[ -n "$bin" ] || hard_error "no demo fixture of Go $v"
"$GOSTAP" gen "$bin" -o "$tmp/ts" 'main.*' 2>/dev/null || hard_error "gostap gen $bin failed"
objdump --dwarf=decodedline "$bin" > "$tmp/lines" || hard_error "objdump --dwarf=decodedline $bin failed"
"$GOSTAP" list --json "$bin" 'main.*' > "$tmp/list.json" || hard_error "gostap list $bin failed"
python3 - "$tmp/lines" "$tmp/list.json" "$tmp" <<'PY' || hard_error "no functions to probe"
import json, re, sys
rows = {int(m.group(1), 16) for l in open(sys.argv[1])
        for m in [re.search(r"\s(0x[0-9a-f]+)\b", l)] if m}
fns = json.load(open(sys.argv[2]))["functions"]
entry = [f for f in fns if f.get("body") and int(f["body"], 16) in rows
         and f["abi"] == "internal" and re.fullmatch(r"go\.func(\.[A-Za-z0-9_]+)+", f["probe"])]
ret = [f for f in fns if f["abi"] == "internal" and any(int(r, 16) not in rows for r in f["returns"])]
if not entry or not ret:
    sys.exit(1)
with open(sys.argv[3] + "/entry.stp", "w") as o:
    print("global n", file=o)
    for f in entry:
        print(f"probe {f['probe']} {{ n++ }}", file=o)
    f = entry[0]
    print(f"probe {f['probe']} {{ printf(\"%d %d %s %s %d\\n\", goid, go_g(), go_stack(), "
          "go_labels(), go_unpaired_calls()) }", file=o)
with open(sys.argv[3] + "/ret.stp", "w") as o:
    print(f"probe {ret[0]['probe']}.return {{ println(go_latency_ns) }}", file=o)
print(len(entry), len(fns), ret[0]["name"], file=open(sys.argv[3] + "/what", "w"))
with open(sys.argv[3] + "/entryaddr.stp", "w") as o:
    f = [f for f in fns if f["abi"] == "internal" and f["body"] != f["entry"]][0]
    print(f'probe process(@1).statement({f["entry"]}) {{ printf("%d %s\\n", go_goid(), go_stack()) }}', file=o)
PY
read -r nentry nfns retfn < "$tmp/what"

checks=$((checks + 1))
if $STAP --unprivileged -p2 -I "$tmp/ts" -I "$top_srcdir/tapsets" "$tmp/entry.stp" > "$tmp/out" 2> "$tmp/err"; then
  echo "ok - --unprivileged: the entry aliases of the $nentry of $nfns main.* functions whose body starts a line-table row, with goid, go_g(), go_stack(), go_labels(), go_unpaired_calls()"
else
  fail "--unprivileged refused entry aliases at row starts: $(grep -i error "$tmp/err" | head -3)"
fi
checks=$((checks + 1))
st=0
$STAP --unprivileged -p2 -I "$tmp/ts" -I "$top_srcdir/tapsets" "$tmp/ret.stp" > "$tmp/out" 2> "$tmp/err" || st=$?
if [ "$st" != 0 ] && grep -q "does not match the beginning of a statement" "$tmp/err" &&
   $STAP -g -p2 -I "$tmp/ts" -I "$top_srcdir/tapsets" "$tmp/ret.stp" > /dev/null 2>&1; then
  echo "ok - --unprivileged: $retfn's return alias (a RET that starts no row) refused by stap's statement rule; with -g it passes"
else
  fail "$retfn's return alias: --unprivileged exit $st ($(grep -i error "$tmp/err" | head -2)); with -g: $($STAP -g -p2 -I "$tmp/ts" -I "$top_srcdir/tapsets" "$tmp/ret.stp" 2>&1 >/dev/null | grep -i error | head -2)"
fi
# gostap run, through a one-line wrapper of the translator (it execs one
# program), its checks of privileges skipped (-p2 runs nothing).
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
grun () {
  XDG_CACHE_HOME=$tmp/cache GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets \
    "$GOSTAP" run -v -t "$bin" -p2 "$@"
}
checks=$((checks + 1))
st=0
grun --unprivileged "$tmp/entryaddr.stp" "$bin" > "$tmp/out" 2> "$tmp/err" || st=$?
cmdline=$(grep -m1 '^gostap: running: ' "$tmp/err" || true)
if [ "$st" = 0 ] && [ -n "$cmdline" ] && ! grep -q -- ' -g ' <<< "$cmdline"; then
  echo "ok - gostap run --unprivileged: a probe at a function's entry address with go_goid() and go_stack() passes -p2, stap run without -g"
else
  fail "gostap run --unprivileged of a probe at an entry address: exit $st, $(grep -i -m2 'error\|-g' "$tmp/err" | tr '\n' ' ')"
fi
for opt in --unprivileged --privilege=stapusr; do
  checks=$((checks + 1))
  st=0
  grun "$opt" "$tmp/ret.stp" > "$tmp/out" 2> "$tmp/err" || st=$?
  if [ "$st" != 0 ] && grep -q "does not match the beginning of a statement" "$tmp/err" &&
     ! grep -q "You can't specify -g" "$tmp/err"; then
    echo "ok - gostap run $opt: $retfn's return alias refused by stap's statement rule (no -g passed)"
  else
    fail "gostap run $opt of $retfn's return alias: exit $st, $(grep -i -m2 "error\|can't" "$tmp/err" | tr '\n' ' ')"
  fi
done
finish
