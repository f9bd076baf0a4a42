/* read-inline.c: the inline tree of a function, from the pclntab (Go
   1.16+): which inlined call a pc of the function belongs to, and that
   call's function name and call site.

   FUNCDATA_InlTree is an array of inlined-call records; PCDATA_InlTreeIndex
   maps each pc of the function to the innermost record, or -1 in the
   function's own code.  A record's parentPc is the offset from the
   function's entry of an instruction whose source position is the call
   site; the index at that pc is the caller's record.  The records:
     Go 1.16-1.19  parent int16, funcID uint8, pad, file int32, line int32,
                   nameoff int32, parentPc int32                 (20 bytes)
     Go 1.20+      funcID uint8, pad [3], nameoff int32, parentPc int32,
                   startLine int32                               (16 bytes)
   nameoff indexes the function name table in both.  */

#include "config.h"

#include <stdlib.h>

#include "reader.h"

enum
{
  PCDATA_INLTREEINDEX = 2,
  FUNCDATA_INLTREE = 3,
};

static int32_t
s32 (const uint8_t *p)
{
  return (int32_t) ((uint32_t) p[0] | (uint32_t) p[1] << 8
                    | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24);
}

int32_t
gobin_inline_index (const struct go_bin *b, const struct go_func *f,
                    uint64_t pc)
{
  int32_t idx;
  uint32_t table = gobin_pcdata (b, f, PCDATA_INLTREEINDEX);
  if (table == 0 || !gobin_pcvalue (b, f, table, pc, &idx) || idx < 0)
    return -1;
  return idx;
}

void
gobin_inline_prefetch (const struct go_bin *b, const struct go_func *f)
{
  uint32_t table = gobin_pcdata (b, f, PCDATA_INLTREEINDEX);
  if (table != 0)
    gobin_pcvalue_prefetch (b, table);
}

bool
gobin_inline_call (const struct go_bin *b, const struct go_func *f,
                   int32_t idx, struct go_inlined *call)
{
  bool v120 = b->pcln_ver >= GO_PCLN_120;
  uint64_t size = v120 ? 16 : 20;
  size_t avail;
  if (idx < 0)
    return false;
  const uint8_t *rec = gobin_funcdata (b, f, FUNCDATA_INLTREE,
                                       ((uint64_t) idx + 1) * size, &avail);
  if (rec == NULL)
    return false;
  rec += (uint64_t) idx * size;
  int32_t nameoff = s32 (rec + (v120 ? 4 : 12));
  int32_t parent_pc = s32 (rec + (v120 ? 8 : 16));
  if (nameoff < 0 || parent_pc < 0
      || (uint64_t) parent_pc >= f->end - f->entry)
    return false;
  call->name = gobin_funcname (b, (uint32_t) nameoff);
  call->funcid = rec[v120 ? 0 : 2];
  call->parent_pc = f->entry + (uint64_t) parent_pc;
  call->start_line = v120 ? s32 (rec + 12) : 0;
  return call->name != NULL;
}

/* The copies of F's inline tree (gobin_inline_copies).  */
struct copies
{
  struct go_inline_copy *v;
  size_t n;                     /* records known: highest index + 1 */
  bool oom;
};

/* Make room for record IDX (marking the new ones as not yet seen).  */
static bool
copies_grow (struct copies *c, int32_t idx)
{
  if ((size_t) idx < c->n)
    return true;
  struct go_inline_copy *v = reallocarray (c->v, (size_t) idx + 1,
                                           sizeof *v);
  if (v == NULL)
    {
      c->oom = true;
      return false;
    }
  for (size_t i = c->n; i <= (size_t) idx; i++)
    v[i] = (struct go_inline_copy) { .idx = (int32_t) i, .parent = -2 };
  c->v = v;
  c->n = (size_t) idx + 1;
  return true;
}

/* A change of the inline tree index table: from PC on, VALUE.  The walk
   goes up in pc, so the first pc that names a record is its lowest.  */
static void
copies_visit (uint64_t pc, int32_t value, void *arg)
{
  struct copies *c = arg;
  if (value < 0 || value > 0xffff || !copies_grow (c, value))
    return;
  if (!c->v[value].has_code)
    {
      c->v[value].has_code = true;
      c->v[value].pc = pc;
      /* The copy's own code starts here (the parent pass below may
         lower pc, not this): where its file is read.  */
      c->v[value].own_pc = pc;
    }
}

int
gobin_inline_copies (const struct go_bin *b, const struct go_func *f,
                     struct go_inline_copy **out, size_t *nout)
{
  struct copies c = { NULL, 0, false };
  *out = NULL;
  *nout = 0;
  uint32_t table = gobin_pcdata (b, f, PCDATA_INLTREEINDEX);
  if (table == 0 || b->pcln_ver < GO_PCLN_116)
    return 0;
  if (gobin_pcvalue_walk (b, f, table, copies_visit, &c) != 0 || c.oom)
    {
      free (c.v);
      return c.oom ? -1 : 0;    /* a malformed table: no copies */
    }
  /* Each record's parent (the record at its call site), and the records
     only a parent chain names; the chain is walked for every record, so
     each ancestor also takes the lowest pc of its descendants: a copy's
     first instruction may be one of a function inlined into it.  */
  for (size_t i = 0; i < c.n && !c.oom; i++)
    {
      struct go_inlined call;
      if (!gobin_inline_call (b, f, (int32_t) i, &call))
        {
          c.v[i].name = NULL;   /* unreadable: dropped below */
          c.v[i].parent = -1;
          continue;
        }
      c.v[i].name = call.name;
      c.v[i].funcid = call.funcid;
      c.v[i].start_line = call.start_line > 0 ? call.start_line : 0;
      c.v[i].parent_pc = call.parent_pc;
      int32_t p = gobin_inline_index (b, f, call.parent_pc);
      /* A parent comes before its children in Go's tree: anything else
         would be a cycle.  */
      c.v[i].parent = p >= 0 && (size_t) p < i ? p : -1;
    }
  if (c.oom)
    {
      free (c.v);
      return -1;
    }
  /* Children have higher indices than their parents: from the last
     record down, pass each first pc to the parent.  */
  for (size_t i = c.n; i-- > 0;)
    {
      int32_t p = c.v[i].parent;
      if (p < 0 || !c.v[i].has_code)
        continue;
      if (!c.v[p].has_code || c.v[i].pc < c.v[p].pc)
        {
          c.v[p].has_code = true;
          c.v[p].pc = c.v[i].pc;
        }
    }
  size_t k = 0;
  for (size_t i = 0; i < c.n; i++)
    {
      struct go_inline_copy *x = &c.v[i];
      if (x->name == NULL)
        continue;
      /* A copy with no instruction of its own (its body optimized away)
         is reached where the call was: the instruction at parentPc.  */
      if (!x->has_code)
        x->pc = x->parent_pc;
      x->outer = x->parent >= 0 ? c.v[x->parent].name : NULL;
      int32_t fno;
      x->file = NULL;
      if (x->own_pc != 0 && f->pcfile != 0
          && gobin_pcvalue (b, f, f->pcfile, x->own_pc, &fno))
        x->file = gobin_file_name (b, f, fno);
      x->in = f;
      c.v[k++] = *x;
    }
  *out = c.v;
  *nout = k;
  return 0;
}
