/* read-abi.c: which calling convention each function uses.

   ABIInternal (registers) is Go's own convention from Go 1.17 on amd64 and
   1.18 on arm64; ABI0 (everything on the stack) is used before that, by
   assembly functions, and by the wrappers that let assembly call Go.  The
   decision uses the pclntab only, so a stripped binary gets the same answer
   as its unstripped twin (whose .symtab names ABI0 symbols `NAME.abi0`,
   which the tests compare against):
   - assembly functions (FuncFlagAsm) are ABI0, except those Go's sources
     declare <ABIInternal> (table generated into abi-asm-table.h);
   - cgo's call stubs (pkg._Cfunc_NAME) are compiled from Go with ABI0;
   - a name listed twice is a function and its ABI wrapper: when one of
     them is assembly, the other is the ABIInternal wrapper; otherwise the
     wrapper is ABI0: the one with a FuncID (wrapper), else the shorter.
     Generic code has no wrappers: two "F[...]" are two instantiations
     (Go 1.18-1.20 abbreviate their names).  */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "abi-asm-table.h"
#include "reader.h"

enum { FUNC_FLAG_ASM = 1 << 2 };

static bool
asm_is_internal (const struct go_bin *b, const char *name, int minor)
{
  unsigned char arch = b->arch == GO_ARCH_AMD64 ? ABI_ASM_AMD64
    : ABI_ASM_ARM64;
  size_t lo = 0, hi = sizeof abi_asm_internal / sizeof abi_asm_internal[0];
  /* The table is sorted by name; several rows may share one.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (abi_asm_internal[mid].name, name) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (size_t i = lo; i < sizeof abi_asm_internal / sizeof abi_asm_internal[0]
       && strcmp (abi_asm_internal[i].name, name) == 0; i++)
    {
      const struct abi_asm_entry *e = &abi_asm_internal[i];
      if (e->arch == arch && minor >= e->min_minor && minor <= e->max_minor)
        return true;
    }
  return false;
}

/* The Go minor version, from the build info or else the pclntab format. */
static int
effective_minor (const struct go_bin *b)
{
  if (b->go_minor > 0)
    return b->go_minor;
  switch (b->pcln_ver)
    {
    case GO_PCLN_12: return 15;
    case GO_PCLN_116: return 16;
    case GO_PCLN_118: return 18;
    default: return 20;
    }
}

bool
gobin_regabi (const struct go_bin *b)
{
  return effective_minor (b) >= (b->arch == GO_ARCH_AMD64 ? 17 : 18);
}

void
gobin_classify_abi (struct go_bin *b)
{
  int minor = effective_minor (b);
  bool regabi = gobin_regabi (b);
  for (size_t i = 0; i < b->nfuncs; i++)
    {
      struct go_func *f = &b->funcs[i];
      if (!regabi)
        f->abi = GO_ABI_ABI0;
      else if ((f->flag & FUNC_FLAG_ASM) && !asm_is_internal (b, f->name, minor))
        f->abi = GO_ABI_ABI0;
      else if (strstr (f->name, "._Cfunc_") != NULL)
        f->abi = GO_ABI_ABI0;   /* cgo call stubs keep the stack ABI */
      else
        f->abi = GO_ABI_INTERNAL;
    }
  if (!regabi)
    return;

  /* Each name once, through the name index (read-pclntab.c), with its
     functions in address order.  The index gives const functions; this
     reader sets fields of B's own array.  */
  struct go_name_iter it = { 0, 0 };
  for (const struct go_func *cx; (cx = gobin_next_name (b, &it)) != NULL;)
      {
        struct go_func *x = &b->funcs[cx - b->funcs];
        const struct go_func *cy = gobin_next_named (b, x);
        if (cy == NULL)
          continue;             /* a name of its own */
        struct go_func *y = &b->funcs[cy - b->funcs];
        if (gobin_next_named (b, y) == NULL && strchr (x->name, '[') == NULL)
          {
            /* Two functions of one name: a function and its ABI wrapper.
               Generic code has no ABI wrappers (assembly cannot call it):
               Go 1.18-1.20 give its instantiations one name, "F[...]".  */
            bool xa = x->flag & FUNC_FLAG_ASM, ya = y->flag & FUNC_FLAG_ASM;
            bool xw = x->funcid != 0, yw = y->funcid != 0;
            struct go_func *abi0 = xa != ya ? (xa ? x : y)
              : xw != yw ? (xw ? x : y)
              : x->end - x->entry <= y->end - y->entry ? x : y;
            struct go_func *other = abi0 == x ? y : x;
            abi0->abi = GO_ABI_ABI0;
            other->abi = GO_ABI_INTERNAL;
            /* The wrapper: the ABIInternal one when the other is
               assembly, else the ABI0 one.  */
            (xa != ya ? other : abi0)->wrapper = true;
          }
        /* Functions that are not wrappers and share a name are told apart
           by dup_index, in address order.  */
        unsigned d = 0;
        for (const struct go_func *f = x; f != NULL;
             f = gobin_next_named (b, f))
          if (!f->wrapper)
            b->funcs[f - b->funcs].dup_index = d++;
      }
}
