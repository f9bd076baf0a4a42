#!/bin/bash
# README's set-up on a fresh Debian 12, as a newcomer does it: in a root
# made by debootstrap (bookworm, --variant=minbase, the way the e2e guest
# images are made; the mirror and suites taken from this machine's apt
# configuration at run time), with only the files a fresh clone has (git
# ls-files, as they are in the working tree) and an empty cache:
#   1. tools/deps.sh test                       (layer deps)
#   2. testsuite/build-fixtures.sh: every Go release, architecture and
#      way of linking, the Go toolchains fetched from Debian's archive
#      into the empty ~/.cache/gostap-test     (layer fixtures)
#   3. autoreconf -fi, configure --enable-werror, make
#   4. build-fixtures.sh again (its manifest: every release has every
#      variant, cgo and arm64cgo included, none skipped)
#   5. make check TESTS="run-golden.sh run-list-matrix.sh": the offline
#      golden test, and the matrix test, which reads the cgo and the arm64
#      cgo fixtures (and every other variant) with the aarch64 objdump;
#      for Go FRESH_GO_VERSIONS (default 1.19 1.27: the oldest and the
#      newest release) to keep its cost down. Both must pass, none of
#      their binaries skipped.
# A step that fails makes the test fail with one line naming what was
# missing: the header ("fatal error: X: No such file"), the command
# ("X: command not found"), configure's error, the package apt did not
# find, the fixture that did not build, the inner test and its first
# failed check.
#
# Cached layers, under ${GOSTAP_TEST_CACHE:-~/.cache/gostap-test}/fresh/,
# each a whole root tree written under a temporary name and renamed, one
# run at a time (.fresh.lock):
#   base-bookworm-KEY  debootstrap; KEY: suite, variant, the apt suites
#   deps-KEY           base + tools/deps.sh test; KEY: base's, deps.sh
#   fixtures-KEY       deps + steps 2 (the toolchains downloaded and every
#                      fixture built from scratch, nothing taken from this
#                      machine's cache); KEY: deps's, build-fixtures.sh,
#                      go-toolchains.sh, debian-archive.sh, the fixture
#                      sources (testsuite/fixtures, examples/demo)
# A run mounts an overlay (lower: the fixtures layer; upper: a temporary
# directory) and does steps 3 to 5 in it: a change to deps.sh rebuilds
# layers deps and fixtures, a change to how fixtures are made rebuilds
# the fixtures layer, and every run builds gostap and runs the tests
# afresh. Layers of other keys not used for 7 days are removed.
#
# Every chroot runs in its own mount and PID namespaces (unshare): proc,
# sys, dev and the overlay are mounted there only, are never seen
# outside, and go with the namespace on every exit, a timeout or a kill
# included; the test checks that no mount under its roots is left in
# this namespace. The chroot's /etc/resolv.conf is this machine's.
#
# Skips (77) only when this machine cannot do it: not root, no debootstrap,
# no unshare or chroot, or not a git checkout (which files a fresh clone
# has is what git ls-files says).
# Environment: FRESH_GO_VERSIONS (the releases run-list-matrix.sh checks
# in the root), FRESH_TESTS (the tests of step 5, by default run-golden.sh
# run-list-matrix.sh; others that need no guest and no network may be
# named, by hand: each must pass with nothing skipped).

# --- inside the namespaces (the test runs itself through unshare) ----------
# FRESH_ROOT: where the root is; FRESH_LOWER (optional): the layer the
# overlay puts FRESH_UPPER and FRESH_WORK on (a copy of it when overlayfs
# does not mount); FRESH_SRC (optional): a file of NUL-separated paths of
# $top_srcdir copied to /root/gostap; FRESH_LOGS: the steps' scripts
# (NAME.sh) and logs (NAME.log), the status of each in FRESH_LOGS/steps
# ("NAME STATUS SECONDS"). Arguments: NAME:SECONDS, the steps in order.
if [ "${1:-}" = --inside ]; then
  shift
  set -u
  r=$FRESH_ROOT
  # The namespace takes these mounts with it; unmounted here all the same.
  trap 'umount -R "$r/dev" "$r/sys" "$r/proc" 2>/dev/null
        [ -n "${FRESH_LOWER:-}" ] && umount "$r" 2>/dev/null' EXIT
  # As the PID namespace's init this shell gets only the signals it traps:
  # it ends on these (its namespaces, the steps' processes and mounts with
  # it), and waits for a step in the background so that it can.
  trap 'exit 143' TERM INT HUP
  if [ -n "${FRESH_LOWER:-}" ]; then
    if ! mount -t overlay overlay \
         -o "lowerdir=$FRESH_LOWER,upperdir=$FRESH_UPPER,workdir=$FRESH_WORK" "$r" \
         2>"$FRESH_LOGS/overlay.err"; then
      echo "overlay mount failed ($(cat "$FRESH_LOGS/overlay.err")): a copy instead" >> "$FRESH_LOGS/notes"
      rmdir "$r" && cp -a --reflink=auto "$FRESH_LOWER" "$r" || exit 1
      FRESH_LOWER=
    fi
  fi
  mount -t proc proc "$r/proc" &&
    mount --rbind /sys "$r/sys" && mount --make-rslave "$r/sys" &&
    mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" || exit 1
  # (not through a symbolic link the root may have there)
  rm -f "$r/etc/resolv.conf" && cp /etc/resolv.conf "$r/etc/resolv.conf" || exit 1
  if [ -n "${FRESH_SRC:-}" ]; then
    rm -rf "$r/root/gostap"
    mkdir -p "$r/root/gostap"
    (cd "$top_srcdir" && tar --null --ignore-failed-read -T "$FRESH_SRC" -cf -) | tar -C "$r/root/gostap" -xf - || exit 1
  fi
  for s; do
    step=${s%:*} limit=${s#*:}
    t0=$(date +%s) st=0
    timeout -k 10 "$limit" chroot "$r" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
      SHELL=/bin/bash TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      FRESH_GO_VERSIONS="${FRESH_GO_VERSIONS:-}" FRESH_TESTS="${FRESH_TESTS:-}" \
      /bin/bash -c "set -eo pipefail; cd /root/gostap; $(cat "$FRESH_LOGS/$step.sh")" \
      >"$FRESH_LOGS/$step.log" 2>&1 </dev/null &
    wait $! || st=$?
    echo "$step $st $(( $(date +%s) - t0 ))" >> "$FRESH_LOGS/steps"
    [ "$st" = 0 ] || exit 1
  done
  exit 0
fi

# --- the test ---------------------------------------------------------------
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

[ "$(id -u)" = 0 ] || skip "debootstrap and chroot need root"
command -v debootstrap >/dev/null || skip "no debootstrap (tools/deps.sh test installs it)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v chroot >/dev/null || skip "no chroot (coreutils)"
git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
  skip "$top_srcdir is not a git checkout: the files of a fresh clone are what git ls-files lists"
unshare --mount --pid --fork --propagation private true 2>/dev/null ||
  skip "no mount and PID namespaces here (unshare --mount --pid failed)"
chroot / true 2>/dev/null || skip "chroot is not permitted here"

# shellcheck source=debian-archive.sh
. "$testsuite/debian-archive.sh"
SUITE=bookworm
FRESH=$CACHE/fresh
mkdir -p "$FRESH"
cache_lock fresh
# A layer being made is removed on every exit (renamed when whole).
# A session still running (this test killed, not its process group)
# is ended first: its namespace's init ends on TERM.
tb='' td='' tf='' ns=''
stop_session () {
  [ -n "$ns" ] || return 0
  # shellcheck disable=SC2046
  kill -TERM $(cat "/proc/$ns/task/$ns/children" 2>/dev/null) 2>/dev/null || true
  wait "$ns" 2>/dev/null || true
}
trap 'stop_session; rm -rf "$tmp" ${tb:+"$tb"} ${td:+"$td"} ${tf:+"$tf"}' EXIT
self=$testsuite/run-fresh.sh
versions=${FRESH_GO_VERSIONS:-1.19 1.27}
fresh_tests=${FRESH_TESTS:-run-golden.sh run-list-matrix.sh}
T0=$(date +%s)
phases=

phase () { phases="$phases${phases:+, }$1"; }
secs () { echo "$(( $(date +%s) - $1 )) s"; }
sha_files () { for f; do echo "$f $(sha256sum < "$top_srcdir/$f")"; done; }
# old KIND: the layers of that kind to drop before a new one is moved in:
# all but the most recently used (another checkout's, kept for its next
# run). A fixtures layer is 6.4 GB; kept for a week, every change of a
# fixture's source added one, and they filled the disk (2026-11-28: five,
# 32 GB, 1.3 GB left).
old () { ls -1dt "$FRESH/$1"-* 2>/dev/null | tail -n +2; }

# cause LOG: one line naming what a failed step lacked.
cause () {
  local log=$1 l
  l=$(grep -m1 -E '^E: ' "$log") && { echo "apt: $l"; return; }
  l=$(grep -m1 -E '^configure: error: ' "$log") && { echo "$l"; return; }
  l=$(grep -m1 -oE 'fatal error: [^ :]+: No such file or directory' "$log") &&
    { l=${l#fatal error: }; echo "missing header ${l%%: *} ($(grep -m1 -E 'build-fixtures.sh: go .* failed' "$log" || grep -m1 -F "$l" "$log"))"; return; }
  l=$(grep -m1 -E 'cannot find -l?[^ ]+|cannot find [^ ]+\.o' "$log") && { echo "linker: $l"; return; }
  l=$(grep -m1 -E ': command not found$|: [^ ]+: not found$|Can.t exec "[^"]+"' "$log") &&
    { echo "missing command: $l"; return; }
  l=$(grep -m1 -E '^build-fixtures.sh: ' "$log") && { echo "$l"; return; }
  l=$(grep -m1 -E '^RESULT .* (FAIL|ERROR|SKIP)' "$log") &&
    { echo "${l#RESULT }: $(grep -m1 -E '^testsuite/run-[a-z-]+\.sh: ((FAIL|ERROR|SKIP)[:-] |not ok )' "$log")"; return; }
  echo "last lines: $(grep -v '^\s*$' "$log" | tail -3 | tr '\n' ' ')"
}

# leaked DIR: mounts under DIR seen here (there should be none).
leaked () { awk -v d="$1" 'index($2, d) == 1 { print $2 }' /proc/self/mounts; }

# session ROOT STEP:SECONDS...: the steps (scripts in $logs/STEP.sh) run in
# a chroot of ROOT in namespaces of their own; with FRESH_LOWER set, ROOT
# is the overlay's mount point. Fails the test, naming the cause, when a
# step fails.
logs=$tmp/logs
mkdir -p "$logs"
session () {
  local root=$1 st=0 step rc took
  shift
  FRESH_ROOT=$root FRESH_LOGS=$logs FRESH_GO_VERSIONS=$versions FRESH_TESTS=$fresh_tests \
    top_srcdir=$top_srcdir \
    nice -n 10 unshare --mount --pid --fork --kill-child --propagation private "$self" --inside "$@" &
  ns=$!
  wait "$ns" || st=$?
  ns=
  checks=$((checks + 1))
  if [ -n "$(leaked "$root")" ]; then
    fail "mounts left behind under $root: $(leaked "$root" | tr '\n' ' ')"
  else
    echo "ok - no mount left under $root"
  fi
  [ -f "$logs/notes" ] && sed 's/^/# /' "$logs/notes"
  for step in "$@"; do
    step=${step%:*}
    checks=$((checks + 1))
    read -r rc took < <(awk -v s="$step" '$1 == s { print $2, $3 }' "$logs/steps" 2>/dev/null) || rc=
    if [ "$rc" = 0 ]; then
      echo "ok - $step ($took s)"
      phase "$step $took s"
      continue
    fi
    if [ -z "$rc" ]; then
      fail "$step: not run (the session failed first: exit $st)"
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      fail "$step: timed out after $took s: $(tail -2 "$logs/$step.log" | tr '\n' ' ')"
    else
      fail "$step failed (exit $rc): $(cause "$logs/$step.log")"
    fi
    echo "# the end of $step's log:"; tail -40 "$logs/$step.log" | sed 's/^/#   /'
    echo "run-fresh.sh: ${phases:-no phase done}; failed after $(secs "$T0")"
    finish || exit 1
    exit 1
  done
  [ "$st" = 0 ] || { fail "the session of $root failed (exit $st)"; finish || exit 1; }
}

# --- layer base: debootstrap --------------------------------------------------
# The suites of this machine's apt configuration (bookworm, its updates
# and security), with their mirrors; just the release itself elsewhere.
# shellcheck disable=SC2016
sources=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(IDENTIFIER)' 2>/dev/null |
          awk -v s="$SUITE" '$4 == "Packages" && ($2 == s || index($2, s "-") == 1) { print "deb", $1, $2, $3 }' | sort -u)
[ -n "$sources" ] || sources="deb $(archive_mirror) $SUITE main"
# How this machine's apt fetches, which the root's apt (deps.sh, the Go
# toolchains) must follow too: a proxy, and whether a Release file's date
# is checked (a machine whose clock runs past a mirror's snapshot turns
# that off; measured: forky's Release "expired" in the root otherwise).
aptconf=$(apt-config dump 2>/dev/null | grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy) ' || true)
base_key=$(printf 'suite %s\nvariant minbase\narch amd64\nsuites %s\napt %s\n' "$SUITE" \
  "$(awk '{ print $3, $4 }' <<< "$sources" | tr '\n' ' ')" "$aptconf" | sha256sum | cut -c1-16)
base=$FRESH/base-$SUITE-$base_key
t=$(date +%s)
if [ -d "$base/root" ]; then
  phase "base cached"
else
  tb=$(mktemp -d "$FRESH/.tmp-base.XXXXXX")
  # debootstrap mounts proc and sys in the target: in a namespace of its own.
  if ! nice -n 10 unshare --mount --propagation private timeout 1500 \
       debootstrap --variant=minbase --arch=amd64 "$SUITE" "$tb/root" "$(archive_mirror)" \
       >"$tb/debootstrap.log" 2>&1; then
    sed 's/^/# /' "$tb/debootstrap.log" | tail -20
    l=$(grep -m1 -E '^(E|W): ' "$tb/debootstrap.log" || echo "see above")
    rm -rf "$tb"
    hard_error "debootstrap $SUITE failed: $l"
  fi
  echo "$sources" > "$tb/root/etc/apt/sources.list"
  [ -z "$aptconf" ] || echo "$aptconf" > "$tb/root/etc/apt/apt.conf.d/90this-machine"
  rm -f "$tb/root/var/cache/apt/archives/"*.deb
  # shellcheck disable=SC2046
  rm -rf $(old base-"$SUITE")
  mv "$tb" "$base"
  phase "base $(secs "$t")"
fi
touch "$base"

# --- layer deps: tools/deps.sh test -----------------------------------------
deps_key=$( { echo "base $base_key"; sha_files tools/deps.sh; } | sha256sum | cut -c1-16)
deps=$FRESH/deps-$deps_key
if [ -d "$deps/root" ]; then
  phase "deps cached"
else
  td=$(mktemp -d "$FRESH/.tmp-deps.XXXXXX")
  cp -a --reflink=auto "$base/root" "$td/root"
  printf '%s\0' tools/deps.sh > "$logs/deps.files"
  echo 'tools/deps.sh test' > "$logs/deps.sh"
  FRESH_SRC=$logs/deps.files session "$td/root" deps:2400
  rm -rf "$td/root/root/gostap" "$td/root/var/cache/apt/archives/"*.deb
  # shellcheck disable=SC2046
  rm -rf $(old deps)
  mv "$td" "$deps"
fi
touch "$deps"

# --- layer fixtures: the toolchains and every fixture, from scratch ----------
git -C "$top_srcdir" ls-files -z > "$logs/tree.files"
fix_key=$( { echo "deps $deps_key"
  sha_files testsuite/build-fixtures.sh testsuite/go-toolchains.sh testsuite/debian-archive.sh
  git -C "$top_srcdir" ls-files testsuite/fixtures examples/demo | while read -r f; do sha_files "$f"; done
  } | sha256sum | cut -c1-16)
fix=$FRESH/fixtures-$fix_key
# shellcheck disable=SC2016
manifest_step='testsuite/build-fixtures.sh > /tmp/manifest
echo "manifest: $(wc -l < /tmp/manifest) binaries"
sed "s/^/M /" /tmp/manifest'
if [ -d "$fix/root" ]; then
  phase "fixtures cached"
else
  tf=$(mktemp -d "$FRESH/.tmp-fixtures.XXXXXX")
  cp -a --reflink=auto "$deps/root" "$tf/root"
  echo "$manifest_step" > "$logs/fixtures.sh"
  FRESH_SRC=$logs/tree.files session "$tf/root" fixtures:5400
  rm -rf "$tf/root/root/gostap" "$tf/root/tmp/"*
  # shellcheck disable=SC2046
  rm -rf $(old fixtures)
  mv "$tf" "$fix"
fi
touch "$fix"

# --- the run: build, fixtures from the layer, the tests ----------------------
cat > "$logs/build.sh" <<'EOF'
autoreconf -fi
mkdir _build
cd _build
../configure -q --enable-werror
make -s -j"$(nproc)"
test -x src/gostap
EOF
echo "$manifest_step" > "$logs/manifest.sh"
cat > "$logs/tests.sh" <<'EOF'
cd _build
tests=$(for t in $FRESH_TESTS; do echo "testsuite/$t"; done)
st=0
GOSTAP_GO_VERSIONS=$FRESH_GO_VERSIONS make check -j"$(nproc)" TESTS="$(echo $tests)" || st=$?
for t in $tests; do
  echo "RESULT $t $(sed -n 's/^:test-result: //p' "$t.trs" 2>/dev/null)"
  grep -E '^(FAIL|ERROR|SKIP)[:-] |^not ok |^skip - |^# no ' "$t.log" | head -5 | sed "s|^|$t: |" || true
  grep -E '^run-[a-z-]+\.sh: [0-9]+ checks|^list-matrix: binaries' "$t.log" | sed "s|^|$t: |" || true
done
exit "$st"
EOF
mkdir -p "$tmp/merged" "$tmp/upper" "$tmp/work"
FRESH_LOWER=$fix/root FRESH_UPPER=$tmp/upper FRESH_WORK=$tmp/work FRESH_SRC=$logs/tree.files \
  session "$tmp/merged" build:1800 manifest:1800 tests:2400

# The manifest: every release of the matrix with every variant.
matrix=$(sed -n 's/^MATRIX="\(.*\)"$/\1/p' "$testsuite/go-toolchains.sh")
[ -n "$matrix" ] || hard_error "no MATRIX in go-toolchains.sh"
all_variants="default w sw pie arm64 arm64w arm64sw cgo arm64cgo"
for v in $matrix; do
  checks=$((checks + 1))
  have=$(awk -v v="$v" '$1 == "M" && $3 == v { print $4 }' "$logs/manifest.log" | sort -u | tr '\n' ' ')
  missing=
  for w in $all_variants; do
    case " $have" in *" $w "*) ;; *) missing="$missing $w" ;; esac
  done
  if [ -n "$missing" ]; then
    fail "Go $v: no fixture of the variants$missing in the root's manifest"
  else
    echo "ok - Go $v: every variant built ($(awk -v v="$v" '$1 == "M" && $3 == v' "$logs/manifest.log" | wc -l) binaries)"
  fi
done
checks=$((checks + 1))
if grep -E '^build-fixtures.sh: ' "$logs/manifest.log" > "$tmp/notes"; then
  fail "build-fixtures.sh left something out in the root: $(head -1 "$tmp/notes")"
else
  echo "ok - build-fixtures.sh left nothing out"
fi

# The tests in the root: each passed, none of their parts skipped.
for t in $fresh_tests; do
  checks=$((checks + 1))
  res=$(awk -v t="testsuite/$t" '$1 == "RESULT" && $2 == t { print $3 }' "$logs/tests.log")
  if [ "$res" != PASS ]; then
    l=$(grep -m1 -E "^testsuite/$t: ((FAIL|ERROR|SKIP)[:-] |not ok )" "$logs/tests.log" || true)
    fail "$t in the root: ${res:-no result}: ${l#testsuite/"$t": }"
  elif grep -E "^testsuite/$t: (skip - |# no )" "$logs/tests.log" > "$tmp/skips"; then
    fail "$t in the root left something out: $(head -1 "$tmp/skips")"
  else
    echo "ok - $t in the root: $(grep -E "^testsuite/$t: " "$logs/tests.log" | cut -d' ' -f2- | tr '\n' ' ' | cut -c1-300)"
  fi
done

echo "run-fresh.sh: $phases; $(secs "$T0") in all"
finish
