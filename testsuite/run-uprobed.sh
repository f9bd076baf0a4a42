#!/bin/bash
# A binary another tracer has uprobes on (a stap session, perf, bpftrace,
# an orphaned stapio): the kernel writes each uprobe's breakpoint into
# every private mapping of the file that may be executed, a read-only
# mmap too, so a reader that maps the binary decodes an int3 where the
# probed instruction is. The faults job of the e2e test found it: beside
# an orphaned stap session, `gostap run` wrote no return alias for
# main.work (its RET read as int3). gostap reads the file instead.
# Checked with real uprobes (tracefs uprobe_events, as perf probe makes
# them) on every RET objdump finds in the demo's main.* functions and at
# their entries: `gostap list --json` and `gostap gen` print the same with
# the uprobes live as without, and a mapping made meanwhile does hold the
# breakpoints (so the check can fail).
# Needs root and tracefs with uprobe_events.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

[ "$(id -u)" = 0 ] || skip "not root: tracefs uprobe_events needs root"
tr=/sys/kernel/tracing
[ -w "$tr/uprobe_events" ] || tr=/sys/kernel/debug/tracing
[ -w "$tr/uprobe_events" ] || skip "no writable uprobe_events in tracefs (kernel without CONFIG_UPROBE_EVENTS, or tracefs not mounted)"
v=1.24
fixture_manifest "$v" > "$tmp/manifest"
src=$(fixture "$v" default demo)
[ -n "$src" ] || hard_error "no demo fixture of Go $v"
bin=$tmp/demo
cp "$src" "$bin"

# The file offsets of the main.* functions' entries and RETs, by objdump
# (addresses) and readelf (the executable segment's offset and address).
objdump -d --no-show-raw-insn "$bin" > "$tmp/dis" || hard_error "objdump -d $bin failed"
readelf -lW "$bin" > "$tmp/segs" || hard_error "readelf -l $bin failed"
python3 - "$tmp/dis" "$tmp/segs" > "$tmp/offsets" <<'PY' || hard_error "no offsets from objdump"
import re, sys
seg = [l.split() for l in open(sys.argv[2]) if l.split()[:1] == ["LOAD"] and " E " in l]
off, va = int(seg[0][1], 16), int(seg[0][2], 16)
inmain = False
for l in open(sys.argv[1]):
    m = re.match(r"^([0-9a-f]+) <([^>]*)>:$", l)
    if m:
        inmain = m.group(2).startswith("main.")
        if inmain:
            print(hex(int(m.group(1), 16) - va + off))
        continue
    f = l.split()
    if inmain and len(f) >= 2 and f[1] == "ret":
        print(hex(int(f[0].rstrip(":"), 16) - va + off))
PY
n=$(wc -l < "$tmp/offsets")
[ "$n" -gt 10 ] || hard_error "objdump found only $n entries and RETs of main.* in $bin"

"$GOSTAP" list --json "$bin" > "$tmp/list.before" || hard_error "gostap list $bin failed"
"$GOSTAP" gen "$bin" -o "$tmp/gen.before" 'main.*' 2>/dev/null || hard_error "gostap gen $bin failed"

# The uprobes, named for this run; removed on exit whatever happens.
ev=gostap_t$$
cleanup_uprobes () {
  [ -d "$tr/events/$ev" ] && echo 0 > "$tr/events/$ev/enable" 2>/dev/null
  grep "^p:$ev/" "$tr/uprobe_events" 2>/dev/null | sed 's/^p:\([^ ]*\).*/-:\1/' |
    while read -r d; do echo "$d" >> "$tr/uprobe_events"; done
}
trap 'cleanup_uprobes; rm -rf "$tmp"' EXIT
i=0
while read -r off; do
  i=$((i + 1))
  echo "p:$ev/p$i $bin:$off" >> "$tr/uprobe_events" || hard_error "cannot add a uprobe at $bin:$off"
done < "$tmp/offsets"
echo 1 > "$tr/events/$ev/enable" || hard_error "cannot enable the uprobes"

# A mapping holds them: the first RET's byte, through a private mmap.
checks=$((checks + 1))
ret_off=$(sed -n 2p "$tmp/offsets")
mapped=$(python3 -c '
import mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
print("%02x" % m[int(sys.argv[2], 16)])' "$bin" "$ret_off")
ondisk=$(od -An -tx1 -j "$((ret_off))" -N1 "$bin" | tr -d ' ')
if [ "$mapped" = cc ] && [ "$ondisk" != cc ]; then
  echo "ok - with $n uprobes live, a private read-only mapping reads int3 (cc) at $ret_off, the file $ondisk"
else
  fail "the uprobes left no breakpoint in a mapping (mapped $mapped, on disk $ondisk at $ret_off): the check below proves nothing"
fi

checks=$((checks + 1))
"$GOSTAP" list --json "$bin" > "$tmp/list.during" || fail "gostap list with uprobes live failed"
if cmp -s "$tmp/list.before" "$tmp/list.during"; then
  echo "ok - gostap list --json: the same with the uprobes live ($(grep -o '{ "name": ' "$tmp/list.during" | wc -l) functions)"
else
  fail "gostap list --json differs with uprobes live: $(diff "$tmp/list.before" "$tmp/list.during" | head -3 | cut -c1-200)"
fi
checks=$((checks + 1))
"$GOSTAP" gen "$bin" -o "$tmp/gen.during" 'main.*' 2>/dev/null || fail "gostap gen with uprobes live failed"
if diff -r "$tmp/gen.before" "$tmp/gen.during" > "$tmp/gen.diff"; then
  echo "ok - gostap gen 'main.*': the same tapsets with the uprobes live ($(grep -c 'process(' "$tmp/gen.during/go_funcs.stp") probe points)"
else
  fail "gostap gen differs with uprobes live: $(head -3 "$tmp/gen.diff" | cut -c1-200)"
fi
finish
