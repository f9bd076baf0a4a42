#!/bin/bash
# The generated tapsets under the real SystemTap translator (passes 1-2,
# stap -p2: no kernel module is built), with libdw >= 0.191 so numeric
# statement probes resolve on Go binaries (testsuite/stap-env.sh):
#  - for the amd64 fixture binaries with DWARF (default, PIE, cgo builds of
#    every Go release), a script using the entry and the return alias of
#    EVERY function elaborates, and stap reports exactly as many probes as
#    those aliases define (their process(...) probe points in go_funcs.stp
#    plus one pairing probe per go_pair_*.stp a return alias pulls in): no
#    alias is silently dropped. Each function of a release is elaborated
#    once for each way of linking: every alias of the http program's
#    default build (the runtime and most of the standard library), of the
#    abi program's PIE build and of the cgo build; of the other default
#    and PIE builds, the aliases of the functions those did not have
#    (stap's cost is per probe: all of every build took 642 s of CPU);
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
expected_probes () {
  echo $(( $(grep -o 'process("' "$1/go_funcs.stp" | wc -l) + $(ls "$1" | grep -c '^go_pair_') ))
}
# alias_table DIR: a line per go.func alias of DIR/go_funcs.stp: its name,
# the process(...) probe points it stands for, and the pairing function
# its body pulls in (go_pair_*.stp, one probe each), or -. An alias
# defined more than once (go.func.NAME.inlined: once a function its copies
# sit in) is one line, its points summed; an alias made of another one
# (go.func.NAME = go.func.NAME.outofline, .outofline = go.func.NAME)
# defines no point of its own and is left out (naming it would elaborate
# the other's points again).
alias_table () {
  awk '/^probe go\.func[^ ]* = go\.func/ { if (name != "") print name, n, pair; name = ""; head = 0; next }
       /^probe go\.func/ { if (name != "") print name, n, pair; name = $2; n = 0; pair = "-"; head = 1 }
       head { n += gsub(/process\("/, "&") }
       /^\{/ { head = 0 }
       name != "" && match($0, /_go_pair_[0-9a-f]+\(\)/) { pair = substr($0, RSTART, RLENGTH - 2) }
       END { if (name != "") print name, n, pair }' "$1/go_funcs.stp" |
    awk '!($1 in n) { order[++k] = $1; p[$1] = $3 } { n[$1] += $2 }
         END { for (i = 1; i <= k; i++) print order[i], n[order[i]], p[order[i]] }'
}
# aliases_script: a script naming each alias of the table on stdin (with a
# body: stap elides probes that do nothing).
aliases_script () {
  echo 'global hits'
  awk '{ print "probe " $1 " { hits++ }" }'
}
# all_aliases DIR: the script naming every go.func alias of DIR.
all_aliases () { alias_table "$1" | aliases_script; }
# table_probes: the probes the aliases of the table on stdin define: their
# process(...) points and one per pairing function they pull in, and with
# any of those, go_pair_end.stp's process(...).end.
table_probes () {
  awk '{ n += $2; if ($3 != "-") p[$3] = 1 }
       END { np = 0; for (x in p) np++; print n + np + (np > 0) }'
}
# unseen_rows TABLE SEEN: the rows of TABLE whose function (the alias name
# without .return) is not in the file SEEN; adds those functions to SEEN.
unseen_rows () {
  awk -v seen="$2" '
    BEGIN { while ((getline l < seen) > 0) had[l] = 1 }
    { f = $1; sub(/\.(return|inlined|outofline)$/, "", f) }
    !(f in had) { print; add[f] = 1 }
    END { for (f in add) print f >> seen }' "$1"
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
  printf("%s|%s|%s|%s|%s\n", go_labels(), go_label("endpoint"), go_g_labels(go_curg()),
         go_g_label(go_curg(), "tenant"), go_g_profile_labels(go_curg()))
  printf("%d %d\n", go_sample_curg(), go_g_goid(go_sample_curg()))
  printf("%s %s\n", go_fmt(go_itab_type(0), 0), go_fmt_any(0, 0))
  if (go_label("tenant") == "x")
    go_profile_sample2(go_stack(), 1, 2, go_g_profile_labels(go_g()))
}
STP

total_aliases=0
total_probes=0
matrix_manifest > "$tmp/manifest"
fixture_failures '$5 == "amd64" && $3 ~ /^(default|pie|cgo|w)$/'
# Per release, the builds elaborated whole first (http default, abi PIE,
# cgo, the -w builds: their own kind), then the other default and PIE
# builds, each for the functions its kind has not had yet.
awk '$5 == "amd64" && $3 ~ /^(default|pie|cgo|w)$/ {
       first = ($3 == "default" && $4 == "http") || ($3 == "pie" && $4 == "abi") || $3 == "cgo" || $3 == "w"
       print $2, first ? 0 : 1, $0 }' "$tmp/manifest" | sort -s -k1,1V -k2,2n |
  cut -d' ' -f3- > "$tmp/order"
while read -r bin ver variant fixture _; do
  out=$tmp/$(basename "$bin")
  "$GOSTAP" gen "$bin" -o "$out" 2>"$tmp/err" || { fail "gen $bin: $(cat "$tmp/err")"; continue; }
  alias_table "$out" > "$tmp/table"
  # The table accounts for every process(...) of go_funcs.stp and every
  # go_pair_*.stp: checked once for all builds, below.
  tabled=$(table_probes < "$tmp/table") infiles=$(expected_probes "$out")
  [ "$tabled" = "$infiles" ] ||
    echo "$(basename "$bin"): $tabled in the table, $infiles in the files" >> "$tmp/untabled"
  case $variant in
    default|pie) seen=$tmp/seen-$ver-$variant ;;
    *) seen=$tmp/seen-$(basename "$bin") ;;      # its own
  esac
  touch "$seen"
  unseen_rows "$tmp/table" "$seen" > "$tmp/rows"
  aliases_script < "$tmp/rows" > "$tmp/all.stp"
  n=$(wc -l < "$tmp/rows") all=$(wc -l < "$tmp/table")
  want=$(table_probes < "$tmp/rows")
  what="$n of its $all aliases"
  [ "$n" != "$all" ] || what="all $n aliases"
  checks=$((checks + 1))
  if [ "$n" = 0 ]; then
    fail "$bin: no alias of a function its kind had not had"
  elif ! got=$(elaborate "$out" "$tmp/all.stp"); then
    fail "stap -p2 of $what of $bin: $(grep -v '^WARNING' "$tmp/stap.err" | head -5)"
  elif [ "$got" != "$want" ]; then
    fail "$bin: stap elaborated $got probes for $what, they define $want"
  else
    echo "ok - Go $ver $variant $fixture: $what, $got probes elaborated"
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
done < "$tmp/order"
checks=$((checks + 1))
if [ ! -s "$tmp/untabled" ]; then
  echo "ok - the alias tables account for every probe of their tapsets (process points, pairing files)"
else
  fail "alias tables that miss probes: $(head -3 "$tmp/untabled")"
fi

# stapusr members probe their own processes (stap --unprivileged): the
# goroutine register and the stack pointer are theirs to read.
checks=$((checks + 1))
bin=$(fixture 1.24 default grow)
# (go_labels() reads g.labels at the offset go_target.stp gives.)
"$GOSTAP" gen "$bin" -o "$tmp/unpriv" 2>/dev/null || fail "gen $bin for --unprivileged"
if $STAP --unprivileged -p2 -I "$tmp/unpriv" -I "$tapsets" -e "probe process(\"$bin\").function(\"main.rec\") {
       printf(\"%x %x %d %s\\n\", go_g(), _go_user_sp(), @go_gstatus_waiting, go_stack())
       go_profile_sample_labels(go_stack(), 1, go_profile_label(\"k\", \"v\"))
       printf(\"%s %s\\n\", go_labels(), go_label(\"k\"))
       printf(\"%s %s\\n\", go_fmt(0, 0), go_fmt_any(0, 0)) }" >/dev/null 2>"$tmp/stap.err"; then
  echo "ok - go_g(), _go_user_sp(), go_stack(), go_profile_*, go_labels() and go_fmt() elaborate under --unprivileged (myproc-unprivileged)"
else
  fail "--unprivileged: $(grep -v '^WARNING' "$tmp/stap.err" | head -3)"
fi

# go_values.stpm: on a build with DWARF the macros elaborate in the
# aliases; on a -w build (no DWARF types) a script that uses one fails to
# translate, naming the reason.
for variant in default w; do
  vbin=$(fixture 1.27 "$variant" abi 2>/dev/null) || continue
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
gobin=$(fixture 1.22 default abi)
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
