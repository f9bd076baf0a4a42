/* write-traceback.c: recorded Go stacks (stack.h) in Go's own traceback
   format, the one a panic prints, two lines a frame:
     main.handle(...)
     	/src/demo/main.go:40 +0x3c
   "+0x..." (the pc's offset from the function's entry) on physical frames
   only, and not at the entry itself, as Go prints it; the arguments, which a record does not carry,
   as "(...)", Go's notation for the arguments of an inlined frame.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"

enum { MAX_FRAMES = 4 * STACK_MAX_PCS };

/* Write N bytes of S, control characters as '?': names and paths come
   from the binary and go to a terminal.  */
static void
put_clean (FILE *out, const char *s, size_t n)
{
  size_t i = 0;
  while (i < n)
    {
      size_t j = i;
      while (j < n && (unsigned char) s[j] >= 0x20 && s[j] != 0x7f)
        j++;
      fwrite (s + i, 1, j - i, out);
      if (j < n)
        {
          putc ('?', out);
          j++;
        }
      i = j;
    }
}

/* runtime.funcNameForPrint: a generic function's shape arguments, the
   text from the first '[' to the last ']', printed as "[...]".  */
static void
put_func_name (FILE *out, const char *name)
{
  const char *open = strchr (name, '['), *close = strrchr (name, ']');
  if (open == NULL || close == NULL || close < open)
    {
      put_clean (out, name, strlen (name));
      return;
    }
  put_clean (out, name, (size_t) (open - name));
  fputs ("[...]", out);
  put_clean (out, close + 1, strlen (close + 1));
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
      put_func_name (out, f->func);
      fputs ("(...)\n\t", out);
      if (f->file != NULL)
        put_clean (out, f->file, strlen (f->file));
      else
        putc ('?', out);
      fprintf (out, ":%" PRId32, f->line);
      if (!f->inlined && f->pc > f->entry)
        fprintf (out, " +%#" PRIx64, f->pc - f->entry);
    }
  if (r->end == 't')
    fputs ("\n...additional frames elided...", out);
  else if (r->end == 'x')
    fputs ("\n...frame pointer unreadable, stack cut here...", out);
}

int
write_traceback_filter (FILE *in, FILE *out, const struct go_bin *b,
                        const char *name)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int ret = 0;
  struct stack_record *r = malloc (sizeof *r);
  struct stack_cache *c = stack_cache_new (b);
  if (r == NULL || c == NULL)
    {
      error (0, errno, "malloc");
      free (r);
      stack_cache_free (c);
      return -1;
    }
  while ((len = getline (&line, &cap, in)) > 0)
    {
      const char *p = line, *end = line + len, *t;
      while ((t = memmem (p, (size_t) (end - p), STACK_TOKEN,
                          strlen (STACK_TOKEN))) != NULL)
        {
          size_t tlen;
          fwrite (p, 1, (size_t) (t - p), out);
          if (memchr (t, '\0', (size_t) (end - t)) == NULL
              && stack_parse (t, r, &tlen))
            {
              write_traceback (out, c, r);
              p = t + tlen;
            }
          else
            {
              putc (*t, out);
              p = t + 1;
            }
        }
      fwrite (p, 1, (size_t) (end - p), out);
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
  free (r);
  stack_cache_free (c);
  return ret;
}
