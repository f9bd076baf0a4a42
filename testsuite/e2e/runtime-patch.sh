#!/bin/bash
# runtime-patch.sh ROOT KVER: make the guest's SystemTap runtime build and
# run against its kernel (called by build-image.sh on the image tree ROOT).
# Each patch is ours (its header explains each change) and is applied only
# when the installed runtime needs it:
#
# stap-5.1-linux-6.12-uprobes.patch: stap 5.1 (Debian trixie) predates
# Linux 6.12's uprobe API change: uprobe_register() returns a struct
# uprobe * and uprobe_unregister() became uprobe_unregister_nosync() +
# uprobe_unregister_sync(); every module with a process probe then fails
# to compile (shared/docs/vm.md, point 5). Applied when both hold:
#   - the image's kernel headers declare the new uprobe_register(), and
#   - the installed runtime does not use uprobe_unregister_nosync yet
#     (SystemTap 5.2 and later do: then nothing is patched).
#
# stap-5.6-linux-7.2-nsproxy-free.patch: Linux 7.2 (Debian forky) calls
# free_nsproxy() nsproxy_free(); stap 5.6 looks the old name up and, not
# finding it, never enters the target's mount namespace (gostap run -x on
# a container's process fails at load). Applied when both hold:
#   - the image's kernel headers declare nsproxy_free(), and
#   - the installed runtime does not look that name up yet.
#
# stap-4.8-linux-6.1-task-work.patch: Linux 6.11 renamed the old
# task_work_cancel() task_work_cancel_func() (task_work_cancel() now takes
# the callback_head), and Debian backported that into its 6.1 stable
# kernels (bookworm's 6.1.1xx); stap 4.8 (Debian bookworm) calls the old
# one by the old name, and no module that probes a process compiles
# (shared/docs/vm.md, point 5). Applied when both hold:
#   - the image's kernel headers declare task_work_cancel_func(), and
#   - the installed runtime does not call it yet (stap 5.1 and later do).
#
# Prints what it did on stdout, one line per patch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$1 kver=$2
rt=$root/usr/share/systemtap/runtime

[ -f "$rt/linux/uprobes-inode.c" ] || { echo "runtime-patch: no $rt/linux/uprobes-inode.c" >&2; exit 1; }
# The headers of KVER: its build link, or the -common directory beside it.
inc=
for d in "$root/usr/src/linux-headers-$kver" "$root/usr/src/linux-headers-${kver%-*}-common"; do
  [ -f "$d/include/linux/uprobes.h" ] && { inc=$d/include; break; }
done
[ -n "$inc" ] || { echo "runtime-patch: no include/linux/uprobes.h for $kver" >&2; exit 1; }

# apply PATCH: apply it to the runtime, or fail saying it does not apply.
apply () {
  patch -d "$rt" -p1 --dry-run -s < "$here/$1" >/dev/null ||
    { echo "runtime-patch: $1 does not apply to $rt" >&2; exit 1; }
  patch -d "$rt" -p1 -s --no-backup-if-mismatch < "$here/$1"
  echo "runtime-patch: applied $1 (kernel $kver, $(chroot "$root" stap -V 2>&1 | head -1 | sed 's/.*(\(version [^,)]*\).*/\1/'))"
}

if ! grep -q 'struct uprobe \*uprobe_register(' "$inc/linux/uprobes.h"; then
  echo "runtime-patch: uprobes: not needed (kernel $kver has the old uprobe_register API)"
elif grep -q 'uprobe_unregister_nosync' "$rt/linux/uprobes-inode.c"; then
  echo "runtime-patch: uprobes: not needed (the installed runtime already uses the 6.12 uprobe API)"
else
  apply stap-5.1-linux-6.12-uprobes.patch
fi

if ! grep -q 'task_work_cancel_func' "$inc/linux/task_work.h"; then
  echo "runtime-patch: task_work_cancel_func: not needed (kernel $kver has the old task_work_cancel)"
elif grep -q 'task_work_cancel_func' "$rt/stp_task_work.c"; then
  echo "runtime-patch: task_work_cancel_func: not needed (the installed runtime calls it)"
else
  apply stap-4.8-linux-6.1-task-work.patch
fi

if ! grep -q 'nsproxy_free' "$inc/linux/nsproxy.h"; then
  echo "runtime-patch: nsproxy_free: not needed (kernel $kver has free_nsproxy)"
elif grep -q 'nsproxy_free' "$rt/transport/transport.c"; then
  echo "runtime-patch: nsproxy_free: not needed (the installed runtime looks it up)"
else
  apply stap-5.6-linux-7.2-nsproxy-free.patch
fi
