/* run-cache.c: where `gostap run` keeps the tapsets it generated.

   CACHE/gostap/BINKEY/KEY/, CACHE being $XDG_CACHE_HOME or ~/.cache.
   BINKEY hashes what decides everything generated for the binary: gostap's
   version and the version of what it generates (WRITE_FORMAT), the
   binary's build id, path and identity (device, inode, size, mtime,
   ctime), and for a binary without DWARF of its own the separate debug
   file found for it (its source, path, size and mtime: read-debuginfo.c);
   KEY adds the script's probe points.  So a cache hit costs no walk over the binary's functions.
   A directory is written under a temporary name beside its final one and
   renamed into place only complete: a lost race with another gostap run
   leaves the first one's.

   What is in the cache runs in the kernel (the tapsets) or is trusted by
   stap (companions, the runtime copy, sysroot copies), so another user
   who can write into it could run code as the user of gostap (root, most
   often).  Before gostap reads or writes there, run_cache_trust checks
   the path from / down: no symbolic link on the way (each component is
   opened with O_PATH | O_NOFOLLOW relative to the descriptor of the one
   checked before it, so what is checked is what the next step is under),
   everything owned by the user of gostap or by root, and, from the cache
   root down, nothing writable by group or others.  Above the cache root a
   directory writable by others is accepted when sticky (/tmp): there
   another user can neither rename nor remove what is ours, and what they
   put there in place of our cache root is theirs and refused.  Once every
   directory of the path is ours and closed to others, the paths gostap
   hands to stap name what was checked: no one but us (or root) can swap
   a component afterwards.  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <error.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gobin.h"
#include "run.h"
#include "util.h"
#include "write.h"

/* 0 when ST (of PATH) may be trusted, or -1 after one line.  INSIDE:
   PATH is the cache root or in it.  LINKS: a symbolic link is accepted
   (judged by its owner, never followed), else refused.  */
static int
judge (const char *path, const struct stat *st, bool inside, bool links)
{
  uid_t me = geteuid ();
  if (S_ISLNK (st->st_mode) && !links)
    {
      error (0, 0, "%s: a symbolic link: refusing to use this cache", path);
      return -1;
    }
  if (st->st_uid != me && st->st_uid != 0)
    {
      error (0, 0, "%s: owned by uid %u, neither you (uid %u) nor root: "
             "refusing to use this cache", path, (unsigned) st->st_uid,
             (unsigned) me);
      return -1;
    }
  if (S_ISLNK (st->st_mode))
    return 0;                   /* its mode means nothing */
  mode_t w = st->st_mode & (S_IWGRP | S_IWOTH);
  if (w != 0 && (inside || !S_ISDIR (st->st_mode)
                 || (st->st_mode & S_ISVTX) == 0))
    {
      error (0, 0, "%s: writable by %s (mode %04o): refusing to use this "
             "cache", path, (w & S_IWOTH) ? "others" : "group",
             (unsigned) (st->st_mode & 07777));
      return -1;
    }
  return 0;
}

/* Check the tree under the directory DFD (PATH): every entry judged;
   symbolic links refused unless LINKS (then judged by owner, never
   followed).  Closes DFD.  */
static int
trust_tree (int dfd, const char *path, bool links)
{
  DIR *d = fdopendir (dfd);
  int ret = -1;
  if (d == NULL)
    {
      error (0, errno, "%s", path);
      close (dfd);
      return -1;
    }
  for (;;)
    {
      errno = 0;
      struct dirent *e = readdir (d);
      if (e == NULL)
        {
          if (errno != 0)
            {
              error (0, errno, "%s", path);
              goto out;
            }
          break;
        }
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      char sub[PATH_MAX];
      struct stat st;
      snprintf (sub, sizeof sub, "%s/%s", path, e->d_name);
      if (fstatat (dirfd (d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          error (0, errno, "%s", sub);
          goto out;
        }
      if (judge (sub, &st, true, links) != 0)
        goto out;
      if (S_ISDIR (st.st_mode))
        {
          int fd = openat (dirfd (d), e->d_name, O_RDONLY | O_DIRECTORY
                           | O_NOFOLLOW | O_CLOEXEC);
          if (fd < 0)
            {
              error (0, errno, "%s", sub);
              goto out;
            }
          if (trust_tree (fd, sub, links) != 0)
            goto out;
        }
    }
  ret = 0;
out:
  closedir (d);
  return ret;
}

/* The directory the cache root is made in, without any check
   (malloc'd), or NULL after one line.  */
static char *
base_name (void)
{
  const char *x = getenv ("XDG_CACHE_HOME"), *home = getenv ("HOME");
  char *r = NULL;
  if (x != NULL && x[0] == '/')
    r = strdup (x);
  else if (home != NULL && asprintf (&r, "%s/.cache", home) < 0)
    r = NULL;
  if (r == NULL)
    error (0, 0, "no cache directory: set HOME or XDG_CACHE_HOME");
  return r;
}

/* The cache root with the directories above it as they really are
   (~/.cache may be a link to another disk), made when MAKE; malloc'd, or
   NULL after one line.  */
static char *
real_root (bool make)
{
  char *r = NULL, *real = NULL, *parent = base_name ();
  if (parent == NULL)
    return NULL;
  if ((make && make_dirs (parent) != 0 && errno != EEXIST)
      || (real = realpath (parent, NULL)) == NULL)
    {
      error (0, errno, "%s: cannot %s the cache's directory", parent,
             make ? "make" : "find");
      goto out;
    }
  if (asprintf (&r, "%s/gostap", strcmp (real, "/") == 0 ? "" : real) < 0)
    {
      error (0, errno, "asprintf");
      r = NULL;
    }
out:
  free (parent);
  free (real);
  return r;
}

/* Open BUF (an absolute path; the cache root is its first ROOTLEN
   bytes) one component at a time from "/", into *FDP, none of them
   followed if a link, each judged (judge), *ST the status of the last
   one opened.  0 when the whole path was; 1 when a component is not
   there yet, or one before the last is no directory: nothing more to
   check; -1 after one line.  */
static int
walk_path (char *buf, size_t rootlen, int *fdp, struct stat *st)
{
  if ((*fdp = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0
      || fstat (*fdp, st) != 0)
    {
      error (0, errno, "/");
      return -1;
    }
  if (judge ("/", st, false, false) != 0)
    return -1;
  /* One component at a time: BUF up to P is the path checked so far.  */
  for (char *p = buf + 1; *p != '\0';)
    {
      char *end = strchr (p, '/');
      if (end == p)
        {
          p++;
          continue;
        }
      if (end != NULL)
        *end = '\0';
      int next = openat (*fdp, p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 && errno == ENOENT)
        {
          /* Not there yet: what gostap makes there it makes in a
             directory just checked, where no one else can.  */
          return 1;
        }
      if (next < 0 || fstat (next, st) != 0)
        {
          error (0, errno, "%s", buf);
          if (next >= 0)
            close (next);
          return -1;
        }
      close (*fdp);
      *fdp = next;
      bool inside = (size_t) (p + strlen (p) - buf) >= rootlen;
      if (judge (buf, st, inside, false) != 0)
        return -1;
      if (end == NULL)
        break;
      if (!S_ISDIR (st->st_mode))
        {
          /* Ours, but no directory: nothing can be under it, and what
             would use it fails on its own (one line naming the call).  */
          return 1;
        }
      *end = '/';
      p = end + 1;
    }
  return 0;
}

int
run_cache_trust (const char *path, unsigned how)
{
  char *root = real_root (false);
  char buf[PATH_MAX];
  int fd = -1, ret = -1;
  struct stat st;
  if (root == NULL)
    return -1;
  size_t rootlen = strlen (root);
  if (path[0] != '/' || strncmp (path, root, rootlen) != 0
      || (path[rootlen] != '\0' && path[rootlen] != '/')
      || snprintf (buf, sizeof buf, "%s", path) >= (int) sizeof buf)
    {
      error (0, 0, "%s: not in gostap's cache %s", path, root);
      goto out;
    }
  int r = walk_path (buf, rootlen, &fd, &st);
  if (r != 0)
    {
      ret = r > 0 ? 0 : -1;
      goto out;
    }
  if ((how & RUN_TRUST_TREE) && S_ISDIR (st.st_mode))
    {
      int dfd = openat (fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0)
        {
          error (0, errno, "%s", path);
          goto out;
        }
      if (trust_tree (dfd, path, (how & RUN_TRUST_LINKS) != 0) != 0)
        goto out;
    }
  ret = 0;
out:
  if (fd >= 0)
    close (fd);
  free (root);
  return ret;
}

char *
run_cache_root (void)
{
  /* What gostap writes into its cache is closed to group and others
     whatever the umask (run_cache_trust would refuse it on the next
     run): this process's umask gains 022 here, once a cache is used.  */
  mode_t old = umask (022);
  umask (old | 022);
  char *r = real_root (true);
  if (r == NULL || run_cache_trust (r, 0) != 0)
    goto fail;
  if (mkdir (r, 0755) != 0 && errno != EEXIST)
    {
      error (0, errno, "%s: cannot make the cache directory", r);
      goto fail;
    }
  /* Again now that it is there (made by another user in between, in a
     sticky /tmp?  Refused).  */
  if (run_cache_trust (r, 0) != 0)
    goto fail;
  return r;
fail:
  free (r);
  return NULL;
}

char *
run_cache_debug_dir (void)
{
  char *root = run_cache_root (), *dir = NULL;
  if (root != NULL && asprintf (&dir, "%s/debug", root) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
    }
  free (root);
  return dir;
}

char *
run_cache_dir (const struct go_bin *b, const struct run_script *s)
{
  uint64_t h = FNV1A_BASIS;
  struct stat st;
  h = fnv1a (h, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
  const int format = WRITE_FORMAT;
  h = fnv1a (h, &format, sizeof format);
  h = fnv1a (h, b->build_id, strlen (b->build_id));
  h = fnv1a (h, b->abspath, strlen (b->abspath) + 1);
  /* The file's identity, not a hash of its bytes (which cost a warm run
     of Debian's hugo, 83 MB, 39% of gostap's time: bench/README.md, T11):
     device, inode, size, mtime and ctime.  A binary rebuilt or patched in
     place with its size and mtime kept (touch -d, cp -p) still gets an
     entry of its own, as every write and every utimes() sets the ctime to
     the clock's time, which a user cannot set.  */
  h = fnv1a (h, &b->st.st_dev, sizeof b->st.st_dev);
  h = fnv1a (h, &b->st.st_ino, sizeof b->st.st_ino);
  h = fnv1a (h, &b->st.st_size, sizeof b->st.st_size);
  h = fnv1a (h, &b->st.st_mtim, sizeof b->st.st_mtim);
  h = fnv1a (h, &b->st.st_ctim, sizeof b->st.st_ctim);
  if (!b->has_dwarf)
    {
      const char *debug_file;
      enum go_dwarf_source source = gobin_dwarf_source (b, &debug_file);
      h = fnv1a (h, &source, sizeof source);
      if (debug_file != NULL && stat (debug_file, &st) == 0)
        {
          h = fnv1a (h, debug_file, strlen (debug_file) + 1);
          h = fnv1a (h, &st.st_size, sizeof st.st_size);
          h = fnv1a (h, &st.st_mtim, sizeof st.st_mtim);
        }
    }
  uint64_t binkey = h;
  for (size_t i = 0; i < s->npatterns; i++)
    {
      h = fnv1a (h, s->patterns[i], strlen (s->patterns[i]) + 1);
      h = fnv1a (h, &s->uncertain[i], sizeof s->uncertain[i]);
    }
  h = fnv1a (h, &s->runtime_returns, sizeof s->runtime_returns);
  if (s->fmt_names != NULL)
    h = fnv1a (h, s->fmt_names, strlen (s->fmt_names) + 1);
  char *root = run_cache_root (), *dir = NULL;
  if (root != NULL
      && asprintf (&dir, "%s/%016" PRIx64 "/%016" PRIx64, root, binkey, h) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
    }
  free (root);
  return dir;
}

char *
run_cache_script (const struct run_script *s)
{
  size_t len = strlen (s->text);
  const uint64_t h = hash_content (s->text, len);
  const char *slash = strrchr (s->path, '/');
  const char *base = slash != NULL ? slash + 1 : s->path;
  char *root = run_cache_root (), *dir = NULL, *path = NULL, *tmp = NULL;
  int fd = -1;
  if (root == NULL)
    goto fail;
  if (asprintf (&dir, "%s/scripts/%016" PRIx64, root, h) < 0
      || asprintf (&path, "%s/%s", dir, *base != '\0' ? base : "script.stp") < 0
      || asprintf (&tmp, "%s/.tmp.XXXXXX", dir) < 0)
    {
      error (0, errno, "asprintf");
      dir = path = tmp = NULL;
      goto fail;
    }
  if (make_dirs (dir) != 0 && errno != EEXIST)
    {
      error (0, errno, "%s: cannot make the directory", dir);
      goto fail;
    }
  if (run_cache_trust (dir, 0) != 0)
    goto fail;
  /* Written anew at every run (a temporary name, then renamed): what
     stap reads is what gostap read and checked.  */
  if ((fd = mkstemp (tmp)) < 0)
    {
      error (0, errno, "%s: cannot create", tmp);
      goto fail;
    }
  for (size_t off = 0; off < len;)
    {
      ssize_t n = write (fd, s->text + off, len - off);
      if (n < 0)
        {
          error (0, errno, "%s: cannot write", tmp);
          goto fail;
        }
      off += (size_t) n;
    }
  if (close (fd) != 0)
    {
      fd = -1;
      error (0, errno, "%s: cannot write", tmp);
      goto fail;
    }
  fd = -1;
  if (rename (tmp, path) != 0)
    {
      error (0, errno, "cannot rename '%s' to '%s'", tmp, path);
      goto fail;
    }
  free (tmp);
  free (dir);
  free (root);
  return path;
fail:
  if (fd >= 0)
    close (fd);
  if (tmp != NULL)
    unlink (tmp);
  free (tmp);
  free (path);
  free (dir);
  free (root);
  return NULL;
}

int
run_cache_lookup (const char *dir, bool *guru)
{
  char g[PATH_MAX];
  if (run_cache_trust (dir, RUN_TRUST_TREE) != 0)
    return -1;
  if (access (dir, F_OK) != 0)
    return 0;
  snprintf (g, sizeof g, "%s/needs-guru", dir);
  *guru = access (g, F_OK) == 0;
  return 1;
}

char *
run_cache_begin (const char *dir)
{
  char *tmp = NULL;
  char *parent = strndup (dir, (size_t) (strrchr (dir, '/') - dir));
  if (parent == NULL || make_dirs (parent) != 0
      || asprintf (&tmp, "%s/.tmp.XXXXXX", parent) < 0)
    {
      error (0, errno, "cannot create the cache directory '%s'", dir);
      free (parent);
      return NULL;
    }
  free (parent);
  if (mkdtemp (tmp) == NULL)
    {
      error (0, errno, "cannot create a directory in the cache");
      free (tmp);
      return NULL;
    }
  return tmp;
}

int
run_cache_publish (const char *tmp, const char *dir, bool guru)
{
  if (guru)
    {
      char g[PATH_MAX];
      snprintf (g, sizeof g, "%s/needs-guru", tmp);
      FILE *f = fopen (g, "w");
      if (f == NULL || fclose (f) != 0)
        {
          error (0, errno, "%s", g);
          return -1;
        }
    }
  if (rename (tmp, dir) != 0 && errno != ENOTEMPTY && errno != EEXIST)
    {
      error (0, errno, "cannot rename '%s' to '%s'", tmp, dir);
      return -1;
    }
  return 0;
}

void
run_cache_discard (char *tmp)
{
  if (tmp == NULL)
    return;
  /* Left over after a failure or a lost race: remove it.  */
  if (access (tmp, F_OK) == 0)
    run_remove_tree (tmp);
  free (tmp);
}
