/* run-cache.c: where `gostap run` keeps the tapsets it generated.

   CACHE/gostap/BINKEY/KEY/, CACHE being $XDG_CACHE_HOME or ~/.cache.
   BINKEY hashes what decides everything generated for the binary: gostap's
   version and the version of what it generates (WRITE_FORMAT), the
   binary's build id, path, size and mtime, and for a binary
   without DWARF of its own the separate debug file found for it (its
   source, path, size and mtime: read-debuginfo.c); KEY adds the script's
   probe points.  So a cache hit costs no walk over the binary's functions.
   A directory is written under a temporary name beside its final one and
   renamed into place only complete: a lost race with another gostap run
   leaves the first one's.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gobin.h"
#include "run.h"
#include "write.h"

char *
run_cache_root (void)
{
  const char *x = getenv ("XDG_CACHE_HOME"), *home = getenv ("HOME");
  char *r = NULL;
  if (x != NULL && x[0] == '/')
    {
      if (asprintf (&r, "%s/gostap", x) < 0)
        r = NULL;
    }
  else if (home != NULL && asprintf (&r, "%s/.cache/gostap", home) < 0)
    r = NULL;
  if (r == NULL)
    error (0, 0, "no cache directory: set HOME or XDG_CACHE_HOME");
  return r;
}

char *
run_cache_debug_dir (void)
{
  char *root = run_cache_root (), *dir = NULL;
  if (root != NULL && asprintf (&dir, "%s/debug", root) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
    }
  free (root);
  return dir;
}

char *
run_cache_dir (const struct go_bin *b, const struct run_script *s)
{
  uint64_t h = FNV1A_BASIS;
  struct stat st;
  if (stat (b->abspath, &st) != 0)
    {
      error (0, errno, "%s: stat", b->abspath);
      return NULL;
    }
  h = fnv1a (h, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
  const int format = WRITE_FORMAT;
  h = fnv1a (h, &format, sizeof format);
  h = fnv1a (h, b->build_id, strlen (b->build_id));
  h = fnv1a (h, b->abspath, strlen (b->abspath) + 1);
  h = fnv1a (h, &st.st_size, sizeof st.st_size);
  h = fnv1a (h, &st.st_mtim, sizeof st.st_mtim);
  if (!b->has_dwarf)
    {
      const char *debug_file;
      enum go_dwarf_source source = gobin_dwarf_source (b, &debug_file);
      h = fnv1a (h, &source, sizeof source);
      if (debug_file != NULL && stat (debug_file, &st) == 0)
        {
          h = fnv1a (h, debug_file, strlen (debug_file) + 1);
          h = fnv1a (h, &st.st_size, sizeof st.st_size);
          h = fnv1a (h, &st.st_mtim, sizeof st.st_mtim);
        }
    }
  uint64_t binkey = h;
  for (size_t i = 0; i < s->npatterns; i++)
    {
      h = fnv1a (h, s->patterns[i], strlen (s->patterns[i]) + 1);
      h = fnv1a (h, &s->uncertain[i], sizeof s->uncertain[i]);
    }
  h = fnv1a (h, &s->runtime_returns, sizeof s->runtime_returns);
  char *root = run_cache_root (), *dir = NULL;
  if (root != NULL
      && asprintf (&dir, "%s/%016" PRIx64 "/%016" PRIx64, root, binkey, h) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
    }
  free (root);
  return dir;
}

bool
run_cache_lookup (const char *dir, bool *guru)
{
  char g[PATH_MAX];
  if (access (dir, F_OK) != 0)
    return false;
  snprintf (g, sizeof g, "%s/needs-guru", dir);
  *guru = access (g, F_OK) == 0;
  return true;
}

char *
run_cache_begin (const char *dir)
{
  char *tmp = NULL;
  char *parent = strndup (dir, (size_t) (strrchr (dir, '/') - dir));
  if (parent == NULL || make_dirs (parent) != 0
      || asprintf (&tmp, "%s/.tmp.XXXXXX", parent) < 0)
    {
      error (0, errno, "cannot create the cache directory '%s'", dir);
      free (parent);
      return NULL;
    }
  free (parent);
  if (mkdtemp (tmp) == NULL)
    {
      error (0, errno, "cannot create a directory in the cache");
      free (tmp);
      return NULL;
    }
  return tmp;
}

int
run_cache_publish (const char *tmp, const char *dir, bool guru)
{
  if (guru)
    {
      char g[PATH_MAX];
      snprintf (g, sizeof g, "%s/needs-guru", tmp);
      FILE *f = fopen (g, "w");
      if (f == NULL || fclose (f) != 0)
        {
          error (0, errno, "%s", g);
          return -1;
        }
    }
  if (rename (tmp, dir) != 0 && errno != ENOTEMPTY && errno != EEXIST)
    {
      error (0, errno, "cannot rename '%s' to '%s'", tmp, dir);
      return -1;
    }
  return 0;
}

void
run_cache_discard (char *tmp)
{
  if (tmp == NULL)
    return;
  /* Left over after a failure or a lost race: remove it.  */
  if (access (tmp, F_OK) == 0)
    run_remove_tree (tmp);
  free (tmp);
}
