/* run-preflight.c: what would make stap fail, said in one line before
   running it (gostap run), and reported in full by gostap doctor.

   Checked, in this order: stap is there and 4.0 or newer; its libdw is
   0.191 or newer when numeric statement probes are needed (facts.md 2);
   and when probes will run (pass 5): root or the stapdev group, uprobes in
   the kernel, module loading, a kernel build tree.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

/* The output of ARGV (stdout and stderr), NUL-terminated; NULL when it
   cannot be run.  */
static char *
capture (char *const argv[])
{
  int fd[2];
  if (pipe (fd) != 0)
    return NULL;
  pid_t pid = fork ();
  if (pid < 0)
    {
      close (fd[0]);
      close (fd[1]);
      return NULL;
    }
  if (pid == 0)
    {
      dup2 (fd[1], 1);
      dup2 (fd[1], 2);
      close (fd[0]);
      close (fd[1]);
      execvp (argv[0], argv);
      _exit (127);
    }
  close (fd[1]);
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream (&buf, &size);
  char chunk[4096];
  ssize_t n;
  while ((n = read (fd[0], chunk, sizeof chunk)) > 0)
    if (m != NULL && size < (1u << 24))
      fwrite (chunk, 1, (size_t) n, m);
  close (fd[0]);
  if (m != NULL)
    fclose (m);
  int st;
  if (waitpid (pid, &st, 0) < 0 || !WIFEXITED (st) || WEXITSTATUS (st) == 127)
    {
      free (buf);
      return NULL;
    }
  return buf;
}

const char *
run_stap_program (void)
{
  const char *s = getenv ("GOSTAP_STAP");
  return s != NULL && s[0] != '\0' ? s : "stap";
}

int
run_stap_versions (int *stap_major, int *stap_minor, int *dw_major,
                   int *dw_minor)
{
  char *argv[] = { (char *) run_stap_program (), (char *) "-V", NULL };
  char *out = capture (argv);
  if (out == NULL)
    return -1;
  /* "Systemtap translator/driver (version 4.8/0.192/0.188, ...)": the
     libdw in use comes first.  */
  const char *v = strstr (out, "version ");
  *stap_major = *stap_minor = *dw_major = *dw_minor = -1;
  if (v != NULL)
    sscanf (v + 8, "%d.%d/%d.%d", stap_major, stap_minor, dw_major,
            dw_minor);
  free (out);
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
      text = capture (argv);
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
              text = capture (argv);
            }
        }
      if (text == NULL && access ("/proc/config.gz", R_OK) == 0)
        {
          char *argv[] = { (char *) "gzip", (char *) "-dc",
                           (char *) "/proc/config.gz", NULL };
          text = capture (argv);
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

int
run_preflight (bool numeric_probes, bool runs)
{
  int sM, sm, dM, dm;
  if (run_stap_versions (&sM, &sm, &dM, &dm) != 0)
    {
      error (0, 0, "cannot run '%s': install SystemTap (package systemtap "
             "on Debian, RHEL and Fedora)", run_stap_program ());
      return -1;
    }
  if (sM < 4)
    {
      error (0, 0, "SystemTap %d.%d is too old: gostap needs 4.0 or newer",
             sM, sm);
      return -1;
    }
  if (numeric_probes && (dM == 0 && dm < 191))
    {
      error (0, 0, "stap uses libdw 0.%d, which finds no DWARF unit for Go "
             "code (Go writes no .debug_aranges): libdw 0.191 or newer is "
             "needed (RHEL 9.5+, Fedora 40+, Debian 13)", dm);
      return -1;
    }
  if (!runs)
    return 0;
  if (geteuid () != 0 && !in_group ("stapdev"))
    {
      error (0, 0, "not root and not in the stapdev group: SystemTap needs "
             "one of them to load its module");
      return -1;
    }
  if (kconfig_has_uprobes () == 0)
    {
      error (0, 0, "the kernel has no uprobes (CONFIG_UPROBES): SystemTap "
             "cannot probe user space on it");
      return -1;
    }
  const char *k = getenv ("GOSTAP_KCONFIG");
  if ((k == NULL || k[0] == '\0') && access ("/proc/modules", F_OK) != 0)
    {
      error (0, 0, "this kernel cannot load modules (no /proc/modules): "
             "SystemTap's runtime is a kernel module");
      return -1;
    }
  return 0;
}

void
run_remove_tree (const char *path)
{
  char *argv[] = { (char *) "rm", (char *) "-rf", (char *) "--",
                   (char *) path, NULL };
  free (capture (argv));
}
