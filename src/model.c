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

int
go_model_func (struct go_model *m, const struct go_func *f, unsigned parts,
               struct go_func_model *out)
{
  struct go_bin *b = m->b;
  memset (out, 0, sizeof *out);
  int ret = gobin_analyze (b, f);
  if (ret != EXIT_OK)
    return ret;
  out->binary = b->abspath;
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
  out->file = gobin_func_file (b, f);
  out->line = gobin_func_line (b, f);
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
  if (fm->have_sig)
    go_signature_free (&fm->sig);
  memset (fm, 0, sizeof *fm);
}

bool
go_model_line_start (struct go_model *m, uint64_t addr)
{
  return go_params_is_line_start (params (m), addr);
}
