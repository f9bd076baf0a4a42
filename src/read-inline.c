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

#include "gobin.h"

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
  return call->name != NULL;
}
