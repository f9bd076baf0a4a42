#!/bin/bash
# `gostap symbolize` against the Go runtime's own traceback, on Go releases
# no Debian suite carries: Go 1.17 and 1.18 (and 1.19.0 beside Debian's
# 1.19.x), in real programs nobody here built.
#
# The programs: esbuild's Linux builds from the npm registry (esbuild-linux-64:
# 0.14.10 built by go1.17.5, 0.14.39 by go1.18.1, 0.15.5 by go1.19; all
# -s -w, so only the .gopclntab describes them), fetched with `npm pack`
# into $CACHE/npm once and checked against the sha256 written below.
# Each bundles a generated 400-module JavaScript program (parsing in
# parallel goroutines, deep recursive descent, many inlined calls) and is
# stopped by SIGQUIT at several points of the run with GOTRACEBACK=system,
# under GOMAXPROCS 1 and 2: the runtime then prints every goroutine's
# stack with each physical frame's pc. check-traceback.py turns those pcs
# into the records the tapsets write and compares gostap's expansion with
# the runtime's frames: function, file:line, +0x offset, inlined calls
# (see its header for the one difference by design, wrappers).
# Also: gostap list reads each binary (every function of its pclntab).
#
# Environment: GOSTAP, GOSTAP_TEST_CACHE. Exit: 0 pass, 1 a mismatch,
# 77 skip (no npm, or the registry cannot be reached and nothing is
# cached), 99 hard error.
# shellcheck source=test-subr.sh disable=SC2154
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

command -v python3 >/dev/null || skip "no python3"
[ -x "$GOSTAP" ] || hard_error "no gostap program at $GOSTAP"

# version go-release sha256-of-the-package
PROGRAMS="
0.14.10 go1.17.5 88518f7d9116caafd6288a2d2d9bfd75aa1c743865165ea76574172758c9e95e
0.14.39 go1.18.1 061976e758232f31afffdd01337a77b5362e8a3e0753b4bcf2cfe7e9e5ee8930
0.15.5  go1.19   f0a088031896ed8d3b0a4fc4eb0fed6881a57607bcf57673fe8f7c67832f3ae0
"
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}/npm
mkdir -p "$CACHE"

# fetch VERSION SHA256: the package's tarball in the cache, checked.
fetch () {
  local tgz=$CACHE/esbuild-linux-64-$1.tgz
  if [ ! -f "$tgz" ]; then
    command -v npm >/dev/null || skip "no npm (Debian: npm) to fetch esbuild-linux-64@$1"
    (cd "$tmp" && timeout 300 npm pack --silent "esbuild-linux-64@$1" > npm.out 2> npm.err) ||
      skip "npm pack esbuild-linux-64@$1 failed (registry unreachable?): $(tail -1 "$tmp/npm.err")"
    mv "$tmp/esbuild-linux-64-$1.tgz" "$tgz.part" && mv "$tgz.part" "$tgz"
  fi
  echo "$2  $tgz" | sha256sum -c --status ||
    hard_error "$tgz: sha256 is not $2 (a different package than the one this test was written for)"
  mkdir -p "$tmp/$1"
  tar -xzf "$tgz" -C "$tmp/$1" package/bin/esbuild
}

# The input: module i imports modules i+1..i+3; each has 200 functions.
python3 - "$tmp/src" <<'EOF'
import os, sys
d = sys.argv[1]
os.makedirs(d)
N = 400
for i in range(N):
    nxt = range(i + 1, min(i + 4, N))
    with open(os.path.join(d, f"m{i}.js"), "w") as f:
        f.write("".join(f"import {{ f{j} }} from './m{j}.js';\n" for j in nxt))
        for k in range(200):
            f.write(f"export function f{i}_{k}(a, b) {{ return [a + b * {k}, `s${{a}}`, "
                    f"{{ k: {k}, v: (x) => x * {k} }}].map((z) => z) }}\n")
        f.write(f"export function f{i}() {{ return {' + '.join(f'f{j}()' for j in nxt) or '0'} }}\n")
EOF

while read -r ver goversion sum; do
  [ -n "$ver" ] || continue
  fetch "$ver" "$sum"
  bin=$tmp/$ver/package/bin/esbuild
  checks=$((checks + 1))
  got=$("$GOSTAP" doctor "$bin" 2>&1 | sed -n 's/^ok  binary *\(go[0-9.]*\),.*/\1/p')
  if [ "$got" = "$goversion" ]; then
    echo "ok - esbuild $ver: gostap reads its Go version, $got"
  else
    fail "esbuild $ver: gostap doctor says Go version '$got', expected $goversion"
  fi

  # gostap list: one line per function of the pclntab, and no error.
  checks=$((checks + 1))
  st=0
  "$GOSTAP" list "$bin" > "$tmp/list" 2> "$tmp/list.err" || st=$?
  n=$(wc -l < "$tmp/list")
  if [ "$st" != 0 ] || [ "$n" -lt 1000 ]; then
    fail "esbuild $ver: gostap list: exit $st, $n functions: $(head -3 "$tmp/list.err")"
  else
    echo "ok - esbuild $ver: gostap list: $n functions"
  fi

  # The tracebacks: a SIGQUIT after each delay, under 1 and 2 Ps.  A run
  # the machine was fast enough to finish first is run again with half
  # the delay, up to 3 times (a bundle takes about 1 s of CPU: a busy
  # machine stops every run, a fast idle one could finish before most).
  tbs=()
  for procs in 1 2; do
    for delay in 0.1 0.3 0.5 0.8; do
      d=$delay
      for try in 1 2 3 4; do
        tb=$tmp/tb-$ver-$procs-$delay-$try.txt
        GOTRACEBACK=system GOMAXPROCS=$procs "$bin" --bundle "$tmp/src/m0.js" \
          --outfile="$tmp/out.js" --log-level=warning 2> "$tb" &
        pid=$!
        sleep "$d"
        kill -QUIT "$pid" 2>/dev/null || true
        st=0
        wait "$pid" || st=$?
        # exit 2 and "SIGQUIT: quit": stopped while bundling; 0: it finished first
        if [ "$st" = 2 ] && grep -q '^SIGQUIT: quit' "$tb"; then
          tbs+=("$tb")
          break
        elif [ "$st" != 0 ]; then
          hard_error "esbuild $ver: exit $st, not the SIGQUIT report: $(head -3 "$tb")"
        fi
        d=$(awk -v d="$d" 'BEGIN { print d / 2 }')
      done
    done
  done
  checks=$((checks + 1))
  if [ "${#tbs[@]}" -lt 4 ]; then
    fail "esbuild $ver: only ${#tbs[@]} of 8 runs were stopped by the SIGQUIT"
    continue
  fi
  echo "ok - esbuild $ver: ${#tbs[@]} tracebacks"
  checks=$((checks + 1))
  python3 "$testsuite/check-traceback.py" "$GOSTAP" "$bin" "esbuild-$ver-$goversion" \
    "${tbs[@]}" > "$tmp/check.out" 2>&1 || fail "esbuild $ver: check-traceback.py"
  sed "s|$tmp/||g" "$tmp/check.out"
done <<< "$PROGRAMS"

finish
