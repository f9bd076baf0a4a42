/* run-companion.c: gostap run on a binary with no DWARF anywhere (a -s -w
   build).  SystemTap needs debuginfo to place a probe; gostap writes the
   binary's companion debug file (write-companion.c) into its cache, by
   the build id or path rule of companion.c, and names that directory last
   in SYSTEMTAP_DEBUGINFO_PATH, which gostap's own lookup and the stap it
   runs read alike.  A companion written by an earlier run is found there
   and used as it is (read-debuginfo.c checks that it is of this build).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "companion.h"
#include "run.h"
#include "write.h"

int
run_companion (struct go_bin *b, bool *wrote)
{
  char *dir = run_cache_debug_dir (), *search = NULL, *path = NULL;
  struct go_model *m = NULL;
  int ret = EXIT_ERROR;
  *wrote = false;
  if (dir == NULL)
    return EXIT_ERROR;
  /* Every companion there is one stap may read.  */
  if (run_cache_trust (dir, RUN_TRUST_TREE) != 0)
    goto out;
  const char *now = gobin_debuginfo_path ();
  if (strstr (now, dir) == NULL)
    {
      if (asprintf (&search, "%s:%s", now, dir) < 0)
        {
          error (0, errno, "asprintf");
          search = NULL;
          goto out;
        }
      if (setenv ("SYSTEMTAP_DEBUGINFO_PATH", search, 1) != 0)
        {
          error (0, errno, "setenv");
          goto out;
        }
    }
  /* The lookup runs here, first, with the cache directory named.  */
  ret = EXIT_OK;
  if (b->has_dwarf || gobin_has_debuginfo (b))
    goto out;                   /* nothing to do */
  ret = EXIT_ERROR;
  path = companion_path (b, dir);
  if (path == NULL || companion_mkdirs (path) != 0
      || (m = go_model_begin (b)) == NULL)
    goto out;
  ret = write_companion (m, b, path);
  *wrote = ret == EXIT_OK;
out:
  go_model_end (m);
  free (path);
  free (search);
  free (dir);
  return ret;
}
