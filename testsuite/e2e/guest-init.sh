#!/bin/sh
# guest-init.sh: PID 1 of the end-to-end test guest (installed in the image
# as /sbin/gostap-init by build-image.sh, booted with init=/sbin/gostap-init).
# A minbase Debian has no init system worth starting for a test: mount the
# kernel file systems, mount the host's 9p share at /share, run
# /share/guest.sh with its output in /share/guest.log and its exit status in
# /share/guest.rc, and power off (minbase has no poweroff: sysrq 'o').
# The share is mounted where the kernel command line's gostap.share=PATH
# says (default /share): run-guest.sh passes the host's own path of the
# shared directory, so that binaries, tapsets and modules have the same
# absolute paths on the host, in the image's chroot and in the guest.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -o remount,rw / 2>/dev/null
hostname gostap-e2e
share=/share
for a in $(cat /proc/cmdline); do
  case $a in gostap.share=/*) share=${a#gostap.share=} ;; esac
done
modprobe 9pnet_virtio
modprobe 9p
mkdir -p "$share"
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 share "$share"; then
  echo "gostap-init: share mounted at $share, running guest.sh at $(cat /proc/uptime)"
  if [ -x "$share/guest.sh" ]; then
    rc=0
    "$share/guest.sh" > "$share/guest.log" 2>&1 < /dev/null || rc=$?
    echo "$rc" > "$share/guest.rc"
    echo "gostap-init: guest.sh exited $rc at $(cat /proc/uptime)"
  else
    echo "gostap-init: no $share/guest.sh"
  fi
  sync
  umount "$share"
else
  echo "gostap-init: cannot mount the 9p share"
fi
sync
echo o > /proc/sysrq-trigger
sleep 30
