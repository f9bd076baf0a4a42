#!/bin/bash
# demo-newstack.sh BINARY [SECONDS [N]]: run examples/newstack.stp on the Go
# program BINARY with `gostap run`, on the real SystemTap runtime, in the
# qemu/TCG guest of the e2e tests (for a machine whose kernel cannot load
# modules: shared/docs/vm.md), and print the transcript:
#
#   gostap run -c 'BINARY SECONDS' -DSTP_NO_OVERLOAD ... examples/newstack.stp N
#
# SECONDS: the program's argument (default 3: the demo runs that long);
# N: print every Nth stack growth (default 1000, the script's own).
# tools/demo.sh calls this.
#
# The steps (gostap-run.sh): the guest image (build-image.sh, cached); the
# build tree's gostap built and installed in a chroot of the image
# (cached); there, the same command with -p4 compiles the module into
# stap's cache natively; one boot of the guest runs the command, which
# finds the module in that cache instead of compiling it for minutes under
# TCG. -DSTP_NO_OVERLOAD: under TCG a probe costs far more than stap's
# overload limit allows (vm.md 6).
#
# Needs root (debootstrap, chroot, mounts). Environment: GOSTAP_BUILDDIR
# (the configured build tree of gostap; default the source tree),
# GOSTAP_TEST_CACHE (the cache root), E2E_GUEST_TIMEOUT (900 s), E2E_SMP,
# E2E_KEEP=1 keeps the work directory.
# Exit: the guest's `gostap run` status; 77 qemu cannot start here; 99
# anything else went wrong.
set -euo pipefail
e2e=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$e2e/../.." && pwd)
builddir=${GOSTAP_BUILDDIR:-$top}

die () { echo "demo-newstack.sh: $*" >&2; exit 99; }
say () { echo "demo-newstack.sh: $*" >&2; }
now () { date +%s.%N; }
elapsed () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: demo-newstack.sh BINARY [SECONDS [N]]" >&2; exit 64; }
bin=$1 seconds=${2:-3} every=${3:-1000}
[ -f "$bin" ] || die "no such file: $bin"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gostap-demo.XXXXXX")
if [ "${E2E_KEEP:-}" = 1 ]; then trap 'say "work directory kept: $tmp"' EXIT
else trap 'rm -rf "$tmp"' EXIT; fi
share=$tmp/share
mkdir -p "$share/bin" "$share/out"
cp "$bin" "$share/bin/demo"
. "$e2e/gostap-run.sh"
t_all=$(now)

t0=$(now)
say "the guest image (Debian trixie; a first build takes minutes)"
image=$("$e2e/build-image.sh") || die "build-image.sh failed"
t_image=$(elapsed "$t0" "$(now)")

t0=$(now)
say "gostap for the image"
gr_prepare "$image" "$share" "$builddir" || die "gostap does not build in the image"
t_build=$(elapsed "$t0" "$(now)")

args=(-c "$share/bin/demo $seconds" -DSTP_NO_OVERLOAD -DMAXTRYLOCK=20000
      -DMAXSKIPPED=1000000 examples/newstack.stp "$every")
t0=$(now)
say "gostap run -p4 in a chroot of the image (stap compiles the module)"
gr_compile "$image" "$share" "$share/out/compile.log" "${args[@]}" || die "gostap run -p4 failed"
t_compile=$(elapsed "$t0" "$(now)")

{ gr_guest_prologue "$share"; gr_guest_lines "$share" newstack 600 "${args[@]}"; } > "$share/guest.sh"
chmod +x "$share/guest.sh"
t0=$(now)
say "booting the guest (qemu, TCG)"
st=0
"$e2e/run-guest.sh" boot "$image" "$share" "${E2E_GUEST_TIMEOUT:-900}" || st=$?
t_guest=$(elapsed "$t0" "$(now)")
case $st in
  0|1) ;;
  77) say "qemu cannot start here"; exit 77 ;;
  *) die "the guest hung or died (console: above)" ;;
esac
[ -f "$share/out/newstack.rc" ] || { cat "$share/guest.log" >&2; die "the guest did not run gostap"; }
boot_s=$(sed -n 's/^gostap-init: share mounted.* at \([0-9.]*\) .*/\1/p' "$share/console.log")

echo "guest# $(cat "$share/out/newstack.cmd")"
cat "$share/out/newstack.transcript"
rc=$(cat "$share/out/newstack.rc")
if [ -s "$share/out/newstack.ko-before" ] && cmp -s "$share/out/newstack.ko-before" "$share/out/newstack.ko-after"; then
  cached="the module compiled in the chroot"
else
  cached="a module it compiled itself (the chroot's was not reused)"
fi
say "$(sed -n 's/^guest: //p' "$share/guest.log" | head -1)"
say "gostap run exited $rc in $(cat "$share/out/newstack.time") s in the guest, with $cached"
say "timings: image ${t_image} s, gostap build ${t_build} s, gostap run -p4 ${t_compile} s," \
    "guest ${t_guest} s (boot to init script ${boot_s:-?} s), total $(elapsed "$t_all" "$(now)") s"
exit "$rc"
