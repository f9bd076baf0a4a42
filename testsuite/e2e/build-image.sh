#!/bin/bash
# build-image.sh: the Debian guest that runs the real SystemTap kernel-module
# runtime for the end-to-end tests (shared/docs/vm.md: this machine's kernel
# cannot load modules, so the modules run in a qemu/TCG guest).
#
# Usage: build-image.sh            prints the image directory on stdout
#        build-image.sh --cached   exit 0 when the debootstrapped tree of
#                                  this recipe (the costly layer) is in the
#                                  cache, 1 when a run would have to make it
#
# The guest is Debian trixie: systemtap 5.1, libdw 0.192 (>= 0.191, which
# numeric statement probes on Go binaries need: facts.md 2), kernel 6.12;
# (with E2E_BPFTRACE=1, bpftrace too: bench/probe-cost.sh --bpftrace);
# with E2E_SUITE=forky, Debian forky (testing): systemtap 5.6, kernel 7.2
# when measured; with E2E_SUITE=bookworm or bullseye, the old stacks:
# stap 4.8, libdw 0.188, Linux 6.1, or stap 4.4, libdw 0.183, Linux
# 5.10. A suite this machine's debootstrap has no script for
# (forky on Debian 12) is bootstrapped with its script for sid. With
# E2E_ARCH=arm64 the guest is Debian's arm64 port of the suite (booted by
# qemu-system-aarch64): debootstrap runs its programs through qemu user
# emulation (e2e/binfmt-arm64.sh), and so does every chroot of it.
# debootstrap --variant=minbase with the kernel, its matching headers,
# systemtap and what kbuild needs; the mirror is read from this machine's
# apt configuration at run time (debian-archive.sh), never written here.
#
# Two cached layers under ${GOSTAP_TEST_CACHE:-~/.cache/gostap-test}/e2e/:
#   base-<tag>-<key>/root   the debootstrapped tree; <key> hashes the
#                      suite, the package list (SUITE and PACKAGES below)
#                      and the architecture when not amd64; <tag> is the
#                      suite, then -arm64 for the arm64 port
#   image-<tag>-<key>/  root/ (the base tree customised: our init, the
#                      runtime patch when needed), disk.img (ext4 made with
#                      mkfs.ext4 -d from root/), vmlinuz, initrd.img, info
#                      (suite, arch, kernel, stap);
#                      <key> hashes this script, guest-init.sh, the runtime
#                      patch and its script
# Each is built under a temporary name and renamed, so a directory that
# exists is whole; a changed recipe builds a new key and older keys of
# the same tag are removed. root/ is kept beside disk.img: run-guest.sh compiles the test
# modules natively in a chroot of it (same headers, same stap, same paths).
#
# Host tools (installed with apt-get when missing, as root): debootstrap,
# e2fsprogs (mkfs.ext4 -d), qemu-system-x86 (for run-guest.sh); for arm64
# qemu-system-arm and qemu-user-static.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../debian-archive.sh"

SUITE=${E2E_SUITE:-trixie}
case $SUITE in *[!a-z]*|'') echo "build-image.sh: E2E_SUITE '$SUITE' is no Debian suite name" >&2; exit 1 ;; esac
ARCH=${E2E_ARCH:-amd64}
case $ARCH in
  amd64) TAG=$SUITE ;;
  arm64) TAG=$SUITE-arm64 ;;
  *) echo "build-image.sh: E2E_ARCH '$ARCH' is not amd64 or arm64" >&2; exit 1 ;;
esac
PACKAGES=linux-image-$ARCH,linux-headers-$ARCH,systemtap,gcc,make,libc6-dev,elfutils,kmod,udev,procps
# Separate debuginfo served on the guest's loopback (run-e2e.sh,
# values_dbgd): the server, the client library libdw loads, ip for lo.
# (bullseye and bookworm, before the 64-bit time_t transition, name it
# libdebuginfod1)
if [ "$SUITE" = bookworm ] || [ "$SUITE" = bullseye ]; then
  PACKAGES=$PACKAGES,debuginfod,libdebuginfod1,iproute2
else
  PACKAGES=$PACKAGES,debuginfod,libdebuginfod1t64,iproute2
fi
# What building gostap itself in the image needs (the gostap-run job of
# run-e2e.sh and demo-newstack.sh build it in a chroot of the image and run
# `gostap run` in the guest): tools/deps.sh's build list, trixie names.
# Bullseye has no zydis package: bookworm's goes into its image (below).
# (The other suites' list stays as it was: it keys their cached trees.)
zydis=,libzydis-dev
[ "$SUITE" = bullseye ] && zydis=
PACKAGES=$PACKAGES,libelf-dev,libdw-dev,libcapstone-dev$zydis,libprotobuf-c-dev,protobuf-c-compiler,zlib1g-dev,pkg-config,autoconf,automake,python3
# pivot_root (e2e/container-start.sh): util-linux's in bullseye, bookworm
# and trixie, in util-linux-extra after it (forky).
case $SUITE in bullseye|bookworm|trixie) ;; *) PACKAGES=$PACKAGES,util-linux-extra ;; esac
# The arm64 guest's modules are cross-compiled in a chroot of the amd64
# trixie image (run-guest.sh compile, E2E_CROSS_IMAGE): its stap, runtime
# and kbuild with Debian's cross compiler, against the arm64 image's
# headers, whose Makefile names aarch64-linux-gnu-gcc-14.
[ "$SUITE-$ARCH" = trixie-amd64 ] && PACKAGES=$PACKAGES,gcc-aarch64-linux-gnu
# E2E_BPFTRACE=1 (bench/probe-cost.sh --bpftrace): Debian's bpftrace too,
# in an image of its own tag, so that the test suite's image of the suite
# stays in the cache.
if [ "${E2E_BPFTRACE:-}" = 1 ]; then
  PACKAGES=$PACKAGES,bpftrace
  TAG=$TAG-bpftrace
fi
DISK_SIZE=3G
E2E=$CACHE/e2e

base_key=$( { printf 'suite %s\npackages %s\nvariant minbase\n' "$SUITE" "$PACKAGES"
  [ "$ARCH" = amd64 ] || echo "arch $ARCH"; } | sha256sum | cut -c1-16)
base=$E2E/base-$TAG-$base_key
if [ "${1:-}" = --cached ]; then
  [ -d "$base/root" ] || [ -d "$E2E/base-$base_key/root" ]
  exit
fi

# Standard output carries the image's path and nothing else: every other
# output goes to stderr (fd 3 is the caller's stdout).
exec 3>&1 1>&2

die () { echo "build-image.sh: $*" >&2; exit 1; }
# unsuited base|image: the trees of the names before they carried a suite.
unsuited () { find "$E2E" -maxdepth 1 -regextype posix-extended -regex ".*/$1-[0-9a-f]{16}"; }
# older base|image: the trees of this tag (other keys).
older () { find "$E2E" -maxdepth 1 -regextype posix-extended -regex ".*/$1-$TAG-[0-9a-f]{16}"; }
log () { echo "build-image.sh: $*" >&2; }

need_tools () {
  local missing=
  command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
  command -v mkfs.ext4 >/dev/null 2>&1 || missing="$missing e2fsprogs"
  if [ "$ARCH" = arm64 ]; then
    command -v qemu-system-aarch64 >/dev/null 2>&1 || missing="$missing qemu-system-arm"
    [ -e /usr/lib/binfmt.d/qemu-aarch64.conf ] || missing="$missing qemu-user-static"
  else
    command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
  fi
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] || die "missing host tools ($missing) and not root to install them"
  log "installing$missing"
  timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $missing >"$E2E/apt-install.log" 2>&1 ||
    { timeout 300 apt-get update -q >/dev/null 2>&1 || true
      timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends $missing >"$E2E/apt-install.log" 2>&1; } ||
    { cat "$E2E/apt-install.log" >&2; die "cannot install$missing"; }
}

mkdir -p "$E2E"
[ "$(id -u)" = 0 ] || die "debootstrap and chroot need root"
need_tools
if [ "$ARCH" = arm64 ]; then "$here/binfmt-arm64.sh" || die "cannot run arm64 programs here (binfmt-arm64.sh)"; fi

image_key=$( { echo "base $base_key"; echo "disk $DISK_SIZE"
  for f in "$0" "$here/guest-init.sh" "$here/runtime-patch.sh" "$here"/*.patch; do
    echo "$(basename "$f") $(sha256sum < "$f")"
  done; } | sha256sum | cut -c1-16)
image=$E2E/image-$TAG-$image_key
# Trees built before the names carried the suite (trixie only): taken over.
[ -d "$E2E/base-$base_key" ] && [ ! -d "$base" ] && mv "$E2E/base-$base_key" "$base"

if [ -f "$image/info" ] && [ -f "$image/disk.img" ]; then
  touch "$image"
  echo "$image" >&3
  exit 0
fi

# --- layer 1: debootstrap ------------------------------------------------------
if [ ! -d "$base/root" ]; then
  mirror=$(archive_mirror)
  tmpb=$(mktemp -d "$E2E/.tmp-base.XXXXXX")
  log "debootstrap $SUITE $ARCH (minbase + $PACKAGES); log in $tmpb/debootstrap.log"
  t0=$(date +%s)
  script=
  [ -e "/usr/share/debootstrap/scripts/$SUITE" ] || script=/usr/share/debootstrap/scripts/sid
  if ! timeout 1500 debootstrap --arch="$ARCH" --variant=minbase --include="$PACKAGES" \
        "$SUITE" "$tmpb/root" "$mirror" $script >"$tmpb/debootstrap.log" 2>&1; then
    tail -40 "$tmpb/debootstrap.log" >&2
    [ -f "$tmpb/root/debootstrap/debootstrap.log" ] && tail -40 "$tmpb/root/debootstrap/debootstrap.log" >&2
    # debootstrap may leave mounts (proc, sys) inside the target
    for m in $(awk -v r="$tmpb/root" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
      umount -l "$m" 2>/dev/null || true
    done
    rm -rf "$tmpb"
    die "debootstrap failed"
  fi
  rm -rf "$tmpb/root/var/cache/apt/archives/"*.deb "$tmpb/root/var/lib/apt/lists/"*_Packages
  log "debootstrap took $(( $(date +%s) - t0 )) s"
  rm -rf $(older base) $(unsuited base)
  mv "$tmpb" "$base"
fi

# --- layer 2: customise, make the disk -------------------------------------------
t0=$(date +%s)
tmpi=$(mktemp -d "$E2E/.tmp-image.XXXXXX")
trap 'rm -rf "$tmpi"' EXIT
cp -a "$base/root" "$tmpi/root"
r=$tmpi/root
install -m 755 "$here/guest-init.sh" "$r/sbin/gostap-init"
mkdir -p "$r/share" "$r/root"
echo gostap-e2e > "$r/etc/hostname"
: > "$r/etc/fstab"

# The kernel of the image (one, from linux-image-$ARCH).
kver=$(ls "$r/lib/modules" | sort -V | tail -1)
[ -n "$kver" ] && [ -f "$r/boot/vmlinuz-$kver" ] || die "no kernel in the image"
[ -f "$r/boot/initrd.img-$kver" ] || die "no initrd for $kver in the image"
[ -d "$r/usr/src/linux-headers-$kver" ] || die "no headers for $kver in the image"

# Bullseye has no zydis, which gostap's configure needs (zydis 4, the
# x86-64 disassembler): bookworm's libzydis4.0 (it needs glibc 2.14 and
# nothing else) and its headers (libzydis-dev, libzycore-dev; zycore's
# library, which needs glibc 2.34, is left out: gostap uses only its
# headers), unpacked into the tree (cached in $E2E/zydis-bookworm-ARCH; named
# /bookworm: the private lists hold newer ones, of trixie and forky).
if [ "$SUITE" = bullseye ]; then
  zy=$E2E/zydis-bookworm-$ARCH
  if [ ! -d "$zy" ]; then
    archive_setup bookworm
    archive_fetch "$zy" libzydis4.0:"$ARCH"/bookworm libzydis-dev:"$ARCH"/bookworm libzycore-dev:"$ARCH"/bookworm
  fi
  cp -a "$zy/usr/include/Zydis" "$zy/usr/include/Zycore" "$r/usr/include/"
  cp -a "$zy/usr/lib/"*-linux-gnu/libZydis.so* "$r/usr/lib/"*-linux-gnu/
fi

# The guest's SystemTap runtime against its kernel (runtime-patch.sh).
"$here/runtime-patch.sh" "$r" "$kver" >"$tmpi/runtime-patch.log" 2>&1 ||
  { cat "$tmpi/runtime-patch.log" >&2; die "runtime-patch.sh failed"; }
cat "$tmpi/runtime-patch.log" >&2

cp "$r/boot/vmlinuz-$kver" "$tmpi/vmlinuz"
cp "$r/boot/initrd.img-$kver" "$tmpi/initrd.img"
stapv=$(chroot "$r" stap -V 2>&1 | head -1)
timeout 600 mkfs.ext4 -q -F -L gostap-e2e -d "$r" "$tmpi/disk.img" "$DISK_SIZE" >&2 ||
  die "mkfs.ext4 -d failed"
{ echo "suite $SUITE"
  echo "arch $ARCH"
  echo "kernel $kver"
  echo "stap $stapv"
  echo "built $(date -u +%FT%TZ)"
  cat "$tmpi/runtime-patch.log"; } > "$tmpi/info"
log "customising and mkfs took $(( $(date +%s) - t0 )) s"
rm -rf $(older image) $(unsuited image)
mv "$tmpi" "$image"
trap - EXIT
echo "$image" >&3
