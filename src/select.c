/* select.c: see select.h.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include "gobin.h"
#include "model.h"
#include "select.h"
#include "util.h"
#include "write.h"

error_t
select_parse (struct select_args *a, int key, char *arg,
              struct argp_state *state)
{
  switch (key)
    {
    case ARGP_KEY_ARG:
      a->binary = arg;
      a->globs = state->argv + state->next;
      a->nglobs = state->argc - state->next;
      state->next = state->argc;
      return 0;
    case ARGP_KEY_NO_ARGS:
      argp_error (state, "no binary given");
      return EINVAL;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

static int
compare_ptr (const void *a, const void *b)
{
  const struct go_func *x = *(const struct go_func *const *) a;
  const struct go_func *y = *(const struct go_func *const *) b;
  return x < y ? -1 : x > y;
}

size_t
select_table_order (const struct go_func **v, size_t n)
{
  if (n > 1)
    qsort (v, n, sizeof *v, compare_ptr);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || v[m - 1] != v[i])
      v[m++] = v[i];
  return m;
}

/* Append the functions named NAME to SEL, or only count them when SEL is
   NULL: true when there is one.  */
static bool
add_named (const struct go_bin *b, const char *name,
           const struct go_func **sel, size_t *n)
{
  const struct go_func *f = gobin_func_named (b, name);
  bool any = f != NULL;
  for (; f != NULL; f = gobin_next_named (b, f), (*n)++)
    if (sel != NULL)
      sel[*n] = f;
  return any;
}

/* True when every glob is a plain name (fnmatch without *, ? or [ is
   strcmp): then they are looked up rather than matched against every
   function.  */
static bool
all_exact (const struct select_args *a)
{
  bool exact = a->nglobs > 0;
  for (int i = 0; i < a->nglobs; i++)
    exact &= strpbrk (a->globs[i], "*?[") == NULL;
  return exact;
}

/* The functions named by A's exact names and by ALSO into SEL, each once
   (two names may name it), in address order; USED[i] tells whether name
   i named one.  Returns how many, or (size_t) -1 with an error.  */
static size_t
select_exact (const struct go_bin *b, const struct select_args *a,
              const char *const *also, size_t nalso,
              const struct go_func **sel, bool *used)
{
  /* Count, then collect.  */
  size_t nc = 0;
  for (int i = 0; i < a->nglobs; i++)
    add_named (b, a->globs[i], NULL, &nc);
  for (size_t i = 0; i < nalso; i++)
    add_named (b, also[i], NULL, &nc);
  const struct go_func **cand = calloc (nc + 1, sizeof *cand);
  if (cand == NULL)
    {
      error (0, errno, "calloc");
      return (size_t) -1;
    }
  nc = 0;
  for (int i = 0; i < a->nglobs; i++)
    used[i] = add_named (b, a->globs[i], cand, &nc);
  for (size_t i = 0; i < nalso; i++)
    add_named (b, also[i], cand, &nc);
  size_t n = select_table_order (cand, nc);
  memcpy (sel, cand, n * sizeof *sel);
  free (cand);
  return n;
}

/* The functions A's globs match or ALSO names into SEL, in table order,
   marking in USED the globs that matched.  Returns how many.  */
static size_t
select_matching (const struct go_bin *b, const struct select_args *a,
                 const char *const *also, size_t nalso,
                 const struct go_func **sel, bool *used)
{
  size_t n = 0;
  for (size_t i = 0; i < b->nfuncs; i++)
    {
      bool also_this = false;
      for (size_t k = 0; k < nalso && !also_this; k++)
        also_this = strcmp (b->funcs[i].name, also[k]) == 0;
      if (name_matches (a->globs, a->nglobs, b->funcs[i].name, used)
          || also_this)
        sel[n++] = &b->funcs[i];
    }
  return n;
}

/* Every glob of A matched a function or a name only inlined copies have
   (in A's model): EXIT_OK, or EXIT_ERROR with the first that did not.  */
static int
check_used (const struct select_args *a, bool *used)
{
  const char *const *inl = NULL;
  size_t ninl = 0;
  if (a->model != NULL && go_model_inline_names (a->model, &inl, &ninl) != 0)
    return EXIT_ERROR;
  for (size_t i = 0; i < ninl; i++)
    name_matches (a->globs, a->nglobs, inl[i], used);
  for (int i = 0; i < a->nglobs; i++)
    if (!used[i])
      {
        error (0, 0, "%s: no function matches '%s'", a->binary, a->globs[i]);
        return EXIT_ERROR;
      }
  return EXIT_OK;
}

int
select_functions (struct go_bin *b, const struct select_args *a,
                  const char *const *also, size_t nalso,
                  const struct go_func ***selp, size_t *np)
{
  int ret = EXIT_ERROR;
  const struct go_func **sel = calloc (b->nfuncs + 1, sizeof *sel);
  bool *used = calloc ((size_t) a->nglobs + 1, sizeof *used);
  size_t n = 0;
  if (sel == NULL || used == NULL)
    {
      error (0, errno, "calloc");
      goto out;
    }
  if (all_exact (a))
    {
      n = select_exact (b, a, also, nalso, sel, used);
      if (n == (size_t) -1)
        {
          n = 0;
          goto out;
        }
    }
  else
    n = select_matching (b, a, also, nalso, sel, used);
  for (size_t i = 0; i < n; i++)
    {
      int r = gobin_analyze (b, sel[i]);
      if (r != EXIT_OK)
        {
          ret = r;
          goto out;
        }
    }
  ret = check_used (a, used);
out:
  free (used);
  if (ret != EXIT_OK)
    {
      free (sel);
      sel = NULL;
      n = 0;
    }
  *selp = sel;
  *np = n;
  return ret;
}

int
select_prepare (struct go_bin *b, const char *path, unsigned needs,
                struct go_layout *layout)
{
  int ret = gobin_open (b, path);
  if (ret == EXIT_OK && (needs & PREPARE_PROBEABLE))
    ret = write_check_probeable (b);
  if (ret == EXIT_OK && (needs & PREPARE_LAYOUT)
      && gobin_runtime_layout (b, layout) != 0)
    ret = EXIT_BADINPUT;
  return ret;
}

int
select_inlined_only (const struct go_bin *b, const struct select_args *a,
                     const char ***namesp, size_t *np)
{
  const char *const *inl;
  size_t ninl;
  *namesp = NULL;
  *np = 0;
  if (a->model == NULL)
    return EXIT_OK;
  if (go_model_inline_names (a->model, &inl, &ninl) != 0)
    return EXIT_ERROR;
  const char **v = calloc (ninl + 1, sizeof *v);
  bool *used = calloc ((size_t) a->nglobs + 1, sizeof *used);
  if (v == NULL || used == NULL)
    {
      error (0, errno, "calloc");
      free (v);
      free (used);
      return EXIT_ERROR;
    }
  size_t n = 0;
  for (size_t i = 0; i < ninl; i++)
    {
      bool out_of_line = false;
      for (const struct go_func *f = gobin_func_named (b, inl[i]); f != NULL;
           f = gobin_next_named (b, f))
        out_of_line |= !f->wrapper;
      if (!out_of_line
          && name_matches (a->globs, a->nglobs, inl[i], used))
        v[n++] = inl[i];
    }
  free (used);
  *namesp = v;
  *np = n;
  return EXIT_OK;
}
