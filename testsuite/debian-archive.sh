# debian-archive.sh: sourced by scripts that fetch packages from other
# Debian suites (Go toolchains, elfutils) into a cache, without touching the
# system: a private apt state under $CACHE/apt, the mirror taken from this
# machine's own apt configuration at run time (no host name is written in
# the repository).
#
#   CACHE=...; . debian-archive.sh
#   archive_setup SUITE...          # private sources.list + apt-get update
#   archive_fetch DIR PACKAGE...    # apt-get download + dpkg-deb -x into DIR
#   archive_apt_cache ARG...        # apt-cache on the private state (inside
#                                   # archive_locked)
#   bullseye_stap                   # bullseye's stap 4.4 unpacked; its root
#
# APT is the private state ($CACHE/apt); a script that needs its own sets
# APT to another directory after sourcing this (run-kbuild.sh: one a
# suite). ARCHIVE_EXTRA_ARCH, set before the calls: one more architecture
# whose packages the state lists (PACKAGE:ARCH).
#
# Tests run in parallel (make check -j) and share the cache: each of the two
# calls holds the lock $CACHE/.apt.lock while it uses the private apt state
# (apt-get update fails at once, not waits, when another one holds its lists).
# It is the innermost lock: scripts that hold a lock of their own (one of
# go-toolchains.sh, build-fixtures.sh, stap-env.sh) take it inside theirs.

: "${CACHE:=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}}"
APT=$CACHE/apt

archive_die () { echo "${0##*/}: $*" >&2; exit 1; }

# archive_locked CMD...: run CMD in a subshell holding $CACHE/.apt.lock; its
# status (an archive_die inside exits the subshell, then the caller).
archive_locked () {
  mkdir -p "$CACHE" || archive_die "cannot create the cache directory $CACHE"
  ( flock 8 || archive_die "flock $CACHE/.apt.lock failed"; "$@" ) 8>"$CACHE/.apt.lock" || exit $?
}

# cache_lock NAME: hold $CACHE/.NAME.lock until the calling script exits,
# so that one run at a time fills that part of the cache and the others
# wait, then reuse it. Taken before any archive_* call (.apt.lock is the
# innermost lock).
cache_lock () {
  local fd
  mkdir -p "$CACHE" || archive_die "cannot create the cache directory $CACHE"
  exec {fd}>"$CACHE/.$1.lock"
  flock "$fd" || archive_die "flock $CACHE/.$1.lock failed"
}

# The URI of the Debian archive this machine uses for its own release.
archive_mirror () {
  local codename uri
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
        awk -v c="$codename" '$2 == c { print $1; exit }')
  [ -n "$uri" ] || uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
        awk '$1 !~ /security/ && $2 !~ /security/ { print $1; exit }')
  [ -n "$uri" ] || archive_die "cannot find a Debian mirror in this machine's apt configuration (run apt-get update)"
  echo "${uri%/}/"
}

# archive_apt, archive_apt_cache: apt-get and apt-cache on the state $APT
# names (a caller may set another APT between calls).
archive_apt () { archive_with apt-get -q "$@"; }
archive_apt_cache () { archive_with apt-cache "$@"; }
archive_with () {
  local cmd=$1
  shift
  "$cmd" -o Dir::Etc::SourceList="$APT/sources.list" \
    -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State="$APT/state" -o Dir::Cache="$APT/cache" \
    -o Dir::State::Status="$APT/state/status" \
    -o APT::Get::List-Cleanup=0 \
    ${ARCHIVE_EXTRA_ARCH:+-o "APT::Architectures::=$ARCHIVE_EXTRA_ARCH"} "$@"
}

# archive_setup SUITE...: lists for these suites (plus any already set up),
# refreshed when the suite set changes or the lists are a day old.
archive_setup () { archive_locked archive_setup_unlocked "$@"; }
archive_setup_unlocked () {
  local m s suites
  m=$(archive_mirror)
  mkdir -p "$APT/state/lists/partial" "$APT/cache/archives/partial"
  [ -f "$APT/state/status" ] || : > "$APT/state/status"
  suites=$( { for s in "$@"; do echo "$s"; done
              if [ -f "$APT/sources.list" ]; then awk '{ print $3 }' "$APT/sources.list"; fi
            } | sort -u)
  { for s in $suites; do echo "deb $m $s main"; done; } > "$APT/sources.list.new"
  if ! cmp -s "$APT/sources.list.new" "$APT/sources.list" 2>/dev/null ||
     [ -z "$(find "$APT/state/lists" -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    mv "$APT/sources.list.new" "$APT/sources.list"
    archive_apt update >"$APT/update.log" 2>&1 ||
      { cat "$APT/update.log" >&2; archive_die "apt-get update of the private lists failed"; }
  else
    rm -f "$APT/sources.list.new"
  fi
}

# archive_fetch DIR PACKAGE[=VERSION]...: unpack the packages into DIR,
# built under a temporary name and renamed, so DIR is whole or absent.
archive_fetch () { archive_locked archive_fetch_unlocked "$@"; }
archive_fetch_unlocked () {
  local dir=$1 tmp deb
  shift
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$(dirname "$dir")/.tmp-$(basename "$dir").XXXXXX")
  ( cd "$tmp" && archive_apt download "$@" >download.log 2>&1 ) ||
    { cat "$tmp/download.log" >&2; rm -rf "$tmp"; archive_die "cannot download $*"; }
  mkdir -p "$tmp/root"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  rm -rf "$dir"
  mv "$tmp/root" "$dir"
  rm -rf "$tmp"
}

# bullseye_stap: bullseye's SystemTap 4.4 with libdw 0.183, unpacked into
# $CACHE/stap-bullseye (nothing installed; run-old-libdw.sh, run-kbuild.sh),
# one run at a time; prints that root, its apt output on stderr. An apt
# state of its own: run-kbuild.sh's bullseye state lists arm64 too, and
# one set up here without it would stay fresh a day without it.
bullseye_stap () {
  local bull=$CACHE/stap-bullseye
  if [ ! -x "$bull/usr/bin/stap" ]; then
    ( APT=$CACHE/apt-stap/bullseye; cache_lock stap-bullseye
      if [ ! -x "$bull/usr/bin/stap" ]; then
        archive_setup bullseye &&
        archive_fetch "$bull" systemtap systemtap-common systemtap-runtime libdw1 libelf1 libdebuginfod1
      fi ) >&2 || return 1
  fi
  echo "$bull"
}
