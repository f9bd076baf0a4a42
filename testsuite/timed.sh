#!/bin/sh
# timed.sh TEST [ARGS]: the harness's way into every test (LOG_COMPILER in
# Makefile.am): runs TEST and, when GOSTAP_TIMES names a file, appends
# "start EPOCH TEST" before and "end EPOCH TEST STATUS" after, so that
# tools/check.sh can say how long each test took, and which were still
# running when a run was stopped. TEST's exit status is its own.
if [ -n "${GOSTAP_TIMES:-}" ]; then
  echo "start $(date +%s) ${1##*/}" >> "$GOSTAP_TIMES"
fi
st=0
"$@" || st=$?
if [ -n "${GOSTAP_TIMES:-}" ]; then
  echo "end $(date +%s) ${1##*/} $st" >> "$GOSTAP_TIMES"
fi
exit "$st"
