# shellcheck shell=bash disable=SC2154
# gostap-run.sh: sourced by run-e2e.sh and demo-newstack.sh: the job where
# the gostap CLI itself runs in the guest, as a user would run it:
#
#   gostap run -c 'PROG ARGS' STAP-OPTIONS examples/newstack.stp N
#
# 1. gr_prepare: `make distdir` of the build tree, built and installed in a
#    chroot of the image (run-guest.sh chroot) into SHARE/gostap; cached in
#    $CACHE/e2e/gostap-<key> (<key>: the image and the sources, testsuite/
#    and README.md left out: neither is built or installed), so a warm run
#    only copies it (a README change cost the arm64 image 175 s of emulated
#    building, measured 2026-11-26).
# 2. gr_compile: in the chroot, the same command with -p4 (and -r, since
#    uname there is this machine's kernel): gostap generates the tapsets and
#    stap compiles the module into its cache, natively, in seconds.
# 3. gr_guest_lines: the lines of guest.sh that run the command (without
#    -p4 -r) in the guest, where gostap finds its tapsets cached and stap
#    its module (passes 1-2 only, then "using cached"), under TCG.
#
# The two caches are on the share, at the same paths in the chroot and in
# the guest (gr_env: XDG_CACHE_HOME for gostap, SYSTEMTAP_DIR for stap).
# stap's cache key (its hash.cxx) covers the script after pass 2, the
# options, the uid, and size and mtime (seconds) of the kernel build tree,
# the runtime's directories, gcc, stap itself and each -d binary. The
# chroot is the guest's own disk, loop-mounted (run-guest.sh chroot), so
# the files and directories are the guest's; the binaries in the guest's
# tmpfs are cp -a copies of the share's. The guest records the modules in
# stap's cache before and after the run (NAME.ko-before, NAME.ko-after):
# equal lists mean the guest compiled nothing. (When they differ, stap
# compiled in the guest, 7 minutes under TCG: diff the two *_hash.log
# files under SHARE/stapdir/cache to see which input differed.)
#
# The caller sets: e2e (this directory), CACHE or GOSTAP_TEST_CACHE.

: "${CACHE:=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}}"

gr_die () { echo "gostap-run.sh: $*" >&2; return 1; }

# gr_env SHARE: VAR=VALUE words, the same in the chroot and in the guest.
# STAP_NTHREADS=1: stap 5.6 works in a pool of threads, and the order of
# the embedded-C blocks in its pass-2 script, which its cache key hashes,
# changed from run to run (measured in forky's chroot, the args example:
# 10 runs gave 2 keys, with STAP_NTHREADS=1 30 runs gave 1), so the guest
# missed the module compiled in the chroot and compiled it again under
# TCG. With one thread the order held; stap 5.1 ignores the variable.
gr_env () {
  local s=$1
  echo "XDG_CACHE_HOME=$s/xdg SYSTEMTAP_DIR=$s/stapdir STAP_NTHREADS=1" \
       "GOSTAP_TAPSETS=$s/gostap/share/gostap/tapset" \
       "PATH=$s/gostap/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

# gr_prepare IMAGE SHARE BUILDDIR: gostap built for the image, installed in
# SHARE/gostap (bin/gostap, share/gostap/{tapset,examples}). Build log in
# SHARE/gostap-build.log.
gr_prepare () {
  local image=$1 share=$2 builddir=$3 key cached tmpc
  case $share in *[[:space:]]*) gr_die "the share's path has white space: $share"; return 1 ;; esac
  [ -f "$builddir/Makefile" ] || { gr_die "$builddir is not a configured build tree"; return 1; }
  rm -rf "$share/gostap-src" "$share/gostap"
  mkdir -p "$share/gostap-src"
  make -s -C "$builddir" distdir distdir="$share/gostap-src/gostap" \
    top_distdir="$share/gostap-src/gostap" >"$share/gostap-build.log" 2>&1 ||
    { cat "$share/gostap-build.log" >&2; gr_die "make distdir failed"; return 1; }
  key=$( { echo "image $(basename "$image")"
           cd "$share/gostap-src/gostap" &&
           find . \( -path ./testsuite -o -path ./README.md \) -prune -o \
             -type f -print | LC_ALL=C sort |
             while read -r f; do echo "$f $(sha256sum < "$f")"; done; } |
         sha256sum | cut -c1-16)
  cached=$CACHE/e2e/gostap-$key
  if [ -x "$cached/bin/gostap" ]; then
    touch "$cached"
    cp -a "$cached" "$share/gostap"
    echo "gostap-run.sh: gostap for the image from $cached" >>"$share/gostap-build.log"
    return 0
  fi
  # shellcheck disable=SC2016
  "$e2e/run-guest.sh" chroot "$image" "$share" /bin/sh -ec '
      cd "$0"
      ./configure -q --prefix="$1"
      make -s -j2
      make -s install
      "$1/bin/gostap" --version' \
    "$share/gostap-src/gostap" "$share/gostap" >>"$share/gostap-build.log" 2>&1 ||
    { tail -30 "$share/gostap-build.log" >&2; gr_die "building gostap in the image failed"; return 1; }
  [ -x "$share/gostap/bin/gostap" ] || { gr_die "no $share/gostap/bin/gostap"; return 1; }
  tmpc=$(mktemp -d "$CACHE/e2e/.tmp-gostap.XXXXXX")
  cp -a "$share/gostap/." "$tmpc/"
  rm -rf "$cached"
  mv "$tmpc" "$cached"
  # Builds of other sources, unused for a week, go.
  find "$CACHE/e2e" -mindepth 1 -maxdepth 1 -name 'gostap-*' -type d -mtime +7 \
    -exec rm -rf {} + 2>/dev/null || true
}

# gr_compile IMAGE SHARE LOG GOSTAP-RUN-ARG...: `gostap run -p4 -r KVER
# ARG...` in the chroot, in SHARE/gostap/share/gostap (where examples/ is).
# Its output (stap prints the module's path in its cache) goes to LOG.
gr_compile () {
  local image=$1 share=$2 log=$3 kver
  shift 3
  kver=$(sed -n 's/^kernel //p' "$image/info")
  # shellcheck disable=SC2046
  ( cd "$share/gostap/share/gostap" &&
    "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
      gostap run -p4 -r "$kver" "$@" ) >"$log" 2>&1 ||
    { tail -30 "$log" >&2; gr_die "gostap run -p4 in the image failed (log: $log)"; return 1; }
}

# gr_guest_prologue SHARE: the start of a guest.sh (S=SHARE, the binaries
# of SHARE/bin on a tmpfs: uprobes sit on an inode, and a 9p mount without
# caching makes a new inode at every lookup, so probes on binaries read
# from the share never fire).
gr_guest_prologue () {
  echo '#!/bin/bash'
  echo "S=$1"
  cat <<'EOF'
cd "$S"
# The guest's init made the directory above the share (the mount point)
# with umask 0: writable by others, which gostap refuses above its cache
# (XDG_CACHE_HOME is under the share; run_cache_trust).
chmod go-w "$(dirname "$S")"
mkdir -p /tmp/bin && cp -a "$S/bin/." /tmp/bin/ && mount --bind /tmp/bin "$S/bin"
echo "guest: $(uname -r), $(stap -V 2>&1 | head -1)"
EOF
}

# gr_guest_lines SHARE NAME LIMIT GOSTAP-RUN-ARG...: the guest.sh lines that
# run `gostap run ARG...` there: NAME.cmd (the command), NAME.transcript (its
# stdout and stderr), NAME.rc, NAME.time, NAME.ko-before, NAME.ko-after in
# SHARE/out.
gr_guest_lines () {
  local share=$1 name=$2 limit=$3 q
  shift 3
  q=$(printf ' %q' "$@")
  cat <<EOF
( cd "\$S/gostap/share/gostap"
  o=\$S/out/$name
  echo "gostap run$q" > "\$o.cmd"
  find "\$S/stapdir" -name '*.ko' | sort > "\$o.ko-before"
  t0=\$(date +%s.%N) st=0
  timeout -k 10 $limit env $(gr_env "$share") gostap run$q > "\$o.transcript" 2>&1 || st=\$?
  echo "\$st" > "\$o.rc"
  awk -v a="\$t0" -v b="\$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "\$o.time"
  find "\$S/stapdir" -name '*.ko' | sort > "\$o.ko-after"
  echo "guest: $name (gostap run) exit \$st in \$(cat "\$o.time") s" )
EOF
}
