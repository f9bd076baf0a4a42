#!/bin/bash
# gostap run -x PID: the file the process runs, checked by device and
# inode against /proc/PID/exe, also for a process of another mount
# namespace (a container).  stap -p2 elaborates the probes here; they fire
# in the guest (run-e2e.sh, job "container").
#  - A process of this mount namespace: gostap gives stap that file's
#    path.
#  - A "container": a program copied into a tmpfs mounted only in a new
#    mount namespace (unshare -m), at a path that names another file here,
#    or none.  /proc/PID/exe reads that path; stap would resolve it, and
#    /proc/PID/root/PATH too (it canonicalizes: printed here), to this
#    namespace's file.  gostap copies the process's program into a
#    sysroot in its cache and runs stap --sysroot: stap -p2 must place the
#    probes by the container's path, in the container's program (the
#    demo's main.handle, which the decoy here does not have).
#  - Refusals, one line each, where stap would put the probes at wrong
#    addresses in another file: the binary has no GNU build id and the
#    path names a file of other bytes here, or another process runs one.
#  - A stripped program (no .symtab, no DWARF) in a container: its
#    companion debug file, found by stap under the sysroot.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

unshare -m true 2>/dev/null || skip "cannot make a mount namespace here (unshare -m)"
need_stap
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
export GOSTAP_NO_PREFLIGHT=1 GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets
fixture_manifest > /dev/null
export XDG_CACHE_HOME=$tmp/cache    # gostap run's cache (after the fixtures')
bin=$(fixture 1.24 default demo)
decoy=$(fixture 1.24 default grow)
[ -n "$bin" ] && [ -n "$decoy" ] || hard_error "no demo or grow build for Go 1.24 in the manifest"
# The demo without its GNU build id (stap then tells files by path only),
# and stripped of .symtab and DWARF (what -s -w leaves).
objcopy --remove-section .note.gnu.build-id "$bin" "$tmp/demo-nobid"
strip -s "$bin" -o "$tmp/demo-sw"
cat > "$tmp/s.stp" <<'STP'
probe go.func.main.handle { printf("%d\n", goid) }
probe go.func.main.handle.return { printf("%d\n", go_latency_ns) }
STP
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
# wait_pid PATTERN: the pid of the process whose command line starts so.
wait_pid () {
  local p
  for _ in $(seq 100); do
    p=$(pgrep -f "^$1" | head -1 || true)
    [ -n "$p" ] && [ -e "/proc/$p/exe" ] && { echo "$p"; return; }
    sleep 0.1
  done
}
# container DIR BINARY TAG: run BINARY as DIR/prog TAG in a mount
# namespace of its own where DIR is a tmpfs; its pid (the caller adds it
# to pids: this runs in a subshell).
container () {
  local dir=$1 b=$2 tag=$3 p
  mkdir -p "$dir"
  unshare -m --propagation private bash -c '
    mount -t tmpfs none "$1" && cp "$2" "$1/prog" && exec "$1/prog" 60 "$3"' _ \
    "$dir" "$b" "$tag" > /dev/null 2>&1 &
  p=$(wait_pid "$dir/prog 60 $tag")
  for _ in $(seq 50); do
    [ -n "$p" ] && [ "$(stat -L -c %s "/proc/$p/exe")" = "$(stat -c %s "$b")" ] && break
    sleep 0.1
  done
  echo "$p"
}
# run_p2 PID SCRIPT: gostap run -x PID -v -p2 SCRIPT; its stap command's
# --sysroot and -d words in $sysroot and $dpath, stap's output in run.out.
run_p2 () {
  local st=0
  "$GOSTAP" run -x "$1" -v -p2 "$2" > "$tmp/run.out" 2>"$tmp/run.err" || st=$?
  sysroot=$(sed -n 's/^gostap: running: .* --sysroot=\([^ ]*\) .*/\1/p' "$tmp/run.err")
  dpath=$(sed -n 's/^gostap: running: .* -d \([^ ]*\) .*/\1/p' "$tmp/run.err")
  return "$st"
}

# This namespace.
mkdir -p "$tmp/here"
cp "$bin" "$tmp/here/prog"
"$tmp/here/prog" 60 > /dev/null 2>&1 &
pids+=($!)
pid=$(wait_pid "$tmp/here/prog 60")
checks=$((checks + 1))
if ! run_p2 "$pid" "$tmp/s.stp"; then
  fail "gostap run -x $pid -p2: $(grep -v WARNING "$tmp/run.err" | head -5)"
elif [ "$dpath" != "$tmp/here/prog" ] || [ -n "$sysroot" ] ||
     ! grep -q "^process(\"$dpath\")" "$tmp/run.out"; then
  fail "gostap run -x $pid gave stap '$dpath' (sysroot '$sysroot'); stap -p2: $(head -3 "$tmp/run.out")"
else
  echo "ok - gostap run -x $pid probes $dpath, no sysroot; stap -p2: $(grep -c '^process(' "$tmp/run.out") probes"
fi

# A container whose path names another binary here (the grow fixture).
mkdir -p "$tmp/app"
cp "$decoy" "$tmp/app/prog"
pid=$(container "$tmp/app" "$bin" a)
pids+=("$pid")
checks=$((checks + 1))
if [ -z "$pid" ] || [ "$(stat -L -c %d:%i "$tmp/app/prog")" = "$(stat -L -c %d:%i "/proc/$pid/exe")" ]; then
  fail "the demo did not start in a mount namespace of its own"
else
  echo "ok - /proc/$pid/exe reads $(readlink "/proc/$pid/exe"), which here is another file"
fi
# What stap does with /proc/PID/root/PATH (a measurement, printed: the
# decoy has main.rec, the demo the process runs has not).
if $STAP -p2 -e "probe process(\"/proc/$pid/root$tmp/app/prog\").function(\"main.rec\") { println(1) }" \
     > "$tmp/canon.out" 2>/dev/null && grep -q "^process(\"$tmp/app/prog\")" "$tmp/canon.out"; then
  echo "# stap resolves process(\"/proc/$pid/root$tmp/app/prog\") to this namespace's $tmp/app/prog (why gostap uses --sysroot)"
else
  echo "# stap no longer resolves /proc/PID/root paths to this namespace's file: $(head -2 "$tmp/canon.out")"
fi
# The demo has a GNU build id, which stap checks before it places a
# probe: probed through the sysroot though the path names another file.
checks=$((checks + 1))
if ! run_p2 "$pid" "$tmp/s.stp"; then
  fail "gostap run -x $pid -p2 (container): $(grep -v WARNING "$tmp/run.err" | head -5)"
elif [ "$dpath" != "$tmp/app/prog" ] || [ -z "$sysroot" ] ||
     ! cmp -s "$sysroot$tmp/app/prog" "$bin" ||
     ! grep -q -- " --target-namespaces=$pid " "$tmp/run.err" ||
     [ "$(grep -c "^process(\"$tmp/app/prog\").statement(" "$tmp/run.out")" -lt 2 ]; then
  fail "gostap run -x $pid (container) gave stap -d '$dpath' --sysroot '$sysroot'; stap -p2: $(grep '^process' "$tmp/run.out" | head -3)"
else
  echo "ok - gostap run -x $pid (container, GNU build id) gave stap --sysroot=$sysroot holding the demo at $dpath, --target-namespaces=$pid; stap -p2 placed $(grep -c "^process(\"$dpath\").statement(" "$tmp/run.out") probes"
fi
# The sysroot holds the demo for stap itself: main.handle is the demo's.
checks=$((checks + 1))
if $STAP -p2 --sysroot="$sysroot" -e "probe process(\"$tmp/app/prog\").function(\"main.handle\") { println(1) }" \
     > "$tmp/sr.out" 2>&1 && grep -q "^process(\"$tmp/app/prog\").function(\"main.handle@" "$tmp/sr.out"; then
  echo "ok - stap --sysroot=$sysroot finds the demo's main.handle by the container's path"
else
  fail "stap --sysroot=$sysroot: $(grep -v WARNING "$tmp/sr.out" | head -3)"
fi

# No GNU build id, and the path names a file of other bytes here: refused.
kill "$pid"
pid=$(container "$tmp/app" "$tmp/demo-nobid" b)
pids+=("$pid")
expect_fail 1 "$tmp/app/prog: names another file here than the one process $pid runs" \
  "$GOSTAP" run -x "$pid" -p2 "$tmp/s.stp"
# No file by that path here: probed through the sysroot.
rm "$tmp/app/prog"
checks=$((checks + 1))
if run_p2 "$pid" "$tmp/s.stp" && [ -n "$sysroot" ] && [ "$dpath" = "$tmp/app/prog" ]; then
  echo "ok - gostap run -x $pid (container, no GNU build id, no file by its path here): --sysroot=$sysroot"
else
  fail "gostap run -x $pid (container, no build id): $(grep -v WARNING "$tmp/run.err" | head -3)"
fi
# Another container runs another file by the same path (the demo with its
# build id): refused.
decoy_pid=$(container "$tmp/app" "$bin" c)
pids+=("$decoy_pid")
expect_fail 1 "process $pid runs it, and process $decoy_pid another file by the same path" \
  "$GOSTAP" run -x "$pid" -p2 "$tmp/s.stp"
kill "$pid" "$decoy_pid"

# A container chrooted into a tmpfs of its own namespace (/prog inside):
# /proc/PID/exe reads the path from the namespace's root, where this
# namespace has an empty directory, and /proc/PID/root + that path names
# nothing (the process's root is the tmpfs).
mkdir -p "$tmp/croot"
unshare -m --propagation private bash -c '
  mount -t tmpfs none "$1" && cp "$2" "$1/prog" && exec chroot "$1" /prog 60 e' _ \
  "$tmp/croot" "$bin" > /dev/null 2>&1 &
pids+=($!)
pid=$!
for _ in $(seq 100); do
  [ "$(readlink "/proc/$pid/exe")" = "$tmp/croot/prog" ] && break
  sleep 0.1
done
checks=$((checks + 1))
if run_p2 "$pid" "$tmp/s.stp" && [ -n "$sysroot" ] && [ "$dpath" = "$tmp/croot/prog" ] &&
   cmp -s "$sysroot$tmp/croot/prog" "$bin"; then
  echo "ok - gostap run -x $pid (chrooted container: /prog inside, $(readlink "/proc/$pid/exe") from here, no file here): --sysroot=$sysroot"
else
  fail "gostap run -x $pid (chrooted container): '$dpath' '$sysroot' $(grep -v WARNING "$tmp/run.err" | head -3)"
fi
kill "$pid"

# A stripped build in a container: its companion, found by stap in the
# sysroot.
pid=$(container "$tmp/app" "$tmp/demo-sw" d)
pids+=("$pid")
cat > "$tmp/sw.stp" <<'STP'
probe go.func.main.rec { printf("%d\n", goid) }
probe go.func.main.rec.return { printf("%d\n", go_latency_ns) }
probe go.runtime.stack_grow { println(new_size) }
STP
checks=$((checks + 1))
if run_p2 "$pid" "$tmp/sw.stp" && [ -n "$sysroot" ] &&
   [ "$(grep -c "^process(\"$tmp/app/prog\").statement(" "$tmp/run.out")" -ge 3 ] &&
   find "$XDG_CACHE_HOME/gostap/debug" -name '*.debug' | grep -q .; then
  echo "ok - gostap run -x $pid (container, stripped): companion written, stap -p2 placed $(grep -c "^process(\"$tmp/app/prog\").statement(" "$tmp/run.out") probes through --sysroot=$sysroot"
else
  fail "gostap run -x $pid (container, stripped): $(grep -v WARNING "$tmp/run.err" | head -3)"
fi
finish
