#!/bin/bash
# gostap run -x PID: the file the process runs, checked by device and
# inode against /proc/PID/exe.
#  - A process of this mount namespace: gostap gives stap that file's
#    path, and stap -p2 elaborates the script's probes in it.
#  - A process of another mount namespace (a container): the demo program
#    is copied into a tmpfs mounted only in a new mount namespace
#    (unshare -m), at a path that on the host holds another Go binary, and
#    run from there.  /proc/PID/exe then reads as that path; stap would
#    resolve it, and /proc/PID/root/PATH too (it canonicalizes the path:
#    checked here), to the host's other binary.  gostap must refuse in one
#    line, not generate probes for the wrong file.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

unshare -m true 2>/dev/null || skip "cannot make a mount namespace here (unshare -m)"
need_stap
printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
export GOSTAP_NO_PREFLIGHT=1 GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets
fixture_manifest > "$tmp/manifest"
export XDG_CACHE_HOME=$tmp/cache    # gostap run's cache (after the fixtures')
bin=$(awk '$2 == "1.24" && $3 == "default" && $4 == "demo" { print $1 }' "$tmp/manifest")
decoy=$(awk '$2 == "1.24" && $3 == "default" && $4 == "grow" { print $1 }' "$tmp/manifest")
[ -n "$bin" ] && [ -n "$decoy" ] || hard_error "no demo or grow build for Go 1.24 in the manifest"
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

# This namespace.
mkdir -p "$tmp/here"
cp "$bin" "$tmp/here/prog"
"$tmp/here/prog" 60 > /dev/null 2>&1 &
pids+=($!)
pid=$(wait_pid "$tmp/here/prog 60")
checks=$((checks + 1))
st=0
"$GOSTAP" run -x "$pid" -v -p2 "$tmp/s.stp" > "$tmp/run.out" 2>"$tmp/run.err" || st=$?
used=$(sed -n 's/^gostap: running: .* -d \([^ ]*\) .*/\1/p' "$tmp/run.err")
if [ "$st" != 0 ]; then
  fail "gostap run -x $pid -p2: exit $st: $(grep -v WARNING "$tmp/run.err" | head -5)"
elif [ "$used" != "$tmp/here/prog" ] || ! grep -q "^process(\"$used\")" "$tmp/run.out"; then
  fail "gostap run -x $pid gave stap '$used'; stap -p2: $(head -3 "$tmp/run.out")"
else
  echo "ok - gostap run -x $pid probes $used; stap -p2: $(grep -c '^process(' "$tmp/run.out") probes"
fi

# Another mount namespace, whose path names another binary here.
mkdir -p "$tmp/app"
cp "$decoy" "$tmp/app/prog"
unshare -m --propagation private bash -c '
  mount -t tmpfs none "$1" && cp "$2" "$1/prog" && exec "$1/prog" 60' _ "$tmp/app" "$bin" \
  > "$tmp/demo.out" 2>&1 &
pids+=($!)
pid=$(wait_pid "$tmp/app/prog 60")
for _ in $(seq 50); do
  [ "$(stat -L -c %d:%i "/proc/$pid/exe")" != "$(stat -L -c %d:%i "$tmp/app/prog")" ] && break
  sleep 0.1
done
checks=$((checks + 1))
if [ -z "$pid" ] || [ "$(stat -L -c %d:%i "$tmp/app/prog")" = "$(stat -L -c %d:%i "/proc/$pid/exe")" ]; then
  fail "the demo did not start in a mount namespace of its own: $(cat "$tmp/demo.out")"
else
  echo "ok - /proc/$pid/exe reads $(readlink "/proc/$pid/exe"), which here is another file"
fi
# What stap does with /proc/PID/root/PATH (a measurement, printed: the
# decoy has main.rec, the demo the process runs has not).
if $STAP -p2 -e "probe process(\"/proc/$pid/root$tmp/app/prog\").function(\"main.rec\") { println(1) }" \
     > "$tmp/canon.out" 2>/dev/null && grep -q "^process(\"$tmp/app/prog\")" "$tmp/canon.out"; then
  echo "# stap resolves process(\"/proc/$pid/root$tmp/app/prog\") to the host's $tmp/app/prog (why gostap refuses)"
else
  echo "# stap no longer resolves /proc/PID/root paths to the host's file: $(head -2 "$tmp/canon.out")"
fi
expect_fail 1 "process $pid runs .* in another mount namespace \(a container\)" \
  "$GOSTAP" run -x "$pid" -p2 "$tmp/s.stp"
finish
