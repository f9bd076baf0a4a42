/* fuzz-reader.c: a libFuzzer harness for gostap's reader and writers.

   Each input is written to a private file (libelf maps files: it needs a
   path, and realpath() of a memfd fails), then read the way `gostap list`
   and `gostap gen` read a binary:

     gobin_open
     gobin_analyze, gobin_frame_size, go_signature for each function
     gobin_runtime_layout
     write_check_probeable, write_target, write_funcs into a private
     directory, emptied after every input
     go_types_open, go_types_roots, go_type_read of the roots (gostap
     types)

   Work is bounded so that one input stays fast: at most MAX_FUNCS
   functions are analysed (all of them when there are fewer, else the first
   and last halves of that budget, where runtime.* and main.* live), and at
   most MAX_WRITE of those are written, at most MAX_TYPES descriptors read.  Build with fuzz/build.sh.  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gobin.h"
#include "probe-name.h"
#include "stack.h"
#include "write.h"

enum { MAX_FUNCS = 400, MAX_WRITE = 64, MAX_TYPES = 2000 };

static char *work;              /* private directory */
static char *input;             /* WORK/bin */
static char *outdir;            /* WORK/out */
static FILE *quiet;             /* /dev/null, or NULL */

static void
die (const char *what)
{
  perror (what);
  abort ();
}

static void
empty_dir (const char *dir)
{
  DIR *d = opendir (dir);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd (d), e->d_name, 0) != 0)
        die ("unlinkat");
    }
  closedir (d);
}

static void
cleanup (void)
{
  if (work == NULL)
    return;
  empty_dir (outdir);
  rmdir (outdir);
  unlink (input);
  rmdir (work);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  /* The reader's one-line errors (error(3) writes to the stream stderr)
     are expected on almost every input: send them to /dev/null unless
     FUZZ_VERBOSE is set.  libFuzzer keeps its own copy of the stream and
     the sanitizers write to fd 2, so their reports still show.  */
  if (getenv ("FUZZ_VERBOSE") == NULL
      && (quiet = fopen ("/dev/null", "w")) == NULL)
    die ("fopen /dev/null");
  const char *base = getenv ("FUZZ_TMPDIR");
  if (base == NULL)
    base = access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  if (asprintf (&work, "%s/gostap-fuzz.XXXXXX", base) < 0)
    die ("asprintf");
  if (mkdtemp (work) == NULL)
    die ("mkdtemp");
  if (asprintf (&input, "%s/bin", work) < 0
      || asprintf (&outdir, "%s/out", work) < 0)
    die ("asprintf");
  if (mkdir (outdir, 0700) != 0)
    die ("mkdir");
  atexit (cleanup);
  return 0;
}

static void
write_input (const uint8_t *data, size_t size)
{
  int fd = open (input, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    die ("open");
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          die ("write");
        }
      data += n;
      size -= (size_t) n;
    }
  if (close (fd) != 0)
    die ("close");
}

/* Touch every byte of a C string, so ASan sees an unterminated one.  */
static volatile size_t sink;
static void
touch (const char *s)
{
  if (s != NULL)
    sink += strlen (s);
}

/* The alias of F decodes back to F's name (and entry, for a twin):
   gostap run finds functions by decoding the aliases a script names.  */
static void
alias_round_trip (const struct go_func *f)
{
  char *alias = func_probe_name (f);
  if (alias == NULL)
    die ("func_probe_name");
  uint64_t entry;
  char *name = probe_name_decode (alias, &entry);
  if (name == NULL || strcmp (name, f->name) != 0
      || entry != (f->dup_index ? f->entry : 0))
    {
      fprintf (stderr, "alias %s of %s decodes to %s\n", alias, f->name,
               name ? name : "(nothing)");
      abort ();
    }
  free (name);
  free (alias);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct go_bin b;
  FILE *saved_stderr = stderr;
  write_input (data, size);
  if (quiet != NULL)
    stderr = quiet;
  if (gobin_open (&b, input) != EXIT_OK)
    {
      gobin_close (&b);
      stderr = saved_stderr;
      return 0;
    }

  size_t n = b.nfuncs < MAX_FUNCS ? b.nfuncs : MAX_FUNCS;
  const struct go_func **sel = calloc (n ? n : 1, sizeof *sel);
  if (sel == NULL)
    die ("calloc");
  size_t nsel = 0;
  struct go_model *m = go_model_begin (&b);
  struct go_params_ctx *pc = go_params_begin (&b);
  for (size_t k = 0; k < n; k++)
    {
      size_t i = b.nfuncs <= MAX_FUNCS || k < MAX_FUNCS / 2
        ? k : b.nfuncs - (MAX_FUNCS - k);
      struct go_func *f = &b.funcs[i];
      touch (f->name);
      alias_round_trip (f);
      touch (gobin_func_file (&b, f));
      sink += (size_t) gobin_func_line (&b, f);
      if (gobin_analyze (&b, f) != EXIT_OK)
        continue;
      sink += (size_t) gobin_frame_size (&b, f);
      struct go_signature sig;
      if (pc != NULL)
        {
          if (go_signature (pc, &b, f, &sig) == 0)
            {
              for (size_t v = 0; v < sig.n; v++)
                {
                  touch (sig.v[v].name);
                  touch (sig.v[v].type);
                  for (size_t p = 0; p < sig.v[v].npieces; p++)
                    touch (go_piece_reg (b.arch, &sig.v[v].pieces[p]));
                }
              go_signature_free (&sig);
            }
          else
            touch (sig.error);
          go_params_has_subprogram (pc, f->entry);
          go_params_is_line_start (pc, f->code.body);
        }
      if (nsel < MAX_WRITE || write_is_runtime_event (f->name))
        sel[nsel++] = f;
    }
  if (pc != NULL)
    go_params_end (pc);

  /* The stack symbolizer (inline trees, funcdata, the pc-value tables):
     a record in the middle of each selected function, another at its
     entry with its end as the word at SP.  */
  struct stack_cache *sc = stack_cache_new (&b);
  struct stack_record *rec = malloc (sizeof *rec);
  if (sc != NULL && rec != NULL)
    for (size_t k = 0; k < nsel; k++)
      {
        const struct go_func *f = sel[k];
        struct stack_frame frames[8];
        *rec = (struct stack_record) {
          .exact = k % 2 == 0, .pc = f->entry + (f->end - f->entry) / 2 + 1,
          .has_w0 = true, .w0 = f->end - 1, .end = '0' };
        rec->chain[rec->nchain++] = f->entry;
        size_t nf = stack_frames (sc, rec, frames, 8);
        for (size_t i = 0; i < nf; i++)
          {
            touch (frames[i].func);
            touch (frames[i].file);
            sink += (size_t) frames[i].line;
          }
      }
  free (rec);
  stack_cache_free (sc);

  struct go_layout layout;
  if (m != NULL && write_check_probeable (&b) == EXIT_OK
      && gobin_runtime_layout (&b, &layout) == 0
      && write_target (&b, &layout, outdir) == 0)
    {
      /* Some names of inlined copies too (the inline trees of every
         function are read for them).  */
      const char *const *inl = NULL;
      size_t ninl = 0;
      if (go_model_inline_names (m, &inl, &ninl) != 0)
        ninl = 0;
      write_funcs (m, &layout, sel, NULL, nsel, inl, ninl < 16 ? ninl : 16,
                   outdir);
    }
  empty_dir (outdir);
  go_model_end (m);

  struct go_types ts;
  struct addr_list roots = { 0 };
  if (go_types_open (&b, &ts) == 0 && go_types_roots (&ts, &roots) == 0)
    for (size_t i = 0; i < roots.n && i < MAX_TYPES; i++)
      {
        struct go_type t;
        char err[256];
        if (go_type_read (&ts, roots.v[i], &t, err, sizeof err) == 0)
          {
            sink += t.nfields + t.str.len;
            go_type_free (&t);
          }
      }
  addr_list_free (&roots);

  free (sel);
  gobin_close (&b);
  stderr = saved_stderr;
  return 0;
}
