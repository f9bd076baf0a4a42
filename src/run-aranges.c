/* run-aranges.c: gostap run where stap's libdw is older than 0.191 (RHEL
   8, RHEL 9.0-9.4, Ubuntu 24.04, Debian 12) on a binary with its own
   DWARF.

   Such a libdw finds the compile unit of an address only through
   .debug_aranges, which Go's linker does not write, so stap resolves no
   statement probe in Go code (facts.md 2): no entry after the stack
   check, no RET, no argument.  gostap gives stap a copy of the binary
   with that section added (write-aranges.c: every byte of the binary at
   its offset, the section past the end), through stap's --sysroot: stap
   reads process("PATH") as SYSROOT/PATH and keeps PATH for the probes
   at run time (run-sysroot.c says what was measured of it).  The
   binary's own DWARF still gives the arguments and results.  A binary
   whose DWARF is in a separate debug file found by its GNU build id gets
   a copy of that file instead, found first (debug_file_copy).

   The sysroot is CACHE/gostap/sysroot/aranges-KEY, KEY a hash of the
   binary's bytes and path (a binary rebuilt in place gets another), and
   shadows
   this machine's file system: every other entry of each directory on the
   way to the copy is a link to the real one, so that the libraries,
   debug directories and kernel build tree a script needs resolve under
   it as they do outside.  The links are made again at every run (an
   entry added since is linked then); the copy is written once, and the
   sysroots of older builds at the same path are removed then.  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "companion.h"
#include "run.h"
#include "util.h"
#include "write.h"

bool
run_libdw_finds_go_units (void)
{
  int sM, sm, dM, dm;
  /* Without stap there is nothing to give it (the preflight says so).  */
  return run_stap_versions (&sM, &sm, &dM, &dm) != 0 || dM > 0
    || dm >= 191;
}

/* Link every entry of directory DIR (an absolute path; "" for /) into
   ROOT, except KEEP (the next component on the way to the copy, or
   NULL), unless ROOT/DIR/ENTRY is there already.  0, or -1 after one
   line.  */
static int
shadow_dir (const char *root, const char *dir, const char *keep)
{
  DIR *d = opendir (dir[0] ? dir : "/");
  if (d == NULL)
    return 0;                   /* unreadable: nothing to shadow */
  int ret = 0;
  for (struct dirent *e; ret == 0 && (e = readdir (d)) != NULL;)
    {
      char *at = NULL, *real = NULL;
      struct stat st;
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0
          || (keep != NULL && strcmp (e->d_name, keep) == 0))
        continue;
      if (asprintf (&at, "%s%s/%s", root, dir, e->d_name) < 0)
        at = NULL;
      else if (asprintf (&real, "%s/%s", dir, e->d_name) < 0)
        real = NULL;
      if (at == NULL || real == NULL)
        {
          error (0, errno, "asprintf");
          ret = -1;
        }
      else if (lstat (at, &st) != 0 && symlink (real, at) != 0
               && errno != EEXIST)
        {
          error (0, errno, "%s: cannot link it to %s", at, real);
          ret = -1;
        }
      free (at);
      free (real);
    }
  closedir (d);
  return ret;
}

/* ROOT as a shadow of / along PATH (absolute): each directory on the way
   made, its other entries linked.  0, or -1 after one line.  */
static int
shadow (const char *root, const char *path)
{
  char *dir = strdup (path);
  int ret = dir != NULL ? 0 : -1;
  if (dir == NULL)
    error (0, errno, "strdup");
  /* DIR[0..i) is the directory, PATH + i + 1 begins the next
     component.  */
  for (size_t i = 0; ret == 0 && dir[i] == '/';)
    {
      const char *next = path + i + 1;
      size_t len = strcspn (next, "/");
      if (next[len] != '/')
        {
          /* The last component: the copy itself.  */
          char *keep = strndup (next, len);
          dir[i] = '\0';
          ret = keep != NULL ? shadow_dir (root, dir, keep) : -1;
          free (keep);
          break;
        }
      char *keep = strndup (next, len), *mk = NULL;
      dir[i] = '\0';
      if (keep == NULL || shadow_dir (root, dir, keep) != 0
          || asprintf (&mk, "%s%s/%s", root, dir, keep) < 0)
        ret = -1;
      else
        {
          /* A directory on the way, never a link out of ROOT (the copy
             would be looked for, or written, in the real file system).  */
          struct stat st;
          if (lstat (mk, &st) == 0 && !S_ISDIR (st.st_mode)
              && unlink (mk) != 0)
            {
              error (0, errno, "%s: unlink", mk);
              ret = -1;
            }
          else if (mkdir (mk, 0755) != 0 && errno != EEXIST)
            {
              error (0, errno, "%s: mkdir", mk);
              ret = -1;
            }
        }
      free (mk);
      free (keep);
      dir[i] = '/';
      i += 1 + len;
    }
  free (dir);
  return ret;
}

/* Put DIR first in SYSTEMTAP_DEBUGINFO_PATH (after its leading + or -,
   which says how libdwfl checks what it finds).  0, or -1 after one
   line.  */
static int
debuginfo_path_first (const char *dir)
{
  const char *now = gobin_debuginfo_path ();
  char *path = NULL;
  int n;
  if ((now[0] == '+' || now[0] == '-') && now[1] == ':')
    n = asprintf (&path, "%c:%s:%s", now[0], dir, now + 2);
  else
    n = asprintf (&path, "%s:%s", dir, now);
  if (n < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  n = setenv ("SYSTEMTAP_DEBUGINFO_PATH", path, 1);
  if (n != 0)
    error (0, errno, "setenv");
  free (path);
  return n;
}

/* B's DWARF is in the separate debug file DEBUG_FILE, found by B's GNU
   build id: a copy of it with .debug_aranges under the same build id in
   CACHE/gostap/aranges-debug, which goes first in
   SYSTEMTAP_DEBUGINFO_PATH, so stap finds it before the original.  An
   exit status, after one line.  */
static int
debug_file_copy (const struct go_bin *b, Dwarf *dw, const char *debug_file,
                 bool *gave)
{
  char *cache = run_cache_root (), *dir = NULL, *path = NULL;
  int ret = EXIT_ERROR;
  struct stat st;
  if (cache == NULL)
    return EXIT_ERROR;
  if (asprintf (&dir, "%s/aranges-debug", cache) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
      goto out;
    }
  if (run_cache_trust (dir, RUN_TRUST_TREE) != 0
      || (path = companion_path (b, dir)) == NULL
      || companion_mkdirs (path) != 0)
    goto out;
  if (!(stat (path, &st) == 0 && S_ISREG (st.st_mode))
      && (ret = write_aranges_copy (debug_file, dw, path)) != EXIT_OK)
    goto out;
  ret = EXIT_ERROR;
  if (debuginfo_path_first (dir) != 0)
    goto out;
  *gave = true;
  ret = EXIT_OK;
out:
  free (path);
  free (dir);
  free (cache);
  return ret;
}

/* The file ROOT/.path holds the path of ROOT's copy.  WRITE: write PATH
   there (false after one line when that fails); else: does it hold
   PATH?  */
static bool
root_path (const char *root, const char *path, bool write)
{
  char *at = NULL, buf[4096];
  bool ret = false;
  if (asprintf (&at, "%s/.path", root) < 0)
    return false;
  FILE *f = fopen (at, write ? "w" : "r");
  if (f != NULL && write)
    ret = fputs (path, f) >= 0;
  else if (f != NULL)
    ret = fgets (buf, sizeof buf, f) != NULL && strcmp (buf, path) == 0;
  if (f != NULL && fclose (f) != 0)
    ret = false;
  if (write && !ret)
    error (0, errno, "%s", at);
  free (at);
  return ret;
}

/* Remove the sysroots of DIR other than KEEP whose copy is at PATH: an
   older build of the same program.  */
static void
remove_older (const char *dir, const char *keep, const char *path)
{
  DIR *d = opendir (dir);
  if (d == NULL)
    return;
  for (struct dirent *e; (e = readdir (d)) != NULL;)
    {
      char *root = NULL;
      if (strncmp (e->d_name, "aranges-", 8) != 0
          || asprintf (&root, "%s/%s", dir, e->d_name) < 0)
        continue;
      if (strcmp (root, keep) != 0 && root_path (root, path, false))
        run_remove_tree (root);
      free (root);
    }
  closedir (d);
}

/* What stap needs for B: nothing (0), a copy of the binary (1), of its
   debug file DEBUG_FILE found by build id (2); its DWARF into *DW.
   Without a build id stap would check a .gnu_debuglink's CRC, which a
   copy does not have: nothing then, and the preflight says that libdw is
   too old.  */
static int
needed (const struct go_bin *b, Dwarf **dw, const char **debug_file)
{
  if (run_libdw_finds_go_units () || gobin_dwarf_companion (b))
    return 0;
  enum go_dwarf_source source = gobin_dwarf_source (b, debug_file);
  *dw = source != GO_DWARF_NONE ? gobin_dwarf (b) : NULL;
  if (*dw == NULL)
    return 0;                   /* nothing to add to (or said) */
  if (source == GO_DWARF_BINARY)
    return 1;
  return b->gnu_build_id != NULL && *debug_file != NULL ? 2 : 0;
}

int
run_aranges (const struct go_bin *b, struct run_target *t, bool *gave)
{
  char *cache = NULL, *root = NULL, *copy = NULL;
  int ret = EXIT_OK;
  const char *debug_file;
  Dwarf *dw;
  *gave = false;
  switch (needed (b, &dw, &debug_file))
    {
    case 0:
      return EXIT_OK;
    case 2:
      return debug_file_copy (b, dw, debug_file, gave);
    }
  ret = EXIT_ERROR;
  /* The bytes and the path: the same program at two paths gets two
     sysroots, each shadowing the file system along its own path.  */
  uint64_t key = hash_content (b->image, b->size);
  key = fnv1a (key, b->probe_path, strlen (b->probe_path));
  if ((cache = run_cache_root ()) == NULL)
    goto out;
  if (asprintf (&root, "%s/sysroot/aranges-%016llx", cache,
                (unsigned long long) key) < 0
      || asprintf (&copy, "%s%s", root, b->probe_path) < 0)
    {
      error (0, errno, "asprintf");
      root = copy = NULL;
      goto out;
    }
  if (run_cache_trust (root, RUN_TRUST_TREE | RUN_TRUST_LINKS) != 0)
    goto out;
  if (make_dirs (root) != 0)
    {
      error (0, errno, "%s: cannot make the directory", root);
      goto out;
    }
  if (shadow (root, b->probe_path) != 0)
    goto out;
  struct stat st;
  if (!(stat (copy, &st) == 0 && S_ISREG (st.st_mode)))
    {
      if ((ret = write_aranges_copy (b->abspath, dw, copy)) != EXIT_OK)
        goto out;
      ret = EXIT_ERROR;
      if (!root_path (root, b->probe_path, true))
        goto out;
      char *dir = strndup (root, (size_t) (strrchr (root, '/') - root));
      if (dir != NULL)
        remove_older (dir, root, b->probe_path);
      free (dir);
    }
  free (t->sysroot);
  t->sysroot = root;
  root = NULL;
  *gave = true;
  ret = EXIT_OK;
out:
  free (cache);
  free (root);
  free (copy);
  return ret;
}

int
run_aranges_hint (const struct go_bin *b, bool write)
{
  struct run_target t = { 0 };
  bool gave;
  Dwarf *dw;
  const char *debug_file;
  if (!write)
    {
      if (needed (b, &dw, &debug_file) != 0)
        error (0, 0, "%s: warning: stap's libdw is older than 0.191 and finds "
               "no Go code without .debug_aranges, which %s lacks: gostap run "
               "gives stap a copy with them; for stap by hand, gostap gen "
               "--aranges makes that copy and names what stap needs", b->path,
               debug_file != NULL ? "its debug file" : "the binary");
      return EXIT_OK;
    }
  const char *before = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  char *was = before != NULL ? strdup (before) : NULL;
  int ret = run_aranges (b, &t, &gave);
  const char *now = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  if (ret == EXIT_OK && gave && t.sysroot != NULL)
    error (0, 0, "%s: warning: stap's libdw is older than 0.191 and needs "
           ".debug_aranges, which the binary lacks: run stap with "
           "--sysroot=%s (a copy of the binary with them)", b->path,
           t.sysroot);
  else if (ret == EXIT_OK && gave && now != NULL)
    error (0, 0, "%s: warning: stap's libdw is older than 0.191 and needs "
           ".debug_aranges, which the debug file lacks: run stap with "
           "SYSTEMTAP_DEBUGINFO_PATH=%s (a copy of it with them first)",
           b->path, now);
  if (was != NULL)
    setenv ("SYSTEMTAP_DEBUGINFO_PATH", was, 1);
  else
    unsetenv ("SYSTEMTAP_DEBUGINFO_PATH");
  free (was);
  run_target_free (&t);
  return ret;
}
