# shellcheck shell=bash
# unpriv.sh: sourced by run-e2e.sh after faults.sh: the unprivileged job of
# issue 38 (the x86-64 guests, with the faults job), on the faults fixture.
# In the guest a user `gouser`, a member of stapusr alone (not stapdev),
# loads modules an administrator compiled (here: in the image's chroot, as
# root) and installed under /lib/modules/KVER/systemtap, the one place
# from which staprun lets a stapusr member load a module by name:
#
#  A. the administrator's module: `gostap run -p4 -m gostap_unpriv_a -t BIN
#     faults.stp` (the go.func aliases, their returns paired; with -g where
#     gostap adds it). gouser runs `staprun -c 'BIN run N G'
#     gostap_unpriv_a`: the calls of gouser's process, all paired, by its
#     own goroutine ids, as the program says.
#  B. stap's unprivileged mode: `gostap run -p4 --unprivileged -m
#     gostap_unpriv_b -t BIN unpriv.stp`, a probe at main.work's entry
#     address (its first line-table row, before the stack check: the
#     go.func aliases' addresses need -g there, README) with gostap's
#     goroutine context and Go stack. gouser runs `staprun -c ...` while
#     root runs the same binary: gouser's process is seen (its calls, more
#     when the stack check grows the stack and the entry runs again, by its
#     goroutine ids, with a Go stack), root's not at all. Then gouser's
#     `staprun -x ROOT-PID gostap_unpriv_b`, with root's process running:
#     stap sees nothing of it.
#  C. gouser's `gostap run -x ROOT-PID`: refused in one line before stap.
#
# Outputs in SHARE/out: unpriv.id, unpriv_{a,b,bx}.{out,err,rc}, the
# programs' outputs unpriv_{b,bx}_root.out, unpriv_c.{out,rc}.

UNPRIV_RUN="run 200 4"

# unpriv_script BIN ENTRY OUT: write B's script, probing BIN at ENTRY.
unpriv_script () {
  cat > "$3" <<EOF
// unpriv.stp (made by e2e/unpriv.sh): stap --unprivileged, a probe at
// main.work's entry address, gostap's goroutine context and Go stack.
global calls, gids, stack
probe begin { printf("unpriv: ready\\n") }
probe process("$1").statement($2)
{
	calls[pid()]++
	gids[pid(), go_goid()] = 1
	if (!([pid()] in stack))
		stack[pid()] = go_stack()
}
probe end
{
	foreach (p+ in calls) {
		s = ""
		foreach ([q, g+] in gids[p, *])
			s .= (s == "" ? "" : ",") . sprint(g)
		printf("unpriv: stap pid %d calls %d goroutines %s\\n", p, calls[p], s)
		printf("unpriv: stap pid %d stack %s\\n", p, stack[p])
	}
	printf("unpriv: end\\n")
}
EOF
}

# unpriv_compile IMAGE SHARE BIN FAULTS-SCRIPT: the two modules, in the
# chroot, written to SHARE/mod (stap -m writes NAME.ko where it runs).
unpriv_compile () {
  local image=$1 share=$2 bin=$3 entry kver
  entry=$("$GOSTAP" list --json "$bin" main.work |
          python3 -c 'import json, sys; print([f["entry"] for f in json.load(sys.stdin)["functions"] if f["name"] == "main.work"][0])') ||
    { echo "unpriv.sh: no entry of main.work in $bin" >&2; return 1; }
  unpriv_script "$bin" "$entry" "$share/scripts/unpriv.stp"
  kver=$(sed -n 's/^kernel //p' "$image/info")
  # shellcheck disable=SC2046
  ( cd "$share/mod" &&
    "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
      gostap run -p4 -r "$kver" -m gostap_unpriv_a -t "$bin" "${LIMITS[@]}" "$4" &&
    "$e2e/run-guest.sh" chroot "$image" "$share" env $(gr_env "$share") \
      gostap run -p4 -r "$kver" --unprivileged -m gostap_unpriv_b -t "$bin" "${LIMITS[@]}" \
        "$share/scripts/unpriv.stp" ) > "$share/mod/unpriv.log" 2>&1 ||
    { tail -30 "$share/mod/unpriv.log" >&2; return 1; }
  [ -f "$share/mod/gostap_unpriv_a.ko" ] && [ -f "$share/mod/gostap_unpriv_b.ko" ] ||
    { echo "unpriv.sh: stap -m wrote no gostap_unpriv_a.ko, gostap_unpriv_b.ko" >&2; return 1; }
}

# unpriv_guest_lines SHARE BIN: the guest.sh lines. gouser runs the
# binary by the path the modules' probes name (SHARE/bin, a bind mount of
# /tmp/bin: gr_guest_prologue): stap's runtime finds a process() probe's
# processes by the path of their program, not by its inode (measured in
# the trixie guest, 2026-11-29: run as /tmp/bin/NAME, the same file, no
# probe fired), so the share is opened to others for its traversal.
unpriv_guest_lines () {
  local share=$1 bin=$2
  cat <<EOF
( o=\$S/out/unpriv
  b=$bin
  ub=\$b
  chmod o+x "\$S" "\$S/bin"
  d=/lib/modules/\$(uname -r)/systemtap
  useradd -m -G stapusr gouser > "\$o.useradd" 2>&1
  id gouser > "\$o.id" 2>&1
  # staprun lets a stapusr member load only modules in a directory root
  # owns that nobody else can write (the guest's init runs with umask 0)
  install -d -m 755 "\$d" && install -m 644 "\$S/mod/gostap_unpriv_a.ko" "\$S/mod/gostap_unpriv_b.ko" "\$d/"
  rm -rf /opt/gostap && cp -a "\$S/gostap" /opt/gostap && chmod -R a+rX /opt/gostap
  asuser () { su gouser -s /bin/bash -c "cd && \$1"; }
  # A: the administrator's module
  st=0
  asuser "timeout -k 10 300 staprun -c '\$ub $UNPRIV_RUN' gostap_unpriv_a" > "\${o}_a.out" 2> "\${o}_a.err" || st=\$?
  echo \$st > "\${o}_a.rc"
  # B: --unprivileged, root's run of the binary beside gouser's
  "\$b" forever 2 > "\${o}_b_root.out" 2>&1 & r=\$!
  st=0
  asuser "timeout -k 10 300 staprun -c '\$ub $UNPRIV_RUN' gostap_unpriv_b" > "\${o}_b.out" 2> "\${o}_b.err" || st=\$?
  echo \$st > "\${o}_b.rc"
  if kill -0 \$r 2>/dev/null; then echo "\$r running" > "\${o}_b_root.alive"; else echo "\$r ended" > "\${o}_b_root.alive"; fi
  kill -9 \$r; wait \$r
  # gouser's staprun -x with root's process
  "\$b" forever 2 > "\${o}_bx_root.out" 2>&1 & r=\$!
  sleep 1
  st=0
  asuser "timeout -s INT -k 10 20 staprun -x \$r gostap_unpriv_b" > "\${o}_bx.out" 2> "\${o}_bx.err" || st=\$?
  echo \$st > "\${o}_bx.rc"
  echo \$r > "\${o}_bx_root.pid"
  kill -9 \$r; wait \$r
  # C: gostap run by gouser, on root's process
  echo 'probe go.func.main.work { println(goid) }' > /tmp/unpriv-c.stp
  chmod 644 /tmp/unpriv-c.stp
  "\$b" forever 2 > /dev/null 2>&1 & r=\$!
  sleep 1
  st=0
  asuser "timeout -k 10 120 env GOSTAP_TAPSETS=/opt/gostap/share/gostap/tapset /opt/gostap/bin/gostap run -x \$r /tmp/unpriv-c.stp" > "\${o}_c.out" 2>&1 || st=\$?
  echo \$st > "\${o}_c.rc"
  kill -9 \$r; wait \$r
  echo "guest: unpriv: A exit \$(cat "\${o}_a.rc"), B exit \$(cat "\${o}_b.rc"), B -x exit \$(cat "\${o}_bx.rc"), C exit \$(cat "\${o}_c.rc")" ) 2>/dev/null
EOF
}
