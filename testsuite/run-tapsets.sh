#!/bin/bash
# The generated tapsets under the real SystemTap translator (passes 1-2,
# stap -p2: no kernel module is built), with libdw >= 0.191 so numeric
# statement probes resolve on Go binaries (testsuite/stap-env.sh):
#  - for every amd64 fixture binary with DWARF (default, PIE, cgo builds of
#    every Go release), a script using the entry and the return alias of
#    EVERY function elaborates, and stap reports exactly as many probes as
#    the tapsets define (process(...) probe points in go_funcs.stp plus one
#    pairing probe per go_pair_*.stp): no alias is silently dropped;
#  - a script using every static alias of tapsets/ and printing their
#    locals elaborates for each of those binaries;
#  - -w builds (no DWARF): the by-name entry aliases elaborate;
#  - a binary whose pclntab name was patched to carry '"', '%{', '}', a
#    newline and '*/' gives tapsets stap parses, with the probe count
#    expected: nothing injected.
# arm64 binaries are not elaborated: stap resolves process probes only for
# the host's architecture.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

need_stap
tapsets=$top_srcdir/tapsets

# elaborate DIR SCRIPT: run stap -p2, print the number of process probes
# it resolved (its listing has one line each; tapsets of SystemTap may add
# begin/end probes of their own, which are not counted).
elaborate () {
  $STAP -g -p2 -I "$1" -I "$tapsets" "$2" >"$tmp/stap.out" 2>"$tmp/stap.err" || return 1
  grep -c '^process(' "$tmp/stap.out" || true
}
# all_aliases DIR: a script naming every go.func alias of DIR (with a body:
# stap elides probes that do nothing).
all_aliases () {
  echo 'global hits'
  grep -o '^probe go\.func[^ ]*' "$1/go_funcs.stp" | sed 's/$/ { hits++ }/'
}
expected_probes () {
  echo $(( $(grep -o 'process("' "$1/go_funcs.stp" | wc -l) + $(ls "$1" | grep -c '^go_pair_') ))
}

cat > "$tmp/static.stp" <<'STP'
probe go.runtime.newstack {
  printf("%d %d %d %d %x %x %x %x %x %x\n", goid, old_size, new_size,
         preempt, morebuf_pc, morebuf_sp, morebuf_lr, sched_pc, sched_sp,
         sched_bp)
}
probe go.runtime.stack_grow {
  printf("%d %d %d %x %x %x %d\n", goid, old_size, new_size, sched_pc, sched_sp,
         sched_bp, _go_arg_word(2))
  printf("%s %s\n", go_sched_stack(sched_pc, sched_sp, sched_bp), go_g_stack(_go_gp))
}
probe go.goroutine.create { printf("%d %d\n", goid, parent_goid) }
probe go.goroutine.exit { printf("%d\n", goid) }
probe go.goroutine.state {
  printf("%d %d %d %s %d\n", goid, old, new, go_gstatus_name(new),
         new == @go_gstatus_runnable && old == @go_gstatus_waiting)
}
probe go.func.runtime.newstack, go.func.runtime.newproc1.return {
  printf("%s %s %d %s %s\n", funcname, filename, lineno, go_stack(),
         go_stack_depth(5))
}
probe go.gc.start, go.gc.done, go.runtime.world_stop, go.runtime.world_start {
  printf("%d\n", goid)
}
probe end {
  printf("%d %d %d %d %d %d %d %s %s %s %d\n", go_g(), go_tls_g(), go_goid(), go_m(),
         go_curg(), go_curg_goid(), go_stack_hi() - go_stack_lo(),
         go_string(0, 0), go_target_path(), go_target_version(),
         go_unpaired_calls())
  go_profile_type("samples", "count")
  go_profile_period("cpu", "nanoseconds", 1000000000 / HZ())
  l = go_profile_label("goroutine", sprint(go_goid())) . go_profile_label("why", "a;b")
  go_profile_sample(go_stack(), 1)
  go_profile_sample_labels(go_stack(), 1, l)
  go_profile_sample2(go_stack(), 1, 2, l)
  println(go_profile_wanted())
}
STP

total_aliases=0
total_probes=0
fixture_manifest > "$tmp/manifest"
while read -r bin ver variant fixture arch; do
  [ "$arch" = amd64 ] || continue
  case $variant in default|pie|cgo|w) ;; *) continue ;; esac
  out=$tmp/$(basename "$bin")
  "$GOSTAP" gen "$bin" -o "$out" 2>"$tmp/err" || { fail "gen $bin: $(cat "$tmp/err")"; continue; }
  all_aliases "$out" > "$tmp/all.stp"
  n=$(grep -c '^probe' "$tmp/all.stp")
  want=$(expected_probes "$out")
  checks=$((checks + 1))
  if ! got=$(elaborate "$out" "$tmp/all.stp"); then
    fail "stap -p2 of all $n aliases of $bin: $(grep -v '^WARNING' "$tmp/stap.err" | head -5)"
  elif [ "$got" != "$want" ]; then
    fail "$bin: stap elaborated $got probes, the tapsets define $want"
  else
    echo "ok - Go $ver $variant $fixture: $n aliases, $got probes elaborated"
    total_aliases=$((total_aliases + n))
    total_probes=$((total_probes + got))
  fi
  if [ "$variant" != w ]; then
    checks=$((checks + 1))
    if elaborate "$out" "$tmp/static.stp" > /dev/null; then
      echo "ok - Go $ver $variant $fixture: every static alias elaborates"
    else
      fail "static aliases on $bin: $(grep -v '^WARNING' "$tmp/stap.err" | head -5)"
    fi
  fi
done < "$tmp/manifest"

# stapusr members probe their own processes (stap --unprivileged): the
# goroutine register and the stack pointer are theirs to read.
checks=$((checks + 1))
bin=$(awk '$2 == "1.24" && $3 == "default" && $4 == "grow" { print $1; exit }' "$tmp/manifest")
if $STAP --unprivileged -p2 -I "$tapsets" -e "probe process(\"$bin\").function(\"main.rec\") {
       printf(\"%x %x %d %s\\n\", go_g(), _go_user_sp(), @go_gstatus_waiting, go_stack())
       go_profile_sample_labels(go_stack(), 1, go_profile_label(\"k\", \"v\")) }" >/dev/null 2>"$tmp/stap.err"; then
  echo "ok - go_g(), _go_user_sp(), go_stack() and go_profile_* elaborate under --unprivileged (myproc-unprivileged)"
else
  fail "--unprivileged: $(grep -v '^WARNING' "$tmp/stap.err" | head -3)"
fi

# go_values.stpm: on a build with DWARF the macros elaborate in the
# aliases; on a -w build (no DWARF types) a script that uses one fails to
# translate, naming the reason.
for variant in default w; do
  vbin=$(awk -v w="$variant" '$2 == "1.27" && $3 == w && $4 == "abi" { print $1; exit }' "$tmp/manifest")
  [ -n "$vbin" ] || continue
  "$GOSTAP" gen "$vbin" -o "$tmp/vals-$variant" 'main.strTail' 'main.bytesSum' 'main.joinStrs' \
    'main.mapLen' 'main.errText' > /dev/null || { fail "gen $vbin"; continue; }
  cat > "$tmp/vals.stp" <<'EOS'
probe go.func.main.strTail { println(@go_str($s)) }
probe go.func.main.bytesSum { println(@go_slice_len($b), @go_slice_cap($b), @go_slice_at($b, 1)) }
probe go.func.main.joinStrs { println(@go_slice_str($ss, 0)) }
probe go.func.main.mapLen { println(@go_map_len($m)) }
probe go.func.main.errText { println(@go_iface_type($e), @go_iface_data($e)) }
EOS
  checks=$((checks + 1))
  if [ "$variant" = default ]; then
    if elaborate "$tmp/vals-$variant" "$tmp/vals.stp" > /dev/null; then
      echo "ok - go_values.stpm: the seven macros elaborate on \$vars in the aliases of the Go 1.27 build"
    else
      fail "go_values.stpm on $vbin: $(grep -v '^WARNING' "$tmp/stap.err" | head -5)"
    fi
  elif elaborate "$tmp/vals-$variant" "$tmp/vals.stp" > /dev/null; then
    fail "go_values.stpm on the -w build $vbin: elaborated without DWARF"
  elif grep -q 'unresolved function go_value_not_readable_here__no_DWARF_type_or_location' "$tmp/stap.err"; then
    echo "ok - go_values.stpm on a -w build: translation stops, naming go_value_not_readable_here__no_DWARF_type_or_location"
  else
    fail "go_values.stpm on the -w build: another error: $(grep -v '^WARNING' "$tmp/stap.err" | head -3)"
  fi
done

# Hostile names (see run-gen.sh): the patched binary's tapsets elaborate.
gobin=$(awk '$2 == "1.22" && $3 == "default" && $4 == "abi" { print $1; exit }' "$tmp/manifest")
name=$("$GOSTAP" list "$gobin" 'main.*' | awk 'length($7) >= 16 { print $7; exit }')
cp "$gobin" "$tmp/hostile"
"$testsuite/patch-name.py" "$tmp/hostile" "$name"
"$GOSTAP" gen "$tmp/hostile" -o "$tmp/hostile.d" 'main.q*'
all_aliases "$tmp/hostile.d" > "$tmp/hostile.stp"
checks=$((checks + 1))
if got=$(elaborate "$tmp/hostile.d" "$tmp/hostile.stp") && [ "$got" = "$(expected_probes "$tmp/hostile.d")" ]; then
  echo "ok - hostile name: $(grep -c '^probe' "$tmp/hostile.stp") aliases, $got probes, nothing injected"
else
  fail "hostile name: $(grep -v '^WARNING' "$tmp/stap.err" | head -5)"
fi
# A binary path with a space, quotes, a backslash, '%{', '}' and '$(...)':
# the path is escaped into every process("...") and stap finds the binary.
# (A control character in the path is refused by gen: run-gen.sh.)
odd="$tmp/odd dir \"q\" %{x} } back\\slash \$(id) 'sq'"
mkdir -p "$odd"
cp "$gobin" "$odd/prog"
checks=$((checks + 1))
if "$GOSTAP" gen "$odd/prog" -o "$tmp/odd.d" 'main.add*' 2>"$tmp/err" &&
   "$testsuite/check-tapset-lines.py" "$tmp/odd.d" > "$tmp/lines" &&
   all_aliases "$tmp/odd.d" > "$tmp/odd.stp" &&
   got=$(elaborate "$tmp/odd.d" "$tmp/odd.stp") && [ "$got" = "$(expected_probes "$tmp/odd.d")" ]; then
  echo "ok - binary at $(printf %q "$odd/prog"): $(tail -1 "$tmp/lines"), $got probes resolved"
else
  fail "binary at an odd path: $(cat "$tmp/err" "$tmp/lines" 2>/dev/null | head -3; grep -v '^WARNING' "$tmp/stap.err" | head -5)"
fi
echo "tapsets: libdw=$STAP_LIBDW_VERSION aliases=$total_aliases probes=$total_probes"
finish
