/* out.c: safe output of strings read from binaries (see out.h).  */

#include "config.h"

#include <string.h>

#include "out.h"

int
utf8_len (const unsigned char *s)
{
  unsigned c = s[0];
  int n;
  unsigned min;
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, min = 0x10000;
  else
    return 0;
  unsigned cp = c & (0x7f >> n);
  for (int i = 1; i < n; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (s[i] & 0x3f);
    }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

void
out_json_string (FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *) str;
  putc ('"', f);
  while (*s)
    {
      int n = utf8_len (s);
      if (n == 0)
        {
          fputs ("\\ufffd", f);
          s++;
        }
      else if (*s == '"' || *s == '\\')
        {
          putc ('\\', f);
          putc (*s++, f);
        }
      else if (*s < 0x20 || *s == 0x7f)
        fprintf (f, "\\u%04x", *s++);
      else
        {
          fwrite (s, 1, (size_t) n, f);
          s += n;
        }
    }
  putc ('"', f);
}

void
out_text_mem (FILE *f, const char *str, size_t len)
{
  const unsigned char *s = (const unsigned char *) str, *end = s + len;
  while (s < end)
    {
      /* The longest run that needs no escape, written at once.  */
      const unsigned char *run = s;
      while (s < end)
        {
          if (*s >= 0x20 && *s < 0x7f && *s != '\\')
            s++;
          else
            {
              int n = *s >= 0x80 ? utf8_len (s) : 0;
              if (n == 0 || n > end - s)
                break;
              s += n;
            }
        }
      if (s > run)
        fwrite (run, 1, (size_t) (s - run), f);
      if (s < end)
        fprintf (f, "\\x%02x", *s++);
    }
}

void
out_text_string (FILE *f, const char *str)
{
  out_text_mem (f, str, strlen (str));
}
