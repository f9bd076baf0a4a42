#!/bin/bash
# compare-builds.sh OLD NEW [FIXTURES_DIR]: the outputs of two gostap
# builds (OLD and NEW: paths of their src/gostap) on every fixture binary
# (list --json, list --pcsp, gen 'main.*', doctor, types, and companion
# for the -s -w builds), byte for byte: a refactoring changes none of
# them (issue 40). FIXTURES_DIR: the newest of build-fixtures.sh's cache
# by default. Prints DIFF NAME and the first lines of the difference per
# binary that differs, then "compared N binaries, M differ"; exit 1 when
# one differs.
old=$1 new=$2
d=${3:-$(ls -dt ~/.cache/gostap-test/fixtures/*/ | head -1)}
t=$(mktemp -d /tmp/cmp.XXXXXX)
n=0 bad=0
for bin in "$d"*; do
  [ -x "$bin" ] && [ -f "$bin" ] || continue
  head -c4 "$bin" | grep -q ELF || continue
  name=$(basename "$bin")
  for side in old new; do
    g=${!side}; o=$t/$side; rm -rf "$o"; mkdir -p "$o"
    export XDG_CACHE_HOME=$t/xdg-$side
    { "$g" list --json "$bin" > "$o/list.json" 2>&1; echo "rc $?" >> "$o/list.json"; } 
    { "$g" list --pcsp "$bin" 'main.*' > "$o/pcsp" 2>&1; echo "rc $?" >> "$o/pcsp"; }
    { "$g" gen "$bin" -o "$o/ts" 'main.*' > "$o/gen.out" 2>&1; echo "rc $?" >> "$o/gen.out"; }
    { "$g" doctor "$bin" 2>&1 | sed "s|$o|OUT|g" > "$o/doctor"; }
    { "$g" types "$bin" > "$o/types" 2>&1; echo "rc $?" >> "$o/types"; }
    case $name in *sw*) { "$g" companion "$bin" -o "$o/comp.debug" > "$o/comp.out" 2>&1; echo "rc $?" >> "$o/comp.out"; } ;; esac
    for f in "$o"/*; do [ -f "$f" ] && sed -i "s|$o|OUT|g; s|$g|GOSTAP|g; s|$t/xdg-$side|XDG|g" "$f"; done
  done
  n=$((n+1))
  if ! diff -r "$t/old" "$t/new" > "$t/diff.txt" 2>&1; then
    bad=$((bad+1)); echo "DIFF $name"; head -5 "$t/diff.txt"
  fi
done
echo "compared $n binaries, $bad differ"
rm -rf "$t"
[ "$bad" -eq 0 ] && [ "$n" -gt 0 ]
