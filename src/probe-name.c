/* probe-name.c: the mapping of a Go symbol name to the SystemTap probe
   alias `go.func.<name>`, and back.

   SystemTap probe point components are identifiers ([A-Za-z_][A-Za-z0-9_]*).
   A Go name is a package path, then '.', then the symbol, whose parts are
   separated by '.' outside brackets:
       github.com/x/y.(*T[go.shape.int]).M-fm
       `--------------' `------------------'
          package          T-type . method
   The package path is one component and each part of the symbol another,
   so `probe go.func.main.*` and `probe go.func.net__http.*` select a
   package.  Inside a component:
       letters and digits     as they are (a leading digit is escaped)
       '/'                    "__"
       a pointer receiver     "(*T)" becomes "_P" followed by T
       any other byte         "_" and two lowercase hex digits ("_" is "_5f")
       an empty part          "_" alone (Go writes "type..eq.T", "glob..func1")
   A name shared by several functions that are not ABI wrappers (Go
   1.18-1.20 name generic instantiations "F[...]") gets, after the first, a
   last component "_E" and the entry address in hex.
   Every escape starts with '_' followed by '_', 'P', 'E' or two hex digits, so
   the mapping decodes back to the Go name: it is collision-free.  */

#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "gobin.h"
#include "probe-name.h"

static bool
is_alnum (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9');
}

/* Append the escaped bytes S[0..N) to OUT as one component.  */
static void
put_component (FILE *out, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *) s;
  if (n >= 4 && p[0] == '(' && p[1] == '*' && p[n - 1] == ')')
    {
      fputs ("_P", out);
      p += 2;
      n -= 3;
    }
  else if (n == 0)
    {
      fputs ("_", out);         /* an empty part, as in "glob..func1" */
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = p[i];
      if (c == '/')
        fputs ("__", out);
      else if (is_alnum (c) && !(i == 0 && c >= '0' && c <= '9'))
        putc (c, out);
      else
        fprintf (out, "_%02x", c);
    }
}

/* The package path ends at the first '.' after the last '/'.  */
static size_t
package_end (const char *name)
{
  const char *slash = strrchr (name, '/');
  const char *dot = strchr (slash ? slash : name, '.');
  return dot ? (size_t) (dot - name) : strlen (name);
}

char *
probe_name (const char *goname)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&buf, &size);
  if (out == NULL)
    return NULL;
  size_t pkg = package_end (goname);
  put_component (out, goname, pkg);
  const char *s = goname + pkg;
  while (*s == '.')
    {
      s++;
      /* A part runs to the next '.' outside brackets and parentheses.  */
      int depth = 0;
      size_t n = 0;
      for (; s[n] != '\0'; n++)
        {
          if (s[n] == '[' || s[n] == '(')
            depth++;
          else if ((s[n] == ']' || s[n] == ')') && depth > 0)
            depth--;
          else if (s[n] == '.' && depth == 0)
            break;
        }
      putc ('.', out);
      put_component (out, s, n);
      s += n;
    }
  if (fclose (out) != 0)
    {
      free (buf);
      return NULL;
    }
  return buf;
}

char *
func_probe_name (const struct go_func *f)
{
  char *p = probe_name (f->name);
  if (p == NULL || f->dup_index == 0)
    return p;
  char *q;
  if (asprintf (&q, "%s._E%" PRIx64, p, f->entry) < 0)
    q = NULL;
  free (p);
  return q;
}

static int
hex_digit (unsigned char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

char *
probe_name_decode (const char *alias, uint64_t *entry)
{
  *entry = 0;
  size_t end = strlen (alias);
  if (end == 0)
    return NULL;
  /* A last component "_E" and hex digits: the entry of a twin.  */
  const char *last = strrchr (alias, '.');
  if (last != NULL && last[1] == '_' && last[2] == 'E' && last[3] != '\0'
      && strspn (last + 3, "0123456789abcdef") == strlen (last + 3)
      && strlen (last + 3) <= 16)
    {
      *entry = strtoull (last + 3, NULL, 16);
      end = (size_t) (last - alias);
    }
  /* Decoding shrinks every escape but "_P", which adds one byte.  */
  char *out = malloc (2 * end + 2), *o = out;
  if (out == NULL)
    return NULL;
  const char *s = alias, *stop = alias + end;
  while (s < stop)
    {
      const char *e = memchr (s, '.', (size_t) (stop - s));
      if (e == NULL)
        e = stop;
      if (s != alias)
        *o++ = '.';
      if (e == s)
        goto bad;               /* an empty component */
      if (e - s == 1 && s[0] == '_')
        s = e;                  /* "_": an empty part */
      bool ptr = e - s > 2 && s[0] == '_' && s[1] == 'P';
      if (ptr)
        {
          *o++ = '(';
          *o++ = '*';
          s += 2;
        }
      while (s < e)
        {
          unsigned char c = (unsigned char) *s;
          if (c != '_')
            {
              if (!is_alnum (c))
                goto bad;
              *o++ = (char) c;
              s++;
            }
          else if (e - s >= 2 && s[1] == '_')
            {
              *o++ = '/';
              s += 2;
            }
          else if (e - s >= 3 && hex_digit (s[1]) >= 0 && hex_digit (s[2]) >= 0
                   && (hex_digit (s[1]) | hex_digit (s[2])) != 0)
            {
              *o++ = (char) (hex_digit (s[1]) * 16 + hex_digit (s[2]));
              s += 3;
            }
          else
            goto bad;
        }
      if (ptr)
        *o++ = ')';
      s = e + (e < stop);
    }
  *o = '\0';
  return out;
bad:
  free (out);
  return NULL;
}
