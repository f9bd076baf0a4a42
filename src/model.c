/* model.c: the per-function record of model.h, built from the readers:
   the pclntab (name, entry, end, pcsp, pcfile, pcln), the machine code
   (body, RETs, jumps: read-code.c), .symtab (the symbol at the entry),
   and, when asked, DWARF (whether it describes the function, its params
   and results: read-params.c).  Everything is read for the functions a
   command asks about, when it asks: nothing per function at open.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "probe-name.h"

struct go_model
{
  struct go_bin *b;
  struct go_params_ctx *params; /* DWARF index, built on first need */
  bool params_tried;
  struct go_inline_copy *copies; /* every inlined copy, by name (first
                                    need) */
  size_t ncopies;
  const char **names;           /* their names, each once, sorted */
  size_t nnames;
  bool copies_done;
};

struct go_model *
go_model_begin (struct go_bin *b)
{
  struct go_model *m = calloc (1, sizeof *m);
  if (m == NULL)
    {
      error (0, errno, "calloc");
      return NULL;
    }
  m->b = b;
  return m;
}

void
go_model_end (struct go_model *m)
{
  if (m == NULL)
    return;
  go_params_end (m->params);
  free (m->copies);
  free (m->names);
  free (m);
}

static struct go_params_ctx *
params (struct go_model *m)
{
  if (!m->params_tried)
    {
      m->params_tried = true;
      m->params = go_params_begin (m->b);
    }
  return m->params;
}

/* ADDR with the entry SP offset there: SP + the pcsp value at ADDR.  */
static struct go_site
site (const struct go_bin *b, const struct go_func *f, uint64_t addr)
{
  struct go_site s = { .addr = addr };
  if (f->pcsp == 0)
    s.sp_known = true;          /* no table: SP never moves */
  else
    s.sp_known = gobin_pcvalue (b, f, f->pcsp, addr, &s.sp_delta)
      && s.sp_delta >= 0;
  if (!s.sp_known)
    s.sp_delta = 0;
  return s;
}

/* A pc-value table's changes, in pc order.  */
struct pcv
{
  struct go_sp_row *v;          /* pc and value */
  size_t n, cap;
  bool oom;
};

static void
pcv_add (uint64_t pc, int32_t value, void *arg)
{
  struct pcv *t = arg;
  if (t->n > 0 && t->v[t->n - 1].sp_delta == value)
    return;
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 16;
      struct go_sp_row *v = reallocarray (t->v, cap, sizeof *v);
      if (v == NULL)
        {
          t->oom = true;
          return;
        }
      t->v = v;
      t->cap = cap;
    }
  t->v[t->n++] = (struct go_sp_row) { pc, value };
}

/* The value of T at PC, moving *I forward (PCs asked in order).  */
static bool
pcv_at (const struct pcv *t, size_t *i, uint64_t pc, int32_t *value)
{
  while (*i + 1 < t->n && t->v[*i + 1].pc <= pc)
    (*i)++;
  if (t->n == 0 || t->v[*i].pc > pc)
    return false;
  *value = t->v[*i].sp_delta;
  return true;
}

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* OUT's lines and sps from F's pcfile, pcln and pcsp tables (a table
   that cannot be read gives no rows, as Go's own traceback gives "?").  */
static int
tables (const struct go_bin *b, const struct go_func *f,
        struct go_func_model *out)
{
  struct pcv file = { 0 }, line = { 0 }, sp = { 0 };
  uint64_t *pcs = NULL;
  struct go_inline_copy *copies = NULL;
  size_t ncopies = 0;
  int ret = EXIT_ERROR;
  uint64_t fend, lend;
  if (gobin_pcvalue_walk_to (b, f, f->pcfile, pcv_add, &file, &fend) != 0)
    file.n = 0;
  if (gobin_pcvalue_walk_to (b, f, f->pcln, pcv_add, &line, &lend) != 0)
    line.n = 0;
  out->lines_end = file.n == 0 || line.n == 0 ? f->entry
    : fend < lend ? fend : lend;
  if (f->pcsp != 0 && gobin_pcvalue_walk (b, f, f->pcsp, pcv_add, &sp) != 0)
    sp.n = 0;
  if (file.oom || line.oom || sp.oom)
    goto nomem;
  /* Every pc where a row starts: the changes, the entry, the body, the
     RETs and the first pc of each inlined copy in the function (where
     go.func.NAME.inlined probes).  */
  if (gobin_inline_copies (b, f, &copies, &ncopies) != 0)
    goto nomem;
  size_t npcs = file.n + line.n + 3 + out->nrets + ncopies, k = 0;
  pcs = calloc (npcs, sizeof *pcs);
  if (pcs == NULL)
    goto nomem;
  for (size_t i = 0; i < ncopies; i++)
    pcs[k++] = copies[i].pc;
  for (size_t i = 0; i < file.n; i++)
    if (file.v[i].pc < out->lines_end)
      pcs[k++] = file.v[i].pc;
  for (size_t i = 0; i < line.n; i++)
    if (line.v[i].pc < out->lines_end)
      pcs[k++] = line.v[i].pc;
  pcs[k++] = out->lines_end;
  pcs[k++] = f->entry;
  pcs[k++] = out->body.addr;
  for (size_t i = 0; i < out->nrets; i++)
    pcs[k++] = out->rets[i].addr;
  qsort (pcs, k, sizeof *pcs, compare_u64);
  out->lines = calloc (k, sizeof *out->lines);
  if (out->lines == NULL)
    goto nomem;
  size_t fi = 0, li = 0;
  for (size_t i = 0; i < k; i++)
    {
      if ((i > 0 && pcs[i] == pcs[i - 1]) || pcs[i] < f->entry
          || pcs[i] >= f->end)
        continue;
      int32_t fno, ln;
      struct go_line_row r = { .pc = pcs[i] };
      if (pcs[i] < out->lines_end && pcv_at (&file, &fi, pcs[i], &fno))
        r.file = gobin_file_name (b, f, fno);
      if (pcs[i] < out->lines_end && pcv_at (&line, &li, pcs[i], &ln))
        r.line = ln;
      out->lines[out->nlines++] = r;
    }
  out->sps = sp.v;
  out->nsps = sp.n;
  sp.v = NULL;
  ret = EXIT_OK;
  goto out;
nomem:
  error (0, errno, "%s: %s", b->path, f->name);
out:
  free (copies);
  free (pcs);
  free (file.v);
  free (line.v);
  free (sp.v);
  return ret;
}

int
go_model_func (struct go_model *m, const struct go_func *f, unsigned parts,
               struct go_func_model *out)
{
  struct go_bin *b = m->b;
  memset (out, 0, sizeof *out);
  int ret = gobin_analyze (b, f);
  if (ret != EXIT_OK)
    return ret;
  out->binary = b->probe_path;
  out->arch = b->arch;
  out->name = f->name;
  out->wrapper = f->wrapper;
  out->alias = func_probe_name (f);
  out->entry = f->entry;
  out->end = f->end;
  out->abi = f->abi;
  out->body = site (b, f, f->code.body);
  out->nrets = f->code.rets.n;
  if (out->nrets > 0)
    {
      out->rets = calloc (out->nrets, sizeof *out->rets);
      if (out->rets == NULL)
        {
          error (0, errno, "calloc");
          go_func_model_free (out);
          return EXIT_ERROR;
        }
      for (size_t i = 0; i < out->nrets; i++)
        out->rets[i] = site (b, f, f->code.rets.v[i]);
    }
  out->tails = &f->code.tails;
  out->indirect = &f->code.indirect;
  out->undecoded = &f->code.undecoded;
  out->frame_size = gobin_frame_size (b, f);
  out->top_frame = (f->flag & GO_FUNCFLAG_TOPFRAME) != 0;
  out->file = gobin_func_file (b, f);
  out->line = gobin_func_line (b, f);
  if ((parts & MODEL_TABLES) && (ret = tables (b, f, out)) != EXIT_OK)
    {
      go_func_model_free (out);
      return ret;
    }
  if (parts & MODEL_SIGNATURE)
    {
      out->symbol = gobin_symbol_at (b, f->entry);
      out->symbols = gobin_has_symbols (b);
      struct go_params_ctx *pc = params (m);
      out->described = go_params_has_subprogram (pc, f->entry);
      out->have_sig = go_signature (pc, b, f, &out->sig) == 0;
    }
  return EXIT_OK;
}

void
go_func_model_free (struct go_func_model *fm)
{
  free (fm->alias);
  free (fm->rets);
  free (fm->lines);
  free (fm->sps);
  if (fm->have_sig)
    go_signature_free (&fm->sig);
  memset (fm, 0, sizeof *fm);
}

bool
go_model_line_start (struct go_model *m, uint64_t addr)
{
  return go_params_is_line_start (params (m), addr);
}

static int
compare_copy (const void *a, const void *b)
{
  const struct go_inline_copy *x = a, *y = b;
  int c = strcmp (x->name, y->name);
  if (c != 0)
    return c;
  if (x->in != y->in)
    return x->in < y->in ? -1 : 1;
  return (x->pc > y->pc) - (x->pc < y->pc);
}

/* Every inlined copy of the binary, sorted by name, then function (table
   order), then pc.  */
static int
all_copies (struct go_model *m)
{
  if (m->copies_done)
    return 0;
  struct go_bin *b = m->b;
  size_t cap = 0;
  for (size_t i = 0; i < b->nfuncs; i++)
    {
      const struct go_func *f = &b->funcs[i];
      if (f->wrapper || strncmp (f->name, "go:", 3) == 0)
        continue;
      struct go_inline_copy *v;
      size_t n;
      if (gobin_inline_copies (b, f, &v, &n) != 0)
        goto nomem;
      if (m->ncopies + n > cap)
        {
          size_t c2 = cap ? 2 * cap : 256;
          while (c2 < m->ncopies + n)
            c2 *= 2;
          struct go_inline_copy *w = reallocarray (m->copies, c2,
                                                   sizeof *w);
          if (w == NULL)
            {
              free (v);
              goto nomem;
            }
          m->copies = w;
          cap = c2;
        }
      if (n > 0)
        memcpy (m->copies + m->ncopies, v, n * sizeof *v);
      m->ncopies += n;
      free (v);
    }
  if (m->ncopies > 1)
    qsort (m->copies, m->ncopies, sizeof *m->copies, compare_copy);
  m->names = calloc (m->ncopies + 1, sizeof *m->names);
  if (m->names == NULL)
    goto nomem;
  for (size_t i = 0; i < m->ncopies; i++)
    if (m->nnames == 0
        || strcmp (m->names[m->nnames - 1], m->copies[i].name) != 0)
      m->names[m->nnames++] = m->copies[i].name;
  m->copies_done = true;
  return 0;
nomem:
  error (0, errno, "%s: the inline trees", b->path);
  return -1;
}

int
go_model_inline_copies (struct go_model *m, const char *name,
                        const struct go_inline_copy **v, size_t *n)
{
  *v = NULL;
  *n = 0;
  if (all_copies (m) != 0)
    return -1;
  if (m->ncopies == 0)
    return 0;
  if (name == NULL)
    {
      *v = m->copies;
      *n = m->ncopies;
      return 0;
    }
  /* The first copy of NAME: a binary search in the sorted table.  */
  size_t lo = 0, hi = m->ncopies;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (m->copies[mid].name, name) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  size_t k = lo;
  while (k < m->ncopies && strcmp (m->copies[k].name, name) == 0)
    k++;
  *v = m->copies + lo;
  *n = k - lo;
  return 0;
}

bool
go_model_described (struct go_model *m, const struct go_func *f)
{
  return go_params_has_subprogram (params (m), f->entry);
}

const char *
go_model_binary (const struct go_model *m)
{
  return m->b->probe_path;
}

int
go_model_inline_names (struct go_model *m, const char *const **v, size_t *n)
{
  *v = NULL;
  *n = 0;
  if (all_copies (m) != 0)
    return -1;
  *v = m->names;
  *n = m->nnames;
  return 0;
}
