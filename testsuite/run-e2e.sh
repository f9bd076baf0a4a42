#!/bin/bash
# run-e2e.sh: end-to-end test of gostap's tapsets with the real SystemTap
# kernel-module runtime, in a qemu/TCG guest (this machine's kernel cannot
# load modules: shared/docs/vm.md).
#
#  1. fixtures for Go 1.19, 1.24 and 1.27 (build-fixtures.sh);
#  2. the guest image: Debian trixie, stap 5.1, libdw 0.192, kernel 6.12,
#     or with E2E_SUITE=forky (run-e2e-forky.sh) Debian forky, stap 5.6,
#     kernel 7.2, or with E2E_SUITE=bookworm (run-e2e-bookworm.sh) Debian
#     12, stap 4.8, libdw 0.188, kernel 6.1, or with E2E_SUITE=bullseye
#     (run-e2e-bullseye.sh) Debian 11, stap 4.4, libdw 0.183, kernel 5.10
#     (e2e/build-image.sh, cached,
#     rebuilt when its recipe changes); one guest at a time runs on this
#     machine (a lock);
#  3. `gostap gen` for each binary, the test scripts (e2e/*.stp) compiled
#     natively into modules in a chroot of the image (e2e/run-guest.sh
#     compile), two at a time; where the image's libdw is older than 0.191
#     (bookworm, bullseye) with the --sysroot or SYSTEMTAP_DEBUGINFO_PATH gen prints
#     for it (its copies with .debug_aranges), checked by (o), and where
#     its stap is older than 5.1 (bookworm) with the -R gen
#     --fixed-runtime prints (its runtime with the relay fix);
#  4. one boot of the guest runs every module with staprun against its
#     program, and each program once without probes (e2e/run-guest.sh boot);
#  5. the gostap-run jobs (e2e/gostap-run.sh): gostap itself built in a
#     chroot of the image, `gostap run -p4` there fills stap's cache, and
#     the guest runs `gostap run -c 'demo 3' ... examples/SCRIPT` as a user
#     would: newstack.stp 1 on Go 1.19, 1.24 and 1.27 (Go tracebacks from
#     go_sched_stack, expanded by gostap run), every other example on Go
#     1.24; the -w and cgo refusals of the image's gostap;
#  6. e2e/check-e2e.py asserts on the values printed: (a) newstack sizes
#     and backtraces, and the go_sched_stack records (gostap symbolize
#     here) equal to stap's unwinder frame by frame, (b) argument and result values against the abi
#     fixture's own CALL/RET lines (floats as strings and bits, parsed back
#     by Go), and (b''') the same arguments through stap's DWARF target
#     variables ($p->X) in gostap's aliases, also (values_split) for the Go 1.24
#     build stripped, its DWARF in a separate debug file found by build id
#     (by gostap gen here and by stap in the chroot), (a', c') the Go 1.27
#     -s -w build through its companion debug file, found by build id
#     (newstack_sw: sizes, backtraces) and by name (swbuild: exact
#     pairing), (c) entry/return
#     pairing (on tapsets made for pairing.stp: the entry alias records
#     the call, one handler at the entry; the load job (e) on the plain
#     tapsets, two), (d) goroutine
#     ids, (e) a >= 30 s run under load, (f) the transcript of gostap run:
#     sizes double, main.rec with main.go:LINE, the module from the cache;
#     (h) `gostap run -x PID` on the demo in a mount namespace of its own
#     (a container): pairing, no hit elsewhere, the path from here;
#     (b'') values_usrlib, values_dbgd: the split build through `gostap
#     run` in the guest, its debug file under /usr/lib/debug/.build-id and
#     from a debuginfod on the guest's loopback; (k) http_V:
#     examples/httplatency.stp on the http fixture (HTTP/1.1 and HTTP/2
#     servers on the guest's loopback, and their client): per route the
#     requests the client made, positive latencies, the slow route the
#     slowest, goroutine ids, the histograms and the slowest requests;
#     (o) gen's line for stap by hand: on an old libdw, for every binary
#     whose DWARF lacks .debug_aranges, naming a copy that has them;
#     elsewhere none; (i) in_inline_V, in_inlineSW_V (amd64): the inline
#     fixture's own count of each small function's calls, inlined or not,
#     equals go.func.FUNC's hits (fixtures/inline/count.stp), in all and
#     per caller; (n) fmt_V, fmt_noswiss: NAME_fmt (go_fmt) of the
#     fmtvals fixture's values (e2e/fmtvals.stp), as `any`s, typed
#     arguments and results, in deep mode, against the program's own fmt
#     %+v, on Go 1.19, 1.24, 1.27, 1.24 with GOEXPERIMENT=noswissmap
#     (x86-64); compiled with stap's own MAXNESTING and MAXACTION.
#
# With E2E_ARCH=arm64 (run-e2e-arm64.sh) the guest is Debian trixie's
# arm64 port under qemu-system-aarch64, its modules cross-compiled in a
# chroot of the amd64 trixie image (e2e/run-guest.sh compile,
# E2E_CROSS_IMAGE), and the fixtures' GOARCH=arm64 builds:
# checks (a) newstack, (b) values, (b''') DWARF target variables, (c)
# pairing, (d) goroutine ids, (e) load, (a', c') the -s -w build through
# its companion, the stacks fixture's default, -w and -s -w builds, and
# the -w build, and (f) every example once through gostap run: gostap
# built in a chroot of the arm64 image under qemu user emulation, and its
# modules compiled there by the arm64 stap, whose C compiler is this
# machine's cross compiler (run-guest.sh chroot, E2E_CHROOT_CROSS_CC;
# E2E_ARM64_GOSTAP_RUN=0 leaves (f) out), (b') and (b'') the split build,
# (g) the cgo build (linked with gcc-aarch64-linux-gnu) and (k) http. The
# container (h) is skipped there with its reason (check-e2e.py).
#
# Exit: 0 pass, 1 a check failed, 77 qemu cannot start here, 99 anything
# else went wrong (no image, a module that does not compile, a hung guest).
# Environment: GOSTAP_E2E (the guests to boot, e2e/guests.sh: by default
# one by turns: trixie, bookworm, forky or arm64; "all" those four; bullseye by name), E2E_SUITE (trixie), E2E_ARCH (amd64), GOSTAP_TEST_CACHE (the cache root), E2E_LOAD_SECONDS (30; 0
# leaves out check e), E2E_SMP (the guest's CPUs, 2),
# E2E_GUEST_TIMEOUT (1800 s, and twice the busy job's seconds beyond 60;
# 2400 s for arm64), E2E_KEEP=1 keeps the work directory,
# E2E_ONLY (an extended regular expression: only the jobs whose names
# match are prepared, run and checked, the modules' names, gostap_run_NAME's
# NAME, faults (with unpriv and busy), container, split, load; for a run by
# hand while working on a job, never in the suite's: the checks of the
# others are left out, and the run says so).
. "$(dirname "$0")/test-subr.sh"
e2e=$testsuite/e2e
[ -x "$GOSTAP" ] || hard_error "$GOSTAP is not built"
[ "$(id -u)" = 0 ] || skip "the e2e test needs root (debootstrap, chroot, mounts)"

VERSIONS="1.19 1.24 1.27"
ARCH=${E2E_ARCH:-amd64}
# DEF, W, SW, CGO: the manifest's variants of the plain, -w, -s -w and
# cgo builds for this architecture.
case $ARCH in
  amd64) DEF=default W=w SW=sw CGO=cgo ;;
  arm64) DEF=arm64 W=arm64w SW=arm64sw CGO=arm64cgo ;;
  *) hard_error "E2E_ARCH '$ARCH' is not amd64 or arm64" ;;
esac
# amd64: whether this run has the jobs only amd64 can have (the container).
amd64 () { [ "$ARCH" = amd64 ]; }
# Which guests this run of the suite boots (e2e/guests.sh: one by turns,
# unless GOSTAP_E2E says otherwise); the others skip.
GUEST=${E2E_SUITE:-trixie}
amd64 || GUEST=arm64
chosen=$("$e2e/guests.sh") || hard_error "e2e/guests.sh failed"
{ read -r GUESTS; read -r why; } <<< "$chosen"
case " $GUESTS " in
  *" $GUEST "*) echo "# guests of this run: $GUESTS ($why)" ;;
  *) skip "this run boots the guests $GUESTS ($why), not $GUEST; GOSTAP_E2E=all boots all four, GOSTAP_E2E=bullseye the oldest stack (HACKING.md, Tests)" ;;
esac
# only NAME: whether job NAME is one of this run's (E2E_ONLY, above).
only () { [ -z "${E2E_ONLY:-}" ] || grep -Eq -- "$E2E_ONLY" <<< "$1"; }
[ -z "${E2E_ONLY:-}" ] || echo "# E2E_ONLY='$E2E_ONLY': only the jobs it matches, checked alone"
# at_least V MIN: Go release V is MIN or later.
at_least () { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$2" ]; }
LOAD_VERSION=1.24
SPECIAL_VERSION=1.24
SW_VERSION=1.27
CONTAINER_VERSION=1.24
# The faults job (e2e/faults.sh; issue 38): on the x86-64 guests, with
# the gostap-run jobs (FAULTS=0 where there are none). The unprivileged
# job (e2e/unpriv.sh; issue 38, other users) runs under the same
# condition, on the same fixture.
FAULTS_VERSION=1.24
# The busy job (issue 38, load): the busy fixture (a thousand goroutines
# serving requests that grow their stacks and allocate, counting its own
# calls of main.serve and checking its results) under e2e/busy.stp through
# gostap run: entry with a Go stack, return paired, every call. On the
# x86-64 guests with the gostap-run jobs, BUSY_SECONDS long: 300 in the
# long run (GOSTAP_E2E=all), 60 otherwise (E2E_BUSY_SECONDS sets it).
# Each worker waits BUSY_PAUSE_MS between requests: the call rate's bound
# (1000 workers: at most 5,000 calls a second, 10,000 probe hits).
# e2e/busy-mem.sh samples the session's memory every 10 s beside it.
BUSY_VERSION=1.24
if [ "${GOSTAP_E2E:-}" = all ]; then BUSY_SECONDS=${E2E_BUSY_SECONDS:-300}
else BUSY_SECONDS=${E2E_BUSY_SECONDS:-60}; fi
BUSY_GOROUTINES=1000
BUSY_PAUSE_MS=200
# The gostap-run jobs: `gostap run -c 'demo 3' ... examples/SCRIPT ARGS` in
# the guest, as a user runs it: newstack on three releases (its stacks
# are gostap's, symbolized from the pclntab: Go 1.25+'s DWARF 5, which stap
# 5.1's unwinder cannot read, does not matter) and on the -s -w build of
# the demo (version V-sw: gostap run writes its companion), every other
# example on one. The profile jobs add gostap run's --pprof=/--folded=
# (put before the script; @OUT@ is SHARE/out/gostap_run_NAME): newstack's
# stack-growth profile on the -s -w demo, cpuprofile, offcpu. The classic
# report, newstack-fileline.stp (stap's print_ubacktrace_fileline), on Go
# 1.24 (DWARF 4: stap's runtime cannot read Go 1.25+'s DWARF 5 line
# tables), in every guest: check-e2e.py compares its main.rec frames'
# file:line with addr2line's. The pgo job runs the cpubound fixture
# instead of the demo (gostap_run_args): a CPU-bound loop that writes its
# own runtime/pprof CPU profile (SHARE/out/gostap_run_pgo.go.pb.gz) while
# cpuprofile.stp samples it; check-e2e.py compares the two profiles and
# builds the fixture with `go build -pgo` of each (x86-64 guests only).
# The labels jobs run the labels fixture (goroutines labelled with
# pprof.Do, writing its own runtime/pprof CPU profile to
# SHARE/out/gostap_run_NAME.go.pb.gz) on Go 1.19 (labels in a map), 1.24
# and 1.27 (a sorted slice): labels_* under cpuprofile.stp with labels on
# samples (-Glabels=1, put before the script like --pprof=), golabels_*
# under labels.stp (go_label(), go_labels() in probes on main.*);
# check-e2e.py compares `go tool pprof -tags` of both profiles and the
# labels gostap read with the ones the program printed.
# The allocs jobs run the allocs fixture (runtime.MemProfileRate = 1;
# allocations at six known sites; it prints its own runtime.MemProfile per
# site) under allocprofile.stp: gostap's own sampling of every allocation
# (argument 1) on Go 1.19 (one mallocgc), 1.24 (mallocgc's five size-class
# paths) and 1.27 (the size-specialised entry points), the runtime's own
# samples (argument runtime) on 1.24, and gostap's sampling at a rate of 64
# bytes on 1.27: check-e2e.py compares per site the count and bytes of
# gostap's profile with the program's.
# name version script [args]
GOSTAP_RUN_JOBS="
newstack_1_19 1.19 newstack.stp 1
newstack_1_24 1.24 newstack.stp 1
newstack_1_27 1.27 newstack.stp 1
newstack_sw_demo 1.27-sw newstack.stp 1
newstack_prof 1.27-sw newstack.stp 1 --pprof=@OUT@.pb.gz --folded=@OUT@.folded
newstack_fileline_1_24 1.24 newstack-fileline.stp 1
cpuprofile 1.27 cpuprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded
pgo 1.27 cpuprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded
labels_1_19 1.19 cpuprofile.stp -Glabels=1 --pprof=@OUT@.pb.gz --folded=@OUT@.folded
labels_1_24 1.24 cpuprofile.stp -Glabels=1 --pprof=@OUT@.pb.gz --folded=@OUT@.folded
labels_1_27 1.27 cpuprofile.stp -Glabels=1 --pprof=@OUT@.pb.gz --folded=@OUT@.folded
golabels_1_19 1.19 labels.stp
golabels_1_24 1.24 labels.stp
golabels_1_27 1.27 labels.stp
allocs_1_19 1.19 allocprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded 1
allocs_1_24 1.24 allocprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded 1
allocs_1_27 1.27 allocprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded 1
allocs_runtime_1_24 1.24 allocprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded runtime
allocs_rate_1_27 1.27 allocprofile.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded 64
offcpu 1.24 offcpu.stp --pprof=@OUT@.pb.gz --folded=@OUT@.folded
funclatency 1.24 funclatency.stp
goroutines 1.24 goroutines.stp
gcpause 1.24 gcpause.stp
blocking 1.24 blocking.stp
args 1.24 args.stp
"
# arm64: every example once (E2E_ARM64_GOSTAP_RUN=0: none). Each module
# is compiled by the arm64 stap under qemu user emulation with this
# machine's cross gcc in place of the image's (E2E_CHROOT_CROSS_CC:
# measured 284 s for the nine beside the forky guest, against 923.5 s
# with the emulated gcc).
ARM64_GOSTAP_RUN=${E2E_ARM64_GOSTAP_RUN:-1}
if ! amd64; then
  GOSTAP_RUN_JOBS=$(awk '$1 ~ /^(newstack_1_27|newstack_fileline_1_24|newstack_sw_demo|cpuprofile|offcpu|funclatency|goroutines|gcpause|blocking|args)$/' <<< "$GOSTAP_RUN_JOBS")
  [ "$ARM64_GOSTAP_RUN" = 1 ] || GOSTAP_RUN_JOBS=
fi
cross_cc=0
amd64 || cross_cc=1
[ -z "${E2E_ONLY:-}" ] || GOSTAP_RUN_JOBS=$(while read -r j rest; do
  [ -n "$j" ] && only "$j" && echo "$j $rest"; done <<< "$GOSTAP_RUN_JOBS" || true)
GOSTAP_RUN_VERSIONS=$(awk 'NF { print $2 }' <<< "$GOSTAP_RUN_JOBS" | sort -u | tr '\n' ' ')
LOAD_SECONDS=${E2E_LOAD_SECONDS:-30}
only load || LOAD_SECONDS=0
# How long the pgo job's program runs: about 20,000 samples of
# cpuprofile.stp's 1 ms (perf's CPU clock, on these kernels) and 2,000 of
# runtime/pprof's 10 ms, on which check-e2e.py's tolerance for the two
# profiles' shares rests (24.6 s for the job under TCG).
PGO_SECONDS=${E2E_PGO_SECONDS:-20}
# How long the labels fixture runs: under cpuprofile.stp about 10,000
# samples of 1 ms and 1,000 of runtime/pprof's 10 ms (a label value with a
# share near 40%: standard errors 0.5 and 1.5 points); under labels.stp
# (a probe on every call of main.*) a few seconds.
LABELS_SECONDS=${E2E_LABELS_SECONDS:-10}
GOLABELS_SECONDS=${E2E_GOLABELS_SECONDS:-3}
if [ "${E2E_KEEP:-}" = 1 ]; then trap 'echo "work directory kept: $tmp" >&2' EXIT; fi

now () { date +%s.%N; }
elapsed () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# Two locks in the cache make the runs of the guests a pipeline:
# .e2e.lock, one run preparing at a time (fixtures and images in the shared
# cache, the modules compiled), and .e2e-guest.lock, one guest at a time
# (two would share two cores, and TCG's timing is what the latency checks
# measure). Each run holds one lock at a time, so a guest's preparing
# overlaps the guest before it. The runs take the preparing lock in the
# order of e2e/guests.sh (arm64, forky, trixie: arm64 first, whose
# preparing and guest are the longest chain, so its guest runs beside
# the rest of the suite rather than after it): under `make check` a run
# waits until the run before it in that order has taken the lock or ended
# (wait_turn). Measured with the cache filled (testsuite/README.md):
# forky first, arm64 prepared beside forky's guest and the other tests
# and had not booted 27 minutes into the run. The preparing runs at nice
# 0: with several guests at nice 10 forky's took 20 minutes beside
# arm64's guest and ended that run at 44.1 minutes. A guest boots at nice
# -5 (root: the test needs it anyway), ahead of those tests and of the
# next guest's preparing.
lockdir=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
mkdir -p "$lockdir"
# wait_turn: under the harness of make check (this script's output is its
# log, testsuite/run-e2e*.sh.log of the build tree), wait while the guest
# before this one in $GUESTS runs and has not printed that it prepares.
# A log older than its .trs is an earlier run's: that guest is not running.
# guest_test GUEST: the guest's test in the build tree (its .log, .trs).
guest_test () { case $1 in trixie) echo testsuite/run-e2e.sh ;; *) echo "testsuite/run-e2e-$1.sh" ;; esac; }
wait_turn () {
  local prev='' g log t0
  for g in $GUESTS; do [ "$g" = "$GUEST" ] && break; prev=$g; done
  [ -n "$prev" ] || return 0
  [ "$(readlink -f /proc/$$/fd/1)" = "$(readlink -f "$(guest_test "$GUEST").log" 2>/dev/null)" ] || return 0
  log=$(guest_test "$prev")
  t0=$(date +%s)
  # make starts the e2e tests together: give the one before a moment to start
  while [ ! -f "$log.log" ] && [ $(( $(date +%s) - t0 )) -lt 10 ]; do sleep 1; done
  while [ -f "$log.log" ] && { [ ! -f "$log.trs" ] || [ "$log.log" -nt "$log.trs" ]; } &&
        ! grep -q '^# preparing' "$log.log"; do
    sleep 2
  done
  [ $(( $(date +%s) - t0 )) -lt 3 ] || echo "# waited $(( $(date +%s) - t0 )) s for the $prev guest to start preparing"
}
wait_turn
exec 9>"$lockdir/.e2e.lock"
t0=$(date +%s)
flock 9 || hard_error "flock $lockdir/.e2e.lock failed"
[ $(( $(date +%s) - t0 )) -lt 2 ] || echo "# waited $(( $(date +%s) - t0 )) s for another run's preparing"
echo "# preparing the $GUEST guest"
t_all=$(now)

# --- fixtures -------------------------------------------------------------------
t0=$(now)
# shellcheck disable=SC2086
fixture_manifest $VERSIONS > /dev/null
# The newest toolchain's go tool pprof reads the profiles (check-e2e.py).
# shellcheck disable=SC2086
go_newest=$(need_toolchains $VERSIONS | sort -V | awk 'END { print $2 "/bin/go" }')
t_fixtures=$(elapsed "$t0" "$(now)")

# --- image ----------------------------------------------------------------------
t0=$(now)
image=$(E2E_ARCH=$ARCH "$e2e/build-image.sh") || hard_error "build-image.sh failed"
if ! amd64; then
  E2E_CROSS_IMAGE=$("$e2e/run-guest.sh" cross-image) || hard_error "run-guest.sh cross-image failed"
  export E2E_CROSS_IMAGE
fi
t_image=$(elapsed "$t0" "$(now)")
sed 's/^/image: /' "$image/info"

# --- share: binaries, tapsets, scripts ----------------------------------------------
# The guest mounts $share at this same absolute path, and the chroot sees it
# there too: the paths gostap gen writes into the tapsets hold everywhere.
share=$tmp/share
mkdir -p "$share/bin" "$share/ts" "$share/mod" "$share/out" "$share/scripts"
cp "$testsuite/../tapsets/"*.stp "$testsuite/../tapsets/"*.stpm "$share/scripts/"
cp "$e2e"/*.stp "$e2e/load.sh" "$e2e/busy-mem.sh" "$e2e/container-start.sh" "$share/scripts/"
cp -r "$e2e/bt-fileline" "$e2e/bt-symbols" "$share/scripts/"
# gen BIN -o DIR ARG...: `gostap gen`, asking the stap that compiles the
# modules (the image's, or for arm64 the cross-compiling image's:
# GOSTAP_STAP) for its libdw, not this machine's. Where that libdw is
# older than 0.191 (bookworm's 0.188) gen writes a copy of BIN with
# .debug_aranges into its cache, here on the share (the chroot reads it
# at the same path), and prints one line saying what stap by hand needs:
# --sysroot=ROOT, or for a binary whose DWARF is in a separate debug file
# SYSTEMTAP_DEBUGINFO_PATH=PATH (run-aranges.c). That line goes to
# DIR.hint, which compile_one follows, and SHARE/out/gen-hints (the
# tapset directory, the binary, the line or nothing) for check-e2e.py.
# Other output of gen goes to stderr as it came.
compile_root=$image/root
amd64 || compile_root=$E2E_CROSS_IMAGE/root
printf '#!/bin/bash\nexec chroot %q /usr/bin/stap "$@"\n' "$compile_root" > "$tmp/compile-stap"
chmod +x "$tmp/compile-stap"
# libdw_of STAP-V-LINE: the libdw version in it ("version 4.8/0.188, ...")
libdw_of () { sed -n 's|.*(version [^/]*/\([0-9]*\.[0-9]*\).*|\1|p' <<< "$1"; }
compile_libdw=$(libdw_of "$("$tmp/compile-stap" -V 2>&1 | head -1)")
guest_libdw=$(libdw_of "$(sed -n 's/^stap //p' "$image/info")")
# (A gen that writes the copy only when asked, --aranges, is asked.)
HINT_RE="stap's libdw is older than 0\.191 and needs "
gen_aranges=()
"$GOSTAP" gen --help 2>/dev/null | grep -q -- '--aranges' && gen_aranges=(--aranges)
# stap before 5.1 (bookworm's 4.8) drops records in its relay transport:
# gen --fixed-runtime copies the compiling image's runtime (named by
# SYSTEMTAP_RUNTIME: the chroot's, its kernel patch applied) into its
# cache with the fix and prints "run stap with -R DIR", into DIR.rhint,
# which compile_one follows (run-runtime.c).
RT_HINT_RE="'s relay transport drops records under load.* (fixed in 5\.1): run stap with -R "
"$GOSTAP" gen --help 2>/dev/null | grep -q -- '--fixed-runtime' && gen_aranges+=(--fixed-runtime)
gen () {
  local bin=$1 out=$3 st=0
  [ "$2" = -o ] || hard_error "gen $*: -o DIR must come second"
  GOSTAP_STAP=$tmp/compile-stap XDG_CACHE_HOME=$share/gen-cache \
    SYSTEMTAP_RUNTIME=$compile_root/usr/share/systemtap/runtime "$GOSTAP" gen "${gen_aranges[@]}" "$@" \
    2> "$out.gen-err" || st=$?
  grep -v -- "$HINT_RE" "$out.gen-err" | grep -v -- "$RT_HINT_RE" >&2 || true
  grep -- "$HINT_RE" "$out.gen-err" > "$out.hint" || true
  grep -- "$RT_HINT_RE" "$out.gen-err" > "$out.rhint" || true
  # A line about the transport that RT_HINT_RE missed (its words changed)
  # would leave the modules on stap's own runtime, silently.
  if [ ! -s "$out.rhint" ] && grep -q "relay transport" "$out.gen-err"; then
    hard_error "gen's line about stap's relay transport not understood: $(grep "relay transport" "$out.gen-err" | head -1)"
  fi
  printf '%s\t%s\t%s\n' "${out#"$share"/ts/}" "$bin" "$(head -1 "$out.hint")" >> "$share/out/gen-hints"
  rm -f "$out.gen-err"
  return "$st"
}
# The fmtvals functions e2e/fmtvals.stp probes.
FMT_GLOBS=("main.record" "main.typed*" "main.retTyped*")
mkdir -p "$share/tapsets" && mv "$share/scripts/"go_*.stp "$share/scripts/"go_*.stpm "$share/tapsets/"
for v in $VERSIONS; do
  for f in abi grow fmtvals; do
    src=$(fixture "$v" "$DEF" "$f")
    [ -n "$src" ] || hard_error "no $DEF build of $f for Go $v in the manifest"
    cp "$src" "$share/bin/$f-$v"
    globs=("main.*")
    [ "$f" = grow ] && globs+=("runtime.mallocgc")
    # (its aliases set v_fmt only for a script that reads it)
    [ "$f" = fmtvals ] && globs=(--script "$share/scripts/fmtvals.stp" "${FMT_GLOBS[@]}")
    gen "$share/bin/$f-$v" -o "$share/ts/$f-$v" "${globs[@]}" ||
      hard_error "gostap gen $f-$v failed"
  done
  # (c) pairing.stp probes main.rec's entry and return: on tapsets made
  # for it (gen --script, as gostap run makes them), the entry alias
  # records the call itself, one handler at the entry; the load job keeps
  # the plain tapsets, the pairing's own entry probe beside the alias.
  gen "$share/bin/grow-$v" -o "$share/ts/grow-$v-for-pairing" \
    --script "$share/scripts/pairing.stp" "main.*" ||
    hard_error "gostap gen --script pairing.stp grow-$v failed"
  grep -q '^  _go_pair_entry\[pid(), goid, ' "$share/ts/grow-$v-for-pairing/go_funcs.stp" ||
    hard_error "gostap gen --script pairing.stp: main.rec's entry alias records no call"
done
# (n) go_fmt on maps in buckets where Go 1.24 defaults to Swiss tables:
# the fmtvals fixture built with GOEXPERIMENT=noswissmap (x86-64 only).
NOSWISS_VERSION=
if amd64; then
  src=$(fixture 1.24 noswiss fmtvals) || hard_error "no noswiss build of fmtvals for Go 1.24"
fi
if amd64 && [ -n "$src" ]; then
  NOSWISS_VERSION=1.24
  cp "$src" "$share/bin/fmtvalsN-1.24"
  gen "$share/bin/fmtvalsN-1.24" -o "$share/ts/fmtvalsN-1.24" --script "$share/scripts/fmtvals.stp" "${FMT_GLOBS[@]}" ||
    hard_error "gostap gen fmtvalsN-1.24 failed"
fi
# (f) a -w build and a cgo build (Go $SPECIAL_VERSION): growW-V, cgo-V.
# The cgo build needs a C compiler for the architecture (build-fixtures.sh
# leaves it out without one): HAVE_CGO says whether the manifest has it.
# When it failed to build, the other jobs run and the test fails at the
# end, naming it and the reason (CGO_FAILED).
HAVE_CGO=0 CGO_FAILED=
if src=$(fixture "$SPECIAL_VERSION" "$CGO" cgo 2>/dev/null); then
  [ -z "$src" ] || HAVE_CGO=1
else
  CGO_FAILED=$(fixture_missing "$SPECIAL_VERSION" "$CGO" cgo)
  echo "FAIL: $CGO_FAILED (the cgo jobs do not run, the others do)" >&2
  failures=$((failures + 1))
fi
# The cgo build is linked here, against this machine's C library (Debian
# 12's glibc 2.36): it runs only in an image whose glibc has every symbol
# version it needs (bullseye's 2.31 has not GLIBC_2.32: the program does
# not start). Elsewhere its jobs are skipped, saying so (CGO_SKIP).
CGO_SKIP=
if [ "$HAVE_CGO" = 1 ]; then
  glibc_need=$(readelf -W -V "$src" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -V | tail -1)
  glibc_have=$(awk '$1 == "Package:" { p = ($2 == "libc6") } p && $1 == "Version:" { sub(/-.*/, "", $2); print $2; exit }' \
    "$image/root/var/lib/dpkg/status")
  if [ -n "$glibc_need" ] && [ -n "$glibc_have" ] && ! at_least "$glibc_have" "$glibc_need"; then
    HAVE_CGO=0
    CGO_SKIP="the cgo build (linked here) needs glibc $glibc_need, the $GUEST image has $glibc_have"
  fi
fi
for fv in "grow $W growW" "cgo $CGO cgo"; do
  read -r f variant name <<< "$fv"
  [ "$f" != cgo ] || [ "$HAVE_CGO" = 1 ] || continue
  src=$(fixture "$SPECIAL_VERSION" "$variant" "$f")
  [ -n "$src" ] || hard_error "no $variant build of $f for Go $SPECIAL_VERSION in the manifest"
  cp "$src" "$share/bin/$name-$SPECIAL_VERSION"
  gen "$share/bin/$name-$SPECIAL_VERSION" -o "$share/ts/$name-$SPECIAL_VERSION" "main.*" ||
    hard_error "gostap gen $name-$SPECIAL_VERSION failed"
done
# Separate debug files (split build, companions) go to SHARE/debug, where
# gostap here and stap in the chroot look (SYSTEMTAP_DEBUGINFO_PATH).
mkdir -p "$share/debug"
export SYSTEMTAP_DEBUGINFO_PATH=$share/debug
sed -i "s|@CGO_BIN@|$share/bin/cgo-$SPECIAL_VERSION|" "$share/scripts/cgo.stp"
# (k) examples/httplatency.stp on the http fixture of each release (http-V),
# with the aliases it uses: HTTP/2's writeHeader is net/http's up to Go
# 1.26 and net/http/internal/http2's from 1.27 on, which the glob covers.
cp "$testsuite/../examples/httplatency.stp" "$share/scripts/"
for v in $VERSIONS; do
  src=$(fixture "$v" "$DEF" http)
  [ -n "$src" ] || hard_error "no http fixture for Go $v in the manifest"
  cp "$src" "$share/bin/http-$v"
  gen "$share/bin/http-$v" -o "$share/ts/http-$v" --script "$share/scripts/httplatency.stp" \
    'net/http.serverHandler.ServeHTTP' \
    'net/http.(*response).WriteHeader' 'net/http*responseWriterState).writeHeader' ||
    hard_error "gostap gen http-$v failed"
done
# A stripped build with its DWARF in a separate file, as distributions ship
# it (objcopy --only-keep-debug, strip -s), found by its build id in a
# debug directory of the share (SYSTEMTAP_DEBUGINFO_PATH, for gostap here
# and for stap in the chroot): abiS-V, the abi fixture of Go V.
src=$(fixture "$SPECIAL_VERSION" "$DEF" abi)
bid=$(readelf -n "$src" | awk '/Build ID:/ { print $3; exit }')
[ -n "$bid" ] || hard_error "the abi fixture of Go $SPECIAL_VERSION has no GNU build id"
mkdir -p "$share/debug/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$src" "$share/debug/.build-id/${bid:0:2}/${bid:2}.debug"
strip -s "$src" -o "$share/bin/abiS-$SPECIAL_VERSION"
gen "$share/bin/abiS-$SPECIAL_VERSION" -o "$share/ts/abiS-$SPECIAL_VERSION" "main.*" ||
  hard_error "gostap gen abiS-$SPECIAL_VERSION (split debuginfo) failed"
# A -s -w build (no DWARF, no .symtab anywhere), probed through the
# companion debug file `gostap companion` makes from its .gopclntab, in the
# same debug directory: growSW-V, the grow fixture of Go $SW_VERSION, found
# by its GNU build id; growSN-V, the same without its build id note, found
# by name (DIR/<its path>.debug: how stap 5.1 looks up a binary with
# neither build id nor debuglink).
src=$(fixture "$SW_VERSION" "$SW" grow)
[ -n "$src" ] || hard_error "no -s -w build of grow for Go $SW_VERSION in the manifest"
cp "$src" "$share/bin/growSW-$SW_VERSION"
objcopy --remove-section .note.gnu.build-id "$src" "$share/bin/growSN-$SW_VERSION"
for b in growSW growSN; do
  "$GOSTAP" companion "$share/bin/$b-$SW_VERSION" -o "$share/debug" > /dev/null ||
    hard_error "gostap companion $b-$SW_VERSION failed"
  gen "$share/bin/$b-$SW_VERSION" -o "$share/ts/$b-$SW_VERSION" "main.*" ||
    hard_error "gostap gen $b-$SW_VERSION (companion debug file) failed"
done
[ -f "$share/debug$share/bin/growSN-$SW_VERSION.debug" ] ||
  hard_error "gostap companion wrote no $share/debug$share/bin/growSN-$SW_VERSION.debug"
# The stacks fixture (go_stack.stp): its default, -w and -s -w builds of
# every release (stacks-V, stacksW-V, stacksSW-V), each probed at the
# entry of every function where it records its own stack (the script from
# e2e/stacks-script.py, which runs the fixture here once to learn them).
# The -w and -s -w builds are probed through their companion debug files:
# the -s -w one by the GNU build id it shares with the default build, the
# -w one by name (its build id note removed: its Go build id differs from
# the -s -w build's, so the two cannot share a companion).
# place_build FIXTURE NAME V VARIANT: the manifest's VARIANT build of
# FIXTURE for Go V as bin/NAME-V (a -w build without its GNU build id),
# its companion debug file when it is not the plain build, and its tapsets
# (gen, main.*) in ts/NAME-V.
place_build () {
  local f=$1 n=$2 v=$3 variant=$4 src
  src=$(fixture "$v" "$variant" "$f")
  [ -n "$src" ] || hard_error "no $variant build of $f for Go $v in the manifest"
  if [ "$variant" = "$W" ]; then
    objcopy --remove-section .note.gnu.build-id "$src" "$share/bin/$n-$v"
  else
    cp "$src" "$share/bin/$n-$v"
  fi
  if [ "$variant" != "$DEF" ]; then
    "$GOSTAP" companion "$share/bin/$n-$v" -o "$share/debug" > /dev/null ||
      hard_error "gostap companion $n-$v failed"
  fi
  gen "$share/bin/$n-$v" -o "$share/ts/$n-$v" "main.*" ||
    hard_error "gostap gen $n-$v failed"
}
STACKS=
STACK_BUILDS=("stacks $DEF" "stacksSW $SW" "stacksW $W")
for v in $VERSIONS; do
  # arm64 before Go 1.21: the fixture cannot walk its own stack (a
  # goroutine's first frame has no valid frame pointer: run-symbolize.sh)
  amd64 || at_least "$v" 1.21 || continue
  for nv in "${STACK_BUILDS[@]}"; do
    read -r n variant <<< "$nv"
    place_build stacks "$n" "$v" "$variant"
    python3 "$e2e/stacks-script.py" "$GOSTAP" "$share/bin/$n-$v" > "$share/scripts/st_${n}_${v/./_}.stp" ||
      hard_error "stacks-script.py $n-$v failed"
    STACKS="$STACKS $n-$v"
  done
done
# (i) probes on inlined functions (amd64): the inline fixture of every
# release, its default and -s -w builds (the latter through its companion),
# whose small functions are inlined into several callers (nested, generic,
# closures, methods) and also called out of line; it counts its own calls
# ("total FUNC N"), inline_count.stp (testsuite/fixtures/inline/count.stp)
# counts go.func.FUNC hits, inlined copies and out-of-line entries
# together, and check-e2e.py compares the totals.
INLINE=
if amd64; then
  cp "$testsuite/fixtures/inline/count.stp" "$share/scripts/inline_count.stp"
  for v in $VERSIONS; do
    for nv in "inline $DEF" "inlineSW $SW"; do
      read -r n variant <<< "$nv"
      place_build inline "$n" "$v" "$variant"
      INLINE="$INLINE $n-$v"
    done
  done
fi
for vv in $GOSTAP_RUN_VERSIONS; do
  v=${vv%-sw} variant=$DEF
  [ "$v" = "$vv" ] || variant=$SW
  src=$(fixture "$v" "$variant" demo)
  [ -n "$src" ] || hard_error "no $variant demo binary for Go $v in the manifest"
  cp "$src" "$share/bin/demo-$vv"
done
# The container's program, when no gostap-run job left in by E2E_ONLY
# has its release.
if amd64 && only container && [ ! -f "$share/bin/demo-$CONTAINER_VERSION" ]; then
  src=$(fixture "$CONTAINER_VERSION" "$DEF" demo)
  [ -n "$src" ] || hard_error "no $DEF demo binary for Go $CONTAINER_VERSION in the manifest"
  cp "$src" "$share/bin/demo-$CONTAINER_VERSION"
fi
while read -r v; do
  src=$(fixture "$v" "$DEF" cpubound)
  [ -n "$src" ] || hard_error "no cpubound fixture for Go $v in the manifest"
  cp "$src" "$share/bin/cpubound-$v"
done < <(awk '$1 == "pgo" { print $2 }' <<< "$GOSTAP_RUN_JOBS")
while read -r v; do
  src=$(fixture "$v" "$DEF" labels)
  [ -n "$src" ] || hard_error "no labels fixture for Go $v in the manifest"
  cp "$src" "$share/bin/labels-$v"
done < <(awk '$1 ~ /^(go)?labels_/ { print $2 }' <<< "$GOSTAP_RUN_JOBS" | sort -u)
while read -r v; do
  src=$(fixture "$v" "$DEF" allocs)
  [ -n "$src" ] || hard_error "no allocs fixture for Go $v in the manifest"
  cp "$src" "$share/bin/allocs-$v"
done < <(awk '$1 ~ /^allocs_/ { print $2 }' <<< "$GOSTAP_RUN_JOBS" | sort -u)
FAULTS=0
if amd64 && { [ -n "$GOSTAP_RUN_JOBS" ] || [ -n "${E2E_ONLY:-}" ]; } && only faults; then
  FAULTS=1
  src=$(fixture "$FAULTS_VERSION" "$DEF" faults)
  [ -n "$src" ] || hard_error "no faults fixture for Go $FAULTS_VERSION in the manifest"
  cp "$src" "$share/bin/faults-$FAULTS_VERSION"
  src=$(fixture "$BUSY_VERSION" "$DEF" busy)
  [ -n "$src" ] || hard_error "no busy fixture for Go $BUSY_VERSION in the manifest"
  cp "$src" "$share/bin/busy-$BUSY_VERSION"
fi

# What every module of the guest is built with: no overload abort, and a
# handler waits for the script's globals' locks up to MAXTRYLOCK x 10 us
# (10 s) before stap skips it. The guest's TCG runs both vCPUs on one host
# thread, switching every 100 ms (qemu's TCG_KICK_PERIOD), so a handler
# can wait on a lock held by the vCPU that is not running; at
# MAXTRYLOCK=20000 (0.2 s) the bookworm guest's load job skipped 412
# handlers (stap -t: lock timeouts on the script's global and on
# _go_pair_entry). Skips that remain are counted by the checks.
LIMITS=(-DSTP_NO_OVERLOAD -DMAXTRYLOCK=1000000 -DMAXSKIPPED=1000000)

# --- modules ----------------------------------------------------------------------
# name script fixture version [tapset dir of the script]
# newstack backtraces: with file:line where stap 5.1's runtime reads the
# line tables (DWARF 4, Go < 1.25); symbols only for DWARF 5 (Go 1.25+),
# plus a file:line module (newstackfl_*) that shows whether it still fails.
dwarf5 () { at_least "$1" 1.25; }
jobs=()
for v in $VERSIONS; do
  if dwarf5 "$v"; then
    jobs+=("newstack_${v/./_} newstack grow $v bt-symbols" "newstackfl_${v/./_} newstack grow $v bt-fileline")
  else
    jobs+=("newstack_${v/./_} newstack grow $v bt-fileline")
  fi
  jobs+=("values_${v/./_} values abi $v" "dwarfvars_${v/./_} dwarfvars abi $v" "pairing_${v/./_} pairing grow $v")
  jobs+=("http_${v/./_} httplatency http $v" "fmt_${v/./_} fmtvals fmtvals $v")
done
jobs+=("wbuild wbuild growW $SPECIAL_VERSION" "values_split values abiS $SPECIAL_VERSION")
[ -n "$NOSWISS_VERSION" ] && jobs+=("fmt_noswiss fmtvals fmtvalsN $NOSWISS_VERSION")
[ "$HAVE_CGO" = 1 ] && jobs+=("cgo cgo cgo $SPECIAL_VERSION")
jobs+=("newstack_sw newstack growSW $SW_VERSION bt-fileline" "swbuild swbuild growSN $SW_VERSION")
for nv in $STACKS; do
  n=${nv%-*} v=${nv##*-}
  jobs+=("st_${n}_${v/./_} st_${n}_${v/./_} $n $v")
done
for nv in $INLINE; do
  n=${nv%-*} v=${nv##*-}
  jobs+=("in_${n}_${v/./_} inline_count $n $v")
done
[ "$LOAD_SECONDS" -gt 0 ] && jobs+=("load load grow $LOAD_VERSION")
if [ -n "${E2E_ONLY:-}" ]; then
  kept=()
  for j in "${jobs[@]}"; do only "${j%% *}" && kept+=("$j"); done
  jobs=(${kept[@]+"${kept[@]}"})
fi
# kept NAME: whether module job NAME is one of this run's.
kept () { local j; for j in ${jobs[@]+"${jobs[@]}"}; do [ "${j%% *}" = "$1" ] && return 0; done; return 1; }

compile_one () {
  local name=$1 script=$2 f=$3 v=$4 inc=() ts=$share/ts/$3-$4 old=() root dpath rt sc
  [ -n "${5:-}" ] && inc=(-I "$share/scripts/$5")
  # tapsets generated for this script alone, where there are (gen --script)
  [ -d "$ts-for-$script" ] && ts=$ts-for-$script
  # the script with its @go_fmt uses expanded, where it has some (gen --script)
  sc=$share/scripts/$script.stp
  [ -f "$ts/$script.stp.expanded" ] && sc=$ts/$script.stp.expanded
  # what gen said stap by hand needs on a libdw older than 0.191 (gen)
  dpath=${SYSTEMTAP_DEBUGINFO_PATH:-}
  if [ -s "$ts.hint" ]; then
    root=$(sed -n 's/.* lacks: run stap with --sysroot=\([^ ]*\) (a copy of the binary with them)$/\1/p' "$ts.hint")
    [ -n "$root" ] && old=(--sysroot="$root")
    [ -n "$root" ] || dpath=$(sed -n 's/.* lacks: run stap with SYSTEMTAP_DEBUGINFO_PATH=\([^ ]*\) (a copy of it with them first)$/\1/p' "$ts.hint")
    [ -n "$root" ] || [ -n "$dpath" ] || { echo "$name: gostap gen's line for an old libdw not understood: $(cat "$ts.hint")" >&2; return 1; }
  fi
  # and on a stap before 5.1, the runtime with the relay fix (gen)
  if [ -s "$ts.rhint" ]; then
    rt=$(sed -n 's/.* run stap with -R \([^ ]*\) (a copy of its runtime with the fix)$/\1/p' "$ts.rhint")
    [ -n "$rt" ] || { echo "$name: gostap gen's line for stap's relay transport not understood: $(cat "$ts.rhint")" >&2; return 1; }
    old+=(-R "$rt")
  fi
  SYSTEMTAP_DEBUGINFO_PATH=$dpath "$e2e/run-guest.sh" compile "$image" "$share" "$name" "$sc" \
    -g "${old[@]}" -d "$share/bin/$f-$v" -I "$ts" -I "$share/tapsets" "${inc[@]}" \
    "${LIMITS[@]}"
}
t0=$(now)
# The first compile also fills the chroot's stap cache (autoconf tests);
# then two at a time (two cores).
set -- ${jobs[@]+"${jobs[@]}"}
if [ $# -gt 0 ]; then
  compile_one $1 || hard_error "module $1 does not compile"
  shift
fi
while [ $# -gt 0 ]; do
  pids=() names=()
  for j in "$1" "${2:-}"; do
    [ -n "$j" ] || continue
    compile_one $j & pids+=($!) names+=("${j%% *}")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || {
      st=$?
      tail -20 "$share/mod/${names[$i]}.log" >&2 2>/dev/null || true
      hard_error "module ${names[$i]} does not compile (exit $st; log $share/mod/${names[$i]}.log)"
    }
  done
  shift; [ $# -gt 0 ] && shift
done
t_compile=$(elapsed "$t0" "$(now)")

# --- gostap in the image: build, gostap run -p4 -------------------------------------
. "$e2e/gostap-run.sh"
# The command of the guest for a job (the chroot adds -p4 -r KVER).
# gostap_run_args NAME VERSION SCRIPT [ARG...]: sets gr_args; the
# --pprof=/--folded= arguments go before the script, @OUT@ made the job's
# output path (and -G options with them). The program is the demo, for the pgo job the cpubound
# fixture with the path of its own profile and its seconds.
gostap_run_args () {
  local name=$1 v=$2 script=$3 a opts=() args=() prog="$share/bin/demo-$2 3"
  [ "$name" != pgo ] ||
    prog="$share/bin/cpubound-$v $share/out/gostap_run_$name.go.pb.gz $PGO_SECONDS"
  case $name in
    labels_*) prog="$share/bin/labels-$v $share/out/gostap_run_$name.go.pb.gz $LABELS_SECONDS" ;;
    golabels_*) prog="$share/bin/labels-$v $share/out/gostap_run_$name.go.pb.gz $GOLABELS_SECONDS" ;;
    allocs_*) prog="$share/bin/allocs-$v" ;;
  esac
  shift 3
  for a in "$@"; do
    case $a in
      --pprof=*|--folded=*|-G*) opts+=("${a//@OUT@/$share/out/gostap_run_$name}") ;;
      *) args+=("$a") ;;
    esac
  done
  gr_args=(-c "$prog" "${LIMITS[@]}" "${opts[@]}" "examples/$script" "${args[@]}")
}
t_gbuild=0 t_gcompile=0
if [ -n "$GOSTAP_RUN_JOBS" ]; then
t0=$(now)
builddir=$(cd "$(dirname "$GOSTAP")/.." && pwd)
gr_prepare "$image" "$share" "$builddir" || hard_error "gostap does not build in the image"
t_gbuild=$(elapsed "$t0" "$(now)")
t0=$(now)
while read -r name v script args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  gostap_run_args "$name" "$v" "$script" $args
  E2E_CHROOT_CROSS_CC=$cross_cc gr_compile "$image" "$share" "$share/mod/gostap_run_$name.log" "${gr_args[@]}" ||
    hard_error "gostap run -p4 $script (Go $v) fails in the image"
done <<< "$GOSTAP_RUN_JOBS"
. "$e2e/faults.sh"
[ "$FAULTS" = 0 ] ||
  faults_compile "$image" "$share" "$share/bin/faults-$FAULTS_VERSION" "$share/scripts/faults.stp" \
    "$share/scripts/faults-stacks.stp" || hard_error "gostap run -p4 of the faults job fails in the image"
. "$e2e/unpriv.sh"
[ "$FAULTS" = 0 ] ||
  unpriv_compile "$image" "$share" "$share/bin/faults-$FAULTS_VERSION" "$share/scripts/faults.stp" ||
  hard_error "the unprivileged job's modules do not compile in the image"
# busy_args: gr_args of the busy job (the FAULTS condition: x86-64, with
# the gostap-run jobs).
busy_args () {
  gr_args=(-c "$share/bin/busy-$BUSY_VERSION $BUSY_SECONDS $BUSY_GOROUTINES $BUSY_PAUSE_MS"
           "${LIMITS[@]}" "$share/scripts/busy.stp")
}
if [ "$FAULTS" = 1 ]; then
  busy_args
  gr_compile "$image" "$share" "$share/mod/gostap_run_busy.log" "${gr_args[@]}" ||
    hard_error "gostap run -p4 of the busy job fails in the image"
fi
t_gcompile=$(elapsed "$t0" "$(now)")
fi

# What gostap does not promise for the cgo build: refused by the image's
# gostap, against its stap, with one line (checked by check-e2e.py).
refusal () {
  local name=$1 bin=$2 st=0
  shift 2
  ( cd "$share" && "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
      gostap run -p2 -r "$(sed -n 's/^kernel //p' "$image/info")" -t "$share/bin/$bin" \
      -e "$*" ) >"$share/out/$name.refusal" 2>&1 || st=$?
  echo "$st" > "$share/out/$name.refusal-rc"
}
# The -w build: gostap run writes its companion debug file into the
# chroot's cache, and return probes pass -p2 (check-e2e.py: exit 0); where
# gostap is built in the image.
[ -z "$GOSTAP_RUN_JOBS" ] || refusal wbuild "growW-$SPECIAL_VERSION" 'probe go.func.main.rec.return { println(go_latency_ns) }'

[ "$HAVE_CGO" = 0 ] || [ -z "$GOSTAP_RUN_JOBS" ] ||
  refusal cgo "cgo-$SPECIAL_VERSION" 'probe go.func.cmul { println(1) }'

# The split build (abiS) through `gostap run` in the guest, its debug file
# found where distributions put it: under the guest's /usr/lib/debug
# (values_usrlib) and from a debuginfod on the guest's loopback
# (values_dbgd). In the chroot the module is compiled with the debug file
# named in SYSTEMTAP_DEBUGINFO_PATH; stap's cache key has no debuginfo
# path, so the guest's stap, which finds the file its own way at pass 2,
# uses that module. stap writes to split.stap (-o: the same options in
# both), renamed per job in the guest.
split_args () {
  gr_args=(-c "$share/bin/abiS-$SPECIAL_VERSION" -o "$share/out/split.stap"
           "${LIMITS[@]}"
           "$share/scripts/values.stp")
}
split_args
# (where gostap is built in the image: not with E2E_ARM64_GOSTAP_RUN=0)
# shellcheck disable=SC2046
[ -z "$GOSTAP_RUN_JOBS" ] || ! only split || ( cd "$share/gostap/share/gostap" &&
  E2E_CHROOT_CROSS_CC=$cross_cc "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
    SYSTEMTAP_DEBUGINFO_PATH="$share/debug" \
    gostap run -p4 -r "$(sed -n 's/^kernel //p' "$image/info")" "${gr_args[@]}" ) \
  > "$share/mod/gostap_run_split.log" 2>&1 ||
  { tail -20 "$share/mod/gostap_run_split.log" >&2; hard_error "gostap run -p4 of the split build fails in the image"; }
# split_lines SHARE BUILD-ID: the guest.sh lines of values_usrlib and
# values_dbgd (NAME.list: gostap list --json there; NAME.prog, .err, .rc,
# .time, .ko-before, .ko-after, .stap).
split_lines () {
  local s=$1 bid=$2 q
  split_args
  q=$(printf ' %q' "${gr_args[@]}")
  cat <<EOF
( o=\$S/out
  dbg=\$S/debug/.build-id/${bid:0:2}/${bid:2}.debug
  split () {
    local name=\$1 st=0 t0
    shift
    env $(gr_env "$s") "\$@" gostap list --json "\$S/bin/abiS-$SPECIAL_VERSION" > "\$o/\$name.list" 2> "\$o/\$name.list-err"
    find "\$S/stapdir" -name '*.ko' | sort > "\$o/\$name.ko-before"
    t0=\$(date +%s.%N)
    ( cd "\$S/gostap/share/gostap" &&
      timeout -k 10 600 env $(gr_env "$s") "\$@" gostap run$q ) > "\$o/\$name.prog" 2> "\$o/\$name.err" || st=\$?
    echo "\$st" > "\$o/\$name.rc"
    mv "\$o/split.stap" "\$o/\$name.stap" 2>/dev/null
    awk -v a="\$t0" -v b="\$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "\$o/\$name.time"
    find "\$S/stapdir" -name '*.ko' | sort > "\$o/\$name.ko-after"
    echo "guest: \$name (gostap run, split debuginfo) exit \$st in \$(cat "\$o/\$name.time") s"
  }
  mkdir -p /usr/lib/debug/.build-id/${bid:0:2}
  cp "\$dbg" /usr/lib/debug/.build-id/${bid:0:2}/
  split values_usrlib
  rm -f /usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
  ip link set lo up
  mkdir -p /tmp/served && cp "\$dbg" /tmp/served/abiS.debug
  debuginfod -F -p 8002 -d /tmp/dbgd.sqlite -t 0 -g 0 /tmp/served > "\$o/debuginfod.log" 2>&1 &
  srv=\$!
  python3 -c '
import sys, time, urllib.request
deadline = time.time() + 300
while True:
    try:
        urllib.request.urlopen("http://127.0.0.1:8002/buildid/$bid/debuginfo", timeout=10).read(1)
        break
    except Exception:
        if time.time() > deadline:
            sys.exit(1)
        time.sleep(0.5)' || echo "debuginfod not ready after 300 s" >> "\$o/debuginfod.log"
  split values_dbgd DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH=/tmp/dcache
  kill \$srv )
EOF
}


# The container job: the demo as a container runtime runs it, in a mount
# namespace of its own whose root is a tmpfs (e2e/container-start.sh): its
# program is /app/demo there, and /proc/PID/exe reads /app/demo from here
# too, which names no file here. Probed with `gostap run -x PID`. stap's
# module cache key has -x PID, and compiling in the guest takes longer than
# its time limit under TCG (measured: pass 3 384 s, pass 4 over 500 s), so
# the image's chroot starts the same container with a process id chosen
# free there (ns_last_pid), compiles with `gostap run -p4 -x PID`, and the
# guest starts its container with that id ($share/container.pid).
# amd64 only: in an arm64 image's chroot the container's program runs
# under qemu user emulation, and its /proc/PID/exe then reads
# /usr/bin/qemu-aarch64-static (measured), not the program gostap run -x
# reads and checks.
container_args () {
  gr_args=(-x "$1" -v "${LIMITS[@]}"
           "$share/scripts/container.stp")
}
container_args PID
if amd64 && only container; then
# shellcheck disable=SC2016,SC2046
( cd "$share/gostap/share/gostap" &&
  "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") /bin/bash -c '
    share=$1 bin=$2 kver=$3
    shift 3
    for p in 30011 30211 30411 30611 30811 31011 31211 31411; do
      ctr=$(bash "$share/scripts/container-start.sh" "$p" "$bin" /tmp/ctr.out) && break
    done
    [ -n "$ctr" ] || { echo "no free process id for the container"; exit 1; }
    echo "$ctr" > "$share/container.pid"
    st=0
    gostap run -p4 -r "$kver" -x "$ctr" "$@" || st=$?
    kill "$ctr"
    exit "$st"' _ "$share" "$share/bin/demo-$CONTAINER_VERSION" \
      "$(sed -n 's/^kernel //p' "$image/info")" "${gr_args[@]:2}" ) \
  > "$share/mod/gostap_run_container.log" 2>&1 ||
  { tail -20 "$share/mod/gostap_run_container.log" >&2; hard_error "gostap run -p4 -x PID of the container fails in the image"; }
fi # amd64 && only container
# container_lines SHARE VERSION: its guest.sh lines. Outputs:
# container.exe (readlink of /proc/PID/exe, and whether that path is a
# file here), container.cmd, .transcript, .rc, .time, .ko-before/-after.
container_lines () {
  local s=$1 v=$2 q
  container_args PID
  q=$(printf ' %q' "${gr_args[@]:2}")
  cat <<EOF
( o=\$S/out/container
  want=\$(cat "\$S/container.pid")
  ctr=\$(bash "\$S/scripts/container-start.sh" "\$want" "\$S/bin/demo-$v" "\$o.prog") || ctr=
  exe=\$(readlink "/proc/\$ctr/exe")
  if [ -e "\$exe" ]; then here=file; else here=none; fi
  echo "\$exe \$here \$want \$ctr" > "\$o.exe"
  cd "\$S/gostap/share/gostap"
  echo "gostap run -x \$ctr$q" > "\$o.cmd"
  find "\$S/stapdir" -name '*.ko' | sort > "\$o.ko-before"
  t0=\$(date +%s.%N) st=0
  timeout -k 10 600 env $(gr_env "$s") gostap run -x "\$ctr"$q > "\$o.transcript" 2>&1 || st=\$?
  echo "\$st" > "\$o.rc"
  awk -v a="\$t0" -v b="\$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "\$o.time"
  find "\$S/stapdir" -name '*.ko' | sort > "\$o.ko-after"
  kill \$ctr 2>/dev/null
  echo "guest: container (gostap run -x \$ctr) exit \$st in \$(cat "\$o.time") s" )
EOF
}

# --- the guest's script ---------------------------------------------------------------
{
  # binaries on a tmpfs over bin/ (see gr_guest_prologue)
  gr_guest_prologue "$share"
  cat <<'EOF'
stamp () { date +%s.%N; }
# run NAME MODULE LIMIT CMD: staprun MODULE with CMD, stap's output in
# out/NAME.stap, CMD's in out/NAME.prog, staprun's stderr in out/NAME.err.
run () {
  local name=$1 mod=$2 limit=$3 st=0 t0
  shift 3
  t0=$(stamp)
  timeout -k 10 "$limit" staprun -o "$S/out/$name.stap" -c "$*" "$S/mod/$mod.ko" \
    > "$S/out/$name.prog" 2> "$S/out/$name.err" || st=$?
  echo "$st" > "$S/out/$name.rc"
  awk -v a="$t0" -v b="$(stamp)" 'BEGIN { printf "%.1f\n", b - a }' > "$S/out/$name.time"
  echo "guest: $name exit $st in $(cat "$S/out/$name.time") s"
}
EOF
  for v in $VERSIONS; do
    u=${v/./_}
    echo "\"\$S/bin/abi-$v\" > \"\$S/out/base_abi_$u.prog\" 2>&1; echo \$? > \"\$S/out/base_abi_$u.rc\""
    echo "\"\$S/bin/grow-$v\" > \"\$S/out/base_grow_$u.prog\" 2>&1; echo \$? > \"\$S/out/base_grow_$u.rc\""
    ! kept "newstack_$u" || echo "run newstack_$u newstack_$u 240 \"\$S/bin/grow-$v\""
    ! kept "newstackfl_$u" || echo "run newstackfl_$u newstackfl_$u 240 \"\$S/bin/grow-$v\""
    ! kept "values_$u" || echo "run values_$u values_$u 240 \"\$S/bin/abi-$v\""
    ! kept "dwarfvars_$u" || echo "run dwarfvars_$u dwarfvars_$u 240 \"\$S/bin/abi-$v\""
    ! kept "pairing_$u" || echo "run pairing_$u pairing_$u 240 \"\$S/bin/grow-$v\""
    # (the fixture serves and connects on the loopback, down at boot)
    echo "ip link set lo up"
    ! kept "http_$u" || echo "run http_$u http_$u 240 \"\$S/bin/http-$v\""
    ! kept "fmt_$u" || echo "run fmt_$u fmt_$u 240 \"\$S/bin/fmtvals-$v\""
  done
  while read -r name v script args; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086
    gostap_run_args "$name" "$v" "$script" $args
    gr_guest_lines "$share" "gostap_run_$name" 600 "${gr_args[@]}"
  done <<< "$GOSTAP_RUN_JOBS"
  [ "$FAULTS" = 0 ] ||
    faults_guest_lines "$share" "$share/bin/faults-$FAULTS_VERSION" "$share/scripts/faults.stp" \
      "$share/scripts/faults-stacks.stp"
  [ "$FAULTS" = 0 ] || unpriv_guest_lines "$share" "$share/bin/faults-$FAULTS_VERSION"
  if [ "$FAULTS" = 1 ]; then
    busy_args
    echo "bash \"\$S/scripts/busy-mem.sh\" \"\$S/out/gostap_run_busy.mem\" & busymem=\$!"
    gr_guest_lines "$share" gostap_run_busy $((BUSY_SECONDS + 600)) "${gr_args[@]}"
    echo "touch \"\$S/out/gostap_run_busy.mem.stop\"; wait \$busymem"
  fi
  echo "\"\$S/bin/growW-$SPECIAL_VERSION\" > \"\$S/out/base_wbuild.prog\" 2>&1"
  ! kept wbuild || echo "run wbuild wbuild 240 \"\$S/bin/growW-$SPECIAL_VERSION\""
  ! kept cgo || echo "run cgo cgo 240 \"\$S/bin/cgo-$SPECIAL_VERSION\""
  echo "\"\$S/bin/abiS-$SPECIAL_VERSION\" > \"\$S/out/base_abi_split.prog\" 2>&1; echo \$? > \"\$S/out/base_abi_split.rc\""
  ! kept values_split || echo "run values_split values_split 240 \"\$S/bin/abiS-$SPECIAL_VERSION\""
  ! kept fmt_noswiss || echo "run fmt_noswiss fmt_noswiss 240 \"\$S/bin/fmtvalsN-$NOSWISS_VERSION\""
  ! kept newstack_sw || echo "run newstack_sw newstack_sw 240 \"\$S/bin/growSW-$SW_VERSION\""
  ! kept swbuild || echo "run swbuild swbuild 240 \"\$S/bin/growSN-$SW_VERSION\""
  for nv in $STACKS; do
    n=${nv%-*} v=${nv##*-}
    ! kept "st_${n}_${v/./_}" || echo "run st_${n}_${v/./_} st_${n}_${v/./_} 240 \"\$S/bin/$nv\""
  done
  for nv in $INLINE; do
    n=${nv%-*} v=${nv##*-}
    ! kept "in_${n}_${v/./_}" || echo "run in_${n}_${v/./_} in_${n}_${v/./_} 240 \"\$S/bin/$nv\" 1000"
  done
  amd64 && only container && container_lines "$share" "$CONTAINER_VERSION"
  [ -z "$GOSTAP_RUN_JOBS" ] || ! only split || split_lines "$share" "$bid"
  [ "$LOAD_SECONDS" -gt 0 ] && echo "run load load $((LOAD_SECONDS + 240)) \"\$S/scripts/load.sh\" \"\$S/bin/grow-$LOAD_VERSION\" $LOAD_SECONDS \"\$S/out/load.runs\""
  echo 'dmesg > "$S/out/dmesg.txt" 2>&1 || true'
  echo 'echo "guest: done"'
} > "$share/guest.sh"
chmod +x "$share/guest.sh"

# --- boot ---------------------------------------------------------------------------
flock -u 9
renice -n -5 -p $$ >/dev/null || hard_error "renice failed"
exec 8>"$lockdir/.e2e-guest.lock"
t0=$(now)
flock 8 || hard_error "flock $lockdir/.e2e-guest.lock failed"
t_wait=$(elapsed "$t0" "$(now)")
t0=$(now)
st=0
# How long the guest may take before it counts as hung: the arm64 guest
# (TCG emulating another architecture) took 997-1335 s beside the rest of
# the suite (testsuite/README.md, "Measured times") and 1500 s was not
# enough on a busy host (a clean clone of beb0cd5 beside other work,
# 2026-11-29: killed after the stacks jobs, every job before them exit 0,
# the gostap run jobs 58-109 s each). The amd64 guests take 909-1444 s
# beside the rest of the suite with the 60 s busy job (stops 53 and 54):
# 1800 s. The long run's busy job runs BUSY_SECONDS (300), and the limit
# grows by twice the seconds beyond 60 (the job runs under its probes on a
# loaded TCG host): at 1500 s the long run of 2ee171f (cold, four guests
# and the suite on the 2 cores, 2026-12-04) lost forky and trixie (killed
# in the busy job) and bookworm (killed after its inline jobs, at 1500 s),
# every job before exit 0.
guest_limit=$((1800 + 2 * (BUSY_SECONDS - 60)))
amd64 || guest_limit=2400
"$e2e/run-guest.sh" boot "$image" "$share" "${E2E_GUEST_TIMEOUT:-$guest_limit}" || st=$?
t_guest=$(elapsed "$t0" "$(now)")
flock -u 8
case $st in
  0) ;;
  77) skip "qemu cannot start here" ;;
  1) echo "guest.sh failed:" >&2; cat "$share/guest.log" >&2; hard_error "the guest's script failed" ;;
  *) hard_error "the guest hung or died (see the console above)" ;;
esac
sed 's/^/  /' "$share/guest.log"
boot_s=$(sed -n 's/^.*gostap-init: share mounted.* at \([0-9.]*\) .*/\1/p' "$share/console.log")
run_s=$(sed -n 's/^.*gostap-init: guest.sh exited .* at \([0-9.]*\) .*/\1/p' "$share/console.log")

# --- checks ---------------------------------------------------------------------------
st=0
amd64 || CONTAINER_VERSION=
E2E_ONLY=${E2E_ONLY:-} E2E_FAULTS=$FAULTS E2E_FAULTS_VERSION=$FAULTS_VERSION E2E_BUSY_SECONDS=$BUSY_SECONDS E2E_BUSY_GOROUTINES=$BUSY_GOROUTINES E2E_CGO=$HAVE_CGO E2E_CGO_FAILED=$CGO_FAILED E2E_CGO_SKIP=$CGO_SKIP E2E_ARCH=$ARCH E2E_ARM64_GOSTAP_RUN=$ARM64_GOSTAP_RUN E2E_LOAD_SECONDS=$LOAD_SECONDS E2E_GOSTAP_RUN="$(awk 'NF { print $1 }' <<< "$GOSTAP_RUN_JOBS" | tr '\n' ' ')" \
  E2E_DEMO_SRC="$testsuite/../examples/demo/main.go" E2E_CPUBOUND_SRC="$testsuite/fixtures/cpubound" E2E_SPLIT_VERSION=$SPECIAL_VERSION E2E_SW_VERSION=$SW_VERSION E2E_NOSWISS_VERSION=$NOSWISS_VERSION \
  E2E_CONTAINER_VERSION=$CONTAINER_VERSION E2E_GOSTAP=$GOSTAP E2E_BIN_DIR=$share/bin \
  E2E_STACKS="$STACKS" E2E_INLINE="$INLINE" E2E_GO=$go_newest E2E_COMPILE_LIBDW=$compile_libdw \
  E2E_GUEST_LIBDW=$guest_libdw E2E_DEBUG_DIR=$share/debug \
  python3 "$e2e/check-e2e.py" "$share/out" $VERSIONS || st=$?
echo "timings: fixtures ${t_fixtures} s, image ${t_image} s, module compile ${t_compile} s" \
     "(${#jobs[@]} modules), gostap build in the image ${t_gbuild} s, gostap run -p4" \
     "${t_gcompile} s ($(grep -c . <<< "$GOSTAP_RUN_JOBS") modules), guest ${t_guest} s (boot to init script ${boot_s:-?} s," \
     "tests $(awk -v a="${boot_s:-0}" -v b="${run_s:-0}" 'BEGIN { printf "%.1f", b - a }') s)," \
     "waited for the other guest ${t_wait} s, total $(elapsed "$t_all" "$(now)") s"
[ "$st" = 0 ] || [ "$st" = 1 ] || hard_error "check-e2e.py failed (exit $st)"
if [ -n "$CGO_FAILED" ]; then
  echo "FAIL: $CGO_FAILED" >&2
  st=1
fi
exit "$st"
