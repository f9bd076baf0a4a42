/* harness.c: the go_float core of tapsets/go_float.stp in user space, for
   run-float-format.sh, which extracts the core into go_float_core.h.

   harness          formats the cases of stdin ("f64 HEX", "f32 HEX",
                    "c128 HEX HEX", "c64 HEX HEX"), writing each line with
                    the string appended; "end N" lines pass through.  On
                    stderr: "maxwords N", the most big-integer words used.
   harness --bench  times one call (nanoseconds): averages over random
                    values of several kinds, and the slowest value found
                    among every binary exponent.  */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int max_words;
#define _GO_BN_NOTE(b) \
  do { if ((b)->n > max_words) max_words = (b)->n; } while (0)
#include "go_float_core.h"

/* Formatting into every smaller buffer gives the prefix that fits, NUL
   terminated, its length returned, and writes nothing beyond.  */
static int
check_truncation (const char *kind, uint64_t a, uint64_t b, const char *full)
{
  size_t len = strlen (full), size, got, want;
  char out[160];

  for (size = 0; size <= len + 1; size++)
    {
      memset (out, '#', sizeof out);
      if (kind[0] == 'f')
        got = _go_fmt_float (out, size, a, kind[1] == '3');
      else
        got = _go_fmt_complex (out, size, a, b, kind[1] == '6');
      want = size == 0 ? 0 : size - 1 < len ? size - 1 : len;
      if (got != want || (size > 0 && (memcmp (out, full, want) != 0 || out[want] != '\0'))
          || out[size] != '#')
        {
          fprintf (stderr, "harness: %s %llx %llx into %zu bytes: returned %zu, '%.*s'\n",
                   kind, (unsigned long long) a, (unsigned long long) b, size, got,
                   (int) (size < sizeof out ? size : 0), out);
          return 1;
        }
    }
  return 0;
}

static int
format_lines (void)
{
  char line[256], out[128];
  unsigned long long a, b;
  char kind[8];
  int n;
  unsigned long lines = 0;

  while (fgets (line, sizeof line, stdin) != NULL)
    {
      size_t len = strlen (line);
      if (len == 0 || line[len - 1] != '\n')
        {
          fprintf (stderr, "harness: line too long or unterminated\n");
          return 1;
        }
      line[--len] = '\0';
      if (strncmp (line, "end ", 4) == 0)
        {
          puts (line);
          continue;
        }
      n = sscanf (line, "%7s %llx %llx", kind, &a, &b);
      if (n == 2 && strcmp (kind, "f64") == 0)
        _go_fmt_float (out, sizeof out, a, 0);
      else if (n == 2 && strcmp (kind, "f32") == 0)
        _go_fmt_float (out, sizeof out, a, 1);
      else if (n == 3 && strcmp (kind, "c128") == 0)
        _go_fmt_complex (out, sizeof out, a, b, 0);
      else if (n == 3 && strcmp (kind, "c64") == 0)
        _go_fmt_complex (out, sizeof out, a, b, 1);
      else
        {
          fprintf (stderr, "harness: bad line '%s'\n", line);
          return 1;
        }
      printf ("%s %s\n", line, out);
      if (++lines % 97 == 0 && check_truncation (kind, a, b, out) != 0)
        return 1;
    }
  fprintf (stderr, "maxwords %d of %d\n", max_words, _GO_BN_WORDS);
  return ferror (stdin) || fflush (stdout) != 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t
next (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static double
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile size_t sink;
#define N 400000
static uint64_t vals[N];

/* Average nanoseconds a call over vals[].  */
static double
time_vals (int bits32, int complex)
{
  double t0 = now_ns ();
  char out[128];
  int i;
  for (i = 0; i < N; i++)
    sink += complex ? _go_fmt_complex (out, sizeof out, vals[i], vals[N - 1 - i], bits32)
                    : _go_fmt_float (out, sizeof out, vals[i], bits32);
  return (now_ns () - t0) / N;
}

static double
time_one (uint64_t v, int bits32, int reps)
{
  char out[128];
  double t0 = now_ns ();
  int i;
  for (i = 0; i < reps; i++)
    sink += _go_fmt_float (out, sizeof out, v, bits32);
  return (now_ns () - t0) / reps;
}

static int
bench (void)
{
  int i, e, k, j;
  double worst = 0, t;
  uint64_t worst_bits = 0;
  int worst32 = 0;

  for (i = 0; i < N; i++)
    vals[i] = next ();
  printf ("uniform64 %.0f\n", time_vals (0, 0));
  printf ("uniform32 %.0f\n", time_vals (1, 0));
  /* Typical: |x| in [2^-10, 2^20), all 53 bits random.  */
  for (i = 0; i < N; i++)
    vals[i] = (next () & 0x800fffffffffffffu) | (uint64_t) (1013 + next () % 30) << 52;
  printf ("typical64 %.0f\n", time_vals (0, 0));
  /* Short: n / 100 for n < 10^6 (1234.56).  */
  for (i = 0; i < N; i++)
    {
      double d = (double) (next () % 1000000) / 100;
      memcpy (&vals[i], &d, sizeof d);
    }
  printf ("short64 %.0f\n", time_vals (0, 0));
  for (i = 0; i < N; i++)
    vals[i] = next ();
  printf ("complex128 %.0f\n", time_vals (0, 1));

  /* The slowest: every exponent of both sizes with a few mantissas,
     then the slowest 5 of those again, longer.  */
  for (k = 0; k < 2; k++)
    for (e = 0; e < (k ? 0xff : 0x7ff); e++)
      for (j = 0; j < 4; j++)
        {
          uint64_t m = j == 0 ? 0 : j == 1 ? 1 : j == 2 ? ~(uint64_t) 0 : next ();
          uint64_t v = k ? ((uint64_t) e << 23 | (m & 0x7fffff))
                         : ((uint64_t) e << 52 | (m & 0xfffffffffffffu));
          t = time_one (v, k, 20);
          if (t > worst)
            {
              t = time_one (v, k, 2000);
              if (t > worst)
                worst = t, worst_bits = v, worst32 = k;
            }
        }
  printf ("worst %.0f %s %#llx\n", worst, worst32 ? "f32" : "f64",
          (unsigned long long) worst_bits);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--bench") == 0)
    return bench ();
  if (argc != 1)
    {
      fprintf (stderr, "usage: harness [--bench] < cases\n");
      return 64;
    }
  return format_lines ();
}
