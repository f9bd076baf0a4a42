/* run-script.c: what a SystemTap script needs from gostap: the go.func
   probe points it names (wildcards included) and whether it uses a static
   alias built on a return alias.  Comments are not stripped: a name in a
   comment only makes gostap generate one alias more.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static bool
ident_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9') || c == '_';
}

static int
add_pattern (struct run_script *s, const char *p, size_t n)
{
  char **nv = reallocarray (s->patterns, s->npatterns + 1, sizeof *nv);
  if (nv == NULL)
    return -1;
  s->patterns = nv;
  if ((s->patterns[s->npatterns] = strndup (p, n)) == NULL)
    return -1;
  s->npatterns++;
  return 0;
}

int
run_read_script (struct run_script *s, const char *path,
                 const char *inline_text)
{
  memset (s, 0, sizeof *s);
  if (inline_text != NULL)
    s->text = strdup (inline_text);
  else
    {
      FILE *f = fopen (path, "r");
      if (f == NULL)
        {
          error (0, errno, "%s: cannot open", path);
          return -1;
        }
      size_t size = 0;
      FILE *m = open_memstream (&s->text, &size);
      char buf[8192];
      size_t k;
      while (m != NULL && (k = fread (buf, 1, sizeof buf, f)) > 0)
        fwrite (buf, 1, k, m);
      bool bad = ferror (f);
      fclose (f);
      if (m == NULL || fclose (m) != 0 || bad)
        {
          error (0, errno, "%s: cannot read", path);
          return -1;
        }
    }
  if (s->text == NULL)
    return -1;
  for (const char *p = s->text; (p = strstr (p, "go.")) != NULL; p++)
    {
      if (p > s->text && (ident_char (p[-1]) || p[-1] == '.'))
        continue;
      if (strncmp (p, "go.goroutine.create", 19) == 0
          || strncmp (p, "go.gc.done", 10) == 0)
        s->runtime_returns = true;
      if (strncmp (p, "go.func.", 8) != 0)
        continue;
      size_t n = 8;
      while (ident_char (p[n]) || p[n] == '.' || p[n] == '*' || p[n] == '?'
             || p[n] == '[' || p[n] == ']')
        n++;
      while (n > 8 && p[n - 1] == '.')
        n--;
      if (n > 8 && add_pattern (s, p, n) != 0)
        {
          error (0, errno, "out of memory");
          return -1;
        }
    }
  return 0;
}

void
run_script_free (struct run_script *s)
{
  for (size_t i = 0; i < s->npatterns; i++)
    free (s->patterns[i]);
  free (s->patterns);
  free (s->text);
  memset (s, 0, sizeof *s);
}
