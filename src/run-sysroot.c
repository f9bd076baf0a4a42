/* run-sysroot.c: gostap run -x PID on a process of another mount
   namespace (a container), whose program this namespace does not name by
   the path the process's /proc/PID/exe reads.

   stap matches a process("PATH") probe to a process by that path as the
   kernel prints it for the process's program from here (d_path: the path
   inside the container, for a root this namespace cannot reach), and
   reads the ELF file by the same path at translate time, canonicalized:
   /proc/PID/root/PATH and process(PID) both resolve to this namespace's
   PATH (measured, stap 4.8 -p2), another file or none.  What works is
   stap's --sysroot: it reads process("PATH") as SYSROOT/PATH and keeps
   PATH for the match at run time.  So gostap copies the process's
   program (read through /proc/PID/exe, which opens it in any namespace)
   to CACHE/gostap/sysroot/KEY/PATH, KEY a hash of its bytes, and gives
   stap --sysroot=CACHE/gostap/sysroot/KEY.  stap also reads every
   debuginfo directory and the kernel's build tree under the sysroot:
   links there name this namespace's (run_sysroot_links).

   stap checks a GNU build id at run time before it places a probe in a
   process; a Go binary usually has none, and then the path alone decides.
   A file of another content by the same path here, or another process
   running one, would get these probes at wrong addresses: gostap refuses
   then (run_sysroot_check).  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "util.h"

/* FNV-1a of the bytes of FD from its start, and their number.  0, or -1
   with errno.  */
static int
content_hash (int fd, uint64_t *hash, uint64_t *size)
{
  static unsigned char buf[1 << 16];    /* scratch, used by one call at a
                                           time (gostap is one thread) */
  uint64_t h = 0xcbf29ce484222325ULL, n = 0;
  if (lseek (fd, 0, SEEK_SET) != 0)
    return -1;
  for (;;)
    {
      ssize_t r = read (fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      if (r == 0)
        break;
      h = fnv1a (h, buf, (size_t) r);
      n += (uint64_t) r;
    }
  *hash = h;
  *size = n;
  return 0;
}

/* The hash and size of the file PATH opens (a /proc/PID/exe): 0, or -1
   with errno.  */
static int
path_hash (const char *path, uint64_t *hash, uint64_t *size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int r = content_hash (fd, hash, size);
  int e = errno;
  close (fd);
  errno = e;
  return r;
}

/* Copy FROM (at its start) to TO, through a temporary file beside it,
   with FROM's mode and modification time (stap's module cache key has
   the size and time of the files it reads).  0, or -1 after one line.  */
static int
copy_file (int from, const struct stat *st, const char *to)
{
  char *tmp = NULL;
  int out = -1, ret = -1;
  if (asprintf (&tmp, "%s.tmpXXXXXX", to) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  out = mkstemp (tmp);
  if (out < 0)
    {
      error (0, errno, "%s: mkstemp", tmp);
      goto out;
    }
  if (lseek (from, 0, SEEK_SET) != 0)
    {
      error (0, errno, "lseek");
      goto out;
    }
  if (copy_fd (from, to, out, tmp) != 0)
    goto out;
  struct timespec times[2] = { st->st_atim, st->st_mtim };
  if (fchmod (out, st->st_mode & 0755) != 0 || futimens (out, times) != 0)
    {
      error (0, errno, "%s: fchmod/futimens", tmp);
      goto out;
    }
  int published = publish_tmp (out, tmp, to);
  out = -1;
  if (published != 0)
    goto out;
  ret = 0;
out:
  if (out >= 0)
    close (out);
  if (ret != 0 && tmp != NULL)
    unlink (tmp);
  free (tmp);
  return ret;
}

int
run_sysroot_copy (const char *exe, const char *inner, struct run_target *t)
{
  char *root = NULL, *copy = NULL, *dir = NULL;
  int fd = open (exe, O_RDONLY | O_CLOEXEC), ret = -1;
  struct stat st, have;
  uint64_t hash, size;
  if (fd < 0 || fstat (fd, &st) != 0 || content_hash (fd, &hash, &size) != 0)
    {
      error (0, errno, "%s: cannot read the process's program", exe);
      goto out;
    }
  char *cache = run_cache_root ();
  if (cache == NULL)
    goto out;
  int n = asprintf (&root, "%s/sysroot/%016llx", cache,
                    (unsigned long long) (hash ^ size));
  free (cache);
  if (n < 0 || asprintf (&copy, "%s%s", root, inner) < 0
      || (dir = strdup (copy)) == NULL)
    {
      error (0, errno, "asprintf");
      goto out;
    }
  *strrchr (dir, '/') = '\0';
  if (run_cache_trust (root, RUN_TRUST_TREE | RUN_TRUST_LINKS) != 0)
    goto out;
  if (make_dirs (dir) != 0)
    {
      error (0, errno, "%s: cannot make the directory", dir);
      goto out;
    }
  /* A copy made before is used as it is: same bytes, same key.  */
  if (!(stat (copy, &have) == 0 && S_ISREG (have.st_mode)
        && (uint64_t) have.st_size == size)
      && copy_file (fd, &st, copy) != 0)
    goto out;
  t->program = copy;
  t->probe_path = strdup (inner);
  t->sysroot = root;
  t->content_hash = hash;
  t->content_size = size;
  copy = root = NULL;
  ret = t->probe_path != NULL ? 0 : -1;
out:
  if (fd >= 0)
    close (fd);
  free (dir);
  free (copy);
  free (root);
  return ret;
}

/* SYSROOT/DIR as a link to DIR, unless DIR is not there or SYSROOT/DIR is
   (through a link made before, or the program's own directories).  */
static int
link_dir (const char *sysroot, const char *dir)
{
  char *at = NULL, *parent = NULL;
  struct stat st;
  int ret = 0;
  if (dir[0] != '/' || stat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    return 0;
  if (asprintf (&at, "%s%s", sysroot, dir) < 0)
    return -1;
  if (lstat (at, &st) == 0 || (parent = strdup (at)) == NULL)
    goto out;
  *strrchr (parent, '/') = '\0';
  if ((make_dirs (parent) != 0 || symlink (dir, at) != 0) && errno != EEXIST)
    {
      error (0, errno, "%s: cannot link it to %s", at, dir);
      ret = -1;
    }
out:
  free (parent);
  free (at);
  return ret;
}

int
run_sysroot_links (const char *sysroot)
{
  /* The kernel's build tree (/lib/modules/REL/build, a link into
     /usr/src on Debian) and its debuginfo; then the debuginfo
     directories stap will read, gostap's cache among them (run_companion
     named it).  */
  static const char *const fixed[] = { "/lib/modules", "/usr/src", "/boot",
                                       "/usr/lib/debug" };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (link_dir (sysroot, fixed[i]) != 0)
      return -1;
  const char *env = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  char *path = strdup (env != NULL ? env : ""), *save = NULL;
  int ret = path != NULL ? 0 : -1;
  for (char *d = path ? strtok_r (path, ":", &save) : NULL; d && ret == 0;
       d = strtok_r (NULL, ":", &save))
    ret = link_dir (sysroot, d);
  free (path);
  return ret;
}

/* Does process PID (a /proc entry's name) run another file than T's by
   T's path?  */
static bool
runs_other (const char *pid, const struct run_target *t, dev_t dev, ino_t ino)
{
  char exe[64], link[PATH_MAX];
  struct stat st;
  uint64_t hash, size;
  snprintf (exe, sizeof exe, "/proc/%s/exe", pid);
  ssize_t n = readlink (exe, link, sizeof link - 1);
  if (n < 0)
    return false;
  link[n] = '\0';
  if (strcmp (link, t->probe_path) != 0 || stat (exe, &st) != 0
      || (st.st_dev == dev && st.st_ino == ino))
    return false;
  return path_hash (exe, &hash, &size) == 0
    && (hash != t->content_hash || size != t->content_size);
}

int
run_sysroot_check (const struct go_bin *b, const struct run_target *t,
                   const char *pid)
{
  if (b->gnu_build_id != NULL)
    return 0;                   /* stap checks it before each placement */
  uint64_t hash, size;
  if (path_hash (t->probe_path, &hash, &size) == 0
      && (hash != t->content_hash || size != t->content_size))
    {
      error (0, 0, "%s: names another file here than the one process %s "
             "runs by that path in its mount namespace, and the binary has no "
             "GNU build id for stap to tell them apart: a process started "
             "from this one would get the probes at wrong addresses (build "
             "with -ldflags=-B=gobuildid, or run the program from a path the "
             "host does not use)", t->probe_path, pid);
      return -1;
    }
  char exe[64];
  struct stat st;
  snprintf (exe, sizeof exe, "/proc/%s/exe", pid);
  if (stat (exe, &st) != 0)
    {
      error (0, errno, "%s", exe);
      return -1;
    }
  DIR *d = opendir ("/proc");
  if (d == NULL)
    {
      error (0, errno, "/proc: opendir");
      return -1;
    }
  int ret = 0;
  for (struct dirent *e; ret == 0 && (e = readdir (d)) != NULL;)
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9'
        && runs_other (e->d_name, t, st.st_dev, st.st_ino))
      {
        error (0, 0, "%s: process %s runs it, and process %s another file "
               "by the same path, which stap would give the probes too, at "
               "wrong addresses (the binary has no GNU build id for stap to "
               "tell them apart)", t->probe_path, pid, e->d_name);
        ret = -1;
      }
  closedir (d);
  return ret;
}

void
run_target_free (struct run_target *t)
{
  free (t->program);
  free (t->probe_path);
  free (t->sysroot);
  memset (t, 0, sizeof *t);
}
