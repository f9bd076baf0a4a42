/* run-runtime.c: gostap run where stap is older than 5.1 (RHEL 8's 4.9,
   Debian 12's 4.8, RHEL 9.0-9.4's 5.0).

   Such a runtime loses output under load: _stp_data_write_reserve()
   (transport/relay_v2.c) returns whatever is left of the current relay
   sub-buffer, even 1..8 bytes; __stp_print_flush() (print_flush.c) needs
   more than a record's header (sizeof (struct _stp_trace)), else it drops
   the record, but the bytes reserved stay in the stream unwritten, and
   staprun before 5.0 (no magic number to resynchronize on) reads them as
   a header: records lost, headers printed as data, output stopping.
   Upstream fixed it in 5.1 (PR31117).  And staprun before 5.1 stops
   its readers as soon as the module has run its end probes, so the last
   records a module wrote (a program run with -c that ends in a burst of
   output) may never be read (upstream PR31597, 5.1: staprun waits).

   gostap gives such a stap a copy of its runtime (stap -R) in which such
   a rest goes to the sub-buffer's padding, which the kernel's relay read
   skips: the old staprun reads the same framing as ever; and in which
   the module, stopping its transport, waits (at most a second) until
   staprun's readers have read every buffer.  The copy is
   CACHE/gostap/runtime/KEY, KEY a hash of stap's version, the runtime's
   path, relay_v2.c's bytes and every file's name, size and mtime (a
   package update gets another); written under a temporary name and
   renamed only complete, then reused.  The runtime is the one stap uses:
   $SYSTEMTAP_RUNTIME, else the directory `stap --help` names after -R.
   Only a relay_v2.c holding the exact lines below is changed; one
   holding the code before 4.5, which moves a record that does not fit
   whole to the next sub-buffer, needs nothing.  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gobin.h"
#include "run.h"

/* In _stp_data_write_reserve() of stap 4.5 (or so) to 5.0.  */
static const char buggy[] =
  "\t} else if (buf->offset + size_request > buf->chan->subbuf_size) {\n"
  "\t\tsize_request = buf->chan->subbuf_size - buf->offset;\n"
  "\t}\n"
  "\t*entry = (char*)buf->data + buf->offset;\n";
/* struct _stp_trace (transport_msgs.h) is there: transport.c includes
   transport.h before relay_v2.c.  */
static const char fixed[] =
  "\t} else if (buf->offset + size_request > buf->chan->subbuf_size) {\n"
  "\t\t/* gostap: a rest too small for a record's header (which\n"
  "\t\t   __stp_print_flush needs whole, and more) goes to padding,\n"
  "\t\t   as upstream 5.1 does (PR31117): left unwritten in the\n"
  "\t\t   stream, it broke staprun's framing.  */\n"
  "\t\tif (buf->chan->subbuf_size - buf->offset\n"
  "\t\t    <= sizeof(struct _stp_trace)) {\n"
  "\t\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);\n"
  "\t\t\tif (!size_request)\n"
  "\t\t\t\treturn 0;\n"
  "\t\t} else\n"
  "\t\t\tsize_request = buf->chan->subbuf_size - buf->offset;\n"
  "\t}\n"
  "\t*entry = (char*)buf->data + buf->offset;\n";

/* In _stp_transport_data_fs_stop(), called in process context only
   (STP_EXIT written by staprun, or the module's unloading), while
   staprun's readers still run.  */
static const char undrained[] =
  "\t\tdbug_trans(0, \"flushing...\\n\");\n"
  "\t\tif (_stp_relay_data.rchan)\n"
  "\t\t\trelay_flush(_stp_relay_data.rchan);\n";
static const char drained[] =
  "\t\tdbug_trans(0, \"flushing...\\n\");\n"
  "\t\tif (_stp_relay_data.rchan) {\n"
  "\t\t\tint i, tries;\n"
  "\t\t\trelay_flush(_stp_relay_data.rchan);\n"
  "\t\t\t/* gostap: wait until staprun's readers have read every\n"
  "\t\t\t   buffer (at most a second), as upstream 5.1's staprun\n"
  "\t\t\t   waits before it stops them (PR31597).  */\n"
  "\t\t\tfor (tries = 0; tries < 100; tries++) {\n"
  "\t\t\t\tint empty = 1;\n"
  "\t\t\t\tfor_each_online_cpu(i) {\n"
  "\t\t\t\t\tstruct rchan_buf *buf = _stp_get_rchan_subbuf(\n"
  "\t\t\t\t\t\t_stp_relay_data.rchan->buf, i);\n"
  "\t\t\t\t\tif (buf && !__stp_relay_buf_empty(buf)) {\n"
  "\t\t\t\t\t\tempty = 0;\n"
  "\t\t\t\t\t\t__stp_relay_wakeup_readers(buf);\n"
  "\t\t\t\t\t}\n"
  "\t\t\t\t}\n"
  "\t\t\t\tif (empty)\n"
  "\t\t\t\t\tbreak;\n"
  "\t\t\t\tmsleep(10);\n"
  "\t\t\t}\n"
  "\t\t}\n";

/* The same function before 4.5 (bullseye's 4.4): a record that does not
   fit goes whole into the next sub-buffer, the rest to padding; nothing
   to fix.  */
static const char whole[] =
  "\tif (unlikely(buf->offset + size_request > buf->chan->subbuf_size)) {\n"
  "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);\n";

static const char relay[] = "transport/relay_v2.c";

/* The directory stap looks for its runtime in (malloc'd), or NULL.  */
static char *
runtime_dir (void)
{
  const char *env = getenv ("SYSTEMTAP_RUNTIME");
  if (env != NULL && env[0] != '\0')
    return strdup (env);
  /* "   -R DIR     look in DIR for runtime, instead of\n" then the
     directory alone on the next line (stap 4.0 to 5.x).  */
  const char *out = run_stap_says ("--help");
  const char *at = out != NULL ? strstr (out, "look in DIR for runtime") : NULL;
  if (at == NULL || (at = strchr (at, '\n')) == NULL)
    return NULL;
  at += strspn (at, " \t\n");
  size_t len = strcspn (at, " \t\n");
  return at[0] == '/' && len > 1 ? strndup (at, len) : NULL;
}

/* FILE's bytes (malloc'd, NUL-terminated, length into *LEN), or NULL
   (errno set).  */
static char *
slurp (const char *file, size_t *len)
{
  FILE *f = fopen (file, "rb");
  if (f == NULL)
    return NULL;
  char *buf = NULL;
  size_t size = 0, n = 0;
  for (;;)
    {
      if (n + 4096 + 1 > size)
        {
          char *nb = realloc (buf, size = 2 * size + 8192);
          if (nb == NULL)
            {
              free (buf);
              fclose (f);
              return NULL;
            }
          buf = nb;
        }
      size_t got = fread (buf + n, 1, 4096, f);
      n += got;
      if (got < 4096)
        break;
    }
  int err = ferror (f) ? errno : 0;
  fclose (f);
  if (err != 0)
    {
      free (buf);
      errno = err;
      return NULL;
    }
  buf[n] = '\0';
  *len = n;
  return buf;
}

enum run_runtime_need
run_runtime_need (int *major, int *minor, char **dir)
{
  int dM, dm;
  if (dir != NULL)
    *dir = NULL;
  if (run_stap_versions (major, minor, &dM, &dm) != 0 || *major < 0
      || *major > 5 || (*major == 5 && *minor >= 1))
    return RUN_RUNTIME_FINE;
  char *rt = runtime_dir (), *file = NULL, *text = NULL;
  size_t len;
  enum run_runtime_need need = RUN_RUNTIME_UNKNOWN;
  if (rt != NULL && asprintf (&file, "%s/%s", rt, relay) >= 0
      && (text = slurp (file, &len)) != NULL)
    {
      const char *at = strstr (text, buggy);
      if (at != NULL && strstr (at + 1, buggy) == NULL)
        need = RUN_RUNTIME_FIX;
      else if (at == NULL && strstr (text, whole) != NULL)
        need = RUN_RUNTIME_FINE;
    }
  free (text);
  free (file);
  if (dir != NULL)
    *dir = rt;
  else
    free (rt);
  return need;
}

/* Copy regular file FROM (mode MODE) to TO.  0, or -1 after one line.  */
static int
copy_file (const char *from, const char *to, mode_t mode)
{
  int in = open (from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
  if (in < 0)
    {
      error (0, errno, "%s: open", from);
      goto out;
    }
  out = open (to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
  if (out < 0)
    {
      error (0, errno, "%s: open", to);
      goto out;
    }
  if (copy_fd (in, from, out, to) != 0)
    goto out;
  ret = 0;
out:
  if (out >= 0 && close (out) != 0 && ret == 0)
    {
      error (0, errno, "%s: close", to);
      ret = -1;
    }
  if (in >= 0)
    close (in);
  return ret;
}

/* Walk the runtime tree under ROOT, at REL ("" for ROOT itself): add to
   *SUM a hash of each entry's path, type, size and mtime (a sum: the
   order readdir gives does not matter); when TO is not NULL, copy each
   directory, regular file and symbolic link to TO/REL.  0, or -1 after
   one line.  */
static int
walk (const char *root, const char *rel, const char *to, uint64_t *sum)
{
  char *dir = NULL;
  if (asprintf (&dir, "%s%s", root, rel) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  DIR *d = opendir (dir);
  if (d == NULL)
    {
      error (0, errno, "%s: opendir", dir);
      free (dir);
      return -1;
    }
  int ret = 0;
  for (struct dirent *e; ret == 0 && (errno = 0, e = readdir (d)) != NULL;)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      char *sub = NULL, *from = NULL, *dst = NULL;
      struct stat st;
      if (asprintf (&sub, "%s/%s", rel, e->d_name) < 0)
        sub = NULL;
      else if (asprintf (&from, "%s%s", root, sub) < 0)
        from = NULL;
      else if (to != NULL && asprintf (&dst, "%s%s", to, sub) < 0)
        dst = NULL;
      if (sub == NULL || from == NULL || (to != NULL && dst == NULL))
        {
          error (0, errno, "asprintf");
          ret = -1;
        }
      else if (lstat (from, &st) != 0)
        {
          error (0, errno, "%s: lstat", from);
          ret = -1;
        }
      else
        {
          uint64_t h = fnv1a (FNV1A_BASIS, sub, strlen (sub) + 1);
          unsigned type = (unsigned) (st.st_mode & S_IFMT);
          h = fnv1a (h, &type, sizeof type);
          h = fnv1a (h, &st.st_size, sizeof st.st_size);
          h = fnv1a (h, &st.st_mtim, sizeof st.st_mtim);
          *sum += h;
          if (S_ISDIR (st.st_mode))
            {
              if (dst != NULL && mkdir (dst, 0755) != 0)
                {
                  error (0, errno, "%s: mkdir", dst);
                  ret = -1;
                }
              else
                ret = walk (root, sub, to, sum);
            }
          else if (dst != NULL && S_ISREG (st.st_mode))
            ret = copy_file (from, dst, st.st_mode);
          else if (dst != NULL && S_ISLNK (st.st_mode))
            {
              char target[4096];
              ssize_t n = readlink (from, target, sizeof target - 1);
              if (n < 0)
                {
                  error (0, errno, "%s: readlink", from);
                  ret = -1;
                }
              else
                {
                  target[n] = '\0';
                  if (symlink (target, dst) != 0)
                    {
                      error (0, errno, "%s: symlink", dst);
                      ret = -1;
                    }
                }
            }
        }
      free (sub);
      free (from);
      free (dst);
    }
  if (ret == 0 && errno != 0)
    {
      error (0, errno, "%s: readdir", dir);
      ret = -1;
    }
  closedir (d);
  free (dir);
  return ret;
}

/* Write the fixes into the copy's relay_v2.c, in TMP.  0, or -1 after
   one line.  */
static int
patch (const char *tmp)
{
  char *file = NULL, *text = NULL, *at;
  size_t len;
  int ret = -1;
  FILE *f = NULL;
  if (asprintf (&file, "%s/%s", tmp, relay) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  if ((text = slurp (file, &len)) == NULL)
    {
      error (0, errno, "%s: read", file);
      goto out;
    }
  if ((at = strstr (text, buggy)) == NULL)
    {
      error (0, 0, "%s: _stp_data_write_reserve's lines changed while "
             "copied", file);
      goto out;
    }
  /* The two hunks in the order they stand (the second only where its
     lines stand once).  */
  struct hunk
  {
    const char *at, *with;
    size_t skip;
  } h[2] = { { at, fixed, sizeof buggy - 1 }, { NULL, NULL, 0 } };
  const char *stop = strstr (text, undrained);
  size_t n = 1;
  if (stop != NULL && strstr (stop + 1, undrained) == NULL)
    h[n++] = (struct hunk) { stop, drained, sizeof undrained - 1 };
  if (n == 2 && h[1].at < h[0].at)
    {
      struct hunk t = h[0];
      h[0] = h[1];
      h[1] = t;
    }
  /* A new file: the copy's is this user's, but never write through a
     link.  */
  if (unlink (file) != 0)
    {
      error (0, errno, "%s: unlink", file);
      goto out;
    }
  if ((f = fopen (file, "wx")) == NULL)
    {
      error (0, errno, "%s: fopen", file);
      goto out;
    }
  const char *from = text;
  for (size_t i = 0; i < n; i++)
    {
      size_t before = (size_t) (h[i].at - from);
      if (fwrite (from, 1, before, f) != before || fputs (h[i].with, f) == EOF)
        {
          error (0, errno, "%s: fwrite", file);
          goto out;
        }
      from = h[i].at + h[i].skip;
    }
  size_t rest = len - (size_t) (from - text);
  if (fwrite (from, 1, rest, f) != rest)
    {
      error (0, errno, "%s: fwrite", file);
      goto out;
    }
  ret = 0;
out:
  if (f != NULL && fclose (f) != 0 && ret == 0)
    {
      error (0, errno, "%s: fclose", file);
      ret = -1;
    }
  free (text);
  free (file);
  return ret;
}

/* The fixed copy of runtime RT of stap MAJOR.MINOR (malloc'd), made if
   not there, or NULL after one line.  */
static char *
make_copy (const char *rt, int major, int minor)
{
  char *cache = NULL, *dir = NULL, *tmp = NULL, *file = NULL, *text = NULL;
  char *ret = NULL;
  size_t len;
  uint64_t sum = 0;
  if (asprintf (&file, "%s/%s", rt, relay) < 0)
    {
      error (0, errno, "asprintf");
      file = NULL;
      goto out;
    }
  if ((text = slurp (file, &len)) == NULL)
    {
      error (0, errno, "%s: read", file);
      goto out;
    }
  uint64_t key = fnv1a (FNV1A_BASIS, text, len);
  int v[2] = { major, minor };
  key = fnv1a (key, v, sizeof v);
  key = fnv1a (key, rt, strlen (rt) + 1);
  key = fnv1a (key, fixed, sizeof fixed);
  key = fnv1a (key, drained, sizeof drained);
  if (walk (rt, "", NULL, &sum) != 0)
    goto out;
  key = fnv1a (key, &sum, sizeof sum);
  if ((cache = run_cache_root ()) == NULL)
    goto out;
  if (asprintf (&dir, "%s/runtime/%d.%d-%016" PRIx64, cache, major, minor,
                key) < 0)
    {
      error (0, errno, "asprintf");
      dir = NULL;
      goto out;
    }
  struct stat st;
  if (stat (dir, &st) == 0 && S_ISDIR (st.st_mode))
    {
      ret = dir;                /* complete: renamed into place */
      dir = NULL;
      goto out;
    }
  /* A temporary directory beside DIR, renamed to it once complete.  */
  if (asprintf (&tmp, "%s/runtime/.tmp.XXXXXX", cache) < 0)
    {
      error (0, errno, "asprintf");
      tmp = NULL;
      goto out;
    }
  *strrchr (tmp, '/') = '\0';
  bool made = make_dirs (tmp) == 0;
  if (!made)
    error (0, errno, "%s: mkdir", tmp);
  tmp[strlen (tmp)] = '/';
  if (made && mkdtemp (tmp) == NULL)
    {
      error (0, errno, "%s: mkdtemp", tmp);
      made = false;
    }
  if (!made)
    {
      /* Nothing of ours to remove.  */
      free (tmp);
      tmp = NULL;
      goto out;
    }
  sum = 0;
  if (walk (rt, "", tmp, &sum) != 0 || patch (tmp) != 0)
    goto out;
  /* mkdtemp made it 0700: readable as the runtime is, by stap's build
     (a chroot's root, too).  */
  if (chmod (tmp, 0755) != 0)
    {
      error (0, errno, "%s: chmod", tmp);
      goto out;
    }
  if (run_cache_publish (tmp, dir, false) != 0)
    goto out;
  ret = dir;
  dir = NULL;
out:
  run_cache_discard (tmp);
  free (cache);
  free (dir);
  free (file);
  free (text);
  return ret;
}

char *
run_runtime_fixed (bool warn)
{
  int major, minor;
  char *rt = NULL, *copy = NULL;
  switch (run_runtime_need (&major, &minor, &rt))
    {
    case RUN_RUNTIME_FINE:
      break;
    case RUN_RUNTIME_UNKNOWN:
      if (warn)
        error (0, 0, "warning: stap %d.%d's relay transport drops records "
               "under load (fixed in 5.1), and its runtime's relay code "
               "(%s/%s) is not the one gostap knows: stap runs with it "
               "as it is", major, minor, rt != NULL ? rt : "not found",
               relay);
      break;
    case RUN_RUNTIME_FIX:
      copy = make_copy (rt, major, minor);
      if (copy == NULL)
        error (0, 0, "warning: no copy of stap %d.%d's runtime with the "
               "relay transport's fix: stap runs with its own, which drops "
               "records under load", major, minor);
      break;
    }
  free (rt);
  return copy;
}

int
run_runtime_hint (bool write)
{
  int major, minor;
  char *rt = NULL, *copy = NULL;
  enum run_runtime_need need = run_runtime_need (&major, &minor, &rt);
  if (need == RUN_RUNTIME_FIX && !write)
    error (0, 0, "warning: stap %d.%d's relay transport drops records "
           "under load (fixed in 5.1): gostap run gives stap a copy of its "
           "runtime with the fix; for stap by hand, gostap gen "
           "--fixed-runtime makes that copy and names it", major, minor);
  else if (need == RUN_RUNTIME_FIX && (copy = make_copy (rt, major, minor)))
    error (0, 0, "warning: stap %d.%d's relay transport drops records "
           "under load (fixed in 5.1): run stap with -R %s (a copy of its "
           "runtime with the fix)", major, minor, copy);
  int ret = need == RUN_RUNTIME_FIX && write && copy == NULL
    ? EXIT_ERROR : EXIT_OK;
  free (copy);
  free (rt);
  return ret;
}
