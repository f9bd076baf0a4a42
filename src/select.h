/* select.h: the "BINARY [GLOB...]" arguments of list and gen, and the
   functions they select (select.c).  */

#ifndef GOSTAP_SELECT_H
#define GOSTAP_SELECT_H

#include <argp.h>

#include "gobin.h"

struct select_args
{
  const char *binary;
  char **globs;
  int nglobs;
};

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

/* Sort the N functions of V (pointers into one go_bin's table) into table
   order, which is address order, and drop repeats; the number left.  */
size_t select_table_order (const struct go_func **v, size_t n);

#endif
