/* cmd-list.c: gostap list [--json] BINARY [GLOB...]

   One function a line for people; with --json the shape that other tools
   and the tests depend on (fields are added, never renamed).  */

#include "config.h"

#include <argp.h>
#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gobin.h"
#include "model.h"
#include "out.h"
#include "probe-name.h"
#include "select.h"

/* Set by parse_opt.  */
struct list_args
{
  bool json;
  bool pcsp;
  struct select_args sel;
};

static const struct argp_option options[] = {
  { "json", 'j', NULL, 0, "Print JSON (see gostap(1) for the shape)", 0 },
  { "pcsp", 'p', NULL, 0, "With --json, add each function's pcsp table "
    "(SP offset from entry SP at each pc)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct list_args *a = state->input;
  switch (key)
    {
    case 'j':
      a->json = true;
      return 0;
    case 'p':
      a->pcsp = true;
      return 0;
    default:
      return select_parse (&a->sel, key, arg, state);
    }
}

static void
json_addrs (FILE *f, const char *key, const struct addr_list *l)
{
  fprintf (f, ", \"%s\": [", key);
  for (size_t i = 0; i < l->n; i++)
    fprintf (f, "%s\"%#" PRIx64 "\"", i ? ", " : "", l->v[i]);
  putc (']', f);
}

static const char *
pcln_name (enum go_pcln_ver v)
{
  switch (v)
    {
    case GO_PCLN_12: return "1.2";
    case GO_PCLN_116: return "1.16";
    case GO_PCLN_118: return "1.18";
    default: return "1.20";
    }
}

static void
json_values (FILE *f, const struct go_bin *b, const struct go_signature *sig,
             bool results)
{
  fprintf (f, ", \"%s\": [", results ? "results" : "params");
  bool first = true;
  for (size_t i = 0; i < sig->n; i++)
    {
      const struct go_value *v = &sig->v[i];
      if (v->result != results)
        continue;
      fputs (first ? "{ \"name\": " : ", { \"name\": ", f);
      first = false;
      out_json_string (f, v->name ? v->name : "");
      fputs (", \"type\": ", f);
      out_json_string (f, v->type ? v->type : "");
      fprintf (f, ", \"size\": %" PRIu64 ", \"pieces\": [", v->size);
      for (size_t k = 0; k < v->npieces; k++)
        {
          const struct go_piece *p = &v->pieces[k];
          const char *reg = go_piece_reg (b->arch, p);
          if (reg != NULL)
            fprintf (f, "%s{ \"reg\": \"%s\"", k ? ", " : "", reg);
          else
            fprintf (f, "%s{ \"stack\": %ld", k ? ", " : "", p->stack);
          fprintf (f, ", \"size\": %u, \"offset\": %u }", p->size,
                   p->offset);
        }
      fputs ("] }", f);
    }
  putc (']', f);
}

struct pcsp_out
{
  FILE *f;
  bool first;
};

static void
print_pcsp_row (uint64_t pc, int32_t value, void *arg)
{
  struct pcsp_out *o = arg;
  fprintf (o->f, "%s[\"%#" PRIx64 "\", %" PRId32 "]", o->first ? "" : ", ",
           pc, value);
  o->first = false;
}

/* The header: facts of the whole binary.  */
static void
print_json_binary (FILE *f, const struct go_bin *b)
{
  fputs ("{ \"binary\": ", f);
  out_json_string (f, b->abspath);
  fputs (", \"go_version\": ", f);
  out_json_string (f, b->go_version);
  fprintf (f, ", \"arch\": \"%s\", \"pclntab_version\": \"%s\"",
           arch_name (b->arch), pcln_name (b->pcln_ver));
  fputs (", \"build_id\": ", f);
  out_json_string (f, b->build_id);
  fprintf (f, ", \"text_start\": \"%#" PRIx64 "\", \"pie\": %s, "
           "\"cgo\": %s, \"external_link\": %s, \"has_symtab\": %s, "
           "\"has_dwarf\": %s, \"dwarf_version\": %d",
           b->text_start, b->pie ? "true" : "false", b->cgo ? "true" : "false",
           b->external_link ? "true" : "false",
           b->has_symtab ? "true" : "false",
           gobin_has_debuginfo (b) ? "true" : "false",
           gobin_dwarf_version (b));
  const char *debug_file;
  enum go_dwarf_source source = gobin_dwarf_source (b, &debug_file);
  fprintf (f, ", \"dwarf_source\": \"%s\", \"debug_file\": ",
           gobin_dwarf_source_name (source));
  if (debug_file != NULL)
    out_json_string (f, debug_file);
  else
    fputs ("null", f);
  fprintf (f, ", \"dwarf_companion\": %s",
           gobin_dwarf_companion (b) ? "true" : "false");
}

/* The inlined copies of a function (go_model_inline_copies): each one's
   first pc, the function it sits in, the pc of its call site, and the
   copy it is inlined into (null: straight into the function).  */
static void
json_inlined (FILE *f, const struct go_inline_copy *v, size_t n)
{
  fputs (", \"inlined\": [", f);
  for (size_t i = 0; i < n; i++)
    {
      fprintf (f, "%s{ \"pc\": \"%#" PRIx64 "\", \"in\": ", i ? ", " : "",
               v[i].pc);
      out_json_string (f, v[i].in->name);
      fprintf (f, ", \"call_pc\": \"%#" PRIx64 "\", \"code\": %s",
               v[i].parent_pc, v[i].has_code ? "true" : "false");
      fputs (", \"nested_in\": ", f);
      if (v[i].outer != NULL)
        out_json_string (f, v[i].outer);
      else
        fputs ("null", f);
      fputs (" }", f);
    }
  putc (']', f);
}

/* One function, from its model record.  */
static void
print_json_func (FILE *f, const struct go_bin *b,
                 const struct go_func_model *fm, const struct go_func *fn,
                 bool pcsp, const struct go_inline_copy *copies,
                 size_t ncopies)
{
  fputs ("{ \"name\": ", f);
  out_json_string (f, fm->name);
  if (fm->alias != NULL)
    {
      fputs (", \"probe\": \"go.func.", f);
      fputs (fm->alias, f);     /* [A-Za-z0-9_.] only */
      putc ('"', f);
    }
  fprintf (f, ", \"entry\": \"%#" PRIx64 "\", \"body\": \"%#" PRIx64
           "\", \"end\": \"%#" PRIx64 "\", \"abi\": \"%s\"",
           fm->entry, fm->body.addr, fm->end,
           fm->abi == GO_ABI_ABI0 ? "abi0" : "internal");
  fputs (", \"returns\": [", f);
  for (size_t i = 0; i < fm->nrets; i++)
    fprintf (f, "%s\"%#" PRIx64 "\"", i ? ", " : "", fm->rets[i].addr);
  putc (']', f);
  json_addrs (f, "tail_exits", fm->tails);
  json_addrs (f, "indirect_jumps", fm->indirect);
  fprintf (f, ", \"undecoded\": %zu", fm->undecoded->n);
  json_addrs (f, "undecoded_at", fm->undecoded);
  fprintf (f, ", \"frame_size\": %" PRId32 ", \"file\": ", fm->frame_size);
  if (fm->file != NULL)
    out_json_string (f, fm->file);
  else
    fputs ("null", f);
  fprintf (f, ", \"line\": %" PRId32, fm->line);
  json_inlined (f, copies, ncopies);
  if (pcsp)
    {
      /* The whole table, not only the probe sites of the model.  */
      struct pcsp_out o = { f, true };
      fputs (", \"pcsp\": [", f);
      gobin_pcvalue_walk (b, fn, fn->pcsp, print_pcsp_row, &o);
      putc (']', f);
    }
  if (fm->have_sig)
    {
      json_values (f, b, &fm->sig, false);
      json_values (f, b, &fm->sig, true);
    }
  else
    {
      fputs (", \"params_error\": ", f);
      out_json_string (f, fm->sig.error ? fm->sig.error : "out of memory");
    }
  fputs (" }", f);
}

/* The alias (malloc'd) and inlined copies of NAME, a function with
   inlined copies only: 0, or -1 after one line.  */
static int
inlined_only (struct go_model *m, const char *name, char **alias,
              const struct go_inline_copy **v, size_t *n)
{
  if ((*alias = probe_name (name)) == NULL)
    {
      error (0, errno, "%s", name);
      return -1;
    }
  if (go_model_inline_copies (m, name, v, n) != 0)
    {
      free (*alias);
      *alias = NULL;
      return -1;
    }
  return 0;
}

/* The functions with inlined copies only: name, probe, file and line
   (of a copy's own code; the line from Go 1.20 on) and the copies.  */
static int
print_json_inlined_only (FILE *f, struct go_model *m, const char **inl,
                         size_t ninl)
{
  fputs (",\n  \"inlined_only\": [", f);
  for (size_t i = 0; i < ninl; i++)
    {
      const struct go_inline_copy *v;
      size_t n;
      char *alias;
      if (inlined_only (m, inl[i], &alias, &v, &n) != 0)
        return EXIT_ERROR;
      const char *file = NULL;
      int32_t line = 0;
      for (size_t k = 0; k < n && file == NULL; k++)
        if (v[k].file != NULL)
          {
            file = v[k].file;
            line = v[k].start_line;
          }
      fputs (i ? ",\n    { \"name\": " : "\n    { \"name\": ", f);
      out_json_string (f, inl[i]);
      fprintf (f, ", \"probe\": \"go.func.%s\", \"file\": ", alias);
      free (alias);
      if (file != NULL)
        out_json_string (f, file);
      else
        fputs ("null", f);
      fprintf (f, ", \"line\": %" PRId32, line);
      json_inlined (f, v, n);
      fputs (" }", f);
    }
  fputs (ninl ? "\n  ]" : "]", f);
  return EXIT_OK;
}

static int
print_json (FILE *f, struct go_model *m, const struct go_bin *b,
            const struct go_func **sel, size_t n, const char **inl,
            size_t ninl, bool pcsp)
{
  print_json_binary (f, b);
  fputs (",\n  \"functions\": [", f);
  for (size_t i = 0; i < n; i++)
    {
      struct go_func_model fm;
      const struct go_inline_copy *copies;
      size_t ncopies;
      if (go_model_inline_copies (m, sel[i]->name, &copies, &ncopies) != 0)
        return EXIT_ERROR;
      int ret = go_model_func (m, sel[i], MODEL_SIGNATURE, &fm);
      if (ret != EXIT_OK)
        return ret;
      fputs (i ? ",\n    " : "\n    ", f);
      print_json_func (f, b, &fm, sel[i], pcsp, copies, ncopies);
      go_func_model_free (&fm);
    }
  fputs (n ? "\n  ]" : "]", f);
  int ret = print_json_inlined_only (f, m, inl, ninl);
  fputs (" }\n", f);
  return ret;
}

static int
print_text (FILE *f, struct go_model *m, const struct go_func **sel,
            size_t n, const char **inl, size_t ninl)
{
  for (size_t i = 0; i < n; i++)
    {
      struct go_func_model fm;
      const struct go_inline_copy *copies;
      size_t ncopies;
      if (go_model_inline_copies (m, sel[i]->name, &copies, &ncopies) != 0)
        return EXIT_ERROR;
      int ret = go_model_func (m, sel[i], 0, &fm);
      if (ret != EXIT_OK)
        return ret;
      fprintf (f, "%#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %-8s %3zu ret ",
               fm.entry, fm.body.addr, fm.end,
               fm.abi == GO_ABI_ABI0 ? "abi0" : "internal", fm.nrets);
      out_text_string (f, fm.name);
      if (fm.file != NULL)
        {
          putc (' ', f);
          out_text_string (f, fm.file);
          fprintf (f, ":%" PRId32, fm.line);
        }
      if (fm.undecoded->n > 0)
        fprintf (f, " [%zu undecoded]", fm.undecoded->n);
      if (fm.alias != NULL)
        fprintf (f, " go.func.%s", fm.alias);
      if (ncopies > 0)
        fprintf (f, " [%zu inlined]", ncopies);
      putc ('\n', f);
      go_func_model_free (&fm);
    }
  /* Functions with inlined copies only: no entry, body, end, ABI.  */
  for (size_t i = 0; i < ninl; i++)
    {
      const struct go_inline_copy *v;
      size_t nc;
      char *alias;
      if (inlined_only (m, inl[i], &alias, &v, &nc) != 0)
        return EXIT_ERROR;
      fputs ("-        -        -        inlined    - ret ", f);
      out_text_string (f, inl[i]);
      fprintf (f, " go.func.%s [%zu inlined]\n", alias, nc);
      free (alias);
    }
  return EXIT_OK;
}

int
cmd_list (int argc, char **argv)
{
  static const struct argp argp = {
    options, parse_opt, "BINARY [GLOB...]",
    "List the functions of a Go binary (all, or those matching a GLOB)."
    "\vText columns: entry, body (after the stack check: where an entry "
    "probe belongs), end, ABI, number of RET instructions, name, file:line, "
    "SystemTap probe alias, and the number of inlined copies; then the "
    "functions that are inlined only (no out-of-line copy): '-' for the "
    "addresses, ABI 'inlined'."
    "\n\nExit status: 0 success, 1 error or a GLOB that matched nothing, "
    "2 not a usable Go binary, 64 usage error.\n\n"
    "Examples:\n"
    "  gostap list ./server 'main.*'\n"
    "  gostap list --json ./server 'net/http.(*conn).serve'",
    NULL, NULL, NULL,
  };
  struct list_args a = { 0 };
  struct go_bin b;
  const struct go_func **sel = NULL;
  struct go_model *m = NULL;
  const char **inl = NULL;
  size_t n = 0, ninl = 0;
  int ret;
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;

  ret = select_prepare (&b, a.sel.binary, 0, NULL);
  if (ret != EXIT_OK)
    goto out;
  m = go_model_begin (&b);
  if (m == NULL)
    {
      ret = EXIT_ERROR;
      goto out;
    }
  a.sel.model = m;
  ret = select_functions (&b, &a.sel, NULL, 0, &sel, &n);
  if (ret == EXIT_OK)
    ret = select_inlined_only (&b, &a.sel, &inl, &ninl);
  if (ret != EXIT_OK)
    goto out;
  ret = a.json ? print_json (stdout, m, &b, sel, n, inl, ninl, a.pcsp)
    : print_text (stdout, m, sel, n, inl, ninl);
  if (ret != EXIT_OK)
    goto out;
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      error (0, errno, "write error");
      ret = EXIT_ERROR;
    }
out:
  go_model_end (m);
  free (sel);
  free (inl);
  gobin_close (&b);
  return ret;
}
