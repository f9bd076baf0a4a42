/* stp-write.c: see stp-write.h.  */

#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stp-write.h"

void
stp_string (FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *) str;
  putc ('"', f);
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        fprintf (f, "\\%c", *s);
      else if (*s >= 0x20 && *s < 0x7f)
        putc (*s, f);
      else
        fprintf (f, "\\%03o", *s);
    }
  putc ('"', f);
}

void
stp_comment_text (FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *) str;
  for (unsigned char prev = 0; *s; prev = *s++)
    {
      unsigned char c = *s;
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9') || strchr (" ._()[]:-", c) != NULL
        || (c == '/' && prev != '*') || (c == '*' && prev != '/');
      putc (ok && c != '\0' ? c : '?', f);
    }
}

int
stp_file_open (struct stp_file *sf, const char *dir, const char *name)
{
  memset (sf, 0, sizeof *sf);
  if (asprintf (&sf->path, "%s/%s", dir, name) < 0
      || asprintf (&sf->tmp, "%s/.%s.tmp.XXXXXX", dir, name) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  int fd = mkstemp (sf->tmp);
  if (fd < 0)
    {
      error (0, errno, "cannot create a file in '%s'", dir);
      free (sf->tmp);
      sf->tmp = NULL;
      return -1;
    }
  sf->f = fdopen (fd, "w");
  if (sf->f == NULL)
    {
      error (0, errno, "fdopen");
      close (fd);
      return -1;
    }
  return 0;
}

int
stp_file_open_path (struct stp_file *sf, const char *path)
{
  memset (sf, 0, sizeof *sf);
  const char *slash = strrchr (path, '/');
  const char *name = slash != NULL ? slash + 1 : path;
  if (*name == '\0')
    {
      error (0, 0, "'%s': not a file name", path);
      return -1;
    }
  /* Its directory: "/" for "/NAME", "." for a NAME alone.  */
  char *dir = slash == NULL ? strdup (".")
    : strndup (path, slash == path ? 1 : (size_t) (slash - path));
  if (dir == NULL)
    {
      error (0, errno, "strdup");
      return -1;
    }
  int ret = stp_file_open (sf, dir, name);
  free (dir);
  return ret;
}

int
stp_file_close (struct stp_file *sf, int ok)
{
  int ret = 0;
  if (sf->f != NULL)
    {
      if (fchmod (fileno (sf->f), 0644) != 0 || fflush (sf->f) != 0
          || ferror (sf->f))
        {
          if (ok)
            error (0, errno, "cannot write '%s'", sf->tmp);
          ok = 0;
        }
      if (fclose (sf->f) != 0 && ok)
        {
          error (0, errno, "cannot write '%s'", sf->tmp);
          ok = 0;
        }
    }
  if (sf->tmp != NULL)
    {
      if (ok && rename (sf->tmp, sf->path) != 0)
        {
          error (0, errno, "cannot rename '%s' to '%s'", sf->tmp, sf->path);
          ok = 0;
        }
      if (!ok)
        unlink (sf->tmp);
    }
  ret = ok ? 0 : -1;
  free (sf->path);
  free (sf->tmp);
  memset (sf, 0, sizeof *sf);
  return ret;
}
