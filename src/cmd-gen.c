/* cmd-gen.c: gostap gen BINARY -o DIR [GLOB...]

   Writes the tapset directory of one binary, usable as `stap -I DIR`
   together with gostap's static tapsets: go_target.stp (constants) and
   go_funcs.stp (probe aliases of every function, or of those matching a
   GLOB).  Each file is written under a temporary name and renamed.  */

#include "config.h"

#include <argp.h>
#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "gobin.h"
#include "layout.h"
#include "write.h"

/* Set by parse_opt.  */
struct gen_args
{
  const char *outdir;
  const char *binary;
  char **globs;
  int nglobs;
};

static const struct argp_option options[] = {
  { "output", 'o', "DIR", 0, "Write the tapsets into DIR (created if "
    "needed)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct gen_args *a = state->input;
  switch (key)
    {
    case 'o':
      a->outdir = arg;
      return 0;
    case ARGP_KEY_ARG:
      a->binary = arg;
      a->globs = state->argv + state->next;
      a->nglobs = state->argc - state->next;
      state->next = state->argc;
      return 0;
    case ARGP_KEY_NO_ARGS:
      argp_error (state, "no binary given");
      return EINVAL;
    case ARGP_KEY_END:
      if (a->outdir == NULL)
        argp_error (state, "no output directory given (-o DIR)");
      return 0;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

int
cmd_gen (int argc, char **argv)
{
  static const struct argp argp = {
    options, parse_opt, "BINARY [GLOB...]",
    "Write SystemTap tapsets for a Go binary: go_target.stp (the binary's "
    "constants) and go_funcs.stp (probe aliases go.func.NAME and "
    "go.func.NAME.return for every function, or for those matching a GLOB)."
    "\vUse them with gostap's static tapsets: stap -I DIR -I "
    "PREFIX/share/gostap/tapset ...  RET-site probes need stap -g "
    "(they are not line-table rows).\n\n"
    "Exit status: 0 success, 1 error or a GLOB that matched nothing, "
    "2 not a usable Go binary, 64 usage error.\n\n"
    "Examples:\n"
    "  gostap gen ./server -o /tmp/server-tapsets 'main.*'\n"
    "  stap -g -I /tmp/server-tapsets -I /usr/share/gostap/tapset "
    "-e 'probe go.func.main.handle { println(goid) }' -c ./server",
    NULL, NULL, NULL,
  };
  struct gen_args a = { 0 };
  struct go_bin b;
  struct go_layout layout;
  const struct go_func **sel = NULL;
  bool *used = NULL;
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;

  ret = gobin_open (&b, a.binary);
  if (ret != EXIT_OK)
    goto out;
  ret = EXIT_ERROR;
  if (strpbrk (b.abspath, "*?[") != NULL)
    {
      error (0, 0, "%s: the path contains a glob character, which "
             "process(\"...\") would expand", b.abspath);
      ret = EXIT_BADINPUT;
      goto out;
    }
  if (!b.has_dwarf && !b.has_symtab)
    {
      error (0, 0, "%s: no DWARF and no .symtab (built with -ldflags='-s "
             "-w'?): SystemTap can place no probe in it", a.binary);
      ret = EXIT_BADINPUT;
      goto out;
    }
  if (gobin_runtime_layout (&b, &layout) != 0)
    {
      ret = EXIT_BADINPUT;
      goto out;
    }
  sel = calloc (b.nfuncs, sizeof *sel);
  used = calloc ((size_t) a.nglobs + 1, sizeof *used);
  if (sel == NULL || used == NULL)
    {
      error (0, errno, "calloc");
      goto out;
    }
  size_t n = 0;
  for (size_t i = 0; i < b.nfuncs; i++)
    if (name_matches (a.globs, a.nglobs, b.funcs[i].name, used)
        || write_is_runtime_event (b.funcs[i].name))
      {
        int r = gobin_analyze (&b, &b.funcs[i]);
        if (r != EXIT_OK)
          {
            ret = r;
            goto out;
          }
        sel[n++] = &b.funcs[i];
      }
  for (int i = 0; i < a.nglobs; i++)
    if (!used[i])
      {
        error (0, 0, "%s: no function matches '%s'", a.binary, a.globs[i]);
        goto out;
      }
  if (mkdir (a.outdir, 0755) != 0 && errno != EEXIST)
    {
      error (0, errno, "cannot create '%s'", a.outdir);
      goto out;
    }
  if (write_target (&b, &layout, a.outdir) != 0
      || write_funcs (&b, sel, n, a.outdir) != 0)
    goto out;
  ret = EXIT_OK;
out:
  free (sel);
  free (used);
  gobin_close (&b);
  return ret;
}
