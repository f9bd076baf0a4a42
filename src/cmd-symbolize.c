/* cmd-symbolize.c: gostap symbolize BINARY [FILE]

   Copies FILE (or standard input) to standard output with every stack
   record of gostap's tapsets (tapsets/go_stack.stp; the format is in
   stack.h) replaced by the stack in Go's traceback format, symbolized
   from BINARY's .gopclntab (write-traceback.c).  gostap run does the
   same to stap's output as it runs; this is for output saved with
   stap -o, or a stap run without gostap.  */

#include "config.h"

#include <argp.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>

#include "commands.h"
#include "gobin.h"
#include "profile.h"
#include "stack.h"

/* Set by parse_opt.  */
struct symbolize_args
{
  const char *binary;
  const char *input;
  const char *pprof, *folded;
};

enum { OPT_PPROF = 0x100, OPT_FOLDED };

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct symbolize_args *a = state->input;
  switch (key)
    {
    case OPT_PPROF:
      a->pprof = arg;
      return 0;
    case OPT_FOLDED:
      a->folded = arg;
      return 0;
    case ARGP_KEY_ARG:
      if (a->binary == NULL)
        a->binary = arg;
      else if (a->input == NULL)
        a->input = arg;
      else
        argp_error (state, "one input file at a time");
      return 0;
    case ARGP_KEY_END:
      if (a->binary == NULL)
        argp_error (state, "no binary given");
      return 0;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

int
cmd_symbolize (int argc, char **argv)
{
  static const struct argp_option options[] = {
    { "pprof", OPT_PPROF, "OUT", 0,
      "Write the profile samples of FILE (go_profile_sample(), tapset "
      "go_profile) to OUT as a gzipped pprof profile", 0 },
    { "folded", OPT_FOLDED, "OUT", 0,
      "Write them to OUT as folded stacks, for flame graphs", 0 },
    { 0 }
  };
  static const struct argp argp = {
    options, parse_opt, "BINARY [FILE]",
    "Copy FILE (default: standard input) to standard output, each stack "
    "recorded by gostap's tapsets (go_stack(), go_sched_stack(), ...: "
    "tokens <gostack:...>) replaced by its frames in Go's traceback "
    "format, read from BINARY's .gopclntab: function, file:line and "
    "inlined calls as runtime.CallersFrames gives them, on any build "
    "(with or without DWARF, -s -w included).  gostap run does this "
    "by itself; use this command on output saved with stap -o.  The "
    "profile samples of gostap's go_profile tapset are written as text, "
    "or with --pprof and --folded to those files."
    "\vExit status: 0 success, 1 error, 2 not a usable Go binary, "
    "64 usage error.\n\n"
    "Example:\n"
    "  stap -o out.txt ... ; gostap symbolize ./server out.txt\n"
    "  gostap symbolize --pprof cpu.pb.gz ./server out.txt",
    NULL, NULL, NULL,
  };
  struct symbolize_args a = { 0 };
  struct go_bin b;
  FILE *in = stdin;
  struct profile *prof = NULL;
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;
  ret = gobin_open (&b, a.binary);
  if (ret != EXIT_OK)
    goto out;
  if (a.input != NULL && (in = fopen (a.input, "r")) == NULL)
    {
      error (0, errno, "%s", a.input);
      ret = EXIT_ERROR;
      goto out;
    }
  if ((a.pprof != NULL || a.folded != NULL)
      && (prof = profile_new (&b)) == NULL)
    {
      ret = EXIT_ERROR;
      goto out;
    }
  if (write_traceback_filter (in, stdout, &b, prof,
                              a.input != NULL ? a.input : "stdin") != 0)
    ret = EXIT_ERROR;
  else if (prof != NULL && profile_write (prof, a.pprof, a.folded) != 0)
    ret = EXIT_ERROR;
out:
  profile_free (prof);
  if (in != stdin && in != NULL)
    fclose (in);
  gobin_close (&b);
  return ret;
}
