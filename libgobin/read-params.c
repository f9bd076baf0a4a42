/* read-params.c: where each argument and result of a function is, at the
   body address and at each RET, from the function's DWARF types and Go's
   internal ABI (src/cmd/compile/abi-internal.md; facts.md):

   receiver, then each argument, then (register counters reset) each
   result is assigned whole to registers or, if it does not fit, to the
   stack sequence S at its alignment.  Zero-sized values go to S.  bool,
   integers, pointers, maps, chans and funcs take one integer register;
   floats one float register; complex two; strings and interfaces two
   integer registers; slices three; structs field by field; arrays of
   length 0 nothing, length 1 their element, longer ones never registers.
   S starts at entry SP + 8; arguments, pointer-align, results.  ABI0
   functions use S for everything.

   Go marks DWARF types with their reflect kind (DW_AT_go_kind), which is
   what this file classifies by.  */

#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "dwarf-index.h"

enum
{
  DW_AT_go_kind = 0x2900,
  DW_AT_go_runtime_type = 0x2904,
  MAX_DEPTH = 16,       /* nesting of struct/array types by value */
  MAX_LEAVES = 64,
};


/* Go's integer argument registers in ABI order (abi-internal.md);
   go_context.stp's _go_arg_word reads the same ones, which gostap checks
   (src/tapset-contract.h, go_abi_int_regs).  */
static const char *const amd64_int[] = {
  "rax", "rbx", "rcx", "rdi", "rsi", "r8", "r9", "r10", "r11" };
static const char *const amd64_fp[] = {
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14" };
static const char *const arm64_int[] = {
  "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
  "x12", "x13", "x14", "x15" };
static const char *const arm64_fp[] = {
  "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",
  "v12", "v13", "v14", "v15" };

/* The state of one assignment.  */
struct assign
{
  const struct go_bin *b;
  unsigned ni, nfp;             /* registers of the architecture */
  unsigned i, fp;               /* next free ones */
};

/* Type facts read from a DWARF type DIE.  The Go kind is taken from the
   outermost DIE that has one: a named type (a typedef such as "error")
   carries its own kind, while the DIE it names may be a plain struct
   (runtime.iface).  *T becomes the peeled type, for its members.  */
static bool
type_info (Dwarf_Die *t, int *kind, uint64_t *size)
{
  Dwarf_Attribute a;
  Dwarf_Word w;
  bool have_kind = false;
  Dwarf_Die cur = *t;
  for (int depth = 0; depth < MAX_DEPTH; depth++)
    {
      if (!have_kind && dwarf_attr (&cur, DW_AT_go_kind, &a) != NULL
          && dwarf_formudata (&a, &w) == 0)
        {
          *kind = (int) w;
          have_kind = true;
        }
      int tag = dwarf_tag (&cur);
      if (tag != DW_TAG_typedef && tag != DW_TAG_const_type
          && tag != DW_TAG_volatile_type)
        break;
      Dwarf_Die next;
      if (dwarf_attr (&cur, DW_AT_type, &a) == NULL
          || dwarf_formref_die (&a, &next) == NULL)
        return false;
      cur = next;
    }
  *t = cur;
  if (!have_kind)
    {
      /* Pointer types carry no kind in older releases.  */
      if (dwarf_tag (t) != DW_TAG_pointer_type)
        return false;
      *kind = K_PTR;
    }
  if (dwarf_attr (t, DW_AT_byte_size, &a) == NULL
      || dwarf_formudata (&a, &w) != 0)
    {
      if (*kind != K_PTR && *kind != K_FUNC && *kind != K_CHAN
          && *kind != K_MAP && *kind != K_UNSAFEPTR)
        return false;
      w = 8;
    }
  *size = w;
  return true;
}

static bool
type_of (Dwarf_Die *die, Dwarf_Die *type)
{
  Dwarf_Attribute a;
  return dwarf_attr_integrate (die, DW_AT_type, &a) != NULL
    && dwarf_formref_die (&a, type) != NULL;
}

/* Alignment of a Go type (abi-internal.md's table; structs and arrays
   take their elements').  0 when unknown.  */
static unsigned
type_align (Dwarf_Die *t, int depth)
{
  int kind;
  uint64_t size;
  if (depth > MAX_DEPTH || !type_info (t, &kind, &size))
    return 0;
  switch (kind)
    {
    case K_BOOL: case K_INT8: case K_UINT8: return 1;
    case K_INT16: case K_UINT16: return 2;
    case K_INT32: case K_UINT32: case K_FLOAT32: case K_COMPLEX64: return 4;
    case K_ARRAY:
      {
        Dwarf_Die e;
        return type_of (t, &e) ? type_align (&e, depth + 1) : 0;
      }
    case K_STRUCT:
      {
        unsigned al = 1;
        Dwarf_Die m;
        if (dwarf_child (t, &m) == 0)
          do
            {
              Dwarf_Die mt;
              if (dwarf_tag (&m) != DW_TAG_member)
                continue;
              if (!type_of (&m, &mt))
                return 0;
              unsigned a = type_align (&mt, depth + 1);
              if (a == 0)
                return 0;
              if (a > al)
                al = a;
            }
          while (dwarf_siblingof (&m, &m) == 0);
        return al;
      }
    default:
      return 8;
    }
}

/* Array length from the subrange child.  */
static bool
array_len (Dwarf_Die *t, uint64_t *n)
{
  Dwarf_Die sub;
  Dwarf_Attribute a;
  Dwarf_Word w;
  if (dwarf_child (t, &sub) != 0)
    return false;
  do
    if (dwarf_tag (&sub) == DW_TAG_subrange_type)
      {
        if (dwarf_attr (&sub, DW_AT_count, &a) != NULL
            && dwarf_formudata (&a, &w) == 0)
          {
            *n = w;
            return true;
          }
        if (dwarf_attr (&sub, DW_AT_upper_bound, &a) != NULL
            && dwarf_formudata (&a, &w) == 0)
          {
            *n = w + 1;
            return true;
          }
        return false;
      }
  while (dwarf_siblingof (&sub, &sub) == 0);
  return false;
}

/* Leaves of a value, in memory order: what register assignment would
   give one register each, and what the tapsets name NAME_SUFFIX.  */
struct walk
{
  struct go_leaf leaves[MAX_LEAVES];
  size_t n;
  bool big_array;       /* an array of length > 1: never in registers */
  bool too_many;        /* more leaves than MAX_LEAVES */
};

static void
add_leaf (struct walk *w, int kind, uint64_t size, uint64_t off,
          const char *suffix)
{
  if (w->n >= MAX_LEAVES || strlen (suffix) >= sizeof w->leaves[0].suffix)
    {
      w->too_many = true;
      return;
    }
  struct go_leaf *l = &w->leaves[w->n++];
  l->kind = kind;
  l->size = (unsigned) size;
  l->offset = (unsigned) off;
  l->fp = kind == K_FLOAT32 || kind == K_FLOAT64;
  l->string_len = false;
  l->complex_imag = false;
  l->iface = 0;
  strcpy (l->suffix, suffix);
}

bool
gobin_dwarf_omits_params (const struct go_bin *b)
{
  return b->go_minor > 0 && b->go_minor <= 21;   /* measured on 1.19, 1.21 */
}

/* Whether interface type T (peeled: runtime.eface or runtime.iface) is
   empty, `any`: its first word is then the type (_type), not an itab
   (tab).  */
static bool
empty_interface (Dwarf_Die *t)
{
  Dwarf_Die m;
  if (dwarf_child (t, &m) != 0)
    return false;
  do
    if (dwarf_tag (&m) == DW_TAG_member)
      {
        const char *name = dwarf_diename (&m);
        return name != NULL && strcmp (name, "_type") == 0;
      }
  while (dwarf_siblingof (&m, &m) == 0);
  return false;
}

/* DWARF register number of register piece P (the ABI's sequences).  */
static int
dwarf_regno (enum go_arch arch, const struct go_piece *p)
{
  static const int amd64_int_dwarf[] = { 0, 3, 2, 5, 4, 8, 9, 10, 11 };
  if (arch != GO_ARCH_AMD64)
    return p->fp ? 64 + p->reg : p->reg;
  if (p->fp)
    return 17 + p->reg;
  return p->reg < 9 ? amd64_int_dwarf[p->reg] : -1;
}

/* Whether PARAM's own DWARF location at the function's ENTRY, where it
   is a register (DW_OP_reg*, first piece), is the register the ABI
   assignment gave V: DWARF before Go 1.22 leaves blank `_` parameters
   out, which shifts every later argument.  True when DWARF says nothing
   there to compare.  */
static bool
dwarf_agrees (const struct go_bin *b, Dwarf_Die *param, uint64_t entry,
              const struct go_value *v)
{
  Dwarf_Attribute a;
  Dwarf_Op *expr;
  size_t len;
  if (v->npieces == 0 || v->pieces[0].reg < 0
      || dwarf_attr (param, DW_AT_location, &a) == NULL
      || dwarf_getlocation_addr (&a, entry, &expr, &len, 1) != 1 || len == 0)
    return true;
  int regno;
  if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
    regno = expr[0].atom - DW_OP_reg0;
  else if (expr[0].atom == DW_OP_regx)
    regno = (int) expr[0].number;
  else
    return true;
  return regno == dwarf_regno (b->arch, &v->pieces[0]);
}

/* Make a field name safe for an identifier suffix: [A-Za-z0-9_] only.  */
static void
join_suffix (char *out, size_t size, const char *base, const char *name)
{
  size_t k = strlen (base);
  if (k + 2 >= size)
    {
      snprintf (out, size, "%s", base);
      return;
    }
  memcpy (out, base, k);
  out[k++] = '_';
  for (const unsigned char *p = (const unsigned char *) name;
       *p != '\0' && k + 1 < size; p++)
    out[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                || (*p >= '0' && *p <= '9')) ? (char) *p : '_';
  out[k] = '\0';
}

/* walk_type and the walks of arrays and structs below call each other.  */
static int walk_type (struct walk *w, Dwarf_Die *t, uint64_t off,
                      const char *suffix, int depth);

/* Walk the elements of array type T (SIZE bytes) at byte OFF of the
   value, each named by its index.  -1 when not understood.  */
static int
walk_array (struct walk *w, Dwarf_Die *t, uint64_t size, uint64_t off,
            const char *suffix, int depth)
{
  char sub[sizeof w->leaves[0].suffix];
  uint64_t n;
  Dwarf_Die e;
  if (!array_len (t, &n) || (n > 0 && !type_of (t, &e)))
    return -1;
  if (n > 1)
    w->big_array = true;
  if (n > MAX_LEAVES)
    {
      w->too_many = true;
      return 0;
    }
  uint64_t esize = n ? size / n : 0;
  for (uint64_t i = 0; i < n; i++)
    {
      char idx[24];
      snprintf (idx, sizeof idx, "%" PRIu64, i);
      join_suffix (sub, sizeof sub, suffix, idx);
      Dwarf_Die et = e;
      if (walk_type (w, &et, off + i * esize, sub, depth + 1) != 0)
        return -1;
    }
  return 0;
}

/* Walk the fields of struct type T at byte OFF of the value, each named
   by its name.  -1 when not understood.  */
static int
walk_struct (struct walk *w, Dwarf_Die *t, uint64_t off, const char *suffix,
             int depth)
{
  char sub[sizeof w->leaves[0].suffix];
  Dwarf_Die m;
  if (dwarf_child (t, &m) != 0)
    return 0;                   /* struct{} */
  do
    {
      Dwarf_Die mt;
      Dwarf_Attribute a;
      Dwarf_Word moff;
      if (dwarf_tag (&m) != DW_TAG_member)
        continue;
      if (!type_of (&m, &mt)
          || dwarf_attr (&m, DW_AT_data_member_location, &a) == NULL
          || dwarf_formudata (&a, &moff) != 0)
        return -1;
      const char *fname = dwarf_diename (&m);
      join_suffix (sub, sizeof sub, suffix, fname ? fname : "_");
      if (walk_type (w, &mt, off + moff, sub, depth + 1) != 0)
        return -1;
    }
  while (dwarf_siblingof (&m, &m) == 0);
  return 0;
}

/* Walk type T at byte OFF of the value.  -1 when not understood.  */
static int
walk_type (struct walk *w, Dwarf_Die *t, uint64_t off, const char *suffix,
           int depth)
{
  int kind;
  uint64_t size;
  char sub[sizeof w->leaves[0].suffix];
  if (depth > MAX_DEPTH || !type_info (t, &kind, &size))
    return -1;
  switch (kind)
    {
    case K_BOOL: case K_INT: case K_INT8: case K_INT16: case K_INT32:
    case K_INT64: case K_UINT: case K_UINT8: case K_UINT16: case K_UINT32:
    case K_UINT64: case K_UINTPTR: case K_CHAN: case K_FUNC: case K_MAP:
    case K_PTR: case K_UNSAFEPTR: case K_FLOAT32: case K_FLOAT64:
      add_leaf (w, kind, size, off, suffix);
      return 0;
    case K_COMPLEX64: case K_COMPLEX128:
      {
        int fk = kind == K_COMPLEX64 ? K_FLOAT32 : K_FLOAT64;
        join_suffix (sub, sizeof sub, suffix, "real");
        add_leaf (w, fk, size / 2, off, sub);
        join_suffix (sub, sizeof sub, suffix, "imag");
        add_leaf (w, fk, size / 2, off + size / 2, sub);
        if (!w->too_many)
          w->leaves[w->n - 1].complex_imag = true;
        return 0;
      }
    case K_STRING:
      join_suffix (sub, sizeof sub, suffix, "ptr");
      add_leaf (w, K_PTR, 8, off, sub);
      join_suffix (sub, sizeof sub, suffix, "len");
      add_leaf (w, K_INT, 8, off + 8, sub);
      if (!w->too_many)
        w->leaves[w->n - 1].string_len = true;
      return 0;
    case K_INTERFACE:
      join_suffix (sub, sizeof sub, suffix, "type");
      add_leaf (w, K_PTR, 8, off, sub);
      if (!w->too_many)
        w->leaves[w->n - 1].iface = empty_interface (t) ? 2 : 1;
      join_suffix (sub, sizeof sub, suffix, "data");
      add_leaf (w, K_PTR, 8, off + 8, sub);
      return 0;
    case K_SLICE:
      join_suffix (sub, sizeof sub, suffix, "ptr");
      add_leaf (w, K_PTR, 8, off, sub);
      join_suffix (sub, sizeof sub, suffix, "len");
      add_leaf (w, K_INT, 8, off + 8, sub);
      join_suffix (sub, sizeof sub, suffix, "cap");
      add_leaf (w, K_INT, 8, off + 16, sub);
      return 0;
    case K_ARRAY:
      return walk_array (w, t, size, off, suffix, depth);
    case K_STRUCT:
      return walk_struct (w, t, off, suffix, depth);
    default:
      return -1;
    }
}

/* Assign one value: registers if it fits, else the stack sequence.
   0, -1 when the type is not understood, -2 out of memory.  */
static int
assign_value (struct assign *s, Dwarf_Die *type, bool regabi,
              uint64_t *stack, struct go_value *v)
{
  Dwarf_Die t = *type, orig = *type;
  int kind;
  uint64_t size;
  struct walk *w = calloc (1, sizeof *w);
  if (w == NULL)
    return -2;
  int ret = -1;
  /* walk_type reads the kind itself, from the unpeeled type.  */
  if (!type_info (&t, &kind, &size) || walk_type (w, &orig, 0, "", 0) != 0)
    goto out;
  v->size = size;
  v->kind = kind;
  unsigned nint = 0, nfp = 0;
  for (size_t k = 0; k < w->n; k++)
    if (w->leaves[k].fp)
      nfp++;
    else
      nint++;
  bool in_regs = regabi && size > 0 && !w->big_array && !w->too_many
    && s->i + nint <= s->ni && s->fp + nfp <= s->nfp;
  v->nleaves = w->too_many ? 0 : w->n;
  v->npieces = in_regs ? w->n : size > 0 ? 1 : 0;
  v->leaves = malloc ((v->nleaves ? v->nleaves : 1) * sizeof *v->leaves);
  v->pieces = malloc ((v->npieces ? v->npieces : 1) * sizeof *v->pieces);
  if (v->leaves == NULL || v->pieces == NULL)
    {
      ret = -2;
      goto out;
    }
  memcpy (v->leaves, w->leaves, v->nleaves * sizeof *v->leaves);
  if (in_regs)
    {
      for (size_t k = 0; k < w->n; k++)
        {
          const struct go_leaf *l = &w->leaves[k];
          unsigned *ctr = l->fp ? &s->fp : &s->i;
          v->pieces[k] = (struct go_piece) { .reg = (int) (*ctr)++,
            .fp = l->fp, .stack = -1, .size = l->size, .offset = l->offset };
        }
      ret = 0;
      goto out;
    }
  unsigned al = type_align (&t, 0);
  if (al == 0)
    goto out;
  *stack = (*stack + al - 1) / al * al;
  if (size > 0)
    v->pieces[0] = (struct go_piece) { .reg = -1, .fp = false,
      .stack = (long) *stack, .size = (unsigned) size, .offset = 0 };
  *stack += size;
  ret = 0;
out:
  free (w);
  return ret;
}

struct go_params_ctx *
go_params_begin (const struct go_bin *b)
{
  return (struct go_params_ctx *) dwarf_index_begin (b);
}

bool
go_params_has_subprogram (struct go_params_ctx *ctx, uint64_t pc)
{
  Dwarf_Die die;
  return dwarf_index_subprogram ((struct dwarf_index *) ctx, pc, &die);
}

bool
go_params_is_line_start (struct go_params_ctx *ctx, uint64_t pc)
{
  return dwarf_index_is_line_start ((struct dwarf_index *) ctx, pc);
}

void
go_params_end (struct go_params_ctx *ctx)
{
  dwarf_index_end ((struct dwarf_index *) ctx);
}

void
go_signature_free (struct go_signature *sig)
{
  for (size_t i = 0; i < sig->n; i++)
    {
      free (sig->v[i].pieces);
      free (sig->v[i].leaves);
    }
  free (sig->v);
  memset (sig, 0, sizeof *sig);
}

unsigned
go_abi_int_regs (enum go_arch arch)
{
  return arch == GO_ARCH_AMD64 ? sizeof amd64_int / sizeof amd64_int[0]
    : sizeof arm64_int / sizeof arm64_int[0];
}

const char *
go_piece_reg (enum go_arch arch, const struct go_piece *p)
{
  if (p->reg < 0)
    return NULL;
  if (arch == GO_ARCH_AMD64)
    return p->fp ? amd64_fp[p->reg] : amd64_int[p->reg];
  return p->fp ? arm64_fp[p->reg] : arm64_int[p->reg];
}

/* Where a shape-instantiated generic function takes its dictionary, which
   DWARF before Go 1.27 does not list: 0 before every parameter (a
   function), 1 after the receiver (a method, "pkg.T[...].M" or
   "pkg.(*T[...]).M"), -1 when this is not known (closures inside generic
   code, "F[...].func1", were not measured).  Measured with Go 1.24 and
   1.27 on amd64 (DWARF location lists, and 1.27's own .dict): functions
   take it in the first integer register, methods in the one after the
   receiver.  */
static int
dict_position (const char *name)
{
  const char *open = strchr (name, '[');
  if (open == NULL)
    return -1;
  /* The matching bracket: shape names nest ("go.shape.[]int").  */
  int depth = 0;
  const char *p = open;
  for (; *p; p++)
    if (*p == '[')
      depth++;
    else if (*p == ']' && --depth == 0)
      break;
  if (*p != ']')
    return -1;
  const char *rest = p + 1;
  if (*rest == '\0')
    return 0;
  if (rest[0] == ')' && rest[1] == '.' && open - name >= 2)
    rest += 2;                  /* pkg.(*T[...]).M */
  else if (rest[0] == '.')
    rest += 1;                  /* pkg.T[...].M, or a closure */
  else
    return -1;
  if (strchr (rest, '.') != NULL
      || (strncmp (rest, "func", 4) == 0 && rest[4] >= '0' && rest[4] <= '9'))
    return -1;
  return 1;
}

/* Assign the dictionary: one pointer, in the next integer register or on
   the stack.  */
static void
assign_dict (struct assign *s, bool regabi, uint64_t *stack)
{
  if (regabi && s->i < s->ni)
    s->i++;
  else
    *stack = (*stack + 7) / 8 * 8 + 8;
}

/* The most parameters (arguments or results) of one function gostap
   reads; a function with more gets an error of its own.  */
#define MAX_PARAMS 256
#define MAX_PARAMS_TEXT "256"

/* Put SUB's arguments (RESULTS false) or results (true) in PS, in DWARF's
   order, except that a ".dict" parameter goes to DICT_AT (0 or 1) when
   that is not negative.  Returns their number, which may exceed
   MAX_PARAMS (PS then holds the first MAX_PARAMS).  *MOVED: the place
   ".dict" had in DWARF's order when it was moved from there, else -1.  */
static size_t
order_params (Dwarf_Die *sub, bool results, int dict_at,
              Dwarf_Die ps[MAX_PARAMS], long *moved)
{
  *moved = -1;
  Dwarf_Die c, dict;
  size_t n = 0;
  bool have_dict = false;
  if (dwarf_child (sub, &c) != 0)
    return 0;
  do
    {
      if (dwarf_tag (&c) != DW_TAG_formal_parameter)
        continue;
      Dwarf_Attribute a;
      bool result = false;
      if (dwarf_attr_integrate (&c, DW_AT_variable_parameter, &a) != NULL)
        dwarf_formflag (&a, &result);
      if (result != results)
        continue;
      const char *name = dwarf_diename (&c);
      if (dict_at >= 0 && !have_dict && name != NULL
          && strcmp (name, ".dict") == 0)
        {
          dict = c;
          have_dict = true;
          *moved = (long) n;
          continue;
        }
      if (n < MAX_PARAMS)
        ps[n] = c;
      n++;
    }
  while (dwarf_siblingof (&c, &c) == 0);
  if (!have_dict)
    return n;
  if (n >= MAX_PARAMS)
    return n + 1;
  size_t at = (size_t) dict_at < n ? (size_t) dict_at : n;
  if ((long) at == *moved)
    *moved = -1;
  memmove (&ps[at + 1], &ps[at], (n - at) * sizeof ps[0]);
  ps[at] = dict;
  return n + 1;
}

/* Does the pointer-receiver method NAME ("pkg.(*T).M", T not generic)
   lack its receiver in SUB's DWARF?  Go before 1.22 leaves an unnamed
   receiver out (measured on 1.19 and 1.21: debug/elf.(*zeroReader).ReadAt,
   its arguments then one register early): the first parameter is then not
   a *pkg.T.  */
static bool
unnamed_receiver (const char *name, Dwarf_Die *sub)
{
  const char *open = strstr (name, ".(*"), *close;
  if (open == NULL || (close = strstr (open, ").")) == NULL
      || memchr (open, '[', (size_t) (close - open)) != NULL
      || strchr (close + 2, '.') != NULL)       /* a closure in a method */
    return false;
  Dwarf_Die c, t;
  Dwarf_Attribute a;
  if (dwarf_child (sub, &c) != 0)
    return true;
  while (dwarf_tag (&c) != DW_TAG_formal_parameter)
    if (dwarf_siblingof (&c, &c) != 0)
      return true;
  const char *tn = dwarf_attr_integrate (&c, DW_AT_type, &a) != NULL
    && dwarf_formref_die (&a, &t) != NULL ? dwarf_diename (&t) : NULL;
  /* "*pkg.T": '*', the package, '.', the type.  */
  size_t plen = (size_t) (open - name), tlen = (size_t) (close - open - 3);
  return tn == NULL || strlen (tn) != 1 + plen + 1 + tlen || tn[0] != '*'
    || strncmp (tn + 1, name, plen) != 0 || tn[1 + plen] != '.'
    || strncmp (tn + 2 + plen, open + 3, tlen) != 0;
}

/* Why F's signature cannot be read from DWARF (its subprogram DIE SUB),
   or NULL: a companion has no types; DWARF before Go 1.22 omits the
   receiver or the arguments of compiler-generated wrappers (method values
   "-fm", pointer-receiver wrappers: measured on 1.19 and 1.21) and an
   unnamed receiver.  */
static const char *
unreadable (const struct go_bin *b, const struct go_func *f, Dwarf_Die *sub)
{
  size_t nl = strlen (f->name);
  const char *file;
  if (!gobin_dwarf_omits_params (b))
    return NULL;
  if ((nl > 3 && strcmp (f->name + nl - 3, "-fm") == 0)
      || ((file = gobin_func_file (b, f)) != NULL
          && strcmp (file, "<autogenerated>") == 0))
    return "a wrapper whose arguments DWARF before Go 1.22 omits";
  if (unnamed_receiver (f->name, sub))
    return "a method whose unnamed receiver DWARF before Go 1.22 omits";
  return NULL;
}

/* Where F's dictionary goes, for shape-instantiated generic code (SUB
   its subprogram): *DICT_AT, the argument before which gostap assigns a
   dictionary DWARF does not list (-1 none), *LISTED_AT, the ABI place of
   one DWARF lists (-1 none).  False when the dictionary cannot be
   placed (a closure in generic code).  */
static bool
dict_plan (const struct go_bin *b, const struct go_func *f, Dwarf_Die *sub,
           bool regabi, int *dict_at, int *listed_at)
{
  /* DWARF before Go 1.27 does not list the dictionary (1.27 lists it as
     ".dict").  Go 1.18-1.20 abbreviate the name in the pclntab
     ("F[...]"); DWARF keeps the shape.  */
  const char *dname = dwarf_diename (sub);
  /* The type algorithms the compiler writes for a shape type
     ("type:.eq.T[go.shape.int]"; "type..eq." before Go 1.20) are not
     generic code and take no dictionary: measured against DWARF.  */
  bool type_alg = strncmp (f->name, "type:", 5) == 0
    || strncmp (f->name, "type..", 6) == 0;
  bool shape = regabi && !type_alg && (strstr (f->name, "go.shape.") != NULL
                          || strstr (f->name, "[...]") != NULL
                          || (dname != NULL
                              && strstr (dname, "go.shape.") != NULL));
  *dict_at = *listed_at = -1;
  if (!shape)
    return true;
  bool listed = false;
  Dwarf_Die c;
  if (dwarf_child (sub, &c) == 0)
    do
      {
        const char *n = dwarf_diename (&c);
        listed |= dwarf_tag (&c) == DW_TAG_formal_parameter
          && n != NULL && strcmp (n, ".dict") == 0;
      }
    while (dwarf_siblingof (&c, &c) == 0);
  int pos = dict_position (dname != NULL ? dname : f->name);
  /* Go 1.27 lists ".dict" but not always where the ABI passes it: after
     the other arguments in cmp.Or[go.shape.interface {...}] and
     encoding/json/v2.len64[go.shape.[]uint8], whose DWARF location lists
     have the arguments from the second register on.  The listed one is
     taken at its ABI place (order_params).  */
  if (listed)
    {
      *listed_at = pos;
      return true;
    }
  *dict_at = pos;
  /* Go 1.18-1.20 pass a method's dictionary before its receiver too
     (measured on 1.19: the receiver of "(*Box[...]).Put" in the second
     register); 1.21 moved it after the receiver.  */
  if (*dict_at == 1 && b->go_minor > 0 && b->go_minor <= 20)
    *dict_at = 0;
  return *dict_at >= 0;
}

bool
go_dwarf_runtime_type (Dwarf_Die *t, uint64_t *rt)
{
  Dwarf_Die cur = *t;
  for (int depth = 0; depth < MAX_DEPTH; depth++)
    {
      Dwarf_Attribute a;
      Dwarf_Addr v;
      if (dwarf_attr (&cur, DW_AT_go_runtime_type, &a) != NULL)
        {
          *rt = dwarf_formaddr (&a, &v) == 0 ? v : 0;
          return *rt != 0;
        }
      if (dwarf_tag (&cur) != DW_TAG_typedef || !type_of (&cur, &cur))
        break;
    }
  *rt = 0;
  return false;
}

/* The parameter C (a result when RESULT, its INDEX among them) appended
   to SIG, its location assigned by S (STACK: the next stack offset).  0,
   -1 with SIG's error set (SIG freed), -2 after one line.  */
static int
add_param (struct go_signature *sig, size_t *cap, struct assign *s,
           Dwarf_Die *c, bool result, int index, bool regabi,
           uint64_t *stack, const struct go_func *f)
{
  if (sig->n == *cap)
    {
      *cap = *cap ? 2 * *cap : 8;
      void *nv = reallocarray (sig->v, *cap, sizeof *sig->v);
      if (nv == NULL)
        {
          error (0, errno, "reallocarray");
          go_signature_free (sig);
          return -2;
        }
      sig->v = nv;
    }
  struct go_value *v = &sig->v[sig->n];
  memset (v, 0, sizeof *v);
  v->result = result;
  v->index = index;
  v->name = dwarf_diename (c);
  Dwarf_Die t;
  const char *why = NULL;
  if (!type_of (c, &t))
    why = "a parameter has no type in DWARF";
  else
    {
      v->type = dwarf_diename (&t);
      v->has_rtype = go_dwarf_runtime_type (&t, &v->rtype);
      sig->n++;
      int r = assign_value (s, &t, regabi, stack, v);
      if (r == -2)
        {
          go_signature_free (sig);
          return -2;
        }
      if (r != 0)
        why = "a parameter type is not understood";
      else if (!result && regabi && gobin_dwarf_omits_params (s->b)
               && !dwarf_agrees (s->b, c, f->entry, v))
        why = "DWARF omits an argument before this one (a blank "
          "_ parameter, which DWARF before Go 1.22 leaves out)";
    }
  if (why == NULL)
    return 0;
  go_signature_free (sig);
  sig->error = why;
  return -1;
}

/* SIG's values from FROM on: the listed .dict, which order_params took
   at its ABI place, put back where DWARF has it (MOVED).  */
static void
dict_back (struct go_signature *sig, size_t from, size_t moved)
{
  struct go_value d = sig->v[from];
  if (moved > from)
    memmove (&sig->v[from], &sig->v[from + 1], (moved - from) * sizeof d);
  else
    memmove (&sig->v[moved + 1], &sig->v[moved], (from - moved) * sizeof d);
  sig->v[moved] = d;
}

int
go_signature (struct go_params_ctx *ctx, const struct go_bin *b,
              const struct go_func *f, struct go_signature *sig)
{
  memset (sig, 0, sizeof *sig);
  Dwarf_Die sub;
  if (gobin_dwarf_companion (b))
    sig->error = "no types (the DWARF is a gostap companion debug file "
      "made from the pclntab)";
  else if (!dwarf_index_subprogram ((struct dwarf_index *) ctx, f->entry, &sub))
    sig->error = "no DWARF for this function";
  else
    sig->error = unreadable (b, f, &sub);
  if (sig->error != NULL)
    return -1;
  struct assign s = { .b = b };
  s.ni = go_abi_int_regs (b->arch);
  s.nfp = b->arch == GO_ARCH_AMD64 ? 15 : 16;
  bool regabi = f->abi == GO_ABI_INTERNAL;
  uint64_t stack = 0;
  size_t cap = 0;
  int dict_at, listed_at;
  if (!dict_plan (b, f, &sub, regabi, &dict_at, &listed_at))
    {
      sig->error = "a closure in generic code: its dictionary is not in DWARF";
      return -1;
    }
  /* Two passes: arguments, then results with the counters reset.  */
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        {
          stack = (stack + 7) / 8 * 8;
          s.i = s.fp = 0;
        }
      if (pass == 0 && dict_at == 0)
        assign_dict (&s, regabi, &stack);
      Dwarf_Die ps[MAX_PARAMS];
      long moved;
      size_t np = order_params (&sub, pass == 1, pass == 0 ? listed_at : -1,
                                ps, &moved);
      if (np > MAX_PARAMS)
        {
          go_signature_free (sig);
          sig->error = "more parameters than gostap reads ("
            MAX_PARAMS_TEXT ")";
          return -1;
        }
      for (size_t k = 0; k < np; k++)
        {
          int r = add_param (sig, &cap, &s, &ps[k], pass == 1,
                             pass == 1 ? (int) k : 0, regabi, &stack, f);
          if (r != 0)
            return r;
          if (pass == 0 && k == 0 && dict_at == 1)
            assign_dict (&s, regabi, &stack);
        }
      /* The values in DWARF's order again: .dict back where it was.  */
      if (moved >= 0)
        dict_back (sig, (size_t) listed_at < np - 1 ? (size_t) listed_at
                   : np - 1, (size_t) moved);
    }
  return 0;
}
