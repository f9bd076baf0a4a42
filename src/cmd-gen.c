/* cmd-gen.c: gostap gen BINARY -o DIR [--script FILE] [GLOB...]

   Writes the tapset directory of one binary, usable as `stap -I DIR`
   together with gostap's static tapsets: go_target.stp (constants) and
   go_funcs.stp (probe aliases of every function, or of those matching a
   GLOB).  Each file is written under a temporary name and renamed.  */

#include "config.h"

#include <argp.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "gobin.h"
#include "probe-name.h"
#include "run.h"
#include "select.h"
#include "stp-write.h"
#include "write.h"

/* --fixed-runtime: no short option.  */
enum { OPT_FIXED_RUNTIME = 0x100 };

/* Set by parse_opt.  */
struct gen_args
{
  const char *outdir;
  const char *script;
  bool aranges;
  bool fixed_runtime;
  struct select_args sel;
};

static const struct argp_option options[] = {
  { "output", 'o', "DIR", 0, "Write the tapsets into DIR (created if "
    "needed)", 0 },
  { "script", 'S', "FILE", 0, "Tailor the tapsets to the script FILE, as "
    "gostap run does: where it probes both the entry and the return alias "
    "of a function, one probe at the entry records the call for the return "
    "(one handler instead of two); such tapsets serve that script only; "
    "a script that uses @go_fmt($r->URL) is expanded into DIR/FILE.expanded, "
    "for stap by hand", 0 },
  { "aranges", 'A', NULL, 0, "Where stap's libdw is older than 0.191: also "
    "write a copy of BINARY (or of its debug file) with the .debug_aranges "
    "such a libdw needs into gostap's cache, and say in one line what stap "
    "by hand needs to read it (--sysroot=DIR, or SYSTEMTAP_DEBUGINFO_PATH)",
    0 },
  { "fixed-runtime", OPT_FIXED_RUNTIME, NULL, 0, "Where stap is older than "
    "5.1 (its relay transport drops records under load, its staprun stops "
    "reading before the end of a run's output): also write a copy of "
    "stap's runtime with both fixed into gostap's cache, as "
    "gostap run does, and say in one line what stap by hand needs to use "
    "it (-R DIR)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

/* The script S with its @go_fmt uses expanded (run-gofmt.c), for stap
   by hand: DIR/BASENAME.expanded, a name stap's -I does not read as a
   tapset.  0, or -1 after one line.  */
static int
write_expanded (const struct run_script *s, const char *dir)
{
  const char *slash = strrchr (s->path, '/');
  char *name = NULL;
  struct stp_file sf;
  if (asprintf (&name, "%s.expanded", slash != NULL ? slash + 1 : s->path) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  int ret = stp_file_open (&sf, dir, name);
  if (ret == 0)
    {
      fputs (s->text, sf.f);
      ret = stp_file_close (&sf, 1);
    }
  if (ret == 0)
    error (0, 0, "%s uses @go_fmt: stap by hand reads its expanded copy "
           "%s/%s", s->path, dir, name);
  free (name);
  return ret;
}

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct gen_args *a = state->input;
  switch (key)
    {
    case 'o':
      a->outdir = arg;
      return 0;
    case 'S':
      a->script = arg;
      return 0;
    case 'A':
      a->aranges = true;
      return 0;
    case OPT_FIXED_RUNTIME:
      a->fixed_runtime = true;
      return 0;
    case ARGP_KEY_END:
      if (a->outdir == NULL)
        argp_error (state, "no output directory given (-o DIR)");
      return 0;
    default:
      return select_parse (&a->sel, key, arg, state);
    }
}

/* B (opened from PATH) has no DWARF and no .symtab of its own (a -s -w
   build): stap places no probe in it without a debug file.  As gostap
   run does (run-companion.c), use the companion debug file in gostap's
   cache, written now if it is not there (B is then opened again), unless
   a debug file is found elsewhere; and say in one line what stap needs to
   find it too: that directory in SYSTEMTAP_DEBUGINFO_PATH.  */
static int
companion (struct go_bin *b, const char *path)
{
  char *before = strdup (gobin_debuginfo_path ());
  char *dir = run_cache_debug_dir ();
  const char *file = NULL;
  bool wrote = false;
  int ret = EXIT_ERROR;
  if (before == NULL || dir == NULL)
    goto out;
  ret = run_companion (b, &wrote);
  if (ret == EXIT_OK && wrote)
    {
      gobin_close (b);
      ret = select_prepare (b, path, 0, NULL);
    }
  if (ret != EXIT_OK || !gobin_has_debuginfo (b)
      || gobin_dwarf_source (b, &file) == GO_DWARF_NONE || file == NULL
      || strncmp (file, dir, strlen (dir)) != 0 || strstr (before, dir))
    goto out;
  /* SYSTEMTAP_DEBUGINFO_PATH is now what stap needs (run_companion).  */
  const char *want = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  bool quote = want == NULL
    || strspn (want, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
               "0123456789_+-:./") < strlen (want);
  error (0, 0, "%s: warning: no DWARF and no .symtab (built with "
         "-ldflags='-s -w'?): the tapsets place its probes through the "
         "companion debug file %s in gostap's cache (%s); for stap to find "
         "it, run stap with SYSTEMTAP_DEBUGINFO_PATH=%s%s%s",
         path, file, wrote ? "written now, as gostap run does"
         : "written before", quote ? "'" : "", want ? want : "",
         quote ? "'" : "");
out:
  free (before);
  free (dir);
  return ret;
}

/* Open the binary PATH into B (with its companion debug file when it has
   no DWARF and no .symtab) and read the runtime's offsets into LAYOUT:
   EXIT_OK, or the exit status after one line.  */
static int
open_probeable (struct go_bin *b, const char *path, struct go_layout *layout)
{
  int ret = select_prepare (b, path, 0, NULL);
  if (ret == EXIT_OK && !b->has_dwarf && !b->has_symtab)
    ret = companion (b, path);
  if (ret == EXIT_OK)
    ret = write_check_probeable (b);
  if (ret == EXIT_OK && gobin_runtime_layout (b, layout) != 0)
    ret = EXIT_BADINPUT;
  return ret;
}

/* What go_funcs.stp is written for: the N functions selected, with
   whether the script pairs the entry and the return probe of each, and
   the NINL names of functions with inlined copies only.  */
struct gen_sel
{
  const struct go_func **funcs;
  bool *paired;
  size_t n;
  const char **inl;
  size_t ninl;
};

/* Read the script PATH into S, expand its @go_fmt uses, and set
   GS->paired: which of GS's functions it probes at both the entry and
   the return.  EXIT_OK, or the exit status after one line.  */
static int
script_pairs (struct go_bin *b, const char *path, struct run_script *s,
              struct gen_sel *gs)
{
  if (run_read_script (s, path, NULL) != 0)
    return EXIT_ERROR;
  int ret = run_expand_go_fmt (b, s);
  if (ret != EXIT_OK)
    return ret;
  write_fmt_names = s->fmt_names;
  gs->paired = calloc (gs->n ? gs->n : 1, sizeof *gs->paired);
  if (gs->paired == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  for (size_t i = 0; i < gs->n; i++)
    {
      char *alias = func_probe_name (gs->funcs[i]);
      if (alias == NULL)
        return EXIT_ERROR;
      bool returns;
      run_script_uses (s, alias, &returns, &gs->paired[i]);
      free (alias);
    }
  return EXIT_OK;
}

/* Write the tapsets into DIR (created if needed): go_target.stp with
   LAYOUT's offsets, go_funcs.stp of GS from M, and the expanded copy of
   the script S when it uses @go_fmt.  EXIT_OK, or EXIT_ERROR after one
   line.  */
static int
write_dir (const struct go_bin *b, const struct go_layout *layout,
           struct go_model *m, const struct gen_sel *gs,
           const struct run_script *s, const char *dir)
{
  if (mkdir (dir, 0755) != 0 && errno != EEXIST)
    {
      error (0, errno, "cannot create '%s'", dir);
      return EXIT_ERROR;
    }
  if (write_target (b, layout, dir) != 0
      || write_funcs (m, layout, gs->funcs, gs->paired, gs->n, gs->inl,
                      gs->ninl, dir) != 0
      || (s->expanded && write_expanded (s, dir) != 0))
    return EXIT_ERROR;
  return EXIT_OK;
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
    "(they are not line-table rows), except through a companion debug file "
    "(gostap companion).  For a binary with no DWARF and no .symtab (a -s -w "
    "build) gen writes its companion debug file into gostap's cache, as "
    "gostap run does, and says what to put in SYSTEMTAP_DEBUGINFO_PATH for "
    "stap to find it.  Where stap's libdw is older than 0.191, gen says so "
    "in one line, and with --aranges writes a copy of the binary (or of its "
    "debug file) with the .debug_aranges such a libdw needs into gostap's "
    "cache and says what to add to stap's command (--sysroot=DIR, or "
    "SYSTEMTAP_DEBUGINFO_PATH).  Where stap is older than 5.1, whose relay "
    "transport drops records under load, gen says so in one line, and with "
    "--fixed-runtime writes a copy of stap's runtime with upstream 5.1's "
    "fix into gostap's cache and says what to add to stap's command (-R "
    "DIR).\n\n"
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
  struct gen_sel gs = { 0 };
  struct run_script script = { 0 };
  struct go_model *m = NULL;
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;

  ret = open_probeable (&b, a.sel.binary, &layout);
  if (ret != EXIT_OK)
    goto out;
  m = go_model_begin (&b);
  if (m == NULL)
    {
      ret = EXIT_ERROR;
      goto out;
    }
  a.sel.model = m;
  ret = select_functions (&b, &a.sel, write_runtime_events,
                          write_nruntime_events, &gs.funcs, &gs.n);
  if (ret == EXIT_OK)
    ret = select_inlined_only (&b, &a.sel, &gs.inl, &gs.ninl);
  if (ret == EXIT_OK && a.script != NULL)
    ret = script_pairs (&b, a.script, &script, &gs);
  /* stap by hand on libdw < 0.191: what to give it, in one line; before
     any file is written, so that a failure leaves none.  */
  if (ret == EXIT_OK)
    ret = run_aranges_hint (&b, a.aranges);
  if (ret == EXIT_OK)
    ret = run_runtime_hint (a.fixed_runtime);
  if (ret == EXIT_OK)
    ret = write_dir (&b, &layout, m, &gs, &script, a.outdir);
out:
  go_model_end (m);
  free (gs.funcs);
  free (gs.inl);
  free (gs.paired);
  run_script_free (&script);
  gobin_close (&b);
  return ret;
}
