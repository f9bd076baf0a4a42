#!/bin/bash
# gostap run on the SystemTap stack of RHEL 8, RHEL 9.0-9.4, Ubuntu 24.04
# and Debian 12: a stap whose libdw is older than 0.191 (this machine's
# own stap 4.8 with libdw 0.188), which finds no DWARF unit of Go code by
# itself (facts.md 2), so that stap alone places no statement probe in a
# Go binary. gostap run gives it a copy of the binary with .debug_aranges
# (through --sysroot), or a copy of the separate debug file (first in
# SYSTEMTAP_DEBUGINFO_PATH): run-aranges.c, write-aranges.c.
# With the real translator (passes 1-3), on fixtures of Go 1.19, 1.24 and
# 1.27 (DWARF 4 and 5):
#  - stap alone resolves no statement probe in the binary (the premise);
#  - gostap run -p2 of every example (but cpuprofile.stp: run-cli.sh says
#    why) on the demo, httplatency.stp on the http fixture, entries and
#    returns of every main function with their arguments and results on
#    the abi fixture (default and PIE builds), the cgo build, a split
#    build (stripped, its debug file found by GNU build id) and a -w build
#    (gostap's companion): the whole -p2 listing (probe points at their
#    addresses, under the binary's own path, locals, functions) equals
#    what stap with libdw 0.192 (stap-env.sh) gives on the binary itself;
#  - the copy holds the binary's bytes: every PT_LOAD range equal;
#  - -c with a relative path (-p3): no warning of a module under the
#    sysroot;
#  - gostap gen says in one warning line that stap by hand needs a copy
#    (--aranges), gen --aranges which --sysroot, and stap by hand with it
#    gives libdw 0.192's listing (none without it);
#  - gostap doctor says what gostap run does; a split build found only by
#    .gnu_debuglink (no GNU build id) is refused in one line; one from
#    debuginfod gets its copy as one from a debug directory does;
#  - stap 4.8's relay transport drops records, and its staprun stops
#    reading before a run's end (run-runtime.c): gostap run -p2 leaves a
#    copy of stap's runtime in the cache that differs from it only in
#    transport/relay_v2.c, in _stp_data_write_reserve (a rest too small
#    for a header to padding), and in transport/transport.c, in
#    _stp_cleanup_and_exit and _stp_transport_close (STP_EXIT sent back
#    from a work item once staprun's readers have read every buffer);
#    stap's command (-v) has -R the copy, or the user's -R alone; a relay
#    code gostap does not know: the doctor says so, one warning, no copy;
#    a copy that cannot be made: one line, one warning, no -R; gen says so
#    in one line and gen --fixed-runtime names -R the same copy; a module
#    on the copy compiles (-p4) against bookworm's 6.1 headers when
#    run-kbuild.sh fetched them into the test cache;
#  - bullseye's stap 4.4 with libdw 0.183, unpacked into the test cache:
#    newstack, funclatency and goroutines translate (-p3) through gostap
#    run, with libdw 0.192's probe points.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v stap >/dev/null 2>&1 || skip "no stap on this machine (tools/deps.sh installs it)"
sysdw=$(stap -V 2>&1 | sed -n 's/.*version [0-9.]*\/0\.\([0-9]*\).*/\1/p')
[ -n "$sysdw" ] || hard_error "cannot read the libdw version of stap -V: $(stap -V 2>&1 | head -1)"
[ "$sysdw" -lt 191 ] ||
  skip "this machine's stap uses libdw 0.$sysdw (0.191 or newer): the old stack this test is about is not here"
need_stap
# The translator with libdw 0.192 (stap-env.sh), and the system's own
# (libdw 0.$sysdw) with the same kernel stub: the same command without
# LD_LIBRARY_PATH.
old_stap=$(sed 's/LD_LIBRARY_PATH=[^ ]* //' <<< "$STAP")
case $old_stap in *LD_LIBRARY_PATH*) hard_error "cannot drop LD_LIBRARY_PATH from '$STAP'" ;; esac
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap-new"
printf '#!/bin/sh\nexec %s "$@"\n' "$old_stap" > "$tmp/stap-old"
chmod +x "$tmp/stap-new" "$tmp/stap-old"
[ "$("$tmp/stap-old" -V 2>&1 | sed -n 's/.*version [0-9.]*\/0\.\([0-9]*\).*/\1/p')" = "$sysdw" ] ||
  hard_error "the old translator does not report libdw 0.$sysdw"
export GOSTAP_TAPSETS=$top_srcdir/tapsets
unset SYSTEMTAP_DEBUGINFO_PATH
fixture_manifest > "$tmp/manifest"
examples=$top_srcdir/examples
# fix VERSION VARIANT FIXTURE: its path; a fixture that did not build ends
# the test with its one line (test-subr.sh's fixture).
fix () { fixture "$@"; }

# p2 NAME ARGS...: gostap run ARGS -p2 with each translator, each with a
# gostap cache of its own; the listings, their cache paths made alike,
# into $tmp/NAME.old and $tmp/NAME.new, stap's errors in .err.
p2 () {
  local name=$1 which st
  shift
  for which in old new; do
    st=0
    XDG_CACHE_HOME=$tmp/cache-$which GOSTAP_STAP=$tmp/stap-$which \
      "$GOSTAP" run -p2 "$@" > "$tmp/$name.$which.raw" 2> "$tmp/$name.$which.err" || st=$?
    # (stap names a script's private functions after its path, the copy
    # of it in gostap's cache: the path with _ for every other character)
    sed "s|$tmp/cache-$which/|CACHE/|g; s|$(sed 's/[^A-Za-z0-9]/_/g' <<< "$tmp/cache-$which/")|CACHE_|g" \
      "$tmp/$name.$which.raw" > "$tmp/$name.$which"
    [ "$st" = 0 ] || return 1
  done
}

# same NAME WHAT ARGS...: the two listings are equal and have probes.
same () {
  local name=$1 what=$2 n
  shift 2
  checks=$((checks + 1))
  if ! p2 "$name" "$@"; then
    fail "$what: gostap run -p2 failed: $(grep -hv '^WARNING: address\|^gostap: .*folded' "$tmp/$name".*.err | head -5)"
    return
  fi
  n=$(grep -c '^process(' "$tmp/$name.old" || true)
  if [ "$n" = 0 ]; then
    fail "$what: no probe point in the listing"
  elif grep -q "^process(\"$tmp/cache" "$tmp/$name.old.raw"; then
    fail "$what: a probe names the copy, not the binary: $(grep -m1 "^process(\"$tmp/cache" "$tmp/$name.old.raw")"
  elif ! diff "$tmp/$name.old" "$tmp/$name.new" > "$tmp/$name.diff"; then
    fail "$what: libdw 0.$sysdw through gostap and libdw 0.192 differ: $(head -8 "$tmp/$name.diff")"
  else
    echo "ok - $what: $n probe points, the same listing as with libdw 0.192"
  fi
}

# The out-of-line entries (go.func.NAME.outofline): an inlined copy whose
# first instruction is in a function inlined from another package
# (main.f32s in main.floats, starting with math.Float32bits, Go 1.24) is
# "no match" for stap on libdw 0.188 through the copy with
# .debug_aranges, while libdw 0.192 places it (gostap-scripts(7), Inlined
# functions; the cause is not pinned down).
all_main='probe go.func.main.*.outofline { printf("%s\n", funcname) }
probe go.func.main.*.return { printf("%s\n", funcname) }'
for v in 1.19 1.24 1.27; do
  demo=$(fix "$v" default demo)
  http=$(fix "$v" default http)
  abi=$(fix "$v" default abi)
  pie=$(fix "$v" pie abi)
  cgo=$(fix "$v" cgo cgo)
  w=$(fix "$v" w abi)
  [ -n "$demo" ] && [ -n "$http" ] && [ -n "$abi" ] && [ -n "$pie" ] && [ -n "$w" ] ||
    hard_error "Go $v: a fixture is missing from the manifest"

  # The premise: stap alone finds no unit for the demo's main.rec.
  body=$("$GOSTAP" list "$demo" main.rec | awk '{ print $2 }')
  checks=$((checks + 1))
  if "$tmp/stap-old" -p2 -e "probe process(\"$demo\").statement($body) { }" > /dev/null 2> "$tmp/alone.err"; then
    fail "Go $v: stap with libdw 0.$sysdw alone resolved statement($body) in $demo: the test's premise does not hold"
  elif grep -q "no match" "$tmp/alone.err"; then
    echo "ok - Go $v: stap with libdw 0.$sysdw alone: statement($body) in main.rec: no match"
  else
    fail "Go $v: stap alone failed otherwise: $(head -3 "$tmp/alone.err")"
  fi

  for ex in "$examples"/*.stp; do
    case $(basename "$ex") in
      cpuprofile.stp) continue ;;
      httplatency.stp) same "hl-$v" "Go $v httplatency.stp" -c "$http" "$ex" ;;
      *) same "$(basename "$ex" .stp)-$v" "Go $v $(basename "$ex")" -c "$demo 1" "$ex" ;;
    esac
  done
  same "abi-$v" "Go $v abi: main.* entries and returns" -t "$abi" -e "$all_main"
  same "pie-$v" "Go $v abi PIE: main.* entries and returns" -t "$pie" -e "$all_main"
  same "w-$v" "Go $v abi -w (companion): main.* entries and returns" -t "$w" -e "$all_main"
  if [ -n "$cgo" ]; then
    same "cgo-$v" "Go $v cgo: main.* entries and returns" -t "$cgo" -e "$all_main"
  fi

  # The copy holds the binary's bytes where they are loaded.
  copy=$(find "$tmp/cache-old/gostap/sysroot" -path "*$abi" -type f | head -1)
  checks=$((checks + 1))
  if [ -z "$copy" ]; then
    fail "Go $v: no copy of $abi under the sysroot of gostap's cache"
  elif python3 - "$abi" "$copy" <<'EOF'
import struct, sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:3])
phoff, = struct.unpack_from('<Q', a, 0x20)
phentsize, phnum = struct.unpack_from('<HH', a, 0x36)
# The ELF header's e_shoff and e_shnum point to the new section headers
# (the kernel maps the binary, never the copy): compare the rest.
mask = lambda x: x[:0x28] + bytes(8) + x[0x30:0x3c] + bytes(2) + x[0x3e:]
a, b = mask(a), mask(b)
n = 0
for i in range(phnum):
    typ, flags, off, vaddr, paddr, filesz = struct.unpack_from('<IIQQQQ', a, phoff + i * phentsize)
    if typ == 1:
        n += 1
        if a[off:off + filesz] != b[off:off + filesz]:
            sys.exit('PT_LOAD at file offset %#x differs' % off)
if n == 0 or b[:len(a)] != a:
    sys.exit('no PT_LOAD, or the bytes but e_shoff and e_shnum differ')
EOF
  then
    echo "ok - Go $v: the copy's PT_LOAD ranges and every byte of the binary but e_shoff and e_shnum equal"
  else
    fail "Go $v: the copy of $abi differs from it where it must not"
  fi
done

# stap 4.8's relay transport (runtime/transport/relay_v2.c) drops records
# and staprun 4.8 then loses the framing, and staprun 4.8 stops reading
# as soon as the module answers its STP_EXIT: gostap run gave stap a copy
# of its runtime in the cache (run-runtime.c). It differs from the
# runtime only in relay_v2.c (in _stp_data_write_reserve() a rest of the
# sub-buffer too small for a header goes to padding) and in transport.c
# (the module's STP_EXIT goes back from a work item, added before
# _stp_cleanup_and_exit(), once the readers have read every buffer; the
# work item cancelled in _stp_transport_close()).
rt=$("$tmp/stap-old" --help 2>&1 | sed -n '/look in DIR for runtime/{n;s/^ *//p}')
[ -d "$rt" ] || hard_error "stap --help names no runtime directory: '$rt'"
checks=$((checks + 1))
copies=$(find "$tmp/cache-old/gostap/runtime" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true)
rcopy=$copies
if [ -z "$copies" ] || [ "$(wc -l <<< "$copies")" != 1 ]; then
  fail "runtime copy: not one in $tmp/cache-old/gostap/runtime after gostap run -p2: '$copies'"
  rcopy=
elif [ "$(diff -rq "$rt" "$rcopy" | sed "s|$rt|RT|;s|$rcopy|COPY|")" != "Files RT/transport/relay_v2.c and COPY/transport/relay_v2.c differ
Files RT/transport/transport.c and COPY/transport/transport.c differ" ]; then
  fail "runtime copy: it differs from $rt elsewhere than transport/relay_v2.c and transport.c: $(diff -rq "$rt" "$rcopy" | head -5)"
else
  # Each change of the copy (difflib against the original) lies where it
  # belongs, and removes only the lines named here.
  if python3 - "$rt/transport" "$rcopy/transport" > "$tmp/relay.check" 2>&1 <<'EOF'
import difflib, re, sys
orig_dir, copy_dir = sys.argv[1:3]
def lines(d, f):
    return open(f"{d}/{f}").read().split("\n")
def function_at(text, i):
    """The function whose body holds line i, or whose header is line i."""
    for j in range(min(i, len(text) - 1), -1, -1):
        m = re.match(r"^(?:static )?[\w ]*?\b(\w+)\([^;]*\)$", text[j])
        if m and j + 1 < len(text) and text[j + 1] == "{":
            return m.group(1)
        if j < i and text[j] == "}":
            return None
    return None
expect = {
    "relay_v2.c": ({"_stp_data_write_reserve"},
                   ["\t\tsize_request = buf->chan->subbuf_size - buf->offset;"],
                   ["PR31117", "__stp_relay_switch_subbuf(buf, size_request)"]),
    "transport.c": ({"_stp_cleanup_and_exit", "_stp_transport_close"},
                    ["\t\t\t_stp_ctl_send_notify(STP_EXIT, NULL, 0);"],
                    ["PR31597", "_stp_ctl_send_notify(STP_EXIT, NULL, 0);",
                     "schedule_delayed_work(&_gostap_exit_work, 0);",
                     "cancel_delayed_work_sync(&_gostap_exit_work);"]),
}
said = []
for f, (where, removable, added_must) in expect.items():
    o, c = lines(orig_dir, f), lines(copy_dir, f)
    removed, added, places = [], [], set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, o, c, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        removed += o[i1:i2]
        added += c[j1:j2]
        places.add(function_at(o, i1))
    if not places <= where:
        sys.exit(f"{f}: changed in {sorted(map(str, places - where))}, expected only in {sorted(where)}")
    if any(r not in removable for r in removed):
        sys.exit(f"{f}: removes {[r for r in removed if r not in removable][:2]}")
    text = "\n".join(added)
    missing = [m for m in added_must if m not in text]
    if missing:
        sys.exit(f"{f}: adds none of {missing}")
    said.append(f"{f} in {', '.join(sorted(places))} ({len(added)} lines added, {len(removed)} replaced)")
print("; ".join(said))
EOF
  then
    echo "ok - runtime copy $(basename "$rcopy"): only transport/relay_v2.c and transport.c differ from $rt: $(cat "$tmp/relay.check")"
  else
    fail "runtime copy: $(cat "$tmp/relay.check")"
  fi
fi

# stap's command line (gostap run -v prints it): -R the copy; a -R of the
# user's is kept, and no other added.
checks=$((checks + 1))
demo=$(fix 1.24 default demo)
rrun () { XDG_CACHE_HOME=$tmp/cache-old GOSTAP_STAP=$tmp/stap-old "$GOSTAP" run -v -p2 -t "$demo" "$@" -e 'probe go.func.main.rec { println(goid) }'; }
if [ -z "$rcopy" ]; then
  fail "-R: no runtime copy to look for"
elif ! rrun > /dev/null 2> "$tmp/rrun.err"; then
  fail "-R: gostap run -v -p2 failed: $(grep -v '^WARNING: address' "$tmp/rrun.err" | head -3)"
elif ! grep -q "^gostap: running: .* -R $rcopy " "$tmp/rrun.err"; then
  fail "-R: stap's command has no -R $rcopy: $(grep '^gostap: running:' "$tmp/rrun.err")"
elif ! rrun -R "$rt" > /dev/null 2> "$tmp/rrun2.err"; then
  fail "-R of the user's: gostap run failed: $(head -3 "$tmp/rrun2.err")"
elif [ "$(grep '^gostap: running:' "$tmp/rrun2.err" | grep -o ' -R [^ ]*' | tr '\n' ' ')" != " -R $rt " ]; then
  fail "-R of the user's: not theirs alone: $(grep '^gostap: running:' "$tmp/rrun2.err")"
else
  echo "ok - stap's command: -R the copy; with the user's -R, theirs alone"
fi

# A runtime whose relay code is not the one gostap knows: no copy, the
# doctor says so, gostap run warns once and runs stap without -R.
cp -a "$rt" "$tmp/rt-other"
sed -i 's/size_request = buf->chan->subbuf_size - buf->offset;/size_request = (buf->chan->subbuf_size - buf->offset);/' "$tmp/rt-other/transport/relay_v2.c"
checks=$((checks + 1))
SYSTEMTAP_RUNTIME=$tmp/rt-other GOSTAP_STAP=$tmp/stap-old "$GOSTAP" doctor > "$tmp/doctor.other" 2>&1 || true
if ! SYSTEMTAP_RUNTIME=$tmp/rt-other XDG_CACHE_HOME=$tmp/cache-other GOSTAP_STAP=$tmp/stap-old \
     "$GOSTAP" run -v -p2 -t "$demo" -e 'probe go.func.main.rec { println(goid) }' > /dev/null 2> "$tmp/other.err"; then
  fail "unknown relay code: gostap run failed: $(head -3 "$tmp/other.err")"
elif ! grep -q "^??  transport .*($tmp/rt-other/transport/relay_v2.c, transport.c) is not the one gostap knows" "$tmp/doctor.other"; then
  fail "unknown relay code: the doctor does not say so: $(grep transport "$tmp/doctor.other")"
elif [ "$(grep -c 'relay transport' "$tmp/other.err")" != 1 ] || grep -q '^gostap: running: .* -R ' "$tmp/other.err" ||
     [ -e "$tmp/cache-other/gostap/runtime" ]; then
  fail "unknown relay code: not one warning, or a -R, or a copy: $(grep 'relay\|running:' "$tmp/other.err")"
else
  echo "ok - relay code not the one gostap knows: the doctor says so, gostap run warns once, no copy, no -R"
fi

# The copy cannot be made (the cache's runtime directory is a file): one
# line naming the file and the call, one warning, stap runs without -R.
mkdir -p "$tmp/cache-bad/gostap" && : > "$tmp/cache-bad/gostap/runtime"
checks=$((checks + 1))
if ! XDG_CACHE_HOME=$tmp/cache-bad GOSTAP_STAP=$tmp/stap-old \
     "$GOSTAP" run -v -p2 -t "$demo" -e 'probe go.func.main.rec { println(goid) }' > /dev/null 2> "$tmp/bad.err"; then
  fail "no copy possible: gostap run failed: $(head -3 "$tmp/bad.err")"
elif ! grep -q ": $tmp/cache-bad/gostap/runtime/\.tmp\.[^ ]*: mkdtemp: Not a directory$" "$tmp/bad.err" ||
     [ "$(grep -c 'warning: no copy of stap 4.8' "$tmp/bad.err")" != 1 ] || grep -q '^gostap: running: .* -R ' "$tmp/bad.err"; then
  fail "no copy possible: not one error line, one warning and no -R: $(grep -v '^WARNING: address\|^Pass\|^Parsed\|^Searched\|^Created\|^Running\|^Spawn\|^Removed\|^Session\|^Build' "$tmp/bad.err" | head -5)"
else
  echo "ok - no copy possible: $(grep "$tmp/cache-bad" "$tmp/bad.err" | grep -v running: | head -1); stap runs without -R"
fi

# A split build of Go 1.24's abi program: stripped, its debug file found
# by its GNU build id in a debug directory.
abi=$(fix 1.24 default abi)
id=$(readelf -n "$abi" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || hard_error "$abi has no GNU build id"
mkdir -p "$tmp/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$abi" "$tmp/debug/.build-id/${id:0:2}/${id:2}.debug"
strip -o "$tmp/abi-split" "$abi"
SYSTEMTAP_DEBUGINFO_PATH=$tmp/debug same split "Go 1.24 abi, stripped, debug file by build id" -t "$tmp/abi-split" -e "$all_main"
checks=$((checks + 1))
if SYSTEMTAP_DEBUGINFO_PATH=$tmp/debug GOSTAP_STAP=$tmp/stap-old "$GOSTAP" doctor "$tmp/abi-split" > "$tmp/doctor.split" &&
   grep -q '^ok  \.debug_aranges .*a copy of the debug file' "$tmp/doctor.split" &&
   grep -q '^ok  entry probes .*after the stack check' "$tmp/doctor.split"; then
  echo "ok - doctor on the split build: a copy of the debug file, entry after the stack check"
else
  fail "doctor on the split build: $(cat "$tmp/doctor.split")"
fi

# The same debug file from debuginfod (on 127.0.0.1 in a network
# namespace of its own; the debug directory empty): libdwfl names no file
# for it, gostap finds it in libdebuginfod's cache and gives stap a copy
# first in SYSTEMTAP_DEBUGINFO_PATH, ahead of stap's own debuginfod
# lookup: the listing of the build-id case.
checks=$((checks + 1))
if ! command -v debuginfod > /dev/null; then
  fail "no debuginfod (Debian package debuginfod; tools/deps.sh installs it)"
elif ! unshare -n true 2>/dev/null; then
  echo "SKIP: debuginfod check: cannot make a network namespace here (unshare -n)" >&2
else
  mkdir -p "$tmp/served" "$tmp/nodebug"
  cp "$tmp/debug/.build-id/${id:0:2}/${id:2}.debug" "$tmp/served/abi.debug"
  st=0
  unshare -n bash -c '
    tmp=$1 id=$2; shift 2
    ip link set lo up || exit 3
    debuginfod -F -p 18012 -d "$tmp/dbgd.sqlite" -t 0 -g 0 "$tmp/served" > "$tmp/debuginfod.log" 2>&1 &
    server=$!
    trap "kill $server" EXIT
    python3 -c "
import sys, time, urllib.request
deadline = time.time() + 120
while time.time() < deadline:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=5).read(1)
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)" "http://127.0.0.1:18012/buildid/$id/debuginfo" || exit 4
    "$@"' _ "$tmp" "$id" env XDG_CACHE_HOME="$tmp/cache-dbgd" GOSTAP_STAP="$tmp/stap-old" \
      SYSTEMTAP_DEBUGINFO_PATH="$tmp/nodebug" DEBUGINFOD_URLS=http://127.0.0.1:18012 \
      DEBUGINFOD_CACHE_PATH="$tmp/dcache" \
      "$GOSTAP" run -p2 -t "$tmp/abi-split" -e "$all_main" > "$tmp/dbgd.raw" 2> "$tmp/dbgd.err" || st=$?
  sed "s|$tmp/cache-dbgd/|CACHE/|g" "$tmp/dbgd.raw" > "$tmp/dbgd"
  sed "s|$tmp/cache-old/|CACHE/|g" "$tmp/split.old.raw" > "$tmp/split.cmp"
  if [ "$st" != 0 ]; then
    fail "debug file from debuginfod: status $st: $(head -3 "$tmp/dbgd.err")"
  elif [ ! -s "$tmp/dcache/$id/debuginfo" ]; then
    fail "debug file from debuginfod: libdebuginfod's cache has no $id/debuginfo: was it asked?"
  elif ! diff "$tmp/split.cmp" "$tmp/dbgd" > "$tmp/dbgd.diff"; then
    fail "debug file from debuginfod: the listing differs from the build-id case's: $(head -8 "$tmp/dbgd.diff")"
  else
    echo "ok - debug file from debuginfod: $(grep -c '^process(' "$tmp/dbgd") probe points, the listing of the build-id case"
  fi
fi

# The same without a build id, found by .gnu_debuglink: refused.
objcopy --remove-section .note.gnu.build-id "$abi" "$tmp/abi-nobid"
objcopy --only-keep-debug "$tmp/abi-nobid" "$tmp/abi-nobid.debug"
strip "$tmp/abi-nobid"
objcopy --add-gnu-debuglink="$tmp/abi-nobid.debug" "$tmp/abi-nobid"
GOSTAP_STAP=$tmp/stap-old expect_fail 1 "libdw 0\.$sysdw, which finds no DWARF unit .*GNU build id" \
  "$GOSTAP" run -t "$tmp/abi-nobid" -p2 -e "$all_main"

# gostap gen for stap by hand: one line giving the --sysroot; with it,
# stap by hand gives the listing of libdw 0.192 without it.
abi=$(fix 1.27 default abi)
checks=$((checks + 1))
XDG_CACHE_HOME=$tmp/cache-gen GOSTAP_STAP=$tmp/stap-old "$GOSTAP" gen "$abi" -o "$tmp/gen0" 'main.*' 2> "$tmp/gen0.err" ||
  fail "gen $abi: $(cat "$tmp/gen0.err")"
checks=$((checks + 1))
if [ "$(wc -l < "$tmp/gen0.err")" = 2 ] && grep -q ': warning: .*gostap gen --aranges makes that copy' "$tmp/gen0.err" &&
   grep -q ": warning: stap 4\.8's relay transport drops records .*gostap gen --fixed-runtime makes that copy and names it$" "$tmp/gen0.err" &&
   [ ! -e "$tmp/cache-gen/gostap/sysroot" ] && [ ! -e "$tmp/cache-gen/gostap/runtime" ]; then
  echo "ok - gen without --aranges, --fixed-runtime: a warning line naming each, no copy made: $(cat "$tmp/gen0.err")"
else
  fail "gen without --aranges, --fixed-runtime: $(cat "$tmp/gen0.err"; ls "$tmp/cache-gen/gostap" 2>&1)"
fi
XDG_CACHE_HOME=$tmp/cache-gen GOSTAP_STAP=$tmp/stap-old "$GOSTAP" gen --aranges --fixed-runtime "$abi" -o "$tmp/gen" 'main.*' 2> "$tmp/gen.err" ||
  fail "gen --aranges --fixed-runtime $abi: $(cat "$tmp/gen.err")"
sysroot=$(sed -n 's/.*: warning: .* run stap with --sysroot=\([^ ]*\) (a copy of the binary with them)$/\1/p' "$tmp/gen.err")
rdir=$(sed -n "s/.*: warning: stap 4\.8's relay transport drops records .*: run stap with -R \([^ ]*\) (a copy of its runtime with the fix)$/\1/p" "$tmp/gen.err")
checks=$((checks + 1))
if [ "$(wc -l < "$tmp/gen.err")" = 2 ] && [ -n "$rdir" ] && [ -n "$rcopy" ] &&
   [ "$(basename "$rdir")" = "$(basename "$rcopy")" ] && diff -r "$rcopy" "$rdir" > /dev/null; then
  echo "ok - gen --fixed-runtime: -R $rdir, the copy gostap run makes"
else
  fail "gen --fixed-runtime: not one line naming -R the copy gostap run makes ($rcopy): $(cat "$tmp/gen.err")"
fi
if [ "$(grep -c -- '--sysroot' "$tmp/gen.err")" != 1 ] || [ -z "$sysroot" ]; then
  fail "gen on libdw 0.$sysdw: not one line naming the --sysroot: $(cat "$tmp/gen.err")"
else
  echo "ok - gen: $(grep -- --sysroot "$tmp/gen.err")"
  checks=$((checks + 1))
  hand () { "$@" -g -I "$tmp/gen" -I "$top_srcdir/tapsets" -p2 -e "$all_main"; }
  if hand "$tmp/stap-old" > /dev/null 2>&1; then
    fail "stap by hand with libdw 0.$sysdw resolved the aliases without the --sysroot"
  elif ! hand "$tmp/stap-old" --sysroot="$sysroot" ${rdir:+-R "$rdir"} > "$tmp/hand.old" 2> "$tmp/hand.err"; then
    fail "stap by hand with --sysroot: $(grep -v '^WARNING: address' "$tmp/hand.err" | head -5)"
  elif ! hand "$tmp/stap-new" > "$tmp/hand.new" 2> "$tmp/hand.err"; then
    fail "stap by hand with libdw 0.192: $(head -5 "$tmp/hand.err")"
  elif ! diff "$tmp/hand.old" "$tmp/hand.new" > "$tmp/hand.diff"; then
    fail "stap by hand: libdw 0.$sysdw with --sysroot and libdw 0.192 differ: $(head -8 "$tmp/hand.diff")"
  else
    echo "ok - stap by hand: no match without the --sysroot; with it (and gen's -R) the listing of libdw 0.192 ($(grep -c '^process(' "$tmp/hand.old") probe points)"
  fi
fi

# A module built on the fixed runtime compiles (-p4) against Debian
# bookworm's 6.1, the kernel of stap 4.8's distribution: its headers as
# run-kbuild.sh fetched them into the test cache (skipped when they are not
# there), and where they need it (Debian backported Linux 6.11's
# task_work_cancel_func) the runtime changed for it as run-kbuild.sh
# changes it, here in $tmp: gostap copies that one (SYSTEMTAP_RUNTIME).
kb=$(ls -d "$GOSTAP_TEST_CACHE"/kbuild/bookworm-amd64-*/usr/src/linux-headers-*-amd64 2>/dev/null | head -1)
if [ -z "$kb" ] || [ ! -f "${kb%/usr/src/*}/.ready" ]; then
  echo "# SKIP -p4 against bookworm's 6.1: no headers in $GOSTAP_TEST_CACHE/kbuild (run-kbuild.sh fetches them)"
else
  checks=$((checks + 1))
  krt=$rt note=
  if grep -qs task_work_cancel_func "$(dirname "$kb")"/linux-headers-*-common/include/linux/task_work.h &&
     ! grep -q task_work_cancel_func "$rt/stp_task_work.c"; then
    krt=$tmp/rt-twcf note=", task_work_cancel_func"
    cp -a "$rt" "$krt"
    sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' "$krt/stp_task_work.c"
  fi
  cc=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$kb/.kernelvariables")
  command -v "$cc" > /dev/null || cc=gcc
  SYSTEMTAP_RUNTIME=$krt XDG_CACHE_HOME=$tmp/cache-kb GOSTAP_STAP=$tmp/stap-old \
    "$GOSTAP" gen --fixed-runtime "$abi" -o "$tmp/gen-kb" 'main.*' 2> "$tmp/kb.gen" || true
  kdir=$(sed -n "s/.* run stap with -R \([^ ]*\) (a copy of its runtime with the fix)$/\1/p" "$tmp/kb.gen")
  mkdir -p "$tmp/kbtmp"
  st=0
  [ -n "$kdir" ] &&
    (cd "$tmp" && env DEBUGINFOD_URLS= TMPDIR="$tmp/kbtmp" SYSTEMTAP_DIR="$tmp/stapdir" \
       stap -p4 -k -r "$kb" -R "$kdir" -B "CC=$cc" -m relayfix_bw \
       -e 'probe begin { printf("%s\n", "hello") exit() }') > "$tmp/kb.log" 2>&1 || st=$?
  if [ -z "$kdir" ]; then
    fail "-p4 against $(basename "$kb"): gen --fixed-runtime named no copy: $(cat "$tmp/kb.gen")"
  elif [ "$st" != 0 ] || [ ! -f "$tmp/relayfix_bw.ko" ]; then
    fail "-p4 against $(basename "$kb") with -R $kdir: exit $st: $(grep -m5 -i error "$tmp/kb.log" | cut -c1-300)"
  elif ! grep -qsF "$kdir/transport/relay_v2.c" "$tmp"/kbtmp/stap*/.relayfix_bw_src.o.cmd; then
    fail "-p4 against $(basename "$kb"): the module was not built from $kdir/transport/relay_v2.c"
  else
    echo "ok - -p4 against $(basename "$kb") ($cc$note): the module compiles with the fixed runtime's relay_v2.c"
  fi
fi

# doctor on a binary with DWARF: what gostap run does.
demo=$(fix 1.24 default demo)
checks=$((checks + 1))
if GOSTAP_STAP=$tmp/stap-old "$GOSTAP" doctor "$demo" > "$tmp/doctor" &&
   grep -q "^ok  libdw .*libdw 0\.$sysdw" "$tmp/doctor" &&
   grep -q '^ok  \.debug_aranges .*a copy of the binary' "$tmp/doctor" &&
   grep -q '^ok  RET probes' "$tmp/doctor" && grep -q '^ok  arguments, results' "$tmp/doctor"; then
  echo "ok - doctor: libdw 0.$sysdw, a copy of the binary with .debug_aranges, RETs, arguments"
else
  fail "doctor: $(cat "$tmp/doctor")"
fi

# -c with a relative path: stap 4.8 looks for it under the sysroot by a
# path of its own making; gostap drops that warning (the -d it passes
# gives the same file's symbols).
cp "$demo" "$tmp/demo"
checks=$((checks + 1))
if (cd "$tmp" && XDG_CACHE_HOME=$tmp/cache-old GOSTAP_STAP=$tmp/stap-old \
      "$GOSTAP" run -c './demo 1' -p3 "$examples/newstack.stp" > /dev/null 2> "$tmp/p3.err") &&
   ! grep -q 'missing unwind/symbol data' "$tmp/p3.err"; then
  echo "ok - -c ./demo -p3: no warning of a module under the sysroot"
else
  fail "-c ./demo -p3: $(grep -v '^WARNING: address' "$tmp/p3.err" | head -5)"
fi

# Older still: bullseye's SystemTap 4.4 with libdw 0.183 (the oldest
# Debian still carries), unpacked from the archive into the test cache
# (nothing installed), its tapsets and runtime named by SYSTEMTAP_TAPSET
# and SYSTEMTAP_RUNTIME. newstack, funclatency and goroutines through
# gostap run: passes 1-3 (the script and gostap's tapsets, embedded C
# included, translated to C), and at pass 2 the same probe points at the
# same addresses as libdw 0.192 gives.
CACHE=$GOSTAP_TEST_CACHE
. "$testsuite/debian-archive.sh"
bull=$(bullseye_stap 2> "$tmp/bull.log") ||
  hard_error "cannot unpack bullseye's systemtap: $(tail -3 "$tmp/bull.log")"
kstub=$(sed -n 's/.* -r \([^ ]*\).*/\1/p' <<< "$STAP")
printf '#!/bin/sh\nexec env DEBUGINFOD_URLS= LD_LIBRARY_PATH=%s SYSTEMTAP_TAPSET=%s SYSTEMTAP_RUNTIME=%s %s -r %s "$@"\n' \
  "$bull/usr/lib/x86_64-linux-gnu" "$bull/usr/share/systemtap/tapset" \
  "$bull/usr/share/systemtap/runtime" "$bull/usr/bin/stap" "$kstub" > "$tmp/stap-bull"
chmod +x "$tmp/stap-bull"
bullv=$("$tmp/stap-bull" -V 2>&1 | head -1)
case $bullv in
  *"version 4.4/0.183"*) echo "# bullseye: $bullv" ;;
  *) hard_error "bullseye's stap: unexpected version line: $bullv" ;;
esac
probes () { grep '^process(' "$1" | sed 's| /\* <- .*||' | sort; }
for v in 1.19 1.24 1.27; do
  demo=$(fix "$v" default demo)
  for ex in newstack funclatency goroutines; do
    checks=$((checks + 1))
    what="Go $v $ex.stp on stap 4.4/libdw 0.183"
    if ! XDG_CACHE_HOME=$tmp/cache-bull GOSTAP_STAP=$tmp/stap-bull \
         "$GOSTAP" run -p3 -c "$demo 1" "$examples/$ex.stp" > /dev/null 2> "$tmp/bull.err"; then
      fail "$what: gostap run -p3: $(grep -v '^WARNING: address\|^gostap: .*folded' "$tmp/bull.err" | head -5)"
    elif ! XDG_CACHE_HOME=$tmp/cache-bull GOSTAP_STAP=$tmp/stap-bull \
         "$GOSTAP" run -p2 -c "$demo 1" "$examples/$ex.stp" > "$tmp/bull.p2" 2> "$tmp/bull.err"; then
      fail "$what: gostap run -p2: $(head -3 "$tmp/bull.err")"
    elif [ ! -s "$tmp/$ex-$v.new" ]; then
      fail "$what: no libdw 0.192 listing to compare with"
    elif ! diff <(probes "$tmp/bull.p2") <(probes "$tmp/$ex-$v.new") > "$tmp/bull.diff" ||
         [ -z "$(probes "$tmp/bull.p2")" ]; then
      fail "$what: probe points differ from libdw 0.192's: $(head -6 "$tmp/bull.diff")"
    else
      echo "ok - $what: translated (-p3); $(probes "$tmp/bull.p2" | wc -l) probe points as with libdw 0.192"
    fi
  done
done

finish
