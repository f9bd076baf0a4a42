#!/bin/bash
# The documentation against the code: README stays a short guide, the
# manual pages it names are built and render, gostap(1) has every option
# each command's --help shows, gostap-examples(7) every example script,
# the pages name no tapset function that does not exist, and `man` finds
# every page after `make install`.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

builddir=$(cd "$(dirname "$GOSTAP")/.." && pwd)
readme=$top_srcdir/README.md

# README: a guide of at most 300 lines with the two set-up commands.
checks=$((checks + 1))
n=$(wc -l < "$readme")
if [ "$n" -le 300 ] && grep -q '^tools/demo.sh ' "$readme" && grep -q '^tools/check.sh ' "$readme"; then
  echo "ok - README.md: $n lines, the two quick-start commands"
else
  fail "README.md: $n lines (at most 300), or tools/demo.sh / tools/check.sh missing from its quick start"
fi

# The pages README names: built (make), and groff renders them without a
# warning but those about lines it cannot break or adjust.
pages=$(sed -n 's/^| \(gostap[a-z-]*\)(\([17]\)) |.*/\1.\2/p' "$readme")
checks=$((checks + 1))
bad=
for p in $pages; do
  f=$builddir/doc/$p
  [ -f "$f" ] || f=$top_srcdir/doc/$p
  if [ ! -f "$f" ]; then
    bad="$bad $p (not built)"
  elif ! groff -t -man -Tutf8 -z -ww -Wbreak "$f" > "$tmp/groff" 2>&1 || [ -s "$tmp/groff" ]; then
    bad="$bad $p ($(head -1 "$tmp/groff"))"
  fi
done
if [ -z "$pages" ]; then
  fail "README.md names no manual page in its table"
elif [ -z "$bad" ]; then
  echo "ok - the $(echo "$pages" | wc -w) pages README names are built and render: $(echo $pages)"
else
  fail "manual pages:$bad"
fi

# gostap(1) has every long option of every command's --help.
checks=$((checks + 1))
missing=
for c in list gen run doctor companion symbolize types; do
  "$GOSTAP" "$c" --help > "$tmp/help" 2>&1 || true
  for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
    case $o in --help|--usage|--version) continue ;; esac
    grep -q -- "$(sed 's/-/\\\\-/g' <<< "$o")" "$top_srcdir/doc/gostap.1" || missing="$missing $c:$o"
  done
done
if [ -z "$missing" ]; then
  echo "ok - gostap(1) names every option of every command's --help"
else
  fail "gostap(1) lacks:$missing"
fi

# gostap-examples(7) describes every example script.
checks=$((checks + 1))
missing=
for s in "$top_srcdir"/examples/*.stp; do
  grep -q "$(basename "$s")" "$top_srcdir/doc/gostap-examples.7.md" || missing="$missing $(basename "$s")"
done
if [ -z "$missing" ]; then
  echo "ok - gostap-examples(7) describes every script of examples/"
else
  fail "gostap-examples(7) lacks:$missing"
fi

# No page or README names a go_* function or @go_* macro that exists
# nowhere: the static tapsets define it, or gostap writes it into
# go_target.stp (src/write-*.c), or expands it (@go_fmt).
checks=$((checks + 1))
grep -oh '@\?\bgo_[a-z0-9_]*(' "$readme" "$top_srcdir"/doc/*.md | sort -u | tr -d '(' > "$tmp/named"
stale=
while read -r f; do
  case $f in
    # @go_fmt: gostap run expands it (src/run-gofmt.c)
    @go_fmt) grep -q '"@go_fmt"' "$top_srcdir"/src/run-gofmt.c || stale="$stale $f" ;;
    @*) grep -q "^@define ${f#@}\b" "$top_srcdir"/tapsets/*.stpm || stale="$stale $f" ;;
    *) grep -q "^function $f\b\|^function $f:" "$top_srcdir"/tapsets/*.stp "$top_srcdir"/tapsets/*.stpm ||
         grep -q "function $f[: ]" "$top_srcdir"/src/write-*.c || stale="$stale $f" ;;
  esac
done < "$tmp/named"
if [ -z "$stale" ]; then
  echo "ok - the $(wc -l < "$tmp/named") go_* functions and @go_* macros README and the pages name exist (tapsets/, src/write-*.c)"
else
  fail "functions the documentation names but nothing defines:$stale"
fi

# man finds every page after make install.
checks=$((checks + 1))
if make -C "$builddir" install DESTDIR="$tmp/inst" > "$tmp/install.log" 2>&1; then
  mandir=$(find "$tmp/inst" -type d -name man -path '*/share/man' | head -1)
  bad=
  for p in $pages gostap-tapsets.7; do
    name=${p%.*}
    MANWIDTH=80 man -M "$mandir" "$name" > "$tmp/man.out" 2>&1 && grep -qi "^NAME" "$tmp/man.out" ||
      bad="$bad $name"
  done
  if [ -z "$bad" ]; then
    echo "ok - after make install, man finds and renders every page ($mandir)"
  else
    fail "after make install, man cannot show:$bad"
  fi
else
  fail "make install DESTDIR=...: $(tail -3 "$tmp/install.log")"
fi
finish
