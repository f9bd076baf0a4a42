/* probe-name.h: Go symbol name <-> SystemTap probe alias component list
   (see probe-name.c for the mapping).  */

#ifndef GOSTAP_PROBE_NAME_H
#define GOSTAP_PROBE_NAME_H

#include <stdint.h>

/* "main.(*T).M" -> "main._PT.M" (without the "go.func." prefix); malloc'd,
   NULL when out of memory.  */
char *probe_name (const char *goname);

struct go_func;
/* The alias of function F: probe_name of its name, plus "._E<entry>" for
   the second and later functions that share a name.  */
char *func_probe_name (const struct go_func *f);

/* The inverse of func_probe_name: the Go name an alias (without the
   "go.func." prefix) stands for, malloc'd, and in *ENTRY the entry
   address of a "._E<hex>" alias (0 without).  NULL when ALIAS is not an
   encoding probe_name makes, or out of memory.  */
char *probe_name_decode (const char *alias, uint64_t *entry);

#endif
