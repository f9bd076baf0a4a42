/* select.h: the "BINARY [GLOB...]" arguments of list and gen, and the
   functions they select (select.c).  */

#ifndef GOSTAP_SELECT_H
#define GOSTAP_SELECT_H

#include <argp.h>

#include "gobin.h"

struct go_model;
struct select_args
{
  const char *binary;
  char **globs;
  int nglobs;
  /* When set: a GLOB that names only functions with no out-of-line copy,
     only inlined ones, selects those (select_inlined_only).  */
  struct go_model *model;
};

/* What a command needs of a binary before it selects and writes, in the
   one order every command uses (as git's RUN_SETUP): open it (gobin.c);
   with PREPARE_PROBEABLE, check that SystemTap can probe it and take its
   path (write_check_probeable); with PREPARE_LAYOUT, read the runtime's
   layout into *LAYOUT.  An exit status, after one line; B is to be closed
   with gobin_close whatever it returns.  */
enum { PREPARE_PROBEABLE = 1, PREPARE_LAYOUT = 2 };
struct go_layout;
int select_prepare (struct go_bin *b, const char *path, unsigned needs,
                    struct go_layout *layout);

/* For a command's argp parser: takes BINARY and the GLOBs that follow.
   ARGP_ERR_UNKNOWN for other keys.  */
error_t select_parse (struct select_args *a, int key, char *arg,
                      struct argp_state *state);

/* The functions of B whose name matches a GLOB (all without GLOBs), plus
   those named exactly by one of the NALSO names of ALSO, in address order,
   each analysed (read-code.c).  *SEL is malloc'd.  An exit status: a GLOB
   that matches nothing is an error (1), said in one line.  */
int select_functions (struct go_bin *b, const struct select_args *a,
                      const char *const *also, size_t nalso,
                      const struct go_func ***sel, size_t *n);

/* The names of the functions of B with inlined copies (in A's model) and
   no out-of-line function, which match a GLOB of A (all without GLOBs),
   sorted, into *NAMES (malloc'd, the strings are the binary's).  An exit
   status after one line.  */
int select_inlined_only (const struct go_bin *b, const struct select_args *a,
                         const char ***names, size_t *n);

/* Sort the N functions of V (pointers into one go_bin's table) into table
   order, which is address order, and drop repeats; the number left.  */
size_t select_table_order (const struct go_func **v, size_t n);

#endif
