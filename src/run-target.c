/* run-target.c: which file `gostap run` probes: the program of -c, looked
   up in PATH, or the file process -x PID runs.

   /proc/PID/exe reads as the path the kernel prints for the process's
   program from here: for a container's process, the path from the root
   of its mount namespace (inside the container, or for a chroot there
   the path to it), which here names another file, or none.  Then the
   file is read through /proc/PID/exe, which opens it in any namespace,
   into a sysroot for stap (run-sysroot.c).  A path here is used only when
   it names the same file, by device and inode.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

char *
run_command_program (const char *cmd)
{
  size_t n = strcspn (cmd, " \t");
  char *word = strndup (cmd + strspn (cmd, " \t"), n);
  if (word == NULL)
    return NULL;
  word[strcspn (word, " \t")] = '\0';
  if (strchr (word, '/') != NULL)
    return word;
  const char *path = getenv ("PATH");
  char *dirs = strdup (path ? path : "/usr/bin:/bin");
  char *found = NULL, *save = NULL;
  for (char *d = strtok_r (dirs, ":", &save); d && !found;
       d = strtok_r (NULL, ":", &save))
    {
      char *cand;
      if (asprintf (&cand, "%s/%s", *d ? d : ".", word) < 0)
        break;
      if (access (cand, X_OK) == 0)
        found = cand;
      else
        free (cand);
    }
  free (dirs);
  if (found == NULL)
    error (0, 0, "%s: command not found in PATH", word);
  free (word);
  return found;
}

static bool
same_file (const char *path, const struct stat *want)
{
  struct stat st;
  return stat (path, &st) == 0 && st.st_dev == want->st_dev
    && st.st_ino == want->st_ino;
}

int
run_pid_target (const char *pid, struct run_target *t)
{
  char exe[64], link[PATH_MAX];
  struct stat want;
  memset (t, 0, sizeof *t);
  snprintf (exe, sizeof exe, "/proc/%s/exe", pid);
  ssize_t n = readlink (exe, link, sizeof link - 1);
  if (n < 0 || stat (exe, &want) != 0)
    {
      error (0, errno, "%s: cannot read the program of process %s", exe, pid);
      return -1;
    }
  link[n] = '\0';
  if (link[0] == '/' && same_file (link, &want))
    {
      t->program = strdup (link);
      return t->program != NULL ? 0 : -1;
    }
  /* Another file here, or none: the process's own (another mount
     namespace's) unless the kernel says the file was removed.  */
  static const char deleted[] = " (deleted)";
  size_t len = strlen (link), dl = sizeof deleted - 1;
  if (link[0] == '/' && !(len > dl && strcmp (link + len - dl, deleted) == 0))
    return run_sysroot_copy (exe, link, t);
  error (0, 0, "%s: process %s runs %s, which no path names here "
         "(deleted?)", exe, pid, link);
  return -1;
}
