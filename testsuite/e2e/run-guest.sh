#!/bin/bash
# run-guest.sh: compile SystemTap modules for the e2e guest and boot it.
#
#   run-guest.sh compile IMAGE SHARE NAME SCRIPT STAP-ARG...
#       Translate and compile SCRIPT into SHARE/mod/NAME.ko with the image's
#       own stap, headers and gcc, natively in a chroot of IMAGE/root
#       (shared/docs/vm.md: 4-13 s a module, against 60-210 s in the guest
#       under TCG). SHARE is bind-mounted at its own absolute path inside the
#       chroot, and the guest mounts it at that path too, so the binaries,
#       tapsets and modules have the same paths everywhere. Output of stap
#       in SHARE/mod/NAME.log. Time limit: $E2E_COMPILE_TIMEOUT (300 s;
#       900 s for an arm64 image, whose chroot runs under qemu user
#       emulation: binfmt-arm64.sh).
#       For an arm64 IMAGE with E2E_CROSS_IMAGE set (an amd64 trixie image,
#       which has gcc-aarch64-linux-gnu: build-image.sh), the module is
#       cross-compiled natively instead, in a chroot of that image: its
#       stap 5.1 (-a arm64 -B CROSS_COMPILE=aarch64-linux-gnu-) and patched
#       runtime, against IMAGE's kernel headers (bind-mounted at their own
#       path; the -common half and kbuild too when the amd64 image has
#       another kernel version: their programs then run emulated).
#       Measured: 8-18 s a module against 60-95 s emulated.
#
#   run-guest.sh cross-image
#       Print the directory of the image whose cross compiler builds the
#       arm64 modules (E2E_CROSS_IMAGE above and below): the amd64 trixie
#       image, which has gcc-aarch64-linux-gnu; build-image.sh builds it when
#       it is not cached. Callers run this once, before their parallel
#       compiles, and export the result.
#
#   run-guest.sh chroot IMAGE SHARE COMMAND [ARG...]
#       Run COMMAND in a chroot of the guest's own disk: IMAGE/disk.img
#       loop-mounted read-only and made the root of a private mount
#       namespace (pivot_root), tmpfs on /tmp and /root, SHARE at its own
#       path (it must lie under /tmp, or in a directory the image has),
#       /proc, /dev; a clean environment (HOME=/root, PATH, LANG; put more
#       in front with env VAR=VALUE); in the current directory when it is
#       inside SHARE, else in SHARE. Output to stdout and stderr. The
#       gostap-run job builds gostap and runs `gostap run -p4` this way
#       (gostap-run.sh): the disk, not IMAGE/root, because stap's cache key
#       has the sizes of directories (runtime/linux: 12288 bytes in root/,
#       where the runtime patch rewrote files, 8192 on the disk mkfs.ext4 -d
#       made), and a module compiled here must be the one the guest looks
#       up. Time limit: $E2E_CHROOT_TIMEOUT (900 s; 1800 s for an arm64
#       image, whose programs run under qemu user emulation).
#       With E2E_CHROOT_CROSS_CC=1, an arm64 IMAGE and E2E_CROSS_IMAGE set,
#       the image's C compiler runs natively: its aarch64-linux-gnu-gcc-14
#       is covered by a script that runs E2E_CROSS_IMAGE's cross
#       aarch64-linux-gnu-gcc-14 (the same GCC 14.2.0-19, built for this
#       machine) in a chroot of that image, where /tmp, /usr/src,
#       /usr/share/systemtap and SHARE (all a module's compile reads and
#       writes) are bound at their own paths. Only for kernel modules
#       (stap's pass 4: -nostdinc, no library of the image): the arm64 stap
#       keeps its passes 1-3 and computes its own cache key, and the script
#       has the size and mtime of the compiler it covers, all of the
#       compiler that key holds, so the module is filed where the guest's
#       stap looks. Measured with the funclatency example: the same key and
#       a byte-identical module, 90 s against 510 s with the emulated gcc.
#
#   run-guest.sh boot IMAGE SHARE TIMEOUT
#       Boot the guest (qemu TCG, vm.md) with SHARE as its 9p share; its
#       init (guest-init.sh) runs SHARE/guest.sh, writes guest.log and
#       guest.rc there and powers off. The console goes to
#       SHARE/console.log. The image's info says its architecture:
#       qemu-system-x86_64, or qemu-system-aarch64 -M virt for arm64.
#       Exit 0 when guest.sh ran and exited 0, 1 when it
#       failed, 2 when the guest hung (killed after TIMEOUT seconds) or died
#       before running guest.sh, 77 when qemu itself cannot start.
#       E2E_SMP sets the guest's CPUs (default 2), E2E_TCG_THREAD qemu's TCG
#       threading (default single: both vCPUs in one host thread; multi: one
#       host thread per vCPU). Measured with qemu 7.2 and the load check
#       (grow fixture in a loop, entry and RET probes on main.rec,
#       main.touch, runtime.mallocgc): thread=multi -smp 2 crashed 18 of 188
#       runs (a RET to 0xff0000000092b41d, faults at main.rec's RET) and
#       lost probe hits; thread=single -smp 2 (284 runs), -smp 1 (313 runs)
#       and the program without probes under thread=multi (957 runs) never
#       failed and counted every hit. So multi-threaded TCG, not the probes,
#       is the suspect, and the default is single.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

die () { echo "run-guest.sh: $*" >&2; exit 99; }

kernel_of () { sed -n 's/^kernel //p' "$1/info"; }
# arch_of IMAGE: amd64 or arm64 (images built before the info said it: amd64).
arch_of () { local a; a=$(sed -n 's/^arch //p' "$1/info"); echo "${a:-amd64}"; }
# A chroot of an arm64 image runs its programs through qemu user emulation.
foreign_ok () {
  [ "$(arch_of "$1")" = arm64 ] || return 0
  "$here/binfmt-arm64.sh" || die "cannot run the arm64 image's programs here"
}

cmd=${1:-}
shift || true
case $cmd in
cross-image)
  [ $# -eq 0 ] || die "usage: run-guest.sh cross-image"
  E2E_ARCH=amd64 E2E_SUITE=trixie "$here/build-image.sh" ||
    die "build-image.sh (the amd64 image that cross-compiles) failed"
  ;;
compile)
  [ $# -ge 4 ] || die "usage: run-guest.sh compile IMAGE SHARE NAME SCRIPT STAP-ARG..."
  image=$1 share=$2 name=$3 script=$4
  shift 4
  root=$image/root
  kver=$(kernel_of "$image")
  [ -d "$root" ] && [ -n "$kver" ] || die "$image is not an e2e image"
  foreign_ok "$image"
  limit=${E2E_COMPILE_TIMEOUT:-300}
  cross=()
  if [ "$(arch_of "$image")" = arm64 ] && [ -n "${E2E_CROSS_IMAGE:-}" ]; then
    [ "$(arch_of "$E2E_CROSS_IMAGE")" = amd64 ] && [ -x "$E2E_CROSS_IMAGE/root/usr/bin/aarch64-linux-gnu-gcc-14" ] ||
      die "$E2E_CROSS_IMAGE is no amd64 image with aarch64-linux-gnu-gcc-14"
    # What the chroot binds: the arm64 headers, and their -common half and
    # kbuild where the amd64 image has no directory of that name.
    hdr=/usr/src/linux-headers-$kver
    cross=("$hdr")
    common=$(readlink -f "$root$hdr/scripts" | sed -n "s|^$root\(/usr/lib/linux-kbuild-[^/]*\)/scripts\$|\1|p")
    for d in "/usr/src/linux-headers-${kver%-*}-common" "$common"; do
      [ -n "$d" ] && [ -d "$root$d" ] && [ ! -d "$E2E_CROSS_IMAGE/root$d" ] && cross+=("$d")
    done
    root=$E2E_CROSS_IMAGE/root
    set -- -a arm64 -B CROSS_COMPILE=aarch64-linux-gnu- "$@"
    kver=$hdr
  elif [ "$(arch_of "$image")" = arm64 ]; then
    limit=${E2E_COMPILE_TIMEOUT:-900}
  fi
  for d in "${cross[@]}"; do mkdir -p "$root$d"; done
  mkdir -p "$share/mod"
  # A private mount namespace: the bind mounts vanish with it, and runs in
  # parallel do not see each other's.
  timeout -k 10 "$limit" unshare -m --propagation private \
    /bin/sh -euc '
      root=$1 share=$2 kver=$3 name=$4 script=$5 from=$6 binds=$7
      shift 7
      mkdir -p "$root$share"
      mount --bind "$share" "$root$share"
      for d in $binds; do mount --bind "$from$d" "$root$d"; done
      mount -t proc proc "$root/proc"
      mount --bind /dev "$root/dev"
      cd "$share/mod"
      # SYSTEMTAP_DEBUGINFO_PATH, when set, names debug directories under
      # the share (separate debuginfo of stripped binaries).
      exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 ${SYSTEMTAP_DEBUGINFO_PATH:+"SYSTEMTAP_DEBUGINFO_PATH=$SYSTEMTAP_DEBUGINFO_PATH"} /bin/sh -c "cd \"\$0\" && exec stap -p4 -r \"\$1\" -m \"\$2\" \"\$3\" \"\$@\"" \
        "$share/mod" "$kver" "$name" "$script" "$@"
    ' sh "$root" "$share" "$kver" "$name" "$script" "$image/root" "${cross[*]}" "$@" >"$share/mod/$name.log" 2>&1 || {
      st=$?
      echo "run-guest.sh: compiling $name failed (exit $st):" >&2
      tail -30 "$share/mod/$name.log" >&2
      exit 1
    }
  [ -f "$share/mod/$name.ko" ] || { cat "$share/mod/$name.log" >&2; echo "run-guest.sh: no $name.ko" >&2; exit 1; }
  ;;
chroot)
  [ $# -ge 3 ] || die "usage: run-guest.sh chroot IMAGE SHARE COMMAND [ARG...]"
  image=$1 share=$2
  shift 2
  [ -f "$image/disk.img" ] && [ -n "$(kernel_of "$image")" ] || die "$image is not an e2e image"
  foreign_ok "$image"
  case $PWD/ in "$share"/*) dir=$PWD ;; *) dir=$share ;; esac
  mnt=$(mktemp -d "${TMPDIR:-/tmp}/gostap-chroot.XXXXXX")
  st=0
  # The loop device is released with the mount (autoclear), when the
  # private mount namespace ends.
  limit=${E2E_CHROOT_TIMEOUT:-900}
  [ "$(arch_of "$image")" = amd64 ] || limit=${E2E_CHROOT_TIMEOUT:-1800}
  xroot=
  if [ "${E2E_CHROOT_CROSS_CC:-0}" = 1 ]; then
    [ "$(arch_of "$image")" = arm64 ] && [ -n "${E2E_CROSS_IMAGE:-}" ] &&
      [ -x "$E2E_CROSS_IMAGE/root/usr/bin/aarch64-linux-gnu-gcc-14" ] ||
      die "E2E_CHROOT_CROSS_CC=1 needs an arm64 image and E2E_CROSS_IMAGE with aarch64-linux-gnu-gcc-14"
    xroot=$E2E_CROSS_IMAGE/root
  fi
  timeout -k 10 "$limit" unshare -m --propagation private \
    /bin/sh -euc '
      disk=$1 root=$2 share=$3 dir=$4 xroot=$5
      shift 5
      mount -o loop,ro,noload "$disk" "$root"
      mount -t tmpfs tmpfs "$root/tmp"
      mount -t tmpfs tmpfs "$root/root"
      mkdir -p "$root$share" 2>/dev/null ||
        { echo "run-guest.sh: $share: not under /tmp, nor in a directory of the image" >&2; exit 99; }
      mount --bind "$share" "$root$share"
      mount -t proc proc "$root/proc"
      mount --bind /dev "$root/dev"
      if [ -n "$xroot" ]; then
        # E2E_CHROOT_CROSS_CC (above). The script lies on the tmpfs, padded
        # with a comment sh never reaches to the size of the compiler.
        gcc=$root/usr/bin/aarch64-linux-gnu-gcc-14 w=$root/tmp/.gostap-cross-gcc
        printf "%s\n" "#!/bin/sh" \
          "exec /usr/sbin/chroot /mnt$xroot /bin/sh -c '"'"'cd \"\$0\" && exec aarch64-linux-gnu-gcc-14 \"\$@\"'"'"' \"\$PWD\" \"\$@\"" >"$w"
        pad=$(( $(stat -c %s "$gcc") - $(stat -c %s "$w") ))
        [ "$pad" -gt 0 ] || { echo "run-guest.sh: $gcc is too small to cover" >&2; exit 99; }
        head -c "$pad" /dev/zero | tr "\0" "#" >>"$w"
        chmod 755 "$w"
        touch -r "$gcc" "$w"
        mount --bind "$w" "$gcc"
        for d in /tmp /usr/src /usr/share/systemtap "$share"; do
          mkdir -p "$xroot$d"
          mount --bind "$root$d" "$xroot$d"
        done
        mount -t proc proc "$xroot/proc"
        mount --bind /dev "$xroot/dev"
      fi
      # The image becomes the namespace'"'"'s root (this machine'"'"'s under
      # /mnt there), not only the root of a chroot: the kernel then prints
      # paths of mounts of inner namespaces as in the guest (the e2e'"'"'s
      # container job: /proc/PID/exe of a process whose root is a tmpfs).
      cd "$root"
      pivot_root . mnt
      exec chroot . /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
    ' sh "$image/disk.img" "$mnt" "$share" "$dir" "$xroot" "$@" || st=$?
  rmdir "$mnt" 2>/dev/null || true
  exit "$st"
  ;;
boot)
  [ $# -eq 3 ] || die "usage: run-guest.sh boot IMAGE SHARE TIMEOUT"
  image=$1 share=$2 limit=$3
  rm -f "$share/guest.rc" "$share/guest.log" "$share/console.log"
  # -snapshot: the guest's writes go to a temporary overlay, the cached
  # disk image stays as built.
  st=0
  case $(arch_of "$image") in
    arm64) qemu=(qemu-system-aarch64 -M virt) console=ttyAMA0 ;;
    *) qemu=(qemu-system-x86_64) console=ttyS0 ;;
  esac
  timeout -k 10 "$limit" "${qemu[@]}" \
    -accel "tcg,thread=${E2E_TCG_THREAD:-single}" -cpu max -smp "${E2E_SMP:-2}" -m 4G \
    -display none -no-reboot -monitor none -serial "file:$share/console.log" \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
    -append "root=/dev/vda rw console=$console panic=-1 init=/sbin/gostap-init gostap.share=$share quiet loglevel=4" \
    -drive "file=$image/disk.img,format=raw,if=virtio,cache=unsafe" -snapshot \
    -virtfs "local,path=$share,mount_tag=share,security_model=none" \
    -nic none </dev/null >"$share/qemu.log" 2>&1 || st=$?
  if [ ! -s "$share/console.log" ] && [ "$st" != 0 ] && [ "$st" != 124 ]; then
    echo "run-guest.sh: qemu did not start (exit $st):" >&2
    cat "$share/qemu.log" >&2
    exit 77
  fi
  if [ "$st" = 124 ] || [ "$st" = 137 ]; then
    echo "run-guest.sh: the guest did not finish in $limit s; console:" >&2
    tail -60 "$share/console.log" >&2
    [ -f "$share/guest.log" ] && { echo "--- guest.log (tail):" >&2; tail -40 "$share/guest.log" >&2; }
    exit 2
  fi
  if [ ! -f "$share/guest.rc" ]; then
    echo "run-guest.sh: the guest did not run guest.sh (qemu exit $st); console:" >&2
    tail -60 "$share/console.log" >&2
    exit 2
  fi
  [ "$(cat "$share/guest.rc")" = 0 ] || exit 1
  ;;
*)
  die "usage: run-guest.sh compile|chroot|boot ..."
  ;;
esac
