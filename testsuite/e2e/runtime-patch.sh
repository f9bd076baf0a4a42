#!/bin/bash
# runtime-patch.sh ROOT KVER: make the guest's SystemTap runtime build
# against its kernel (called by build-image.sh on the image tree ROOT).
#
# stap 5.1 (Debian trixie) predates Linux 6.12's uprobe API change:
# uprobe_register() returns a struct uprobe * and uprobe_unregister() became
# uprobe_unregister_nosync() + uprobe_unregister_sync(); every module with a
# process probe then fails to compile (shared/docs/vm.md, point 5).
# stap-5.1-linux-6.12-uprobes.patch (ours; its header explains each change)
# adapts the installed runtime. It is applied only when both hold:
#   - the image's kernel headers declare the new uprobe_register(), and
#   - the installed runtime does not use uprobe_unregister_nosync yet
#     (SystemTap 5.2 and later do: then nothing is patched).
# Prints what it did on stdout, one line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$1 kver=$2
rt=$root/usr/share/systemtap/runtime
patch=$here/stap-5.1-linux-6.12-uprobes.patch

[ -f "$rt/linux/uprobes-inode.c" ] || { echo "runtime-patch: no $rt/linux/uprobes-inode.c" >&2; exit 1; }
# The headers of KVER: its build link, or the -common directory beside it.
hdr=
for d in "$root/usr/src/linux-headers-$kver" "$root/usr/src/linux-headers-${kver%-*}-common"; do
  [ -f "$d/include/linux/uprobes.h" ] && { hdr=$d/include/linux/uprobes.h; break; }
done
[ -n "$hdr" ] || { echo "runtime-patch: no include/linux/uprobes.h for $kver" >&2; exit 1; }

if ! grep -q 'struct uprobe \*uprobe_register(' "$hdr"; then
  echo "runtime-patch: not needed (kernel $kver has the old uprobe_register API)"
elif grep -q 'uprobe_unregister_nosync' "$rt/linux/uprobes-inode.c"; then
  echo "runtime-patch: not needed (the installed runtime already uses the 6.12 uprobe API)"
else
  patch -d "$rt" -p1 --dry-run -s < "$patch" >/dev/null ||
    { echo "runtime-patch: $patch does not apply to $rt" >&2; exit 1; }
  patch -d "$rt" -p1 -s --no-backup-if-mismatch < "$patch"
  echo "runtime-patch: applied $(basename "$patch") (kernel $kver, $(chroot "$root" stap -V 2>&1 | head -1 | sed 's/.*(\(version [^,)]*\).*/\1/'))"
fi
