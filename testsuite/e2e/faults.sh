# shellcheck shell=bash
# faults.sh: sourced by run-e2e.sh after gostap-run.sh: the faults job of
# issue 38, in the guest, on the faults fixture (testsuite/fixtures/faults)
# and e2e/faults.stp, through gostap as a user runs it. Three sessions:
#
# 1. `gostap run -t BIN faults.stp` (by path, every process of the binary)
#    while, one after the other: a `faults forever` process is killed with
#    SIGKILL mid-run; `faults run` runs to its end; `faults spawn` runs
#    three children of the same binary beside itself; `faults exec` runs,
#    then execs itself. Then SIGTERM to gostap (passed on to stap, which
#    runs its end probe). check-e2e.py compares each process's calls and
#    goroutine ids with the program's own lines, every return paired, and
#    no entry left (the killed process's dropped when it ended).
# 2. stap killed (SIGKILL) while its probes are live on a running
#    `faults run`: the program runs to its end with the right results (no
#    SIGTRAP: the uprobes went with the module); what is left of stap's
#    processes and modules is recorded; then a second gostap run works.
# 3. gostap killed (SIGKILL) while stap runs `faults run` under -c, with
#    faults.stp (its output straight to the transcript) and, 3s, with
#    faults-stacks.stp (its output through gostap, which expands stacks):
#    what becomes of stap, the program and the module, recorded after 30 s.
#
# Every output goes to SHARE/out/faults_*: NAME.out (the program's
# stdout), NAME.rc, the gostap transcripts, ps and lsmod listings.

# faults_args BIN SCRIPT [CMD]: sets fa, the gostap run arguments of a
# session: by path (-t BIN), or with -c CMD; the same in the chroot's -p4
# and in the guest, so that the guest finds the module compiled in the
# chroot (the share has the same path in both).
faults_args () {
  if [ -n "${3:-}" ]; then fa=(-c "$3"); else fa=(-t "$1"); fi
  fa+=("${LIMITS[@]}" "$2")
}
# The -c commands of sessions 2 and 3.
faults_cmd2 () { echo "$1 run 50 4"; }
faults_cmd3 () { echo "$1 run 8000 4"; }
# faults_compile IMAGE SHARE BIN SCRIPT STACKS-SCRIPT: the four modules,
# in the chroot.
faults_compile () {
  local c
  for c in "" "$(faults_cmd2 "$3")" "$(faults_cmd3 "$3")"; do
    faults_args "$3" "$4" "$c"
    gr_compile "$1" "$2" "$2/mod/faults${c:+_c${#c}}.log" "${fa[@]}" || return 1
  done
  faults_args "$3" "$5" "$(faults_cmd3 "$3")"
  gr_compile "$1" "$2" "$2/mod/faults_stacks.log" "${fa[@]}"
}

# faults_guest_lines SHARE BIN SCRIPT STACKS-SCRIPT: the guest.sh lines.
faults_guest_lines () {
  local share=$1 bin=$2 script=$3 t c2 c3 c3s
  faults_args "$bin" "$script"; t=$(printf ' %q' "${fa[@]}")
  faults_args "$bin" "$script" "$(faults_cmd2 "$bin")"; c2=$(printf ' %q' "${fa[@]}")
  faults_args "$bin" "$script" "$(faults_cmd3 "$bin")"; c3=$(printf ' %q' "${fa[@]}")
  faults_args "$bin" "$4" "$(faults_cmd3 "$bin")"; c3s=$(printf ' %q' "${fa[@]}")
  cat <<EOF
( cd "\$S/gostap/share/gostap"
  o=\$S/out/faults
  b=$bin
  export $(gr_env "$share")
  # wait_for FILE: until FILE has the script's "faults: ready" (120 s).
  wait_for () {
    local i
    for i in \$(seq 240); do
      grep -q '^faults: ready' "\$1" 2>/dev/null && return 0
      sleep 0.5
    done
    echo "guest: faults: no 'faults: ready' in \$1 after 120 s"; return 1
  }
  # wait_live: until stapio and the program run (120 s).
  wait_live () {
    local i
    for i in \$(seq 240); do
      pgrep -x stapio >/dev/null && pgrep '^faults' >/dev/null && return 0
      sleep 0.5
    done
    echo "guest: faults: no stapio and program after 120 s"; return 1
  }
  mods () { grep '^stap_' /proc/modules | cut -d' ' -f1 | sort; }
  procs () { ps -eo pid,ppid,stat,comm | awk 'NR == 1 || \$4 ~ /^(stap|staprun|stapio|gostap|faults)\$/'; }

  # 1. by path: killed, run, spawn, exec
  mods > "\${o}_1.mods-before"
  gostap run$t > "\${o}_1.transcript" 2>&1 & gp=\$!
  if wait_for "\${o}_1.transcript"; then
    "\$b" forever 8 > "\${o}_killed.out" 2>&1 & k=\$!
    sleep 3
    kill -9 \$k; wait \$k; echo \$? > "\${o}_killed.rc"
    "\$b" run 200 8 > "\${o}_run.out" 2>&1; echo \$? > "\${o}_run.rc"
    "\$b" spawn 3 100 4 > "\${o}_spawn.out" 2>&1; echo \$? > "\${o}_spawn.rc"
    "\$b" exec 100 4 > "\${o}_exec.out" 2>&1; echo \$? > "\${o}_exec.rc"
    sleep 1
  fi
  kill -TERM \$gp; st=0; timeout 120 tail --pid=\$gp -f /dev/null; wait \$gp || st=\$?
  echo \$st > "\${o}_1.rc"
  sleep 2; mods > "\${o}_1.mods-after"
  echo "guest: faults 1 (by path) exit \$st"

  # 2. stap killed
  gostap run$t > "\${o}_2.transcript" 2>&1 & gp=\$!
  if wait_for "\${o}_2.transcript"; then
    "\$b" run 8000 4 > "\${o}_stapkill.out" 2>&1 & t=\$!
    sleep 3
    procs > "\${o}_2.ps-before"
    mods > "\${o}_2.mods-before"
    pkill -9 -x stap
    wait \$t; echo \$? > "\${o}_stapkill.rc"
  fi
  st=0; timeout 60 tail --pid=\$gp -f /dev/null || kill -9 \$gp; wait \$gp || st=\$?
  echo \$st > "\${o}_2.rc"
  sleep 5; procs > "\${o}_2.ps-after"; mods > "\${o}_2.mods-after"
  # the second run: -c, to its end
  st=0
  timeout -k 10 300 gostap run$c2 > "\${o}_2b.transcript" 2>&1 || st=\$?
  echo \$st > "\${o}_2b.rc"
  echo "guest: faults 2 (stap killed) program \$(cat "\${o}_stapkill.rc" 2>/dev/null), second run exit \$st"

  # 3. gostap killed, with a script whose output goes straight to the
  # transcript (3) and with one whose output goes through gostap (3s)
  for n in 3 3s; do
    if [ \$n = 3 ]; then
      gostap run$c3 > "\${o}_\$n.transcript" 2>&1 & gp=\$!
    else
      gostap run$c3s > "\${o}_\$n.transcript" 2>&1 & gp=\$!
    fi
    # 3s: gostap's own output to a file comes in blocks, so its "ready"
    # can arrive after the program's end (a loaded host, 2026-12-02:
    # only stap left in the listing): there, the session's processes.
    if { [ \$n = 3 ] && wait_for "\${o}_\$n.transcript"; } ||
       { [ \$n = 3s ] && wait_live; }; then
      sleep 2
      procs > "\${o}_\$n.ps-before"
      kill -9 \$gp
    fi
    wait \$gp; echo \$? > "\${o}_\$n.rc"
    sleep 30
    procs > "\${o}_\$n.ps-after"; mods > "\${o}_\$n.mods-after"
    echo "guest: faults \$n (gostap killed): \$(tail -n +2 "\${o}_\$n.ps-after" | wc -l) processes, \$(wc -l < "\${o}_\$n.mods-after") modules left"
  done )
EOF
}
