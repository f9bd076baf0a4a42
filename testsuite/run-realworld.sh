#!/bin/bash
# Real-world Go programs nobody here built: large stripped binaries from
# Debian packages of bookworm, trixie and forky (Go 1.19 to 1.27), fetched
# with debian-archive.sh into $CACHE/realworld (once; later runs reuse them).
# For each binary:
#   - gostap list --json succeeds, with only warnings on stderr;
#   - every function of the pclntab is listed (its nfunc, read here);
#   - the union of the RET sites equals the RET instructions that objdump -d
#     finds inside the function ranges;
#   - peak RSS of list --json (/usr/bin/time %M) on a build without
#     sanitizers ($GOSTAP or $GOSTAP_PLAIN, see plain_gostap in
#     test-subr.sh; ASan's shadow memory and quarantine would measure ASan)
#     is below twice the size of the binary;
#   - gostap gen for 50 functions spread over the table writes tapsets that
#     pass check-tapset-lines.py; for a binary without .symtab and DWARF
#     (the Debian packages are stripped) through the companion debug file
#     it writes into its cache, as gostap run does, saying so in one line
#     with the SYSTEMTAP_DEBUGINFO_PATH stap needs; then, through the
#     companion debug file `gostap companion` writes, gen for 10 of them
#     succeeds in silence and stap -p2 places their entry and return
#     aliases and every runtime event without -g.
# Prints one table line per binary. Skips (77) when the packages are not in
# the cache and the Debian archive cannot be reached. Takes 2-4 minutes
# with a warm cache (most of it objdump).
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"
# gen's line under a stap before 5.1 about its relay transport
# (run-old-libdw.sh checks it): not counted among gen's lines here.
relay_line="^[^ ]*gostap: warning: stap [0-9.]*'s relay transport drops records"

command -v objdump >/dev/null || skip "no objdump (binutils)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (Debian: time)"

# package suite binary (a few large Go programs, each built by the suite's Go)
PROGRAMS="
hugo        bookworm  usr/bin/hugo
containerd  bookworm  usr/bin/containerd
hugo        trixie    usr/bin/hugo
prometheus  trixie    usr/bin/prometheus
restic      forky     usr/bin/restic
hugo        forky     usr/bin/hugo
"

CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
. "$testsuite/debian-archive.sh"
rw=$CACHE/realworld
setup_done=no
bins=()
while read -r pkg suite path; do
  [ -n "$pkg" ] || continue
  dir=$rw/$pkg-$suite
  if [ ! -f "$dir/$path" ]; then
    if [ $setup_done = no ]; then
      ( archive_setup bookworm trixie forky ) >"$tmp/setup.log" 2>&1 ||
        hard_error "cannot set up the Debian archive lists: $(tail -1 "$tmp/setup.log")"
      setup_done=yes
    fi
    ( archive_fetch "$dir" "$pkg/$suite" ) >"$tmp/fetch.log" 2>&1 ||
      { cat "$tmp/fetch.log" >&2; fail "cannot fetch $pkg/$suite"; continue; }
  fi
  [ -f "$dir/$path" ] || { fail "$pkg/$suite has no $path"; continue; }
  bins+=("$pkg $suite $dir/$path")
done <<<"$PROGRAMS"

have_stap=no
st=0
envsh=$("$testsuite/stap-env.sh") || st=$?
if [ "$st" = 0 ]; then eval "$envsh"; have_stap=yes; else echo "# no stap here (stap-env.sh): the stap -p2 checks do not run"; fi

PLAIN=$(plain_gostap)
[ -n "$PLAIN" ] ||
  skip "gostap is built with ASan and GOSTAP_PLAIN names no plain build to measure memory with"
printf '%-11s %-9s %-9s %7s %7s %8s %8s %8s %s\n' program suite go size functions rets peakRSS gen mismatches
for b in "${bins[@]}"; do
  read -r pkg suite bin <<<"$b"
  checks=$((checks + 1))
  s=0
  # The checks below read the output of $GOSTAP (ASan and UBSan in CI);
  # the memory figure comes from the plain build on the same input.
  timeout 600 "$GOSTAP" list --json "$bin" >"$tmp/list.json" 2>"$tmp/list.err" || s=$?
  if [ "$s" = 0 ]; then
    /usr/bin/time -f %M -o "$tmp/rss" timeout 600 "$PLAIN" list --json "$bin" \
      >/dev/null 2>"$tmp/plain.err" || s=$?
  fi
  if [ "$s" != 0 ] || grep -v ': warning: ' "$tmp/list.err" | grep -q .; then
    fail "$pkg/$suite: gostap list --json: exit $s: $(head -c 400 "$tmp/list.err")"
    continue
  fi
  rss_kb=$(tail -1 "$tmp/rss")

  # gen for 50 functions spread over the table whose names are no globs.
  python3 -c '
import json, sys
fs = [f["name"] for f in json.load(open(sys.argv[1]))["functions"]
      if not any(c in f["name"] for c in "*?[]\\")]
step = max(1, len(fs) // 50)
print("\n".join(fs[::step][:50]))' "$tmp/list.json" >"$tmp/sample"
  rm -rf "$tmp/gen" "$tmp/xdg"; mkdir "$tmp/gen"
  gs=0
  mapfile -t sample <"$tmp/sample"
  timeout 600 env XDG_CACHE_HOME="$tmp/xdg" "$GOSTAP" gen "$bin" -o "$tmp/gen" \
    "${sample[@]}" >/dev/null 2>"$tmp/gen.err.all" || gs=$?
  # But for the line gen prints under a stap before 5.1 about its relay
  # transport (run-old-libdw.sh checks that one).
  grep -v "$relay_line" "$tmp/gen.err.all" > "$tmp/gen.err" || true
  gen=ok
  if [ "$gs" = 0 ] && ! grep -q 'no DWARF and no .symtab' "$tmp/gen.err"; then
    "$testsuite/check-tapset-lines.py" "$tmp/gen" >"$tmp/lines" ||
      { gen=BAD; fail "$pkg/$suite: gen: $(cat "$tmp/lines")"; }
  elif [ "$gs" = 0 ] && [ "$(wc -l <"$tmp/gen.err")" = 1 ] &&
       grep -q "SYSTEMTAP_DEBUGINFO_PATH=.*:$tmp/xdg/gostap/debug\$" "$tmp/gen.err" &&
       [ -n "$(find "$tmp/xdg/gostap/debug" -name '*.debug')" ]; then
    gen=cached
    "$testsuite/check-tapset-lines.py" "$tmp/gen" >"$tmp/lines" ||
      { gen=BAD; fail "$pkg/$suite: gen through the companion in its cache: $(cat "$tmp/lines")"; }
  else
    gen=BAD
    fail "$pkg/$suite: gen: exit $gs: $(head -c 300 "$tmp/gen.err"); files: $(ls "$tmp/gen" | head -3)"
  fi
  # The stripped binary through its companion debug file: gen for 10 of
  # the functions, whose entry and return aliases, and every runtime
  # event, stap -p2 places without -g.
  if [ "$gen" = cached ]; then
    checks=$((checks + 1))
    rm -rf "$tmp/dbg" "$tmp/gen2"
    if timeout 600 "$GOSTAP" companion "$bin" -o "$tmp/dbg" >/dev/null 2>"$tmp/comp.err" &&
       SYSTEMTAP_DEBUGINFO_PATH=$tmp/dbg XDG_CACHE_HOME=$tmp/xdg2 timeout 600 "$GOSTAP" gen "$bin" -o "$tmp/gen2" \
         "${sample[@]:0:10}" >/dev/null 2>>"$tmp/comp.err" &&
       [ -z "$(grep -v "$relay_line" "$tmp/comp.err")" ]; then
      gen=companion
      if [ "$have_stap" = yes ]; then
        { grep -o '^probe go\.func[^ ]*' "$tmp/gen2/go_funcs.stp" | sed 's/$/ { }/'
          grep -o '^probe go\.[a-z_.]* =' "$testsuite/../tapsets/go_runtime.stp" |
            sed 's/ =$/ { }/'
        } > "$tmp/rw.stp"
        n=$(grep -c . "$tmp/rw.stp")
        if SYSTEMTAP_DEBUGINFO_PATH=$tmp/dbg $STAP -p2 -I "$tmp/gen2" -I "$testsuite/../tapsets" \
             "$tmp/rw.stp" > "$tmp/rw.out" 2>"$tmp/rw.err"; then
          gen="stap:$(grep -c '^process(' "$tmp/rw.out")"
          echo "ok - $pkg/$suite: companion: stap -p2 places the $n probe points (10 functions' entry and return aliases, every runtime event) without -g: $(grep -c '^process(' "$tmp/rw.out") probes"
        else
          gen=BAD
          fail "$pkg/$suite: companion: stap -p2: $(grep -v '^WARNING: Kernel' "$tmp/rw.err" | head -3)"
        fi
      fi
    else
      gen=BAD
      fail "$pkg/$suite: companion, gen: $(grep -v "$relay_line" "$tmp/comp.err" | head -c 300)"
    fi
  fi

  python3 - "$bin" "$tmp/list.json" "$rss_kb" "$pkg" "$suite" "$gen" <<'EOF' || fail "$pkg/$suite: see above"
import bisect
import json
import os
import re
import struct
import subprocess
import sys

binary, listing, rss_kb, pkg, suite, gen = sys.argv[1:7]
rss_kb = int(rss_kb)
doc = json.load(open(listing))
funcs = sorted(doc["functions"], key=lambda f: int(f["entry"], 16))
entries = [int(f["entry"], 16) for f in funcs]
ends = [int(f["end"], 16) for f in funcs]
problems = []

# The pclntab's function count, from its header (section .gopclntab).
with open(binary, "rb") as fh:
    data = fh.read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shnum, shstrndx = struct.unpack_from("<HH", data, 0x3c)
sh = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
stroff = sh[shstrndx][4]
nfunc = None
for h in sh:
    name = data[stroff + h[0]:data.index(b"\0", stroff + h[0])]
    if name in (b".gopclntab", b".data.rel.ro.gopclntab"):
        nfunc, = struct.unpack_from("<Q", data, h[4] + 8)
del data
if nfunc is None:
    problems.append("no .gopclntab section to count functions")
elif nfunc != len(funcs):
    problems.append("pclntab has %d functions, gostap lists %d" % (nfunc, len(funcs)))

# RET instructions objdump finds inside the function ranges.
ret_re = re.compile(r"^\s*([0-9a-f]+):\s+(?:(?:rep[a-z]*|bnd|notrack|data16|cs|ds)\s+)*ret[qlw]?(?:\s|$)")
od = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-w", binary],
                      stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
want = set()
for line in od.stdout:
    if "ret" not in line:
        continue
    m = ret_re.match(line)
    if m:
        a = int(m.group(1), 16)
        i = bisect.bisect_right(entries, a) - 1
        if i >= 0 and a < ends[i]:
            want.add(a)
if od.wait() != 0:
    problems.append("objdump failed")
have = set()
for f in funcs:
    have.update(int(r, 16) for r in f["returns"])
missing, extra = sorted(want - have), sorted(have - want)
if missing:
    problems.append("%d RETs objdump finds are not listed, first %s" % (
        len(missing), ", ".join(hex(a) for a in missing[:5])))
if extra:
    problems.append("%d listed RETs objdump does not find, first %s" % (
        len(extra), ", ".join(hex(a) for a in extra[:5])))

size = os.path.getsize(binary)
if rss_kb * 1024 > 2 * size:
    problems.append("peak RSS %d MB is more than twice the binary (%d MB)" % (
        rss_kb // 1024, size >> 20))
print("%-11s %-9s %-9s %6dM %9d %8d %7dM %8s %d" % (
    pkg, suite, doc.get("go_version", "?"), size >> 20, len(funcs), len(have),
    rss_kb // 1024, gen, len(missing) + len(extra)))
for p in problems:
    print("#   %s/%s: %s" % (pkg, suite, p))
sys.exit(1 if problems else 0)
EOF
done
finish
