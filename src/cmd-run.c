/* cmd-run.c: gostap run [-c CMD | -x PID | -t BINARY] [STAP-OPTIONS...]
                         SCRIPT [SCRIPT-ARGS...]

   Reads like stap's own command line: options before the script are
   stap's (gostap takes -t, reads -c and -x and passes them on), words
   after it are the script's.  Finds the Go binary, generates the tapsets
   the script uses (cached per binary), checks what would fail, and execs
   stap with -I for the generated and static tapsets, -d BINARY, -g only
   when a probe address needs it, and --sysroot and --target-namespaces
   for a container's process (run-sysroot.c).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "gobin.h"
#include "probe-name.h"
#include "run.h"
#include "select.h"
#include "write.h"

/* stap's options that take an argument (stap --help, 4.8 - 5.x).  */
static const char stap_arg_opts[] = "pIDBGRramoEcxSdTse";
static const char *const stap_long_arg_opts[] = { "--vp", "--modinfo",
                                                  "--privilege", NULL };

static void
usage (void)
{
  fputs ("Usage: gostap run [-c CMD | -x PID | -t BINARY] [STAP-OPTIONS...] "
         "SCRIPT [ARG...]\n"
         "   or: gostap run [-c CMD | -x PID | -t BINARY] [STAP-OPTIONS...] "
         "-e 'SCRIPT' [ARG...]\n"
         "Run SystemTap on a Go program with gostap's tapsets.\n\n"
         "  -t BINARY   the Go binary to probe (else the program of -c, or\n"
         "              file of -x's process, checked against /proc/PID/exe)\n"
         "  --pprof FILE    write the samples the script prints with\n"
         "              go_profile_sample() (tapset go_profile) to FILE as a\n"
         "              gzipped pprof profile, for go tool pprof\n"
         "  --folded FILE   the same as folded stacks, for flame graphs\n"
         "  -c CMD, -x PID, and every other option before SCRIPT are stap's\n"
         "              and passed on; -v also prints the stap command\n"
         "  --help      this text\n\n"
         "Generates (and caches under $XDG_CACHE_HOME/gostap) the go.func\n"
         "aliases SCRIPT names, wildcards included, adds -I for them and for\n"
         "the static tapsets (" GOSTAP_TAPSETDIR ", or $GOSTAP_TAPSETS),\n"
         "-d BINARY for backtraces, and -g only when a probe address needs\n"
         "it.  Checks first that stap, privileges and uprobes are there\n"
         "(GOSTAP_NO_PREFLIGHT=1 skips that).  Where stap's libdw is older\n"
         "than 0.191, stap reads a copy of the binary (or of its debug\n"
         "file) with the .debug_aranges such a libdw needs.  Where stap is\n"
         "older than 5.1, it runs with -R: a copy of stap's runtime in\n"
         "which the relay transport keeps the records it drops under load\n"
         "and the end of a run's output its staprun stops reading before\n"
         "(unless the options give their own -R).\n\n"
         "Exit status: stap's; 1 error, 2 not a usable Go binary, 64 usage.\n\n"
         "Examples:\n"
         "  gostap run -c ./server examples/newstack.stp 1000\n"
         "  gostap run -x 4242 examples/funclatency.stp 'main.*'\n"
         "  gostap run -t ./server -p2 -e 'probe go.func.main.handle "
         "{ println(goid) }'\n", stdout);
}

/* gostap's own options among stap's: --pprof FILE, --folded FILE (or
   --pprof=FILE): how many words OPT (and the word after it, NEXT) take,
   0 when it is not one; the file into *PPROF or *FOLDED.  */
static int
profile_opt (const char *opt, const char *next, const char **pprof,
             const char **folded)
{
  static const char p[] = "--pprof", f[] = "--folded";
  const char **to;
  const char *rest;
  if (strncmp (opt, p, sizeof p - 1) == 0)
    to = pprof, rest = opt + sizeof p - 1;
  else if (strncmp (opt, f, sizeof f - 1) == 0)
    to = folded, rest = opt + sizeof f - 1;
  else
    return 0;
  if (*rest == '=')
    {
      *to = rest + 1;
      return 1;
    }
  if (*rest != '\0')
    return 0;
  *to = next;
  return 2;
}

static bool
takes_arg (const char *opt)
{
  if (opt[0] == '-' && opt[1] == '-')
    {
      for (int i = 0; stap_long_arg_opts[i] != NULL; i++)
        if (strcmp (opt, stap_long_arg_opts[i]) == 0)
          return true;
      return false;
    }
  /* "-p2" carries its argument; "-p" takes the next word.  */
  return opt[1] != '\0' && opt[2] == '\0' && strchr (stap_arg_opts, opt[1]);
}


/* A list of functions, growing.  */
struct func_list
{
  const struct go_func **v;
  size_t n, cap;
};

static bool
func_list_add (struct func_list *l, const struct go_func *f)
{
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? 2 * l->cap : 16;
      const struct go_func **v = realloc (l->v, cap * sizeof *v);
      if (v == NULL)
        return false;
      l->v = v;
      l->cap = cap;
    }
  l->v[l->n++] = f;
  return true;
}

/* Add the function whose alias is ALIAS, if one is: its name decoded
   (probe_name_decode), looked up, and its alias made again to compare.
   True when one was added.  */
static bool
add_aliased (const struct go_bin *b, const char *alias, struct func_list *l,
             bool *oom)
{
  uint64_t entry;
  char *name = probe_name_decode (alias, &entry);
  bool added = false;
  if (name == NULL)
    return false;
  for (const struct go_func *f = gobin_func_named (b, name); f != NULL;
       f = gobin_next_named (b, f))
    {
      if (f->wrapper)
        continue;
      char *a = func_probe_name (f);
      if (a == NULL)
        *oom = true;
      else if (strcmp (a, alias) == 0)
        {
          if (!func_list_add (l, f))
            *oom = true;
          added = true;
        }
      free (a);
    }
  free (name);
  return added;
}

/* When no probe point of S has a wildcard, the functions they name and
   the runtime events, in table order, each once: found by name, so a
   script of 10 functions costs 10 lookups and not an alias made and
   matched for every function of the binary.  False when a point has a
   wildcard or names no function (or out of memory): then every function
   is tried, as for a wildcard.  */
static bool
named_functions (const struct go_bin *b, const struct run_script *s,
                 struct func_list *l)
{
  static const char prefix[] = "go.func.", ret[] = ".return";
  bool oom = false;
  for (size_t i = 0; i < s->npatterns && !oom; i++)
    {
      const char *p = s->patterns[i];
      if (strncmp (p, prefix, sizeof prefix - 1) != 0
          || strspn (p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.") != strlen (p))
        return false;
      p += sizeof prefix - 1;
      bool found = add_aliased (b, p, l, &oom);
      /* go.func.ALIAS.return, .outofline, .inlined: ALIAS's function.  */
      static const char *const suffixes[] = { ret, ".outofline",
        ".inlined" };
      size_t n = strlen (p);
      for (size_t k = 0; k < 3 && !found; k++)
        {
          size_t sn = strlen (suffixes[k]);
          if (n > sn && strcmp (p + n - sn, suffixes[k]) == 0)
            {
              char *entry_alias = strndup (p, n - sn);
              if (entry_alias == NULL)
                return false;
              found |= add_aliased (b, entry_alias, l, &oom);
              free (entry_alias);
            }
        }
      if (!found)
        return false;
    }
  for (size_t k = 0; k < write_nruntime_events && !oom; k++)
    for (const struct go_func *f = gobin_func_named (b,
                                                     write_runtime_events[k]);
         f != NULL && !oom; f = gobin_next_named (b, f))
      if (!f->wrapper && !func_list_add (l, f))
        oom = true;
  if (oom)
    return false;
  l->n = select_table_order (l->v, l->n);
  return true;
}

/* Refuse S's point FULL, go.func.ALIAS.return of NAME, a function with
   inlined copies only, in one line naming its copies.  An exit status.  */
static int
refuse_inlined_return (struct go_model *m, const struct run_script *s,
                       const char *full, const char *name, const char *alias)
{
  const struct go_inline_copy *v;
  size_t nc;
  if (go_model_inline_copies (m, name, &v, &nc) != 0)
    return EXIT_ERROR;
  char where[300];
  size_t w = 0;
  where[0] = '\0';
  for (size_t j = 0; j < nc && w + 80 < sizeof where; j++)
    w += (size_t) snprintf (where + w, sizeof where - w, "%s%s at %#" PRIx64,
                            j ? ", " : "", v[j].in->name, v[j].pc);
  error (0, 0, "%s: %s: %s is inlined only, %zu copies (%s%s):"
         " an inlined copy has no return instruction to "
         "probe; go.func.%s fires at each copy's first "
         "instruction", s->path ? s->path : "the script",
         full, name, nc, where,
         w + 80 >= sizeof where ? ", ..." : "", alias);
  return EXIT_BADINPUT;
}

/* The functions of B with inlined copies only that S names (their
   go.func.ALIAS or .inlined), into *INL (malloc'd); a point
   go.func.ALIAS.return of one is refused in one line naming its copies
   (an inlined copy has no return instruction).  An exit status.  */
static int
inlined_only (const struct go_bin *b, struct go_model *m,
              const struct run_script *s, const char ***inlp, size_t *np)
{
  const char *const *names;
  size_t nnames;
  *inlp = NULL;
  *np = 0;
  if (go_model_inline_names (m, &names, &nnames) != 0)
    return EXIT_ERROR;
  const char **inl = calloc (nnames + 1, sizeof *inl);
  if (inl == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  size_t n = 0;
  int ret = EXIT_OK;
  for (size_t i = 0; i < nnames && ret == EXIT_OK; i++)
    {
      bool out_of_line = false;
      for (const struct go_func *f = gobin_func_named (b, names[i]);
           f != NULL; f = gobin_next_named (b, f))
        out_of_line |= !f->wrapper;
      if (out_of_line)
        continue;
      char *alias = probe_name (names[i]);
      if (alias == NULL)
        {
          error (0, errno, "%s", names[i]);
          ret = EXIT_ERROR;
          break;
        }
      if (run_script_uses_inlined (s, alias))
        inl[n++] = names[i];
      /* A return point written out for it (a wildcard may match none).  */
      char full[1100];
      snprintf (full, sizeof full, "go.func.%s.return", alias);
      for (size_t k = 0; k < s->npatterns && ret == EXIT_OK; k++)
        if (!s->matched[k] && strcmp (s->patterns[k], full) == 0)
          ret = refuse_inlined_return (m, s, full, names[i], alias);
      free (alias);
    }
  if (ret != EXIT_OK)
    {
      free (inl);
      return ret;
    }
  *inlp = inl;
  *np = n;
  return EXIT_OK;
}

/* What a script probes: the functions of B it names, each analyzed
   (select_used), and the functions with inlined copies only that it
   names (inlined_only).  */
struct used
{
  const struct go_func **sel;   /* B->nfuncs long; N used */
  bool *paired;         /* the same: entry and return as pairs */
  size_t n;
  bool any_ret;         /* a return point of one of SEL */
  const char **inl;
  size_t ninl;
};

/* The functions of B that S probes, each analyzed, into U's SEL, into
   its PAIRED whether S names an entry and its return as pairs
   (run_script_uses), and into its ANY_RET whether S probes a return of
   one.  Found by name where S's points allow it (named_functions), else
   every function is tried.  An exit status.  */
static int
select_used (struct go_bin *b, const struct run_script *s, struct used *u)
{
  struct func_list named = { NULL, 0, 0 };
  bool all = false;
  int status = EXIT_OK;
  if (!named_functions (b, s, &named))
    {
      free (named.v);
      named.v = NULL;
      named.n = 0;
      all = true;
    }
  for (size_t i = 0; i < (all ? b->nfuncs : named.n); i++)
    {
      const struct go_func *f = all ? &b->funcs[i] : named.v[i];
      if (f->wrapper)
        continue;
      bool ret = false, pairs = false;
      bool use = write_is_runtime_event (f->name);
      if (!use || s->npatterns > 0)
        {
          char *alias = func_probe_name (f);
          if (alias == NULL)
            {
              status = EXIT_ERROR;
              break;
            }
          bool uses = run_script_uses (s, alias, &ret, &pairs);
          free (alias);
          use = use || uses;
        }
      if (!use)
        continue;
      int r = gobin_analyze (b, f);
      if (r != EXIT_OK)
        {
          status = r;
          break;
        }
      u->any_ret |= ret;
      u->paired[u->n] = pairs;
      u->sel[u->n++] = f;
    }
  free (named.v);
  return status;
}

/* Probes at addresses that start no line-table row need -g: RETs in
   Go's own DWARF, almost never in a companion debug file (which starts
   a row at every probe address: write-companion.c).  Whether the probes
   of U need it (the returns when a return is probed, or S probes the
   runtime's; the inlined copies), into *GURU.  0, or -1 when the copies
   could not be read.  */
static int
needs_guru (struct go_model *m, const struct run_script *s,
            const struct used *u, bool *guru)
{
  const struct go_func *const *sel = u->sel;
  size_t n = u->n;
  *guru = false;
  for (size_t i = 0; i < n && !*guru; i++)
    {
      *guru = !go_model_line_start (m, sel[i]->code.body);
      for (size_t k = 0; (u->any_ret || s->runtime_returns) && !*guru
           && k < sel[i]->code.rets.n; k++)
        *guru = !go_model_line_start (m, sel[i]->code.rets.v[k]);
    }
  for (size_t i = 0; i < n + u->ninl && !*guru; i++)
    {
      const struct go_inline_copy *v;
      size_t nc;
      if (i < n && (sel[i]->dup_index != 0
                    || write_is_runtime_event (sel[i]->name)))
        continue;
      if (go_model_inline_copies (m, i < n ? sel[i]->name : u->inl[i - n],
                                  &v, &nc) != 0)
        return -1;
      for (size_t k = 0; k < nc && !*guru; k++)
        *guru = !go_model_line_start (m, v[k].pc);
    }
  return 0;
}

/* Write the tapsets of U for B into TMP (the cache's directory being
   made), and into *GURU whether stap needs -g for them.  An exit
   status.  */
static int
write_tapsets (struct go_bin *b, struct go_model *m,
               const struct run_script *s, const struct used *u,
               const char *tmp, bool *guru)
{
  struct go_layout layout;
  if (gobin_runtime_layout (b, &layout) != 0)
    return EXIT_BADINPUT;
  if (needs_guru (m, s, u, guru) != 0
      || write_target (b, &layout, tmp) != 0
      || write_funcs (m, &layout, u->sel, u->paired, u->n, u->inl, u->ninl,
                      tmp) != 0)
    return EXIT_ERROR;
  return EXIT_OK;
}

/* Generate the tapsets SCRIPT needs for B into the cache; return the
   directory (malloc'd) and whether stap needs -g.  */
static char *
generate (struct go_bin *b, const struct run_script *s, bool *guru,
          int *status)
{
  char *dir = NULL, *tmp = NULL;
  struct go_model *m = NULL;
  struct used u = { NULL, NULL, 0, false, NULL, 0 };
  u.sel = calloc (b->nfuncs, sizeof *u.sel);
  u.paired = calloc (b->nfuncs, sizeof *u.paired);
  *status = EXIT_ERROR;
  if (u.sel == NULL || u.paired == NULL)
    goto out;
  dir = run_cache_dir (b, s);
  if (dir == NULL)
    goto out;
  int hit = run_cache_lookup (dir, guru);
  if (hit < 0)
    goto out;
  if (hit > 0)
    {
      /* Made only after every check below passed for these points.  */
      *status = EXIT_OK;
      goto out;
    }
  int r = select_used (b, s, &u);
  if (r != EXIT_OK)
    {
      *status = r;
      goto out;
    }
  m = go_model_begin (b);
  if (m == NULL)
    goto out;
  r = inlined_only (b, m, s, &u.inl, &u.ninl);
  if (r != EXIT_OK)
    {
      *status = r;
      goto out;
    }
  if (run_script_check_matched (s, b->probe_path) != 0)
    {
      *status = EXIT_BADINPUT;
      goto out;
    }
  tmp = run_cache_begin (dir);
  if (tmp == NULL)
    goto out;
  r = write_tapsets (b, m, s, &u, tmp, guru);
  if (r != EXIT_OK)
    {
      *status = r;
      goto out;
    }
  if (run_cache_publish (tmp, dir, *guru) != 0)
    goto out;
  *status = EXIT_OK;
out:
  go_model_end (m);
  run_cache_discard (tmp);
  free (u.sel);
  free (u.inl);
  free (u.paired);
  if (*status != EXIT_OK)
    {
      free (dir);
      dir = NULL;
    }
  return dir;
}

/* What gostap run's command line says: the target, the script, and the
   stap options gostap itself acts on.  */
struct run_opts
{
  const char *target, *cmd, *pid;       /* -t, -c, -x */
  const char *script, *inline_script;   /* SCRIPT, or -e TEXT */
  const char *pass, *outfile;           /* -pN, -o FILE */
  const char *pprof, *folded;           /* --pprof, --folded (gostap's) */
  bool outfile_whole;   /* -o FILE is one file stap writes to the end */
  bool verbose, own_runtime, unprivileged;
  int script_at;        /* argv index of SCRIPT (or of -e's ARGs); -1 */
};

/* Note in O what the stap option A (with NEXT, the word after it) means
   to gostap.  */
static void
note_stap_opt (struct run_opts *o, const char *a, const char *next)
{
  if (strcmp (a, "-t") == 0)
    o->target = next;
  else if (strcmp (a, "-c") == 0)
    o->cmd = next;
  else if (strcmp (a, "-x") == 0)
    o->pid = next;
  else if (strcmp (a, "-v") == 0)
    o->verbose = true;
  else if (strncmp (a, "-p", 2) == 0)
    o->pass = a[2] ? a + 2 : next;
  else if (strncmp (a, "-o", 2) == 0)
    o->outfile = a[2] ? a + 2 : next;
  else if (strncmp (a, "-S", 2) == 0 || strcmp (a, "-F") == 0)
    o->outfile_whole = false;           /* rotated files, or detached */
  else if (strncmp (a, "-R", 2) == 0)
    o->own_runtime = true;              /* the user's runtime: no copy */
  else if (strcmp (a, "--unprivileged") == 0
           || (strncmp (a, "--privilege", 11) == 0
               && strcmp (a, "--privilege=stapdev") != 0
               && !(a[11] == '\0' && next != NULL
                    && strcmp (next, "stapdev") == 0)))
    o->unprivileged = true;             /* stap's stapusr/stapsys mode */
}

/* Read ARGV into O: -1 to go on, else the exit status (--help, a usage
   error, said in one line).  */
static int
parse_run_args (int argc, char **argv, struct run_opts *o)
{
  memset (o, 0, sizeof *o);
  o->outfile_whole = true;
  o->script_at = -1;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--help") == 0 || strcmp (a, "-h") == 0)
        {
          usage ();
          return EXIT_OK;
        }
      if (strcmp (a, "--") == 0 || a[0] != '-' || a[1] == '\0')
        {
          o->script_at = i + (strcmp (a, "--") == 0);
          break;
        }
      int pw = profile_opt (a, i + 1 < argc ? argv[i + 1] : NULL, &o->pprof,
                            &o->folded);
      if ((takes_arg (a) || pw == 2) && i + 1 >= argc)
        {
          error (0, 0, "option '%s' needs an argument", a);
          return EXIT_USAGE;
        }
      if (pw > 0)
        {
          i += pw - 1;
          continue;
        }
      if (strcmp (a, "-e") == 0)
        {
          o->inline_script = argv[++i];
          o->script_at = i + 1;
          break;
        }
      note_stap_opt (o, a, i + 1 < argc ? argv[i + 1] : NULL);
      if (takes_arg (a) || strcmp (a, "-t") == 0)
        i++;
    }
  if (o->inline_script == NULL)
    {
      if (o->script_at < 0 || o->script_at >= argc)
        {
          error (0, 0, "no script given; see 'gostap run --help'");
          return EXIT_USAGE;
        }
      o->script = argv[o->script_at];
    }
  if (o->target == NULL && o->cmd == NULL && o->pid == NULL)
    {
      error (0, 0, "no target: give -c CMD, -x PID or -t BINARY");
      return EXIT_USAGE;
    }
  return -1;
}

/* What gostap adds to stap's command line, and frees after the run.  */
struct stap_cmd
{
  char *gendir;         /* the generated tapsets (-I) */
  char *binpath;        /* -d */
  char *sysroot_opt;    /* --sysroot=DIR, a container's process */
  char *ns_opt;         /* --target-namespaces=PID, the same */
  char *runtime;        /* -R: stap's runtime with gostap's fixes */
  char *script_copy;    /* the script gostap read, in the cache */
  bool guru;            /* -g: a probe between line-table rows */
};

/* Open the Go binary of T into B (*OPENED once tried), with its companion
   debug file, a container's copy (C's --sysroot and namespace options)
   and, for a libdw before 0.191, the copy with .debug_aranges
   (*ARANGES); then check that stap can take its path.  */
static int
open_target (struct go_bin *b, struct run_target *t, const char *pid,
             struct stap_cmd *c, bool *aranges, bool *opened)
{
  /* The layout is read only when the cache misses (generate).  */
  int ret = select_prepare (b, t->program, 0, NULL);
  *opened = true;
  bool wrote = false;
  if (ret == EXIT_OK)
    ret = run_companion (b, &wrote);
  if (ret == EXIT_OK && wrote)
    {
      /* Again: its DWARF was looked up before the companion was there.  */
      gobin_close (b);
      ret = select_prepare (b, t->program, 0, NULL);
    }
  if (ret == EXIT_OK && t->sysroot != NULL)
    {
      /* A container's process: its program read from a copy.  */
      b->probe_path = t->probe_path;
      if (run_sysroot_links (t->sysroot) != 0
          || run_sysroot_check (b, t, pid) != 0
          || asprintf (&c->ns_opt, "--target-namespaces=%s", pid) < 0)
        {
          c->ns_opt = NULL;
          ret = EXIT_ERROR;
        }
    }
  /* libdw before 0.191: stap reads a copy with .debug_aranges.  */
  if (ret == EXIT_OK)
    ret = run_aranges (b, t, aranges);
  if (ret == EXIT_OK && t->sysroot != NULL
      && asprintf (&c->sysroot_opt, "--sysroot=%s", t->sysroot) < 0)
    {
      c->sysroot_opt = NULL;
      ret = EXIT_ERROR;
    }
  if (ret == EXIT_OK)
    ret = write_check_probeable (b);
  return ret;
}

/* stap's command line: stap -I GEN -I STATIC [--sysroot] [-R RUNTIME]
   [--target-namespaces] -d BINARY [-g] [-G, -D gostap adds] OPTIONS...
   SCRIPT ARGS..., the script gostap read in place of its file (C's
   script_copy); NULL after one line.  */
static char **
stap_argv (int argc, char **argv, const struct run_opts *o,
           const struct run_script *s, struct stap_cmd *c)
{
  const char *tapsets = getenv ("GOSTAP_TAPSETS");
  int end = o->script_at < 0 ? argc : o->script_at;
  char **v = calloc ((size_t) argc + 18, sizeof *v);
  if (v == NULL)
    {
      error (0, errno, "stap's command line");
      return NULL;
    }
  int k = 0;
  v[k++] = (char *) run_stap_program ();
  v[k++] = (char *) "-I";
  v[k++] = c->gendir;
  v[k++] = (char *) "-I";
  v[k++] = (char *) (tapsets ? tapsets : GOSTAP_TAPSETDIR);
  /* stap 5.1's runtime looks a probe's path up when the module loads,
     in the mount namespace of --target-namespaces' process (stapio
     passes it), else in its own, where the container's path names
     nothing (measured in the guest: "Couldn't resolve target program
     file path").  */
  if (c->sysroot_opt != NULL)
    v[k++] = c->sysroot_opt;
  if (c->runtime != NULL)
    {
      v[k++] = (char *) "-R";
      v[k++] = c->runtime;
    }
  if (c->ns_opt != NULL)
    v[k++] = c->ns_opt;
  v[k++] = (char *) "-d";
  v[k++] = c->binpath;
  if (c->guru)
    v[k++] = (char *) "-g";
  if ((o->pprof != NULL || o->folded != NULL) && strstr (s->text, "go_profile"))
    {
      /* go_profile_wanted() (tapsets/go_profile.stp).  */
      v[k++] = (char *) "-G";
      v[k++] = (char *) "_go_profile_wanted=1";
    }
  for (int i = 1; i < end; i++)
    {
      if (strcmp (argv[i], "-t") == 0)
        {
          i++;
          continue;
        }
      if (strcmp (argv[i], "--") == 0)
        break;
      const char *unused_p, *unused_f;
      int pw = profile_opt (argv[i], argv[i + 1], &unused_p, &unused_f);
      if (pw > 0)
        {
          i += pw - 1;
          continue;
        }
      /* -e's text as gostap expanded it (run-gofmt.c).  */
      v[k++] = argv[i] == o->inline_script ? s->text : argv[i];
    }
  for (int i = end; i < argc; i++)
    v[k++] = argv[i];
  v[k] = NULL;
  /* stap reads the script gostap read, not the file again.  */
  if (o->script_at >= 0 && o->script_at < argc && o->inline_script == NULL)
    {
      if ((c->script_copy = run_cache_script (s)) == NULL)
        {
          free (v);
          return NULL;
        }
      v[k - (argc - o->script_at)] = c->script_copy;
    }
  return v;
}

/* The Go binary that O's -t, -c or -x names, into T's program.  0, or
   -1 when it is not found.  */
static int
find_program (const struct run_opts *o, struct run_target *t)
{
  if (o->target != NULL)
    t->program = strdup (o->target);
  else if (o->cmd != NULL)
    t->program = run_command_program (o->cmd);
  else if (run_pid_target (o->pid, t) != 0)
    return -1;
  return t->program == NULL ? -1 : 0;
}

/* Check first that stap can run (run_preflight: B's own DWARF is what
   stap reads when it has no companion and no ARANGES copy; RUNS when
   pass 5 runs), unless GOSTAP_NO_PREFLIGHT=1; then take the copy of
   stap's runtime with gostap's fixes into C, unless O gives its own -R.
   0, or -1 when stap would not run.  */
static int
prepare_stap (const struct run_opts *o, struct go_bin *b, bool aranges,
              bool runs, struct stap_cmd *c)
{
  const char *nopf = getenv ("GOSTAP_NO_PREFLIGHT");
  if ((nopf == NULL || strcmp (nopf, "1") != 0)
      && run_preflight (gobin_has_debuginfo (b)
                        && !gobin_dwarf_companion (b) && !aranges,
                        runs) != 0)
    return -1;
  /* stap before 5.1 drops records in its relay transport, and the end of
     a run: a copy of its runtime with both fixed (run-runtime.c), unless
     the user names one.  */
  bool refused = false;
  if (!o->own_runtime
      && (c->runtime = run_runtime_fixed (true, &refused)) == NULL && refused)
    return -1;
  return 0;
}

/* For -v: the stap command line ARGV, in one line on stderr.  */
static void
print_command (char *const *argv)
{
  fputs ("gostap: running:", stderr);
  for (int i = 0; argv[i] != NULL; i++)
    fprintf (stderr, " %s", argv[i]);
  fputc ('\n', stderr);
}

int
cmd_run (int argc, char **argv)
{
  struct run_opts o;
  int ret = parse_run_args (argc, argv, &o);
  if (ret >= 0)
    return ret;
  struct run_script s = { 0 };
  struct run_target t = { 0 };
  struct stap_cmd c = { 0 };
  struct go_bin b;
  bool opened = false, aranges = false;
  char **sargv = NULL;

  ret = EXIT_ERROR;
  run_stap_prefetch ();
  if (find_program (&o, &t) != 0
      || run_read_script (&s, o.script, o.inline_script) != 0)
    goto out;
  if ((ret = open_target (&b, &t, o.pid, &c, &aranges, &opened)) != EXIT_OK)
    goto out;
  if ((ret = run_expand_go_fmt (&b, &s)) != EXIT_OK)
    goto out;
  write_fmt_names = s.fmt_names;
  c.gendir = generate (&b, &s, &c.guru, &ret);
  if (c.gendir == NULL || (ret = run_script_check_locals (
        &b, &s, o.script_at < 0 ? argc : o.script_at, argv)) != EXIT_OK)
    goto out;
  /* stap refuses -g with --unprivileged: without it, stap itself refuses
     the probes the script uses between line-table rows (gostap-scripts(7)).  */
  if (c.guru && o.unprivileged)
    {
      c.guru = false;
      if (o.verbose)
        fprintf (stderr, "gostap: --unprivileged: no -g; stap refuses the "
                 "probes between line-table rows there\n");
    }

  ret = EXIT_ERROR;
  bool runs = o.pass == NULL || atoi (o.pass) >= 5;
  if (prepare_stap (&o, &b, aranges, runs, &c) != 0)
    goto out;
  if ((c.binpath = strdup (b.probe_path)) == NULL
      || (sargv = stap_argv (argc, argv, &o, &s, &c)) == NULL)
    goto out;
  if (o.verbose)
    print_command (sargv);
  /* The binary stays open: the stacks are symbolized from it, the
     warnings folded by its functions.  Before pass 5 nothing runs: no
     output to expand, no profile to write.  */
  ret = run_stap (sargv, &b, o.verbose,
                  runs && (run_script_records_stacks (&s) || o.pprof != NULL
                           || o.folded != NULL),
                  o.outfile_whole ? o.outfile : NULL, runs ? o.pprof : NULL,
                  runs ? o.folded : NULL, t.sysroot);
out:
  if (opened)
    gobin_close (&b);
  run_script_free (&s);
  free (sargv);
  run_target_free (&t);
  free (c.sysroot_opt);
  free (c.ns_opt);
  free (c.runtime);
  free (c.gendir);
  free (c.script_copy);
  free (c.binpath);
  return ret;
}
