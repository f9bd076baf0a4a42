#!/bin/bash
# run-kbuild.sh: the embedded C of the static tapsets (tapsets/*.stp) built
# into a kernel module against the kernels no e2e guest boots: Debian
# bullseye's 5.10 and bookworm's 6.1, each for amd64 and for arm64. (The
# guests run trixie's 6.12, amd64 and arm64, and forky's newest kernel:
# run-e2e*.sh.) 5.10 and 6.1 stand on both sides of the 5.14 of RHEL 9,
# whose headers cannot be had here; the version guards of go_fpregs.stp
# and go_types.stp switch between them (5.8: mmap_lock; 6.1: arm64's
# thread.fp_type).
#
# For each kernel: its header packages (linux-headers-ABI-FLAVOUR,
# -common, and this machine's linux-kbuild-VERSION) from the Debian
# archive this machine's apt uses, into the test cache (debian-archive.sh,
# a private apt state that also lists arm64), with the flavour's Makefile
# pointed at its -common half there. embedded-c-calls.py writes a script
# that calls every embedded-C function of the tapsets that exists for the
# architecture, and this machine's stap (its runtime too) compiles it with
# -p4 -r HEADERS, cross-compiling for arm64 (-a arm64, CROSS_COMPILE
# aarch64-linux-gnu-). The compiler is the one the headers name when it is
# here, else gcc (aarch64-linux-gnu-gcc). Checks per kernel: the module
# builds, and every symbol it leaves undefined is one that kernel exports
# (its Module.symvers; modpost before 6.x only warns about the others, and
# the module would then fail to load).
#
# And once more for bullseye amd64 with bullseye's own SystemTap 4.4 (its
# translator, tapsets and runtime, unpacked into the test cache as
# run-old-libdw.sh does: $CACHE/stap-bullseye), the oldest stap gostap is
# measured on (the bullseye guest, run-e2e-bullseye.sh): its runtime's
# API is older (before 4.5, _stp_umod_lookup has no offset argument, and
# go_stack.stp's old branch calls it so), which this machine's stap 4.8
# does not see; that guest boots only when named, this runs every time.
#
# Exit 77 when there is no stap; an arm64 kernel is skipped (a line says so)
# without the cross compiler; a failed download is an error (99).
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v stap >/dev/null || skip "no stap (package systemtap)"
command -v apt-get >/dev/null || skip "no apt-get: the kernel headers come from the Debian archive"
command -v python3 >/dev/null || skip "no python3"
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
# shellcheck source=debian-archive.sh
. "$testsuite/debian-archive.sh"
# a private apt state a suite (APT, set per suite below), arm64 listed too
# shellcheck disable=SC2034
ARCHIVE_EXTRA_ARCH=arm64

# suite debian-arch stap-arch [stap: the suite's own, else this machine's]
KERNELS="bullseye amd64 x86_64
bullseye arm64 arm64
bookworm amd64 x86_64
bookworm arm64 arm64
bullseye amd64 x86_64 own"

for suite in bullseye bookworm; do
  ( APT=$CACHE/apt-kbuild/$suite; archive_setup "$suite" ) > "$tmp/setup.log" 2>&1 ||
    hard_error "cannot set up the Debian archive lists ($suite): $(tail -1 "$tmp/setup.log")"
done

# headers SUITE ARCH: the unpacked headers of that suite's newest kernel for
# ARCH, in the cache; prints the flavour directory.
headers () {
  local suite=$1 arch=$2 pkg abi ver dir
  # shellcheck disable=SC2034
  APT=$CACHE/apt-kbuild/$suite
  pkg=$(archive_locked archive_apt_cache depends "linux-headers-$arch:$arch" |
        sed -n 's/^ *Depends: \(linux-headers-[0-9][^:]*\).*/\1/p' | head -1)
  [ -n "$pkg" ] || { echo "no linux-headers-$arch in $suite" >&2; return 1; }
  abi=${pkg#linux-headers-}; abi=${abi%-"$arch"}
  ver=$(echo "$abi" | cut -d. -f1,2)
  dir=$CACHE/kbuild/$suite-$arch-$abi
  if [ ! -f "$dir/.ready" ]; then
    archive_fetch "$dir" "$pkg:$arch" "linux-headers-$abi-common" "linux-kbuild-$ver" ||
      return 1
    sed -i "s|^include /usr/src/|include $dir/usr/src/|" "$dir/usr/src/$pkg/Makefile"
    : > "$dir/.ready"
  fi
  echo "$dir/usr/src/$pkg"
}

# runtime HDR: the SystemTap runtime to build against HDR (stap -R): this
# machine's, or a copy of it in the cache changed where that kernel needs
# it, and only then:
#  - Linux 6.11 made task_work_cancel() take the callback_head and renamed
#    the old one task_work_cancel_func(); Debian backported that into its
#    6.1 (measured: 6.1.0-50), and stap 4.8's runtime (bookworm's) calls
#    the old one by the old name, so no module compiles. Where the headers
#    declare task_work_cancel_func() and the runtime does not use it yet,
#    the copy calls it (and looks it up in kallsyms) by that name.
runtime () {
  local hdr=$1 rt=/usr/share/systemtap/runtime copy
  if grep -qs task_work_cancel_func "$(dirname "$hdr")"/linux-headers-*-common/include/linux/task_work.h &&
     ! grep -q task_work_cancel_func "$rt/stp_task_work.c"; then
    copy=$CACHE/kbuild/runtime-$(stap -V 2>&1 | sed -n 's/.*(version \([^ ,)]*\).*/\1/p;q' | tr / _)-twcf
    if [ ! -f "$copy/.ready" ]; then
      rm -rf "$copy"
      cp -a "$rt" "$copy"
      sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' "$copy/stp_task_work.c"
      : > "$copy/.ready"
    fi
    echo "$copy"
  else
    echo "$rt"
  fi
}

# the compiler the headers' .kernelvariables name (CC = ... gcc-N), if here
compiler () {
  local hdr=$1 cross=$2 cc
  cc=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$hdr/.kernelvariables" 2>/dev/null)
  if [ -n "$cc" ] && command -v "$cross$cc" >/dev/null; then echo "$cross$cc"; else echo "${cross}gcc"; fi
}

while read -r suite arch sarch own; do
  [ -n "$suite" ] || continue
  what="$suite $arch"
  stapc=(stap)
  if [ -n "$own" ]; then
    bull=$(bullseye_stap 2> "$tmp/bull.err") ||
      hard_error "cannot unpack bullseye's systemtap: $(tail -3 "$tmp/bull.err")"
    stapc=(env LD_LIBRARY_PATH="$bull/usr/lib/x86_64-linux-gnu"
           SYSTEMTAP_TAPSET="$bull/usr/share/systemtap/tapset"
           SYSTEMTAP_RUNTIME="$bull/usr/share/systemtap/runtime" "$bull/usr/bin/stap")
    what="$what, $("${stapc[@]}" -V 2>&1 | sed -n 's/.*(version \([^/]*\).*/stap \1/p;q')"
  fi
  cross=
  [ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
  if [ -n "$cross" ] && ! command -v "${cross}gcc" >/dev/null; then
    echo "# SKIP $what: no ${cross}gcc (gcc-aarch64-linux-gnu)"; continue
  fi
  checks=$((checks + 1))
  hdr=$(headers "$suite" "$arch" 2> "$tmp/fetch.err") ||
    hard_error "$what: cannot fetch its kernel headers: $(tail -3 "$tmp/fetch.err")"
  kver="$(basename "$hdr" | sed s/^linux-headers-//), Linux $(cat "$hdr/include/config/kernel.release")"
  python3 "$testsuite/embedded-c-calls.py" "$sarch" "$top_srcdir"/tapsets/*.stp \
    > "$tmp/$suite-$arch.stp" 2> "$tmp/funcs" || hard_error "embedded-c-calls.py failed"
  n=$(wc -w < "$tmp/funcs")
  cc=$(compiler "$hdr" "$cross")
  rt=$(runtime "$hdr") note=
  [ "$rt" = /usr/share/systemtap/runtime ] || note=" (stap's runtime calling task_work_cancel_func)"
  [ -z "$own" ] || rt=$bull/usr/share/systemtap/runtime note=" (bullseye's own stap and runtime)"
  opts=(-r "$hdr" -R "$rt" -B "CC=$cc")
  [ -n "$cross" ] && opts+=(-a arm64 -B "CROSS_COMPILE=$cross")
  mod=kb_${suite}_$arch${own:+_own}
  st=0
  ( cd "$tmp" && env DEBUGINFOD_URLS= SYSTEMTAP_DIR="$CACHE/kbuild/stapdir" \
      "${stapc[@]}" -p4 "${opts[@]}" -I "$top_srcdir/tapsets" -m "$mod" "$tmp/$suite-$arch.stp" ) \
    > "$tmp/$mod.log" 2>&1 || st=$?
  if [ "$st" != 0 ] || [ ! -f "$tmp/$mod.ko" ]; then
    fail "$what ($kver, $cc): stap -p4 of the $n embedded-C functions failed (exit $st): $(grep -m5 -i 'error' "$tmp/$mod.log" | cut -c1-300)"
    continue
  fi
  # every undefined symbol of the module is one this kernel exports
  nm_="${cross}nm"
  missing=$("$nm_" -u "$tmp/$mod.ko" | awk '{ print $2 }' | sort -u |
            comm -23 - <(awk '{ print $2 }' "$hdr/Module.symvers" | sort -u) | tr '\n' ' ')
  nsym=$("$nm_" -u "$tmp/$mod.ko" | wc -l)
  if [ -n "$missing" ]; then
    fail "$what ($kver): the module needs symbols the kernel does not export: $missing"
  else
    echo "ok - $what ($kver, $cc): the $n embedded-C functions compile into a module; its $nsym undefined symbols are all in the kernel's Module.symvers$note"
  fi
done <<< "$KERNELS"

finish
