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
#include "layout.h"
#include "params.h"
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
          {
            const struct go_inline_copy *v;
            size_t nc;
            if (go_model_inline_copies (m, names[i], &v, &nc) != 0)
              ret = EXIT_ERROR;
            else
              {
                char where[300];
                size_t w = 0;
                where[0] = '\0';
                for (size_t j = 0; j < nc && w + 80 < sizeof where; j++)
                  w += (size_t) snprintf (where + w, sizeof where - w,
                                          "%s%s at %#" PRIx64,
                                          j ? ", " : "", v[j].in->name,
                                          v[j].pc);
                error (0, 0, "%s: %s: %s is inlined only, %zu copies (%s%s):"
                       " an inlined copy has no return instruction to "
                       "probe; go.func.%s fires at each copy's first "
                       "instruction", s->path ? s->path : "the script",
                       full, names[i], nc, where,
                       w + 80 >= sizeof where ? ", ..." : "", alias);
                ret = EXIT_BADINPUT;
              }
          }
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

/* Generate the tapsets SCRIPT needs for B into the cache; return the
   directory (malloc'd) and whether stap needs -g.  */
static char *
generate (struct go_bin *b, const struct run_script *s, bool *guru,
          int *status)
{
  char *dir = NULL, *tmp = NULL;
  struct go_model *m = NULL;
  struct func_list named = { NULL, 0, 0 };
  const char **inl = NULL;
  size_t ninl = 0;
  bool all = false;
  const struct go_func **sel = calloc (b->nfuncs, sizeof *sel);
  bool *paired = calloc (b->nfuncs, sizeof *paired);
  *status = EXIT_ERROR;
  if (sel == NULL || paired == NULL)
    goto out;
  size_t n = 0;
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
  bool any_ret = false;
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
            goto out;
          bool u = run_script_uses (s, alias, &ret, &pairs);
          free (alias);
          use = use || u;
        }
      if (!use)
        continue;
      int r = gobin_analyze (b, f);
      if (r != EXIT_OK)
        {
          *status = r;
          goto out;
        }
      any_ret |= ret;
      paired[n] = pairs;
      sel[n++] = f;
    }
  m = go_model_begin (b);
  if (m == NULL)
    goto out;
  int r = inlined_only (b, m, s, &inl, &ninl);
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
  struct go_layout layout;
  if (gobin_runtime_layout (b, &layout) != 0)
    {
      *status = EXIT_BADINPUT;
      goto out;
    }
  /* Probes at addresses that start no line-table row need -g: RETs in
     Go's own DWARF, almost never in a companion debug file (which starts
     a row at every probe address: write-companion.c).  */
  *guru = false;
  for (size_t i = 0; i < n && !*guru; i++)
    {
      *guru = !go_model_line_start (m, sel[i]->code.body);
      for (size_t k = 0; (any_ret || s->runtime_returns) && !*guru
           && k < sel[i]->code.rets.n; k++)
        *guru = !go_model_line_start (m, sel[i]->code.rets.v[k]);
    }
  for (size_t i = 0; i < n + ninl && !*guru; i++)
    {
      const struct go_inline_copy *v;
      size_t nc;
      if (i < n && (sel[i]->dup_index != 0
                    || write_is_runtime_event (sel[i]->name)))
        continue;
      if (go_model_inline_copies (m, i < n ? sel[i]->name : inl[i - n], &v,
                                  &nc) != 0)
        goto out;
      for (size_t k = 0; k < nc && !*guru; k++)
        *guru = !go_model_line_start (m, v[k].pc);
    }
  if (write_target (b, &layout, tmp) != 0
      || write_funcs (m, &layout, sel, paired, n, inl, ninl, tmp) != 0)
    goto out;
  if (run_cache_publish (tmp, dir, *guru) != 0)
    goto out;
  *status = EXIT_OK;
out:
  go_model_end (m);
  run_cache_discard (tmp);
  free (sel);
  free (inl);
  free (paired);
  free (named.v);
  if (*status != EXIT_OK)
    {
      free (dir);
      dir = NULL;
    }
  return dir;
}

int
cmd_run (int argc, char **argv)
{
  const char *target = NULL, *cmd = NULL, *pid = NULL, *script = NULL;
  const char *inline_script = NULL, *pass = NULL, *outfile = NULL;
  const char *pprof = NULL, *folded = NULL;
  bool outfile_whole = true;    /* -o FILE is one file stap writes to the end */
  bool verbose = false, own_runtime = false, unprivileged = false;
  bool user_nesting = false;     /* -D MAXNESTING=N given */
  int script_at = -1;
  struct run_script s = { 0 };
  struct go_bin b;
  bool opened = false;
  char *gendir = NULL, *binpath = NULL, *sysroot_opt = NULL, *ns_opt = NULL;
  char *script_copy = NULL;
  char *runtime = NULL;
  struct run_target t = { 0 };
  char **sargv = NULL;
  int ret = EXIT_USAGE;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--help") == 0 || strcmp (a, "-h") == 0)
        {
          usage ();
          return EXIT_OK;
        }
      if (strcmp (a, "--") == 0)
        {
          script_at = i + 1;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        {
          script_at = i;
          break;
        }
      int pw = profile_opt (a, i + 1 < argc ? argv[i + 1] : NULL, &pprof,
                            &folded);
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
      if (strcmp (a, "-t") == 0)
        target = argv[++i];
      else if (strcmp (a, "-c") == 0)
        cmd = argv[++i];
      else if (strcmp (a, "-x") == 0)
        pid = argv[++i];
      else if (strcmp (a, "-e") == 0)
        {
          inline_script = argv[++i];
          script_at = i + 1;
          break;
        }
      else if (strcmp (a, "-v") == 0)
        verbose = true;
      else if (strncmp (a, "-p", 2) == 0)
        pass = a[2] ? a + 2 : argv[i + 1];
      else if (strncmp (a, "-o", 2) == 0)
        outfile = a[2] ? a + 2 : argv[i + 1];
      else if (strncmp (a, "-S", 2) == 0 || strcmp (a, "-F") == 0)
        outfile_whole = false;          /* rotated files, or detached */
      else if (strncmp (a, "-R", 2) == 0)
        own_runtime = true;             /* the user's runtime: no copy */
      else if (strncmp (a, "-DMAXNESTING", 12) == 0
               || (strcmp (a, "-D") == 0 && i + 1 < argc
                   && strncmp (argv[i + 1], "MAXNESTING", 10) == 0))
        user_nesting = true;
      else if (strcmp (a, "--unprivileged") == 0
               || (strncmp (a, "--privilege", 11) == 0
                   && strcmp (a, "--privilege=stapdev") != 0
                   && !(a[11] == '\0' && i + 1 < argc
                        && strcmp (argv[i + 1], "stapdev") == 0)))
        unprivileged = true;            /* stap's stapusr/stapsys mode */
      if (takes_arg (a) && strcmp (a, "-t") != 0 && strcmp (a, "-c") != 0
          && strcmp (a, "-x") != 0)
        i++;
    }
  if (inline_script == NULL)
    {
      if (script_at < 0 || script_at >= argc)
        {
          error (0, 0, "no script given; see 'gostap run --help'");
          return EXIT_USAGE;
        }
      script = argv[script_at];
    }
  if (target == NULL && cmd == NULL && pid == NULL)
    {
      error (0, 0, "no target: give -c CMD, -x PID or -t BINARY");
      return EXIT_USAGE;
    }

  ret = EXIT_ERROR;
  if (target != NULL)
    t.program = strdup (target);
  else if (cmd != NULL)
    t.program = run_command_program (cmd);
  else if (run_pid_target (pid, &t) != 0)
    goto out;
  if (t.program == NULL)
    goto out;
  if (run_read_script (&s, script, inline_script) != 0)
    goto out;

  /* The layout is read only when the cache misses (generate).  */
  ret = select_prepare (&b, t.program, 0, NULL);
  opened = true;
  bool wrote = false;
  if (ret == EXIT_OK)
    ret = run_companion (&b, &wrote);
  if (ret == EXIT_OK && wrote)
    {
      /* Again: its DWARF was looked up before the companion was there.  */
      gobin_close (&b);
      ret = select_prepare (&b, t.program, 0, NULL);
    }
  bool container = t.sysroot != NULL, aranges = false;
  if (ret == EXIT_OK && container)
    {
      /* A container's process: its program read from a copy.  */
      b.probe_path = t.probe_path;
      if (run_sysroot_links (t.sysroot) != 0
          || run_sysroot_check (&b, &t, pid) != 0
          || asprintf (&ns_opt, "--target-namespaces=%s", pid) < 0)
        ret = EXIT_ERROR;
    }
  /* libdw before 0.191: stap reads a copy with .debug_aranges.  */
  if (ret == EXIT_OK)
    ret = run_aranges (&b, &t, &aranges);
  if (ret == EXIT_OK && t.sysroot != NULL
      && asprintf (&sysroot_opt, "--sysroot=%s", t.sysroot) < 0)
    ret = EXIT_ERROR;
  if (ret == EXIT_OK)
    ret = write_check_probeable (&b);
  if (ret != EXIT_OK)
    goto out;
  bool guru = false;
  gendir = generate (&b, &s, &guru, &ret);
  if (gendir == NULL || (ret = run_script_check_locals (
        &b, &s, script_at < 0 ? argc : script_at, argv)) != EXIT_OK)
    goto out;
  /* stap refuses -g with --unprivileged: without it, stap itself refuses
     the probes the script uses between line-table rows (gostap-scripts(7)).  */
  if (guru && unprivileged)
    {
      guru = false;
      if (verbose)
        fprintf (stderr, "gostap: --unprivileged: no -g; stap refuses the "
                 "probes between line-table rows there\n");
    }

  bool runs = pass == NULL || atoi (pass) >= 5;
  const char *nopf = getenv ("GOSTAP_NO_PREFLIGHT");
  if ((nopf == NULL || strcmp (nopf, "1") != 0)
      && run_preflight (gobin_has_debuginfo (&b)
                        && !gobin_dwarf_companion (&b) && !aranges,
                        runs) != 0)
    {
      ret = EXIT_ERROR;
      goto out;
    }

  /* stap before 5.1 drops records in its relay transport, and the end of
     a run: a copy of its runtime with both fixed (run-runtime.c), unless
     the user names one.  */
  bool refused = false;
  if (!own_runtime && (runtime = run_runtime_fixed (true, &refused)) == NULL
      && refused)
    {
      ret = EXIT_ERROR;
      goto out;
    }

  /* stap -I GEN -I STATIC [-R RUNTIME] -d BINARY [-g] OPTIONS... SCRIPT
     ARGS...  */
  const char *tapsets = getenv ("GOSTAP_TAPSETS");
  int end = script_at < 0 ? argc : script_at;
  sargv = calloc ((size_t) argc + 18, sizeof *sargv);
  if (sargv == NULL)
    goto out;
  int k = 0;
  sargv[k++] = (char *) run_stap_program ();
  sargv[k++] = (char *) "-I";
  sargv[k++] = gendir;
  sargv[k++] = (char *) "-I";
  sargv[k++] = (char *) (tapsets ? tapsets : GOSTAP_TAPSETDIR);
  binpath = strdup (b.probe_path);
  if (binpath == NULL)
    goto out;
  /* stap 5.1's runtime looks a probe's path up when the module loads,
     in the mount namespace of --target-namespaces' process (stapio
     passes it), else in its own, where the container's path names
     nothing (measured in the guest: "Couldn't resolve target program
     file path").  */
  if (sysroot_opt != NULL)
    sargv[k++] = sysroot_opt;
  if (runtime != NULL)
    {
      sargv[k++] = (char *) "-R";
      sargv[k++] = runtime;
    }
  if (ns_opt != NULL)
    sargv[k++] = ns_opt;
  sargv[k++] = (char *) "-d";
  sargv[k++] = binpath;
  if (guru)
    sargv[k++] = (char *) "-g";
  if ((pprof != NULL || folded != NULL) && strstr (s.text, "go_profile"))
    {
      /* go_profile_wanted() (tapsets/go_profile.stp).  */
      sargv[k++] = (char *) "-G";
      sargv[k++] = (char *) "_go_profile_wanted=1";
    }
  /* go_fmt's printer (tapsets/go_fmt.stp) calls itself once or twice a
     level of the value it prints: stap allows 8 nested calls to a script
     with recursion, go_fmt_depth's default of 4 needs up to 20.  */
  if (strstr (s.text, "go_fmt") && !user_nesting)
    sargv[k++] = (char *) "-DMAXNESTING=32";
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
      sargv[k++] = argv[i];
    }
  for (int i = end; i < argc; i++)
    sargv[k++] = argv[i];
  sargv[k] = NULL;
  /* stap reads the script gostap read, not the file again.  */
  if (script_at >= 0 && script_at < argc && inline_script == NULL)
    {
      if ((script_copy = run_cache_script (&s)) == NULL)
        {
          ret = EXIT_ERROR;
          goto out;
        }
      sargv[k - (argc - script_at)] = script_copy;
    }
  if (verbose)
    {
      fputs ("gostap: running:", stderr);
      for (int i = 0; i < k; i++)
        fprintf (stderr, " %s", sargv[i]);
      fputc ('\n', stderr);
    }
  /* The binary stays open: the stacks are symbolized from it, the
     warnings folded by its functions.  Before pass 5 nothing runs: no
     output to expand, no profile to write.  */
  ret = run_stap (sargv, &b, verbose,
                  runs && (run_script_records_stacks (&s) || pprof != NULL
                           || folded != NULL),
                  outfile_whole ? outfile : NULL, runs ? pprof : NULL,
                  runs ? folded : NULL, t.sysroot);
out:
  if (opened)
    gobin_close (&b);
  run_script_free (&s);
  free (sargv);
  run_target_free (&t);
  free (sysroot_opt);
  free (ns_opt);
  free (runtime);
  free (gendir);
  free (script_copy);
  free (binpath);
  return ret;
}
