#!/bin/sh
# binfmt-arm64.sh: let this (x86-64) machine run arm64 programs, through
# qemu user emulation, so that debootstrap can build the arm64 guest's
# tree and the test modules compile natively in a chroot of it
# (build-image.sh, run-guest.sh). Idempotent; needs root.
#
# Debian's qemu-user-static ships the registration line for the kernel's
# binfmt_misc in /usr/lib/binfmt.d/qemu-aarch64.conf; systemd-binfmt
# registers it at boot, but nothing here runs systemd, so this writes it
# to binfmt_misc's register file itself (mounting binfmt_misc first if
# needed). Its flags include F: the interpreter is opened now, so it runs
# inside any chroot. The registration stays until the machine reboots
# (`echo -1 > /proc/sys/fs/binfmt_misc/qemu-aarch64` removes it).
set -eu
conf=/usr/lib/binfmt.d/qemu-aarch64.conf
bm=/proc/sys/fs/binfmt_misc
die () { echo "binfmt-arm64.sh: $*" >&2; exit 1; }
[ -f "$conf" ] || die "no $conf (package qemu-user-static)"
if [ ! -e "$bm/register" ]; then
  mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null ||
    die "cannot mount binfmt_misc on $bm"
fi
if [ ! -e "$bm/qemu-aarch64" ]; then
  grep -v '^#' "$conf" | grep . > "$bm/register" ||
    die "cannot register $conf with binfmt_misc"
fi
grep -qx enabled "$bm/qemu-aarch64" || die "$bm/qemu-aarch64 is registered but disabled"
