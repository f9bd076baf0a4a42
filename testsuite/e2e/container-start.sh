#!/bin/bash
# container-start.sh PID BINARY OUT: run BINARY (the demo, for an hour) as
# a container runtime runs a program: in a mount namespace of its own
# whose root is a tmpfs (pivot_root; the old root stays under /old), as
# /app/demo, with process id PID (set through ns_last_pid: stap's module
# cache key has `-x PID`, so the image's chroot, which compiles the module,
# and the guest, which runs it, must give the same one). Its output to OUT.
# Prints PID when the process runs /app/demo; exit 1 when PID was taken.
want=$1 bin=$2 out=$3
mkdir -p /tmp/ctr
# Nothing may fork between the write and the fork of the background job.
echo $((want - 1)) > /proc/sys/kernel/ns_last_pid
unshare -m --propagation private sh -c '
  mount -t tmpfs none /tmp/ctr && mkdir -p /tmp/ctr/app /tmp/ctr/old &&
  cp -p "$1" /tmp/ctr/app/demo && cd /tmp/ctr && pivot_root . old &&
  exec /app/demo 3600' _ "$bin" > "$out" 2>&1 &
pid=$!
if [ "$pid" != "$want" ]; then
  kill "$pid" 2>/dev/null
  exit 1
fi
for _ in $(seq 200); do
  [ "$(readlink "/proc/$pid/exe")" = /app/demo ] && { echo "$pid"; exit 0; }
  sleep 0.1
done
echo "container-start.sh: process $pid does not run /app/demo: $(readlink "/proc/$pid/exe")" \
  "(its output: $(head -c 300 "$out" | tr '\n' ' '))" >&2
kill "$pid" 2>/dev/null
exit 1
