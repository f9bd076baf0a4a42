/* run-target.c: which file `gostap run` probes: the program of -c, looked
   up in PATH, or the file process -x PID runs.

   /proc/PID/exe reads as the path inside the process's own mount
   namespace: for a container's process it names another file, or none,
   here.  /proc/PID/root/ + that path reaches the process's file, but
   stap canonicalizes a probe's path: measured with stap 4.8 -p2,
   process("/proc/PID/root/X") resolved to this namespace's X, another
   binary.  A bind mount of the process's file into gostap's namespace is
   refused by the kernel (EINVAL: the source mount belongs to another
   namespace).  So a process whose program this namespace does not name
   by the same path is refused in one line, rather than probed in the
   wrong file.  Every choice is checked by device and inode against
   /proc/PID/exe.  */

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

char *
run_pid_program (const char *pid)
{
  char exe[64], link[PATH_MAX], *path = NULL;
  struct stat want;
  snprintf (exe, sizeof exe, "/proc/%s/exe", pid);
  ssize_t n = readlink (exe, link, sizeof link - 1);
  if (n < 0 || stat (exe, &want) != 0)
    {
      error (0, errno, "%s: cannot read the program of process %s", exe, pid);
      return NULL;
    }
  link[n] = '\0';
  if (link[0] == '/' && same_file (link, &want))
    return strdup (link);
  bool other_ns = false;
  if (link[0] == '/' && asprintf (&path, "/proc/%s/root%s", pid, link) >= 0)
    {
      other_ns = same_file (path, &want);
      free (path);
    }
  if (other_ns)
    error (0, 0, "%s: process %s runs %s in another mount namespace (a "
           "container), where this namespace has another file or none by "
           "that name; SystemTap resolves probe paths here, so gostap cannot "
           "probe it yet", exe, pid, link);
  else
    error (0, 0, "%s: process %s runs %s, which no path names here "
           "(deleted?)", exe, pid, link);
  return NULL;
}
