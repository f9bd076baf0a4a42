/* run-gofmt.c: @go_fmt($r), @go_fmt($r->URL->Path) in a script, the
   DWARF value printed as fmt's %+v prints it, expanded by gostap run
   before stap reads the script.  A stap script has no way to the runtime
   type descriptor of a DWARF value's type, so gostap finds it in the
   DWARF of the function the probe is on (read-dwarf-path.c) and writes
   it in: $NAME alone becomes the alias's NAME_fmt; a path through fields
   becomes go_fmt.stp's _go_fmt_typed(DESCRIPTOR, ADDRESS), the address
   from where Go's ABI put the value (as the alias's locals) and the
   fields' offsets in DWARF, each pointer on the way read without a fault
   (stap's own $r->URL would take the value's DWARF location at the probe,
   which stap fails to evaluate for some of Go's, and it stops the
   script at a nil pointer).  The script keeps its lines:
   stap's messages name the lines the user wrote.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gobin.h"
#include "probe-name.h"
#include "run.h"

enum { MAX_FIELDS = GO_PATH_MAX };

/* One @go_fmt(...) and where it is.  */
struct use
{
  const char *at, *end;        /* "@go_fmt(" ... ")" in the text */
  const char *expr, *expr_end; /* "$r->URL" */
  char *var;
  char *fields[MAX_FIELDS];
  size_t nfields;
  int line;
};

static bool
ident (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9') || c == '_';
}

static const char *
blanks (const char *p)
{
  return p + strspn (p, " \t");
}

/* A copy of the identifier at *P, *P moved past it; NULL when none.  */
static char *
take_ident (const char **p)
{
  size_t n = 0;
  while (ident ((*p)[n]))
    n++;
  if (n == 0 || ((*p)[0] >= '0' && (*p)[0] <= '9'))
    return NULL;
  char *w = strndup (*p, n);
  *p += n;
  return w;
}

static void
use_free (struct use *u)
{
  free (u->var);
  for (size_t i = 0; i < u->nfields; i++)
    free (u->fields[i]);
  memset (u, 0, sizeof *u);
}

/* Parse "@go_fmt ( $VAR -> F -> G )" at U->at; false when it is not of
   that form.  */
static bool
parse_use (struct use *u)
{
  const char *p = blanks (u->at + strlen ("@go_fmt"));
  if (*p++ != '(')
    return false;
  p = blanks (p);
  u->expr = p;
  if (*p++ != '$' || (u->var = take_ident (&p)) == NULL)
    return false;
  for (;;)
    {
      u->expr_end = p;
      p = blanks (p);
      if (p[0] != '-' || p[1] != '>')
        break;
      p = blanks (p + 2);
      if (u->nfields == MAX_FIELDS
          || (u->fields[u->nfields] = take_ident (&p)) == NULL)
        return false;
      u->nfields++;
    }
  if (*p != ')')
    return false;
  u->end = p + 1;
  return true;
}

/* The go.func probe points of the probe head [H, E) into PTS (up to
   MAX); their number, or -1 when one point is not a go.func point.  */
static int
head_points (const char *h, const char *e, char **pts, int max)
{
  int n = 0;
  const char *p = h;
  while (p < e)
    {
      p += strspn (p, " \t\n,");
      if (p >= e)
        break;
      if (strncmp (p, "go.func.", 8) != 0 || n == max)
        return -1;
      size_t k = 8;
      while (p + k < e && (ident (p[k]) || strchr (".*[]", p[k]) != NULL))
        k++;
      while (k > 8 && p[k - 1] == '.')
        k--;
      if ((pts[n] = strndup (p, k)) == NULL)
        return -1;
      n++;
      /* What follows a point up to the next one: ? ! or a condition.  */
      int depth = 0;
      for (p += k; p < e && (depth > 0 || *p != ','); p++)
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
    }
  return n;
}

/* Do the points PTS name an alias of ALIAS (*AT_RET: its return
   alias)?  */
static bool
point_names (char *const *pts, int npts, const char *alias, bool *at_ret)
{
  static const char *const suffix[] = { "", ".outofline", ".inlined",
                                        ".return" };
  char full[1200];
  bool any = false;
  *at_ret = false;
  for (int i = 0; i < npts; i++)
    for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++)
      {
        snprintf (full, sizeof full, "go.func.%s%s", alias, suffix[k]);
        if (run_script_match (pts[i], full))
          {
            any = true;
            *at_ret |= k == 3;
          }
      }
  return any;
}

/* The address of what the fields of PT (N of them) reach from value V
   (of function F of B, at a RET when AT_RET), as a SystemTap expression
   into E (SIZE bytes): V's place from Go's ABI (a register, or the stack
   at the alias's _go_sp, the entry SP), each pointer on the path read
   with _go_fmt_deref, the fields' offsets from DWARF.  False with *WHY
   when the value has no address.  */
static bool
path_addr (const struct go_bin *b, const struct go_value *v, bool at_ret,
           const struct go_path_type *pt, size_t n, char *e, size_t size,
           const char **why)
{
  bool stack = v->npieces > 0 && v->pieces[0].reg < 0;
  uint64_t off = 0;
  bool in_value = true;
  *e = '\0';
  if (v->npieces == 0)
    {
      *why = "Go's ABI gives the value no place";
      return false;
    }
  if (at_ret && !v->result && !stack)
    {
      *why = "an argument in registers is gone at a RET";
      return false;
    }
  for (size_t i = 0; i < n; i++)
    {
      char t[1024];
      if (pt->deref[i] && in_value && stack)
        snprintf (t, sizeof t, "_go_fmt_deref(_go_sp + 8 + %" PRIu64 ")",
                  (uint64_t) v->pieces[0].stack + off);
      else if (pt->deref[i] && in_value)
        {
          /* The pointer is the register that holds the word at OFF.  */
          const char *reg = NULL;
          for (size_t k = 0; k < v->npieces && reg == NULL; k++)
            if (v->pieces[k].offset == off && v->pieces[k].size == 8
                && !v->pieces[k].fp && v->pieces[k].reg >= 0)
              reg = go_piece_reg (b->arch, &v->pieces[k]);
          if (reg == NULL)
            {
              *why = "no register holds the pointer on the path";
              return false;
            }
          snprintf (t, sizeof t, "_go_reg_%s()", reg);
        }
      else if (pt->deref[i])
        snprintf (t, sizeof t, "_go_fmt_deref(%s)", e);
      if (pt->deref[i])
        {
          in_value = false;
          snprintf (e, size, "%s", t);
        }
      if (in_value)
        off += pt->offset[i];
      else if (pt->offset[i] != 0)
        {
          snprintf (t, sizeof t, "%s + %" PRIu64, e, pt->offset[i]);
          snprintf (e, size, "%s", t);
        }
    }
  if (in_value && !stack)
    {
      *why = "the value is a struct in registers, where its fields have no "
        "address: NAME_fmt prints it whole, NAME_FIELD reads a field "
        "(gostap-values(7))";
      return false;
    }
  if (in_value)
    snprintf (e, size, "_go_sp + 8 + %" PRIu64,
              (uint64_t) v->pieces[0].stack + off);
  return true;
}

/* What @go_fmt U prints in function F (AT_RET: at its RETs), malloc'd;
   NULL and *WHY when it cannot.  */
static char *
expand_in (struct go_params_ctx *ctx, const struct go_bin *b,
           const struct go_func *f, bool at_ret, const struct use *u,
           const char **why)
{
  char *out = NULL, addr[1024];
  if (u->nfields == 0)
    {
      /* The alias's own local, which says why when it has none.  */
      if (asprintf (&out, "%s_fmt", u->var) < 0)
        out = NULL;
      return out;
    }
  struct go_path_type pt;
  if (go_path_type (ctx, f, u->var, u->fields, u->nfields, &pt, why) != 0)
    return NULL;
  if (!pt.has_rtype)
    {
      *why = "DWARF names no runtime type descriptor for the type it reaches";
      return NULL;
    }
  struct go_signature sig;
  if (go_signature (ctx, b, f, &sig) != 0)
    {
      *why = sig.error;
      return NULL;
    }
  const struct go_value *v = NULL;
  for (size_t i = 0; i < sig.n && v == NULL; i++)
    if (sig.v[i].name != NULL && strcmp (sig.v[i].name, u->var) == 0)
      v = &sig.v[i];
  if (v == NULL)
    *why = "the function has no argument or result of that name";
  else if (path_addr (b, v, at_ret, &pt, u->nfields, addr, sizeof addr, why)
           && asprintf (&out, "_go_fmt_typed(%#" PRIx64 ", %s)", pt.rtype,
                        addr) < 0)
    out = NULL;
  go_signature_free (&sig);
  return out;
}

/* U expanded for the functions whose aliases the points PTS name, the
   same text for all of them, into *OUT.  EXIT_OK, or EXIT_BADINPUT
   after one line.  */
static int
expand_use (struct go_params_ctx *ctx, const struct go_bin *b,
            const struct run_script *s, char *const *pts, int npts,
            const struct use *u, char **out)
{
  const char *why = NULL;
  const struct go_func *first = NULL;
  int ret = EXIT_BADINPUT;
  *out = NULL;
  for (size_t i = 0; i < b->nfuncs; i++)
    {
      const struct go_func *f = &b->funcs[i];
      char *alias = f->wrapper ? NULL : func_probe_name (f);
      bool at_ret;
      bool named = alias != NULL && point_names (pts, npts, alias, &at_ret);
      free (alias);
      if (!named)
        continue;
      char *t = expand_in (ctx, b, f, at_ret, u, &why);
      if (t == NULL)
        {
          error (0, 0, "%s:%d: @go_fmt(%.*s) in %s: %s", s->path, u->line,
                 (int) (u->expr_end - u->expr), u->expr, f->name,
                 why != NULL ? why : strerror (ENOMEM));
          goto out;
        }
      if (*out != NULL && strcmp (*out, t) != 0)
        {
          error (0, 0, "%s:%d: @go_fmt(%.*s): the value has another type "
                 "in %s than in %s: one probe for each", s->path, u->line,
                 (int) (u->expr_end - u->expr), u->expr, f->name,
                 first->name);
          free (t);
          goto out;
        }
      if (*out == NULL)
        {
          *out = t;
          first = f;
        }
      else
        free (t);
    }
  if (*out == NULL)
    {
      error (0, 0, "%s:%d: @go_fmt(%.*s): the probe's points name no Go "
             "function of the binary", s->path, u->line,
             (int) (u->expr_end - u->expr), u->expr);
      goto out;
    }
  ret = EXIT_OK;
out:
  if (ret != EXIT_OK)
    {
      free (*out);
      *out = NULL;
    }
  return ret;
}

enum { MAX_POINTS = 64 };

/* The scan of a script: where the current probe's head is.  */
struct scan
{
  const char *head, *head_end;  /* of the probe whose body holds p */
  const char *next_head;        /* after "probe", before its body */
  bool probe_body, alias_def;
  int depth;                    /* of braces */
  char *pts[MAX_POINTS];        /* the go.func points of head */
  int npts;                     /* -2: read at the first @go_fmt */
};

/* Free the points of SC's head.  */
static void
points_free (struct scan *sc)
{
  while (sc->npts > 0)
    free (sc->pts[--sc->npts]);
}

/* Where the inert text at P of TEXT ends (a comment or a string,
   run_script_skip_inert; embedded C, %{ ... %}): its last character, or
   the end of the text when it runs there, the lines in it added to
   *LINE.  NULL when P starts no inert text.  */
static const char *
skip_inert (const char *text, const char *p, int *line)
{
  const char *e = run_script_skip_inert (text, p);
  if (e == NULL && !(p[0] == '%' && p[1] == '{'))
    return NULL;
  if (e == NULL && (e = strstr (p, "%}")) != NULL)
    e++;
  if (e == NULL)
    return p + strlen (p);
  for (const char *q = p; q <= e && *q != '\0'; q++)
    *line += *q == '\n';
  return e;
}

/* Note into SC what P, outside any braces, starts (WORD: P starts a
   word): a probe's head, an alias definition, a function, or the body of
   what came before.  */
static void
scan_top (struct scan *sc, const char *p, bool word)
{
  if (word && strncmp (p, "probe", 5) == 0 && !ident (p[5]))
    {
      sc->next_head = p + 5;
      sc->alias_def = false;
    }
  else if (word && strncmp (p, "function", 8) == 0 && !ident (p[8]))
    sc->next_head = NULL;
  else if (sc->next_head != NULL && p[0] == '=' && p[1] != '='
           && strchr ("=!<>", p[-1]) == NULL)
    sc->alias_def = true;       /* probe NAME = ... (or +=) */
  else if (p[0] == '{')
    {
      sc->depth = 1;
      sc->probe_body = sc->next_head != NULL && !sc->alias_def;
      sc->head = sc->next_head;
      sc->head_end = p;
      sc->next_head = NULL;
      points_free (sc);
      sc->npts = -2;            /* read at the first @go_fmt */
    }
}

/* Expand the @go_fmt at P (line LINE of S) in the probe body SC is in:
   the text from *DONE up to P and the expansion written to M, *DONE
   moved past the @go_fmt(...).  An exit status, after one line when not
   EXIT_OK.  */
static int
expand_at (struct go_params_ctx *ctx, const struct go_bin *b,
           struct run_script *s, struct scan *sc, const char *p, int line,
           FILE *m, const char **done)
{
  struct use u = { .at = p, .line = line };
  char *rep;
  int r = EXIT_BADINPUT;
  if (!parse_use (&u))
    {
      error (0, 0, "%s:%d: @go_fmt takes a DWARF value: $NAME or "
             "$NAME->FIELD->...", s->path, line);
      goto out;
    }
  if (sc->npts == -2 && sc->probe_body)
    sc->npts = head_points (sc->head, sc->head_end, sc->pts, MAX_POINTS);
  if (!sc->probe_body || sc->npts <= 0)
    {
      error (0, 0, "%s:%d: @go_fmt(%.*s) is for a probe on go.func "
             "points only (the function gives the value's type)",
             s->path, line, (int) (u.expr_end - u.expr), u.expr);
      if (sc->npts == -1)
        sc->npts = 0;
      goto out;
    }
  r = expand_use (ctx, b, s, sc->pts, sc->npts, &u, &rep);
  if (r == EXIT_OK && u.nfields == 0)
    r = run_script_add_fmt_name (s, rep) == 0 ? EXIT_OK : EXIT_ERROR;
  if (r == EXIT_OK)
    {
      fprintf (m, "%.*s%s", (int) (p - *done), *done, rep);
      *done = u.end;
    }
  free (rep);
out:
  use_free (&u);
  return r;
}

int
run_expand_go_fmt (struct go_bin *b, struct run_script *s)
{
  if (strstr (s->text, "@go_fmt") == NULL)
    return EXIT_OK;
  char *text = NULL;
  int line = 1, ret = EXIT_BADINPUT;
  size_t size = 0;
  struct scan sc = { 0 };
  const char *done = s->text;
  struct go_params_ctx *ctx = go_params_begin (b);
  FILE *m = open_memstream (&text, &size);
  if (ctx == NULL || m == NULL)
    {
      error (0, errno, "@go_fmt");
      ret = EXIT_ERROR;
      goto out;
    }
  for (const char *p = s->text; *p != '\0'; p++)
    {
      const char *e = skip_inert (s->text, p, &line);
      if (e != NULL)
        {
          if (*e == '\0')
            break;
          p = e;
          continue;
        }
      line += *p == '\n';
      bool word = p == s->text || !ident (p[-1]);
      if (sc.depth == 0)
        {
          scan_top (&sc, p, word);
          continue;
        }
      sc.depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
      if (!word || strncmp (p, "@go_fmt", 7) != 0 || ident (p[7]))
        continue;
      int r = expand_at (ctx, b, s, &sc, p, line, m, &done);
      if (r != EXIT_OK)
        {
          ret = r;
          goto out;
        }
      p = done - 1;
    }
  fputs (done, m);
  if (fclose (m) != 0)
    {
      m = NULL;
      error (0, errno, "@go_fmt");
      ret = EXIT_ERROR;
      goto out;
    }
  m = NULL;
  free (s->text);
  s->text = text;
  s->expanded = true;
  text = NULL;
  ret = EXIT_OK;
out:
  if (m != NULL)
    fclose (m);
  free (text);
  points_free (&sc);
  if (ctx != NULL)
    go_params_end (ctx);
  return ret;
}
