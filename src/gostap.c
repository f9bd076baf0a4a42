/* gostap.c: the command table and dispatch, in the style of git.c: adding
   a subcommand is one cmd-NAME.c file and one line in COMMANDS.  */

#include "config.h"

#include <argp.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gobin.h"

/* argp reads this for --version; it never changes.  */
const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;


static const struct command
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} COMMANDS[] = {
  { "list", cmd_list, "List the functions of a Go binary with their "
    "entry, body, RET sites and ABI" },
  { "run", cmd_run, "Run stap on a Go program with the tapsets its script "
    "uses" },
  { "doctor", cmd_doctor, "Report what SystemTap here can do for Go "
    "programs, and for a binary" },
  { "gen", cmd_gen, "Write SystemTap tapsets (probe aliases, constants) "
    "for a Go binary" },
  { "companion", cmd_companion, "Write a debug file made from the "
    ".gopclntab for a Go binary without DWARF" },
  { "symbolize", cmd_symbolize, "Expand the stacks recorded by the "
    "tapsets into Go tracebacks" },
  { "types", cmd_types, "Print the runtime type descriptors of a Go "
    "binary" },
};

static const struct command *
find_command (const char *name)
{
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp (COMMANDS[i].name, name) == 0)
      return &COMMANDS[i];
  return NULL;
}

/* Set by parse_opt: the index of the subcommand's name in argv.  */
struct args
{
  int command;
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct args *a = state->input;
  (void) arg;
  switch (key)
    {
    case ARGP_KEY_ARG:
      a->command = state->next - 1;
      state->next = state->argc;        /* the rest is the subcommand's */
      return 0;
    case ARGP_KEY_NO_ARGS:
      argp_error (state, "no command given");
      return EINVAL;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

static char *
help_filter (int key, const char *text, void *input)
{
  (void) input;
  if (key != ARGP_KEY_HELP_POST_DOC)
    return (char *) text;
  size_t size = 0;
  char *buf = NULL;
  FILE *f = open_memstream (&buf, &size);
  if (f == NULL)
    return (char *) text;
  fputs ("Commands:\n", f);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf (f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
  fputs ("\nRun 'gostap COMMAND --help' for a command's options.\n\n"
         "Exit status: 0 success, 1 error, 2 the binary is not a usable Go "
         "binary, 64 usage error.\n\n"
         "Examples:\n"
         "  gostap list ./server 'main.*'\n"
         "  gostap list --json ./server > functions.json\n", f);
  fclose (f);
  return buf;
}

int
main (int argc, char **argv)
{
  static const struct argp argp = {
    NULL, parse_opt, "COMMAND [ARG...]",
    "gostap -- SystemTap tracing for Go programs."
    "\vgostap reads Go binaries and writes SystemTap tapsets for them.",
    NULL, help_filter, NULL,
  };
  struct args a = { 0 };
  argp_err_exit_status = EXIT_USAGE;
  if (argp_parse (&argp, argc, argv, ARGP_IN_ORDER, NULL, &a) != 0)
    return EXIT_USAGE;
  const struct command *c = find_command (argv[a.command]);
  if (c == NULL)
    {
      error (0, 0, "'%s' is not a gostap command; see 'gostap --help'",
             argv[a.command]);
      return EXIT_USAGE;
    }
  /* Messages of the subcommand's argp then read "gostap list: ...".  */
  char name[64];
  snprintf (name, sizeof name, "gostap %s", c->name);
  argv[a.command] = name;
  return c->run (argc - a.command, argv + a.command);
}
