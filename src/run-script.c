/* run-script.c: what a SystemTap script needs from gostap: the go.func
   probe points it names (wildcards included) and whether it uses a static
   alias built on a return alias.  Names in comments and strings do not
   count.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "tapset-contract.h"

static bool
ident_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
    || (c >= '0' && c <= '9') || c == '_';
}

static int
add_pattern (struct run_script *s, const char *p, size_t n, bool optional,
             bool uncertain)
{
  char **nv = reallocarray (s->patterns, s->npatterns + 1, sizeof *nv);
  if (nv == NULL)
    return -1;
  s->patterns = nv;
  bool *nm = reallocarray (s->matched, s->npatterns + 1, sizeof *nm);
  if (nm == NULL)
    return -1;
  s->matched = nm;
  bool *nc = reallocarray (s->uncertain, s->npatterns + 1, sizeof *nc);
  if (nc == NULL)
    return -1;
  s->uncertain = nc;
  s->uncertain[s->npatterns] = uncertain;
  if ((s->patterns[s->npatterns] = strndup (p, n)) == NULL)
    return -1;
  s->matched[s->npatterns] = optional;
  s->npatterns++;
  return 0;
}

int
run_script_check_matched (const struct run_script *s, const char *binary)
{
  for (size_t i = 0; i < s->npatterns; i++)
    if (!s->matched[i])
      {
        error (0, 0, "%s: no Go function of %s has the probe point %s (see "
               "`gostap list`; C functions of cgo programs are no go.func "
               "aliases: probe process(\"...\").function(\"NAME\"))",
               s->path ? s->path : "the script", binary, s->patterns[i]);
        return -1;
      }
  return 0;
}

/* The contents of the file PATH (malloc'd, NUL-terminated); NULL after
   one line.  */
static char *
read_text (const char *path)
{
  char *text = NULL;
  FILE *f = fopen (path, "r");
  if (f == NULL)
    {
      error (0, errno, "%s: cannot open", path);
      return NULL;
    }
  size_t size = 0;
  FILE *m = open_memstream (&text, &size);
  char buf[8192];
  size_t k;
  while (m != NULL && (k = fread (buf, 1, sizeof buf, f)) > 0)
    fwrite (buf, 1, k, m);
  bool bad = ferror (f);
  fclose (f);
  if (m == NULL || fclose (m) != 0 || bad)
    {
      error (0, errno, "%s: cannot read", path);
      free (text);
      return NULL;
    }
  return text;
}

const char *
run_script_skip_inert (const char *text, const char *p)
{
  if ((p[0] == '/' && p[1] == '/')
      || (p[0] == '#' && (p == text || (p[-1] != '$' && p[-1] != '@'))))
    return p + strcspn (p, "\n");
  if (p[0] == '/' && p[1] == '*')
    {
      const char *e = strstr (p + 2, "*/");
      return e != NULL ? e + 1 : p + strlen (p);
    }
  if (p[0] == '"')
    {
      for (p++; *p != '\0' && *p != '"'; p++)
        if (p[0] == '\\' && p[1] != '\0')
          p++;
      return p;
    }
  return NULL;
}

/* The go.func probe point at P: added to S's patterns, marked optional
   (a trailing ? or !) and uncertain when its handler may not run at every
   hit (UNCERTAIN already: outside a probe statement's points, in an alias
   definition or a preprocessor branch; or it has a condition).  Its
   length is *LEN; -1 when memory runs out.  */
static int
add_point (struct run_script *s, const char *p, bool uncertain, size_t *len)
{
  size_t n = 8;
  while (ident_char (p[n]) || p[n] == '.' || p[n] == '*' || p[n] == '?'
         || p[n] == '[' || p[n] == ']')
    n++;
  *len = n;
  /* A trailing ? or ! (or one after blanks) makes the probe point
     optional in SystemTap: it may match nothing.  */
  bool optional = false;
  while (n > 8 && (p[n - 1] == '.' || p[n - 1] == '?'))
    optional |= p[--n] == '?';
  const char *q = p + *len + strspn (p + *len, " \t");
  optional |= *q == '?' || *q == '!';
  /* probe POINT if (COND): stap runs the handler only while COND
     holds (it may even unregister the probe).  */
  if (*q == '?' || *q == '!')
    q += 1 + strspn (q + 1, " \t\n");
  q += strspn (q, " \t\n");
  uncertain |= strncmp (q, "if", 2) == 0 && !ident_char (q[2]);
  return n > 8 ? add_pattern (s, p, n, optional, uncertain) : 0;
}

/* Whether the word at P is a NAME_fmt local (write-locals.c): it ends in
   "_fmt" and is none of go_fmt.stp's own names.  */
static bool
names_fmt_local (const char *p)
{
  size_t n = 0;
  while (ident_char (p[n]))
    n++;
  return n > 4 && strncmp (p + n - 4, "_fmt", 4) == 0
    && strncmp (p, "go_fmt", 6) != 0;
}

int
run_script_add_fmt_name (struct run_script *s, const char *p)
{
  size_t n = 0, have = s->fmt_names != NULL ? strlen (s->fmt_names) : 0;
  while (ident_char (p[n]))
    n++;
  char word[128];
  if (n + 3 > sizeof word)
    return 0;                   /* no alias local is that long */
  snprintf (word, sizeof word, "\n%.*s\n", (int) n, p);
  if (s->fmt_names != NULL && strstr (s->fmt_names, word) != NULL)
    return 0;
  char *t = realloc (s->fmt_names, have + n + 3);
  if (t == NULL)
    {
      error (0, errno, "realloc");
      return -1;
    }
  snprintf (t + (have ? have - 1 : 0), n + 3, "%s", word);
  s->fmt_names = t;
  return 0;
}

/* Whether P names a static alias built on a return alias.  */
static bool
names_runtime_return (const char *p)
{
  for (size_t k = 0; k < sizeof tapset_return_aliases
         / sizeof tapset_return_aliases[0]; k++)
    if (strncmp (p, tapset_return_aliases[k],
                 strlen (tapset_return_aliases[k])) == 0
        && !ident_char (p[strlen (tapset_return_aliases[k])]))
      return true;
  return false;
}

int
run_read_script (struct run_script *s, const char *path,
                 const char *inline_text)
{
  memset (s, 0, sizeof *s);
  s->path = inline_text != NULL ? "-e script" : path;
  s->text = inline_text != NULL ? strdup (inline_text) : read_text (path);
  if (s->text == NULL)
    return -1;
  /* Where the scan is: inside how many preprocessor conditionals or macro
     bodies (%( %)), in the probe points of a probe statement (between
     `probe` and `{`), and after the `=` of an alias definition there.  */
  int pp_depth = 0;
  bool head = false, alias_def = false;
  for (const char *p = s->text; *p != '\0'; p++)
    {
      const char *e = run_script_skip_inert (s->text, p);
      if (e != NULL)
        {
          if (*e == '\0')
            break;
          p = e;
          continue;
        }
      if (p[0] == '%' && (p[1] == '(' || p[1] == ')'))
        {
          pp_depth += p[1] == '(' ? 1 : pp_depth > 0 ? -1 : 0;
          p++;
          continue;
        }
      bool word_start = p == s->text || !ident_char (p[-1]);
      if (word_start && names_fmt_local (p) && run_script_add_fmt_name (s, p) != 0)
        return -1;
      if (word_start && strncmp (p, "probe", 5) == 0 && !ident_char (p[5]))
        {
          head = true;
          alias_def = false;
          p += 4;
          continue;
        }
      if (p[0] == '{')
        head = false;
      if (head && p[0] == '=' && p[1] != '='
          && (p == s->text || strchr ("=!<>", p[-1]) == NULL))
        alias_def = true;       /* probe NAME = ... (or +=) */
      if (strncmp (p, "go.", 3) != 0
          || (p > s->text && (ident_char (p[-1]) || p[-1] == '.')))
        continue;
      s->runtime_returns |= names_runtime_return (p);
      if (strncmp (p, "go.func.", 8) != 0)
        continue;
      size_t len;
      if (add_point (s, p, !head || alias_def || pp_depth > 0, &len) != 0)
        {
          error (0, errno, "out of memory");
          return -1;
        }
      p += len - 1;
    }
  return 0;
}

void
run_script_free (struct run_script *s)
{
  for (size_t i = 0; i < s->npatterns; i++)
    free (s->patterns[i]);
  free (s->patterns);
  free (s->matched);
  free (s->uncertain);
  free (s->text);
  free (s->fmt_names);
  memset (s, 0, sizeof *s);
}

/* Component-wise glob match of a probe point against an alias.  */
static bool
match_components (const char *pattern, const char *alias)
{
  while (*pattern && *alias)
    {
      size_t pn = strcspn (pattern, "."), an = strcspn (alias, ".");
      char pc[512], ac[512];
      if (pn >= sizeof pc || an >= sizeof ac)
        return false;
      memcpy (pc, pattern, pn);
      pc[pn] = '\0';
      memcpy (ac, alias, an);
      ac[an] = '\0';
      if (fnmatch (pc, ac, 0) != 0)
        return false;
      pattern += pn + (pattern[pn] == '.');
      alias += an + (alias[an] == '.');
    }
  return *pattern == '\0' && *alias == '\0';
}

bool
run_script_match (const char *pattern, const char *alias)
{
  return match_components (pattern, alias);
}

bool
run_script_uses (const struct run_script *s, const char *alias, bool *ret,
                 bool *pairs)
{
  char full[1024], fr[1100], fo[1100], fi[1100];
  bool any = false, sure_entry = false;
  *ret = false;
  snprintf (full, sizeof full, "go.func.%s", alias);
  snprintf (fr, sizeof fr, "%s.return", full);
  snprintf (fo, sizeof fo, "%s.outofline", full);
  snprintf (fi, sizeof fi, "%s.inlined", full);
  for (size_t i = 0; i < s->npatterns; i++)
    {
      /* The entry alias and its out-of-line part record the entry for
         the return alias; the inlined copies' alias does not.  */
      if (match_components (s->patterns[i], full)
          || match_components (s->patterns[i], fo))
        {
          any = s->matched[i] = true;
          sure_entry |= !s->uncertain[i];
        }
      if (match_components (s->patterns[i], fi))
        any = s->matched[i] = true;
      if (match_components (s->patterns[i], fr))
        any = *ret = s->matched[i] = true;
    }
  *pairs = sure_entry && *ret;
  return any;
}

bool
run_script_uses_inlined (const struct run_script *s, const char *alias)
{
  char full[1024], fi[1100];
  bool any = false;
  snprintf (full, sizeof full, "go.func.%s", alias);
  snprintf (fi, sizeof fi, "%s.inlined", full);
  for (size_t i = 0; i < s->npatterns; i++)
    if (match_components (s->patterns[i], full)
        || match_components (s->patterns[i], fi))
      any = s->matched[i] = true;
  return any;
}
