/* companion.c: where a companion debug file goes under a debug directory,
   by the rules libdwfl (and so SystemTap) looks it up with, and whether a
   binary needs one.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "companion.h"
#include "util.h"

int
companion_check_needed (const struct go_bin *b)
{
  if (b->has_dwarf)
    {
      error (0, 0, "%s: has DWARF of its own: no companion debug file "
             "needed", b->path);
      return EXIT_ERROR;
    }
  const char *file;
  enum go_dwarf_source s = gobin_dwarf_source (b, &file);
  if (s != GO_DWARF_NONE && !gobin_dwarf_companion (b))
    {
      error (0, 0, "%s: its DWARF is in %s (%s): no companion debug file "
             "needed", b->path, file != NULL ? file : "a debug file",
             gobin_dwarf_source_name (s));
      return EXIT_ERROR;
    }
  return EXIT_OK;
}

char *
companion_path (const struct go_bin *b, const char *dir)
{
  char *path = NULL;
  int n;
  if (b->gnu_build_id != NULL && b->gnu_build_id_len >= 2)
    {
      char hex[2 * 64 + 1];
      hex_string (hex, sizeof hex, b->gnu_build_id, b->gnu_build_id_len);
      n = asprintf (&path, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
    }
  else
    n = asprintf (&path, "%s%s.debug", dir, b->abspath);
  if (n < 0)
    {
      error (0, errno, "asprintf");
      return NULL;
    }
  return path;
}

int
companion_mkdirs (const char *path)
{
  char *dir = strdup (path);
  if (dir == NULL)
    {
      error (0, errno, "strdup");
      return -1;
    }
  char *slash = strrchr (dir, '/');
  int ret = 0;
  if (slash != NULL && slash != dir)
    {
      *slash = '\0';
      if (make_dirs (dir) != 0)
        {
          error (0, errno, "cannot create '%s'", dir);
          ret = -1;
        }
    }
  free (dir);
  return ret;
}
