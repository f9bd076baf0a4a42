/* run-stap.c: stap run as gostap's child, its standard error through
   gostap (run-stderr.c folds the warnings of the probes gostap placed
   between line-table rows), and, when the script records stacks or a
   profile was asked for, its standard output too: the stack records of
   tapsets/go_stack.stp expanded into Go tracebacks as they come
   (write-traceback.c), and the file of stap -o expanded in place when
   stap is done; the profile lines of tapsets/go_profile.stp collected
   (profile.c) and written when stap is done (write-pprof.c,
   write-folded.c).  */

#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "run.h"
#include "stack.h"
#include "stp-write.h"

/* The stap child, for the signal handler (set once by run_stap before
   the handler is installed).  */
static volatile sig_atomic_t stap_pid;

/* SIGINT, SIGTERM, SIGHUP: for stap to handle (it runs its end probes and
   exits; its output still comes through the pipe).  A terminal's ^C
   reaches both processes; a signal sent to gostap alone is passed on.  */
static void
pass_on (int sig)
{
  if (stap_pid > 0 && sig != SIGINT)
    kill ((pid_t) stap_pid, sig);
}

bool
run_script_records_stacks (const struct run_script *s)
{
  return strstr (s->text, "go_stack") != NULL
    || strstr (s->text, "go_profile") != NULL
    || strstr (s->text, "go_sched_stack") != NULL
    || strstr (s->text, "go_g_stack") != NULL;
}

/* Expand the records of OUTFILE in place: into a temporary file beside
   it, renamed over it when complete (stp-write.c's stp_file, as every
   file gostap writes).  */
static int
expand_file (const char *outfile, const struct go_bin *b,
             struct profile *prof)
{
  struct stp_file sf;
  FILE *in = fopen (outfile, "r");
  int ret = -1;
  if (in == NULL)
    error (0, errno, "%s", outfile);
  else if (stp_file_open_path (&sf, outfile) == 0)
    ret = stp_file_close (&sf, write_traceback_filter (in, sf.f, b, prof,
                                                       outfile) == 0);
  else
    stp_file_close (&sf, 0);    /* frees what the open left */
  if (in != NULL)
    fclose (in);
  return ret;
}

/* One of stap's output streams as gostap reads it: the bytes of an
   unfinished line are kept.  */
struct stream
{
  int fd;                       /* -1: not relayed, or at its end */
  char *buf;
  size_t len, cap;
};

/* Read what FD has into S; at its end (or, once stap has EXITED, when
   nothing is left: a program stap started with -c may keep the pipe open
   after it, and gostap does not wait for that) close it.  */
static int
stream_read (struct stream *s, bool exited)
{
  if (s->cap - s->len < 65536)
    {
      size_t ncap = s->cap ? 2 * s->cap : 131072;
      char *nbuf = realloc (s->buf, ncap);
      if (nbuf == NULL)
        {
          error (0, errno, "realloc");
          return -1;
        }
      s->buf = nbuf;
      s->cap = ncap;
    }
  ssize_t n = read (s->fd, s->buf + s->len, s->cap - s->len - 1);
  if (n < 0 && errno == EINTR)
    return 0;
  if (n == 0 || (n < 0 && exited && (errno == EAGAIN || errno == EWOULDBLOCK)))
    {
      close (s->fd);
      s->fd = -1;
      return 0;
    }
  if (n < 0)
    {
      error (0, errno, "reading stap's output");
      return -1;
    }
  s->len += (size_t) n;
  return 0;
}

/* The whole lines of S to T's expansion (standard output) or to E
   (standard error); at its end, the rest too.  Of standard error, a
   partial line goes at once unless E may fold it.  */
static void
stream_lines (struct stream *s, struct traceback_filter *t,
              struct run_stderr *e)
{
  size_t from = 0;
  const char *nl;
  while (from < s->len)
    {
      nl = memchr (s->buf + from, '\n', s->len - from);
      size_t l = nl != NULL ? (size_t) (nl + 1 - (s->buf + from)) : s->len - from;
      if (nl == NULL && s->fd >= 0
          && (t != NULL || run_stderr_may_fold (e, s->buf + from, l)))
        break;
      char keep = s->buf[from + l];
      s->buf[from + l] = '\0';
      if (t != NULL)
        write_traceback_line (t, stdout, s->buf + from, l);
      else
        run_stderr_line (e, s->buf + from, l);
      s->buf[from + l] = keep;
      from += l;
    }
  memmove (s->buf, s->buf + from, s->len - from);
  s->len -= from;
}

/* How long gostap relays what stap's orphaned stapio prints after it was
   asked to stop (its end probes, the module's unloading).  */
#define ORPHAN_WAIT_S 30

/* When stap dies by a signal (SIGKILL, the OOM killer), the staprun or
   stapio it started runs on, with the module loaded and its probes live
   (measured in the faults job: stapio reparented to init, the module
   still there).  gostap is their subreaper (run_stap), so they become its
   children: each is sent SIGTERM, which stapio handles as at the end of a
   run (end probes, the module unloaded).  Returns how many were sent it
   (their pids in the line printed, the first MAX of them in PIDV).  */
static int
stop_orphans (int sig, pid_t *pidv, int max)
{
  DIR *d = opendir ("/proc");
  if (d == NULL)
    return 0;
  pid_t self = getpid ();
  char pids[256] = "";
  int n = 0;
  struct dirent *de;
  while ((de = readdir (d)) != NULL)
    {
      if (!isdigit ((unsigned char) de->d_name[0]))
        continue;
      char path[300], buf[512];
      snprintf (path, sizeof path, "/proc/%.255s/stat", de->d_name);
      int fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      ssize_t len = read (fd, buf, sizeof buf - 1);
      close (fd);
      if (len <= 0)
        continue;
      buf[len] = '\0';
      /* PID (COMM) STATE PPID ...: COMM may hold anything, up to the
         last ')'.  */
      char *open_paren = strchr (buf, '('), *close_paren = strrchr (buf, ')');
      int ppid;
      if (open_paren == NULL || close_paren == NULL || close_paren < open_paren
          || sscanf (close_paren + 1, " %*c %d", &ppid) != 1 || ppid != self)
        continue;
      *close_paren = '\0';
      const char *comm = open_paren + 1;
      if (strcmp (comm, "stapio") != 0 && strcmp (comm, "staprun") != 0)
        continue;
      pid_t pid = (pid_t) atol (de->d_name);
      if (kill (pid, SIGTERM) == 0)
        {
          if (n < max)
            pidv[n] = pid;
          size_t used = strlen (pids);
          snprintf (pids + used, sizeof pids - used, "%s%.8s %d",
                    n ? ", " : "", comm, (int) pid);
          n++;
        }
    }
  closedir (d);
  if (n > 0)
    error (0, 0, "stap was killed by signal %d: stopping what it left "
           "running (%s), so that its probes go", sig, pids);
  return n;
}

/* The orphans stop_orphans stopped (their pids, 0 once reaped), relayed
   until they are gone or the time is up (UNTIL; 0: not waited for).  */
struct orphans
{
  pid_t v[8];
  int n;
  time_t until;
};

/* stap exited with STATUS: when it was killed by a signal, stop what it
   left running (into O), and relay what that prints for a while.  */
static void
orphans_stop (struct orphans *o, int status)
{
  int n = WIFSIGNALED (status)
    ? stop_orphans (WTERMSIG (status), o->v, 8) : 0;
  o->n = n < 8 ? n : 8;
  if (n > 0)
    o->until = time (NULL) + ORPHAN_WAIT_S;
}

/* Reap the orphans of O that have ended; stop waiting for them when
   none is left or the time is up.  */
static void
orphans_check (struct orphans *o)
{
  for (int i = 0; i < o->n && o->until != 0; i++)
    if (o->v[i] > 0 && waitpid (o->v[i], NULL, WNOHANG) == o->v[i])
      o->v[i] = 0;
  bool left = false;
  for (int i = 0; i < o->n; i++)
    left |= o->v[i] > 0;
  if (o->until != 0 && (!left || time (NULL) > o->until))
    o->until = 0;               /* then as after stap's exit */
}

/* The stopped orphans closed their pipes as they ended: reap them
   (a short wait for one that has not yet), not to leave zombies.  */
static void
orphans_reap (struct orphans *o)
{
  for (int i = 0; i < o->n; i++)
    for (int tries = 0; o->v[i] > 0 && tries < 20; tries++)
      if (waitpid (o->v[i], NULL, WNOHANG) != 0)
        o->v[i] = 0;
      else
        nanosleep (&(struct timespec) { .tv_nsec = 100000000 }, NULL);
}

/* Once stap and its orphans are gone: OUT and ERR read without waiting,
   to what is left in them.  */
static void
set_nonblocking (struct stream *out, struct stream *err)
{
  for (int i = 0; i < 2; i++)
    {
      int fd = (i == 0 ? out : err)->fd;
      if (fd >= 0)
        fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
    }
}

/* Read OUT and ERR (those poll found ready in PFD, or, when NONBLOCKING,
   both) and pass their whole lines on: OUT's expanded through T, ERR's
   through E.  An exit status.  */
static int
relay_ready (struct stream *out, struct stream *err,
             const struct pollfd *pfd, bool nonblocking,
             struct traceback_filter *t, struct run_stderr *e)
{
  int ret = EXIT_OK;
  for (int i = 0; i < 2 && ret == EXIT_OK; i++)
    {
      struct stream *s = i == 0 ? out : err;
      if (s->fd < 0 || (!nonblocking && !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))))
        continue;
      if (stream_read (s, nonblocking) != 0)
        ret = EXIT_ERROR;
      stream_lines (s, i == 0 ? t : NULL, e);
    }
  return ret;
}

/* What E holds once stap's standard error (ERR) has ended, and gostap's
   own output, written out.  -1 after one line when that fails.  */
static int
relay_flush (const struct stream *err, struct run_stderr *e)
{
  if (err->fd < 0)
    run_stderr_flush (e);
  if (fflush (stdout) != 0 || fflush (stderr) != 0)
    {
      /* A closed pipe after gostap: stap gets SIGPIPE as it would
         have without gostap.  */
      error (0, errno, "writing the output");
      return -1;
    }
  return 0;
}

/* Close what is left of OUT's and ERR's pipes, and free their buffers.  */
static void
streams_close (struct stream *out, struct stream *err)
{
  for (int i = 0; i < 2; i++)
    {
      struct stream *s = i == 0 ? out : err;
      if (s->fd >= 0)
        close (s->fd);
      free (s->buf);
    }
}

/* Relay stap's output (OUT, when its fd is not -1) with its records
   expanded, and its standard error (ERR) through E, until both end or
   stap (PID) has exited and what it wrote is read.  Reaps stap into
   *STATUS.  */
static int
relay (struct stream *out, struct stream *err, pid_t pid, int *status,
       const struct go_bin *b, struct profile *prof, struct run_stderr *e)
{
  struct traceback_filter *t = NULL;
  bool exited = false, nonblocking = false;
  int ret = EXIT_OK;
  if (out->fd >= 0 && (t = write_traceback_begin (b, prof)) == NULL)
    ret = EXIT_ERROR;
  struct orphans o = { .n = 0, .until = 0 };
  while (ret == EXIT_OK && (out->fd >= 0 || err->fd >= 0))
    {
      orphans_check (&o);
      if (!exited && waitpid (pid, status, WNOHANG) == pid)
        {
          exited = true;
          orphans_stop (&o, *status);
        }
      if (exited && o.until == 0 && !nonblocking)
        {
          nonblocking = true;
          set_nonblocking (out, err);
        }
      struct pollfd pfd[2] = { { .fd = out->fd, .events = POLLIN },
                               { .fd = err->fd, .events = POLLIN } };
      if (!nonblocking && poll (pfd, 2, 200) <= 0)
        continue;               /* nothing yet, or a signal */
      ret = relay_ready (out, err, pfd, nonblocking, t, e);
      if (relay_flush (err, e) != 0)
        ret = EXIT_ERROR;
    }
  orphans_reap (&o);
  run_stderr_flush (e);
  write_traceback_end (t);
  streams_close (out, err);
  if (!exited)
    while (waitpid (pid, status, 0) < 0)
      if (errno != EINTR)
        {
          error (0, errno, "waitpid");
          return EXIT_ERROR;
        }
  return ret;
}

/* The pipes of FDS for stap's output (fds[0], when STACKS) and its
   standard error (fds[1]).  0, or -1 after one line, none left open.  */
static int
open_pipes (int fds[2][2], bool stacks)
{
  for (int i = !stacks; i < 2; i++)
    if (pipe (fds[i]) != 0)
      {
        error (0, errno, "pipe");
        for (int j = !stacks; j < i; j++)
          close (fds[j][0]), close (fds[j][1]);
        return -1;
      }
  return 0;
}

/* Start stap (SARGV) into *PID with the write ends of FDS (open_pipes)
   as its standard output (when STACKS) and error.  0, or the error
   number posix_spawn gave.  */
static int
spawn_stap (char **sargv, int fds[2][2], bool stacks, pid_t *pid)
{
  /* posix_spawn, not fork: a fork copies the page tables of the binary
     gostap read (tens of MB) only for exec to drop them.  */
  posix_spawn_file_actions_t fa;
  int se = posix_spawn_file_actions_init (&fa);
  if (se == 0)
    {
      for (int i = !stacks; se == 0 && i < 2; i++)
        if ((se = posix_spawn_file_actions_addclose (&fa, fds[i][0])) == 0
            && (se = posix_spawn_file_actions_adddup2 (
                  &fa, fds[i][1], i == 0 ? STDOUT_FILENO : STDERR_FILENO)) == 0)
          se = posix_spawn_file_actions_addclose (&fa, fds[i][1]);
      if (se == 0)
        se = posix_spawnp (pid, sargv[0], &fa, NULL, sargv, environ);
      posix_spawn_file_actions_destroy (&fa);
    }
  return se;
}

/* SIGINT, SIGTERM and SIGHUP to pass_on.  SA_RESTART: the relay goes on
   after the signal (stap prints its end probes' output after ^C).  */
static void
catch_signals (void)
{
  struct sigaction sa = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

/* Write the profile PROF collected to PPROF and FOLDED (those not NULL)
   when stap ended well (STATUS); else say in one line each that it is not
   written.  0, or -1 when writing failed.  */
static int
finish_profile (struct profile *prof, int status, const char *pprof,
                const char *folded)
{
  bool stap_ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (!stap_ok)
    {
      /* What a failed run printed is not the whole profile.  */
      const char *outs[2] = { pprof, folded };
      for (int i = 0; i < 2; i++)
        if (outs[i] != NULL)
          error (0, 0, "%s not written: stap %s %d", outs[i],
                 WIFEXITED (status) ? "failed with exit status"
                 : "was killed by signal",
                 WIFEXITED (status) ? WEXITSTATUS (status)
                 : WTERMSIG (status));
      return 0;
    }
  return profile_write (prof, pprof, folded) != 0 ? -1 : 0;
}

int
run_stap (char **sargv, const struct go_bin *b, bool all_warnings,
          bool stacks, const char *outfile, const char *pprof,
          const char *folded, const char *sysroot)
{
  struct profile *prof = NULL;
  if ((pprof != NULL || folded != NULL) && (prof = profile_new (b)) == NULL)
    return EXIT_ERROR;
  /* fds[0]: stap's output (when STACKS), fds[1]: its standard error.  */
  int fds[2][2] = { { -1, -1 }, { -1, -1 } };
  if (open_pipes (fds, stacks) != 0)
    {
      profile_free (prof);
      return EXIT_ERROR;
    }
  /* stap's staprun and stapio, orphaned when stap is killed, become
     gostap's children rather than init's, for stop_orphans to find.  */
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  fflush (NULL);
  pid_t pid = -1;
  int se = spawn_stap (sargv, fds, stacks, &pid);
  if (se != 0)
    {
      error (0, se, "cannot run '%s'", sargv[0]);
      for (int i = !stacks; i < 2; i++)
        close (fds[i][0]), close (fds[i][1]);
      profile_free (prof);
      return EXIT_ERROR;
    }
  for (int i = !stacks; i < 2; i++)
    close (fds[i][1]);
  stap_pid = pid;
  catch_signals ();
  int status = 0;
  struct stream out = { .fd = fds[0][0] }, err = { .fd = fds[1][0] };
  struct run_stderr e = { .b = b, .all = all_warnings, .sysroot = sysroot };
  int ret = relay (&out, &err, pid, &status, b, prof, &e);
  run_stderr_losses (&e);
  if (stacks && outfile != NULL && access (outfile, F_OK) == 0
      && expand_file (outfile, b, prof) != 0 && ret == EXIT_OK)
    ret = EXIT_ERROR;
  if (prof != NULL && finish_profile (prof, status, pprof, folded) != 0
      && ret == EXIT_OK)
    ret = EXIT_ERROR;
  profile_free (prof);
  if (WIFEXITED (status))
    return ret != EXIT_OK ? ret : WEXITSTATUS (status);
  /* Killed: exit as a shell reports it.  */
  return 128 + WTERMSIG (status);
}
