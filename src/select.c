/* select.c: see select.h.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>

#include "select.h"

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

int
select_functions (struct go_bin *b, const struct select_args *a,
                  bool (*also) (const char *name),
                  const struct go_func ***selp, size_t *np)
{
  int ret = EXIT_ERROR;
  const struct go_func **sel = calloc (b->nfuncs ? b->nfuncs : 1,
                                       sizeof *sel);
  bool *used = calloc ((size_t) a->nglobs + 1, sizeof *used);
  size_t n = 0;
  if (sel == NULL || used == NULL)
    {
      error (0, errno, "calloc");
      goto out;
    }
  for (size_t i = 0; i < b->nfuncs; i++)
    if (name_matches (a->globs, a->nglobs, b->funcs[i].name, used)
        || (also != NULL && also (b->funcs[i].name)))
      {
        int r = gobin_analyze (b, &b->funcs[i]);
        if (r != EXIT_OK)
          {
            ret = r;
            goto out;
          }
        sel[n++] = &b->funcs[i];
      }
  for (int i = 0; i < a->nglobs; i++)
    if (!used[i])
      {
        error (0, 0, "%s: no function matches '%s'", a->binary, a->globs[i]);
        goto out;
      }
  ret = EXIT_OK;
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
