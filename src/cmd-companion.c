/* cmd-companion.c: gostap companion BINARY -o DIR

   Writes a companion debug file for a binary that has no DWARF anywhere
   (a -s -w build), made from its .gopclntab (write-companion.c), where
   SystemTap and gostap look for separate debuginfo under DIR: by GNU build
   id (DIR/.build-id/xx/yyyy.debug) when the binary has one, else by name
   (DIR/<the binary's absolute path>.debug, libdwfl's NAME.debug rule).
   Prints the path written.  */

#include "config.h"

#include <argp.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "companion.h"
#include "gobin.h"
#include "select.h"
#include "write.h"

/* Set by parse_opt.  */
struct companion_args
{
  const char *binary;
  const char *outdir;
};

static const struct argp_option options[] = {
  { "output", 'o', "DIR", 0, "Write under DIR, a debug directory "
    "(/usr/lib/debug, or one named in SYSTEMTAP_DEBUGINFO_PATH)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct companion_args *a = state->input;
  switch (key)
    {
    case 'o':
      a->outdir = arg;
      return 0;
    case ARGP_KEY_ARG:
      if (a->binary != NULL)
        argp_error (state, "one binary at a time");
      a->binary = arg;
      return 0;
    case ARGP_KEY_END:
      if (a->binary == NULL)
        argp_error (state, "no binary given");
      if (a->outdir == NULL)
        argp_error (state, "no debug directory given (-o DIR)");
      return 0;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

int
cmd_companion (int argc, char **argv)
{
  static const struct argp argp = {
    options, parse_opt, "BINARY",
    "Write a companion debug file for a Go binary without DWARF (built "
    "with -ldflags='-s -w', or stripped with no debuginfo anywhere), made "
    "from its .gopclntab: a symbol for every function, the file and line "
    "of every instruction, the call frames.  With it SystemTap places, "
    "names and unwinds probes, and gostap gen and run work as on a binary "
    "with DWARF, without argument values (the pclntab has no types)."
    "\vThe file goes where SystemTap looks for separate debuginfo under "
    "DIR: DIR/.build-id/xx/yyyy.debug for a binary with a GNU build id, "
    "else DIR/PATH.debug, PATH the binary's absolute path.  Use DIR "
    "= /usr/lib/debug, or name DIR in SYSTEMTAP_DEBUGINFO_PATH for stap "
    "and gostap alike (gostap run does all of this by itself).\n\n"
    "Exit status: 0 success, 1 error (or the binary has DWARF already), "
    "2 not a usable Go binary, 64 usage error.\n\n"
    "Example:\n"
    "  gostap companion ./server -o /var/tmp/debug\n"
    "  export SYSTEMTAP_DEBUGINFO_PATH=+:.debug:/usr/lib/debug:"
    "/var/tmp/debug\n"
    "  gostap run -c ./server examples/funclatency.stp 'main.*'",
    NULL, NULL, NULL,
  };
  struct companion_args a = { 0 };
  struct go_bin b;
  struct go_model *m = NULL;
  char *path = NULL;
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;
  ret = select_prepare (&b, a.binary, 0, NULL);
  if (ret != EXIT_OK)
    goto out;
  ret = companion_check_needed (&b);
  if (ret != EXIT_OK)
    goto out;
  ret = EXIT_ERROR;
  path = companion_path (&b, a.outdir);
  if (path == NULL || companion_mkdirs (path) != 0)
    goto out;
  m = go_model_begin (&b);
  if (m == NULL)
    goto out;
  ret = write_companion (m, &b, path);
  if (ret == EXIT_OK)
    printf ("%s\n", path);
out:
  go_model_end (m);
  free (path);
  gobin_close (&b);
  return ret;
}
