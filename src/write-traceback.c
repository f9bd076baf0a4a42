/* write-traceback.c: recorded Go stacks (stack.h) in Go's own traceback
   format, the one a panic prints, two lines a frame:
     main.handle(...)
     	/src/demo/main.go:40 +0x3c
   "+0x..." (the pc's offset from the function's entry) on physical frames
   only, and not at the entry itself, as Go prints it; the arguments,
   which a record does not carry, as "(...)", Go's notation for the
   arguments of an inlined frame.  Names and paths come from the binary and
   go to a terminal: escaped as gostap list escapes them (out.c).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "profile.h"
#include "stack.h"

enum { MAX_FRAMES = 4 * STACK_MAX_PCS };

void
write_func_name (FILE *out, const char *name)
{
  size_t open, close;
  if (!stack_shape_span (name, &open, &close))
    {
      out_text_string (out, name);
      return;
    }
  out_text_mem (out, name, open);
  fputs ("[...]", out);
  out_text_string (out, name + close + 1);
}

/* ":LINE" and, when OFF is not 0, " +0xOFF": what fprintf would print,
   formatted here (the symbolizer writes it for every frame).  */
static void
write_line_offset (FILE *out, int32_t line, uint64_t off)
{
  char buf[48], *p = buf + sizeof buf;
  if (off != 0)
    {
      for (; off != 0; off >>= 4)
        *--p = "0123456789abcdef"[off & 15];
      *--p = 'x';
      *--p = '0';
      *--p = '+';
      *--p = ' ';
    }
  uint32_t u = line < 0 ? 0 - (uint32_t) line : (uint32_t) line;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (line < 0)
    *--p = '-';
  *--p = ':';
  fwrite (p, 1, (size_t) (buf + sizeof buf - p), out);
}

void
write_traceback (FILE *out, struct stack_cache *c,
                 const struct stack_record *r)
{
  struct stack_frame frames[MAX_FRAMES];
  size_t n = stack_frames (c, r, frames, MAX_FRAMES);
  for (size_t i = 0; i < n; i++)
    {
      const struct stack_frame *f = &frames[i];
      if (i > 0)
        putc ('\n', out);
      if (f->func == NULL)
        {
          fprintf (out, "?(...)\n\t? pc=%#" PRIx64, f->pc);
          continue;
        }
      write_func_name (out, f->func);
      fputs ("(...)\n\t", out);
      if (f->file != NULL)
        out_text_string (out, f->file);
      else
        putc ('?', out);
      write_line_offset (out, f->line,
                         !f->inlined && f->pc > f->entry
                         ? f->pc - f->entry : 0);
    }
  if (r->end == 't')
    fputs ("\n...additional frames elided...", out);
  else if (r->end == 'x')
    fputs ("\n...frame pointer unreadable, stack cut here...", out);
}

/* The expansion's state: a record, and the profile the profile lines go
   to, whose cache of expanded pcs (profile.h) the records share.  */
struct traceback_filter
{
  struct stack_record record;
  struct profile *prof;
  bool own_prof;                /* prof is the filter's: profile lines are
                                   written as text */
  size_t lineno;
};

struct traceback_filter *
write_traceback_begin (const struct go_bin *b, struct profile *prof)
{
  struct traceback_filter *t = calloc (1, sizeof *t);
  if (t == NULL)
    {
      error (0, errno, "calloc");
      return NULL;
    }
  t->prof = prof;
  if (prof == NULL && (t->prof = profile_new (b)) == NULL)
    {
      free (t);
      return NULL;
    }
  t->own_prof = prof == NULL;
  return t;
}

void
write_traceback_end (struct traceback_filter *t)
{
  if (t == NULL)
    return;
  if (t->own_prof)
    profile_free (t->prof);
  free (t);
}

void
write_traceback_line (struct traceback_filter *t, FILE *out,
                      const char *line, size_t len)
{
  const char *p = line, *end = line + len, *tok;
  if (profile_line (t->prof, line, len, ++t->lineno,
                    t->own_prof ? out : NULL))
    return;
  while ((tok = memmem (p, (size_t) (end - p), STACK_TOKEN,
                        strlen (STACK_TOKEN))) != NULL)
    {
      size_t tlen;
      fwrite (p, 1, (size_t) (tok - p), out);
      /* stack_parse stops at the NUL after the line, or at one inside
         it (then the text is copied as it is).  */
      if (memchr (tok, '\0', (size_t) (end - tok)) == NULL
          && stack_parse (tok, &t->record, &tlen))
        {
          write_traceback (out, t->prof->cache, &t->record);
          p = tok + tlen;
        }
      else
        {
          putc (*tok, out);
          p = tok + 1;
        }
    }
  fwrite (p, 1, (size_t) (end - p), out);
}

int
write_traceback_filter (FILE *in, FILE *out, const struct go_bin *b,
                        struct profile *prof, const char *name)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int ret = 0;
  struct traceback_filter *t = write_traceback_begin (b, prof);
  if (t == NULL)
    return -1;
  while ((len = getline (&line, &cap, in)) > 0)
    {
      write_traceback_line (t, out, line, (size_t) len);
      if (fflush (out) != 0)
        {
          error (0, errno, "writing the output");
          ret = -1;
          goto out;
        }
    }
  if (ferror (in))
    {
      error (0, errno, "%s: read", name);
      ret = -1;
    }
out:
  free (line);
  write_traceback_end (t);
  return ret;
}
