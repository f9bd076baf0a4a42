#!/bin/bash
# Build the libFuzzer harness fuzz/fuzz-reader.c with clang, ASan and UBSan,
# from libgobin (libgobin/*.c) and the writer sources (src/*.c but the
# command line: gostap.c and cmd-*.c), without configure: a minimal config.h is written
# beside the objects.
#
# Usage: fuzz/build.sh [OUTDIR]
#   OUTDIR defaults to $GOSTAP_TEST_CACHE/fuzz/build (~/.cache/gostap-test/...).
#   Prints the path of the fuzzer program on stdout.
# Environment: CLANG (default clang), FUZZ_CFLAGS (added to the flags).
# Exit status 0 built; 77 clang cannot build a libFuzzer program here
# (Debian: apt-get install clang libclang-rt-14-dev); 1 other error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
CACHE=${GOSTAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gostap-test}
out=${1:-$CACHE/fuzz/build}
CLANG=${CLANG:-clang}
mkdir -p "$out/obj"

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# Can clang link a libFuzzer program here?
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz/build.sh: no $CLANG" >&2; exit 77; }
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput (const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }\n' \
  > "$out/probe.c"
if ! "$CLANG" -fsanitize=fuzzer $san "$out/probe.c" -o "$out/probe" 2>"$out/probe.log"; then
  echo "fuzz/build.sh: $CLANG cannot build a libFuzzer program here (Debian: clang libclang-rt-14-dev):" >&2
  head -3 "$out/probe.log" >&2
  exit 77
fi
rm -f "$out/probe" "$out/probe.c" "$out/probe.log"

# What the sources take from config.h (they include it first).
cat > "$out/config.h.new" <<'EOH'
/* config.h for fuzz/build.sh */
#ifndef _GNU_SOURCE
# define _GNU_SOURCE 1
#endif
#define PACKAGE "gostap"
#define PACKAGE_NAME "gostap"
#define PACKAGE_VERSION "0.0-fuzz"
#define PACKAGE_STRING "gostap 0.0-fuzz"
#define VERSION "0.0-fuzz"
#define GOSTAP_TAPSETDIR "/nonexistent/gostap/tapset"
EOH
cmp -s "$out/config.h.new" "$out/config.h" 2>/dev/null && rm "$out/config.h.new" ||
  mv "$out/config.h.new" "$out/config.h"

cflags="-g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter $san
  -I$out -I$top/src -I$top/libgobin $(pkg-config --cflags libdw libelf capstone libprotobuf-c zlib) ${FUZZ_CFLAGS:-}"
libs="$(pkg-config --libs libdw libelf capstone libprotobuf-c zlib) -lZydis"

# The pprof schema's C code (src/profile.proto), as the Makefile makes it.
command -v protoc-c >/dev/null 2>&1 || { echo "fuzz/build.sh: no protoc-c (Debian: protobuf-c-compiler)" >&2; exit 1; }
if [ ! -f "$out/profile.pb-c.c" ] || [ "$top/src/profile.proto" -nt "$out/profile.pb-c.c" ]; then
  protoc-c --c_out="$out" --proto_path="$top/src" "$top/src/profile.proto"
fi

objs=()
for c in "$top"/libgobin/*.c "$top"/src/*.c "$out/profile.pb-c.c" "$here/fuzz-reader.c"; do
  base=${c##*/}
  case $base in gostap.c|cmd-*.c) continue ;; esac
  # (an in-tree build leaves its own profile.pb-c.c in src/: this one's
  # is in $out)
  [ "$c" = "$top/src/profile.pb-c.c" ] && continue
  # (named by folder too: libgobin/ and src/ both have a util.c)
  dir=${c%/*}; o=$out/obj/${dir##*/}-${base%.c}.o
  extra=-fsanitize=fuzzer-no-link   # coverage instrumentation everywhere
  # Rebuild when the source, any header or config.h is newer.
  if [ ! -f "$o" ] || [ -n "$(find "$c" "$top"/src/*.h "$top"/libgobin/*.h "$out/config.h" -newer "$o" 2>/dev/null | head -1)" ]; then
    # shellcheck disable=SC2086
    # (a failed compile must stop the build: the stale object of an older
    # source would be linked against the new ones)
    if ! "$CLANG" $cflags $extra -c "$c" -o "$o.tmp"; then
      echo "fuzz/build.sh: $c does not compile" >&2
      exit 1
    fi
    mv "$o.tmp" "$o"
  fi
  objs+=("$o")
done
# shellcheck disable=SC2086
"$CLANG" -fsanitize=fuzzer $san "${objs[@]}" $libs -o "$out/fuzz-reader.tmp"
mv "$out/fuzz-reader.tmp" "$out/fuzz-reader"
echo "$out/fuzz-reader"
