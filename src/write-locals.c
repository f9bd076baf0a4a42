/* write-locals.c: the statements of an alias body that set its locals
   from a function's arguments (at the body address) or results (at RET),
   from the locations read-params.c computed:

     NAME            integers sign- or zero-extended by size, bool as 0/1,
                     pointers, maps, chans, funcs as addresses
     NAME            strings as SystemTap strings, with NAME_ptr, NAME_len
     NAME_ptr/_len/_cap   slices;  NAME_type/_data  interfaces, and
                     NAME_type_name, the dynamic type's name (go_types.stp)
     NAME_fmt        for a script that reads one: the value as fmt's %+v
                     prints it (go_fmt.stp), an interface's from its
                     dynamic type, any other's from the runtime type
                     descriptor DWARF names for its type, at its stack
                     slot or at go_fmt's scratch buffer, where the locals
                     read from its registers are put first
     NAME_FIELD      structs flattened (NAME_FIELD_SUB ...), arrays NAME_0..
     NAME_bits, NAME float32/float64: the IEEE bits (float32 in the low 32),
                     and Go's shortest string for them (go_float.stp), from
                     a float register (go_fpregs.stp: register() reads
                     none, facts.md 7) or from memory; complex numbers as
                     NAME_real..., NAME_imag... and NAME, Go's "(1+2i)".
   Local names come
   from DWARF names only through local_base(): [A-Za-z0-9_], never a
   SystemTap keyword, a public global of SystemTap's tapsets, or one of the
   alias's own locals: those get a trailing '_'.  */

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gobin.h"
#include "write.h"

static const char *const reserved[] = {
  /* SystemTap keywords */
  "probe", "global", "function", "if", "else", "for", "foreach", "in",
  "limit", "return", "delete", "while", "break", "continue", "next",
  "string", "long", "try", "catch", "private", "stat", "in", "and", "or",
  /* the aliases' own locals */
  "goid", "go_entry_ns", "go_latency_ns", "funcname", "filename", "lineno",
};

/* Public globals of SystemTap's own tapsets (4.8 - 5.x): a local of that
   name would be the global; and argv_1 ... argv_32.  */
static const char *const stap_globals[] = {
  "argc", "argv", "NULL", "tls_debug", "tls_link_map_name", "tls_module",
  "cve_enabled_p", "cve_fix_p", "cve_metrics", "cve_notify_p",
  "cve_tmpdisabled_s", "cve_trace_p", "indelack_timer",
  "syscall_string_trunc", "ActiveOpens", "AttemptFails", "BIO_READ",
  "BIO_WRITE", "CurrEstab", "DelayedACKs", "EstabResets", "FAULT_FLAG_WRITE",
  "ForwDatagrams", "FragFails", "FragOKs", "InAddrErrors", "InDiscards",
  "InNoRoutes", "InReceives", "InSegs", "InUnknownProtos", "ListenDrops",
  "ListenOverflows", "OutRequests", "OutRsts", "OutSegs", "PassiveOpens",
  "Py3Object_GenericGetAttr_addr", "ReasmReqds", "ReasmTimeout",
  "RetransSegs", "TCPMemoryPressures", "VM_FAULT_ERROR", "VM_FAULT_LOCKED",
  "VM_FAULT_MAJOR", "VM_FAULT_MINOR", "VM_FAULT_NOPAGE", "VM_FAULT_OOM",
  "VM_FAULT_SIGBUS",
};

/* A local name base for value V: its Go name made safe, or FALLBACK.  */
static void
local_base (char *out, size_t size, const char *goname, const char *fallback)
{
  bool ok = goname != NULL && goname[0] != '\0' && strlen (goname) < size - 2
    && strcmp (goname, "_") != 0
    && !(goname[0] >= '0' && goname[0] <= '9');
  for (const char *p = goname; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
      || (*p >= '0' && *p <= '9') || *p == '_';
  if (!ok || strncmp (goname, "_go", 3) == 0)
    {
      snprintf (out, size, "%s", fallback);
      return;
    }
  snprintf (out, size, "%s", goname);
  bool taken = write_stap_global (out);
  for (size_t i = 0; !taken && i < sizeof reserved / sizeof reserved[0]; i++)
    taken = strcmp (out, reserved[i]) == 0;
  if (taken)
    strcat (out, "_");
}

bool
write_stap_global (const char *name)
{
  if (strncmp (name, "argv_", 5) == 0)
    return true;
  for (size_t i = 0; i < sizeof stap_globals / sizeof stap_globals[0]; i++)
    if (strcmp (name, stap_globals[i]) == 0)
      return true;
  return false;
}

static bool
is_signed (int kind)
{
  return kind >= K_INT && kind <= K_INT64;
}

/* A read of LEAF from register REG or from memory at ADDR (an expression). */
static void
leaf_expr (FILE *f, const struct go_leaf *l, const char *reg,
           const char *addr)
{
  if (reg != NULL)
    {
      /* _go_reg_NAME() (go_context.stp) is register("NAME") without the
         lookup of the name; sub-word values are masked, and sign-extended
         by flipping and subtracting the sign bit, here rather than
         through another function call at every hit.  */
      uint64_t mask = l->size < 8 ? (UINT64_C (1) << (l->size * 8)) - 1 : 0;
      uint64_t sign = (mask >> 1) + 1;
      if (l->kind == K_BOOL)
        fprintf (f, "(_go_reg_%s() & 0xff) != 0", reg);
      else if (l->size >= 8)
        fprintf (f, "_go_reg_%s()", reg);
      else if (is_signed (l->kind))
        fprintf (f, "((_go_reg_%s() & %#" PRIx64 ") ^ %#" PRIx64 ") - %#"
                 PRIx64, reg, mask, sign, sign);
      else
        fprintf (f, "_go_reg_%s() & %#" PRIx64, reg, mask);
      return;
    }
  unsigned bits = l->size * 8;
  if (l->kind == K_BOOL)
    fprintf (f, "user_uint8(%s + %u) != 0", addr, l->offset);
  else
    fprintf (f, "user_%sint%u(%s + %u)",
             is_signed (l->kind) || bits == 64 ? "" : "u", bits, addr,
             l->offset);
}

/* NAME_bits and NAME of float leaf L, from float register FREG (its index
   in Go's sequence) or, when FREG < 0, from memory at ADDR; after the
   imaginary part of a complex, the complex itself.  */
static void
float_leaf (FILE *f, const char *base, const struct go_leaf *l, int freg,
            const char *addr)
{
  bool f32 = l->kind == K_FLOAT32;
  fprintf (f, "  %s%s_bits = ", base, l->suffix);
  if (freg >= 0)
    fprintf (f, "_go_freg_bits(%d)%s", freg, f32 ? " & 0xffffffff" : "");
  else
    fprintf (f, "user_%s(%s + %u)", f32 ? "uint32" : "int64", addr,
             l->offset);
  fprintf (f, "\n  %s%s = go_float%d_str(%s%s_bits)\n", base, l->suffix,
           f32 ? 32 : 64, base, l->suffix);
  if (l->complex_imag)
    {
      /* NAME = go_complexN_str(NAME_real_bits, NAME_imag_bits): the
         suffix minus "_imag".  */
      int sl = (int) strlen (l->suffix) - 5;
      fprintf (f, "  %s%.*s = go_complex%d_str(%s%.*s_real_bits, %s%s_bits)"
               "\n", base, sl, l->suffix, f32 ? 64 : 128, base, sl,
               l->suffix, base, l->suffix);
    }
}

/* Set by cmd-run.c and cmd-gen.c (--script) before they write the
   tapsets, from the script (run_script.fmt_names): the NAME_fmt locals it
   reads, "\nv_fmt\nr0_fmt\n", or NULL.  stap keeps a go_fmt call whose
   result nothing reads (tapsets/go_fmt.stp), so aliases set only those,
   and only for such a script.  */
const char *write_fmt_names;

/* Does the script read BASE SUFFIX_fmt (write_fmt_names)?  */
static bool
fmt_wanted (const char *base, const char *suffix)
{
  char word[160];
  if (write_fmt_names == NULL)
    return false;
  snprintf (word, sizeof word, "\n%s%s_fmt\n", base, suffix);
  return strstr (write_fmt_names, word) != NULL;
}

/* The largest value in registers the scratch buffer of go_fmt.stp takes
   (_GO_FMT_SCRATCH_SIZE).  */
enum { FMT_SCRATCH_SIZE = 512 };

/* NAME_fmt of value V (not an interface: fmt_local) under BASE: go_fmt()
   of the runtime type descriptor DWARF names for its type, at ADDR (a
   stack slot) or, for a value in registers, at the scratch buffer its
   leaves' locals are put in first.  Without a descriptor, an unsafe
   pointer (Go 1.19's DWARF names none for it) still prints as its
   address.  Whether it wrote NAME_fmt.  */
static bool
fmt_typed (FILE *f, const char *base, const struct go_value *v,
           bool in_regs, const char *addr)
{
  if (!v->has_rtype && v->nleaves == 1 && (v->kind == K_UNSAFEPTR
                                            || (v->type != NULL
                                                && strcmp (v->type, "unsafe.Pointer") == 0)))
    {
      fprintf (f, "  %s_fmt = _go_fmt_addr(%s)\n", base, base);
      return true;
    }
  if (!v->has_rtype || (in_regs && v->size > FMT_SCRATCH_SIZE))
    {
      fprintf (f, "  // %s_fmt: %s\n", base, v->has_rtype
               ? "too large for go_fmt's scratch buffer"
               : "DWARF names no runtime type descriptor for its type");
      return false;
    }
  if (in_regs)
    for (size_t k = 0; k < v->nleaves; k++)
      {
        const struct go_leaf *l = &v->leaves[k];
        fprintf (f, "  _go_fmt_save(%u, %u, %s%s%s)\n", l->offset, l->size,
                 base, l->suffix, l->fp ? "_bits" : "");
      }
  fprintf (f, "  %s_fmt = _go_fmt_typed(%#" PRIx64 ", %s)\n", base,
           v->rtype, in_regs || v->npieces == 0 ? "_go_fmt_scratch()" : addr);
  return true;
}

/* NAME_fmt of value V (not an interface) under its names BASES (a
   result's r0 and its Go name): written once, under BASES[0], when the
   script reads either, the other a copy of it.  */
static void
fmt_value (FILE *f, const char *const bases[2], const struct go_value *v,
           bool in_regs, const char *addr)
{
  if (!fmt_wanted (bases[0], "")
      && (bases[1] == NULL || !fmt_wanted (bases[1], "")))
    return;
  if (fmt_typed (f, bases[0], v, in_regs, addr) && bases[1] != NULL)
    fprintf (f, "  %s_fmt = %s_fmt\n", bases[1], bases[0]);
}

/* NAME_fmt after an interface's two words (its leaves T, then D, of
   BASE): go_fmt_any() of its dynamic value, the type from the itab of an
   interface with methods.  */
static void
fmt_local (FILE *f, const char *base, const struct go_leaf *t,
           const struct go_leaf *d)
{
  size_t sl = strlen (d->suffix);
  char sub[sizeof d->suffix];
  if (sl < 5 || strcmp (d->suffix + sl - 5, "_data") != 0)
    return;
  snprintf (sub, sizeof sub, "%.*s", (int) (sl - 5), d->suffix);
  if (!fmt_wanted (base, sub))
    return;
  bool itab = t->iface == 1;
  fprintf (f, "  %s%.*s_fmt = go_fmt_any(%s%s%s%s, %s%s)\n", base,
           (int) (sl - 5), d->suffix, itab ? "go_itab_type(" : "", base,
           t->suffix, itab ? ")" : "", base, d->suffix);
}

/* The names a value's locals take: an argument its Go name (or argI),
   a result rI and also its Go name when it has one.  */
struct value_names
{
  char fallback[32], base[64], named[64];
  const char *bases[2];
};

static void
name_value (struct value_names *nm, const struct go_value *v, size_t i,
            bool results)
{
  nm->bases[0] = nm->bases[1] = NULL;
  if (results)
    snprintf (nm->fallback, sizeof nm->fallback, "r%d", v->index);
  else
    snprintf (nm->fallback, sizeof nm->fallback, "arg%zu", i);
  if (results)
    {
      nm->bases[0] = nm->fallback;
      if (v->name != NULL && v->name[0] != '~')
        {
          local_base (nm->named, sizeof nm->named, v->name, "");
          if (nm->named[0] != '\0' && strcmp (nm->named, nm->fallback) != 0)
            nm->bases[1] = nm->named;
        }
    }
  else
    {
      local_base (nm->base, sizeof nm->base, v->name, nm->fallback);
      nm->bases[0] = nm->base;
    }
}

/* The locals of V's leaf K under BASE: the leaf itself, an interface's
   dynamic type name, the _fmt of the interface before it, a string from
   its _ptr and _len.  */
static void
write_leaf (FILE *f, enum go_arch arch, const char *base,
            const struct go_value *v, size_t k, bool in_regs,
            const char *addr)
{
  const struct go_leaf *l = &v->leaves[k];
  const char *reg = in_regs ? go_piece_reg (arch, &v->pieces[k]) : NULL;
  if (l->fp)
    {
      float_leaf (f, base, l, in_regs ? v->pieces[k].reg : -1, addr);
      return;
    }
  fprintf (f, "  %s%s = ", base, l->suffix);
  leaf_expr (f, l, reg, addr);
  fputs ("\n", f);
  if (l->iface != 0)
    {
      /* NAME_type_name: the dynamic type's name (go_types.stp); an itab
         holds the type at 8.  */
      bool itab = l->iface == 1;
      fprintf (f, "  %s%s_name = go_type_name(%s%s%s%s)\n", base, l->suffix,
               itab ? "go_itab_type(" : "", base, l->suffix, itab ? ")" : "");
    }
  if (k > 0 && v->leaves[k - 1].iface != 0)
    fmt_local (f, base, &v->leaves[k - 1], l);
  if (l->string_len && k > 0)
    {
      /* NAME = go_string(NAME_ptr, NAME_len): the suffix minus "_len".  */
      size_t sl = strlen (l->suffix) - 4;
      fprintf (f, "  %s%.*s = go_string(%s%.*s_ptr, %s%s)\n", base, (int) sl,
               l->suffix, base, (int) sl, l->suffix, base, l->suffix);
    }
}

void
write_locals (FILE *f, enum go_arch arch, const struct go_signature *sig,
              bool results, const char *sp)
{
  for (size_t i = 0; i < sig->n; i++)
    {
      const struct go_value *v = &sig->v[i];
      if (v->result != results)
        continue;
      struct value_names nm;
      name_value (&nm, v, i, results);
      bool in_regs = v->npieces > 0 && v->pieces[0].reg >= 0;
      char addr[96] = "0";
      if (!in_regs && v->npieces > 0)
        snprintf (addr, sizeof addr, "%s + 8 + %ld", sp, v->pieces[0].stack);
      bool typed = v->kind != K_INTERFACE;
      if (v->npieces > 0 && v->nleaves == 0)
        {
          fprintf (f, "  // %s: too many parts to name\n", nm.bases[0]);
          if (typed)
            fmt_value (f, nm.bases, v, in_regs, addr);
          continue;
        }
      for (int bi = 0; bi < 2 && nm.bases[bi] != NULL; bi++)
        for (size_t k = 0; k < v->nleaves; k++)
          write_leaf (f, arch, nm.bases[bi], v, k, in_regs, addr);
      if (typed)
        fmt_value (f, nm.bases, v, in_regs, addr);
    }
}
