/* cmd-types.c: gostap types BINARY [--json] [ADDR...]

   Prints the runtime type descriptors of a Go binary (read-types.c): the
   ones at the addresses given, else every one reachable from the type
   data's roots (Go 1.27's table of descriptors; the typelinks and itabs
   before) through element, key, field, parameter and pointer types.  One
   line a type, in address order; with --json one JSON object a line.
   Needs no DWARF and no .symtab.  */

#include "config.h"

#include <argp.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gobin.h"
#include "out.h"
#include "select.h"
#include "util.h"

/* Set by parse_opt.  */
struct types_args
{
  const char *binary;
  bool json;
  struct addr_list addrs;
  bool oom;
};

enum { OPT_JSON = 0x100 };

static const struct argp_option options[] = {
  { "json", OPT_JSON, NULL, 0, "One JSON object a line", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct types_args *a = state->input;
  switch (key)
    {
    case OPT_JSON:
      a->json = true;
      return 0;
    case ARGP_KEY_ARG:
      if (a->binary == NULL)
        {
          a->binary = arg;
          return 0;
        }
      {
        const char *p = arg;
        uint64_t v;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
          p += 2;
        if (!parse_hex (&p, &v) || *p != '\0')
          argp_error (state, "'%s' is not a hex address", arg);
        else if (addr_list_push (&a->addrs, v) != 0)
          a->oom = true;
      }
      return 0;
    case ARGP_KEY_END:
      if (a->binary == NULL)
        argp_error (state, "no binary given");
      return 0;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

/* The addresses to print, each once: WORK->v[i], with its hash index.  */
struct walk
{
  struct addr_list work;
  struct hash_slot *ht;
  size_t hn;
};

static bool
addr_eq (const void *ctx, size_t i, const void *key)
{
  return ((const struct walk *) ctx)->work.v[i] == *(const uint64_t *) key;
}

/* Add V (when not 0 and not there yet): 0, or -1 when out of memory.  */
static int
walk_add (struct walk *w, uint64_t v)
{
  if (v == 0)
    return 0;
  uint64_t h = fnv1a (FNV1A_BASIS, &v, sizeof v);
  struct hash_slot *s = hash_find (&w->ht, &w->hn, w->work.n, h, addr_eq,
                                   w, &v);
  if (s == NULL)
    return -1;
  if (s->idx != 0)
    return 0;
  s->idx = w->work.n + 1;
  s->h = h;
  return addr_list_push (&w->work, v);
}

/* The types T refers to.  */
static int
walk_children (struct walk *w, const struct go_type *t)
{
  int r = walk_add (w, t->elem) | walk_add (w, t->key)
    | walk_add (w, t->bucket) | walk_add (w, t->ptr_to_this);
  for (size_t i = 0; i < t->nfields; i++)
    r |= walk_add (w, t->fields[i].type);
  for (size_t i = 0; t->params != NULL && i < (size_t) t->in + t->out; i++)
    r |= walk_add (w, t->params[i]);
  return r;
}

static void
json_name (FILE *f, const struct go_name *n)
{
  char *s = strndup (n->bytes != NULL ? n->bytes : "", n->len);
  out_json_string (f, s != NULL ? s : "");
  free (s);
}

static void
print_json (FILE *f, const struct go_type *t)
{
  fprintf (f, "{\"addr\":\"%#" PRIx64 "\",\"kind\":\"%s\",\"size\":%" PRIu64
           ",\"align\":%u,\"field_align\":%u,\"str\":", t->addr,
           go_kind_name (t->kind), t->size, t->align, t->field_align);
  json_name (f, &t->str);
  fputs (",\"name\":", f);
  json_name (f, &t->name);
  fputs (",\"pkgpath\":", f);
  json_name (f, &t->pkgpath);
  fprintf (f, ",\"ptrdata\":%" PRIu64 ",\"hash\":%u,\"tflag\":%u",
           t->ptrdata, t->hash, t->tflag);
  if (t->ptr_to_this != 0)
    fprintf (f, ",\"ptr_to_this\":\"%#" PRIx64 "\"", t->ptr_to_this);
  if (t->uncommon)
    fprintf (f, ",\"mcount\":%u,\"xcount\":%u", t->mcount, t->xcount);
  if (t->elem != 0)
    fprintf (f, ",\"elem\":\"%#" PRIx64 "\"", t->elem);
  switch (t->kind)
    {
    case K_ARRAY:
      fprintf (f, ",\"len\":%" PRIu64, t->len);
      break;
    case K_CHAN:
      fprintf (f, ",\"dir\":%" PRIu64, t->dir);
      break;
    case K_MAP:
      fprintf (f, ",\"key\":\"%#" PRIx64 "\",\"%s\":\"%#" PRIx64 "\"",
               t->key, t->map_layout == GO_MAP_BUCKETS ? "bucket" : "group",
               t->bucket);
      if (t->map_layout != GO_MAP_BUCKETS)
        fprintf (f, ",\"group_size\":%" PRIu64 ",\"slot_size\":%" PRIu64,
                 t->group_size, t->slot_size);
      break;
    case K_FUNC:
      fprintf (f, ",\"in\":%u,\"out\":%u", t->in, t->out);
      if (t->variadic)
        fputs (",\"variadic\":true", f);
      break;
    case K_INTERFACE:
      fprintf (f, ",\"methods\":%" PRIu64, t->nmethods);
      break;
    case K_STRUCT:
      fputs (",\"fields\":[", f);
      for (size_t i = 0; i < t->nfields; i++)
        {
          const struct go_type_field *fl = &t->fields[i];
          fputs (i > 0 ? ",{\"name\":" : "{\"name\":", f);
          json_name (f, &fl->name);
          fprintf (f, ",\"type\":\"%#" PRIx64 "\",\"offset\":%" PRIu64
                   ",\"embedded\":%s}", fl->type, fl->offset,
                   fl->embedded ? "true" : "false");
        }
      fputc (']', f);
      break;
    default:
      break;
    }
  fputs ("}\n", f);
}

static void
print_text (FILE *f, const struct go_type *t)
{
  fprintf (f, "%#" PRIx64 " %s %" PRIu64 " ", t->addr, go_kind_name (t->kind),
           t->size);
  out_text_mem (f, t->str.bytes != NULL ? t->str.bytes : "", t->str.len);
  fputc ('\n', f);
}

static int
by_addr (const void *x, const void *y)
{
  uint64_t a = ((const struct go_type *) x)->addr;
  uint64_t b = ((const struct go_type *) y)->addr;
  return a < b ? -1 : a > b;
}

/* The first malformed descriptor's problem, said once at the end with
   the count of the others: one line, however many are bad.  */
struct bad
{
  char err[512], other[512];
  size_t n;
};

/* The descriptors read, in the order of the walk.  */
struct found
{
  struct go_type *v;
  size_t n, cap;
};

/* Start W at ADDRS, else (none given) at the roots of TS's type data:
   EXIT_OK, or the exit status after one line.  */
static int
walk_start (struct walk *w, const struct addr_list *addrs,
            struct go_types *ts)
{
  struct addr_list roots = { 0 };
  int oom = 0;
  if (addrs->n == 0 && go_types_roots (ts, &roots) != 0)
    {
      addr_list_free (&roots);
      return EXIT_BADINPUT;
    }
  const struct addr_list *from = addrs->n > 0 ? addrs : &roots;
  for (size_t i = 0; i < from->n; i++)
    oom |= walk_add (w, from->v[i]);
  addr_list_free (&roots);
  if (oom != 0)
    {
      error (0, 0, "out of memory");
      return EXIT_ERROR;
    }
  return EXIT_OK;
}

/* Append T to FD, with room for the WANT addresses of the walk when it
   is full: 0, or -1 when out of memory.  */
static int
found_push (struct found *fd, const struct go_type *t, size_t want)
{
  if (fd->n == fd->cap)
    {
      /* The walk grew the list: room for every address of it.  */
      struct go_type *n = realloc (fd->v, want * sizeof *fd->v);
      if (n == NULL)
        return -1;
      fd->v = n;
      fd->cap = want;
    }
  fd->v[fd->n++] = *t;
  return 0;
}

/* Read the descriptor at each address of W into FD, and when FOLLOW add
   the types each refers to to W; count the malformed ones in BAD.  0, or
   -1 after one line when out of memory.  */
static int
read_all (struct go_types *ts, struct walk *w, bool follow,
          struct found *fd, struct bad *bad)
{
  fd->cap = w->work.n > 0 ? w->work.n : 1;
  fd->v = calloc (fd->cap, sizeof *fd->v);
  if (fd->v == NULL)
    {
      error (0, 0, "out of memory");
      return -1;
    }
  for (size_t i = 0; i < w->work.n; i++)
    {
      struct go_type t;
      if (go_type_read (ts, w->work.v[i], &t,
                        bad->n == 0 ? bad->err : bad->other,
                        sizeof bad->err) != 0)
        {
          bad->n++;
          continue;
        }
      if ((follow && walk_children (w, &t) != 0)
          || found_push (fd, &t, w->work.n) != 0)
        {
          go_type_free (&t);
          error (0, 0, "out of memory");
          return -1;
        }
    }
  return 0;
}

/* Print FD's descriptors in address order, as JSON or text, then say
   BAD's malformed ones of the binary PATH in one line: the exit
   status.  */
static int
print_found (struct found *fd, bool json, const char *path,
             const struct bad *bad)
{
  qsort (fd->v, fd->n, sizeof *fd->v, by_addr);
  for (size_t i = 0; i < fd->n; i++)
    (json ? print_json : print_text) (stdout, &fd->v[i]);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      error (0, 0, "cannot write the output");
      return EXIT_ERROR;
    }
  if (bad->n == 1)
    {
      error (0, 0, "%s: %s", path, bad->err);
      return EXIT_BADINPUT;
    }
  if (bad->n > 1)
    {
      error (0, 0, "%s: %s (and %zu more malformed descriptors)", path,
             bad->err, bad->n - 1);
      return EXIT_BADINPUT;
    }
  return EXIT_OK;
}

int
cmd_types (int argc, char **argv)
{
  static const struct argp argp = {
    options, parse_opt, "BINARY [ADDR...]",
    "Print the runtime type descriptors of a Go binary (Go 1.19 and later, "
    "amd64 and arm64): kind, size, alignment, name, package path and, by "
    "kind, element, key, length, channel direction, struct fields (name, "
    "type, offset, embedded), interface methods, function parameters.  "
    "Without ADDRs, every descriptor reachable from the binary's type "
    "data; with them, the descriptors at those addresses (hex, as "
    "reflect's type word of an interface holding the value).  Reads no "
    "DWARF: works on -s -w builds."
    "\vExit status: 0 success, 1 error, 2 not a usable Go binary or a "
    "malformed descriptor (one line: the first one and how many more; the "
    "others are printed), 64 usage error.\n\n"
    "Example:\n"
    "  gostap types --json ./server | grep '\"kind\":\"struct\"'",
    NULL, NULL, NULL,
  };
  struct types_args a = { 0 };
  struct go_bin b;
  struct go_types ts;
  struct walk w = { 0 };
  struct found fd = { 0 };
  struct bad bad = { .n = 0 };
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    {
      addr_list_free (&a.addrs);
      return EXIT_USAGE;
    }
  ret = select_prepare (&b, a.binary, 0, NULL);
  if (ret != EXIT_OK)
    goto out;
  ret = EXIT_BADINPUT;
  if (go_types_open (&b, &ts) != 0)
    goto out;
  ret = EXIT_ERROR;
  if (a.oom)
    {
      error (0, 0, "out of memory");
      goto out;
    }
  ret = walk_start (&w, &a.addrs, &ts);
  if (ret != EXIT_OK)
    goto out;
  ret = EXIT_ERROR;
  if (read_all (&ts, &w, a.addrs.n == 0, &fd, &bad) != 0)
    goto out;
  ret = print_found (&fd, a.json, b.path, &bad);
out:
  for (size_t i = 0; i < fd.n; i++)
    go_type_free (&fd.v[i]);
  free (fd.v);
  free (w.ht);
  addr_list_free (&w.work);
  addr_list_free (&a.addrs);
  gobin_close (&b);
  return ret;
}
