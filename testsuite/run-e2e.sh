#!/bin/bash
# run-e2e.sh: end-to-end test of gostap's tapsets with the real SystemTap
# kernel-module runtime, in a qemu/TCG guest (this machine's kernel cannot
# load modules: shared/docs/vm.md).
#
#  1. fixtures for Go 1.19, 1.24 and 1.27 (build-fixtures.sh);
#  2. the guest image: Debian trixie, stap 5.1, libdw 0.192, kernel 6.12
#     (e2e/build-image.sh, cached, rebuilt when its recipe changes);
#  3. `gostap gen` for each binary, the test scripts (e2e/*.stp) compiled
#     natively into modules in a chroot of the image (e2e/run-guest.sh
#     compile), two at a time;
#  4. one boot of the guest runs every module with staprun against its
#     program, and each program once without probes (e2e/run-guest.sh boot);
#  5. e2e/check-e2e.py asserts on the values printed: (a) newstack sizes
#     and backtraces, (b) argument and result values against the abi
#     fixture's own CALL/RET lines, (c) entry/return pairing, (d) goroutine
#     ids, (e) a >= 30 s run under load.
#
# Exit: 0 pass, 1 a check failed, 77 qemu cannot start here, 99 anything
# else went wrong (no image, a module that does not compile, a hung guest).
# Environment: GOSTAP_TEST_CACHE (the cache root), E2E_LOAD_SECONDS (30; 0
# leaves out check e), E2E_SMP (the guest's CPUs, 2),
# E2E_GUEST_TIMEOUT (900 s), E2E_KEEP=1 keeps the work directory.
. "$(dirname "$0")/test-subr.sh"
e2e=$testsuite/e2e
[ -x "$GOSTAP" ] || hard_error "$GOSTAP is not built"
[ "$(id -u)" = 0 ] || skip "the e2e test needs root (debootstrap, chroot, mounts)"

VERSIONS="1.19 1.24 1.27"
LOAD_VERSION=1.24
LOAD_SECONDS=${E2E_LOAD_SECONDS:-30}
if [ "${E2E_KEEP:-}" = 1 ]; then trap 'echo "work directory kept: $tmp" >&2' EXIT; fi

now () { date +%s.%N; }
elapsed () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)

# --- fixtures -------------------------------------------------------------------
t0=$(now)
manifest=$("$testsuite/build-fixtures.sh" $VERSIONS) || hard_error "build-fixtures.sh failed"
t_fixtures=$(elapsed "$t0" "$(now)")

# --- image ----------------------------------------------------------------------
t0=$(now)
image=$("$e2e/build-image.sh") || hard_error "build-image.sh failed"
t_image=$(elapsed "$t0" "$(now)")
sed 's/^/image: /' "$image/info"

# --- share: binaries, tapsets, scripts ----------------------------------------------
# The guest mounts $share at this same absolute path, and the chroot sees it
# there too: the paths gostap gen writes into the tapsets hold everywhere.
share=$tmp/share
mkdir -p "$share/bin" "$share/ts" "$share/mod" "$share/out" "$share/scripts"
cp "$testsuite/../tapsets/"*.stp "$share/scripts/"
cp "$e2e"/*.stp "$e2e/load.sh" "$share/scripts/"
cp -r "$e2e/bt-fileline" "$e2e/bt-symbols" "$share/scripts/"
mkdir -p "$share/tapsets" && mv "$share/scripts/"go_*.stp "$share/tapsets/"
for v in $VERSIONS; do
  for f in abi grow; do
    src=$(awk -v v="$v" -v f="$f" '$2 == v && $3 == "default" && $4 == f { print $1 }' <<< "$manifest")
    [ -n "$src" ] || hard_error "no $f fixture for Go $v in the manifest"
    cp "$src" "$share/bin/$f-$v"
    globs=("main.*")
    [ "$f" = grow ] && globs+=("runtime.mallocgc")
    "$GOSTAP" gen "$share/bin/$f-$v" -o "$share/ts/$f-$v" "${globs[@]}" ||
      hard_error "gostap gen $f-$v failed"
  done
done

# --- modules ----------------------------------------------------------------------
# name script fixture version [tapset dir of the script]
# newstack backtraces: with file:line where stap 5.1's runtime reads the
# line tables (DWARF 4, Go < 1.25); symbols only for DWARF 5 (Go 1.25+),
# plus a file:line module (newstackfl_*) that shows whether it still fails.
dwarf5 () { [ "$(printf '%s\n1.25\n' "$1" | sort -V | head -1)" = 1.25 ]; }
jobs=()
for v in $VERSIONS; do
  if dwarf5 "$v"; then
    jobs+=("newstack_${v/./_} newstack grow $v bt-symbols" "newstackfl_${v/./_} newstack grow $v bt-fileline")
  else
    jobs+=("newstack_${v/./_} newstack grow $v bt-fileline")
  fi
  jobs+=("values_${v/./_} values abi $v" "pairing_${v/./_} pairing grow $v")
done
[ "$LOAD_SECONDS" -gt 0 ] && jobs+=("load load grow $LOAD_VERSION")

compile_one () {
  local name=$1 script=$2 f=$3 v=$4 inc=()
  [ -n "${5:-}" ] && inc=(-I "$share/scripts/$5")
  "$e2e/run-guest.sh" compile "$image" "$share" "$name" "$share/scripts/$script.stp" \
    -g -d "$share/bin/$f-$v" -I "$share/ts/$f-$v" -I "$share/tapsets" "${inc[@]}" \
    -DSTP_NO_OVERLOAD -DMAXTRYLOCK=20000 -DMAXSKIPPED=1000000
}
t0=$(now)
# The first compile also fills the chroot's stap cache (autoconf tests);
# then two at a time (two cores).
set -- "${jobs[@]}"
compile_one $1 || hard_error "module $1 does not compile"
shift
while [ $# -gt 0 ]; do
  pids=()
  for j in "$1" "${2:-}"; do
    [ -n "$j" ] || continue
    compile_one $j & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || hard_error "a module does not compile (logs in $share/mod)"; done
  shift; [ $# -gt 0 ] && shift
done
t_compile=$(elapsed "$t0" "$(now)")

# --- the guest's script ---------------------------------------------------------------
{
  echo '#!/bin/bash'
  echo "S=$share"
  cat <<'EOF'
cd "$S"
# uprobes are placed on an inode; a 9p mount without caching makes a new
# inode for every lookup, so probes on binaries read from the share never
# fire: run them from a tmpfs mounted over bin/.
mkdir -p /tmp/bin && cp -a "$S/bin/." /tmp/bin/ && mount --bind /tmp/bin "$S/bin"
echo "guest: $(uname -r), $(stap -V 2>&1 | head -1)"
stamp () { date +%s.%N; }
# run NAME MODULE LIMIT CMD: staprun MODULE with CMD, stap's output in
# out/NAME.stap, CMD's in out/NAME.prog, staprun's stderr in out/NAME.err.
run () {
  local name=$1 mod=$2 limit=$3 st=0 t0
  shift 3
  t0=$(stamp)
  timeout -k 10 "$limit" staprun -o "$S/out/$name.stap" -c "$*" "$S/mod/$mod.ko" \
    > "$S/out/$name.prog" 2> "$S/out/$name.err" || st=$?
  echo "$st" > "$S/out/$name.rc"
  awk -v a="$t0" -v b="$(stamp)" 'BEGIN { printf "%.1f\n", b - a }' > "$S/out/$name.time"
  echo "guest: $name exit $st in $(cat "$S/out/$name.time") s"
}
EOF
  for v in $VERSIONS; do
    u=${v/./_}
    echo "\"\$S/bin/abi-$v\" > \"\$S/out/base_abi_$u.prog\" 2>&1; echo \$? > \"\$S/out/base_abi_$u.rc\""
    echo "\"\$S/bin/grow-$v\" > \"\$S/out/base_grow_$u.prog\" 2>&1; echo \$? > \"\$S/out/base_grow_$u.rc\""
    echo "run newstack_$u newstack_$u 240 \"\$S/bin/grow-$v\""
    if dwarf5 "$v"; then echo "run newstackfl_$u newstackfl_$u 240 \"\$S/bin/grow-$v\""; fi
    echo "run values_$u values_$u 240 \"\$S/bin/abi-$v\""
    echo "run pairing_$u pairing_$u 240 \"\$S/bin/grow-$v\""
  done
  [ "$LOAD_SECONDS" -gt 0 ] && echo "run load load $((LOAD_SECONDS + 240)) \"\$S/scripts/load.sh\" \"\$S/bin/grow-$LOAD_VERSION\" $LOAD_SECONDS \"\$S/out/load.runs\""
  echo 'echo "guest: done"'
} > "$share/guest.sh"
chmod +x "$share/guest.sh"

# --- boot ---------------------------------------------------------------------------
t0=$(now)
st=0
"$e2e/run-guest.sh" boot "$image" "$share" "${E2E_GUEST_TIMEOUT:-900}" || st=$?
t_guest=$(elapsed "$t0" "$(now)")
case $st in
  0) ;;
  77) skip "qemu cannot start here" ;;
  1) echo "guest.sh failed:" >&2; cat "$share/guest.log" >&2; hard_error "the guest's script failed" ;;
  *) hard_error "the guest hung or died (see the console above)" ;;
esac
sed 's/^/  /' "$share/guest.log"
boot_s=$(sed -n 's/^gostap-init: share mounted.* at \([0-9.]*\) .*/\1/p' "$share/console.log")
run_s=$(sed -n 's/^gostap-init: guest.sh exited .* at \([0-9.]*\) .*/\1/p' "$share/console.log")

# --- checks ---------------------------------------------------------------------------
st=0
E2E_LOAD_SECONDS=$LOAD_SECONDS python3 "$e2e/check-e2e.py" "$share/out" $VERSIONS || st=$?
echo "timings: fixtures ${t_fixtures} s, image ${t_image} s, module compile ${t_compile} s" \
     "(${#jobs[@]} modules), guest ${t_guest} s (boot to init script ${boot_s:-?} s," \
     "tests $(awk -v a="${boot_s:-0}" -v b="${run_s:-0}" 'BEGIN { printf "%.1f", b - a }') s)," \
     "total $(elapsed "$t_all" "$(now)") s"
[ "$st" = 0 ] || [ "$st" = 1 ] || hard_error "check-e2e.py failed (exit $st)"
exit "$st"
