#!/bin/bash
# stap-env.sh: a SystemTap translator that can elaborate (stap -p2)
# user-space probes on Go binaries on this machine, without a kernel module.
#
#   eval "$(testsuite/stap-env.sh)" || exit $?     # sets STAP, STAP_LIBDW_VERSION
#   $STAP -p2 -e 'probe process("X").statement(0x...) { ... }'
#   stap=$(testsuite/stap-env.sh --print-stap)      # just the command prefix
#   . testsuite/stap-env.sh                         # the same as the eval
#
# What it provides:
#  - the `systemtap` package (its Depends only; installed with apt-get when
#    missing and running as root);
#  - libdw >= 0.191 (facts.md 2: older libdw finds no DWARF unit for Go
#    code, so every numeric statement probe fails "no match"). When stap's
#    libdw is older, libdw1, libelf1 and libdebuginfod1 (which libdw
#    dlopens) from CODENAME-backports are unpacked into the test cache with
#    debian-archive.sh and put first on LD_LIBRARY_PATH; nothing is
#    installed on the system;
#  - a stub kernel build tree (facts.md 9) passed as `stap -r DIR`: .config
#    (/proc/config.gz, /boot/config-REL, else the three options process
#    probes need), include/config/kernel.release, an empty Module.symvers
#    and a System.map with _stext/_etext only (which silences stap's
#    "Kernel function symbol table missing" warning); rebuilt per `uname -r`.
# STAP also sets DEBUGINFOD_URLS empty, so stap never goes to the network.
#
# Output (stdout): shell assignments
#   STAP='env DEBUGINFOD_URLS= LD_LIBRARY_PATH=... stap -r DIR'
#   STAP_LIBDW_VERSION=0.192
# Exit 77 with one line on stderr when this cannot be had here (callers
# skip), 1 when the assembled translator fails a `stap -p2` smoke test.
# Environment: GOSTAP_TEST_CACHE (see debian-archive.sh), STAP_ENV_SUITE
# (the suite to take elfutils from; default CODENAME-backports).

# Sourced: run as a program and evaluate its output in the caller.
if [ "${BASH_SOURCE[0]:-$0}" != "$0" ]; then
  __stap_env_out=$(bash "${BASH_SOURCE[0]}") || return $?
  eval "$__stap_env_out"
  unset __stap_env_out
  return 0
fi

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/debian-archive.sh"

mode=assign
case "${1:-}" in
  '') ;;
  --print-stap) mode=prefix ;;
  -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "stap-env.sh: unknown argument '$1' (try --help)" >&2; exit 1 ;;
esac

skip () { echo "stap-env.sh: $*" >&2; exit 77; }
die () { echo "stap-env.sh: $*" >&2; exit 1; }

mkdir -p "$CACHE" || skip "cannot create the cache directory $CACHE"
# Parallel test runs share the cache.
cache_lock stap-env

# 1. The translator.
if ! command -v stap >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || skip "stap is not installed and installing it needs root"
  command -v apt-get >/dev/null 2>&1 || skip "stap is not installed and there is no apt-get"
  inst () {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      systemtap >"$CACHE/stap-install.log" 2>&1
  }
  inst || { apt-get -q update >/dev/null 2>&1 && inst; } ||
    skip "cannot install the systemtap package (see $CACHE/stap-install.log)"
  command -v stap >/dev/null 2>&1 || skip "the systemtap package gave no stap command"
fi

# 2. libdw.  `stap -V` says "version 4.8/0.188, ..." (translator/libdw), or
# "version 4.8/0.192/0.188, ..." when the libdw loaded (first) is not the
# one stap was built against (second).
libdw_of () {
  "$@" -V 2>&1 | sed -n 's/.*version [0-9][0-9.]*\/\(0\.[0-9][0-9]*\).*/\1/p' | head -1
}
new_enough () { [ -n "$1" ] && [ "${1#0.}" -ge 191 ] 2>/dev/null; }

ld=
v=$(libdw_of stap)
[ -n "$v" ] || die "cannot read the libdw version from 'stap -V': $(stap -V 2>&1 | head -1)"
if ! new_enough "$v"; then
  codename=$(. /etc/os-release 2>/dev/null && echo "${ID:-}:${VERSION_CODENAME:-}")
  suite=${STAP_ENV_SUITE:-}
  if [ -z "$suite" ]; then
    case "$codename" in
      debian:?*) suite=${codename#debian:}-backports ;;
      *) skip "stap uses libdw $v (< 0.191, no numeric probes on Go code) and no newer elfutils source is known for '$codename'" ;;
    esac
  fi
  arch=$(dpkg --print-architecture 2>/dev/null) || skip "libdw $v < 0.191 and no dpkg to fetch a newer one"
  multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null ||
          echo "$(uname -m)-linux-gnu")
  dir=$CACHE/elfutils-$suite-$arch
  ld=$dir/usr/lib/$multi
  if [ ! -e "$ld/libdw.so.1" ] || [ ! -e "$ld/libelf.so.1" ] || [ ! -e "$ld/libdebuginfod.so.1" ]; then
    # debian-archive.sh exits on failure: keep that in a subshell.  A
    # Debian machine whose archive does not answer is a failure, not a
    # skip: the test suite's stap needs it there.
    ( archive_setup "$suite" &&
      archive_fetch "$dir" "libdw1/$suite" "libelf1/$suite" "libdebuginfod1/$suite"
    ) >"$CACHE/elfutils-fetch.log" 2>&1 ||
      die "libdw $v < 0.191 and cannot fetch libdw1/libelf1/libdebuginfod1 from $suite: $(grep -E '^(E:|stap-env)' "$CACHE/elfutils-fetch.log" | head -1) (log: $CACHE/elfutils-fetch.log)"
    [ -e "$ld/libdw.so.1" ] || skip "the $suite libdw1 package has no $ld/libdw.so.1"
  fi
  # Every elfutils library stap loads must come from there.
  bad=$(LD_LIBRARY_PATH=$ld ldd "$(command -v stap)" |
        awk -v d="$ld/" '/lib(dw|elf|debuginfod)[.]so/ && index($3, d) != 1 { print $1 " => " $3 }')
  [ -z "$bad" ] || die "stap does not pick up the fetched elfutils: $bad"
  v=$(LD_LIBRARY_PATH=$ld libdw_of stap)
  new_enough "$v" || skip "libdw from $suite is ${v:-unusable} (< 0.191)"
fi

# 3. The stub kernel build tree, one per kernel release.
rel=$(uname -r)
kdir=$CACHE/stap-kernel-stub/$rel
if [ ! -f "$kdir/Module.symvers" ] || [ ! -f "$kdir/System.map" ]; then
  mkdir -p "$CACHE/stap-kernel-stub"
  tmpk=$(mktemp -d "$CACHE/stap-kernel-stub/.tmp.XXXXXX")
  chmod 755 "$tmpk"
  mkdir -p "$tmpk/include/config"
  if [ -r /proc/config.gz ]; then zcat /proc/config.gz > "$tmpk/.config"
  elif [ -r "/boot/config-$rel" ]; then cp "/boot/config-$rel" "$tmpk/.config"
  else
    # What stap checks before it accepts process probes (measured, 4.8).
    printf '%s\n' CONFIG_UPROBES=y CONFIG_ARCH_SUPPORTS_UPROBES=y CONFIG_TRACEPOINTS=y \
      > "$tmpk/.config"
  fi
  echo "$rel" > "$tmpk/include/config/kernel.release"
  : > "$tmpk/Module.symvers"
  awk '$3 == "_stext" || $3 == "_etext"' /proc/kallsyms 2>/dev/null > "$tmpk/System.map" || :
  [ -s "$tmpk/System.map" ] ||
    printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff82000000 T _etext' > "$tmpk/System.map"
  rm -rf "$kdir"
  mv -T "$tmpk" "$kdir"
fi

if [ -n "$ld" ]; then
  stap="env DEBUGINFOD_URLS= LD_LIBRARY_PATH=$ld stap -r $kdir"
else
  stap="env DEBUGINFOD_URLS= stap -r $kdir"
fi

# 4. Smoke test, once per translator/libdw/kernel combination.
stamp=$kdir/.ok-$( { stap -V 2>&1 | head -1; echo "$v $stap"; } | cksum | tr ' ' -)
if [ ! -f "$stamp" ]; then
  out=$($stap -p2 -e 'probe process("/bin/sh").begin { printf("%d\n", pid()) }' 2>&1) ||
    die "'$stap -p2' fails a smoke test: $(echo "$out" | grep -v '^Tip:' | head -3 | tr '\n' ' ')"
  : > "$stamp"
fi

if [ "$mode" = prefix ]; then
  echo "$stap"
else
  printf "STAP='%s'\n" "$stap"
  printf 'STAP_LIBDW_VERSION=%s\n' "$v"
fi
