#!/bin/bash
# The two folders of C keep apart (HACKING.md, "Where things are"):
# libgobin/ is the reader, a library whose users see one header, gobin.h;
# src/ (the commands, the model, the writers, gostap run) includes that
# header of it and nothing else, and the library includes nothing of src/.
# Read from the sources themselves: every #include "..." and every
# function gobin.h declares.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

top=$top_srcdir
lib=$top/libgobin
src=$top/src
[ -f "$lib/gobin.h" ] && [ -d "$src" ] || hard_error "no libgobin/gobin.h or src/ under $top"

# includes FILE: the names FILE includes with quotes, one a line.
includes () { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

# 1. src/ includes of libgobin only gobin.h; its other quoted includes are
# its own headers, config.h, or what the build generates (profile.pb-c.h).
for f in "$src"/*.c "$src"/*.h; do
  checks=$((checks + 1))
  bad=
  for h in $(includes "$f"); do
    case $h in
      config.h | profile.pb-c.h | gobin.h) ;;
      *) [ -f "$src/$h" ] || bad="$bad $h" ;;
    esac
  done
  if [ -n "$bad" ]; then
    fail "${f#"$top"/} includes${bad}: not a header of src/, and of libgobin/ only gobin.h may be"
  else
    echo "ok - ${f#"$top"/}: of the library, gobin.h only"
  fi
done

# 2. libgobin/ includes nothing of src/.
for f in "$lib"/*.c "$lib"/*.h; do
  checks=$((checks + 1))
  bad=
  for h in $(includes "$f"); do
    case $h in config.h) ;; *) [ -f "$lib/$h" ] || bad="$bad $h" ;; esac
  done
  if [ -n "$bad" ]; then
    fail "${f#"$top"/} includes${bad}, which libgobin/ does not have"
  else
    echo "ok - ${f#"$top"/}: the library's own headers only"
  fi
done

# 3. Every function gobin.h declares is defined in libgobin/ (a name at the
# start of a line, then " (", in a .c file), so the header says nothing the
# library does not do.  Declarations: a line with NAME ( after a type,
# ending the declaration with ");" on it or a later line.
decls=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\) (.*/\1/p' "$lib/gobin.h" | sort -u)
[ -n "$decls" ] || hard_error "found no function declarations in libgobin/gobin.h"
missing=
n=0
for d in $decls; do
  n=$((n + 1))
  grep -q "^$d (" "$lib"/*.c || missing="$missing $d"
done
checks=$((checks + 1))
if [ -n "$missing" ]; then
  fail "libgobin/gobin.h declares$missing, which no file of libgobin/ defines"
else
  echo "ok - each of the $n functions libgobin/gobin.h declares is defined in libgobin/"
fi
finish
