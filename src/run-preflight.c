/* run-preflight.c: what would make stap fail, said in one line before
   running it (gostap run), and reported in full by gostap doctor: both
   take their verdicts from run_checks.

   Checked, in this order: stap is there and 4.0 or newer; its libdw is
   0.191 or newer when numeric statement probes are needed (facts.md 2);
   what is done about the relay transport of stap before 5.1
   (run-runtime.c), and what cannot be done for stap before 4.5;
   and when probes will run (pass 5): root or the stapdev group, uprobes in
   the kernel, module loading, a kernel build tree.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <grp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

/* Start ARGV with its standard output and error into a pipe: the pipe's
   reading end, the child's pid into *PID; -1 when it cannot start.
   posix_spawn, not fork: a fork copies the page tables of the binary
   gostap read (tens of MB) only for exec to drop them.  */
static int
capture_start (char *const argv[], pid_t *pid)
{
  int fd[2];
  if (pipe (fd) != 0)
    return -1;
  posix_spawn_file_actions_t fa;
  int e = posix_spawn_file_actions_init (&fa);
  if (e == 0)
    {
      if ((e = posix_spawn_file_actions_addclose (&fa, fd[0])) == 0
          && (e = posix_spawn_file_actions_adddup2 (&fa, fd[1], 1)) == 0
          && (e = posix_spawn_file_actions_adddup2 (&fa, fd[1], 2)) == 0
          && (e = posix_spawn_file_actions_addclose (&fa, fd[1])) == 0)
        e = posix_spawnp (pid, argv[0], &fa, NULL, argv, environ);
      posix_spawn_file_actions_destroy (&fa);
    }
  close (fd[1]);
  if (e != 0)
    {
      close (fd[0]);
      return -1;
    }
  return fd[0];
}

/* What the child PID started by capture_start printed into FD, once it
   exited (malloc'd), or NULL when it could not run.  */
static char *
capture_finish (int fd, pid_t pid)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream (&buf, &size);
  char chunk[4096];
  ssize_t n;
  while ((n = read (fd, chunk, sizeof chunk)) > 0
         || (n < 0 && errno == EINTR))
    if (n > 0 && m != NULL && size < (1u << 24))
      fwrite (chunk, 1, (size_t) n, m);
  close (fd);
  if (m != NULL)
    fclose (m);
  int st;
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      {
        free (buf);
        return NULL;
      }
  if (!WIFEXITED (st) || WEXITSTATUS (st) == 127)
    {
      free (buf);
      return NULL;
    }
  return buf;
}

char *
run_capture (char *const argv[])
{
  pid_t pid;
  int fd = capture_start (argv, &pid);
  return fd < 0 ? NULL : capture_finish (fd, pid);
}

const char *
run_stap_program (void)
{
  const char *s = getenv ("GOSTAP_STAP");
  return s != NULL && s[0] != '\0' ? s : "stap";
}

/* What `stap OPTION` printed, for each option asked (-V, --help) and
   the stap program (PROG) it was asked of: set by run_stap_says the first
   time it asks, and read by it after (the preflight, run-aranges.c and
   run-runtime.c each ask in one gostap run), or started by
   run_stap_prefetch and read by run_stap_says (FD and PID, FD -1 when
   none is running).  A slot is replaced when its option is asked of
   another program.  */
static struct said
{
  const char *opt;
  char *prog, *out;
  int fd;
  pid_t pid;
} stap_said[2] = { { .fd = -1 }, { .fd = -1 } };

/* The slot of OPT in stap_said, or NULL after one line.  */
static struct said *
said_slot (const char *opt)
{
  size_t i = 0, n = sizeof stap_said / sizeof stap_said[0];
  while (i < n && stap_said[i].opt != NULL
         && strcmp (stap_said[i].opt, opt) != 0)
    i++;
  if (i == n)
    {
      error (0, 0, "run_stap_says: no room for stap %s", opt);
      return NULL;
    }
  return &stap_said[i];
}

/* Ask stap OPT into slot S, started or (WAIT) to the end: 0, or -1.  */
static int
said_ask (struct said *s, const char *opt, bool wait)
{
  const char *prog = run_stap_program ();
  if (s->fd >= 0 && strcmp (s->prog, prog) != 0)
    {
      free (capture_finish (s->fd, s->pid));    /* another program's */
      s->fd = -1;
    }
  if (s->fd < 0 && (s->out == NULL || strcmp (s->prog, prog) != 0))
    {
      char *argv[] = { (char *) prog, (char *) opt, NULL };
      char *p = strdup (prog);
      int fd = p != NULL ? capture_start (argv, &s->pid) : -1;
      if (fd < 0)
        {
          free (p);
          return -1;
        }
      free (s->prog);
      free (s->out);
      s->opt = opt;
      s->prog = p;
      s->out = NULL;
      s->fd = fd;
    }
  if (wait && s->fd >= 0)
    {
      s->out = capture_finish (s->fd, s->pid);
      s->fd = -1;
    }
  return wait && s->out == NULL ? -1 : 0;
}

void
run_stap_prefetch (void)
{
  /* -V only: every gostap run reads it, and --help only a stap before
     5.1 (run-runtime.c) is asked.  */
  struct said *s = said_slot ("-V");
  if (s != NULL)
    (void) said_ask (s, "-V", false);
}

const char *
run_stap_says (const char *opt)
{
  struct said *s = said_slot (opt);
  return s != NULL && said_ask (s, opt, true) == 0 ? s->out : NULL;
}

int
run_stap_versions (int *stap_major, int *stap_minor, int *dw_major,
                   int *dw_minor)
{
  const char *out = run_stap_says ("-V");
  if (out == NULL)
    return -1;
  /* "Systemtap translator/driver (version 4.8/0.192/0.188, ...)": the
     libdw in use comes first.  */
  const char *v = strstr (out, "version ");
  *stap_major = *stap_minor = *dw_major = *dw_minor = -1;
  if (v != NULL)
    sscanf (v + 8, "%d.%d/%d.%d", stap_major, stap_minor, dw_major,
            dw_minor);
  return 0;
}

/* Does the kernel configuration say CONFIG_UPROBES=y?  1 yes, 0 no,
   -1 unknown.  GOSTAP_KCONFIG names a plain config file to use instead. */
static int
kconfig_has_uprobes (void)
{
  const char *k = getenv ("GOSTAP_KCONFIG");
  char *text = NULL;
  if (k != NULL && k[0] != '\0')
    {
      char *argv[] = { (char *) "cat", (char *) k, NULL };
      text = run_capture (argv);
    }
  else
    {
      if (access ("/sys/kernel/tracing/uprobe_events", F_OK) == 0
          || access ("/sys/kernel/debug/tracing/uprobe_events", F_OK) == 0)
        return 1;
      struct utsname u;
      char path[512];
      if (uname (&u) == 0)
        {
          snprintf (path, sizeof path, "/boot/config-%s", u.release);
          if (access (path, R_OK) == 0)
            {
              char *argv[] = { (char *) "cat", path, NULL };
              text = run_capture (argv);
            }
        }
      if (text == NULL && access ("/proc/config.gz", R_OK) == 0)
        {
          char *argv[] = { (char *) "gzip", (char *) "-dc",
                           (char *) "/proc/config.gz", NULL };
          text = run_capture (argv);
        }
    }
  if (text == NULL)
    return -1;
  int r = strstr (text, "\nCONFIG_UPROBES=y") != NULL
    || strncmp (text, "CONFIG_UPROBES=y", 16) == 0;
  free (text);
  return r;
}

static bool
in_group (const char *name)
{
  struct group *g = getgrnam (name);
  if (g == NULL)
    return false;
  gid_t groups[256];
  int n = getgroups (256, groups);
  for (int i = 0; i < n; i++)
    if (groups[i] == g->gr_gid)
      return true;
  return getegid () == g->gr_gid;
}

/* Fill C with one check's verdict.  */
static void
verdict (struct run_check *c, const char *what, int status, const char *fmt,
         ...)
  __attribute__ ((format (printf, 4, 5)));
static void
verdict (struct run_check *c, const char *what, int status, const char *fmt,
         ...)
{
  va_list ap;
  c->what = what;
  c->status = status;
  va_start (ap, fmt);
  vsnprintf (c->why, sizeof c->why, fmt, ap);
  va_end (ap);
}

/* The verdict on stap's libdw DM.DM into C: a libdw before 0.191 fails
   the NUMERIC_PROBES (statement probes) gostap cannot give it aranges
   for.  */
static void
check_libdw (struct run_check *c, int dM, int dm, bool numeric_probes)
{
  bool new_dw = dM > 0 || dm >= 191;
  if (new_dw)
    verdict (c, "libdw", 1, "stap uses libdw %d.%d: it resolves "
             "statement probes in Go code", dM, dm);
  else if (numeric_probes)
    verdict (c, "libdw", 0, "stap uses libdw %d.%d, which finds no "
             "DWARF unit for Go code without .debug_aranges (Go writes "
             "none), and gostap can add them only to DWARF in the binary or "
             "in a debug file found by GNU build id (in a debug directory "
             "or from debuginfod; not by .gnu_debuglink alone): libdw "
             "0.191 or newer "
             "is needed for statement probes here (RHEL 9.5+, Fedora 40+, "
             "Debian 13)", dM, dm);
  else
    verdict (c, "libdw", 1, "stap uses libdw %d.%d, which finds no "
             "DWARF unit for Go code without .debug_aranges (Go writes "
             "none): gostap run gives stap DWARF with them (a copy of the "
             "binary or of its debug file, or a companion debug file)", dM,
             dm);
}

/* The verdict on the relay transport of stap SM.SM into OUT, where
   there is one to give (before 5.1: what run-runtime.c does about it):
   how many verdicts, 0 or 1.  */
static size_t
check_transport (struct run_check *out, int sM, int sm)
{
  size_t n = 0;
  int rM, rm;
  char *rt = NULL;
  enum run_runtime_need need = run_runtime_need (&rM, &rm, &rt);
  if (sM == 4 && sm < 5)
    /* Measured with bullseye's 4.4 (testsuite/README.md): upstream
       reworked the transport in 4.5-4.7; run-runtime.c's fix is for the
       relay code of 4.5-5.0.  */
    verdict (&out[n++], "transport", -1, "stap %d.%d's transport (before "
             "upstream's rework in 4.5-4.7) drops records under load, and "
             "its staprun writes output in pieces the program's own output "
             "can cut a line between: gostap has no fix for it, stap says "
             "how many it dropped (\"transport failures\")", sM, sm);
  else if (need == RUN_RUNTIME_FIX)
    verdict (&out[n++], "transport", 1, "stap %d.%d's relay transport drops "
             "records when a header does not fit in the rest of a "
             "sub-buffer, and its staprun then loses the framing; its "
             "staprun stops reading before the end of a run's output (both "
             "fixed in 5.1): gostap run gives stap a copy of its runtime "
             "with both fixed (-R; gostap gen --fixed-runtime for stap by "
             "hand)", rM, rm);
  else if (need == RUN_RUNTIME_UNKNOWN)
    verdict (&out[n++], "transport", -1, "stap %d.%d's relay transport "
             "drops records under load (fixed in 5.1), and its runtime's "
             "transport code (%s/transport/relay_v2.c, transport.c) is not "
             "the one gostap knows: stap runs with its own runtime, which "
             "may lose output",
             rM, rm, rt != NULL ? rt : "not found");
  free (rt);
  return n;
}

/* The verdicts on what running probes (pass 5) needs of this host into
   OUT: privileges, uprobes, module loading.  How many.  */
static size_t
check_host (struct run_check *out)
{
  size_t n = 0;
  if (geteuid () == 0)
    verdict (&out[n++], "privileges", 1, "root");
  else if (in_group ("stapdev"))
    verdict (&out[n++], "privileges", 1, "member of the stapdev group");
  else
    verdict (&out[n++], "privileges", 0, "not root and not in the stapdev "
             "group: SystemTap needs one of them to load its module");
  int up = kconfig_has_uprobes ();
  verdict (&out[n++], "uprobes", up == 0 ? 0 : up == 1 ? 1 : -1, "%s",
           up == 0 ? "the kernel has no uprobes (CONFIG_UPROBES): SystemTap "
           "cannot probe user space on it"
           : up == 1 ? "the kernel has uprobes (CONFIG_UPROBES=y)"
           : "cannot tell whether the kernel has uprobes (no tracefs, no "
           "kernel configuration to read)");
  const char *k = getenv ("GOSTAP_KCONFIG");
  if ((k == NULL || k[0] == '\0') && access ("/proc/modules", F_OK) != 0)
    verdict (&out[n++], "kernel modules", 0, "this kernel cannot load "
             "modules (no /proc/modules): SystemTap's runtime is a kernel "
             "module");
  else
    verdict (&out[n++], "kernel modules", 1, "the kernel loads modules");
  return n;
}

size_t
run_checks (bool numeric_probes, bool runs,
            struct run_check out[RUN_MAX_CHECKS])
{
  size_t n = 0;
  int sM, sm, dM, dm;
  if (run_stap_versions (&sM, &sm, &dM, &dm) != 0)
    {
      verdict (&out[n++], "stap", 0, "cannot run '%s': install SystemTap "
               "(package systemtap on Debian, RHEL and Fedora)",
               run_stap_program ());
      return n;
    }
  if (sM < 4)
    {
      verdict (&out[n++], "stap", 0, "SystemTap %d.%d is too old: gostap "
               "needs 4.0 or newer", sM, sm);
      return n;
    }
  verdict (&out[n++], "stap", 1, "SystemTap %d.%d (%s)", sM, sm,
           run_stap_program ());
  check_libdw (&out[n++], dM, dm, numeric_probes);
  n += check_transport (&out[n], sM, sm);
  if (!runs)
    return n;
  n += check_host (&out[n]);
  return n;
}

int
run_preflight (bool numeric_probes, bool runs)
{
  struct run_check c[RUN_MAX_CHECKS];
  size_t n = run_checks (numeric_probes, runs, c);
  for (size_t i = 0; i < n; i++)
    if (c[i].status == 0)
      {
        error (0, 0, "%s", c[i].why);
        return -1;
      }
  return 0;
}

void
run_remove_tree (const char *path)
{
  char *argv[] = { (char *) "rm", (char *) "-rf", (char *) "--",
                   (char *) path, NULL };
  free (run_capture (argv));
}
