/* run-runtime.c: gostap run where stap is older than 5.1 (RHEL 8's 4.9,
   Debian 12's 4.8, RHEL 9.0-9.4's 5.0).

   Such a runtime loses output under load: _stp_data_write_reserve()
   (transport/relay_v2.c) returns whatever is left of the current relay
   sub-buffer, even 1..8 bytes; __stp_print_flush() (print_flush.c) needs
   more than a record's header (sizeof (struct _stp_trace)), else it drops
   the record, but the bytes reserved stay in the stream unwritten, and
   staprun before 5.0 (no magic number to resynchronize on) reads them as
   a header: records lost, headers printed as data, output stopping.
   Upstream fixed it in 5.1 (PR31117).

   And it loses the end of a run: staprun before 5.1 stops its readers as
   soon as it reads the module's STP_EXIT (upstream PR31597, 5.1: staprun
   waits), and the module sends STP_EXIT at once when staprun writes its
   own.  Staprun's SIGCHLD handler (the -c program ended) writes that,
   and runs on whichever thread the signal found, often a reader: that
   reader sits in the write while the module runs its end probes, and
   the other reader waits for it (staprun orders records by sequence
   number), so records still in the buffers are lost.  Measured in the
   bookworm guest: the reader thread in write(2) to the control file,
   in _stp_cleanup_and_exit() (testsuite/README.md).

   gostap gives such a stap a copy of its runtime (stap -R) in which
   (relay_v2.c) such a rest goes to the sub-buffer's padding, which the
   kernel's relay read skips: the old staprun reads the same framing as
   ever; and in which (transport.c) the module's STP_EXIT goes back from
   a work item once staprun's readers have read every buffer (or read
   nothing for 3 s), so the write that asked returns at once and its
   thread reads on.  The copy is CACHE/gostap/runtime/KEY, KEY a hash of
   stap's version, the runtime's path, the changed files' bytes, the
   changes, and every file's name, size and mtime (a package update gets
   another); written under a temporary name and renamed only complete,
   then reused.  The runtime is the one stap uses: $SYSTEMTAP_RUNTIME,
   else the directory `stap --help` names after -R.  Only a runtime
   holding each changed line exactly once is changed (4.5 to 5.0); one
   with relay code before 4.5, which moves a record that does not fit
   whole to the next sub-buffer, is left as it is.  */

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
#include "util.h"

static const char relay[] = "transport/relay_v2.c";
static const char transport[] = "transport/transport.c";

/* A change: the lines OLD, which FILE holds once, become NEW.  */
struct hunk
{
  const char *file, *old, *new;
};

static const struct hunk hunks[] = {
  /* _stp_data_write_reserve() of stap 4.5 (or so) to 5.0.  struct
     _stp_trace (transport_msgs.h) is there: transport.c includes
     transport.h before relay_v2.c.  */
  { relay,
    "\t} else if (buf->offset + size_request > buf->chan->subbuf_size) {\n"
    "\t\tsize_request = buf->chan->subbuf_size - buf->offset;\n"
    "\t}\n"
    "\t*entry = (char*)buf->data + buf->offset;\n",
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
    "\t*entry = (char*)buf->data + buf->offset;\n" },
  /* Before _stp_cleanup_and_exit(): the work item that sends STP_EXIT.
     transport.c includes relay_v2.c and control.c above it.  */
  { transport,
    "static void _stp_cleanup_and_exit(int send_exit)\n{\n",
    "/* gostap: staprun before 5.1 stops its readers as soon as it reads\n"
    "   STP_EXIT, and may write its own STP_EXIT from a reader thread (its\n"
    "   SIGCHLD handler runs on any thread): so STP_EXIT goes back from\n"
    "   this work item once every buffer has been read, or nothing has\n"
    "   been read for 3 s, never blocking the thread that asked (upstream\n"
    "   5.1's staprun waits for its readers instead: PR31597).  */\n"
    "static void _gostap_exit_work_fn(struct work_struct *work);\n"
    "static DECLARE_DELAYED_WORK(_gostap_exit_work, _gostap_exit_work_fn);\n"
    "static unsigned long _gostap_exit_read, _gostap_exit_idle;\n"
    "\n"
    "static void _gostap_exit_work_fn(struct work_struct *work)\n"
    "{\n"
    "\tunsigned long nread = 0;\n"
    "\tint i, unread = 0;\n"
    "\n"
    "\tif (_stp_relay_data.rchan) {\n"
    "\t\tfor_each_online_cpu(i) {\n"
    "\t\t\tstruct rchan_buf *buf = _stp_get_rchan_subbuf(\n"
    "\t\t\t\t_stp_relay_data.rchan->buf, i);\n"
    "\t\t\tif (!buf)\n"
    "\t\t\t\tcontinue;\n"
    "\t\t\tnread += buf->subbufs_consumed + buf->bytes_consumed;\n"
    "\t\t\tif (!__stp_relay_buf_empty(buf)) {\n"
    "\t\t\t\tunread = 1;\n"
    "\t\t\t\t__stp_relay_wakeup_readers(buf);\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t}\n"
    "\tif (nread != _gostap_exit_read)\n"
    "\t\t_gostap_exit_idle = 0;\n"
    "\t_gostap_exit_read = nread;\n"
    "\tif (unread && ++_gostap_exit_idle < 300) {\n"
    "\t\tschedule_delayed_work(&_gostap_exit_work,\n"
    "\t\t\t\t      msecs_to_jiffies(10));\n"
    "\t\treturn;\n"
    "\t}\n"
    "\t_stp_ctl_send_notify(STP_EXIT, NULL, 0);\n"
    "}\n"
    "\n"
    "static void _stp_cleanup_and_exit(int send_exit)\n{\n" },
  /* In _stp_cleanup_and_exit(), after the transport stopped (its buffers
     flushed): STP_EXIT from the work item.  */
  { transport,
    "\t\t\t_stp_ctl_send_notify(STP_EXIT, NULL, 0);\n",
    "\t\t\t_gostap_exit_idle = 0;\n"
    "\t\t\tschedule_delayed_work(&_gostap_exit_work, 0);\n" },
  /* In _stp_transport_close() (the module unloads): no work item left
     before the control channel and the buffers go.  */
  { transport,
    "\t_stp_cleanup_and_exit(0);\n\t_stp_unregister_ctl_channel();\n",
    "\t_stp_cleanup_and_exit(0);\n"
    "\tcancel_delayed_work_sync(&_gostap_exit_work); /* gostap */\n"
    "\t_stp_unregister_ctl_channel();\n" },
};
enum { NHUNKS = sizeof hunks / sizeof hunks[0] };

/* The same function before 4.5 (bullseye's 4.4): a record that does not
   fit goes whole into the next sub-buffer, the rest to padding; nothing
   to fix.  */
static const char whole[] =
  "\tif (unlikely(buf->offset + size_request > buf->chan->subbuf_size)) {\n"
  "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);\n";

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

/* Where OLD stands in TEXT, when it stands there exactly once; else
   NULL.  */
static const char *
once (const char *text, const char *old)
{
  const char *at = strstr (text, old);
  return at != NULL && strstr (at + 1, old) == NULL ? at : NULL;
}

/* The files the hunks change, each named once.  */
static const char *const files[] = { relay, transport };
enum { NFILES = sizeof files / sizeof files[0] };

/* How many of the hunks' old lines stand once in runtime RT's files (-1:
   a file could not be read), each file read once; when KEY is not NULL,
   each file's bytes and each change hashed into it.  */
static int
hunks_in (const char *rt, uint64_t *key)
{
  int found = 0;
  for (size_t f = 0; f < NFILES; f++)
    {
      char *file = NULL, *text = NULL;
      size_t len = 0;
      if (asprintf (&file, "%s/%s", rt, files[f]) < 0)
        file = NULL;
      if (file == NULL || (text = slurp (file, &len)) == NULL)
        found = -1;
      else if (key != NULL)
        *key = fnv1a (*key, text, len);
      for (size_t i = 0; text != NULL && i < NHUNKS; i++)
        if (hunks[i].file == files[f])
          {
            if (found >= 0 && once (text, hunks[i].old) != NULL)
              found++;
            if (key != NULL)
              *key = fnv1a (*key, hunks[i].new, strlen (hunks[i].new) + 1);
          }
      free (text);
      free (file);
    }
  return found;
}

/* Whether runtime RT's relay code is the one before 4.5, which needs no
   change.  */
static bool
relay_whole (const char *rt)
{
  char *file = NULL, *text = NULL;
  size_t len;
  bool ret = asprintf (&file, "%s/%s", rt, relay) >= 0
    && (text = slurp (file, &len)) != NULL
    && strstr (text, whole) != NULL && strstr (text, hunks[0].old) == NULL;
  free (text);
  free (file);
  return ret;
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
  char *rt = runtime_dir ();
  enum run_runtime_need need = RUN_RUNTIME_UNKNOWN;
  if (rt != NULL && hunks_in (rt, NULL) == NHUNKS)
    need = RUN_RUNTIME_FIX;
  else if (rt != NULL && relay_whole (rt))
    need = RUN_RUNTIME_FINE;
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

static int walk (const char *root, const char *rel, const char *to,
                 uint64_t *sum);

/* The hash of the entry SUB (its path in the runtime) of status ST: its
   path, type, size and mtime.  */
static uint64_t
entry_hash (const char *sub, const struct stat *st)
{
  uint64_t h = fnv1a (FNV1A_BASIS, sub, strlen (sub) + 1);
  unsigned type = (unsigned) (st->st_mode & S_IFMT);
  h = fnv1a (h, &type, sizeof type);
  h = fnv1a (h, &st->st_size, sizeof st->st_size);
  h = fnv1a (h, &st->st_mtim, sizeof st->st_mtim);
  return h;
}

/* The symbolic link FROM again at DST.  0, or -1 after one line.  */
static int
copy_link (const char *from, const char *dst)
{
  char target[4096];
  ssize_t n = readlink (from, target, sizeof target - 1);
  if (n < 0)
    {
      error (0, errno, "%s: readlink", from);
      return -1;
    }
  target[n] = '\0';
  if (symlink (target, dst) != 0)
    {
      error (0, errno, "%s: symlink", dst);
      return -1;
    }
  return 0;
}

/* The entry NAME of the directory REL under ROOT, for walk: its hash
   added to *SUM; a directory walked; when TO is not NULL, copied to
   TO/REL/NAME.  0, or -1 after one line.  */
static int
walk_entry (const char *root, const char *rel, const char *name,
            const char *to, uint64_t *sum)
{
  char *sub = NULL, *from = NULL, *dst = NULL;
  struct stat st;
  int ret = 0;
  if (asprintf (&sub, "%s/%s", rel, name) < 0)
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
      *sum += entry_hash (sub, &st);
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
        ret = copy_link (from, dst);
    }
  free (sub);
  free (from);
  free (dst);
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
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
      ret = walk_entry (root, rel, e->d_name, to, sum);
  if (ret == 0 && errno != 0)
    {
      error (0, errno, "%s: readdir", dir);
      ret = -1;
    }
  closedir (d);
  free (dir);
  return ret;
}

/* A hunk of FILE's text, where it stands.  */
struct place
{
  const char *at;
  const struct hunk *h;
};

static int
by_place (const void *a, const void *b)
{
  const struct place *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* Write the hunks of FILE (a path inside the runtime) into the copy TMP.
   0, or -1 after one line.  */
static int
patch_file (const char *tmp, const char *name)
{
  char *file = NULL, *text = NULL;
  size_t len, n = 0;
  int ret = -1;
  FILE *f = NULL;
  struct place p[NHUNKS];
  if (asprintf (&file, "%s/%s", tmp, name) < 0)
    {
      error (0, errno, "asprintf");
      return -1;
    }
  if ((text = slurp (file, &len)) == NULL)
    {
      error (0, errno, "%s: read", file);
      goto out;
    }
  for (size_t i = 0; i < NHUNKS; i++)
    if (hunks[i].file == name)
      {
        p[n] = (struct place) { once (text, hunks[i].old), &hunks[i] };
        if (p[n++].at == NULL)
          {
            error (0, 0, "%s: the lines gostap changes changed while "
                   "copied", file);
            goto out;
          }
      }
  qsort (p, n, sizeof p[0], by_place);
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
      size_t before = (size_t) (p[i].at - from);
      if (fwrite (from, 1, before, f) != before
          || fputs (p[i].h->new, f) == EOF)
        {
          error (0, errno, "%s: fwrite", file);
          goto out;
        }
      from = p[i].at + strlen (p[i].h->old);
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

/* Write the fixes into the copy TMP, file by file.  0, or -1 after one
   line.  */
static int
patch (const char *tmp)
{
  for (size_t f = 0; f < NFILES; f++)
    if (patch_file (tmp, files[f]) != 0)
      return -1;
  return 0;
}

/* The cache key of the copy of runtime RT of stap MAJOR.MINOR into *KEYP:
   a hash of the changed files' bytes and the changes (hunks_in), the
   version, RT's path, and every file's name, size and mtime (walk).  0,
   or -1 after one line.  */
static int
runtime_key (const char *rt, int major, int minor, uint64_t *keyp)
{
  uint64_t sum = 0, key = FNV1A_BASIS;
  if (hunks_in (rt, &key) != NHUNKS)
    {
      error (0, 0, "%s: the lines gostap changes in %s and %s are not "
             "there once each", rt, relay, transport);
      return -1;
    }
  int v[2] = { major, minor };
  key = fnv1a (key, v, sizeof v);
  key = fnv1a (key, rt, strlen (rt) + 1);
  if (walk (rt, "", NULL, &sum) != 0)
    return -1;
  *keyp = fnv1a (key, &sum, sizeof sum);
  return 0;
}

/* A temporary directory in CACHE/runtime (malloc'd), beside the copy
   and renamed to it once complete; NULL after one line.  */
static char *
make_tmp (const char *cache)
{
  char *tmp;
  if (asprintf (&tmp, "%s/runtime/.tmp.XXXXXX", cache) < 0)
    {
      error (0, errno, "asprintf");
      return NULL;
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
      return NULL;
    }
  return tmp;
}

/* Copy runtime RT into TMP (make_tmp) with the fixes.  0, or -1 after
   one line.  */
static int
fill_copy (const char *rt, const char *tmp)
{
  uint64_t sum = 0;
  if (walk (rt, "", tmp, &sum) != 0 || patch (tmp) != 0)
    return -1;
  /* mkdtemp made it 0700: readable as the runtime is, by stap's build
     (a chroot's root, too).  */
  if (chmod (tmp, 0755) != 0)
    {
      error (0, errno, "%s: chmod", tmp);
      return -1;
    }
  return 0;
}

/* The fixed copy of runtime RT of stap MAJOR.MINOR (malloc'd), made if
   not there, or NULL after one line; *REFUSED then when the cache may not
   be trusted (run_cache_trust): no copy is better than that one.  */
static char *
make_copy (const char *rt, int major, int minor, bool *refused)
{
  char *cache = NULL, *dir = NULL, *tmp = NULL, *ret = NULL;
  uint64_t key;
  if (runtime_key (rt, major, minor, &key) != 0)
    goto out;
  *refused = true;
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
  if (run_cache_trust (dir, RUN_TRUST_TREE | RUN_TRUST_LINKS) != 0)
    goto out;
  *refused = false;
  if (stat (dir, &st) == 0 && S_ISDIR (st.st_mode))
    {
      ret = dir;                /* complete: renamed into place */
      dir = NULL;
      goto out;
    }
  if ((tmp = make_tmp (cache)) == NULL
      || fill_copy (rt, tmp) != 0
      || run_cache_publish (tmp, dir, false) != 0)
    goto out;
  ret = dir;
  dir = NULL;
out:
  run_cache_discard (tmp);
  free (cache);
  free (dir);
  return ret;
}

char *
run_runtime_fixed (bool warn, bool *refused)
{
  int major, minor;
  char *rt = NULL, *copy = NULL;
  *refused = false;
  switch (run_runtime_need (&major, &minor, &rt))
    {
    case RUN_RUNTIME_FINE:
      break;
    case RUN_RUNTIME_UNKNOWN:
      if (warn)
        error (0, 0, "warning: stap %d.%d's relay transport drops records "
               "under load (fixed in 5.1), and its runtime's transport "
               "code (%s/%s, transport.c) is not the one gostap knows: stap "
               "runs with it as it is", major, minor,
               rt != NULL ? rt : "not found", relay);
      break;
    case RUN_RUNTIME_FIX:
      copy = make_copy (rt, major, minor, refused);
      if (copy == NULL && !*refused)
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
  bool refused = false;
  enum run_runtime_need need = run_runtime_need (&major, &minor, &rt);
  if (need == RUN_RUNTIME_FIX && !write)
    error (0, 0, "warning: stap %d.%d's relay transport drops records "
           "under load, and its staprun the end of a run's output (fixed "
           "in 5.1): gostap run gives stap a copy of its runtime with the "
           "fix; for stap by hand, gostap gen "
           "--fixed-runtime makes that copy and names it", major, minor);
  else if (need == RUN_RUNTIME_FIX && (copy = make_copy (rt, major, minor,
                                                          &refused)))
    error (0, 0, "warning: stap %d.%d's relay transport drops records "
           "under load, and its staprun the end of a run's output (fixed "
           "in 5.1): run stap with -R %s (a copy of its runtime with the "
           "fix)", major, minor, copy);
  int ret = need == RUN_RUNTIME_FIX && write && copy == NULL
    ? EXIT_ERROR : EXIT_OK;
  free (copy);
  free (rt);
  return ret;
}
