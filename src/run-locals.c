/* run-locals.c: gostap run refuses a script that reads, in a probe on
   go.func aliases, a local that one of them does not set on this binary.
   stap would only warn ("never-assigned local variable") and the script
   would print zeros and empty strings: on a -w or -s -w build, whose
   aliases have no argument or result locals (no DWARF types), every
   argument the script prints.

   What an alias sets is what write-funcs.c writes into its body
   (write_alias_body): the targets of its assignments, read from that text,
   so the check and the tapsets cannot disagree.  What the script reads is
   found by a scan of its tokens (comments, strings and embedded C left
   out).  Refused only where stap is sure to find the local unset:

   - in a probe's handler, a bare NAME that is not a keyword, not called
     (NAME(...)), not an array (NAME[...], in ARRAY, delete NAME,
     NAME <<< V), not a field (->NAME), not a global (of the script, of
     SystemTap's own tapsets, gostap's, or a -I directory's), does not
     begin with '_', and is assigned nowhere in the handler (=, +=, ...,
     ++, --, a foreach or catch variable: stap asks no order);
   - not named in an @defined() or @choose_defined() of the handler (a
     guard: stap makes @defined of an unset local false);
   - and one of the go.func points of the probe matches an alias whose
     body does not set it: each point, and each alias a wildcard matches,
     is a probe of its own for stap.
   Not checked: a probe in a preprocessor conditional (%( %)), one that
   defines an alias (probe NAME = go.func...), one that uses a macro this
   file does not know (it may assign anything), points that are not
   go.func aliases or not written out (go.func.@1).  */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "probe-name.h"
#include "run.h"
#include "write.h"

/* ---- tokens ------------------------------------------------------------ */

enum tok_kind
{
  T_IDENT, T_NUM, T_STR, T_DOLLAR, T_AT, T_OP,
  T_PP,                         /* %( %? %: %) */
};

struct tok
{
  enum tok_kind k;
  const char *p;
  int n;
  int line;
  bool pp;                      /* inside a preprocessor construct */
};

struct toks
{
  struct tok *v;
  size_t n, cap;
};

static bool
word_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9') || c == '_';
}

static bool
tok_is (const struct tok *t, const char *s)
{
  return t->n == (int) strlen (s) && strncmp (t->p, s, t->n) == 0;
}

static bool
op_is (const struct toks *ts, size_t i, const char *s)
{
  return i < ts->n && ts->v[i].k == T_OP && tok_is (&ts->v[i], s);
}

static bool
ident_is (const struct toks *ts, size_t i, const char *s)
{
  return i < ts->n && ts->v[i].k == T_IDENT && tok_is (&ts->v[i], s);
}

static int
push (struct toks *ts, enum tok_kind k, const char *p, int n, int line,
      bool pp)
{
  if (ts->n == ts->cap)
    {
      size_t cap = ts->cap ? 2 * ts->cap : 256;
      struct tok *v = reallocarray (ts->v, cap, sizeof *v);
      if (v == NULL)
        return -1;
      ts->v = v;
      ts->cap = cap;
    }
  ts->v[ts->n++] = (struct tok) { k, p, n, line, pp };
  return 0;
}

/* Past the blanks, comments and embedded C at P (no script in any of
   them), the lines they hold added to *LINE; NULL when a comment or
   embedded C is left open.  */
static const char *
skip_blank (const char *p, int *line)
{
  for (;;)
    {
      if (*p == '\n')
        {
          (*line)++;
          p++;
        }
      else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f'
               || *p == '\v')
        p++;
      else if (*p == '#' || (p[0] == '/' && p[1] == '/'))
        p += strcspn (p, "\n");
      else if ((p[0] == '/' && p[1] == '*') || (p[0] == '%' && p[1] == '{'))
        {
          /* A comment, or embedded C: no script in it.  */
          const char *e = strstr (p + 2, p[0] == '/' ? "*/" : "%}");
          if (e == NULL)
            return NULL;
          for (; p < e; p++)
            *line += *p == '\n';
          p = e + 2;
        }
      else
        return p;
    }
}

/* The end of the token at P (a string, $NAME or @NAME, a word, an
   operator), its kind into *K and the lines of a string added to *LINE;
   NULL when a string is left open.  */
static const char *
token_end (const char *p, int *line, enum tok_kind *k)
{
  static const char *const ops[] = {
    "<<<", "<<=", ">>=", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=", ".=", "&=", "|=", "^=", "++", "--", "->", "&&", "||", "<<", ">>",
  };
  if (*p == '"')
    {
      for (p++; *p != '\0' && *p != '"'; p++)
        {
          if (p[0] == '\\' && p[1] != '\0')
            p++;
          *line += *p == '\n';
        }
      if (*p == '\0')
        return NULL;
      p++;
      *k = T_STR;
    }
  else if (*p == '$' || *p == '@')
    {
      *k = *p == '$' ? T_DOLLAR : T_AT;
      p++;
      while (*p == '$')
        p++;
      if (*p == '#')
        p++;
      else
        while (word_char (*p))
          p++;
    }
  else if (word_char (*p))
    {
      *k = *p >= '0' && *p <= '9' ? T_NUM : T_IDENT;
      while (word_char (*p))
        p++;
    }
  else
    {
      *k = T_OP;
      size_t n = 1;
      for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp (p, ops[i], strlen (ops[i])) == 0)
          {
            n = strlen (ops[i]);
            break;
          }
      p += n;
    }
  return p;
}

/* The tokens of TEXT into TS: 0, -1 out of memory, 1 when TEXT is not
   whole (a comment, string or %( %) left open): then nothing is checked. */
static int
lex (const char *text, struct toks *ts)
{
  int line = 1, depth = 0;
  const char *p = text;
  for (;;)
    {
      if ((p = skip_blank (p, &line)) == NULL)
        return 1;
      if (*p == '\0')
        break;
      if (p[0] == '%' && strchr ("(?:)", p[1]) != NULL && p[1] != '\0')
        {
          if (p[1] == '(')
            depth++;
          else if (p[1] == ')' && --depth < 0)
            return 1;
          else if (depth == 0)
            return 1;
          if (push (ts, T_PP, p, 2, line, true) != 0)
            return -1;
          p += 2;
          continue;
        }
      const char *s = p;
      int l0 = line;
      enum tok_kind k;
      if ((p = token_end (p, &line, &k)) == NULL)
        return 1;
      if (push (ts, k, s, (int) (p - s), l0, depth > 0) != 0)
        return -1;
    }
  return depth == 0 ? 0 : 1;
}

/* The index after the bracket that closes the one at I ("(", "[", "{"),
   or TS->n.  */
static size_t
skip_group (const struct toks *ts, size_t i)
{
  int depth = 0;
  for (; i < ts->n; i++)
    if (ts->v[i].k == T_OP && strchr ("([{", ts->v[i].p[0]) != NULL
        && ts->v[i].n == 1)
      depth++;
    else if (ts->v[i].k == T_OP && strchr (")]}", ts->v[i].p[0]) != NULL
             && ts->v[i].n == 1 && --depth == 0)
      return i + 1;
  return ts->n;
}

/* ---- sets of names ----------------------------------------------------- */

struct names
{
  char **v;
  size_t n;
};

static bool
names_has (const struct names *s, const char *p, size_t n)
{
  for (size_t i = 0; i < s->n; i++)
    if (strlen (s->v[i]) == n && strncmp (s->v[i], p, n) == 0)
      return true;
  return false;
}

static int
names_add (struct names *s, const char *p, size_t n)
{
  if (names_has (s, p, n))
    return 0;
  char **v = reallocarray (s->v, s->n + 1, sizeof *v);
  if (v == NULL)
    return -1;
  s->v = v;
  if ((s->v[s->n] = strndup (p, n)) == NULL)
    return -1;
  s->n++;
  return 0;
}

static void
names_free (struct names *s)
{
  for (size_t i = 0; i < s->n; i++)
    free (s->v[i]);
  free (s->v);
  memset (s, 0, sizeof *s);
}

/* ---- the script's globals and macros ----------------------------------- */

/* Add the names the top level of TS declares global to GLOBALS, and the
   macros it defines to MACROS (NULL: not wanted).  */
static int
declarations (const struct toks *ts, struct names *globals,
              struct names *macros)
{
  int depth = 0;
  for (size_t i = 0; i < ts->n; i++)
    {
      const struct tok *t = &ts->v[i];
      if (t->k == T_OP && t->n == 1 && t->p[0] == '{')
        depth++;
      else if (t->k == T_OP && t->n == 1 && t->p[0] == '}')
        depth -= depth > 0;
      else if (t->k == T_AT && tok_is (t, "@define") && i + 1 < ts->n
               && ts->v[i + 1].k == T_IDENT && macros != NULL)
        {
          if (names_add (macros, ts->v[i + 1].p, ts->v[i + 1].n) != 0)
            return -1;
        }
      else if (depth == 0 && t->k == T_IDENT && tok_is (t, "global"))
        {
          /* global NAME [= LITERAL | [DIMS] | %], NAME ...  */
          size_t j = i + 1;
          while (j < ts->n && ts->v[j].k == T_IDENT)
            {
              if (names_add (globals, ts->v[j].p, ts->v[j].n) != 0)
                return -1;
              j++;
              while (op_is (ts, j, "%"))
                j++;
              if (op_is (ts, j, "["))
                j = skip_group (ts, j);
              while (op_is (ts, j, "%"))
                j++;
              if (op_is (ts, j, "="))
                {
                  j++;
                  if (op_is (ts, j, "-") || op_is (ts, j, "+"))
                    j++;
                  j++;
                }
              if (!op_is (ts, j, ","))
                break;
              j++;
            }
          i = j - 1;
        }
    }
  return 0;
}

/* The text of the file PATH (malloc'd), or NULL.  */
static char *
read_text (const char *path)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return NULL;
  char *text = NULL, buf[8192];
  size_t size = 0, k;
  FILE *m = open_memstream (&text, &size);
  while (m != NULL && (k = fread (buf, 1, sizeof buf, f)) > 0)
    fwrite (buf, 1, k, m);
  bool bad = ferror (f);
  fclose (f);
  if (m == NULL || fclose (m) != 0 || bad)
    {
      free (text);
      return NULL;
    }
  return text;
}

/* The globals the .stp files under DIR declare, into GLOBALS (a directory
   that cannot be read adds none).  */
static int
dir_globals (const char *dir, struct names *globals, int level)
{
  DIR *d = level < 4 ? opendir (dir) : NULL;
  if (d == NULL)
    return 0;
  int ret = 0;
  struct dirent *e;
  while (ret == 0 && (e = readdir (d)) != NULL)
    {
      if (e->d_name[0] == '.')
        continue;
      char *path;
      if (asprintf (&path, "%s/%s", dir, e->d_name) < 0)
        {
          ret = -1;
          break;
        }
      struct stat st;
      size_t len = strlen (e->d_name);
      if (stat (path, &st) != 0)
        ;
      else if (S_ISDIR (st.st_mode))
        ret = dir_globals (path, globals, level + 1);
      else if (S_ISREG (st.st_mode) && len > 4
               && strcmp (e->d_name + len - 4, ".stp") == 0)
        {
          char *text = read_text (path);
          if (text != NULL)
            {
              struct toks ts = { 0 };
              int r = lex (text, &ts);
              if (r < 0 || (r == 0 && declarations (&ts, globals, NULL) != 0))
                ret = -1;
              free (ts.v);
              free (text);
            }
        }
      free (path);
    }
  closedir (d);
  return ret;
}

/* Is NAME (N bytes) one of the locals every alias body sets
   (write-funcs.c, source_locals)?  */
static bool
every_alias_sets (const char *name, size_t n)
{
  return (n == 8 && strncmp (name, "funcname", 8) == 0)
    || (n == 8 && strncmp (name, "filename", 8) == 0)
    || (n == 6 && strncmp (name, "lineno", 6) == 0)
    || (n == 7 && strncmp (name, "inlined", 7) == 0)
    || (n == 10 && strncmp (name, "inlined_in", 10) == 0);
}

/* ---- what a handler reads ---------------------------------------------- */

static const char *const keywords[] = {
  "if", "else", "for", "foreach", "in", "while", "return", "next", "break",
  "continue", "delete", "try", "catch", "limit", "string", "long", "global",
  "probe", "function", "private",
};

/* @-operators of SystemTap whose arguments are expressions like any other
   (the statistics' first one an aggregate), and @defined's kin.  */
static const char *const at_plain[] = {
  "@cast", "@var", "@kregister", "@uregister", "@module", "@const",
  "@probewrite",
};
static const char *const at_stats[] = {
  "@count", "@sum", "@min", "@max", "@avg", "@variance", "@hist_linear",
  "@hist_log",
};

static bool
in_list (const struct tok *t, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (tok_is (t, list[i]))
      return true;
  return false;
}
#define IN_LIST(t, list) in_list (t, list, sizeof list / sizeof list[0])

static bool
assign_op (const struct toks *ts, size_t i)
{
  static const char *const a[] = {
    "=", "+=", "-=", "*=", "/=", "%=", ".=", "<<=", ">>=", "&=", "|=", "^=",
    "++", "--",
  };
  return i < ts->n && ts->v[i].k == T_OP && IN_LIST (&ts->v[i], a);
}

/* The locals the handler TS[FROM, TO) sets (assigned, ++ or --, deleted,
   a foreach or catch variable) into SET, and those it guards (named in
   an @defined or @choose_defined) into GUARDED.  0, 1 when it uses a
   macro this file does not know (it may set anything), -1 out of
   memory.  */
static int
handler_sets (const struct toks *ts, size_t from, size_t to,
              const struct names *macros, struct names *set,
              struct names *guarded)
{
  for (size_t i = from; i < to; i++)
    {
      const struct tok *t = &ts->v[i];
      if (t->k == T_AT)
        {
          bool guard = tok_is (t, "@defined") || tok_is (t, "@choose_defined");
          bool script_arg = t->n == 1 || t->p[1] == '#'
            || (t->p[1] >= '0' && t->p[1] <= '9');
          if (!guard && !script_arg && !IN_LIST (t, at_plain)
              && !IN_LIST (t, at_stats)
              && (strncmp (t->p, "@go_", 4) != 0
                  || names_has (macros, t->p + 1, t->n - 1)))
            return 1;           /* a macro: it may set anything */
          if (guard && op_is (ts, i + 1, "("))
            {
              size_t e = skip_group (ts, i + 1);
              for (size_t j = i + 2; j < e && j < to; j++)
                if (ts->v[j].k == T_IDENT
                    && names_add (guarded, ts->v[j].p, ts->v[j].n) != 0)
                  return -1;
            }
          continue;
        }
      if (t->k != T_IDENT)
        continue;
      if (tok_is (t, "foreach") && op_is (ts, i + 1, "("))
        {
          /* foreach ([A, B] in X), foreach (V = [A] in X): set.  */
          for (size_t j = i + 2; j < to && !ident_is (ts, j, "in"); j++)
            if (ts->v[j].k == T_IDENT
                && names_add (set, ts->v[j].p, ts->v[j].n) != 0)
              return -1;
          continue;
        }
      if (tok_is (t, "catch") && op_is (ts, i + 1, "(")
          && i + 2 < to && ts->v[i + 2].k == T_IDENT)
        {
          if (names_add (set, ts->v[i + 2].p, ts->v[i + 2].n) != 0)
            return -1;
          continue;
        }
      if (assign_op (ts, i + 1) || op_is (ts, i - 1, "++")
          || op_is (ts, i - 1, "--") || ident_is (ts, i - 1, "delete"))
        if (names_add (set, t->p, t->n) != 0)
          return -1;
    }
  return 0;
}

/* Does TS[I], in the handler that begins at FROM, read a local: a bare
   name, not a keyword, a call, an array, a field, an aggregate, a global
   (GLOBALS, SystemTap's), one every alias sets, or one SET or GUARDED
   holds?  */
static bool
reads_local (const struct toks *ts, size_t from, size_t i,
             const struct names *set, const struct names *guarded,
             const struct names *globals)
{
  const struct tok *t = &ts->v[i];
  if (t->k != T_IDENT || IN_LIST (t, keywords) || t->p[0] == '_'
      || op_is (ts, i + 1, "(") || op_is (ts, i + 1, "[")
      || op_is (ts, i + 1, "<<<")
      || (i > from && (op_is (ts, i - 1, "->")
                       || ident_is (ts, i - 1, "in")
                       || ident_is (ts, i - 1, "delete")))
      || names_has (set, t->p, t->n) || names_has (guarded, t->p, t->n)
      || names_has (globals, t->p, t->n))
    return false;
  /* The first argument of a statistics operator is an aggregate.  */
  if (i >= from + 2 && op_is (ts, i - 1, "(") && ts->v[i - 2].k == T_AT
      && IN_LIST (&ts->v[i - 2], at_stats))
    return false;
  char name[128];
  snprintf (name, sizeof name, "%.*s", t->n, t->p);
  return !write_stap_global (name) && !every_alias_sets (t->p, t->n);
}

/* The locals the handler TS[FROM, TO) reads, sets nowhere and does not
   guard, into READS (the first token of each, in order: *NREADS); not
   *CHECKABLE when that cannot be known (a macro this file does not know,
   a preprocessor construct).  0, or -1 out of memory.  */
static int
handler_reads (const struct toks *ts, size_t from, size_t to,
               const struct names *globals, const struct names *macros,
               const struct tok **reads, size_t *nreads, bool *checkable)
{
  struct names set = { 0 }, guarded = { 0 };
  int ret = -1;                 /* out of memory, until done */
  *checkable = false;
  *nreads = 0;
  for (size_t i = from; i < to; i++)
    if (ts->v[i].pp)
      return 0;
  /* First what is set and what is guarded.  */
  int r = handler_sets (ts, from, to, macros, &set, &guarded);
  if (r != 0)
    {
      ret = r > 0 ? 0 : -1;
      goto done;
    }
  /* Then what is read.  */
  for (size_t i = from; i < to; i++)
    {
      const struct tok *t = &ts->v[i];
      if (!reads_local (ts, from, i, &set, &guarded, globals))
        continue;
      bool seen = false;
      for (size_t k = 0; k < *nreads && !seen; k++)
        seen = reads[k]->n == t->n && strncmp (reads[k]->p, t->p, t->n) == 0;
      if (!seen)
        reads[(*nreads)++] = t;
    }
  *checkable = true;
  ret = 0;
done:
  names_free (&set);
  names_free (&guarded);
  return ret;
}

/* ---- what an alias sets ------------------------------------------------ */

/* One function's aliases, as far as looked at.  */
enum { AL_ENTRY, AL_RETURN, AL_INLINED, AL_N };
struct alias_locals
{
  bool done;
  bool exists[AL_N];            /* the entry alias (.outofline), the return
                                   alias, the inlined copies' alias */
  char *body[AL_N];             /* write_alias_body's text */
  char *why[AL_N];              /* why it sets no argument/result locals */
  bool abi0;
  size_t ncopies;               /* inlined copies */
};

/* Does BODY (an alias body) assign NAME (N bytes)?  */
static bool
body_sets (const char *body, const char *name, size_t n)
{
  for (const char *l = body; l != NULL && *l != '\0';)
    {
      const char *p = l + strspn (l, " \t");
      size_t w = 0;
      while (word_char (p[w]))
        w++;
      const char *q = p + w + strspn (p + w, " \t");
      if (w == n && strncmp (p, name, n) == 0 && q[0] == '=' && q[1] != '=')
        return true;
      l = strchr (l, '\n');
      l = l != NULL ? l + 1 : NULL;
    }
  return false;
}

/* The reason a comment "  // NAME: REASON" of BODY gives (write-locals.c
   writes one where it sets no NAME), into OUT; false when none.  */
static bool
body_comment (const char *body, const char *name, size_t n, char *out,
              size_t size)
{
  for (const char *l = body; l != NULL && *l != '\0';)
    {
      const char *p = l + strspn (l, " \t");
      const char *e = strchr (p, '\n');
      if (strncmp (p, "// ", 3) == 0 && strncmp (p + 3, name, n) == 0
          && strncmp (p + 3 + n, ": ", 2) == 0)
        {
          const char *why = p + 5 + n;
          snprintf (out, size, "%.*s", (int) (e ? e - why : (long) strlen (why)),
                    why);
          return true;
        }
      l = e != NULL ? e + 1 : NULL;
    }
  return false;
}

/* The locals BODY assigns but gostap's own (_go...) and those every body
   sets (funcname, filename, lineno), "goid, a, b", in at most SIZE bytes
   ("..." at the end when cut).  */
static void
body_list (const char *body, char *out, size_t size)
{
  size_t k = 0;
  out[0] = '\0';
  for (const char *l = body; l != NULL && *l != '\0';)
    {
      const char *p = l + strspn (l, " \t");
      size_t w = 0;
      while (word_char (p[w]))
        w++;
      const char *q = p + w + strspn (p + w, " \t");
      if (w > 0 && p[0] != '_' && q[0] == '=' && q[1] != '='
          && !every_alias_sets (p, w))
        {
          if (k + w + 8 >= size)
            {
              snprintf (out + k, size - k, ", ...");
              return;
            }
          k += snprintf (out + k, size - k, "%s%.*s", k ? ", " : "",
                         (int) w, p);
        }
      l = strchr (l, '\n');
      l = l != NULL ? l + 1 : NULL;
    }
}

struct check
{
  struct go_bin *b;
  struct go_model *m;
  char **aliases;               /* per function, "go.func.ALIAS"; made,
                                   like AL, when first needed */
  struct alias_locals *al;      /* per function */
};

/* The body of the inlined copies' alias of the function NAME into A
   (none when it has no copies, or when F, its out-of-line function, is
   not the first of its name or is a runtime event: write_funcs).  */
static int
inline_locals (struct check *c, const char *name,
               const struct go_func_model *fm, const struct go_func *f,
               struct alias_locals *a)
{
  const struct go_inline_copy *v;
  size_t n;
  if (f != NULL && (f->dup_index != 0 || write_is_runtime_event (name)))
    return EXIT_OK;
  if (c->m == NULL && (c->m = go_model_begin (c->b)) == NULL)
    return EXIT_ERROR;
  if (go_model_inline_copies (c->m, name, &v, &n) != 0)
    return EXIT_ERROR;
  if (n == 0)
    return EXIT_OK;
  size_t size = 0;
  FILE *m = open_memstream (&a->body[AL_INLINED], &size);
  if (m == NULL)
    return EXIT_ERROR;
  write_inline_alias_body (m, name, fm, &v[0]);
  if (fclose (m) != 0)
    return EXIT_ERROR;
  a->exists[AL_INLINED] = true;
  a->ncopies = n;
  return EXIT_OK;
}

static int
alias_locals (struct check *c, size_t fi, struct alias_locals **out)
{
  struct alias_locals *a = &c->al[fi];
  *out = a;
  if (a->done)
    return EXIT_OK;
  const struct go_func *f = &c->b->funcs[fi];
  int r = gobin_analyze (c->b, f);
  if (r != EXIT_OK)
    return r;
  if (c->m == NULL && (c->m = go_model_begin (c->b)) == NULL)
    return EXIT_ERROR;
  struct go_func_model fm;
  if ((r = go_model_func (c->m, f, MODEL_SIGNATURE, &fm)) != EXIT_OK)
    return r;
  r = EXIT_OK;
  a->abi0 = fm.abi == GO_ABI_ABI0;
  for (int ret = 0; ret < 2 && r == EXIT_OK; ret++)
    {
      size_t size = 0;
      const char *why = NULL;
      FILE *m = open_memstream (&a->body[ret], &size);
      if (m == NULL)
        r = EXIT_ERROR;
      else
        {
          a->exists[ret] = fm.alias != NULL
            && write_alias_body (m, &fm, ret, &why);
          if (fclose (m) != 0
              || (why != NULL && (a->why[ret] = strdup (why)) == NULL))
            r = EXIT_ERROR;
        }
    }
  if (r == EXIT_OK)
    r = inline_locals (c, f->name, &fm, f, a);
  go_func_model_free (&fm);
  if (r != EXIT_OK)
    error (0, errno, "out of memory");
  a->done = true;
  return r;
}

/* Why alias KIND (AL_*) of A, go.func.ALIAS, has no local NAME (N bytes):
   into OUT.  */
static void
reason (struct check *c, struct alias_locals *a, const char *alias,
        int kind, const char *name, size_t n, char *out, size_t size)
{
  bool ret = kind == AL_RETURN;
  bool g = (n == 4 && strncmp (name, "goid", 4) == 0)
    || (n == 11 && strncmp (name, "go_entry_ns", 11) == 0)
    || (n == 13 && strncmp (name, "go_latency_ns", 13) == 0);
  if (kind == AL_INLINED && a->exists[AL_ENTRY]
      && body_sets (a->body[AL_ENTRY], name, n))
    snprintf (out, size, "an inlined copy (%zu of them) sets no argument "
              "locals: %s.outofline (the out-of-line calls) has them, and "
              "stap's $%.*s reads an inlined copy's where Go's DWARF "
              "locates it", a->ncopies, alias, (int) n, name);
  else if (kind == AL_INLINED && a->exists[AL_RETURN]
           && body_sets (a->body[AL_RETURN], name, n))
    snprintf (out, size, "it is a local of %s.return only", alias);
  else if (kind == AL_INLINED)
    {
      char list[200];
      body_list (a->body[kind], list, sizeof list);
      snprintf (out, size, "an inlined copy (%zu of them) has no such "
                "local (its locals: %s)", a->ncopies, list);
    }
  else if (g && a->abi0)
    snprintf (out, size, "ABI0 code keeps no g in a register: no goid%s",
              ret ? ", no pairing" : "");
  else if (a->exists[!ret] && body_sets (a->body[!ret], name, n))
    snprintf (out, size, "it is a local of %s%s only", alias,
              ret ? "" : ".return");
  else if (a->why[ret] != NULL && gobin_dwarf_companion (c->b))
    snprintf (out, size, "no DWARF types, so no %s locals (the build used "
              "-w, or the binary was stripped)", ret ? "result" : "argument");
  else if (a->why[ret] != NULL)
    snprintf (out, size, "no %s locals: %s", ret ? "result" : "argument",
              a->why[ret]);
  else if (body_comment (a->body[ret], name, n, out, size))
    ;
  else
    {
      char list[200];
      body_list (a->body[ret], list, sizeof list);
      snprintf (out, size, "no %s of that name (its locals: %s)",
                ret ? "result" : "argument", list);
    }
}

/* Check READS against the aliases of one function, go.func.ALIAS (Go
   name NAME; A: what its aliases set) that POINT matches: go.func.ALIAS
   (its out-of-line entry and its inlined copies), .outofline, .inlined,
   .return.  */
static const char *const suffix[] = { "", ".outofline", ".inlined",
  ".return" };

/* Does POINT match an alias of go.func.ALIAS (suffix[])?  */
static bool
matches_alias (const char *point, const char *alias)
{
  for (size_t s = 0; s < sizeof suffix / sizeof suffix[0]; s++)
    {
      char full[1100];
      snprintf (full, sizeof full, "%s%s", alias, suffix[s]);
      if (run_script_match (point, full))
        return true;
    }
  return false;
}

static int
check_alias (struct check *c, const char *script, const char *point,
             const char *alias, const char *name, struct alias_locals *a,
             const struct tok *const *reads, size_t nreads)
{
  /* Per suffix, the bodies whose points it has.  */
  static const int kinds[][2] = { { AL_ENTRY, AL_INLINED },
    { AL_ENTRY, -1 }, { AL_INLINED, -1 }, { AL_RETURN, -1 } };
  for (size_t s = 0; s < sizeof suffix / sizeof suffix[0]; s++)
    {
      char full[1100];
      snprintf (full, sizeof full, "%s%s", alias, suffix[s]);
      if (!run_script_match (point, full))
        continue;
      for (int k = 0; k < 2; k++)
        {
          int kind = kinds[s][k];
          if (kind < 0 || !a->exists[kind])
            continue;
          for (size_t i = 0; i < nreads; i++)
            {
              const struct tok *t = reads[i];
              if (body_sets (a->body[kind], t->p, t->n))
                continue;
              char why[500];
              reason (c, a, alias, kind, t->p, t->n, why, sizeof why);
              bool same = strcmp (name, alias + 8) == 0;
              error (0, 0, "%s:%d: %s%s%s%s has no local '%.*s' on %s: %s",
                     script, t->line, full, same ? "" : " (",
                     same ? "" : name, same ? "" : ")", (int) t->n, t->p,
                     c->b->probe_path, why);
              return EXIT_BADINPUT;
            }
        }
    }
  return EXIT_OK;
}

/* Check the handler's READS against the inlined copies' alias of every
   function inlined only (with no out-of-line code) whose go.func.ALIAS
   POINT matches: an exit status, as check_point's.  */
static int
check_inlined_only (struct check *c, const char *script, const char *point,
                    const struct tok *const *reads, size_t nreads)
{
  const struct go_bin *b = c->b;
  if (c->m == NULL && (c->m = go_model_begin (c->b)) == NULL)
    return EXIT_ERROR;
  const char *const *inl;
  size_t ninl;
  if (go_model_inline_names (c->m, &inl, &ninl) != 0)
    return EXIT_ERROR;
  for (size_t i = 0; i < ninl; i++)
    {
      if (gobin_func_named (b, inl[i]) != NULL)
        continue;
      char *p = probe_name (inl[i]), *alias = NULL;
      if (p == NULL || asprintf (&alias, "go.func.%s", p) < 0)
        {
          free (p);
          error (0, errno, "out of memory");
          return EXIT_ERROR;
        }
      free (p);
      int r = EXIT_OK;
      if (matches_alias (point, alias))
        {
          struct alias_locals a = { 0 };
          r = inline_locals (c, inl[i], NULL, NULL, &a);
          if (r == EXIT_OK)
            r = check_alias (c, script, point, alias, inl[i], &a, reads,
                             nreads);
          free (a.body[AL_INLINED]);
        }
      free (alias);
      if (r != EXIT_OK)
        return r;
    }
  return EXIT_OK;
}

/* Check the handler's READS against every alias POINT (a go.func pattern,
   "go.func.main.*") matches: EXIT_OK, EXIT_BADINPUT after the line of a
   refusal, or another exit status after one line.  */
static int
check_point (struct check *c, const char *script, const char *point,
             const struct tok *const *reads, size_t nreads)
{
  const struct go_bin *b = c->b;
  if (c->aliases == NULL
      && ((c->aliases = calloc (b->nfuncs + 1, sizeof *c->aliases)) == NULL
          || (c->al = calloc (b->nfuncs + 1, sizeof *c->al)) == NULL))
    {
      error (0, errno, "out of memory");
      return EXIT_ERROR;
    }
  for (size_t fi = 0; fi < b->nfuncs; fi++)
    {
      const struct go_func *f = &b->funcs[fi];
      if (f->wrapper || strncmp (f->name, "go:", 3) == 0)
        continue;
      if (c->aliases[fi] == NULL)
        {
          char *alias = func_probe_name (f);
          if (alias == NULL
              || asprintf (&c->aliases[fi], "go.func.%s", alias) < 0)
            {
              c->aliases[fi] = NULL;
              free (alias);
              error (0, errno, "out of memory");
              return EXIT_ERROR;
            }
          free (alias);
        }
      /* Only a point that can match one of its aliases costs a look at
         the function's locals.  */
      if (!matches_alias (point, c->aliases[fi]))
        continue;
      struct alias_locals *a;
      int r = alias_locals (c, fi, &a);
      if (r == EXIT_OK)
        r = check_alias (c, script, point, c->aliases[fi], f->name, a,
                         reads, nreads);
      if (r != EXIT_OK)
        return r;
    }
  return check_inlined_only (c, script, point, reads, nreads);
}

/* The go.func pattern of the probe point TS[FROM, TO) into OUT ("" when it
   is none or not written out).  */
static void
point_pattern (const struct toks *ts, size_t from, size_t to, char *out,
               size_t size)
{
  out[0] = '\0';
  if (from >= to)
    return;
  const char *s = ts->v[from].p;
  const char *e = ts->v[to - 1].p + ts->v[to - 1].n;
  /* A trailing ? or ! makes the point optional (run-script.c).  */
  while (e > s && (e[-1] == '?' || e[-1] == '!' || e[-1] == ' '
                   || e[-1] == '\t' || e[-1] == '\n'))
    e--;
  size_t n = (size_t) (e - s);
  if (n <= 8 || n >= size || strncmp (s, "go.func.", 8) != 0
      || strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                 "0123456789_.*?[]") < n)
    return;
  memcpy (out, s, n);
  out[n] = '\0';
}

/* The -I directories of stap's options ARGV[1 .. ARGC).  */
static int
option_globals (int argc, char **argv, struct names *globals)
{
  for (int i = 1; i < argc; i++)
    {
      const char *dir = NULL;
      if (strcmp (argv[i], "-I") == 0 && i + 1 < argc)
        dir = argv[++i];
      else if (strncmp (argv[i], "-I", 2) == 0)
        dir = argv[i] + 2;
      if (dir != NULL && dir_globals (dir, globals, 0) != 0)
        return -1;
    }
  const char *tapsets = getenv ("GOSTAP_TAPSETS");
  return dir_globals (tapsets ? tapsets : GOSTAP_TAPSETDIR, globals, 0);
}

/* The '{' that opens the handler of the probe at TS[I] (TS->n when
   none): the head's points come before it, and the condition after
   'if'.  Into *SKIP whether the head defines an alias ('=' or '+='
   first) or is in a preprocessor construct.  */
static size_t
probe_body (const struct toks *ts, size_t i, bool *skip)
{
  size_t j = i + 1;
  bool alias_def = false, pp = ts->v[i].pp;
  while (j < ts->n && !op_is (ts, j, "{"))
    {
      alias_def |= op_is (ts, j, "=") || op_is (ts, j, "+=");
      pp |= ts->v[j].pp;
      if (op_is (ts, j, "(") || op_is (ts, j, "["))
        j = skip_group (ts, j);
      else
        j++;
    }
  *skip = alias_def || pp;
  return j;
}

/* Check the handler's READS against each point of the probe head
   TS[HEAD, BODY), up to the condition: an exit status, as check_point's.  */
static int
check_points (struct check *c, const struct toks *ts, size_t head,
              size_t body, const char *script,
              const struct tok *const *reads, size_t nreads)
{
  int ret = EXIT_OK;
  for (size_t p = head; p < body && ret == EXIT_OK;)
    {
      size_t q = p;
      while (q < body && !op_is (ts, q, ",") && !ident_is (ts, q, "if"))
        q = op_is (ts, q, "(") ? skip_group (ts, q) : q + 1;
      char pattern[1024];
      point_pattern (ts, p, q, pattern, sizeof pattern);
      if (pattern[0] != '\0')
        ret = check_point (c, script, pattern, reads, nreads);
      if (ident_is (ts, q, "if"))
        break;
      p = q + 1;
    }
  return ret;
}

/* Free what C made for the functions of its binary.  */
static void
check_free (struct check *c)
{
  go_model_end (c->m);
  for (size_t i = 0; c->aliases != NULL && i < c->b->nfuncs; i++)
    free (c->aliases[i]);
  for (size_t i = 0; c->al != NULL && i < c->b->nfuncs; i++)
    for (int k = 0; k < AL_N; k++)
      {
        free (c->al[i].body[k]);
        free (c->al[i].why[k]);
      }
  free (c->aliases);
  free (c->al);
}

int
run_script_check_locals (struct go_bin *b, const struct run_script *s,
                         int argc, char **argv)
{
  struct toks ts = { 0 };
  struct names globals = { 0 }, macros = { 0 };
  struct check c = { b, NULL, NULL, NULL };
  const struct tok **reads = NULL;
  bool have_options = false;
  int ret = EXIT_OK;
  int r = lex (s->text, &ts);
  if (r > 0)
    goto out;                   /* not whole: stap will say why */
  reads = calloc (ts.n + 1, sizeof *reads);
  if (r < 0 || reads == NULL || declarations (&ts, &globals, &macros) != 0)
    goto nomem;
  for (size_t i = 0; i < ts.n && ret == EXIT_OK; i++)
    {
      if (!ident_is (&ts, i, "probe"))
        continue;
      bool skip;
      size_t head = i + 1, body = probe_body (&ts, i, &skip);
      if (body >= ts.n)
        break;
      size_t end = skip_group (&ts, body);
      i = end - 1;
      if (skip)
        continue;
      size_t nreads;
      bool checkable;
      if (handler_reads (&ts, body + 1, end - 1, &globals, &macros, reads,
                         &nreads, &checkable) != 0)
        goto nomem;
      if (checkable && nreads > 0 && !have_options)
        {
          /* Read only for a handler that reads locals: the globals of
             the -I directories and of gostap's tapsets.  */
          have_options = true;
          if (option_globals (argc, argv, &globals) != 0
              || handler_reads (&ts, body + 1, end - 1, &globals, &macros,
                                reads, &nreads, &checkable) != 0)
            goto nomem;
        }
      if (checkable && nreads > 0)
        ret = check_points (&c, &ts, head, body, s->path, reads, nreads);
    }
  goto out;
nomem:
  error (0, ENOMEM, "%s", s->path);
  ret = EXIT_ERROR;
out:
  check_free (&c);
  free (reads);
  free (ts.v);
  names_free (&globals);
  names_free (&macros);
  return ret;
}
