#!/bin/bash
# load.sh BINARY SECONDS OUTPUT: run BINARY (the grow fixture) again and
# again for SECONDS, each run's output appended to OUTPUT with its exit
# status ("exit N"). The target of the e2e safety-under-load check.
bin=$1 secs=$2 out=$3
end=$(( $(date +%s) + secs ))
: > "$out"
while [ "$(date +%s)" -lt "$end" ]; do
  st=0
  "$bin" >> "$out" 2>&1 || st=$?
  echo "exit $st" >> "$out"
done
