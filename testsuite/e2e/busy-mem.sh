#!/bin/bash
# busy-mem.sh OUT: in the guest, beside the load job (run-e2e.sh, job
# busy), every 10 s until OUT.stop exists: one line of the memory the
# SystemTap session holds:
#   MEM <seconds> stapio_rss_kb=N module_bytes=N mem_available_kb=N
# (stapio's resident set, the size of the stap_* module loaded, from
# /proc/modules; 0 while there is none), for check-e2e.py to see that it
# stays bounded.
out=$1
: > "$out"
rm -f "$out.stop"
t0=$(date +%s)
while [ ! -e "$out.stop" ]; do
  rss=0
  for p in $(pgrep -x stapio); do
    r=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status" 2>/dev/null)
    rss=$(( rss + ${r:-0} ))
  done
  mod=$(awk '$1 ~ /^stap_/ { s += $2 } END { print s + 0 }' /proc/modules)
  avail=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
  echo "MEM $(( $(date +%s) - t0 )) stapio_rss_kb=$rss module_bytes=$mod mem_available_kb=$avail" >> "$out"
  sleep 10
done
