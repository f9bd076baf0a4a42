#!/bin/bash
# gostap's cache holds code that runs in the kernel (generated tapsets) and
# files stap trusts (companions, the runtime copy): a cache another user
# could write into is refused in one line and never used (issue 38).  Real
# gostap run -p2 (stap elaborates, no module is built) on a real fixture:
#  - a tapset with a marker planted in a cache directory writable by
#    others, by group, in a file owned by nobody: exit 1, one line naming
#    the path and the problem, nothing on stdout, the marker nowhere; the
#    same planted file once trusted (owner and mode fixed) is used, so the
#    marker check can fail;
#  - symbolic links planted in the cache (a tapset, a cache directory) are
#    refused, not followed; a link above the cache root is resolved and the
#    real directories checked;
#  - above the cache root: a world-writable directory is refused, a sticky
#    one (/tmp's mode) accepted;
#  - a private cache (0700) works, first run and cache hit alike;
#  - a binary rebuilt in place (another Go release's build of the same
#    fixture at the same path): the tapsets used are the new build's (the
#    probe address of main.main is the new binary's, per gostap list);
#  - a binary patched in place (one byte of a string changed; the build
#    id, size and mtime kept): another cache entry, the key being the
#    content, not what stat says of the file.
# Needs root (chown to nobody).
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

[ "$(id -u)" = 0 ] || skip "not root: planting a file owned by another user needs chown"
nobody=$(id -u nobody 2>/dev/null) || skip "no user nobody to own a planted file"
need_stap
old_v=1.22 new_v=1.24
fixture_manifest "$old_v" "$new_v" > "$tmp/manifest"
old=$(fixture "$old_v" default demo)
new=$(fixture "$new_v" default demo)
[ -n "$old" ] && [ -n "$new" ] || hard_error "no demo fixture of Go $old_v and $new_v"

printf '#!/bin/sh\nexec %s "$@"\n' "$STAP" > "$tmp/stap"
chmod +x "$tmp/stap"
export GOSTAP_STAP=$tmp/stap GOSTAP_TAPSETS=$top_srcdir/tapsets
script='probe go.func.main.main { println("hit") }'
# The planted alias is a begin probe of this odd priority: stap -p2 lists
# it when the planted file is used.
marker='begin(-73317)'

# run_p2 CACHE-BASE BINARY: gostap run -p2 with XDG_CACHE_HOME=CACHE-BASE.
run_p2 () { XDG_CACHE_HOME=$1 "$GOSTAP" run -t "$2" -p2 -e "$script"; }
# keydir CACHE-BASE: the one tapset directory of the cache (BINKEY/KEY).
keydir () {
  local d
  d=$(find "$1/gostap" -mindepth 2 -maxdepth 2 -type d ! -name '.tmp.*' -path "$1/gostap/[0-9a-f]*/[0-9a-f]*")
  [ "$(echo "$d" | wc -l)" = 1 ] && [ -n "$d" ] || hard_error "not one tapset directory in $1/gostap: $d"
  echo "$d"
}
# plant FILE: a tapset that redefines the alias the script uses.
plant () {
  echo "probe go.func.main.main = $marker { println(\"planted\") }" > "$1"
}
# refused STATUS REGEX CACHE-BASE: run -p2 refused in one line, and the
# marker not used (nothing on stdout: stap never ran).
refused () {
  expect_fail "$1" "$2" run_p2 "$3" "$old"
  checks=$((checks + 1))
  if grep -qF "$marker" "$tmp/out" "$tmp/err"; then
    fail "the planted tapset was used ($3)"
  fi
}
# used CACHE-BASE: run -p2 succeeds and elaborates the planted alias.
used () {
  checks=$((checks + 1))
  if run_p2 "$1" "$old" > "$tmp/out" 2> "$tmp/err" && grep -qF "$marker" "$tmp/out"; then
    echo "ok - the planted tapset, trusted, is used (the check above can fail)"
  else
    fail "the planted tapset, once trusted, was not used: $(head -3 "$tmp/err")"
  fi
}

# A cache filled by a good run, then the planted tapset in it.
c=$tmp/c
mkdir -m 0700 "$c"
run_p2 "$c" "$old" > "$tmp/out" 2> "$tmp/err" || hard_error "first run: $(head -3 "$tmp/err")"
k=$(keydir "$c")
plant "$k/go_funcs.stp"

# (a) Writable by others: the cache root, then the tapset directory.
chmod 0777 "$c/gostap"
refused 1 "^[^ ]*gostap: $c/gostap: writable by others \(mode 0777\): refusing to use this cache$" "$c"
chmod 0755 "$c/gostap"
chmod 0770 "$k"
refused 1 "^[^ ]*gostap: $k: writable by group \(mode 0770\): refusing to use this cache$" "$c"
chmod 0700 "$k"
chmod 0666 "$k/go_funcs.stp"
refused 1 "^[^ ]*gostap: $k/go_funcs.stp: writable by others \(mode 0666\): refusing to use this cache$" "$c"
chmod 0644 "$k/go_funcs.stp"
# Owned by another user: the planted tapset, then the directory above.
chown nobody "$k/go_funcs.stp"
refused 1 "^[^ ]*gostap: $k/go_funcs.stp: owned by uid $nobody, neither you \(uid 0\) nor root: refusing to use this cache$" "$c"
chown root "$k/go_funcs.stp"
chown nobody "$(dirname "$k")"
refused 1 "^[^ ]*gostap: $(dirname "$k"): owned by uid $nobody, neither you \(uid 0\) nor root" "$c"
chown root "$(dirname "$k")"
# The companion directory and the runtime copy are checked as well.
mkdir -p "$c/gostap/debug"
chmod 0777 "$c/gostap/debug"
refused 1 "^[^ ]*gostap: $c/gostap/debug: writable by others \(mode 0777\)" "$c"
chmod 0755 "$c/gostap/debug"
rt=$(find "$c/gostap/runtime" -mindepth 1 -maxdepth 1 -type d ! -name '.tmp.*' | head -1)
if [ -n "$rt" ]; then
  f=$(find "$rt" -type f | head -1)
  chown nobody "$f"
  refused 1 "^[^ ]*gostap: $f: owned by uid $nobody" "$c"
  chown root "$f"
else
  echo "# this stap needs no runtime copy: not checked"
fi
# Everything trusted again: the planted file is used.
used "$c"

# Above the cache root: world-writable refused, sticky accepted.
chmod 0777 "$c"
refused 1 "^[^ ]*gostap: $c: writable by others \(mode 0777\): refusing to use this cache$" "$c"
chmod 1777 "$c"
used "$c"
chmod 0700 "$c"

# (b) Symbolic links planted in the cache are not followed.
mv "$k/go_funcs.stp" "$tmp/planted.stp"
ln -s "$tmp/planted.stp" "$k/go_funcs.stp"
refused 1 "^[^ ]*gostap: $k/go_funcs.stp: a symbolic link: refusing to use this cache$" "$c"
rm "$k/go_funcs.stp"
mv "$tmp/planted.stp" "$k/go_funcs.stp"
binkey=$(dirname "$k")
mv "$binkey" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$binkey"
refused 1 "^[^ ]*gostap: $binkey: a symbolic link: refusing to use this cache$" "$c"
rm "$binkey"
mv "$tmp/elsewhere" "$binkey"
# The cache root itself a link (to a private directory of ours).
mv "$c/gostap" "$tmp/root-elsewhere"
ln -s "$tmp/root-elsewhere" "$c/gostap"
refused 1 "^[^ ]*gostap: $c/gostap: a symbolic link: refusing to use this cache$" "$c"
rm "$c/gostap"
mv "$tmp/root-elsewhere" "$c/gostap"
# A link above the cache root (~/.cache on another disk) is resolved; the
# real directories are what is checked and used.
ln -s "$c" "$tmp/c-link"
checks=$((checks + 1))
if run_p2 "$tmp/c-link" "$old" > "$tmp/out" 2> "$tmp/err" && grep -qF "$marker" "$tmp/out"; then
  echo "ok - a link above the cache root is followed to the real, checked cache"
else
  fail "XDG_CACHE_HOME a link to the cache's directory: $(head -3 "$tmp/err")"
fi
chmod 0777 "$c"
refused 1 "^[^ ]*gostap: $c: writable by others \(mode 0777\)" "$tmp/c-link"
chmod 0700 "$c"

# (c) A private cache, fresh: generated, then a hit; the probe is the
# binary's main.main body (gostap list).
body () { "$GOSTAP" list "$1" main.main | awk '$7 == "main.main" { print $2 }'; }
# probe_addr OUT: the address of go.func.main.main's probe in -p2 output.
probe_addr () { grep -o 'statement(0x[0-9a-f]*)' "$1" | head -1 | grep -o '0x[0-9a-f]*'; }
p=$tmp/p
mkdir -m 0700 "$p"
for pass in miss hit; do
  checks=$((checks + 1))
  if run_p2 "$p" "$old" > "$tmp/out" 2> "$tmp/err" &&
     [ "$(probe_addr "$tmp/out")" = "$(body "$old")" ]; then
    echo "ok - private 0700 cache ($pass): probe at $(body "$old")"
  else
    fail "private cache ($pass): probe at '$(probe_addr "$tmp/out")', main.main body $(body "$old"); $(head -3 "$tmp/err")"
  fi
done

# (d) Rebuilt in place: the same path, another build; same mtime even.
r=$tmp/r
mkdir -m 0700 "$r" "$tmp/app"
cp "$old" "$tmp/app/demo"
run_p2 "$r" "$tmp/app/demo" > "$tmp/out.old" 2> "$tmp/err" || fail "rebuild, first run: $(head -3 "$tmp/err")"
k_old=$(keydir "$r")
stamp=$(stat -c %y "$tmp/app/demo")
cp "$new" "$tmp/app/demo.new"
mv "$tmp/app/demo.new" "$tmp/app/demo"
touch -d "$stamp" "$tmp/app/demo"
checks=$((checks + 1))
want=$(body "$tmp/app/demo")
[ "$want" != "$(body "$old")" ] || hard_error "main.main at the same address in Go $old_v and $new_v: pick other releases"
if ! run_p2 "$r" "$tmp/app/demo" > "$tmp/out" 2> "$tmp/err"; then
  fail "rebuild, second run: $(head -3 "$tmp/err")"
elif [ "$(probe_addr "$tmp/out")" != "$want" ]; then
  fail "rebuilt in place: probe at $(probe_addr "$tmp/out"), the new main.main body is $want (old: $(probe_addr "$tmp/out.old"))"
else
  echo "ok - rebuilt in place (Go $old_v -> $new_v, same path and mtime): probe at the new body $want, was $(probe_addr "$tmp/out.old")"
fi
checks=$((checks + 1))
k_new=$(find "$r/gostap" -mindepth 2 -maxdepth 2 -type d ! -name '.tmp.*' -path "$r/gostap/[0-9a-f]*/[0-9a-f]*" ! -path "$k_old")
if [ -n "$k_new" ] && grep -q "statement($want)" "$k_new/go_funcs.stp" &&
   ! grep -q "statement($want)" "$k_old/go_funcs.stp"; then
  echo "ok - a new cache entry for the new build ($(basename "$(dirname "$k_new")")), the old one's untouched"
else
  fail "rebuilt in place: no new cache entry with the new address (old $k_old, new '$k_new')"
fi

# (e) Patched in place: one byte of the demo's "handled %d requests"
# string changed, build id, size and mtime the same (readelf -n prints the
# same notes, so the same build ids): the cache key is the content, so a new entry.
e=$tmp/e
mkdir -m 0700 "$e"
cp -p "$tmp/app/demo" "$tmp/app/demo.orig"
run_p2 "$e" "$tmp/app/demo" > /dev/null 2> "$tmp/err" || fail "patch, first run: $(head -3 "$tmp/err")"
k_before=$(keydir "$e")
off=$(grep -obUa 'handled %d requests' "$tmp/app/demo" | head -1 | cut -d: -f1)
[ -n "$off" ] || hard_error "no 'handled %d requests' string in $tmp/app/demo"
stamp=$(stat -c %y "$tmp/app/demo")
printf 'H' | dd of="$tmp/app/demo" bs=1 seek="$off" conv=notrunc status=none
touch -d "$stamp" "$tmp/app/demo"
checks=$((checks + 1))
# readelf -n: the notes, Go's build id and the GNU one when there is one.
id_before=$(readelf -n "$tmp/app/demo.orig" | md5sum)
id_after=$(readelf -n "$tmp/app/demo" | md5sum)
if [ "$(stat -c %s.%y "$tmp/app/demo")" != "$(stat -c %s.%y "$tmp/app/demo.orig")" ] ||
   cmp -s "$tmp/app/demo" "$tmp/app/demo.orig" || [ "$id_before" != "$id_after" ]; then
  fail "patched copy: size, mtime or build id not kept, or no byte changed ($id_before / $id_after)"
elif ! run_p2 "$e" "$tmp/app/demo" > /dev/null 2> "$tmp/err"; then
  fail "patch, second run: $(head -3 "$tmp/err")"
else
  k_after=$(find "$e/gostap" -mindepth 2 -maxdepth 2 -type d ! -name '.tmp.*' -path "$e/gostap/[0-9a-f]*/[0-9a-f]*" ! -path "$k_before")
  if [ -n "$k_after" ] && [ "$(dirname "$k_after")" != "$(dirname "$k_before")" ]; then
    echo "ok - patched in place (one byte at $off; same build id, size, mtime): a new cache entry $(basename "$(dirname "$k_after")"), was $(basename "$(dirname "$k_before")")"
  else
    fail "patched in place: the cache entry of the original was used ($k_before; other: '$k_after')"
  fi
fi

finish
