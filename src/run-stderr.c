/* run-stderr.c: stap's standard error as gostap run relays it.  gostap
   places return probes on RET instructions and entry probes after the
   stack check, where the line table of a Go function often has no row;
   stap then warns once a probe:
     WARNING: address 0x45d9af does not match the beginning of a statement (try 0x45d9a0)
   These warnings, for addresses inside a Go function of the target, are
   folded into one line with their count; every other line passes as it
   is, in order, and a partial line is held only while it may still
   become such a warning (a prompt of the program stap runs with -c
   appears at once).  With a --sysroot of gostap's (run-aranges.c), stap
   4.8 warns of missing unwind data for the program of -c under a path of
   its own making in the sysroot: that line is dropped.  */

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

#define WARNING_HEAD "WARNING: address 0x"
#define WARNING_TAIL " does not match the beginning of a statement"
#define UNWIND_HEAD "WARNING: missing unwind/symbol data for module '"

/* Is LINE (LEN bytes, its newline included) stap's warning for a probe
   gostap placed between line-table rows?  Its address into *ADDR.  */
static bool
placed_warning (const struct go_bin *b, const char *line, size_t len,
                uint64_t *addr)
{
  size_t h = sizeof WARNING_HEAD - 1, t = sizeof WARNING_TAIL - 1;
  if (len < h || memcmp (line, WARNING_HEAD, h) != 0)
    return false;
  /* LINE is NUL-terminated (run-stap.c's stream_lines).  */
  const char *p = line + h, *end = line + len;
  uint64_t a, ignored;
  if (!parse_hex (&p, &a) || (size_t) (end - p) < t
      || memcmp (p, WARNING_TAIL, t) != 0)
    return false;
  /* The rest: " (try 0x...)" or nothing, and the newline.  */
  p += t;
  if (p < end && *p == ' ')
    {
      if ((size_t) (end - p) < 8 || memcmp (p, " (try 0x", 8) != 0)
        return false;
      p += 8;
      if (!parse_hex (&p, &ignored) || p == end || *p++ != ')')
        return false;
    }
  if (p < end && *p == '\n')
    p++;
  if (p != end)
    return false;
  *addr = a;
  return gobin_func_at (b, a) != NULL;
}

/* Is LINE stap's warning for the program of -c, which it looks for in
   the sysroot gostap gave it under a path of its own making (stap 4.8
   with -c ./prog and --sysroot=S warns of "S/CWD/S./prog")?  The same
   file's symbols and unwind data come from the -d gostap passes, so
   the warning is dropped.  */
static bool
sysroot_unwind_warning (const struct run_stderr *e, const char *line,
                        size_t len)
{
  size_t h = sizeof UNWIND_HEAD - 1, s;
  if (e->sysroot == NULL || len < h || memcmp (line, UNWIND_HEAD, h) != 0)
    return false;
  s = strlen (e->sysroot);
  return len - h > s && memcmp (line + h, e->sysroot, s) == 0;
}

void
run_stderr_line (struct run_stderr *e, const char *line, size_t len)
{
  uint64_t addr;
  if (!e->all && placed_warning (e->b, line, len, &addr))
    {
      if (e->folded++ == 0)
        e->first = addr;
      return;
    }
  if (!e->all && sysroot_unwind_warning (e, line, len))
    return;
  run_stderr_flush (e);
  fwrite (line, 1, len, stderr);
}

bool
run_stderr_may_fold (const struct run_stderr *e, const char *part,
                     size_t len)
{
  size_t h = sizeof WARNING_HEAD - 1, u = sizeof UNWIND_HEAD - 1;
  return !e->all && (memcmp (part, WARNING_HEAD, len < h ? len : h) == 0
                     || (e->sysroot != NULL
                         && memcmp (part, UNWIND_HEAD, len < u ? len : u)
                         == 0));
}

void
run_stderr_flush (struct run_stderr *e)
{
  if (e->folded == 0)
    return;
  fprintf (stderr, "gostap: %zu probe%s placed between line-table rows on "
           "purpose (RET sites, function bodies), first at 0x%" PRIx64
           ": stap's warning \"does not match the beginning of a "
           "statement\" folded (gostap run -v prints each)\n",
           e->folded, e->folded == 1 ? "" : "s", e->first);
  e->folded = 0;
}
