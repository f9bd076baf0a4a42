/* write-funcs.c: the probe aliases of one binary's functions.

   go_funcs.stp holds, for each function:
     go.func.NAME         a statement probe at the first instruction after
                          the stack check (fires once per call even when the
                          stack grows: facts.md 6), with the arguments;
     go.func.NAME.return  statement probes at every RET instruction (never a
                          uretprobe: facts.md 5), with the results and the
                          call's go_entry_ns / go_latency_ns.
   go_pair_ENTRY.stp, one per function with a return alias, holds the probe
   that records each call's entry for that pairing.  SystemTap reads a
   tapset file only when a script uses something it defines: the return
   alias names the file's marker function in a branch that never runs
   (`if (0)`, which stap drops once the file is read), so the entry probe
   runs only for the functions whose return alias a script uses.
   For a script known to use both aliases of a function (`gostap run`,
   `gostap gen --script`), the entry alias records the entry itself and
   the return alias names no marker: one probe handler at the entry
   address instead of two (each its own uprobe consumer, context and
   locking in SystemTap's runtime: bench/README.md, T4).

   Pairing key: (goroutine id, stack.hi - entry SP).  Go copies a growing
   stack to a new place but keeps its layout relative to the top, so this
   distance names the same frame before and after a copy, and recursive
   calls differ in it; goroutine ids are never reused.  It is the same at
   entry and at a RET, where the frame is popped.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "model.h"
#include "gobin.h"
#include "probe-name.h"
#include "stp-write.h"
#include "tapset-contract.h"
#include "write.h"

/* The runtime functions that tapsets/go_runtime.stp builds its aliases on
   (taken from it: tapset-contract.h): gen and run always generate them.  */
const char *const *const write_runtime_events = tapset_runtime_functions;
const size_t write_nruntime_events = sizeof tapset_runtime_functions
  / sizeof tapset_runtime_functions[0];

bool
write_is_runtime_event (const char *name)
{
  for (size_t i = 0; i < write_nruntime_events; i++)
    if (strcmp (name, write_runtime_events[i]) == 0)
      return true;
  return false;
}

int
write_check_probeable (const struct go_bin *b)
{
  bool ctrl = false;
  for (const unsigned char *p = (const unsigned char *) b->probe_path; *p;
       p++)
    ctrl |= *p < 0x20 || *p == 0x7f;
  if (ctrl)
    {
      /* Measured with stap 4.8 (-p2): process("...") finds no file whose
         path has a newline, written as \012 or as \n.  */
      char *shown = NULL;
      size_t n = 0;
      FILE *m = open_memstream (&shown, &n);
      if (m != NULL)
        {
          out_text_string (m, b->probe_path);
          fclose (m);
        }
      error (0, 0, "%s: the path contains a control character, which "
             "SystemTap cannot find in process(\"...\"); rename or link the "
             "binary", shown != NULL ? shown : "the binary");
      free (shown);
      return EXIT_BADINPUT;
    }
  if (strpbrk (b->probe_path, "*?[") != NULL)
    {
      error (0, 0, "%s: the path contains a glob character, which "
             "process(\"...\") would expand", b->probe_path);
      return EXIT_BADINPUT;
    }
  if (!gobin_has_debuginfo (b) && !gobin_has_symbols (b))
    {
      error (0, 0, "%s: no DWARF and no .symtab, in the binary or a "
             "separate debug file (built with -ldflags='-s -w'?): "
             "SystemTap can place no probe in it without the debug file "
             "`gostap companion %s -o DIR` writes", b->path, b->path);
      return EXIT_BADINPUT;
    }
  return EXIT_OK;
}

/* process("PATH").statement(0xADDR)  */
static void
statement (FILE *f, const char *binary, uint64_t addr)
{
  fputs ("process(", f);
  stp_string (f, binary);
  fprintf (f, ").statement(%#" PRIx64 ")", addr);
}

/* LABEL (which includes the comment's "//") then TEXT made safe.  */
static void
comment_line (FILE *f, const char *label, const char *text)
{
  fputs (label, f);
  stp_comment_text (f, text);
  putc ('\n', f);
}

/* funcname, filename, lineno: the locals SystemTap's python.function.entry
   gives, so that scripts key on the Go name rather than on pn().  Unused,
   they cost nothing: stap drops assignments to locals no one reads.  */
static void
source_locals (FILE *f, const struct go_func_model *fm)
{
  fputs ("  funcname = ", f);
  stp_string (f, fm->name);
  fputs ("\n  filename = ", f);
  stp_string (f, fm->file != NULL ? fm->file : "");
  fprintf (f, "\n  lineno = %" PRId32 "\n",
           fm->file != NULL && fm->line > 0 ? fm->line : 0);
}

/* The goroutine id and stack top, read from the g (go_context.stp's
   _go_g_int64) with their offsets written in: one function call each at
   every hit instead of the four of go_goid().  */
static void
goid_line (FILE *f, const struct go_layout *l)
{
  fprintf (f, "  goid = _go_g_int64(%ld)\n", l->g_goid);
}

/* The record of one call's entry for its return alias, keyed by (process,
   goroutine id, stack.hi - entry SP), given the expressions of goid and
   entry SP: goroutine ids are per process, and a probe by path fires in
   every process of the binary.  It names go_pair_end.stp's marker, whose
   probe drops a process's entries when it ends.  */
static void
pair_store (FILE *f, const struct go_layout *l, const char *goid,
            const char *sp)
{
  fprintf (f, "  if (0) _go_pair_end()\n"
           "  _go_pair_entry[pid(), %s, _go_g_int64(%ld) - %s] = "
           "gettimeofday_ns()\n", goid, l->g_stack_hi, sp);
}

/* go_pair_end.stp: when a process of the binary ends (exit, a kill, an
   exec), the entries of its calls that never returned go, rather than
   wait in _go_pair_entry until it wraps.  */
static int
write_pair_end (const char *binary, const char *dir)
{
  struct stp_file sf;
  if (stp_file_open (&sf, dir, "go_pair_end.stp") != 0)
    return -1;
  FILE *f = sf.f;
  fputs ("// generated by " PACKAGE_NAME " " PACKAGE_VERSION "; do not edit."
         "\n// Drops the pairing entries of a process of the binary that "
         "ended.\nfunction _go_pair_end:long () { return 0 }\nprobe "
         "process(", f);
  stp_string (f, binary);
  fputs (").end\n{\n  delete _go_pair_entry[pid(), *, *]\n}\n", f);
  return stp_file_close (&sf, 1);
}

/* Why the entry alias (RESULTS: the return alias) of FM sets no locals
   from the arguments (results), or NULL when it does.  */
static const char *
no_values (const struct go_func_model *fm, bool results)
{
  if (!fm->have_sig)
    return fm->sig.error ? fm->sig.error : "";
  if (!results)
    return fm->body.sp_known ? NULL : "no SP offset known at the body";
  /* Stack results are read at SP + 8 + offset; pcsp is 0 at a RET.  */
  for (size_t i = 0; i < fm->nrets; i++)
    if (!fm->rets[i].sp_known || fm->rets[i].sp_delta != 0)
      return "the frame is not popped at every RET";
  return NULL;
}

/* The body of the entry alias; with PAIRED, it also records the entry for
   the return alias (write_funcs).  */
static void
entry_body (FILE *f, const struct go_func_model *fm,
            const struct go_layout *l, bool paired)
{
  fputs ("{\n", f);
  source_locals (f, fm);
  fputs ("  inlined = 0\n  inlined_in = \"\"\n", f);
  if (fm->abi == GO_ABI_INTERNAL)
    goid_line (f, l);
  else
    fputs ("  // ABI0 code keeps no g in a register: no goid here\n", f);
  if (fm->body.sp_known || paired)
    fprintf (f, "  _go_sp = _go_user_sp() + %" PRId32 "\n",
             fm->body.sp_delta);
  if (paired)
    pair_store (f, l, "goid", "_go_sp");
  const char *why = no_values (fm, false);
  if (why != NULL)
    comment_line (f, "  // no arguments: ", why);
  else
    write_locals (f, fm->arch, &fm->sig, false, "_go_sp");
  fputs ("}\n", f);
}

/* The body of the return alias; unless PAIRED (the entry alias records
   the entry), it names go_pair_ENTRY.stp's marker.  */
static void
return_body (FILE *f, const struct go_func_model *fm,
             const struct go_layout *l, bool paired)
{
  fputs ("{\n", f);
  source_locals (f, fm);
  fputs ("  _go_sp = _go_user_sp()\n", f);
  if (fm->abi == GO_ABI_INTERNAL)
    {
      /* The pairing's lookup written out, not called: every call of a
         SystemTap function costs a context frame, and this runs at every
         RET (bench/README.md, T4).  A missing key reads as 0.  */
      goid_line (f, l);
      fprintf (f, "  _go_depth = _go_g_int64(%ld) - _go_sp\n",
               l->g_stack_hi);
      if (!paired)
        fprintf (f, "  if (0) _go_pair_%" PRIx64 "()\n", fm->entry);
      fputs ("  go_entry_ns = _go_pair_entry[pid(), goid, _go_depth]\n"
             "  delete _go_pair_entry[pid(), goid, _go_depth]\n"
             "  go_latency_ns = go_entry_ns ? gettimeofday_ns() - go_entry_ns"
             " : -1\n", f);
    }
  else
    fputs ("  // ABI0 code keeps no g in a register: no goid, no pairing\n",
           f);
  const char *why = no_values (fm, true);
  if (why != NULL)
    comment_line (f, "  // no results: ", why);
  else
    write_locals (f, fm->arch, &fm->sig, true, "_go_sp");
  fputs ("}\n", f);
}

/* Names stap's function("...") takes literally: no glob or
   file/line syntax (facts.md 4), printable ASCII.  */
static bool
literal_function_name (const char *name)
{
  for (const unsigned char *p = (const unsigned char *) name; *p; p++)
    if (*p < 0x21 || *p > 0x7e || strchr ("*?[]@:\\\"", *p) != NULL)
      return false;
  return name[0] != '\0';
}

/* The symbol the entry alias of a function DWARF does not describe is
   placed at (ABI0 functions are NAME.abi0 in .symtab), or NULL when it
   has no alias: what write_by_name says then.  */
static const char *
by_name_symbol (const struct go_func_model *fm, const char **why)
{
  const char *sym = fm->symbol != NULL ? fm->symbol : fm->name;
  if (!fm->symbols)
    {
      *why = "// no DWARF and no .symtab describe it: no alias\n";
      return NULL;
    }
  if (!literal_function_name (sym))
    {
      *why = "// no DWARF describes it and its name is not a literal "
        "function(\"...\") pattern: no alias\n";
      return NULL;
    }
  return sym;
}

/* The body of the entry alias of a function DWARF does not describe.  */
static void
by_name_body (FILE *f, const struct go_func_model *fm,
              const struct go_layout *l)
{
  fputs ("{\n", f);
  source_locals (f, fm);
  fputs ("  inlined = 0\n  inlined_in = \"\"\n", f);
  if (fm->abi == GO_ABI_INTERNAL)
    goid_line (f, l);
  fputs ("}\n", f);
}

/* A function DWARF does not describe: SystemTap resolves no statement
   probe in it (facts.md 2, 3); the entry alias falls back to the symbol. */
static void
write_by_name (FILE *f, const struct go_func_model *fm,
               const struct go_layout *l)
{
  const char *why;
  const char *sym = by_name_symbol (fm, &why);
  if (sym == NULL)
    {
      fputs (why, f);
      return;
    }
  fputs ("// no DWARF describes it: the entry alias is function(\"NAME\"), "
         "at the first\n// instruction (it fires again when the stack "
         "grows); no return alias\n", f);
  fprintf (f, "probe go.func.%s = process(", fm->alias);
  stp_string (f, fm->binary);
  fputs (").function(", f);
  stp_string (f, sym);
  fputs (")\n", f);
  by_name_body (f, fm, l);
  fprintf (f, "probe go.func.%s.outofline = go.func.%s { }\n", fm->alias,
           fm->alias);
}

/* The body of the alias of the inlined copies of NAME in function IN:
   no argument locals (an inlined copy has no ABI of its own: its
   arguments are wherever the caller's code keeps them; stap's $NAME reads
   them where Go's DWARF locates them).  FM: the out-of-line function of
   that name, whose file and line are NAME's, or NULL (then from the
   copy).  */
static void
inline_body (FILE *f, const char *name, const struct go_func_model *fm,
             const struct go_inline_copy *c, const struct go_layout *l)
{
  fputs ("{\n  funcname = ", f);
  stp_string (f, name);
  const char *file = fm != NULL ? fm->file : c->file;
  int32_t line = fm != NULL ? fm->line : c->start_line;
  fputs ("\n  filename = ", f);
  stp_string (f, file != NULL ? file : "");
  fprintf (f, "\n  lineno = %" PRId32 "\n",
           file != NULL && line > 0 ? line : 0);
  fputs ("  inlined = 1\n  inlined_in = ", f);
  stp_string (f, c->in->name);
  putc ('\n', f);
  if (c->in->abi == GO_ABI_INTERNAL)
    goid_line (f, l);
  fputs ("}\n", f);
}

/* The aliases of the N inlined copies V of the function NAME (sorted by
   the function they sit in, then pc): go.func.ALIAS.inlined, one
   definition a function they sit in (each sets its own inlined_in; stap
   merges the definitions of one name), and go.func.ALIAS, which names
   it.  Copies in a function DWARF does not describe get none (SystemTap
   resolves no statement probe there: facts.md 2, 3).  False when no
   alias was written.  */
static bool
write_inlined (FILE *f, struct go_model *m, const char *name,
               const char *alias, const struct go_func_model *fm,
               const struct go_inline_copy *v, size_t n,
               const struct go_layout *l)
{
  bool any = false;
  for (size_t i = 0; i < n;)
    {
      size_t k = i;
      while (k < n && v[k].in == v[i].in)
        k++;
      if (!go_model_described (m, v[i].in))
        {
          comment_line (f, "// no DWARF describes the function of these "
                        "inlined copies: ", v[i].in->name);
          i = k;
          continue;
        }
      comment_line (f, "// inlined into ", v[i].in->name);
      fprintf (f, "probe go.func.%s.inlined =", alias);
      for (size_t j = i; j < k; j++)
        {
          if (j > i && v[j].pc == v[j - 1].pc)
            continue;           /* a probe for each address, once */
          fputs (j > i ? ",\n  " : "\n  ", f);
          statement (f, go_model_binary (m), v[j].pc);
        }
      putc ('\n', f);
      inline_body (f, name, fm, &v[i], l);
      any = true;
      i = k;
    }
  if (any)
    fprintf (f, "probe go.func.%s = go.func.%s.inlined { }\n", alias, alias);
  return any;
}

static void
write_one (FILE *f, const struct go_func_model *fm,
           const struct go_layout *l, bool paired,
           const struct go_inline_copy *copies, size_t ncopies,
           struct go_model *m)
{
  comment_line (f, "\n// ", fm->name);
  if (fm->file != NULL)
    {
      fprintf (f, "//   line %" PRId32 " of ", fm->line);
      stp_comment_text (f, fm->file);
      putc ('\n', f);
    }
  fprintf (f, "//   entry %#" PRIx64 ", body %#" PRIx64 ", %s\n", fm->entry,
           fm->body.addr, fm->abi == GO_ABI_ABI0 ? "ABI0" : "ABIInternal");
  if (!fm->described)
    {
      write_by_name (f, fm, l);
      return;
    }
  /* With inlined copies the body is the out-of-line alias's, and
     go.func.ALIAS names it and the inlined copies' alias; without, it is
     go.func.ALIAS's, which the out-of-line alias names.  */
  if (ncopies > 0)
    fprintf (f, "probe go.func.%s.outofline = ", fm->alias);
  else
    fprintf (f, "probe go.func.%s = ", fm->alias);
  statement (f, fm->binary, fm->body.addr);
  putc ('\n', f);
  entry_body (f, fm, l, paired);
  if (ncopies > 0)
    {
      fprintf (f, "probe go.func.%s = go.func.%s.outofline { }\n",
               fm->alias, fm->alias);
      write_inlined (f, m, fm->name, fm->alias, fm, copies, ncopies, l);
    }
  else
    fprintf (f, "probe go.func.%s.outofline = go.func.%s { }\n",
             fm->alias, fm->alias);
  if (fm->nrets == 0)
    fprintf (f, "// no RET instruction (%zu tail exits): no return alias\n",
             fm->tails->n);
  else
    {
      fprintf (f, "probe go.func.%s.return =", fm->alias);
      for (size_t i = 0; i < fm->nrets; i++)
        {
          fputs (i ? ",\n  " : "\n  ", f);
          statement (f, fm->binary, fm->rets[i].addr);
        }
      putc ('\n', f);
      return_body (f, fm, l, paired);
    }
}

bool
write_alias_body (FILE *f, const struct go_func_model *fm, bool ret,
                  const char **why)
{
  static const struct go_layout zero;
  const char *unused;
  *why = NULL;
  if (!fm->described)
    {
      if (ret || by_name_symbol (fm, &unused) == NULL)
        return false;
      *why = "no DWARF describes the function (its alias is "
        "function(\"NAME\"))";
      by_name_body (f, fm, &zero);
      return true;
    }
  if (ret && fm->nrets == 0)
    return false;
  *why = no_values (fm, ret);
  if (ret)
    return_body (f, fm, &zero, false);
  else
    entry_body (f, fm, &zero, false);
  return true;
}

void
write_inline_alias_body (FILE *f, const char *name,
                         const struct go_func_model *fm,
                         const struct go_inline_copy *c)
{
  static const struct go_layout zero;
  inline_body (f, name, fm, c, &zero);
}

/* go_pair_ENTRY.stp: the entry probe of one function's pairing.  */
static int
write_pair (const struct go_func_model *fm, const struct go_layout *l,
            const char *dir)
{
  char name[64];
  snprintf (name, sizeof name, "go_pair_%" PRIx64 ".stp", fm->entry);
  struct stp_file sf;
  if (stp_file_open (&sf, dir, name) != 0)
    return -1;
  FILE *f = sf.f;
  fputs ("// generated by " PACKAGE_NAME " " PACKAGE_VERSION "; do not edit."
         "\n", f);
  comment_line (f, "// Records each call's entry for the return alias of ",
                fm->name);
  fprintf (f, "function _go_pair_%" PRIx64 ":long () { return 0 }\n",
           fm->entry);
  fputs ("probe ", f);
  statement (f, fm->binary, fm->body.addr);
  fputs ("\n{\n", f);
  char goid[64], sp[64];
  snprintf (goid, sizeof goid, "_go_g_int64(%ld)", l->g_goid);
  snprintf (sp, sizeof sp, "(_go_user_sp() + %" PRId32 ")", fm->body.sp_delta);
  pair_store (f, l, goid, sp);
  fputs ("}\n", f);
  return stp_file_close (&sf, 1);
}

/* The aliases of a function that has inlined copies only.  */
static int
write_inline_only (FILE *f, struct go_model *m, const char *name,
                   const struct go_layout *l)
{
  const struct go_inline_copy *v;
  size_t n;
  if (go_model_inline_copies (m, name, &v, &n) != 0)
    return -1;
  char *alias = probe_name (name);
  if (alias == NULL)
    {
      error (0, errno, "%s", name);
      return -1;
    }
  comment_line (f, "\n// ", name);
  fprintf (f, "//   inlined only: %zu copies, no out-of-line copy (no "
           "return alias)\n", n);
  write_inlined (f, m, name, alias, NULL, v, n, l);
  free (alias);
  return 0;
}

/* The integer registers libgobin assigns Go's arguments to on x86-64
   (go_piece_reg) are the ones go_context.stp's _go_arg_word reads, in
   its order (tapset-contract.h, generated from the tapset).  */
static bool
registers_agree (void)
{
  size_t n = sizeof tapset_amd64_int_regs / sizeof tapset_amd64_int_regs[0];
  if (go_abi_int_regs (GO_ARCH_AMD64) != n)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      struct go_piece p = { .reg = (int) i, .stack = -1 };
      if (strcmp (go_piece_reg (GO_ARCH_AMD64, &p),
                  tapset_amd64_int_regs[i]) != 0)
        return false;
    }
  return true;
}

int
write_funcs (struct go_model *m, const struct go_layout *l,
             const struct go_func *const *sel, const bool *paired, size_t n,
             const char *const *inl, size_t ninl, const char *dir)
{
  if (!registers_agree ())
    {
      error (0, 0, "internal error: libgobin's x86-64 argument registers "
             "are not go_context.stp's (src/tapset-contract.h)");
      return -1;
    }
  struct stp_file sf;
  if (stp_file_open (&sf, dir, "go_funcs.stp") != 0)
    return -1;
  FILE *f = sf.f;
  int ok = 1;
  bool any_pairs = false;       /* a function's calls are paired */
  fputs ("// go_funcs.stp: generated by " PACKAGE_NAME " " PACKAGE_VERSION
         " for one Go binary; do not edit.\n"
         "// Probe aliases go.func.NAME (entry, after the stack check) and\n"
         "// go.func.NAME.return (every RET); see README.md.\n", f);
  for (size_t i = 0; i < n && ok; i++)
    {
      if (sel[i]->wrapper)
        continue;               /* the function itself gets the aliases */
      if (strncmp (sel[i]->name, "go:", 3) == 0)
        continue;               /* linker markers (go:textfipsstart...) */
      struct go_func_model fm;
      if (go_model_func (m, sel[i], MODEL_SIGNATURE, &fm) != EXIT_OK)
        {
          ok = 0;
          break;
        }
      if (fm.alias == NULL)
        ok = 0;
      else
        {
          bool pairs = fm.nrets > 0 && fm.abi == GO_ABI_INTERNAL
            && fm.described;
          bool in_entry = pairs && paired != NULL && paired[i];
          const struct go_inline_copy *copies = NULL;
          size_t ncopies = 0;
          /* The copies go with the first function of their name (a
             second one's alias ends in ._E<entry>).  Not with the
             runtime functions go_runtime.stp's aliases are built on,
             which read their arguments: those stay out of line (none
             of them is inlined in the Go releases of the test matrix).  */
          if (sel[i]->dup_index == 0
              && !write_is_runtime_event (sel[i]->name)
              && go_model_inline_copies (m, sel[i]->name, &copies,
                                         &ncopies) != 0)
            ok = 0;
          write_one (f, &fm, l, in_entry, copies, ncopies, m);
          any_pairs |= pairs;
          if (pairs && !in_entry && write_pair (&fm, l, dir) != 0)
            ok = 0;
        }
      go_func_model_free (&fm);
    }
  for (size_t i = 0; i < ninl && ok; i++)
    if (write_inline_only (f, m, inl[i], l) != 0)
      ok = 0;
  if (ok && any_pairs && write_pair_end (go_model_binary (m), dir) != 0)
    ok = 0;
  return stp_file_close (&sf, ok);
}
