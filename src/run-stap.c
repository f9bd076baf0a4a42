/* run-stap.c: stap run with its standard output through gostap, which
   expands the stack records of tapsets/go_stack.stp into Go tracebacks
   as they come (write-traceback.c), and the file of stap -o expanded in
   place when stap is done; the profile lines of tapsets/go_profile.stp
   collected (profile.c) and written when stap is done (write-pprof.c,
   write-folded.c).  gostap run execs stap directly when the script
   records no stack and no profile was asked for.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile.h"
#include "run.h"
#include "stack.h"
#include "stp-write.h"

/* The stap child, for the signal handler (set once by run_stap_filtered
   before the handler is installed).  */
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

/* Relay stap's output from FD to standard output, records expanded,
   until it ends, or until stap (PID) has exited and what it wrote is
   read: a program stap started (-c) may keep the pipe open after it,
   and gostap does not wait for that.  Reaps stap into *STATUS.  */
static int
relay (int fd, pid_t pid, int *status, const struct go_bin *b,
       struct profile *prof)
{
  struct traceback_filter *t = write_traceback_begin (b, prof);
  char *buf = NULL;
  size_t len = 0, cap = 0;
  bool exited = false, eof = false;
  int ret = EXIT_OK;
  if (t == NULL)
    ret = EXIT_ERROR;
  while (ret == EXIT_OK && !eof)
    {
      if (!exited && waitpid (pid, status, WNOHANG) == pid)
        {
          exited = true;
          fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
        }
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      if (!exited && poll (&pfd, 1, 200) <= 0)
        continue;               /* nothing yet, or a signal */
      if (cap - len < 65536)
        {
          size_t ncap = cap ? 2 * cap : 131072;
          char *nbuf = realloc (buf, ncap);
          if (nbuf == NULL)
            {
              error (0, errno, "realloc");
              ret = EXIT_ERROR;
              break;
            }
          buf = nbuf;
          cap = ncap;
        }
      ssize_t n = read (fd, buf + len, cap - len - 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && exited && (errno == EAGAIN || errno == EWOULDBLOCK))
        eof = true;             /* stap is gone and its output read */
      else if (n < 0)
        {
          error (0, errno, "reading stap's output");
          ret = EXIT_ERROR;
          break;
        }
      else if (n == 0)
        eof = true;
      else
        len += (size_t) n;
      /* Whole lines; at the end, the rest too.  */
      size_t from = 0;
      const char *nl;
      while ((nl = memchr (buf + from, '\n', len - from)) != NULL
             || (eof && from < len))
        {
          size_t l = nl != NULL ? (size_t) (nl + 1 - (buf + from)) : len - from;
          char keep = buf[from + l];
          buf[from + l] = '\0';
          write_traceback_line (t, stdout, buf + from, l);
          buf[from + l] = keep;
          from += l;
        }
      memmove (buf, buf + from, len - from);
      len -= from;
      if (fflush (stdout) != 0)
        {
          /* A closed pipe after gostap: stap gets SIGPIPE as it would
             have without gostap.  */
          error (0, errno, "writing the output");
          ret = EXIT_ERROR;
        }
    }
  free (buf);
  write_traceback_end (t);
  close (fd);
  if (!exited)
    while (waitpid (pid, status, 0) < 0)
      if (errno != EINTR)
        {
          error (0, errno, "waitpid");
          return EXIT_ERROR;
        }
  return ret;
}

int
run_stap_filtered (char **sargv, const struct go_bin *b, const char *outfile,
                   const char *pprof, const char *folded)
{
  struct profile *prof = NULL;
  if ((pprof != NULL || folded != NULL) && (prof = profile_new (b)) == NULL)
    return EXIT_ERROR;
  int fds[2];
  if (pipe (fds) != 0)
    {
      error (0, errno, "pipe");
      profile_free (prof);
      return EXIT_ERROR;
    }
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      error (0, errno, "fork");
      close (fds[0]);
      close (fds[1]);
      profile_free (prof);
      return EXIT_ERROR;
    }
  if (pid == 0)
    {
      close (fds[0]);
      if (dup2 (fds[1], STDOUT_FILENO) < 0)
        _exit (127);
      close (fds[1]);
      execvp (sargv[0], sargv);
      error (0, errno, "cannot run '%s'", sargv[0]);
      _exit (127);
    }
  close (fds[1]);
  stap_pid = pid;
  /* SA_RESTART: the relay goes on after the signal (stap prints its end
     probes' output after ^C).  */
  struct sigaction sa = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  int status = 0;
  int ret = relay (fds[0], pid, &status, b, prof);
  if (outfile != NULL && access (outfile, F_OK) == 0
      && expand_file (outfile, b, prof) != 0 && ret == EXIT_OK)
    ret = EXIT_ERROR;
  bool stap_ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (prof != NULL && !stap_ok)
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
    }
  else if (prof != NULL && profile_write (prof, pprof, folded) != 0
           && ret == EXIT_OK)
    ret = EXIT_ERROR;
  profile_free (prof);
  if (WIFEXITED (status))
    return ret != EXIT_OK ? ret : WEXITSTATUS (status);
  /* Killed: exit as a shell reports it.  */
  return 128 + WTERMSIG (status);
}
